//! Offline runs (`droidscore steps`) as text: one run's numbers per matcher
//! with their Wilson intervals, two runs' step accuracy side by side with
//! whether the difference is a ranking, and the recorded steps on which the
//! matchers disagree.

use super::paired::{self, Paired, Unit, Verdict};
use super::stats::Rate;
use super::table;
use crate::offline::{MatcherScore, OfflineEpisode, OfflineSummary};

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
                interval(m.steps_by_template),
                rate(&m.types),
                rate(&m.grounding),
                rate(&m.episodes),
                interval(m.episodes_by_template),
            ]
        })
        .collect();
    let mut out = format!(
        "offline run {run_id}: agent {agent}, instructions {instructions}, Wilson 95% intervals; \
         by episode, by template: the same with one episode's steps, or one template's \
         episodes and steps, as one cluster\n"
    );
    out += &table(
        &[
            "matcher",
            "step accuracy",
            "by episode",
            "by template",
            "action type",
            "grounding",
            "episodes all right",
            "by template",
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

/// The steps two offline runs were both scored on under `matcher`, paired:
/// the same (task, variant, seed, step index), clustered by template.
pub fn step_units(a: &[OfflineEpisode], b: &[OfflineEpisode], matcher: &str) -> Vec<Unit> {
    type Key<'a> = (&'a str, &'a str, u64, u32);
    let right: std::collections::BTreeMap<Key, bool> = b
        .iter()
        .filter(|e| e.scored())
        .flat_map(|e| {
            e.steps.iter().filter_map(move |s| {
                let v = s.verdict(matcher)?;
                Some((
                    (
                        e.task.as_str(),
                        e.variant.as_str(),
                        e.instance_seed,
                        s.index,
                    ),
                    v.correct,
                ))
            })
        })
        .collect();
    let mut units = Vec::new();
    for e in a.iter().filter(|e| e.scored()) {
        for s in &e.steps {
            let Some(v) = s.verdict(matcher) else {
                continue;
            };
            let key = (
                e.task.as_str(),
                e.variant.as_str(),
                e.instance_seed,
                s.index,
            );
            if let Some(other) = right.get(&key) {
                units.push(Unit::yes_no(e.task.clone(), v.correct, *other));
            }
        }
    }
    units
}

/// The old rule's verdict on two runs' step accuracy: a ranking only when
/// neither their Wilson intervals nor their by-episode intervals overlap.
pub(crate) fn overlap_verdict(ma: &MatcherScore, mb: &MatcherScore) -> &'static str {
    if ma.steps.n == 0 || mb.steps.n == 0 {
        "NOT SCORED IN BOTH"
    } else if ma.steps.overlaps(&mb.steps) || overlap(ma.steps_clustered, mb.steps_clustered) {
        "NOT A RANKING"
    } else if ma.steps.rate > mb.steps.rate {
        "A"
    } else {
        "B"
    }
}

/// Two offline runs' step accuracy under each matcher both were scored
/// by, paired step by step and clustered by template; the matchers are
/// one family (Holm).
pub fn offline_comparison(
    (a_id, a, ea): (&str, &OfflineSummary, &[OfflineEpisode]),
    (b_id, b, eb): (&str, &OfflineSummary, &[OfflineEpisode]),
) -> String {
    let (rows, mut paired) = offline_pairs(a, b, ea, eb);
    paired::holm(&mut paired.iter_mut().collect::<Vec<_>>());
    let mut cells = Vec::new();
    let mut changed = Vec::new();
    for ((ma, mb), p) in rows.iter().zip(&paired) {
        let old = overlap_verdict(ma, mb);
        let new = match p.verdict {
            Verdict::A => "A",
            Verdict::B => "B",
            Verdict::NotARanking => "NOT A RANKING",
            Verdict::NotScoredInBoth => "NOT SCORED IN BOTH",
        };
        if old != new {
            changed.push(format!("{} {old} → {new}", ma.matcher));
        }
        let mut row = vec![ma.matcher.clone(), rate(&ma.steps), rate(&mb.steps)];
        row.extend(Paired::cells(Some(p)));
        row.push(paired::verdict_text(p.verdict, a_id, b_id));
        cells.push(row);
    }
    let mut out = format!(
        "step accuracy, A = {a_id}, B = {b_id}; A and B: 95 % Wilson intervals. \
         A − B on the steps both runs were scored on (task, variant, seed, step), its 95 % \
         interval clustered by template (cluster-robust, t with templates − 1 df); a ranking \
         needs McNemar's exact test on the discordant steps too; Holm across the matchers ({})\n",
        rows.len()
    );
    let mut header = vec!["matcher", "A", "B"];
    header.extend(paired::COLUMNS);
    header.push("verdict");
    out += &table(&header, &cells);
    if !changed.is_empty() {
        out += &format!(
            "where the old rule (overlapping Wilson or by-episode intervals) said otherwise: {}\n",
            changed.join("; ")
        );
    }
    out
}

/// The matchers both runs were scored by, each with its paired comparison
/// (not yet corrected for the family).
pub fn offline_pairs<'a>(
    a: &'a OfflineSummary,
    b: &'a OfflineSummary,
    ea: &[OfflineEpisode],
    eb: &[OfflineEpisode],
) -> (Vec<(&'a MatcherScore, &'a MatcherScore)>, Vec<Paired>) {
    let rows: Vec<(&MatcherScore, &MatcherScore)> = a
        .scores
        .iter()
        .filter_map(|ma| Some((ma, b.scores.iter().find(|m| m.matcher == ma.matcher)?)))
        .collect();
    let paired = rows
        .iter()
        .map(|(ma, _)| paired::compare(&step_units(ea, eb, &ma.matcher), true))
        .collect();
    (rows, paired)
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
                steps_by_template: clustered,
                types: r,
                grounding: r,
                episodes: r,
                episodes_by_template: (r.low, r.high),
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

    /// One episode per template, `right[t][s]` whether step s of template
    /// t was right under droidscore@1.
    fn run(right: &[Vec<bool>]) -> Vec<OfflineEpisode> {
        right
            .iter()
            .enumerate()
            .map(|(t, steps)| {
                let mut e = episode(&format!("t{t:02}"), "base");
                e.steps = steps
                    .iter()
                    .enumerate()
                    .map(|(i, ok)| {
                        serde_json::from_value(serde_json::json!({
                            "index": i,
                            "reference": {"act": {"kind": "home"}, "screen": [1080, 2400],
                                          "solution_step": i, "search": false},
                            "answer": {"kind": if *ok { "home" } else { "back" }},
                            "verdicts": [["droidscore@1", {"type": ok, "correct": ok}]],
                            "latency_ms": 1.0,
                        }))
                        .unwrap()
                    })
                    .collect();
                e
            })
            .collect()
    }

    fn compared(a: &[OfflineEpisode], b: &[OfflineEpisode]) -> String {
        let names = ["droidscore@1".to_string()];
        let (sa, sb) = (
            crate::offline::summarize(a, &names),
            crate::offline::summarize(b, &names),
        );
        offline_comparison(("a", &sa, a), ("b", &sb, b))
    }

    #[test]
    fn steps_are_paired_and_clustered_by_template() {
        // 20 templates of 4 steps. A right on every step of 8 templates;
        // B right where A is, less one step in each of those 8: 32 against
        // 24 of 80, Wilson intervals overlapping; paired, 8 / 0 discordant
        // steps in 8 templates: A ahead.
        let a: Vec<Vec<bool>> = (0..20).map(|t| vec![t < 8; 4]).collect();
        let b: Vec<Vec<bool>> = (0..20)
            .map(|t| (0..4).map(|s| t < 8 && s > 0).collect())
            .collect();
        let text = compared(&run(&a), &run(&b));
        assert!(text.contains("8 / 0"), "{text}");
        assert!(text.contains("a ahead"), "{text}");
        assert!(
            text.contains("said otherwise: droidscore@1 NOT A RANKING → A"),
            "{text}"
        );
        // The same eight discordant steps, all in one template (B wrong on
        // every step of two templates A has right, and right on ... no):
        // A right on 8 templates, B on 6 of them: 32 against 24 again,
        // discordant 8 / 0, but in 2 templates only: the clustered
        // interval holds it back.
        let b: Vec<Vec<bool>> = (0..20).map(|t| vec![t < 6; 4]).collect();
        let text = compared(&run(&a), &run(&b));
        assert!(text.contains("8 / 0"), "{text}");
        assert!(text.contains("NOT A RANKING"), "{text}");
        assert!(!text.contains("said otherwise"), "{text}");
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
        let a = summary(30, 40);
        insta::assert_snapshot!("offline.table", offline_table("a", "llm", "steps", &a));
        let a_steps: Vec<Vec<bool>> = (0..10).map(|t| vec![t < 7, t < 8, true, t < 5]).collect();
        let b_steps: Vec<Vec<bool>> = (0..10).map(|t| vec![t < 2, t < 3, t < 6, false]).collect();
        insta::assert_snapshot!("offline.compare", compared(&run(&a_steps), &run(&b_steps)));
    }
}
