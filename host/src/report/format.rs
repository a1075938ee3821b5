//! Renderings of a run summary and of a two-run comparison: an aligned text
//! table for the terminal, Markdown for notes and pull requests, JSON for tools.

use super::common::Common;
use super::escape::escape;
use super::paired::{Paired, COLUMNS as PAIRED_COLUMNS};
use super::safety::{SAFETY_HEADER, SAFETY_HEADING};
use super::slices::{SliceLine, SLICES_HEADING, SLICE_COLUMNS};
use super::summary::{condition_rows, counts, Line, Summary, CONDITIONS_HEADING, CONDITION_HEADER};
use super::table;

/// Output formats of `droidscore report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Md,
    Json,
    /// One self-contained page with a trajectory viewer (`report::html`); as
    /// a summary rendering alone, its summary section.
    Html,
}

fn slice_rows(lines: &[SliceLine]) -> Vec<Vec<String>> {
    lines
        .iter()
        .map(|l| vec![l.name.clone(), l.rate.display(), l.sub_sr_display()])
        .collect()
}

fn rows(lines: &[Line]) -> Vec<Vec<String>> {
    lines
        .iter()
        .map(|l| vec![l.name.clone(), l.rate.display()])
        .collect()
}

pub fn summary(s: &Summary, format: Format) -> String {
    match format {
        Format::Json => serde_json::to_string_pretty(s).unwrap_or_default() + "\n",
        Format::Html => super::html::summary_section(s),
        Format::Table => {
            let mut out = format!("run {}: success {}\n", s.run_id, s.overall.display());
            out += &counts(s);
            out += "\n";
            out += &table(
                &["task", "success [Wilson 95%] (ok/scored)"],
                &rows(&s.per_task),
            );
            out += "\n";
            out += &table(
                &["variant", "success [Wilson 95%] (ok/scored)"],
                &rows(&s.per_variant),
            );
            if let Some(safety) = &s.safety {
                out += &format!("\n{SAFETY_HEADING}\n");
                out += &table(&SAFETY_HEADER, &safety.rows());
                out += &format!(
                    "refused on the other tasks: {}\n",
                    safety.refused_elsewhere.display()
                );
            }
            if let Some(slices) = &s.slices {
                out += &format!("\n{SLICES_HEADING}\n");
                for (kind, lines) in slices.kinds() {
                    out += "\n";
                    let [success, sub_sr] = SLICE_COLUMNS;
                    out += &table(&[kind, success, sub_sr], &slice_rows(lines));
                }
            }
            if !s.per_condition.is_empty() {
                out += &format!("\n{CONDITIONS_HEADING}\n");
                out += &table(&CONDITION_HEADER, &condition_rows(&s.per_condition));
            }
            out
        }
        Format::Md => {
            let md = |head: &str, lines: &[Line]| {
                let mut t = format!("| {head} | success [Wilson 95 %] (ok/scored) |\n|---|---|\n");
                for l in lines {
                    t += &format!("| {} | {} |\n", l.name, l.rate.display());
                }
                t
            };
            let mut out = format!(
                "## Run `{}`\n\nSuccess: **{}**\n\n",
                s.run_id,
                s.overall.display()
            );
            out += &counts(s)
                .lines()
                .map(|l| format!("- {l}\n"))
                .collect::<String>();
            out += "\n";
            out += &md("task", &s.per_task);
            out += "\n";
            out += &md("variant", &s.per_variant);
            if let Some(safety) = &s.safety {
                out += &format!(
                    "\n{SAFETY_HEADING}\n\n| {} |\n|---|---|---|---|---|\n",
                    SAFETY_HEADER.join(" | ")
                );
                for row in safety.rows() {
                    out += &format!("| {} |\n", row.join(" | "));
                }
                out += &format!(
                    "\nRefused on the other tasks: {}\n",
                    safety.refused_elsewhere.display()
                );
            }
            if let Some(slices) = &s.slices {
                out += &format!("\n{SLICES_HEADING}\n");
                for (kind, lines) in slices.kinds() {
                    let [success, sub_sr] = SLICE_COLUMNS;
                    out += &format!("\n| {kind} | {success} | {sub_sr} |\n|---|---|---|\n");
                    for row in slice_rows(lines) {
                        out += &format!("| {} |\n", row.join(" | "));
                    }
                }
            }
            if !s.per_condition.is_empty() {
                out += &format!(
                    "\n{CONDITIONS_HEADING}\n\n| {} |\n|---|---|---|---|\n",
                    CONDITION_HEADER.join(" | ")
                );
                for row in condition_rows(&s.per_condition) {
                    out += &format!("| {} |\n", row.join(" | "));
                }
            }
            out
        }
    }
}

pub fn comparison(
    a: &Summary,
    b: &Summary,
    rows: &[super::compare::Comparison],
    common: &Common,
    format: Format,
) -> String {
    match format {
        Format::Json => {
            let value = serde_json::json!({
                "a": a.run_id, "b": b.run_id, "rows": rows, "common": common,
            });
            serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
        }
        Format::Html => format!(
            "<pre>{}</pre>\n",
            escape(&comparison(a, b, rows, common, Format::Table))
        ),
        Format::Table | Format::Md => {
            let cells: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    let mut row = vec![r.name.clone(), r.a.display(), r.b.display()];
                    row.extend(Paired::cells(r.paired.as_ref()));
                    row.push(r.verdict.clone());
                    row
                })
                .collect();
            let mut header = vec!["task", "A", "B"];
            header.extend(PAIRED_COLUMNS);
            header.push("better");
            let mut head = format!(
                "A = {}, B = {}; A and B: 95 % Wilson intervals. {}\n",
                a.run_id,
                b.run_id,
                super::compare::RULE
            );
            head += &format!(
                "Holm across each family: {}\n",
                super::compare::families(rows)
            );
            let mut t = if format == Format::Table {
                head + &table(&header, &cells)
            } else {
                let mut t = head
                    + &format!(
                        "\n| {} |\n|{}\n",
                        header.join(" | "),
                        "---|".repeat(header.len())
                    );
                for c in cells {
                    t += &format!("| {} |\n", c.join(" | "));
                }
                t
            };
            if let Some(line) = super::compare::changed(rows) {
                t += if format == Format::Md { "\n" } else { "" };
                t += &line;
            }
            if let Some(line) = common.line() {
                t += if format == Format::Md { "\n" } else { "" };
                t += &line;
            }
            t
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::summary::summarize;
    use crate::store::{EpisodeRecord, EpisodeStatus};

    fn eps(run: &str, ok_of: &[(&str, &str, u32, u32)]) -> Vec<EpisodeRecord> {
        let mut out = Vec::new();
        for (task, variant, ok, n) in ok_of {
            for i in 0..*n {
                let status = if i < *ok {
                    EpisodeStatus::Success
                } else {
                    EpisodeStatus::Failure
                };
                out.push(EpisodeRecord {
                    run_id: run.into(),
                    task: task.to_string(),
                    variant: variant.to_string(),
                    repeat: i,
                    condition: "base".into(),
                    episode_seed: u64::from(i),
                    status,
                    end: serde_json::json!({"end": "complete"}),
                    verdict: None,
                    reason: String::new(),
                    steps: 4,
                    invalid_steps: 0,
                    attempts: 1,
                    started_at: String::new(),
                    ended_at: String::new(),
                    instance_seed: None,
                    params: None,
                    answer: None,
                    progress: None,
                });
            }
        }
        out
    }

    #[test]
    fn summary_and_comparison_renderings() {
        let ea = eps(
            "run-a",
            &[
                ("wifi_on", "base", 3, 3),
                ("wifi_on", "decoy", 1, 3),
                ("alarm_add", "base", 0, 3),
            ],
        );
        let eb = eps(
            "run-b",
            &[
                ("wifi_on", "base", 3, 3),
                ("wifi_on", "decoy", 3, 3),
                ("alarm_add", "base", 3, 3),
            ],
        );
        let (a, b) = (summarize("run-a", &ea), summarize("run-b", &eb));
        let compare = |a: &Summary, b: &Summary| {
            crate::report::compare::pair(
                crate::report::compare::rows(a, b),
                &ea,
                &eb,
                &serde_json::Value::Null,
            )
        };
        insta::assert_snapshot!("summary.table", summary(&a, Format::Table));
        insta::assert_snapshot!("summary.md", summary(&a, Format::Md));
        let mut same = Common {
            episodes: 3,
            only_a: 0,
            only_b: 0,
            key: "task, variant, condition, instance; every repeat",
        };
        insta::assert_snapshot!(
            "compare.table",
            comparison(&a, &b, &compare(&a, &b), &same, Format::Table)
        );
        insta::assert_snapshot!(
            "compare.md",
            comparison(&a, &b, &compare(&a, &b), &same, Format::Md)
        );
        // Runs over different episodes say what was left out, in every
        // rendering.
        same.only_b = 1;
        let line = "compared on the 3 episodes both runs hold \
                    (task, variant, condition, instance; every repeat); left out: 0 only in A, 1 only in B\n";
        for format in [Format::Table, Format::Md] {
            let text = comparison(&a, &b, &compare(&a, &b), &same, format);
            assert!(text.ends_with(line), "{text}");
        }
        let json = comparison(&a, &b, &compare(&a, &b), &same, Format::Json);
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["common"]["only_b"], 1);
        let overall = &value["rows"][0];
        assert_eq!(overall["overlap"], "NOT A RANKING");
        assert_eq!(overall["paired"]["discordant"]["b_only"], 5);
    }

    #[test]
    fn a_model_run_shows_its_setup_validity_tokens_and_latency() {
        use crate::store::{Provenance, RunRecord, StepUsage};
        let run = RunRecord {
            id: "run-llm".into(),
            started_at: String::new(),
            config: serde_json::json!({
                "agent": "llm", "model": "SmolLM2-135M-Instruct", "base_url": "local",
                "constrain": "schema", "device_model": "smollm2-135m", "device_weights": "packed",
            }),
            provenance: Provenance {
                endpoint_health: Some(serde_json::json!({
                    "status": "ok",
                    "model": {"id": "SmolLM2-135M-Instruct", "weights": "packed", "threads": 2},
                })),
                ..Provenance::default()
            },
        };
        let steps: Vec<StepUsage> = (0..8u32)
            .map(|i| StepUsage {
                task: "wifi_on".into(),
                variant: "base".into(),
                repeat: 0,
                index: i,
                invalid: i % 4 == 3,
                prompt_tokens: Some(380 + 10 * u64::from(i)),
                cached_tokens: (i > 0).then(|| 300 + 10 * u64::from(i)),
                completion_tokens: Some(30 + u64::from(i)),
                latency_ms: 1000.0 + 250.0 * f64::from(i),
            })
            .collect();
        let s = summarize("run-llm", &eps("run-llm", &[("wifi_on", "base", 1, 2)]))
            .with_usage(&steps)
            .with_run(&run, &[]);
        insta::assert_snapshot!("summary.llm.table", summary(&s, Format::Table));
    }
}
