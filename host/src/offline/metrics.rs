//! An offline run's numbers, per matcher, each a proportion with its Wilson
//! 95 % interval (`report::stats::Rate`), and step accuracy also with the
//! interval that counts the steps of one episode as correlated:
//!
//! - step accuracy: steps right ÷ steps scored;
//! - action-type accuracy: steps whose type matched ÷ steps scored;
//! - grounding accuracy: over the steps whose reference points at the
//!   screen (tap, long press) and whose type matched, those whose point
//!   grounded (OS-Atlas's "grounding acc": click matches ÷ click type matches);
//! - episodes all right: episodes with every step right ÷ episodes scored
//!   (GUI-Odyssey's success rate, AITW's "complete" episodes).
//!
//! Only episodes that ran to the end of the reference are scored; endpoint
//! failures and references that could not be replayed are counted apart.

use serde::Serialize;

use super::replay::{End, OfflineEpisode};
use crate::report::stats::{clustered_wilson, Rate};

/// One matcher's numbers over a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatcherScore {
    pub matcher: String,
    pub steps: Rate,
    /// Step accuracy's 95 % interval with the steps of one episode taken
    /// as the correlated trials they are (`report::stats::clustered_wilson`):
    /// wider than `steps`' Wilson interval, which counts every step as
    /// independent. A comparison ranks two runs only when neither
    /// interval overlaps.
    pub steps_clustered: (f64, f64),
    /// Step accuracy's interval with the steps of one task template (its
    /// variants' and instances' episodes) as one cluster: wider again,
    /// where a model's failure is the template's.
    pub steps_by_template: (f64, f64),
    pub types: Rate,
    pub grounding: Rate,
    pub episodes: Rate,
    /// Episodes all right, with a template's episodes as one cluster.
    pub episodes_by_template: (f64, f64),
}

/// An offline run's numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OfflineSummary {
    pub scores: Vec<MatcherScore>,
    pub episodes: usize,
    pub scored: usize,
    pub infra: usize,
    pub replay_failed: usize,
    /// Steps scored (in scored episodes), and of them the reference's
    /// search scrolls and the answers that were not valid actions.
    pub steps: u64,
    pub search_steps: u64,
    pub invalid: u64,
    /// Every episode's wall time, summed, seconds.
    pub wall_s: f64,
    /// The agent's time per step, median and 90th percentile, ms.
    pub step_ms_median: f64,
    pub step_ms_p90: f64,
}

/// The `q` quantile of `values` (nearest rank), 0 when empty.
fn quantile(values: &mut [f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let rank = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len());
    values[rank - 1]
}

/// The run's numbers under each of `matchers` (versioned names).
pub fn summarize(episodes: &[OfflineEpisode], matchers: &[String]) -> OfflineSummary {
    let scored: Vec<&OfflineEpisode> = episodes.iter().filter(|e| e.scored()).collect();
    let steps = || scored.iter().flat_map(|e| e.steps.iter());
    let scores = matchers
        .iter()
        .map(|m| {
            let (mut right, mut typed, mut pointing, mut grounded, mut n) = (0, 0, 0, 0, 0);
            let per_episode: Vec<(u64, u64)> = scored
                .iter()
                .map(|e| {
                    let judged = e.steps.iter().filter_map(|s| s.verdict(m));
                    judged.fold((0, 0), |(r, t), v| (r + u64::from(v.correct), t + 1))
                })
                .collect();
            for step in steps() {
                let Some(v) = step.verdict(m) else { continue };
                n += 1;
                right += u64::from(v.correct);
                typed += u64::from(v.type_match);
                if let Some(g) = v.grounded {
                    pointing += 1;
                    grounded += u64::from(g);
                }
            }
            // Per template: (steps right, steps) and (episodes all right, episodes).
            let mut templates: std::collections::BTreeMap<&str, [(u64, u64); 2]> =
                Default::default();
            let all_right_in = |e: &OfflineEpisode| {
                e.steps
                    .iter()
                    .all(|s| s.verdict(m).is_some_and(|v| v.correct))
            };
            for (e, (r, t)) in scored.iter().zip(&per_episode) {
                let g = templates.entry(e.task.as_str()).or_default();
                g[0].0 += r;
                g[0].1 += t;
                g[1].0 += u64::from(all_right_in(e));
                g[1].1 += 1;
            }
            let steps_by_template: Vec<(u64, u64)> = templates.values().map(|g| g[0]).collect();
            let episodes_by_template: Vec<(u64, u64)> = templates.values().map(|g| g[1]).collect();
            let all_right = scored.iter().filter(|e| all_right_in(e)).count() as u64;
            MatcherScore {
                matcher: m.clone(),
                steps: Rate::new(right, n),
                steps_clustered: clustered_wilson(&per_episode),
                steps_by_template: clustered_wilson(&steps_by_template),
                episodes_by_template: clustered_wilson(&episodes_by_template),
                types: Rate::new(typed, n),
                grounding: Rate::new(grounded, pointing),
                episodes: Rate::new(all_right, scored.len() as u64),
            }
        })
        .collect();
    let mut latencies: Vec<f64> = steps().map(|s| s.latency_ms).collect();
    OfflineSummary {
        scores,
        episodes: episodes.len(),
        scored: scored.len(),
        infra: episodes
            .iter()
            .filter(|e| matches!(e.end, End::Infra(_) | End::Fatal(_)))
            .count(),
        replay_failed: episodes
            .iter()
            .filter(|e| matches!(e.end, End::ReplayFailed(_)))
            .count(),
        steps: steps().count() as u64,
        search_steps: steps().filter(|s| s.reference.search).count() as u64,
        invalid: steps()
            .filter(|s| s.answer.kind == super::step::Kind::Invalid)
            .count() as u64,
        wall_s: episodes.iter().map(|e| e.wall_ms).sum::<f64>() / 1e3,
        step_ms_median: quantile(&mut latencies, 0.5),
        step_ms_p90: quantile(&mut latencies, 0.9),
    }
}

/// The matchers an offline run's steps were judged by, in the order of
/// its first step's verdicts.
pub fn matcher_names(episodes: &[OfflineEpisode]) -> Vec<String> {
    episodes
        .iter()
        .flat_map(|e| e.steps.first())
        .next()
        .map(|s| s.verdicts.iter().map(|(n, _)| n.clone()).collect())
        .unwrap_or_default()
}
