//! Credit short of success, waste and side effects over a run's episodes
//! (`episode::Progress` each; `docs/progress.md` defines every measure):
//!
//! - Sub-SR (AndroidLab, `calculate_partial_acc`): milestones reached, in
//!   any order, over all milestones; every milestone of a success counts.
//! - progress (LlamaTouch's ordered essential states): milestones reached
//!   in order over all; all of a success.
//! - RRR (AndroidLab): the reference's device actions over the agent's, on
//!   successes only; a mean of ratios, so no interval.
//! - ROR (AndroidLab): acting steps after which the screen changed, over
//!   acting steps.
//! - invalid answers: agent decisions whose answer was no valid action.
//! - side effects: episodes that wrote state no check names.
//!
//! Sub-SR and progress pool milestones over episodes, ROR and the invalid
//! rate pool steps: their Wilson intervals treat milestones and steps as
//! independent, which those of one episode are not, so the intervals are
//! narrower than the truth; the side-effect rate's trials are episodes.

use super::stats::{clustered_wilson, Rate};
use crate::store::{EpisodeRecord, EpisodeStatus};

#[derive(Debug, Clone, serde::Serialize)]
pub struct ProgressStats {
    /// Scored episodes that recorded progress.
    pub episodes: u64,
    pub sub_sr: Rate,
    pub progress: Rate,
    /// Sub-SR's and progress's 95 % intervals with the milestones of one
    /// episode counted as the correlated trials they are
    /// (`stats::clustered_wilson`); `sub_sr` and `progress` pool them as
    /// independent, which is too narrow to rank two runs by.
    pub sub_sr_by_episode: (f64, f64),
    pub progress_by_episode: (f64, f64),
    /// Mean reference ÷ agent steps over successes with a known reference.
    pub rrr: Option<f64>,
    /// Successes RRR is the mean of.
    pub rrr_n: u64,
    pub ror: Rate,
    pub invalid: Rate,
    /// Episodes with a side effect.
    pub side_effects: Rate,
    /// Every side-effect key and how many episodes wrote it, most first.
    pub side_effect_keys: Vec<(String, u64)>,
}

impl ProgressStats {
    /// Over the scored episodes that recorded progress; `None` when none did.
    pub fn of(episodes: &[EpisodeRecord]) -> Option<ProgressStats> {
        let with: Vec<(&EpisodeRecord, &crate::episode::Progress)> = episodes
            .iter()
            .filter(|e| matches!(e.status, EpisodeStatus::Success | EpisodeStatus::Failure))
            .filter_map(|e| e.progress.as_ref().map(|p| (e, p)))
            .collect();
        if with.is_empty() {
            return None;
        }
        let (mut any, mut in_order, mut total) = (0u64, 0u64, 0u64);
        let (mut changed, mut acting, mut invalid, mut decisions) = (0u64, 0u64, 0u64, 0u64);
        let (mut rrr_sum, mut rrr_n, mut with_effects) = (0f64, 0u64, 0u64);
        let mut keys: std::collections::BTreeMap<&str, u64> = Default::default();
        let (mut any_by_episode, mut in_order_by_episode) = (Vec::new(), Vec::new());
        for (e, p) in &with {
            let success = e.status == EpisodeStatus::Success;
            let m = u64::from(p.milestones);
            let credit = |reached: u32| if success { m } else { u64::from(reached) };
            any_by_episode.push((credit(p.reached_any), m));
            in_order_by_episode.push((credit(p.reached_in_order), m));
            total += m;
            any += if success { m } else { u64::from(p.reached_any) };
            in_order += if success {
                m
            } else {
                u64::from(p.reached_in_order)
            };
            changed += u64::from(p.screen_changes);
            acting += u64::from(p.acting_steps);
            invalid += u64::from(e.invalid_steps);
            decisions += u64::from(p.decisions);
            if success {
                if let Some(r) = rrr(p.reference_steps, e.steps) {
                    rrr_sum += r;
                    rrr_n += 1;
                }
            }
            if !p.side_effects.is_empty() {
                with_effects += 1;
            }
            for k in &p.side_effects {
                *keys.entry(k.as_str()).or_default() += 1;
            }
        }
        let mut side_effect_keys: Vec<(String, u64)> =
            keys.into_iter().map(|(k, n)| (k.to_string(), n)).collect();
        side_effect_keys.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        Some(ProgressStats {
            episodes: with.len() as u64,
            sub_sr: Rate::new(any, total),
            progress: Rate::new(in_order, total),
            sub_sr_by_episode: clustered_wilson(&any_by_episode),
            progress_by_episode: clustered_wilson(&in_order_by_episode),
            rrr: (rrr_n > 0).then(|| rrr_sum / rrr_n as f64),
            rrr_n,
            ror: Rate::new(changed, acting),
            invalid: Rate::new(invalid, decisions.max(invalid)),
            side_effects: Rate::new(with_effects, with.len() as u64),
            side_effect_keys,
        })
    }

    /// One line per measure, for every rendering of a summary.
    pub fn lines(&self) -> String {
        let mut out = format!(
            "sub-goals over {} episodes: Sub-SR {} (by episode {}), progress (in order) {} (by episode {})\n",
            self.episodes,
            self.sub_sr.display(),
            percent(self.sub_sr_by_episode),
            self.progress.display(),
            percent(self.progress_by_episode),
        );
        out += &match self.rrr {
            Some(r) => format!(
                "RRR (reference ÷ agent steps, successes): {r:.2} over {} successes\n",
                self.rrr_n
            ),
            None => "RRR: no success to measure it on\n".to_string(),
        };
        // The invalid-answer rate is the usage lines' own ("invalid answers
        // per recorded step"), the same count: not said twice.
        out += &format!(
            "ROR (steps that changed the screen): {}\n",
            self.ror.display()
        );
        out += &format!(
            "episodes with side effects: {}",
            self.side_effects.display()
        );
        if !self.side_effect_keys.is_empty() {
            let shown: Vec<String> = self
                .side_effect_keys
                .iter()
                .take(8)
                .map(|(k, n)| format!("{k} ×{n}"))
                .collect();
            out += &format!(" ({})", shown.join(", "));
        }
        out + "\n"
    }
}

/// `[38.2, 86.1]`, percent.
fn percent((low, high): (f64, f64)) -> String {
    format!("[{:.1}, {:.1}]", low * 100.0, high * 100.0)
}

/// Reference ÷ agent device actions; 1 when neither acted (an answer).
fn rrr(reference: Option<u32>, agent: u32) -> Option<f64> {
    match (reference?, agent) {
        (0, 0) => Some(1.0),
        (_, 0) => None,
        (r, a) => Some(f64::from(r) / f64::from(a)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::episode::Progress;

    fn ep(status: EpisodeStatus, steps: u32, p: Progress) -> EpisodeRecord {
        let mut e = crate::store::test_support::episode("r", "t", "base", 0);
        e.status = status;
        e.steps = steps;
        e.invalid_steps = 1;
        e.progress = Some(p);
        e
    }

    /// A success counts all its milestones; a failure what it reached; RRR
    /// is on the success alone; old episodes without progress are left out.
    #[test]
    fn measures_pool_milestones_and_steps_over_episodes() {
        let success = Progress {
            milestones: 4,
            reached_in_order: 3,
            reached_any: 3,
            decisions: 5,
            acting_steps: 4,
            screen_changes: 4,
            reference_steps: Some(4),
            ..Progress::default()
        };
        let failure = Progress {
            milestones: 4,
            reached_in_order: 1,
            reached_any: 2,
            decisions: 5,
            acting_steps: 4,
            screen_changes: 2,
            reference_steps: Some(4),
            side_effects: vec!["app/decoy.wi_fi_calling".into()],
            ..Progress::default()
        };
        let mut old = crate::store::test_support::episode("r", "t", "old", 0);
        old.status = EpisodeStatus::Failure;
        let s = ProgressStats::of(&[
            ep(EpisodeStatus::Success, 8, success),
            ep(EpisodeStatus::Failure, 4, failure),
            old,
        ])
        .unwrap();
        assert_eq!(s.episodes, 2);
        assert_eq!((s.sub_sr.successes, s.sub_sr.n), (6, 8));
        assert_eq!((s.progress.successes, s.progress.n), (5, 8));
        assert_eq!((s.rrr, s.rrr_n), (Some(0.5), 1));
        assert_eq!((s.ror.successes, s.ror.n), (6, 8));
        assert_eq!((s.invalid.successes, s.invalid.n), (2, 10));
        assert_eq!((s.side_effects.successes, s.side_effects.n), (1, 2));
        assert_eq!(
            s.side_effect_keys,
            [("app/decoy.wi_fi_calling".to_string(), 1)]
        );
        assert!(s.lines().contains("Sub-SR 75.0% ["), "{}", s.lines());
        assert!(
            ProgressStats::of(&[crate::store::test_support::episode("r", "t", "x", 0)]).is_none()
        );
    }
}
