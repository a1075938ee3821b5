//! `droidscore steps`: the offline mode. Every agent option of `run` (the
//! agent, the endpoint or the model server started for it, the format, the
//! constraint, `--reason`, `--instructions goal|steps`) with `--matchers`; the reference is
//! replayed on the simulator and the agent scored at each of its steps
//! (`offline`). The run goes to the store (`report` shows it and compares
//! two); its numbers per matcher go to stdout, as a table or JSON.
//! `steps judge FILE` judges steps read from a file (`offline::judge`).

use std::io::Read;
use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::error::CliError;
use super::run::{RunArgs, Terminal};
use super::shared::{json, load, out};
use crate::offline::matchers::Matcher;
use crate::offline::{self, OfflineError, OfflineOptions};
use crate::report::format::Format;
use crate::report::paired::Unit;
use crate::report::steps::{disagreements, offline_comparison, offline_table};
use crate::store::Store;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct StepsArgs {
    #[command(subcommand)]
    pub command: Option<StepsCommand>,
    #[command(flatten)]
    pub run: RunArgs,
    /// The matchers to score under: comma-separated names, each with its
    /// version or bare for the current one (`aitw`, `androidcontrol@1`,
    /// `qwen-box`, `gui-odyssey@2`, `droidscore`), or `all` (every current
    /// version).
    #[arg(long, default_value = "all")]
    pub matchers: String,
}

#[derive(Debug, Subcommand)]
pub enum StepsCommand {
    /// Judge steps read from a file under any matchers and versions: a JSON
    /// array or JSON lines of `{"id": …, "answer": <Act>, "reference":
    /// <Reference>}` (the form the store keeps a step's answer and
    /// reference in); one JSON line of verdicts per item on stdout.
    Judge(JudgeArgs),
}

#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// The file of steps (`-`: standard input).
    pub file: PathBuf,
    /// The matchers, as `steps --matchers` names them (default: every
    /// current version).
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

/// `droidscore steps judge`: every item's verdicts, one JSON line each.
fn judge(args: JudgeArgs) -> Result<(), CliError> {
    let matchers = offline::matchers::by_names(&args.matchers)
        .map_err(|e| CliError::BadInput(format!("--matchers: {e}")))?;
    let name = args.file.display().to_string();
    let mut text = String::new();
    let read = match name.as_str() {
        "-" => std::io::stdin().read_to_string(&mut text).map(drop),
        _ => std::fs::read_to_string(&args.file).map(|t| text = t),
    };
    read.map_err(|e| CliError::BadInput(format!("{name}: {e}")))?;
    let items =
        offline::judge::parse(&text).map_err(|e| CliError::BadInput(format!("{name}: {e}")))?;
    let mut lines = String::new();
    for item in &items {
        lines += &offline::judge::judge(item, &matchers).to_string();
        lines.push('\n');
    }
    out(&lines)
}

/// `droidscore steps`: the offline run, its numbers on stdout.
pub fn steps(args: StepsArgs) -> Result<(), CliError> {
    if let Some(StepsCommand::Judge(args)) = args.command {
        return judge(args);
    }
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
/// compare with); `matchers`: judge the stored steps again under these.
pub(super) fn report(
    store: &Store,
    (a, other): (&str, Option<&str>),
    matchers: Option<&[Box<dyn Matcher>]>,
    format: Format,
    plan: Option<f64>,
) -> Result<(), CliError> {
    // A run's episodes, with the agent and instruction level it recorded.
    let load_run = |id: &str| -> Result<_, CliError> {
        if !store.is_offline(id)? {
            return Err(CliError::BadInput(format!(
                "run {id} is not an offline run (`droidscore steps`): compare offline runs with offline runs"
            )));
        }
        let mut episodes = store.offline_episodes(id)?;
        if let Some(matchers) = matchers {
            offline::rejudge(&mut episodes, matchers);
        }
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
            if let Some(line) = older_versions(&sa).filter(|_| matchers.is_none()) {
                out(&format!("{line}\n"))?;
            }
            out("\nsteps on which the matchers disagree, by pattern (3 of each):\n")?;
            out(&disagreements(&episodes, 3))?;
            if let Some(points) = plan {
                out("\n")?;
                for m in &sa.scores {
                    let units: Vec<Unit> = episodes
                        .iter()
                        .filter(|e| e.scored())
                        .flat_map(|e| {
                            e.steps.iter().filter_map(|s| {
                                let v = s.verdict(&m.matcher)?;
                                Some(Unit::yes_no(e.task.clone(), v.correct, false))
                            })
                        })
                        .collect();
                    let what = format!("step accuracy under {} (units: steps)", m.matcher);
                    out(&crate::report::paired::plan_text(
                        points, &what, &units, false,
                    ))?;
                }
            }
            Ok(())
        };
    };
    // Two runs are ranked on the same steps: the episodes both hold.
    let (mut other_episodes, ..) = load_run(b)?;
    let common = crate::report::common::offline(&mut episodes, &mut other_episodes);
    let (sa, sb) = (summary(&episodes), summary(&other_episodes));
    if format == Format::Json {
        // Each matcher's paired comparison, corrected across the matchers.
        let (rows, mut paired) =
            crate::report::steps::offline_pairs(&sa, &sb, &episodes, &other_episodes);
        crate::report::paired::holm(&mut paired.iter_mut().collect::<Vec<_>>());
        let paired: Vec<serde_json::Value> = rows
            .iter()
            .zip(&paired)
            .map(|((m, mb), p)| {
                let overlap = crate::report::steps::overlap_verdict(m, mb);
                serde_json::json!({"matcher": m.matcher, "paired": p, "overlap": overlap})
            })
            .collect();
        return json(&serde_json::json!({
            "a": {"run_id": a, "summary": sa}, "b": {"run_id": b, "summary": sb},
            "common": common, "paired": paired,
        }));
    }
    out(&offline_comparison(
        (a, &sa, &episodes),
        (b, &sb, &other_episodes),
    ))?;
    if let Some(line) = common.line() {
        out(&line)?;
    }
    let names = |s: &offline::OfflineSummary| -> Vec<String> {
        s.scores.iter().map(|m| m.matcher.clone()).collect()
    };
    let (na, nb) = (names(&sa), names(&sb));
    let only = |x: &[String], y: &[String]| -> Vec<String> {
        x.iter().filter(|n| !y.contains(n)).cloned().collect()
    };
    let (only_a, only_b) = (only(&na, &nb), only(&nb, &na));
    if !only_a.is_empty() || !only_b.is_empty() {
        out(&format!(
            "not compared: A's steps alone were judged under {}, B's alone under {} \
             (`--matchers` judges both runs' stored steps under the same rules)\n",
            list_or_none(&only_a),
            list_or_none(&only_b)
        ))?;
    }
    if matchers.is_none() {
        for (side, s) in [("A", &sa), ("B", &sb)] {
            if let Some(line) = older_versions(s) {
                out(&format!("{side}: {line}\n"))?;
            }
        }
    }
    if let Some(points) = plan {
        // The matchers both runs were judged by (the comparison's rows).
        for m in sa.scores.iter().filter(|m| nb.contains(&m.matcher)) {
            let units = crate::report::steps::step_units(&episodes, &other_episodes, &m.matcher);
            let what = format!("step accuracy under {}, paired (units: steps)", m.matcher);
            out(&crate::report::paired::plan_text(
                points, &what, &units, true,
            ))?;
        }
    }
    Ok(())
}

fn list_or_none(names: &[String]) -> String {
    match names.is_empty() {
        true => "no matcher".into(),
        false => names.join(", "),
    }
}

/// What says a run's recorded verdicts are under earlier versions of
/// matchers than the current ones, and how to judge its steps again.
fn older_versions(summary: &offline::OfflineSummary) -> Option<String> {
    let current: Vec<&str> = offline::matchers::all().iter().map(|m| m.name()).collect();
    let rule = |name: &str| name.split('@').next().unwrap_or(name).to_owned();
    let older: Vec<String> = summary
        .scores
        .iter()
        .map(|m| m.matcher.as_str())
        .filter(|m| !current.contains(m))
        .filter_map(|m| {
            let now = current.iter().find(|c| rule(c) == rule(m))?;
            Some(format!("{m} (now {now})"))
        })
        .collect();
    (!older.is_empty()).then(|| {
        format!(
            "verdicts recorded under earlier matcher versions: {}; `report --matchers all` judges the stored steps under the current ones",
            older.join(", ")
        )
    })
}
