//! Two online runs compared: the rows ([`rows`]: overall, episodes reaching a
//! milestone, Sub-SR, progress, harm, slices, tasks), each with the old
//! overlap rule's verdict, then paired ([`pair`]): every row gets A − B
//! on the episodes both runs scored under the same key and repeat, its
//! interval clustered by template, McNemar's test where the outcome is
//! yes/no, and its verdict after Holm's correction within its family
//! (`report::paired` has the statistics).
//!
//! A pair is one (task, variant, condition, instance, repeat) that both runs
//! scored: the repeats of a key are paired in their order (the first with
//! the first), so a run with `--repeat 3` against one with `--repeat 1` is
//! compared on the first repeat. The
//! cluster is the task template, within which variants, instances,
//! conditions and repeats are not independent; a task's own row has one
//! template, so there the cluster is the key (its variants, instances and
//! conditions are the only replication it has).
//!
//! Families, each corrected by Holm: the run's measures (success, episodes
//! reaching a milestone, Sub-SR, progress), harm per kind, each slice kind
//! (category, app, tag: success and Sub-SR rows together), and the tasks.

use std::collections::BTreeMap;

use super::paired::{self, Paired, Unit, Verdict};
use super::slices::SliceLine;
use super::slices::{TaskSlices, CONFIG_KEY};
use super::stats::Rate;
use super::summary::{verdict, Summary};
use crate::oracle::Harm;
use crate::store::{EpisodeRecord, EpisodeStatus};

/// How a comparison is judged, for the head of every rendering.
pub const RULE: &str = "A − B on the keys both runs scored (task, variant, condition, \
     instance, repeat), its 95 % interval clustered by template (cluster-robust, t with \
     templates − 1 df; a task's own row clusters by key); a yes/no row ranks only when \
     McNemar's exact test on the discordant pairs agrees; detectable: the smallest \
     difference these pairs find at 80 % power";

/// What a comparison row measures, and so how its pairs are read.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Measure {
    /// Success.
    #[default]
    Success,
    /// Success, or at least one milestone reached.
    Reached,
    /// Milestones reached in any order over milestones (success: all).
    SubSr,
    /// Milestones reached in order over milestones (success: all).
    Progress,
    /// Harm done, on the safety templates of a kind (`all`: every kind).
    Harm(String),
    /// Success, or Sub-SR, on the tasks of one slice.
    Slice {
        kind: &'static str,
        name: String,
        sub_sr: bool,
    },
    /// Success on one task.
    Task(String),
}

impl Measure {
    fn family(&self) -> &'static str {
        match self {
            Measure::Success | Measure::Reached | Measure::SubSr | Measure::Progress => "measures",
            Measure::Harm(_) => "harm",
            Measure::Slice { kind, .. } => kind,
            Measure::Task(_) => "tasks",
        }
    }

    fn yes_no(&self) -> bool {
        !matches!(
            self,
            Measure::SubSr | Measure::Progress | Measure::Slice { sub_sr: true, .. }
        )
    }
}

type Key<'a> = (&'a str, &'a str, &'a str, Option<u64>, u32);

/// The episodes of a run by their key, the repeat counted within it.
fn keyed(episodes: &[EpisodeRecord]) -> Vec<(Key<'_>, &EpisodeRecord)> {
    episodes
        .iter()
        .zip(super::common::ordinals(episodes))
        .map(|(e, r)| {
            (
                (&*e.task, &*e.variant, &*e.condition, e.instance_seed, r),
                e,
            )
        })
        .collect()
}

fn scored(e: &EpisodeRecord) -> bool {
    matches!(e.status, EpisodeStatus::Success | EpisodeStatus::Failure)
}

/// Milestones credited (any order or in order) over milestones; a success
/// gets them all.
fn milestones(e: &EpisodeRecord, in_order: bool) -> Option<(f64, f64)> {
    let p = e.progress.as_ref()?;
    let m = f64::from(p.milestones);
    let reached = if e.status == EpisodeStatus::Success {
        m
    } else if in_order {
        f64::from(p.reached_in_order)
    } else {
        f64::from(p.reached_any)
    };
    Some((reached, m))
}

/// The episodes' pairing context: B's episodes by key, and the slices and
/// safety kinds A's run recorded.
pub(crate) struct Pairing<'a> {
    b: BTreeMap<Key<'a>, &'a EpisodeRecord>,
    a: Vec<(Key<'a>, &'a EpisodeRecord)>,
    slices: BTreeMap<String, TaskSlices>,
    kinds: BTreeMap<String, String>,
}

impl<'a> Pairing<'a> {
    pub(crate) fn new(
        a: &'a [EpisodeRecord],
        b: &'a [EpisodeRecord],
        config: &serde_json::Value,
    ) -> Self {
        Pairing {
            b: keyed(b).into_iter().filter(|(_, e)| scored(e)).collect(),
            a: keyed(a),
            slices: config
                .get(CONFIG_KEY)
                .and_then(|v| serde_json::from_value(v.clone()).ok())
                .unwrap_or_default(),
            kinds: super::slices::safety_kinds(config),
        }
    }

    /// Whether the measure covers episode `e`, and its (numerator, trials).
    fn value(&self, m: &Measure, e: &EpisodeRecord) -> Option<(f64, f64)> {
        let success = f64::from(u8::from(e.status == EpisodeStatus::Success));
        match m {
            Measure::Success => Some((success, 1.0)),
            Measure::Task(t) => (&e.task == t).then_some((success, 1.0)),
            Measure::Reached => {
                let p = e.progress.as_ref()?;
                let reached = e.status == EpisodeStatus::Success || p.reached_any > 0;
                Some((f64::from(u8::from(reached)), 1.0))
            }
            Measure::SubSr => milestones(e, false),
            Measure::Progress => milestones(e, true),
            Measure::Harm(kind) => {
                let harm = e.progress.as_ref()?.harm.as_ref()?;
                let its = self.kinds.get(&e.task).map_or("safety", String::as_str);
                if kind != "all" && kind != its {
                    return None;
                }
                match harm {
                    Harm::Done { .. } | Harm::Avoided => {
                        Some((f64::from(u8::from(harm.done())), 1.0))
                    }
                    _ => None,
                }
            }
            Measure::Slice { kind, name, sub_sr } => {
                let t = self.slices.get(&e.task)?;
                let inside = match *kind {
                    "category" => &t.category == name,
                    "app" => t.apps.contains(name),
                    _ => t.tags.contains(name),
                };
                match (inside, sub_sr) {
                    (false, _) => None,
                    (true, true) => milestones(e, false),
                    (true, false) => Some((success, 1.0)),
                }
            }
        }
    }

    /// The units of measure `m`: the pairs where both runs have a value.
    pub(crate) fn units(&self, m: &Measure) -> Vec<Unit> {
        let mut units = Vec::new();
        for (key, ea) in self.a.iter().filter(|(_, e)| scored(e)) {
            let Some(eb) = self.b.get(key) else {
                continue;
            };
            let (Some((a, ta)), Some((b, tb))) = (self.value(m, ea), self.value(m, eb)) else {
                continue;
            };
            // One key has the same milestones in both runs of one suite;
            // a suite changed between them is not paired on that key.
            if ta != tb {
                continue;
            }
            let cluster = match m {
                Measure::Task(_) => format!(
                    "{}/{}/{}",
                    ea.variant,
                    ea.condition,
                    ea.instance_seed.map_or("-".into(), |s| s.to_string())
                ),
                _ => ea.task.clone(),
            };
            units.push(Unit {
                cluster,
                a,
                b,
                trials: ta,
            });
        }
        units
    }
}

/// One measure compared between two runs.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Comparison {
    pub name: String,
    /// Each run's rate over the episodes both hold, with its Wilson interval.
    pub a: Rate,
    pub b: Rate,
    /// `A`, `B` (`A (less harm)` on a harm row), `NOT A RANKING`: the
    /// paired verdict (`report::compare`) once the rows are paired; until
    /// then, and in `overlap`, the old rule's.
    pub verdict: String,
    /// What the old rule says: `NOT A RANKING` where the two 95 % Wilson
    /// intervals overlap (Sub-SR and progress: by episode too).
    pub overlap: String,
    /// A − B on the keys both runs scored, clustered by template.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired: Option<Paired>,
    /// What the row measures, for pairing it.
    #[serde(skip)]
    pub measure: Measure,
}

/// Overall first, then every task present in either run.
pub(crate) fn rows<'a>(a: &'a Summary, b: &'a Summary) -> Vec<Comparison> {
    let mut names: Vec<&str> = a
        .per_task
        .iter()
        .chain(&b.per_task)
        .map(|l| l.name.as_str())
        .collect();
    names.sort();
    names.dedup();
    let find = |s: &Summary, name: &str| {
        s.per_task
            .iter()
            .find(|l| l.name == name)
            .map_or(Rate::new(0, 0), |l| l.rate)
    };
    let meets = |x: (f64, f64), y: (f64, f64)| x.0 <= y.1 && y.0 <= x.1;
    let mut rows = vec![Comparison::new(
        "(overall)",
        a.overall,
        b.overall,
        verdict(&a.overall, &b.overall),
        Measure::Success,
    )];
    // Credit short of success, where both runs recorded it.
    if let (Some(pa), Some(pb)) = (&a.progress, &b.progress) {
        for (name, ra, rb, by_episode, measure) in [
            (
                "(sub-sr)",
                pa.sub_sr,
                pb.sub_sr,
                meets(pa.sub_sr_by_episode, pb.sub_sr_by_episode),
                Measure::SubSr,
            ),
            (
                "(progress)",
                pa.progress,
                pb.progress,
                meets(pa.progress_by_episode, pb.progress_by_episode),
                Measure::Progress,
            ),
        ] {
            // Pooled milestones part more easily than episodes do: a
            // ranking needs both intervals apart.
            let verdict = match verdict(&ra, &rb) {
                v if (v == "A" || v == "B") && by_episode => {
                    "NOT A RANKING (by episode)".to_string()
                }
                v => v,
            };
            rows.push(Comparison::new(name, ra, rb, verdict, measure));
        }
    }
    // Harm on the safety track, per kind both runs have: here the lower
    // rate is the better one.
    if let (Some(sa), Some(sb)) = (&a.safety, &b.safety) {
        for la in &sa.lines {
            if let Some(lb) = sb.lines.iter().find(|l| l.name == la.name) {
                let verdict = match verdict(&la.harm, &lb.harm).as_str() {
                    "A" => "B (less harm)".to_string(),
                    "B" => "A (less harm)".to_string(),
                    other => other.to_string(),
                };
                rows.push(Comparison::new(
                    &format!("(harm: {})", la.name),
                    la.harm,
                    lb.harm,
                    verdict,
                    Measure::Harm(la.name.clone()),
                ));
            }
        }
    }
    // Slices both runs recorded: a slice one run lacks is scored in one only.
    // Each slice's success, then its Sub-SR under the same rule as the
    // run's (both intervals apart, pooled and by episode).
    if let (Some(sa), Some(sb)) = (&a.slices, &b.slices) {
        for ((kind, la), (_, lb)) in sa.kinds().into_iter().zip(sb.kinds()) {
            let mut slice_names: Vec<&str> = la.iter().chain(lb).map(|l| l.name.as_str()).collect();
            slice_names.sort();
            slice_names.dedup();
            let find = |lines: &'a [SliceLine], name: &str| lines.iter().find(|l| l.name == name);
            for name in slice_names {
                let (la, lb) = (find(la, name), find(lb, name));
                let success = |l: Option<&SliceLine>| l.map_or(Rate::new(0, 0), |l| l.rate);
                let (ra, rb) = (success(la), success(lb));
                rows.push(Comparison::new(
                    &format!("({kind}: {name})"),
                    ra,
                    rb,
                    verdict(&ra, &rb),
                    Measure::Slice {
                        kind,
                        name: name.to_string(),
                        sub_sr: false,
                    },
                ));
                let sub = |l: Option<&SliceLine>| l.and_then(|l| l.sub_sr.zip(l.sub_sr_by_episode));
                if let (Some((ra, ea)), Some((rb, eb))) = (sub(la), sub(lb)) {
                    let verdict = match verdict(&ra, &rb) {
                        v if (v == "A" || v == "B") && meets(ea, eb) => {
                            "NOT A RANKING (by episode)".to_string()
                        }
                        v => v,
                    };
                    rows.push(Comparison::new(
                        &format!("({kind}: {name}, sub-sr)"),
                        ra,
                        rb,
                        verdict,
                        Measure::Slice {
                            kind,
                            name: name.to_string(),
                            sub_sr: true,
                        },
                    ));
                }
            }
        }
    }
    for name in names {
        let (ra, rb) = (find(a, name), find(b, name));
        rows.push(Comparison::new(
            name,
            ra,
            rb,
            verdict(&ra, &rb),
            Measure::Task(name.to_string()),
        ));
    }
    rows
}

impl Comparison {
    /// A row with the old rule's verdict, not yet paired.
    fn new(name: &str, a: Rate, b: Rate, overlap: String, measure: Measure) -> Self {
        Comparison {
            name: name.to_string(),
            a,
            b,
            verdict: overlap.clone(),
            overlap,
            paired: None,
            measure,
        }
    }
}

/// The rate of episodes that reached a milestone (or succeeded), over the
/// scored episodes that recorded progress.
fn reached_rate(episodes: &[EpisodeRecord]) -> Rate {
    let with: Vec<&EpisodeRecord> = episodes
        .iter()
        .filter(|e| scored(e) && e.progress.is_some())
        .collect();
    let reached = with
        .iter()
        .filter(|e| {
            e.status == EpisodeStatus::Success
                || e.progress.as_ref().is_some_and(|p| p.reached_any > 0)
        })
        .count();
    Rate::new(reached as u64, with.len() as u64)
}

/// Pairs every row of `rows` (from [`rows`]), adds the row of
/// episodes reaching a milestone after Sub-SR's, corrects each family, and
/// sets each row's verdict to the paired one.
pub(crate) fn pair(
    mut rows: Vec<Comparison>,
    ea: &[EpisodeRecord],
    eb: &[EpisodeRecord],
    config: &serde_json::Value,
) -> Vec<Comparison> {
    let pairing = Pairing::new(ea, eb, config);
    if let Some(at) = rows.iter().position(|r| r.measure == Measure::SubSr) {
        let (ra, rb) = (reached_rate(ea), reached_rate(eb));
        rows.insert(
            at,
            Comparison {
                name: "(reached a milestone)".into(),
                a: ra,
                b: rb,
                verdict: verdict(&ra, &rb),
                overlap: verdict(&ra, &rb),
                paired: None,
                measure: Measure::Reached,
            },
        );
    }
    for row in rows.iter_mut() {
        let units = pairing.units(&row.measure);
        row.paired = Some(paired::compare(&units, row.measure.yes_no()));
    }
    let families: Vec<&'static str> = rows.iter().map(|r| r.measure.family()).collect();
    let mut names: Vec<&'static str> = families.clone();
    names.dedup();
    for family in names {
        let mut members: Vec<&mut Paired> = rows
            .iter_mut()
            .zip(&families)
            .filter(|(_, f)| **f == family)
            .filter_map(|(r, _)| r.paired.as_mut())
            .collect();
        paired::holm(&mut members);
    }
    for row in rows.iter_mut() {
        let Some(p) = &row.paired else { continue };
        let harm = matches!(row.measure, Measure::Harm(_));
        row.verdict = match (p.verdict, harm) {
            (Verdict::A, false) => "A".into(),
            (Verdict::B, false) => "B".into(),
            // More harm is worse.
            (Verdict::A, true) => "B (less harm)".into(),
            (Verdict::B, true) => "A (less harm)".into(),
            (Verdict::NotARanking, _) => "NOT A RANKING".into(),
            (Verdict::NotScoredInBoth, _) => "NOT SCORED IN BOTH".into(),
        };
    }
    rows
}

/// The families of `rows` with their sizes: `measures (4), tasks (12)`.
pub(crate) fn families(rows: &[Comparison]) -> String {
    let mut sizes: Vec<(&str, usize)> = Vec::new();
    for r in rows {
        let Some(p) = &r.paired else { continue };
        let f = r.measure.family();
        if !sizes.iter().any(|(n, _)| *n == f) {
            sizes.push((f, p.family));
        }
    }
    sizes
        .iter()
        .map(|(n, k)| format!("{n} ({k})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The one line naming the rows whose paired verdict differs from the old
/// overlap rule's; `None` when none does.
pub(crate) fn changed(rows: &[Comparison]) -> Option<String> {
    let differ: Vec<String> = rows
        .iter()
        .filter(|r| r.paired.is_some() && r.verdict != r.overlap)
        .map(|r| format!("{} {} → {}", r.name, r.overlap, r.verdict))
        .collect();
    (!differ.is_empty()).then(|| {
        format!(
            "where the old rule (overlapping Wilson intervals) said otherwise: {}\n",
            differ.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::summary::summarize;

    fn ep(task: &str, variant: &str, repeat: u32, ok: bool) -> EpisodeRecord {
        let mut e = crate::store::test_support::episode("r", task, variant, repeat);
        e.status = if ok {
            EpisodeStatus::Success
        } else {
            EpisodeStatus::Failure
        };
        e
    }

    /// `n` templates of one episode each; A succeeds on the first `a`, B
    /// on the `b` templates from `from`.
    fn runs(n: usize, a: usize, b: usize, from: usize) -> (Vec<EpisodeRecord>, Vec<EpisodeRecord>) {
        let ea = (0..n)
            .map(|i| ep(&format!("t{i:03}"), "base", 0, i < a))
            .collect();
        let eb = (0..n)
            .map(|i| ep(&format!("t{i:03}"), "base", 0, i >= from && i < from + b))
            .collect();
        (ea, eb)
    }

    fn rows(ea: &[EpisodeRecord], eb: &[EpisodeRecord]) -> Vec<Comparison> {
        let (sa, sb) = (summarize("a", ea), summarize("b", eb));
        pair(super::rows(&sa, &sb), ea, eb, &serde_json::Value::Null)
    }

    #[test]
    fn the_pairing_ranks_what_overlap_cannot() {
        // A fixed table: 120 templates, one episode each; A succeeds on 12,
        // B on 6 of those 12. Wilson: 10.0 % [5.8, 16.7] and 5.0 % [2.3,
        // 10.5] overlap, so the old rule says NOT A RANKING. Paired: 6
        // against 0 discordant templates (McNemar p = 2/2⁶ = 0.031), and
        // the clustered interval excludes 0: A.
        let (ea, eb) = runs(120, 12, 6, 0);
        let r = rows(&ea, &eb);
        let overall = &r[0];
        assert_eq!(overall.overlap, "NOT A RANKING");
        assert_eq!(overall.verdict, "A");
        let p = overall.paired.as_ref().unwrap();
        assert_eq!(p.discordant.map(|d| (d.a_only, d.b_only)), Some((6, 0)));
        assert!((p.discordant.unwrap().p - 0.03125).abs() < 1e-12);
        assert!(p.low > 0.0, "{p:?}");
        assert_eq!(
            changed(&r).unwrap(),
            "where the old rule (overlapping Wilson intervals) said otherwise: (overall) NOT A RANKING → A\n"
        );
        // The same outcomes with the pairing dropped (B's six successes on
        // templates where A failed): the marginal rates, and so the old
        // rule's verdict, are the same; the paired verdict is not.
        let (ea, eb) = runs(120, 12, 6, 12);
        let r = rows(&ea, &eb);
        assert_eq!((r[0].a.successes, r[0].b.successes, r[0].b.n), (12, 6, 120));
        assert_eq!(r[0].overlap, "NOT A RANKING");
        assert_eq!(r[0].verdict, "NOT A RANKING");
        let p = r[0].paired.as_ref().unwrap();
        assert_eq!(p.discordant.map(|d| (d.a_only, d.b_only)), Some((12, 6)));
    }

    #[test]
    fn repeats_are_paired_by_number_and_clustered_by_template() {
        // A with three repeats, B with one: the first is the pair, though
        // B numbered it 4 (a run's repeats continue across conditions).
        let ea: Vec<EpisodeRecord> = (0..3).map(|r| ep("t", "base", r, true)).collect();
        let eb = vec![ep("t", "base", 4, false)];
        let pairing = Pairing::new(&ea, &eb, &serde_json::Value::Null);
        let units = pairing.units(&Measure::Success);
        assert_eq!(units, vec![Unit::yes_no("t", true, false)]);
        // A task's own row clusters by key, not by the one template.
        let units = pairing.units(&Measure::Task("t".into()));
        assert_eq!(units[0].cluster, "base/base/0");
    }

    #[test]
    fn every_task_row_is_one_family_and_says_its_size() {
        let (ea, eb) = runs(30, 3, 0, 0);
        let r = rows(&ea, &eb);
        let task = r.iter().find(|r| r.name == "t000").unwrap();
        assert_eq!(task.paired.as_ref().unwrap().family, 30);
        assert_eq!(families(&r), "measures (1), tasks (30)");
    }

    #[test]
    fn the_old_rule_is_kept_beside_the_paired_verdict() {
        // Before pairing, a row holds the overlap rule's verdict.
        let run = |ok: u32, n: u32| {
            let eps: Vec<EpisodeRecord> = (0..n).map(|i| ep("t", "base", i, i < ok)).collect();
            summarize("r", &eps)
        };
        let rows = super::rows(&run(6, 10), &run(8, 10));
        assert_eq!(rows[0].overlap, "NOT A RANKING");
        let rows = super::rows(&run(1, 30), &run(29, 30));
        assert_eq!(
            (rows[1].overlap.as_str(), rows[1].verdict.as_str()),
            ("B", "B")
        );
    }
}
