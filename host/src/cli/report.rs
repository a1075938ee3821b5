//! `droidscore report`: a run from the store summarised (table, markdown,
//! JSON, or an HTML page with every trajectory), two runs compared task by
//! task, and shard stores merged in first. A run may be named by a pattern
//! (`'q05-*'`): the runs it matches are read as one (`report::join`).

use std::path::PathBuf;

use clap::Args;

use super::error::CliError;
use super::shared::out;
use crate::report::join;
use crate::report::summary::Summary;
use crate::store::{EpisodeRecord, RunRecord, Store};

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run to report (default: the newest in the store). A pattern
    /// (`'q05-*'`, `?` and `[…]` too) reads the runs it matches as one, if
    /// they differ only in the tasks they selected and no episode is in two.
    pub run: Option<String>,
    /// A second run (or pattern): compare the two task by task.
    pub other: Option<String>,
    #[arg(long, default_value = "droidscore-runs.sqlite")]
    pub store: PathBuf,
    #[arg(long, value_enum, default_value = "table")]
    pub format: crate::report::format::Format,
    /// Where `--format html` writes its page (default:
    /// `droidscore-report-<run>.html`); the path is printed.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Merge this shard store into `--store` first (repeat for several); a
    /// directory merges every `*.sqlite` store in it, in name order.
    #[arg(long, value_name = "STORE|DIR")]
    pub merge: Vec<PathBuf>,
    /// Offline runs: judge the stored steps again under these matchers
    /// (`all` for every current version, or names with or without their
    /// versions: `aitw@1,aitw@2`) instead of reading the verdicts recorded
    /// when the run was made.
    #[arg(long, value_name = "NAMES")]
    pub matchers: Option<String>,
    /// After the report, plan a run: how many templates, and units (steps,
    /// episodes) per template, a difference of this many points needs at
    /// 80 % power. With two runs, from their paired differences; with one,
    /// for a second agent that much higher and independent of it.
    #[arg(long, value_name = "POINTS")]
    pub plan: Option<f64>,
}

pub fn report(args: ReportArgs) -> Result<(), CliError> {
    // Reading never writes: the store is opened read-only, and a missing
    // one is an error, not a new empty file. `--merge` writes into it.
    let store = match args.merge.is_empty() {
        true => Store::open_read_only(&args.store)?,
        false => Store::open(&args.store)?,
    };
    if !args.merge.is_empty() {
        let sources = crate::store::expand_sources(&args.merge, &args.store)
            .map_err(|e| CliError::BadInput(e.to_string()))?;
        let merged = crate::store::merge(&store, &sources)?;
        eprintln!(
            "merged {} store(s) into {}: {} episodes added, {} already there; {} runs new, {} joined",
            sources.len(),
            args.store.display(),
            merged.episodes_added,
            merged.episodes_already_present,
            merged.runs_added,
            merged.runs_joined,
        );
    }
    // The runs each side names: one id, or the ones a pattern matches.
    let pick = |spec: Option<&String>| -> Result<Vec<RunRecord>, CliError> {
        let none = |what: String| CliError::BadInput(format!("{what} in {}", args.store.display()));
        match spec {
            Some(spec) if join::is_pattern(spec) => {
                let pattern = glob::Pattern::new(spec)
                    .map_err(|e| CliError::BadInput(format!("run pattern {spec:?}: {e}")))?;
                let mut runs: Vec<RunRecord> = store
                    .runs()?
                    .into_iter()
                    .filter(|r| pattern.matches(&r.id))
                    .collect();
                runs.sort_by(|a, b| a.id.cmp(&b.id));
                match runs.is_empty() {
                    true => Err(none(format!("no run matches {spec:?}"))),
                    false => Ok(runs),
                }
            }
            Some(id) => Ok(vec![store
                .run(id)?
                .ok_or_else(|| none(format!("no run {id:?}")))?]),
            None => Ok(vec![store.latest_run()?.ok_or_else(|| {
                CliError::BadInput(format!("{} holds no runs", args.store.display()))
            })?]),
        }
    };
    let a = pick(args.run.as_ref())?;
    let other = args.other.as_ref().map(|b| pick(Some(b))).transpose()?;
    // An offline run (`droidscore steps`) has steps, not episodes; comparing
    // one with an online run is refused there. Offline runs are read one at
    // a time.
    let offline = |runs: &[RunRecord]| -> Result<bool, CliError> {
        let mut any = false;
        for run in runs {
            any |= store.is_offline(&run.id)?;
        }
        if any && runs.len() > 1 {
            return Err(CliError::BadInput(format!(
                "a pattern reads online runs as one, and it matched {} runs with offline \
                 (`steps`) ones among them: report those one at a time",
                runs.len()
            )));
        }
        Ok(any)
    };
    if offline(&a)? || other.as_deref().map(offline).transpose()? == Some(true) {
        let b = other.as_ref().map(|runs| runs[0].id.as_str());
        let matchers = args
            .matchers
            .as_deref()
            .map(crate::offline::matchers::by_names)
            .transpose()
            .map_err(|e| CliError::BadInput(format!("--matchers: {e}")))?;
        return super::steps::report(
            &store,
            (&a[0].id, b),
            matchers.as_deref(),
            args.format,
            args.plan,
        );
    }
    if let Some(points) = args
        .plan
        .filter(|p| !(p.is_finite() && *p > 0.0 && *p <= 100.0))
    {
        return Err(CliError::BadInput(format!(
            "--plan {points}: a difference in points, above 0 and at most 100"
        )));
    }
    if args.matchers.is_some() {
        return Err(CliError::BadInput(
            "--matchers judges the steps of offline runs (`droidscore steps`); an online run is scored from the phone's state".into(),
        ));
    }
    // A run's record and its episodes; for the pieces a pattern matched, the
    // record they are read under (named by the pattern) and all their
    // episodes.
    type Read = (RunRecord, Vec<EpisodeRecord>);
    let read = |name: Option<&String>, runs: &[RunRecord]| -> Result<Read, CliError> {
        let mut episodes = Vec::new();
        for run in runs {
            episodes.extend(store.episodes(&run.id)?);
        }
        if let [one] = runs {
            return Ok((one.clone(), episodes));
        }
        // More than one run only ever comes from a pattern, which names them.
        let name = name.map(String::as_str).unwrap_or_default();
        let joined = join::join(name, runs).map_err(CliError::BadInput)?;
        join::check_disjoint(&episodes).map_err(CliError::BadInput)?;
        let builds: std::collections::BTreeSet<&str> = runs
            .iter()
            .map(|r| r.provenance.git_rev.as_deref().unwrap_or("unknown"))
            .collect();
        eprintln!(
            "{name}: {} runs read as one ({} episodes), built at {}",
            runs.len(),
            episodes.len(),
            builds.into_iter().collect::<Vec<_>>().join(", ")
        );
        Ok((joined, episodes))
    };
    // A run's summary, from what `read` gave; the step usage is the runs'.
    let summarize = |(record, episodes): &Read, runs: &[RunRecord]| -> Result<Summary, CliError> {
        let mut usage = Vec::new();
        for run in runs {
            usage.extend(store.step_usage(&run.id)?);
        }
        Ok(crate::report::summary::summarize(&record.id, episodes)
            .with_usage(&usage)
            .with_run(record, episodes))
    };
    let mut read_a = read(args.run.as_ref(), &a)?;
    let html = args.format == crate::report::format::Format::Html;
    if html && args.other.is_some() {
        return Err(CliError::BadInput(
            "--format html reports one run; compare two runs as table, md or json".into(),
        ));
    }
    match &args.other {
        None if html => {
            let sa = summarize(&read_a, &a)?;
            let mut views = Vec::new();
            for episode in read_a.1 {
                let steps = store.steps(
                    &episode.run_id,
                    &episode.task,
                    &episode.variant,
                    episode.repeat,
                )?;
                views.push(crate::report::trajectory::EpisodeView { episode, steps });
            }
            let path = args.out.clone().unwrap_or_else(|| {
                PathBuf::from(format!("droidscore-report-{}.html", file_part(&sa.run_id)))
            });
            std::fs::write(&path, crate::report::html::page(&sa, &views))
                .map_err(|e| CliError::io(format!("write {}", path.display()), e))?;
            out(&format!("{}\n", path.display()))
        }
        None => {
            out(&crate::report::format::summary(
                &summarize(&read_a, &a)?,
                args.format,
            ))?;
            match args.plan {
                Some(points) => plan(points, &read_a, None),
                None => Ok(()),
            }
        }
        Some(_) => {
            // Two runs are ranked on the episodes both hold.
            let runs_b = other.as_deref().unwrap_or_default();
            let mut read_b = read(args.other.as_ref(), runs_b)?;
            let common = crate::report::common::online(&mut read_a.1, &mut read_b.1);
            let (sa, sb) = (summarize(&read_a, &a)?, summarize(&read_b, runs_b)?);
            let rows = crate::report::compare::pair(
                crate::report::compare::rows(&sa, &sb),
                &read_a.1,
                &read_b.1,
                &read_a.0.config,
            );
            out(&crate::report::format::comparison(
                &sa,
                &sb,
                &rows,
                &common,
                args.format,
            ))?;
            match args.plan {
                Some(points) => plan(points, &read_a, Some(&read_b)),
                None => Ok(()),
            }
        }
    }
}

/// `--plan`: for success and for episodes reaching a milestone, the run
/// size a difference of `points` needs, from one run or two runs' pairs.
fn plan(
    points: f64,
    (a, ea): &(RunRecord, Vec<EpisodeRecord>),
    b: Option<&(RunRecord, Vec<EpisodeRecord>)>,
) -> Result<(), CliError> {
    use crate::report::compare::{Measure, Pairing};
    // One run is paired with itself, and its B side set to 0.
    let eb = b.map_or(ea, |(_, eb)| eb);
    let pairing = Pairing::new(ea, eb, &a.config);
    for (measure, what) in [
        (Measure::Success, "success"),
        (Measure::Reached, "episodes reaching a milestone"),
    ] {
        let mut units = pairing.units(&measure);
        if b.is_none() {
            units.iter_mut().for_each(|u| u.b = 0.0);
        }
        if units.is_empty() {
            continue;
        }
        let what = match b {
            Some(_) => format!("{what}, paired (units: episodes)"),
            None => format!("{what} (units: episodes)"),
        };
        out(&crate::report::paired::plan_text(
            points,
            &what,
            &units,
            b.is_some(),
        ))?;
    }
    Ok(())
}

/// A run id (or pattern) as part of a file name: `q05-*` gives `q05-_`.
fn file_part(id: &str) -> String {
    id.chars()
        .map(|c| match c.is_ascii_alphanumeric() || "._-".contains(c) {
            true => c,
            false => '_',
        })
        .collect()
}
