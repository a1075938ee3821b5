//! An offline run from `run`'s own options: the same task selection
//! (`--tasks`, `--variants`, `--instances`), the same agents built the same
//! way (`run::setup`: the model server started when no endpoint is given,
//! the endpoint checked before the first step), recorded in the same store
//! as a run whose config says `"mode": "steps"`, with each episode's steps,
//! requests and answers beside it (`store::offline`).
//!
//! Episodes run on the simulator one at a time, each from its instance's
//! setup with the run's episode seed.

use crate::agent::schema::Reason;
use crate::agent::LlmAgent;
use crate::run::{
    agent_kind, agents, async_runtime, llm_config, reason_for, run_config, select_variants,
    start_run, start_server, with_instances, AgentKind, PhoneKind, RunOptions, RunSuiteError,
    Watch,
};
use crate::store::{OfflineKey, Store, StoreError};
use crate::task::{step_instructions_at, Instructions, Task};
use droidscore_phone::sim::SimPhone;
use droidscore_phone::PhoneError;

use super::matchers;
use super::replay::{replay, End, OfflineEpisode};

/// What an offline run adds to `run`'s options.
#[derive(Debug, Clone)]
pub struct OfflineOptions {
    /// `--matchers`: comma-separated names, or `all`.
    pub matchers: String,
}

/// A finished offline run.
#[derive(Debug)]
pub struct OfflineRun {
    pub run_id: String,
    pub agent: AgentKind,
    pub matchers: Vec<String>,
    pub episodes: Vec<OfflineEpisode>,
}

#[derive(Debug, thiserror::Error)]
pub enum OfflineError {
    #[error(transparent)]
    Setup(#[from] RunSuiteError),
    #[error("{0}")]
    BadInput(String),
    #[error(transparent)]
    Phone(#[from] PhoneError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{why}; run {run_id} keeps the episodes before it")]
    EndpointRefused { run_id: String, why: String },
}

/// What `steps` cannot do that `run` can, refused by name.
fn refuse_run_only(options: &RunOptions) -> Result<(), OfflineError> {
    let why = if options.phone != PhoneKind::Sim {
        Some("--phone adb: steps replays the reference on the simulator")
    } else if options.agent_cmd.is_some() {
        Some("--agent-cmd: a program drives its own episode; steps asks an agent step by step")
    } else if options.repeat != 1 {
        Some("--repeat: an offline run asks each step once")
    } else if options.jobs != 1 {
        Some("--jobs: steps runs one episode at a time")
    } else if options.shard.is_some() {
        Some("--shard: steps runs the whole selection")
    } else if options.server.on_device {
        Some("--on-device: steps runs no adb phone")
    } else {
        None
    };
    match why {
        Some(why) => Err(OfflineError::BadInput(format!("not for steps: {why}"))),
        None => Ok(()),
    }
}

/// Replay every selected instance and score the agent at every step.
pub fn run_offline(
    options: &RunOptions,
    offline: &OfflineOptions,
    tasks: &[Task],
    watch: &mut dyn Watch,
) -> Result<OfflineRun, OfflineError> {
    refuse_run_only(options)?;
    let matchers = matchers::by_names(&offline.matchers)
        .map_err(|e| OfflineError::BadInput(format!("--matchers: {e}")))?;
    let selected = select_variants(tasks, &options.variants).map_err(RunSuiteError::from)?;
    let instances =
        with_instances(tasks, &selected, options.instances).map_err(RunSuiteError::from)?;
    let kind = agent_kind(options)?;
    reason_for(kind, options.reason)?;
    let store = Store::open(&options.store)?;
    store.check_room()?;
    let runtime = async_runtime()?;
    // The server lives as long as `served` (dropped at the end: stopped).
    let served = match (kind, &options.base_url) {
        (AgentKind::Llm, None) => Some(start_server(options, &runtime, watch)?.0),
        _ => None,
    };
    let llm = match kind {
        AgentKind::Llm => {
            let config = llm_config(options, served.as_ref())?;
            LlmAgent::new(config.clone(), runtime.handle().clone()).map_err(RunSuiteError::Llm)?;
            Some(config)
        }
        _ => None,
    };
    let mut config = run_config(options, kind);
    config["mode"] = "steps".into();
    config["instructions"] = options.instructions.name().into();
    if options.reason != Reason::Full {
        config["reason"] = options.reason.name().into();
    }
    config["matchers"] = matchers.iter().map(|m| m.name()).collect::<Vec<_>>().into();
    if let Some(server) = &served {
        server.record(&mut config);
    }
    if let Some(llm) = &llm {
        config["constrain"] = llm.constrain.name().into();
        config["agent_format"] = llm.format.name().into();
        config["max_tokens"] = llm.max_tokens.into();
    }
    // `--resume`: the run's config must match (`start_run`), and the
    // episodes it has are kept and not asked again.
    let (run_id, _) = start_run(&store, options, &config, None)?;
    let mut episodes = match options.resume {
        Some(_) => store.offline_episodes(&run_id)?,
        None => Vec::new(),
    };
    let done: std::collections::BTreeSet<OfflineKey> = episodes
        .iter()
        .map(|e| (e.task.clone(), e.variant.clone(), e.instance_seed))
        .collect();
    let instances: Vec<_> = instances
        .into_iter()
        .filter(|i| !done.contains(&(i.task.clone(), i.variant.id.clone(), i.instance_seed)))
        .collect();
    let factory = agents(kind, llm, runtime.handle().clone());
    let bar = watch.progress(instances.len());
    for instance in &instances {
        let mut phone =
            SimPhone::new(instance.setup(options.episode_seed)).map_err(RunSuiteError::from)?;
        let mut agent = factory(instance, options.episode_seed).map_err(OfflineError::BadInput)?;
        // Written from the variant's own screens as this episode's seed
        // shows them (`task::instruction`).
        let steps = match options.instructions {
            Instructions::Goal => None,
            Instructions::Steps => Some(
                step_instructions_at(instance, options.episode_seed).map_err(|why| {
                    OfflineError::BadInput(format!("--instructions steps: {why}"))
                })?,
            ),
        };
        // On this thread, not the runtime's: the LLM agent blocks on it.
        let episode = replay(
            &mut phone,
            agent.as_mut(),
            instance,
            steps.as_deref(),
            &matchers,
        )?;
        store.record_offline_episode(&run_id, &episode)?;
        bar.inc(1);
        if let End::Fatal(why) = &episode.end {
            return Err(OfflineError::EndpointRefused {
                run_id,
                why: why.clone(),
            });
        }
        episodes.push(episode);
    }
    bar.finish_and_clear();
    Ok(OfflineRun {
        run_id,
        agent: kind,
        matchers: matchers.iter().map(|m| m.name().to_owned()).collect(),
        episodes,
    })
}
