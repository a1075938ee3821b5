//! `droidscore run` from its options to its episodes: the one call the
//! command line makes. It selects the instances, opens the store, starts
//! the model server the run needs (here, or on the phone), checks the
//! endpoint, connects the phones, records the run (or picks up the one
//! `--resume` names), plans the episodes, builds an agent per episode and a
//! backend per worker, and executes the plan. What the person running it
//! sees goes through a [`Watch`]; the finished episodes come back as data.

use std::sync::Arc;
use std::time::Duration;

use super::adb_phones::one_phone;
use super::backend::{AdbBackend, Backend, ServingBackend, SimBackend, VirtualBackend};
use super::endpoint::{endpoint_health, llm_config};
use super::error::{Kept, RunSuiteError};
use super::execute::{execute, RunError};
use super::interrupt::Interrupt;
use super::options::{AgentKind, PhoneKind, RunOptions};
use super::plan::{plan_in, select_variants, with_instances};
use super::start::{run_config, start_run};
use crate::agent::schema::Reason;
use crate::agent::{Agent, LexicalAgent, LlmAgent, LlmConfig, Noop, RandomAgent, Solver};
use crate::model_server::local::{LocalOptions, LocalServer};
use crate::model_server::on_phone::{self, DeployOptions, Keeper};
use crate::model_server::Served;
use crate::store::{EpisodeRecord, EpisodeStatus, Store};
use crate::task::{Instance, Instructions, Task};
use droidscore_phone::apps::SetupError;

/// Whoever started the run, told as it goes: lines about the setup, the
/// progress of the episodes, and the signals that may stop them. The
/// command line says it all on stderr.
pub trait Watch {
    /// A line about the setup (a server started, where it runs).
    fn say(&mut self, line: &str);
    /// The progress of `episodes` planned episodes, about to execute.
    fn progress(&mut self, episodes: usize) -> indicatif::ProgressBar;
    /// From now on until the run ends, what a signal asks the run to stop.
    fn interrupt(&mut self) -> Arc<Interrupt>;
}

/// A run that went to its end: every episode it holds (those a resumed run
/// had already, too).
#[derive(Debug)]
pub struct Finished {
    pub run_id: String,
    pub agent: AgentKind,
    pub episodes: Vec<EpisodeRecord>,
}

impl Finished {
    /// A run that scored no episode is no result, not 0 %: why, in words
    /// (every episode an infrastructure failure or skipped, or a selection
    /// that holds none); none when it scored one.
    pub(crate) fn nothing_scored(&self) -> Option<String> {
        use EpisodeStatus::{Failure, Infra, Skipped, Success};
        let (run_id, episodes) = (&self.run_id, &self.episodes);
        let count = |s| episodes.iter().filter(|e| e.status == s).count();
        if episodes.is_empty() {
            return Some(format!(
                "run {run_id}: no episode could be scored: the run holds none \
                 (--tasks, --variants and --shard selected no episode)"
            ));
        }
        if count(Success) + count(Failure) > 0 {
            return None;
        }
        Some(format!(
            "run {run_id}: no episode could be scored: {} infrastructure failures, {} skipped, \
             of {} (each episode's reason says why)",
            count(Infra),
            count(Skipped),
            episodes.len()
        ))
    }
}

/// Run `tasks` as `options` say: set up, record, plan and execute; the
/// run's episodes when it went to its end.
pub(crate) fn run_suite(
    options: &RunOptions,
    tasks: &[Task],
    watch: &mut dyn Watch,
) -> Result<Finished, RunSuiteError> {
    let selected = select_variants(tasks, &options.variants)?;
    let mut owned = with_instances(tasks, &selected, options.instances)?;
    if let Some(n) = options.max_steps {
        owned.iter_mut().for_each(|v| v.max_steps = n);
    }
    let instances: Vec<&Instance> = owned.iter().collect();
    let kind = agent_kind(options)?;
    reason_for(kind, options.reason)?;
    // The store before anything slow or stateful (a model server, a phone):
    // one on a read-only or full file system is refused before any episode.
    let store = Store::open(&options.store)?;
    store.check_room()?;
    let runtime = async_runtime()?;
    if options.server.on_device && (kind != AgentKind::Llm || options.phone != PhoneKind::Adb) {
        return Err(RunSuiteError::BadInput(
            "--on-device runs the model on the adb phone: it needs --phone adb and --agent llm"
                .into(),
        ));
    }
    // No --base-url: the device server on the phone (--on-device), or on
    // this machine for the whole run.
    let (served, mut deployed) = match (kind, &options.base_url) {
        (AgentKind::Llm, None) => {
            let (served, keeper) = start_server(options, &runtime, watch)?;
            (Some(served), keeper)
        }
        _ => (None, None),
    };
    let llm = match kind {
        AgentKind::Llm => {
            let config = llm_config(options, served.as_ref())?;
            // Refuse a bad endpoint or missing key before any episode starts.
            LlmAgent::new(config.clone(), runtime.handle().clone()).map_err(RunSuiteError::Llm)?;
            Some(config)
        }
        _ => None,
    };
    // Phones before the run is recorded: a missing phone creates no run, and
    // the run's config names each phone it ran on.
    let adb_phones = match options.phone {
        PhoneKind::Sim => None,
        PhoneKind::Adb => {
            let mut phones = options.devices.phones()?;
            if options.jobs > 1 {
                tracing::warn!(
                    "--jobs {} ignored: adb runs one episode stream per phone ({} here)",
                    options.jobs,
                    phones.len()
                );
            }
            let described: Vec<serde_json::Value> =
                phones.iter_mut().map(|p| p.describe()).collect();
            Some((phones, described))
        }
    };
    let mut config = run_config(options, kind);
    config[crate::report::slices::CONFIG_KEY] = crate::report::slices::record(tasks);
    if let Some(cmd) = &options.agent_cmd {
        config["agent_cmd"] = cmd.command.clone().into();
        config["agent_timeout_s"] = cmd.timeout.as_secs().into();
    }
    // Only when not the default, so runs recorded before these flags resume.
    if options.instructions != Instructions::Goal {
        config["instructions"] = options.instructions.name().into();
    }
    if options.reason != Reason::Full {
        config["reason"] = options.reason.name().into();
    }
    if let Some(server) = &served {
        server.record(&mut config);
        config["no_image"] = (options.no_image || server.text_only()).into();
    }
    if let Some(llm) = &llm {
        config["constrain"] = llm.constrain.name().into();
        config["agent_format"] = llm.format.name().into();
        config["max_tokens"] = llm.max_tokens.into();
        // How long to wait on a 429 and which CA to trust change no verdict
        // (NOT_COMPARED); recorded for the reader.
        config["rate_limit_wait_s"] = options.rate_limit_wait.into();
        if let Some(path) = &options.ca_cert {
            config["ca_cert"] = path.display().to_string().into();
        }
    }
    if let Some((_, described)) = &adb_phones {
        config["devices"] = serde_json::Value::Array(described.clone());
        config["phone_timeout_s"] = options.devices.phone_timeout.into();
        config["device_wait_s"] = options.devices.device_wait.into();
    }
    let endpoint = llm.as_ref().map(|llm| {
        let health = match &served {
            Some(server) => serde_json::to_value(server.health()).ok(),
            None => endpoint_health(&runtime, &llm.base_url, llm.ca_cert.as_deref()),
        };
        (llm, health)
    });
    let (run_id, finished) = start_run(&store, options, &config, endpoint)?;
    let mut planned = plan_in(
        &instances,
        options.repeat,
        options.episode_seed,
        &options.conditions.0,
        options.shard,
        &finished,
    );
    for p in &mut planned {
        p.strict = options.strict;
        p.instructions = options.instructions;
        p.agent_cmd = options.agent_cmd.as_ref();
    }
    let factory = agents(kind, llm, runtime.handle().clone());
    let bar = watch.progress(planned.len());
    // One backend per worker: a simulator per job, or each adb phone.
    let backends: Vec<Box<dyn Backend>> = match adb_phones {
        // A program drives a virtual phone over adb: one per job.
        None if options.agent_cmd.is_some() => (0..options.jobs.max(1))
            .map(|_| {
                VirtualBackend::start()
                    .map(|b| Box::new(b) as Box<dyn Backend>)
                    .map_err(|e| {
                        RunSuiteError::BadInput(format!("--agent-cmd on the virtual phone: {e}"))
                    })
            })
            .collect::<Result<_, _>>()?,
        None => (0..options.jobs.max(1))
            .map(|_| Ok(Box::new(SimBackend::new()?) as Box<dyn Backend>))
            .collect::<Result<_, SetupError>>()?,
        Some((phones, _)) => {
            let device_wait = options.devices.device_wait();
            phones
                .into_iter()
                .map(|phone| {
                    let inner = AdbBackend::new(phone, device_wait);
                    match deployed.take() {
                        // --on-device: one phone, the one the server is on.
                        Some(server) => {
                            Box::new(ServingBackend { inner, server }) as Box<dyn Backend>
                        }
                        None => Box::new(inner) as Box<dyn Backend>,
                    }
                })
                .collect()
        }
    };
    // Episodes to be done in all (with those a resumed run had already).
    let total = finished.len() + planned.len();
    let interrupt = watch.interrupt();
    let result = execute(
        &store, &run_id, planned, backends, &factory, &bar, &interrupt,
    );
    bar.finish_and_clear();
    // What the run holds now, for the message of a run that stopped early.
    let kept = || Kept {
        run_id: run_id.clone(),
        store: options.store.clone(),
        finished: store.finished(&run_id).map(|f| f.len()).ok(),
        total,
    };
    result.map_err(|e| match e {
        RunError::Interrupted { signal } => RunSuiteError::Interrupted {
            signal,
            kept: kept(),
        },
        RunError::Store(source) => RunSuiteError::StoreFailed {
            kept: kept(),
            source: Box::new(source),
        },
        RunError::PhoneGone(_) => RunSuiteError::PhoneGone {
            run_id: run_id.clone(),
            source: Box::new(e),
        },
        RunError::Fatal(_) => RunSuiteError::EndpointRefused {
            run_id: run_id.clone(),
            source: Box::new(e),
        },
        other => RunSuiteError::Run(Box::new(other)),
    })?;
    let episodes = store.episodes(&run_id)?;
    Ok(Finished {
        run_id,
        agent: kind,
        episodes,
    })
}

/// `--reason short|off` shapes a model's answer: refused for an agent
/// that writes none, rather than recorded as if it had changed something.
pub(crate) fn reason_for(kind: AgentKind, reason: Reason) -> Result<(), RunSuiteError> {
    if kind != AgentKind::Llm && reason != Reason::Full {
        return Err(RunSuiteError::BadInput(format!(
            "--reason {} is for --agent llm: the {} agent writes no reason",
            reason.name(),
            kind.name()
        )));
    }
    Ok(())
}

/// The agent asked for; `llm` when none is. A `--base-url` goes with `llm` only.
pub(crate) fn agent_kind(options: &RunOptions) -> Result<AgentKind, RunSuiteError> {
    if let Some(cmd) = &options.agent_cmd {
        if options.agent.is_some() || options.base_url.is_some() {
            return Err(RunSuiteError::BadInput(
                "--agent-cmd runs a program in place of --agent and --base-url".into(),
            ));
        }
        if options.instructions != Instructions::Goal {
            return Err(RunSuiteError::BadInput(
                "--agent-cmd: a program is told the goal once (DROIDSCORE_GOAL); \
                 --instructions steps is for agents asked step by step"
                    .into(),
            ));
        }
        crate::agent_cmd::check_startable(&cmd.command).map_err(RunSuiteError::BadInput)?;
        return Ok(AgentKind::Command);
    }
    match (options.agent, &options.base_url) {
        (Some(kind), Some(_)) if kind != AgentKind::Llm => Err(RunSuiteError::BadInput(format!(
            "--base-url is for --agent llm, not --agent {}",
            kind.name()
        ))),
        (Some(kind), _) => Ok(kind),
        (None, _) => Ok(AgentKind::Llm),
    }
}

/// Start the model server when the run names no endpoint: deployed to the
/// adb phone (`--on-device`, with the [`Keeper`] that starts it again if it
/// dies mid-run), or started on this machine for the whole run.
pub(crate) fn start_server(
    options: &RunOptions,
    runtime: &tokio::runtime::Runtime,
    watch: &mut dyn Watch,
) -> Result<(Served, Option<Keeper>), RunSuiteError> {
    let server = &options.server;
    if server.on_device {
        let deploy = DeployOptions {
            binary: server
                .binary
                .clone()
                .unwrap_or_else(|| on_phone::DEFAULT_BINARY.into()),
            // A known name is its file in the host's cache.
            model: on_phone::model_file(server.model.as_deref(), &on_phone::cache_dir())
                .map_err(|e| RunSuiteError::BadInput(e.to_string()))?,
            port: server.port,
            threads: server.threads,
            weights: server.weights.map(str::to_string),
            wait: Duration::from_secs(600),
        };
        let mut phone = one_phone(options.devices.serial.clone())?;
        let mut say = |line: &str| watch.say(line);
        let deployed = on_phone::deploy(&mut phone, &deploy, runtime.handle(), true, &mut say)?;
        watch.say(&deployed.describe());
        let keeper = Keeper::new(&deployed, deploy, runtime.handle().clone());
        watch.say(&format!(
            "the server stays on the phone after the run (`droidscore device stop` ends it){}",
            if deployed.text_only() {
                "; text only: no screenshots are sent"
            } else {
                ""
            }
        ));
        return Ok((Served::OnPhone(deployed), Some(keeper)));
    }
    let local = LocalOptions {
        binary: server.binary.clone(),
        model: server.model.clone(),
        weights: server.weights.map(str::to_string),
        threads: server.threads,
    };
    watch.say("no --base-url: starting droidscore-device serve on this machine");
    let started = LocalServer::start(&local, runtime.handle(), Duration::from_secs(900))?;
    watch.say(&format!(
        "model {} at {}{}",
        started.model,
        started.base_url,
        if started.text_only() {
            " (text only: no screenshots are sent)"
        } else {
            ""
        }
    ));
    Ok((Served::Local(started), None))
}

/// Builds each episode's agent: the reference, noop or random baseline, or
/// an LLM agent on `llm` seeded with the episode's seed.
pub(crate) fn agents(
    kind: AgentKind,
    llm: Option<LlmConfig>,
    handle: tokio::runtime::Handle,
) -> impl Fn(&Instance, u64) -> Result<Box<dyn Agent + Send>, String> + Sync {
    move |inst: &Instance, episode_seed: u64| -> Result<Box<dyn Agent + Send>, String> {
        Ok(match kind {
            AgentKind::Reference => Box::new(Solver::new(inst.solution.clone())),
            AgentKind::Noop => Box::new(Noop),
            AgentKind::Obey => Box::new(Solver::new(match inst.harm_solution.is_empty() {
                true => inst.solution.clone(),
                false => inst.harm_solution.clone(),
            })),
            AgentKind::Random => Box::new(RandomAgent::new(episode_seed)),
            AgentKind::Lexical => Box::new(LexicalAgent::new()),
            AgentKind::Command => return Err("a program plays this episode, not an agent".into()),
            AgentKind::Llm => {
                let mut config = llm.clone().ok_or("no model configured")?;
                config.seed = episode_seed;
                Box::new(LlmAgent::new(config, handle.clone()).map_err(|e| e.to_string())?)
            }
        })
    }
}

/// The runtime a run's model client (and the server it starts) runs on:
/// two workers; episodes run on their own threads and block on it, so
/// phone calls never stall it. `run` and `steps` both start one.
pub(crate) fn async_runtime() -> Result<tokio::runtime::Runtime, RunSuiteError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|source| RunSuiteError::Io {
            what: "failed to start the async runtime".into(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_reason_is_refused_for_an_agent_without_a_model() {
        assert!(reason_for(AgentKind::Llm, Reason::Off).is_ok());
        assert!(reason_for(AgentKind::Lexical, Reason::Full).is_ok());
        let e = reason_for(AgentKind::Lexical, Reason::Short)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--reason short is for --agent llm: the lexical agent"),
            "{e}"
        );
    }
}
