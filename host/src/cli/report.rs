//! `droidscore report`: a run from the store summarised (table, markdown,
//! JSON, or an HTML page with every trajectory), two runs compared task by
//! task, and shard stores merged in first.

use std::path::PathBuf;

use clap::Args;

use super::error::CliError;
use super::shared::out;
use crate::store::Store;

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run to report (default: the newest in the store).
    pub run: Option<String>,
    /// A second run: compare the two task by task.
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
    let pick = |id: Option<&String>| -> Result<String, CliError> {
        match id {
            Some(id) => store.run(id)?.map(|r| r.id).ok_or_else(|| {
                CliError::BadInput(format!("no run {id:?} in {}", args.store.display()))
            }),
            None => store.latest_run()?.map(|r| r.id).ok_or_else(|| {
                CliError::BadInput(format!("{} holds no runs", args.store.display()))
            }),
        }
    };
    let a = pick(args.run.as_ref())?;
    // An offline run (`droidscore steps`) has steps, not episodes; comparing
    // one with an online run is refused there.
    let other = args.other.as_ref().map(|b| pick(Some(b))).transpose()?;
    if store.is_offline(&a)?
        || other.as_deref().map(|b| store.is_offline(b)).transpose()? == Some(true)
    {
        return super::steps::report(&store, &a, other.as_deref(), args.format);
    }
    let summary_of = |id: &str| -> Result<crate::report::summary::Summary, CliError> {
        let episodes = store.episodes(id)?;
        let mut summary =
            crate::report::summary::summarize(id, &episodes).with_usage(&store.step_usage(id)?);
        if let Some(run) = store.run(id)? {
            summary = summary.with_run(&run, &episodes);
        }
        Ok(summary)
    };
    let sa = summary_of(&a)?;
    let html = args.format == crate::report::format::Format::Html;
    if html && args.other.is_some() {
        return Err(CliError::BadInput(
            "--format html reports one run; compare two runs as table, md or json".into(),
        ));
    }
    match &args.other {
        None if html => {
            let mut views = Vec::new();
            for episode in store.episodes(&a)? {
                let steps = store.steps(&a, &episode.task, &episode.variant, episode.repeat)?;
                views.push(crate::report::trajectory::EpisodeView { episode, steps });
            }
            let path = args
                .out
                .clone()
                .unwrap_or_else(|| std::path::PathBuf::from(format!("droidscore-report-{a}.html")));
            std::fs::write(&path, crate::report::html::page(&sa, &views))
                .map_err(|e| CliError::io(format!("write {}", path.display()), e))?;
            out(&format!("{}\n", path.display()))
        }
        None => out(&crate::report::format::summary(&sa, args.format)),
        Some(other) => {
            let sb = summary_of(&pick(Some(other))?)?;
            let rows = crate::report::summary::compare(&sa, &sb);
            out(&crate::report::format::comparison(
                &sa,
                &sb,
                &rows,
                args.format,
            ))
        }
    }
}
