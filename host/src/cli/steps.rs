//! `droidscore steps`: the offline mode. Every agent option of `run` (the
//! agent, the endpoint or the model server started for it, the format, the
//! constraint, `--reason`, `--instructions goal|steps`) with `--matchers`; the reference is
//! replayed on the simulator and the agent scored at each of its steps
//! (`offline`). The run goes to the store (`report` shows it and compares
//! two); its numbers per matcher go to stdout, as a table or JSON.

use clap::Args;

use super::error::CliError;
use super::run::{RunArgs, Terminal};
use super::shared::{json, load, out};
use crate::offline::{self, OfflineError, OfflineOptions};
use crate::report::format::Format;
use crate::report::steps::{disagreements, offline_comparison, offline_table};
use crate::store::Store;

#[derive(Debug, Args)]
pub struct StepsArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// The matchers to score under: comma-separated names, each with or
    /// without its version (`aitw`, `androidcontrol@1`, `qwen-box`,
    /// `gui-odyssey`, `droidscore`), or `all`.
    #[arg(long, default_value = "all")]
    pub matchers: String,
}

impl From<OfflineError> for CliError {
    fn from(e: OfflineError) -> Self {
        match e {
            OfflineError::Setup(e) => e.into(),
            OfflineError::BadInput(why) => CliError::BadInput(why),
            OfflineError::Phone(e) => CliError::Phone(e),
            OfflineError::Store(e) => e.into(),
            e @ OfflineError::EndpointRefused { .. } => CliError::Endpoint(e.to_string()),
        }
    }
}

/// `droidscore steps`: the offline run, its numbers on stdout.
pub fn steps(args: StepsArgs) -> Result<(), CliError> {
    let tasks = load(&args.run.suite)?;
    let (json_out, store) = (args.run.json, args.run.store.clone());
    let offline = OfflineOptions {
        matchers: args.matchers.clone(),
    };
    let options = args.run.options(None);
    let instructions = options.instructions;
    let run = offline::run_offline(&options, &offline, &tasks, &mut Terminal)?;
    let summary = offline::summarize(&run.episodes, &run.matchers);
    if json_out {
        json(&serde_json::json!({
            "run_id": run.run_id,
            "agent": run.agent.name(),
            "instructions": instructions.name(),
            "summary": summary,
            "episodes": run.episodes,
        }))?;
    } else {
        out(&offline_table(
            &run.run_id,
            &run.agent.name(),
            instructions.name(),
            &summary,
        ))?;
        out(&format!("run {} in {}\n", run.run_id, store.display()))?;
    }
    if summary.scored == 0 {
        return Err(CliError::NothingScored(format!(
            "run {}: no episode could be scored ({} endpoint failures, {} references not replayed)",
            run.run_id, summary.infra, summary.replay_failed
        )));
    }
    Ok(())
}

/// `droidscore report` of an offline run (`other`: a second one to
/// compare with).
pub(super) fn report(
    store: &Store,
    a: &str,
    other: Option<&str>,
    format: Format,
) -> Result<(), CliError> {
    // A run's episodes, with the agent and instruction level it recorded.
    let load_run = |id: &str| -> Result<_, CliError> {
        if !store.is_offline(id)? {
            return Err(CliError::BadInput(format!(
                "run {id} is not an offline run (`droidscore steps`): compare offline runs with offline runs"
            )));
        }
        let episodes = store.offline_episodes(id)?;
        let config = store.run(id)?.map(|r| r.config).unwrap_or_default();
        let text = |k: &str| {
            config
                .get(k)
                .and_then(|v| v.as_str())
                .unwrap_or("?")
                .to_owned()
        };
        Ok((episodes, text("agent"), text("instructions")))
    };
    let summary = |episodes: &[offline::OfflineEpisode]| {
        offline::summarize(episodes, &offline::matcher_names(episodes))
    };
    let (mut episodes, agent, instructions) = load_run(a)?;
    if format == Format::Html {
        return Err(CliError::BadInput(
            "--format html reports online runs; report an offline run as table, md or json".into(),
        ));
    }
    let Some(b) = other else {
        let sa = summary(&episodes);
        return if format == Format::Json {
            // Every step with its answer, the reference and the verdicts
            // (the requests stay in the store: `Store::offline_requests`).
            json(&serde_json::json!({
                "run_id": a, "agent": agent, "instructions": instructions, "summary": sa,
                "episodes": episodes,
            }))
        } else {
            out(&offline_table(a, &agent, &instructions, &sa))?;
            out("\nsteps on which the matchers disagree, by pattern (3 of each):\n")?;
            out(&disagreements(&episodes, 3))
        };
    };
    // Two runs are ranked on the same steps: the episodes both hold.
    let (mut other_episodes, ..) = load_run(b)?;
    let common = crate::report::common::offline(&mut episodes, &mut other_episodes);
    let (sa, sb) = (summary(&episodes), summary(&other_episodes));
    if format == Format::Json {
        return json(&serde_json::json!({
            "a": {"run_id": a, "summary": sa}, "b": {"run_id": b, "summary": sb},
            "common": common,
        }));
    }
    out(&offline_comparison((a, &sa), (b, &sb)))?;
    match common.line() {
        Some(line) => out(&line),
        None => Ok(()),
    }
}
