//! The report's three renderings: JSON (everything, for scripts and the
//! record), Markdown (for a results page), and the terminal table (stdout).
//! Each reads only the `BenchReport`; none touches the runner.

use super::report::BenchReport;
use super::summary::fmt;

pub fn json(report: &BenchReport) -> String {
    serde_json::to_string_pretty(report).expect("the report serialises") + "\n"
}

/// Rows of cells, aligned for the terminal or as a Markdown table.
struct Table {
    /// Columns aligned left (the rest are numbers, aligned right).
    left: usize,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn markdown(&self) -> String {
        let mut out = format!("| {} |\n", self.header.join(" | "));
        out.push_str(&format!(
            "|{}\n",
            self.header
                .iter()
                .enumerate()
                .map(|(i, _)| if i < self.left { " --- |" } else { " ---: |" })
                .collect::<String>()
        ));
        for r in &self.rows {
            out.push_str(&format!("| {} |\n", r.join(" | ")));
        }
        out
    }

    fn aligned(&self) -> String {
        let n = self.header.len();
        let widths: Vec<usize> = (0..n)
            .map(|i| {
                std::iter::once(&self.header)
                    .chain(&self.rows)
                    .map(|r| r[i].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |r: &Vec<String>| {
            r.iter()
                .enumerate()
                .map(|(i, c)| {
                    if i < self.left {
                        format!("{c:<w$}", w = widths[i])
                    } else {
                        format!("{c:>w$}", w = widths[i])
                    }
                })
                .collect::<Vec<_>>()
                .join("  ")
                .trim_end()
                .to_string()
                + "\n"
        };
        std::iter::once(&self.header)
            .chain(&self.rows)
            .map(line)
            .collect()
    }
}

fn stats_table(report: &BenchReport) -> Table {
    let mut rows = Vec::new();
    for key in &report.keys {
        for arm in &report.arms {
            let Some(k) = arm.keys.get(key) else { continue };
            let samples = k
                .samples
                .iter()
                .map(|s| {
                    let mark = if s.contended { "*" } else { "" };
                    format!("{}{mark}", fmt(s.value))
                })
                .collect::<Vec<_>>()
                .join(" ");
            rows.push(vec![
                key.clone(),
                arm.tag.clone(),
                format!("{:?}", k.direction).to_lowercase(),
                fmt(k.median),
                fmt(k.min),
                fmt(k.max),
                fmt(k.spread),
                k.relative_spread
                    .map_or("—".into(), |r| format!("{:.1} %", r * 100.0)),
                fmt(k.best),
                samples,
            ]);
        }
    }
    Table {
        left: 3,
        header: [
            "key", "arm", "better", "median", "min", "max", "spread", "rel", "best", "samples",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

fn direction_name(d: super::spec::Direction) -> String {
    format!("{d:?}").to_lowercase()
}

fn verdict_lines(report: &BenchReport) -> Vec<String> {
    let r = &report.ranking;
    let mut out = Vec::new();
    if report.not_a_ranking {
        out.push(format!(
            "NOT A RANKING on {}: {}.",
            r.metric, report.ranking_reason
        ));
    } else {
        out.push(format!(
            "Ranking on {} ({} is better), by median:",
            r.metric,
            direction_name(r.direction)
        ));
        for (i, a) in r.order.iter().enumerate() {
            let shared = a.ranked_against_above == Some(false);
            let mut notes = Vec::new();
            if i > 0 {
                notes.push(format!(
                    "{:.2}× worse than {}",
                    a.ratio_to_best, r.order[0].tag
                ));
            }
            if shared {
                notes.push(format!(
                    "not ranked against {}: the medians differ by less than the larger spread",
                    r.order[i - 1].tag
                ));
            }
            out.push(format!(
                "  {}{}. {}  {}{}",
                a.place,
                if shared { "=" } else { "" },
                a.tag,
                fmt(a.median),
                if notes.is_empty() {
                    String::new()
                } else {
                    format!("  ({})", notes.join("; "))
                }
            ));
        }
        out.push(format!("  ({})", report.ranking_reason));
    }
    out
}

/// The top-two verdict on every key besides the metric.
fn key_lines(report: &BenchReport) -> Vec<String> {
    report
        .rankings
        .iter()
        .filter(|r| r.metric != report.metric)
        .map(|r| {
            if r.not_a_ranking {
                format!("NOT A RANKING on {}: {}.", r.metric, r.reason)
            } else {
                format!(
                    "Ranking on {} ({} is better): {}.",
                    r.metric,
                    direction_name(r.direction),
                    r.reason
                )
            }
        })
        .collect()
}

fn check_lines(report: &BenchReport) -> Vec<String> {
    let Some(c) = &report.check else {
        return Vec::new();
    };
    let mut out = vec![format!("check: {}", c.outcome.name())];
    for m in &c.provenance_mismatches {
        out.push(format!("  provenance mismatch: {m}"));
    }
    for j in &c.bounds {
        let against = j
            .bound
            .relative_to
            .as_ref()
            .map_or(String::new(), |o| format!(" / {o}"));
        out.push(format!(
            "  {}  {} {}{against}: {}",
            j.verdict.name(),
            j.bound.arm,
            j.bound.key,
            j.why
        ));
    }
    out
}

fn header_lines(report: &BenchReport) -> Vec<String> {
    let p = &report.provenance;
    vec![
        format!(
            "{} arms, {} of {} passes completed; cores {} ({}); {} × {} on {} ({}), git {}{}",
            report.arms.len(),
            report.passes_completed,
            report.passes_requested,
            p.cores,
            p.pinning,
            p.cpu_count,
            p.cpu_model,
            p.hostname,
            p.kernel,
            p.git_rev,
            if p.git_dirty == Some(true) {
                " (dirty)"
            } else {
                ""
            }
        ),
        "* = a sample from a contended run".into(),
    ]
}

fn footer_lines(report: &BenchReport) -> Vec<String> {
    let mut out: Vec<String> = report
        .warnings
        .iter()
        .map(|w| format!("warning: {w}"))
        .collect();
    if let Some(e) = &report.error {
        out.push(format!("error: {}", e.describe()));
    }
    out
}

/// The terminal table, verdict, check and warnings (stdout).
pub fn terminal(report: &BenchReport) -> String {
    let mut out = header_lines(report).join("\n") + "\n\n";
    out.push_str(&stats_table(report).aligned());
    out.push('\n');
    for l in verdict_lines(report)
        .into_iter()
        .chain(key_lines(report))
        .chain(check_lines(report))
        .chain(footer_lines(report))
    {
        out.push_str(&l);
        out.push('\n');
    }
    out
}

pub fn markdown(report: &BenchReport) -> String {
    let p = &report.provenance;
    let mut out = String::from("# droidscore bench\n\n");
    for l in header_lines(report) {
        out.push_str(&format!("{l}  \n"));
    }
    out.push('\n');
    out.push_str(&stats_table(report).markdown());
    out.push('\n');
    let verdict = verdict_lines(report);
    out.push_str(&format!("**{}**\n\n", verdict[0]));
    for l in &verdict[1..] {
        out.push_str(&format!("{}\n", l.trim_start()));
    }
    out.push('\n');
    let keys = key_lines(report);
    if !keys.is_empty() {
        out.push_str("Other keys:\n\n");
        for l in keys {
            out.push_str(&format!("- {l}\n"));
        }
        out.push('\n');
    }
    for l in check_lines(report).into_iter().chain(footer_lines(report)) {
        out.push_str(&format!("- {}\n", l.trim_start()));
    }
    out.push_str(&format!(
        "\nSpec {} (sha256 {}), droidscore {}, {} to {}, load average {} → {}.  \nCommand: `{}`\n\n",
        p.spec_path,
        p.spec_sha256,
        p.droidscore_version,
        p.started_at,
        p.ended_at.as_deref().unwrap_or("?"),
        loadavg(p.loadavg_start),
        loadavg(p.loadavg_end),
        p.command_line.join(" ")
    ));
    out.push_str("| arm | command | env |\n| --- | --- | --- |\n");
    for a in &p.arms {
        out.push_str(&format!(
            "| {} | `{}` | {} |\n",
            a.tag,
            a.command.join(" ").replace('|', "\\|"),
            a.env
                .iter()
                .map(|(k, v)| format!("`{k}={v}`"))
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    out
}

fn loadavg(l: Option<[f64; 3]>) -> String {
    l.map_or("unknown".into(), |[a, b, c]| format!("{a} {b} {c}"))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::check::{self, Expectations};
    use crate::provenance::Provenance;
    use crate::runner::{ArmRun, BusyCheck, Contention, Pass};
    use crate::spec::Spec;
    use crate::summary;

    fn spec() -> Spec {
        serde_json::from_value(serde_json::json!({"arms": [
            {"tag": "t1", "command": ["droidscore-device", "speed", "-t", "1", "-o", "json"],
             "env": {"DROIDSCORE_CACHE": "/c/t1"}, "output": "llama-bench-json"},
            {"tag": "t2", "command": ["droidscore-device", "speed", "-t", "2", "-o", "json"],
             "env": {"DROIDSCORE_CACHE": "/c/t2"}, "output": "llama-bench-json"}
        ]}))
        .unwrap()
    }

    fn run(arm: &str, pass: usize, pp: f64, contended: bool) -> ArmRun {
        ArmRun {
            arm: arm.into(),
            pass,
            position: 1,
            wall_s: 1.0,
            figures: [
                ("pp512_ts".to_string(), serde_json::Value::from(pp)),
                (
                    "rss_kib".to_string(),
                    serde_json::Value::from(if arm == "t1" {
                        1000 + pass
                    } else {
                        1001 + pass
                    }),
                ),
            ]
            .into_iter()
            .collect(),
            stdout_lines: vec![],
            stderr_tail: vec![],
            contention: Contention {
                core_busy: BTreeMap::from([("cpu0".into(), 0.9)]),
                busy_cores: 0.9,
                own_cores: if contended { 0.2 } else { 0.9 },
                excess_cores: if contended { 0.7 } else { 0.0 },
                threshold: 0.15,
                window_s: 1.0,
                contended,
            },
        }
    }

    /// A report with fixed provenance, so the rendering is stable.
    fn report(t2: [f64; 3]) -> BenchReport {
        let spec = spec();
        let passes: Vec<Pass> = (0..3)
            .map(|p| Pass {
                pass: p + 1,
                order: vec![],
                forced_past_busy: false,
                contended: p == 1,
                complete: true,
                runs: vec![
                    run("t1", p + 1, [20.0, 21.0, 22.0][p], p == 1),
                    run("t2", p + 1, t2[p], false),
                ],
            })
            .collect();
        let keys = vec!["pp512_ts".to_string(), "rss_kib".to_string()];
        let arms = summary::summarize(&spec, &keys, &passes).unwrap();
        let ranking = summary::rank(&arms, "pp512_ts", spec.direction("pp512_ts").unwrap(), 3);
        let rankings = summary::rank_all(&arms, &keys, &spec, 3).unwrap();
        let provenance = Provenance {
            git_rev: "0123abc".into(),
            git_dirty: Some(false),
            hostname: "host".into(),
            kernel: "6.1.0".into(),
            cpu_model: "Test CPU".into(),
            cpu_count: 2,
            governors: BTreeMap::new(),
            spec_path: "arms.json".into(),
            spec_sha256: "ab".repeat(32),
            arms: spec.arms.clone(),
            started_at: "2026-01-01T00:00:00Z".into(),
            ended_at: Some("2026-01-01T00:01:00Z".into()),
            loadavg_start: Some([0.1, 0.2, 0.3]),
            loadavg_end: Some([0.4, 0.5, 0.6]),
            droidscore_version: "0.1.0".into(),
            command_line: vec!["droidscore".into(), "bench".into(), "run".into()],
            cores: "0-1".into(),
            pinning: "taskset -c 0-1".into(),
        };
        let expectations: Expectations = serde_json::from_value(serde_json::json!({
            "bounds": [{"arm": "t2", "key": "pp512_ts", "min": 30},
                       {"arm": "t2", "key": "pp512_ts", "relative_to": "t1", "min_ratio": 1.5}]
        }))
        .unwrap();
        let check = check::check(&expectations, &arms, &provenance, None).unwrap();
        BenchReport {
            schema: "droidscore-harness/1",
            provenance,
            metric: "pp512_ts".into(),
            keys,
            passes_requested: 3,
            passes_completed: 3,
            incomplete_passes: vec![],
            busy_check: BusyCheck {
                window_s: 1.0,
                threshold: 0.15,
                shares: BTreeMap::new(),
                busy: vec![],
                force_flag: false,
            },
            warnings: vec!["contended passes: 2 (…)".into()],
            not_a_ranking: ranking.not_a_ranking,
            ranking_reason: ranking.reason.clone(),
            ranking,
            rankings,
            arms,
            contended_passes: vec![2],
            forced_past_busy: false,
            passes,
            check: Some(check),
            check_error: None,
            error: None,
        }
    }

    #[test]
    fn terminal_ranking() {
        insta::assert_snapshot!(terminal(&report([38.0, 40.0, 41.0])));
    }

    #[test]
    fn terminal_not_a_ranking() {
        insta::assert_snapshot!(terminal(&report([21.5, 19.0, 23.0])));
    }

    #[test]
    fn markdown_ranking() {
        insta::assert_snapshot!(markdown(&report([38.0, 40.0, 41.0])));
    }

    #[test]
    fn a_third_arm_inside_the_seconds_spread_shares_its_place() {
        use crate::spec::Direction;
        use crate::summary::{ArmSummary, KeyStats, Sample};
        let arm = |tag: &str, values: [f64; 3]| ArmSummary {
            tag: tag.into(),
            keys: BTreeMap::from([(
                "pp512_ts".to_string(),
                KeyStats::new(
                    Direction::Higher,
                    values
                        .iter()
                        .enumerate()
                        .map(|(i, &value)| Sample {
                            pass: i + 1,
                            value,
                            contended: false,
                            forced_past_busy: false,
                        })
                        .collect(),
                ),
            )]),
        };
        let arms = [
            arm("t4", [40.0, 41.0, 42.0]),
            arm("t2", [20.0, 22.0, 24.0]),
            arm("t1", [19.0, 21.0, 23.0]),
        ];
        let mut r = report([38.0, 40.0, 41.0]);
        r.ranking = summary::rank(&arms, "pp512_ts", Direction::Higher, 3);
        r.ranking_reason = r.ranking.reason.clone();
        insta::assert_snapshot!(verdict_lines(&r).join("\n"));
    }
}
