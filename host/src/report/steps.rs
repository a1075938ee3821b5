//! Offline runs (`droidscore steps`) as text: one run's numbers per matcher
//! with their Wilson intervals, two runs' step accuracy side by side with
//! whether the difference is a ranking, and the recorded steps on which the
//! matchers disagree.

use super::stats::Rate;
use super::table;
use crate::offline::{OfflineEpisode, OfflineSummary};

/// `62.5% [40.9, 80.0] (10/16)`, or `n/a` for none.
fn rate(r: &Rate) -> String {
    r.display()
}

/// `[38.2, 86.1]`, percent.
fn interval((low, high): (f64, f64)) -> String {
    format!("[{:.1}, {:.1}]", low * 100.0, high * 100.0)
}

fn overlap(a: (f64, f64), b: (f64, f64)) -> bool {
    a.0 <= b.1 && b.0 <= a.1
}

/// One offline run: a row per matcher, then the counts and times.
pub fn offline_table(run_id: &str, agent: &str, instructions: &str, s: &OfflineSummary) -> String {
    let rows: Vec<Vec<String>> = s
        .scores
        .iter()
        .map(|m| {
            vec![
                m.matcher.clone(),
                rate(&m.steps),
                interval(m.steps_clustered),
                rate(&m.types),
                rate(&m.grounding),
                rate(&m.episodes),
            ]
        })
        .collect();
    let mut out = format!(
        "offline run {run_id}: agent {agent}, instructions {instructions}, Wilson 95% intervals\n"
    );
    out += &table(
        &[
            "matcher",
            "step accuracy",
            "by episode",
            "action type",
            "grounding",
            "episodes all right",
        ],
        &rows,
    );
    out += &format!(
        "{} episodes, {} scored ({} endpoint failures, {} references not replayed); \
         {} steps scored ({} of them search scrolls), {} invalid answers\n",
        s.episodes, s.scored, s.infra, s.replay_failed, s.steps, s.search_steps, s.invalid
    );
    out += &format!(
        "wall time {:.1} s; agent time per step median {:.1} ms, p90 {:.1} ms\n",
        s.wall_s, s.step_ms_median, s.step_ms_p90
    );
    out
}

/// Two offline runs' step accuracy under each matcher both were scored
/// by: a difference is a ranking only when the intervals do not overlap.
pub fn offline_comparison(
    (a_id, a): (&str, &OfflineSummary),
    (b_id, b): (&str, &OfflineSummary),
) -> String {
    let mut rows = Vec::new();
    for ma in &a.scores {
        let Some(mb) = b.scores.iter().find(|m| m.matcher == ma.matcher) else {
            continue;
        };
        let verdict = if ma.steps.n == 0 || mb.steps.n == 0 {
            "no steps to compare".to_string()
        } else if ma.steps.overlaps(&mb.steps) {
            "NOT A RANKING (intervals overlap)".to_string()
        } else if overlap(ma.steps_clustered, mb.steps_clustered) {
            "NOT A RANKING (by-episode intervals overlap)".to_string()
        } else if ma.steps.rate > mb.steps.rate {
            format!("{a_id} ahead")
        } else {
            format!("{b_id} ahead")
        };
        rows.push(vec![
            ma.matcher.clone(),
            rate(&ma.steps),
            interval(ma.steps_clustered),
            rate(&mb.steps),
            interval(mb.steps_clustered),
            verdict,
        ]);
    }
    let mut out = format!(
        "step accuracy, A = {a_id}, B = {b_id}, Wilson 95% intervals; \
         by episode: the same with one episode's steps counted as correlated\n"
    );
    out += &table(
        &[
            "matcher",
            "A",
            "A by episode",
            "B",
            "B by episode",
            "verdict",
        ],
        &rows,
    );
    out
}

/// The recorded steps on which the matchers disagree (some say right,
/// some wrong), as a markdown table: for each pattern of verdicts, most
/// frequent first, how many steps show it and at most `per_pattern` of them.
pub fn disagreements(episodes: &[OfflineEpisode], per_pattern: usize) -> String {
    let names: Vec<String> = crate::offline::matcher_names(episodes);
    let mut patterns: Vec<(Vec<bool>, Vec<String>)> = Vec::new();
    for e in episodes {
        for s in &e.steps {
            let said: Vec<bool> = names
                .iter()
                .map(|n| s.verdict(n).is_some_and(|v| v.correct))
                .collect();
            if !(said.contains(&true) && said.contains(&false)) {
                continue;
            }
            let mut row = format!(
                "| {} | {} | {} | {} | {} |",
                e.task,
                e.variant,
                s.index,
                s.answer.describe().replace('|', "\\|"),
                s.reference.act.describe().replace('|', "\\|")
            );
            for ok in &said {
                row += if *ok { " yes |" } else { " no |" };
            }
            match patterns.iter_mut().find(|(p, _)| *p == said) {
                Some((_, rows)) => rows.push(row),
                None => patterns.push((said, vec![row])),
            }
        }
    }
    patterns.sort_by_key(|(_, rows)| std::cmp::Reverse(rows.len()));
    let mut out = String::from("| task | variant | step | answer | reference |");
    for n in &names {
        out += &format!(" {n} |");
    }
    out += "\n|---|---|---|---|---|";
    out += &"---|".repeat(names.len());
    out += "\n";
    for (said, rows) in &patterns {
        let pattern: Vec<&str> = said
            .iter()
            .map(|ok| if *ok { "yes" } else { "no" })
            .collect();
        out += &format!(
            "| **{} steps** | | | | |{}\n",
            rows.len(),
            pattern
                .iter()
                .map(|p| format!(" **{p}** |"))
                .collect::<String>()
        );
        for row in rows.iter().take(per_pattern) {
            out += row;
            out += "\n";
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::MatcherScore;

    /// `right` of `n` steps, spread over episodes of 4 steps as `clustered` says.
    fn summary_with(right: u64, n: u64, clustered: (f64, f64)) -> OfflineSummary {
        let r = Rate::new(right, n);
        OfflineSummary {
            scores: vec![MatcherScore {
                matcher: "droidscore@1".into(),
                steps: r,
                steps_clustered: clustered,
                types: r,
                grounding: r,
                episodes: r,
            }],
            episodes: 1,
            scored: 1,
            infra: 0,
            replay_failed: 0,
            steps: n,
            search_steps: 0,
            invalid: 0,
            wall_s: 1.0,
            step_ms_median: 1.0,
            step_ms_p90: 2.0,
        }
    }

    /// Steps right spread evenly over episodes of four steps.
    fn summary(right: u64, n: u64) -> OfflineSummary {
        let episodes: Vec<(u64, u64)> = (0..n / 4)
            .map(|i| ((right / (n / 4)) + u64::from(i < right % (n / 4)), 4))
            .collect();
        summary_with(right, n, crate::report::stats::clustered_wilson(&episodes))
    }

    #[test]
    fn apart_step_by_step_but_not_by_episode_is_not_a_ranking() {
        // 30 of 40 and 5 of 40: Wilson's intervals part; counted by episode
        // (all-or-nothing episodes: far fewer independent units) they meet.
        let a = summary_with(30, 40, (0.35, 0.95));
        let b = summary_with(5, 40, (0.02, 0.40));
        let text = offline_comparison(("a", &a), ("b", &b));
        assert!(
            text.contains("NOT A RANKING (by-episode intervals overlap)"),
            "{text}"
        );
    }

    #[test]
    fn a_difference_is_a_ranking_only_when_the_intervals_part() {
        let (a, b) = (summary(30, 40), summary(5, 40));
        let apart = offline_comparison(("a", &a), ("b", &b));
        assert!(apart.contains("a ahead"), "{apart}");
        let (c, d) = (summary(6, 40), summary(5, 40));
        let close = offline_comparison(("c", &c), ("d", &d));
        assert!(
            close.contains("NOT A RANKING (intervals overlap)"),
            "{close}"
        );
        let table = offline_table("c", "noop", "goal", &c);
        assert!(table.contains("15.0% ["), "{table}");
    }

    fn episode(task: &str, variant: &str) -> OfflineEpisode {
        OfflineEpisode {
            task: task.into(),
            variant: variant.into(),
            instance_seed: 0,
            end: crate::offline::End::Done,
            steps: Vec::new(),
            wall_ms: 1.0,
        }
    }

    #[test]
    fn two_runs_are_compared_on_the_episodes_both_hold() {
        // A on every variant of two tasks, B on their base variants and one
        // task A lacks: the comparison keeps the two base episodes.
        let mut a = vec![
            episode("t1", "base"),
            episode("t1", "decoy"),
            episode("t2", "base"),
            episode("t2", "renamed"),
        ];
        let mut b = vec![
            episode("t1", "base"),
            episode("t2", "base"),
            episode("t3", "base"),
        ];
        let common = crate::report::common::offline(&mut a, &mut b);
        assert_eq!((common.episodes, common.only_a, common.only_b), (2, 2, 1));
        let keep = |e: &[OfflineEpisode]| -> Vec<(String, String)> {
            e.iter()
                .map(|e| (e.task.clone(), e.variant.clone()))
                .collect()
        };
        assert_eq!(keep(&a), keep(&b));
        assert_eq!(
            common.line().unwrap(),
            "compared on the 2 episodes both runs hold (task, variant, seed); left out: 2 only in A, 1 only in B\n"
        );
        // The same episodes: nothing left out, and no line.
        let mut c = vec![episode("t1", "base")];
        let mut d = vec![episode("t1", "base")];
        assert_eq!(crate::report::common::offline(&mut c, &mut d).line(), None);
    }

    #[test]
    fn an_offline_run_and_a_comparison_read_as_they_always_have() {
        let (a, b) = (summary(30, 40), summary(5, 40));
        insta::assert_snapshot!("offline.table", offline_table("a", "llm", "steps", &a));
        insta::assert_snapshot!("offline.compare", offline_comparison(("a", &a), ("b", &b)));
    }
}
