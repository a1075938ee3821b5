//! A run's summary, computed from its episode records: success overall, per
//! task and per variant with Wilson 95 % intervals, pass^k over repeats, the
//! task variants whose verdict flips across repeats, and what was not scored
//! (skipped, infrastructure), and success by template. Comparing two runs
//! is `report::compare`'s.

use std::collections::BTreeMap;

pub use super::stats::Line;
use super::stats::{pass_hat_k, rate, Rate};
use super::usage::UsageStats;
use crate::store::{EpisodeRecord, EpisodeStatus, RunRecord, StepUsage};

/// `agent llm, model M (local), agent format androidworld, constrain
/// schema, device model smollm2-135m, weights packed; /health: …`: what in a run's config and provenance says
/// how its answers were produced. Keys the run does not have are left out.
fn setup(run: &RunRecord) -> String {
    let c = &run.config;
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Null => None,
        other => Some(other.to_string()),
    };
    let mut parts = Vec::new();
    if let Some(agent) = text(&c["agent"]) {
        parts.push(format!("agent {agent}"));
    }
    if let Some(model) = text(&c["model"]) {
        // Where it ran when droidscore started the server (`local`,
        // `on-device`); an endpoint's URL is left out (the HTML page links
        // nowhere, and the port is the run's, not the model's).
        match text(&c["base_url"]).filter(|at| !at.contains("://")) {
            Some(at) => parts.push(format!("model {model} ({at})")),
            None => parts.push(format!("model {model}")),
        }
    }
    for (key, name) in [
        ("agent_format", "agent format"),
        ("constrain", "constrain"),
        ("device_model", "device model"),
        ("device_weights", "device weights"),
    ] {
        if let Some(v) = text(&c[key]) {
            parts.push(format!("{name} {v}"));
        }
    }
    let mut out = parts.join(", ");
    if let Some(health) = &run.provenance.endpoint_health {
        let m = &health["model"];
        let said: Vec<String> = ["id", "weights", "quantization", "threads"]
            .iter()
            .filter_map(|k| text(&m[*k]).map(|v| format!("{k} {v}")))
            .collect();
        if !said.is_empty() {
            out += &format!("; endpoint /health: {}", said.join(", "));
        }
    }
    out
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Summary {
    pub run_id: String,
    /// Scored episodes (success or failure) over all tasks and variants.
    pub overall: Rate,
    /// `overall`'s 95 % interval with each template's episodes as one
    /// cluster (`stats::by_template`); Wilson's counts every episode as
    /// independent.
    pub overall_by_template: (f64, f64),
    /// The sampling component of success's variance, when keys were
    /// repeated (`stats::sampling`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<super::stats::Sampling>,
    pub per_task: Vec<Line>,
    /// Per variant id across tasks (`base`, `renamed`, `decoy`, …).
    pub per_variant: Vec<Line>,
    /// Per device condition (`run --conditions`), in `Condition::ALL`
    /// order; empty when the run had one condition.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_condition: Vec<ConditionLine>,
    /// Repeats per task variant (the smallest, when they differ).
    pub repeats: u32,
    /// Mean over task variants of pass^k with k = `repeats`: all k tries succeed.
    pub pass_hat_k: Option<f64>,
    /// Task variants whose scored verdict differs between repeats.
    pub flips: Vec<String>,
    pub episodes: u64,
    pub skipped: u64,
    pub infra: u64,
    /// Device actions over all episodes (a typed text and its Enter are
    /// two; an app opened is one).
    pub steps: u64,
    /// Agent decisions over all episodes, what `--max-steps` bounds;
    /// `None` when an episode did not record them (a store from before
    /// they were kept).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decisions: Option<u64>,
    pub invalid_steps: u64,
    /// Sub-goals, efficiency and side effects, over the episodes that
    /// recorded them (`None` when none did: a store from before them).
    pub progress: Option<super::progress::ProgressStats>,
    /// Tokens and latency per step; empty until [`Summary::with_usage`].
    pub usage: UsageStats,
    /// How the run was set up (agent, model, `--constrain`, the device
    /// server's model and weights), from its record; `None` until
    /// [`Summary::with_run`].
    pub setup: Option<String>,
    /// Success per category, app and tag, from the slices the run
    /// recorded; `None` until [`Summary::with_run`], and for a run
    /// recorded before runs kept them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slices: Option<super::slices::Slices>,
    /// The safety track's success, harm and refusals; `None` when the run
    /// has no safety template's episode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub safety: Option<super::safety::SafetyStats>,
}

/// Success in one device condition, and how many of its episodes were
/// skipped (the condition conflicts with the task's initial state, or the
/// phone cannot run the instance).
#[derive(Debug, Clone, serde::Serialize)]
pub struct ConditionLine {
    pub name: String,
    pub rate: Rate,
    pub skipped: u64,
    /// Of those, the episodes skipped because the condition conflicts with
    /// the task's initial state.
    pub conflicts: u64,
    /// Against the first condition listed (`base` when the run had it):
    /// the paired verdict (`report::paired`), `higher`, `lower` or `NOT A
    /// RANKING`; `-` on the first line itself.
    pub versus_first: String,
}

/// Wording of the per-condition table's heading: a difference inside the
/// spread is no finding.
pub const CONDITIONS_HEADING: &str = "per device condition: 95 % Wilson intervals; \
     against the first condition, paired on the episodes both scored (task, variant, instance, \
     repeat) and clustered by template, Holm across the conditions: a ranking only where \
     the paired interval and the exact McNemar test both exclude no difference";

/// The per-condition table's rows: name, success, skipped, against the first.
pub(crate) fn condition_rows(lines: &[ConditionLine]) -> Vec<Vec<String>> {
    lines
        .iter()
        .map(|l| {
            vec![
                l.name.clone(),
                l.rate.display(),
                l.skipped.to_string(),
                l.versus_first.clone(),
            ]
        })
        .collect()
}

/// Its header.
pub(crate) const CONDITION_HEADER: [&str; 4] = [
    "condition",
    "success [Wilson 95%] (ok/scored)",
    "skipped",
    "vs first",
];

/// How the reason of an episode skipped for a conflicting condition starts
/// (`task::Instance::conflict`).
const CONFLICT_PREFIX: &str = "skipped: condition ";

/// The per-condition lines, when the episodes ran in more than one.
fn per_condition(episodes: &[EpisodeRecord]) -> Vec<ConditionLine> {
    let mut groups: BTreeMap<(usize, &str), Vec<&EpisodeRecord>> = BTreeMap::new();
    for e in episodes {
        // Condition::ALL order; a name this build does not know sorts last.
        let order = droidscore_phone::Condition::ALL
            .iter()
            .position(|c| c.to_string() == e.condition)
            .unwrap_or(usize::MAX);
        groups.entry((order, &e.condition)).or_default().push(e);
    }
    if groups.len() < 2 {
        return Vec::new();
    }
    let mut out: Vec<ConditionLine> = groups
        .into_iter()
        .map(|((_, name), es)| ConditionLine {
            name: name.to_string(),
            rate: rate(es.iter().copied()),
            skipped: es
                .iter()
                .filter(|e| e.status == EpisodeStatus::Skipped)
                .count() as u64,
            conflicts: es
                .iter()
                .filter(|e| {
                    e.status == EpisodeStatus::Skipped && e.reason.starts_with(CONFLICT_PREFIX)
                })
                .count() as u64,
            versus_first: String::new(),
        })
        .collect();
    // Against the first condition, paired: the same (task, variant,
    // instance, repeat) scored under both, clustered by template; the
    // other conditions are one family (Holm).
    type Key<'a> = (&'a str, &'a str, Option<u64>, u32);
    // A run numbers repeats on across conditions: pair them in order.
    let ordinals = super::common::ordinals(episodes);
    let outcome = |name: &str| -> BTreeMap<Key, (bool, &str)> {
        episodes
            .iter()
            .zip(&ordinals)
            .filter(|(e, _)| e.condition == name && scored(e))
            .map(|(e, r)| {
                let key = (e.task.as_str(), e.variant.as_str(), e.instance_seed, *r);
                (key, (e.status == EpisodeStatus::Success, e.task.as_str()))
            })
            .collect()
    };
    let first = outcome(&out[0].name);
    let mut paired: Vec<super::paired::Paired> = out[1..]
        .iter()
        .map(|line| {
            let units: Vec<super::paired::Unit> = outcome(&line.name)
                .into_iter()
                .filter_map(|(key, (ok, task))| {
                    let base = first.get(&key)?;
                    Some(super::paired::Unit::yes_no(task, ok, base.0))
                })
                .collect();
            super::paired::compare(&units, true)
        })
        .collect();
    super::paired::holm(&mut paired.iter_mut().collect::<Vec<_>>());
    out[0].versus_first = "-".into();
    for (line, p) in out[1..].iter_mut().zip(&paired) {
        line.versus_first = match p.verdict {
            super::paired::Verdict::A => "higher".into(),
            super::paired::Verdict::B => "lower".into(),
            super::paired::Verdict::NotARanking => "NOT A RANKING".into(),
            super::paired::Verdict::NotScoredInBoth => "NOT SCORED IN BOTH".into(),
        };
    }
    out
}

fn scored(e: &EpisodeRecord) -> bool {
    matches!(e.status, EpisodeStatus::Success | EpisodeStatus::Failure)
}

fn lines<'a>(
    episodes: &'a [EpisodeRecord],
    key: impl Fn(&'a EpisodeRecord) -> &'a str,
) -> Vec<Line> {
    let mut groups: BTreeMap<&str, Vec<&EpisodeRecord>> = BTreeMap::new();
    for e in episodes {
        groups.entry(key(e)).or_default().push(e);
    }
    groups
        .into_iter()
        .map(|(name, es)| Line {
            name: name.to_string(),
            rate: rate(es.into_iter()),
        })
        .collect()
}

pub fn summarize(run_id: &str, episodes: &[EpisodeRecord]) -> Summary {
    // Repeats of one instance in one device condition: a template's
    // instances (its seeds), and one instance under two conditions, are
    // different tasks as far as repeatability goes.
    type Pair<'a> = (&'a str, &'a str, Option<u64>, &'a str);
    let mut by_pair: BTreeMap<Pair, Vec<&EpisodeRecord>> = BTreeMap::new();
    for e in episodes {
        by_pair
            .entry((&e.task, &e.variant, e.instance_seed, &e.condition))
            .or_default()
            .push(e);
    }
    let repeats = by_pair
        .values()
        .map(|es| es.len() as u32)
        .min()
        .unwrap_or(0);
    let mut flips = Vec::new();
    let mut hats = Vec::new();
    for ((task, variant, instance_seed, condition), es) in &by_pair {
        let scored: Vec<&&EpisodeRecord> = es.iter().filter(|e| scored(e)).collect();
        let ok = scored
            .iter()
            .filter(|e| e.status == EpisodeStatus::Success)
            .count() as u64;
        if ok > 0 && ok < scored.len() as u64 {
            let seed = match instance_seed {
                Some(s) if *s > 0 => format!("#{s}"),
                _ => String::new(),
            };
            let condition = match *condition {
                "base" => String::new(),
                c => format!("@{c}"),
            };
            flips.push(format!("{task}/{variant}{seed}{condition}"));
        }
        if let Some(h) = pass_hat_k(ok, scored.len() as u64, u64::from(repeats)) {
            hats.push(h);
        }
    }
    let count = |s: EpisodeStatus| episodes.iter().filter(|e| e.status == s).count() as u64;
    Summary {
        run_id: run_id.to_string(),
        overall: rate(episodes.iter()),
        overall_by_template: super::stats::by_template(episodes.iter()),
        sampling: super::stats::sampling(
            &by_pair
                .values()
                .map(|es| {
                    es.iter()
                        .filter(|e| scored(e))
                        .map(|e| f64::from(u8::from(e.status == EpisodeStatus::Success)))
                        .collect()
                })
                .collect::<Vec<_>>(),
        ),
        per_task: lines(episodes, |e| &e.task),
        per_variant: lines(episodes, |e| &e.variant),
        per_condition: per_condition(episodes),
        repeats,
        pass_hat_k: (!hats.is_empty()).then(|| hats.iter().sum::<f64>() / hats.len() as f64),
        flips,
        episodes: episodes.len() as u64,
        skipped: count(EpisodeStatus::Skipped),
        infra: count(EpisodeStatus::Infra),
        steps: episodes.iter().map(|e| u64::from(e.steps)).sum(),
        decisions: decisions(episodes),
        invalid_steps: episodes.iter().map(|e| u64::from(e.invalid_steps)).sum(),
        progress: super::progress::ProgressStats::of(episodes),
        usage: UsageStats::default(),
        setup: None,
        slices: None,
        safety: super::safety::SafetyStats::of(episodes, &Default::default()),
    }
}

/// Agent decisions summed over the episodes, when every one recorded them
/// (an episode that acted with none recorded is from before they were).
fn decisions(episodes: &[EpisodeRecord]) -> Option<u64> {
    episodes
        .iter()
        .map(|e| match &e.progress {
            Some(p) if p.decisions > 0 || e.steps == 0 => Some(u64::from(p.decisions)),
            _ => None,
        })
        .sum()
}

impl Summary {
    /// Adds tokens and latency per step from the run's step rows.
    pub(crate) fn with_usage(mut self, steps: &[StepUsage]) -> Summary {
        self.usage = UsageStats::of(steps);
        self
    }

    /// Adds the run's setup line from its record, and its success by
    /// slice from the slices it recorded.
    pub(crate) fn with_run(mut self, run: &RunRecord, episodes: &[EpisodeRecord]) -> Summary {
        self.setup = Some(setup(run));
        self.slices = super::slices::Slices::of(&run.config, episodes);
        let kinds = super::slices::safety_kinds(&run.config);
        if !kinds.is_empty() {
            self.safety = super::safety::SafetyStats::of(episodes, &kinds);
        }
        self
    }
}

pub(crate) fn verdict(a: &Rate, b: &Rate) -> String {
    if a.n == 0 || b.n == 0 {
        "NOT SCORED IN BOTH".into()
    } else if a.overlaps(b) {
        "NOT A RANKING".into()
    } else if a.rate > b.rate {
        "A".into()
    } else {
        "B".into()
    }
}

/// The run's counts, one line each (episodes scored, skipped and failed,
/// steps, pass^k, verdict flips, tokens and latency), for every rendering.
pub(super) fn counts(s: &Summary) -> String {
    let mut out = String::new();
    if let Some(setup) = s.setup.as_deref().filter(|l| !l.is_empty()) {
        out += &format!("setup: {setup}\n");
    }
    // Skips by a device condition that conflicts with the task are said
    // apart; a run without conflicts reads as it always has.
    let conflicts: u64 = s.per_condition.iter().map(|l| l.conflicts).sum();
    let why = match conflicts {
        0 => "oracle needs what the phone lacks".to_string(),
        n => format!("{n} where the device condition conflicts with the task's initial state, the rest where the oracle needs what the phone lacks"),
    };
    out += &format!(
        "{} episodes: {} scored, {} skipped ({why}), {} infrastructure failures (not scored)\n",
        s.episodes, s.overall.n, s.skipped, s.infra
    );
    // Device actions are not what `--max-steps` counts: a decision that
    // types and presses Enter is two of them, an answer none.
    if s.overall.n > 0 {
        let templates: std::collections::BTreeSet<&str> = s
            .per_task
            .iter()
            .filter(|l| l.rate.n > 0)
            .map(|l| l.name.as_str())
            .collect();
        out += &format!(
            "success by template: 95 % [{:.1}, {:.1}] over {} templates, each template's episodes \
             (variants, instances, conditions, repeats) one cluster; Wilson's [{:.1}, {:.1}] counts \
             every episode as independent\n",
            100.0 * s.overall_by_template.0,
            100.0 * s.overall_by_template.1,
            templates.len(),
            100.0 * s.overall.low,
            100.0 * s.overall.high,
        );
    }
    if let Some(sm) = &s.sampling {
        out += &format!(
            "repeats: {:.0} % of success's variance is sampling (a key's repeats disagreeing, \
             over {} keys of {:.1} repeats; Miller 2024, §3), the rest is between keys\n",
            100.0 * sm.share,
            sm.keys,
            sm.repeats
        );
    }
    let decided = s
        .decisions
        .map(|d| format!(" over {d} agent decisions"))
        .unwrap_or_default();
    out += &format!(
        "steps: {} device actions{decided}, invalid model answers: {}\n",
        s.steps, s.invalid_steps
    );
    if let Some(p) = s.pass_hat_k {
        out += &format!(
            "pass^{} (all {} repeats succeed), mean over task variants: {:.1}%\n",
            s.repeats,
            s.repeats,
            100.0 * p
        );
    }
    if s.flips.is_empty() {
        out += "verdicts stable across repeats\n";
    } else {
        out += &format!("verdict flips across repeats: {}\n", s.flips.join(", "));
    }
    if let Some(p) = &s.progress {
        out += &p.lines();
    }
    for line in s.usage.lines() {
        out += &line;
        out += "\n";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep(task: &str, variant: &str, repeat: u32, status: EpisodeStatus) -> EpisodeRecord {
        EpisodeRecord {
            run_id: "r".into(),
            task: task.into(),
            variant: variant.into(),
            repeat,
            condition: "base".into(),
            episode_seed: u64::from(repeat),
            status,
            end: serde_json::json!({"end": "complete"}),
            verdict: None,
            reason: String::new(),
            steps: 3,
            invalid_steps: u32::from(status == EpisodeStatus::Failure),
            attempts: 1,
            started_at: String::new(),
            ended_at: String::new(),
            instance_seed: None,
            params: None,
            answer: None,
            progress: None,
        }
    }

    #[test]
    fn the_steps_line_tells_device_actions_from_decisions() {
        use crate::store::Progress;
        use EpisodeStatus::*;
        let with = |steps: u32, decisions: u32| {
            let mut e = ep("a", "base", 0, Failure);
            e.steps = steps;
            e.progress = Some(Progress {
                decisions,
                ..Progress::default()
            });
            e
        };
        // One episode typed and pressed Enter in one decision (4 actions
        // over 3 decisions); one answered without acting (0 over 1).
        let s = summarize("r", &[with(4, 3), with(0, 1)]);
        assert_eq!((s.steps, s.decisions), (4, Some(4)));
        assert!(
            counts(&s).contains(
                "steps: 4 device actions over 4 agent decisions, invalid model answers: 2\n"
            ),
            "{}",
            counts(&s)
        );
        // An episode that acted but recorded no decisions (a store from
        // before they were kept), or recorded no progress at all: the
        // decisions are not said rather than undercounted.
        for old in [with(3, 0), ep("a", "base", 1, Success)] {
            let s = summarize("r", &[with(4, 3), old]);
            assert_eq!(s.decisions, None);
            assert!(
                counts(&s).contains("steps: 7 device actions, invalid"),
                "{}",
                counts(&s)
            );
        }
    }

    #[test]
    fn skipped_and_infra_episodes_are_counted_but_not_scored() {
        use EpisodeStatus::*;
        let eps = vec![
            ep("a", "base", 0, Success),
            ep("a", "base", 1, Failure),
            ep("a", "decoy", 0, Success),
            ep("a", "decoy", 1, Success),
            ep("b", "base", 0, Skipped),
            ep("b", "base", 1, Infra),
        ];
        let s = summarize("r", &eps);
        assert_eq!((s.overall.successes, s.overall.n), (3, 4));
        assert_eq!((s.skipped, s.infra, s.episodes), (1, 1, 6));
        assert_eq!(s.flips, ["a/base"]);
        assert_eq!(s.repeats, 2);
        // pass^2: a/base 0 (one failure), a/decoy 1; b/base has nothing scored.
        assert_eq!(s.pass_hat_k, Some(0.5));
        let b = s.per_task.iter().find(|l| l.name == "b").unwrap();
        assert_eq!(b.rate.n, 0);
        assert_eq!(s.invalid_steps, 1);
    }
}
