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
            format!("{:?}", r.direction).to_lowercase()
        ));
        for (i, a) in r.order.iter().enumerate() {
            out.push(format!(
                "  {}. {}  {}{}",
                i + 1,
                a.tag,
                fmt(a.median),
                if i == 0 {
                    String::new()
                } else {
                    format!("  ({:.2}× worse than {})", a.ratio_to_best, r.order[0].tag)
                }
            ));
        }
        out.push(format!("  ({})", report.ranking_reason));
    }
    out
}

fn check_lines(report: &BenchReport) -> Vec<String> {
    let Some(c) = &report.check else {
        return Vec::new();
    };
    let mut out = vec![format!("check: {:?}", c.outcome).to_lowercase()];
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
            "  {:?}  {} {}{against}: {}",
            j.verdict, j.bound.arm, j.bound.key, j.why
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
