//! One comparison from start to report: choose the cores, check they are
//! quiet, stamp provenance, run the passes, summarise, judge, and hold the
//! run to its expectations. The `BenchReport` is what every output format
//! renders; it is written even when an arm fails part-way, with the passes
//! that ran.

use std::path::PathBuf;
use std::time::Duration;

use super::check::{self, Expectations};
use super::provenance::{self, Provenance};
use super::runner::{self, ArmFailure, BusyCheck, Observer, Pass, Plan};
use super::spec::Spec;
use super::summary::{self, ArmSummary, Ranking};
use super::{cache, cpu, BenchError};

#[derive(Debug, Clone)]
pub struct Config {
    pub spec: PathBuf,
    pub passes: usize,
    pub metric: String,
    /// Keys to summarise besides the metric (which is always included).
    pub keys: Vec<String>,
    /// The target cores; `None`: every online core, arms not pinned.
    pub cores: Option<Vec<usize>>,
    pub busy_threshold: f64,
    pub force: bool,
    pub busy_window: Duration,
    pub min_window: Duration,
    pub expectations: Option<Expectations>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BenchReport {
    pub schema: &'static str,
    pub provenance: Provenance,
    pub metric: String,
    pub keys: Vec<String>,
    pub passes_requested: usize,
    /// Passes in which every arm ran: only these enter `arms` and `ranking`.
    pub passes_completed: usize,
    /// Passes (from 1) in which an arm failed; their runs are in `passes`
    /// (with `"complete": false`) but in no statistic.
    pub incomplete_passes: Vec<usize>,
    pub busy_check: BusyCheck,
    pub warnings: Vec<String>,
    pub arms: Vec<ArmSummary>,
    pub ranking: Ranking,
    pub not_a_ranking: bool,
    /// Why the order on the metric is, or is not, a ranking.
    pub ranking_reason: String,
    /// Every key's verdict, the metric's first: ranking (with ratios) or
    /// NOT A RANKING, with the reason.
    pub rankings: Vec<Ranking>,
    /// Passes (from 1) with a contended run.
    pub contended_passes: Vec<usize>,
    /// `--force` was given *and* a core was busy, so the run started on a
    /// machine that was not quiet (every pass then has `forced_past_busy`).
    /// `busy_check.force_flag` is the flag as given.
    pub forced_past_busy: bool,
    pub passes: Vec<Pass>,
    pub check: Option<check::Report>,
    /// Why the check could not be made (e.g. a ratio bound over a
    /// non-positive value); the report is still written.
    pub check_error: Option<String>,
    pub error: Option<ArmFailure>,
}

/// `taskset` on PATH, if any.
pub fn find_taskset() -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("taskset"))
            .find(|p| p.is_file())
    })
}

/// The keys to summarise: the metric first, then `keys` without repeats.
pub fn all_keys(metric: &str, keys: &[String]) -> Vec<String> {
    let mut out = vec![metric.to_string()];
    for k in keys {
        if !out.contains(k) {
            out.push(k.clone());
        }
    }
    out
}

pub fn compare(config: &Config, observer: &mut dyn Observer) -> Result<BenchReport, BenchError> {
    if config.passes == 0 {
        return Err(BenchError::BadInput("--passes must be at least 1".into()));
    }
    let (spec, bytes) = Spec::load(&config.spec)?;
    let keys = all_keys(&config.metric, &config.keys);
    // Every key's direction is known before anything runs.
    for k in &keys {
        spec.direction(k)?;
    }
    // So are the expectations: a typo must not cost a whole run.
    if let Some(e) = &config.expectations {
        let tags: Vec<&str> = spec.arms.iter().map(|a| a.tag.as_str()).collect();
        e.validate(&tags, &keys)?;
    }
    let online = cpu::online_cpus().map_err(|e| BenchError::read("/proc/stat", e))?;
    let mut warnings = Vec::new();
    let (cores, taskset, pinning) = match &config.cores {
        Some(cores) => {
            if let Some(c) = cores.iter().find(|c| !online.contains(c)) {
                return Err(BenchError::BadInput(format!(
                    "--cores names cpu{c}, which is not online (online: {})",
                    cpu::format_core_list(&online)
                )));
            }
            let list = cpu::format_core_list(cores);
            match find_taskset() {
                Some(_) => (cores.clone(), Some(list.clone()), format!("taskset -c {list}")),
                None => {
                    let why = format!(
                        "not pinned: taskset (util-linux) is not on PATH; the busy check and \
                         contention labels still look at cores {list}"
                    );
                    warnings.push(format!("arms are {why}"));
                    (cores.clone(), None, why)
                }
            }
        }
        None => (
            online.clone(),
            None,
            format!(
                "not pinned: no --cores; the busy check and contention labels look at every online core ({})",
                cpu::format_core_list(&online)
            ),
        ),
    };
    let busy_check = runner::busy_check(
        &cores,
        config.busy_window,
        config.busy_threshold,
        config.force,
    )?;
    if !busy_check.busy.is_empty() {
        warnings.push(format!(
            "started with --force although {} {} busy; every pass is labelled forced",
            busy_check.busy.join(", "),
            if busy_check.busy.len() == 1 {
                "was"
            } else {
                "were"
            }
        ));
    }
    warnings.extend(cache::warnings(&spec.arms));
    let mut provenance = provenance::at_start(
        &config.spec,
        &bytes,
        &spec.arms,
        cpu::format_core_list(&cores),
        pinning,
    );
    let forced = !busy_check.busy.is_empty();
    let plan = Plan {
        spec: &spec,
        passes: config.passes,
        keys: keys.clone(),
        cores,
        taskset,
        threshold: config.busy_threshold,
        forced_past_busy: forced,
        min_window: config.min_window,
    };
    let outcome = runner::run(&plan, observer);
    provenance.finish();
    let complete: Vec<Pass> = outcome
        .passes
        .iter()
        .filter(|p| p.complete)
        .cloned()
        .collect();
    let incomplete_passes: Vec<usize> = outcome
        .passes
        .iter()
        .filter(|p| !p.complete)
        .map(|p| p.pass)
        .collect();
    for p in outcome.passes.iter().filter(|p| !p.complete) {
        warnings.push(format!(
            "pass {} is incomplete (an arm failed): its {} run(s) are recorded under passes but left out of every statistic and the ranking",
            p.pass,
            p.runs.len()
        ));
    }
    let arms = summary::summarize(&spec, &keys, &outcome.passes)?;
    let ranking = summary::rank(
        &arms,
        &config.metric,
        spec.direction(&config.metric)?,
        complete.len(),
    );
    let rankings = summary::rank_all(&arms, &keys, &spec, complete.len())?;
    let contended_passes: Vec<usize> = outcome
        .passes
        .iter()
        .filter(|p| p.contended)
        .map(|p| p.pass)
        .collect();
    if !contended_passes.is_empty() {
        warnings.push(format!(
            "contended passes: {} (something besides the arm kept the cores busier than {:.0} %; see each run's contention)",
            join(&contended_passes),
            config.busy_threshold * 100.0
        ));
    }
    let not_quiet = match (contended_passes.is_empty(), forced) {
        (true, false) => None,
        (false, false) => Some(format!("passes {} were contended", join(&contended_passes))),
        (true, true) => Some("the run was started under --force with busy cores".to_string()),
        (false, true) => Some(format!(
            "the run was started under --force with busy cores and passes {} were contended",
            join(&contended_passes)
        )),
    };
    let (check, check_error) = match (&config.expectations, &outcome.failure) {
        (Some(e), None) => match check::check(e, &arms, &provenance, not_quiet.as_deref()) {
            Ok(r) => (Some(r), None),
            Err(e) => (None, Some(e.to_string())),
        },
        _ => (None, None),
    };
    Ok(BenchReport {
        schema: "droidscore-harness/1",
        provenance,
        metric: config.metric.clone(),
        keys,
        passes_requested: config.passes,
        passes_completed: complete.len(),
        incomplete_passes,
        busy_check,
        warnings,
        arms,
        not_a_ranking: ranking.not_a_ranking,
        ranking_reason: ranking.reason.clone(),
        ranking,
        rankings,
        contended_passes,
        forced_past_busy: forced,
        passes: outcome.passes,
        check,
        check_error,
        error: outcome.failure,
    })
}

fn join(passes: &[usize]) -> String {
    passes
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
