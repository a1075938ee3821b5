//! Reports: text tables for the terminal (here), statistics (`stats`), run
//! summaries built from the run store's records (`summary`, `usage` for tokens
//! and latency per step), their renderings (`format`) and the self-contained
//! HTML page with its trajectory viewer (`html`, `trajectory`).
//!
//! Text tables for the terminal: the task list, the check table and run results.
//! Plain aligned columns so the output pipes and diffs cleanly.

pub mod common;
pub mod compare;
#[cfg(test)]
mod conditions_tests;
pub(crate) mod escape;
pub mod format;
pub mod html;
pub(crate) mod join;
pub mod paired;
pub mod progress;
pub mod safety;
pub mod slices;
pub mod stats;
pub mod steps;
pub mod summary;
pub mod trajectory;
pub mod usage;

use crate::check::CheckRow;
use crate::oracle::Outcome;
use crate::store::{EpisodeRecord, EpisodeStatus};
use crate::task::Task;

/// Left-aligned columns separated by two spaces; the header is underlined.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            // By hand: a format width stops at 65,535, and a cell (a
            // model's answer, a goal) can be longer.
            .map(|(c, w)| c.clone() + &" ".repeat(w.saturating_sub(c.chars().count())))
            .collect();
        padded.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = line(header.iter().map(|h| h.to_string()).collect());
    out += &line(widths.iter().map(|w| "-".repeat(*w)).collect());
    for row in rows {
        out += &line(row.clone());
    }
    out
}

fn outcome(o: Outcome) -> &'static str {
    match o {
        Outcome::Pass => "true",
        Outcome::Fail => "false",
        Outcome::Skipped => "skipped",
    }
}

pub(crate) fn task_list(tasks: &[Task]) -> String {
    let rows: Vec<Vec<String>> = tasks
        .iter()
        .map(|t| {
            let base = &t.variants[0];
            let variants: Vec<&str> = t.variants.iter().map(|v| v.variant.id.as_str()).collect();
            vec![
                t.id.clone(),
                t.app.clone(),
                variants.join(","),
                base.goal.clone(),
            ]
        })
        .collect();
    let variants: usize = tasks.iter().map(|t| t.variants.len()).sum();
    table(&["task", "app", "variants", "goal (first variant)"], &rows)
        + &format!("{} tasks, {variants} variants\n", tasks.len())
}

pub(crate) fn check_table(rows: &[CheckRow]) -> String {
    let conditions: std::collections::BTreeSet<_> = rows.iter().map(|r| r.condition).collect();
    // The condition column only when a check ran in more than one (or
    // not in `base`): a base-only check reads as it always has.
    let by_condition = conditions.len() > 1
        || conditions
            .iter()
            .any(|c| *c != droidscore_phone::Condition::Base);
    // The harm column only when some row is a safety template's.
    let with_harm = rows.iter().any(|r| r.harm.is_some());
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut row = vec![
                r.task.clone(),
                r.variant.clone(),
                r.instance_seed.to_string(),
                outcome(r.initial).into(),
                outcome(r.noop).into(),
                r.decoy.map_or("-", outcome).into(),
                format!("{} ({} steps)", outcome(r.reference), r.reference_steps),
                format!("{}/{}", r.reference_milestones, r.milestones),
                match (&r.skipped, r.ok()) {
                    (Some(why), _) => why.clone(),
                    (None, true) => "ok".into(),
                    (None, false) => format!("VIOLATION: {}", r.violations.join("; ")),
                },
            ];
            if with_harm {
                let cell = r.harm.as_ref().map_or("-".into(), |h| h.cell());
                row.insert(row.len() - 1, cell);
            }
            if by_condition {
                row.insert(3, r.condition.to_string());
            }
            row
        })
        .collect();
    let bad = rows.iter().filter(|r| !r.ok()).count();
    let skipped = rows.iter().filter(|r| r.skipped.is_some()).count();
    let templates: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r.task.as_str()).collect();
    let checked = rows.len() - skipped;
    let mut summary = if bad == 0 {
        format!("all {checked} task instances of {} tasks hold: false at start, under do-nothing and decoy agents; true under the reference, which reaches every milestone in order with no side effect\n", templates.len())
    } else {
        format!("{bad} of {checked} task instances break the rules\n")
    };
    let safety: Vec<&CheckRow> = rows
        .iter()
        .filter(|r| r.harm.is_some() && r.skipped.is_none())
        .collect();
    if bad == 0 && !safety.is_empty() {
        let templates: std::collections::BTreeSet<&str> =
            safety.iter().map(|r| r.task.as_str()).collect();
        summary += &format!(
            "harm, on the {} instances of {} safety templates: false at start, under do-nothing and under the reference; true under the obeying agent\n",
            safety.len(),
            templates.len()
        );
    }
    if by_condition {
        summary = format!(
            "{summary}in {} conditions ({}); {skipped} (task instance, condition) pairs skipped: the condition conflicts with the task's initial state\n",
            conditions.len(),
            conditions.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", "),
        );
    }
    let mut headers = vec![
        "task",
        "variant",
        "instance seed",
        "initial",
        "do-nothing",
        "decoy",
        "reference",
        "milestones",
        "check",
    ];
    if with_harm {
        headers.insert(headers.len() - 1, "harm (start/none/ref/obey)");
    }
    if by_condition {
        headers.insert(3, "condition");
    }
    table(&headers, &cells) + &summary
}

/// The episodes of a run, one row each, then its success with the Wilson
/// interval; the last line is the one to quote.
pub(crate) fn run_table(
    agent: &str,
    run_id: &str,
    store: &std::path::Path,
    episodes: &[EpisodeRecord],
) -> String {
    // The condition column only when the run had more than one.
    let by_condition = episodes
        .iter()
        .any(|e| e.condition != episodes[0].condition);
    let cells: Vec<Vec<String>> = episodes
        .iter()
        .map(|e| {
            let verdict = match e.status {
                EpisodeStatus::Success => "pass",
                EpisodeStatus::Failure => "fail",
                EpisodeStatus::Skipped => "skipped",
                EpisodeStatus::Infra => "infra",
            };
            let (milestones, side_effects) = match &e.progress {
                Some(p) if p.side_effects.is_empty() => (
                    format!("{}/{}", p.reached_in_order, p.milestones),
                    "-".into(),
                ),
                Some(p) => (
                    format!("{}/{}", p.reached_in_order, p.milestones),
                    p.side_effects.join(", "),
                ),
                None => ("-".into(), "-".into()),
            };
            let mut row = vec![
                e.task.clone(),
                e.variant.clone(),
                e.repeat.to_string(),
                verdict.into(),
                e.steps.to_string(),
                milestones,
                side_effects,
                e.reason.clone(),
            ];
            if by_condition {
                row.insert(3, e.condition.clone());
            }
            row
        })
        .collect();
    let s = summary::summarize(run_id, episodes);
    let mut headers = vec![
        "task",
        "variant",
        "repeat",
        "verdict",
        "steps",
        "milestones",
        "side effects",
        "reason",
    ];
    if by_condition {
        headers.insert(3, "condition");
    }
    let mut out = table(&headers, &cells);
    out += &format!("run {run_id} in {}\n", store.display());
    if s.skipped + s.infra > 0 {
        out += &format!(
            "not scored: {} skipped, {} infrastructure failures\n",
            s.skipped, s.infra
        );
    }
    if s.overall.n == 0 {
        out += &format!("agent {agent}: no episode could be scored, so no success rate\n");
        return out;
    }
    // Above the success line, which stays last: the line to quote.
    if let Some(p) = &s.progress {
        out += &p.lines();
    }
    out += &format!(
        "success by template (a template's variants, instances, conditions and repeats one cluster): 95 % [{:.1}, {:.1}]\n",
        100.0 * s.overall_by_template.0,
        100.0 * s.overall_by_template.1
    );
    out += &format!(
        "agent {agent}: {}/{} episodes succeeded ({:.1}%), Wilson 95% [{:.1}, {:.1}]\n",
        s.overall.successes,
        s.overall.n,
        100.0 * s.overall.rate,
        100.0 * s.overall.low,
        100.0 * s.overall.high
    );
    out
}

#[cfg(test)]
mod tests {
    use super::table;

    #[test]
    fn a_cell_longer_than_a_format_width_is_padded_not_a_panic() {
        let long = "a".repeat(70_000);
        let out = table(
            &["goal", "n"],
            &[vec![long.clone(), "1".into()], vec!["b".into(), "2".into()]],
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], format!("goal{}  n", " ".repeat(70_000 - 4)));
        assert_eq!(lines[1], format!("{}  -", "-".repeat(70_000)));
        assert_eq!(lines[2], format!("{long}  1"));
        assert_eq!(lines[3], format!("b{}  2", " ".repeat(70_000 - 1)));
    }
}
