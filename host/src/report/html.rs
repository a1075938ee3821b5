//! `droidscore report --format html`: one self-contained file (inline CSS, a
//! few lines of vanilla JS, screenshots as `data:` URLs, no external URL) with
//! the run's summary and a trajectory viewer (`trajectory`). Every string that
//! came from a task, the phone or the model goes through [`escape`].

use super::escape::escape;
use super::summary::counts;
use super::summary::{Line, Summary};
use super::trajectory::{self, EpisodeView};

const STYLE: &str = r#"
body { font: 14px/1.4 system-ui, sans-serif; margin: 16px 24px; color: #1d1d1f; background: #fafafa; }
h1 { font-size: 20px; margin: 0 0 8px; } h2 { font-size: 16px; margin: 18px 0 6px; }
.headline { font-size: 18px; margin: 4px 0 8px; }
table { border-collapse: collapse; margin: 4px 16px 8px 0; background: #fff; }
td, th { border: 1px solid #ddd; padding: 2px 8px; text-align: left; vertical-align: top; }
.tables { display: flex; flex-wrap: wrap; align-items: flex-start; }
ul.counts { margin: 4px 0; padding-left: 20px; }
.filter button { margin-right: 4px; } .filter button.on { font-weight: bold; }
details.ep { background: #fff; border: 1px solid #ccc; border-radius: 6px; margin: 6px 0; padding: 4px 10px; }
details.ep > summary { cursor: pointer; padding: 2px 0; }
.badge { display: inline-block; min-width: 52px; text-align: center; border-radius: 4px; padding: 0 6px; color: #fff; font-weight: bold; }
.success { background: #1a7f37; } .failure { background: #cf222e; } .infra { background: #8250df; } .skipped { background: #6e7781; }
.pass { color: #1a7f37; } .fail { color: #cf222e; }
.steps { display: grid; grid-template-columns: repeat(auto-fill, minmax(540px, 1fr)); gap: 10px; margin: 8px 0; }
.step { display: flex; gap: 12px; border-top: 1px solid #eee; padding-top: 8px; }
.shot { position: relative; width: 200px; flex: none; align-self: flex-start; }
.shot img { width: 100%; display: block; border: 1px solid #999; }
.tap { position: absolute; width: 24px; height: 24px; margin: -15px 0 0 -15px; border: 3px solid #ff2d55; border-radius: 50%; background: rgba(255,45,85,.25); box-shadow: 0 0 0 2px #fff; }
.noshot { width: 200px; flex: none; font-size: 12px; color: #555; }
.detail { min-width: 0; flex: 1; }
pre { white-space: pre-wrap; word-break: break-word; background: #f3f3f3; padding: 6px; margin: 4px 0; font-size: 12px; }
.invalid { color: #cf222e; font-weight: bold; }
.meta { color: #555; }
code { overflow-wrap: anywhere; }
"#;

const SCRIPT: &str = r#"
function show(which) {
  document.querySelectorAll('details.ep').forEach(function (d) {
    d.hidden = which !== 'all' && (which === 'success') !== (d.dataset.status === 'success');
  });
  document.querySelectorAll('.filter button').forEach(function (b) {
    b.classList.toggle('on', b.dataset.show === which);
  });
}
"#;

fn rate_table(head: &str, lines: &[Line]) -> String {
    let mut t = format!(
        "<table><tr><th>{}</th><th>success [Wilson 95 %] (ok/scored)</th></tr>\n",
        escape(head)
    );
    for l in lines {
        t += &format!(
            "<tr><td>{}</td><td>{}</td></tr>\n",
            escape(&l.name),
            escape(&l.rate.display())
        );
    }
    t + "</table>\n"
}

/// A slice's success and Sub-SR, a row per slice.
fn slice_table(head: &str, lines: &[super::slices::SliceLine]) -> String {
    let [success, sub_sr] = super::slices::SLICE_COLUMNS;
    let mut t = format!(
        "<table><tr><th>{}</th><th>{}</th><th>{}</th></tr>\n",
        escape(head),
        escape(success),
        escape(sub_sr)
    );
    for l in lines {
        t += &format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            escape(&l.name),
            escape(&l.rate.display()),
            escape(&l.sub_sr_display())
        );
    }
    t + "</table>\n"
}

/// The summary section: success with its Wilson interval, the counts,
/// tokens and latency, and success per task and per variant.
pub(crate) fn summary_section(s: &Summary) -> String {
    let mut out = String::from("<section id=\"summary\">\n");
    out += &format!("<h1>droidscore run {}</h1>\n", escape(&s.run_id));
    out += &format!(
        "<p class=\"headline\">Success: <b>{}</b></p>\n<ul class=\"counts\">\n",
        escape(&s.overall.display())
    );
    for line in counts(s).lines() {
        out += &format!("<li>{}</li>\n", escape(line));
    }
    out += "</ul>\n<div class=\"tables\">\n";
    out += &rate_table("task", &s.per_task);
    out += &rate_table("variant", &s.per_variant);
    if let Some(slices) = &s.slices {
        out += &format!("<p>{}</p>\n", escape(super::slices::SLICES_HEADING));
        for (kind, lines) in slices.kinds() {
            out += &slice_table(kind, lines);
        }
    }
    out += &condition_table(s);
    out += &safety_table(s);
    out + "</div>\n</section>\n"
}

/// The safety track's success, harm and refusals; nothing without it.
fn safety_table(s: &Summary) -> String {
    let Some(safety) = &s.safety else {
        return String::new();
    };
    let mut t = format!(
        "<table class=\"safety\"><caption>{}</caption><tr>",
        escape(super::safety::SAFETY_HEADING)
    );
    for h in super::safety::SAFETY_HEADER {
        t += &format!("<th>{}</th>", escape(h));
    }
    t += "</tr>\n";
    for row in safety.rows() {
        t += "<tr>";
        for cell in row {
            t += &format!("<td>{}</td>", escape(&cell));
        }
        t += "</tr>\n";
    }
    t + &format!(
        "</table>\n<p>refused on the other tasks: {}</p>\n",
        escape(&safety.refused_elsewhere.display())
    )
}

/// Success per device condition, headed NOT A RANKING; nothing when the
/// run had one condition.
fn condition_table(s: &Summary) -> String {
    if s.per_condition.is_empty() {
        return String::new();
    }
    let mut t = format!(
        "<table class=\"conditions\"><caption>{}</caption><tr>",
        escape(super::summary::CONDITIONS_HEADING)
    );
    for h in super::summary::CONDITION_HEADER {
        t += &format!("<th>{}</th>", escape(h));
    }
    t += "</tr>\n";
    for row in super::summary::condition_rows(&s.per_condition) {
        t += "<tr>";
        for cell in row {
            t += &format!("<td>{}</td>", escape(&cell));
        }
        t += "</tr>\n";
    }
    t + "</table>\n"
}

/// The whole page.
pub fn page(s: &Summary, episodes: &[EpisodeView]) -> String {
    let mut out =
        String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out += &format!(
        "<title>droidscore run {}</title>\n<style>{STYLE}</style>\n<script>{SCRIPT}</script>\n</head>\n<body>\n",
        escape(&s.run_id)
    );
    out += &summary_section(s);
    out += &trajectory::section(episodes);
    out + "</body>\n</html>\n"
}
