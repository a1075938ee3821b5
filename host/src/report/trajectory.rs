//! The trajectory viewer of the HTML report: every episode as a collapsible
//! block, failures first (the first one open), with the oracle's verdict and
//! each step's screenshot, the tap marked on it, the parsed action, the
//! model's own words, the invalid reason, tokens and latency. A step without a
//! screenshot shows the first elements of its UI dump instead.

use super::escape::escape;
use crate::oracle::Verdict;
use crate::store::{gunzip, EpisodeRecord, EpisodeStatus, StepRecord};
use base64::Engine as _;
use droidscore_phone::uiautomator;

/// An episode with its steps, as read from the run store.
#[derive(Debug, Clone)]
pub struct EpisodeView {
    pub episode: EpisodeRecord,
    pub steps: Vec<StepRecord>,
}

/// Element lines shown for a step that has no screenshot.
const ELEMENT_LINES: usize = 12;

fn status(s: EpisodeStatus) -> &'static str {
    match s {
        EpisodeStatus::Success => "success",
        EpisodeStatus::Failure => "failure",
        EpisodeStatus::Infra => "infra",
        EpisodeStatus::Skipped => "skipped",
    }
}

/// Failures first, then infrastructure, skipped, successes.
fn rank(s: EpisodeStatus) -> u8 {
    match s {
        EpisodeStatus::Failure => 0,
        EpisodeStatus::Infra => 1,
        EpisodeStatus::Skipped => 2,
        EpisodeStatus::Success => 3,
    }
}

/// The first lines of the step's element list, or why there are none.
fn element_lines(step: &StepRecord) -> String {
    let xml = match gunzip(&step.ui_dump_gz) {
        Ok(xml) => xml,
        Err(e) => return format!("(UI dump unreadable: {e})"),
    };
    match uiautomator::parse_xml(xml.as_bytes()) {
        Ok(h) => {
            let list = uiautomator::render(&uiautomator::elements(&h));
            let total = list.lines().count();
            let mut out: Vec<&str> = list.lines().take(ELEMENT_LINES).collect();
            let more = format!("… {} more", total.saturating_sub(ELEMENT_LINES));
            if total > ELEMENT_LINES {
                out.push(&more);
            }
            out.join("\n")
        }
        Err(e) => format!("(UI dump does not parse: {e:?})"),
    }
}

fn screen(step: &StepRecord) -> String {
    let Some(png) = &step.screenshot else {
        return format!(
            "<div class=\"noshot\"><b>no screenshot</b>; the elements the agent saw:<pre>{}</pre></div>\n",
            escape(&element_lines(step))
        );
    };
    let mut out = format!(
        "<div class=\"shot\"><img src=\"data:image/png;base64,{}\" alt=\"screen at step {}\">",
        base64::engine::general_purpose::STANDARD.encode(png),
        step.index
    );
    if let (Some((x, y)), Some((w, h))) = (step.tap, droidscore_phone::png_size(png)) {
        // Percentages of the natural size place the marker at any display width.
        out += &format!(
            "<span class=\"tap\" title=\"tap at {x}, {y}\" style=\"left:{:.2}%;top:{:.2}%\"></span>",
            100.0 * f64::from(x) / f64::from(w.max(1)),
            100.0 * f64::from(y) / f64::from(h.max(1))
        );
    }
    out + "</div>\n"
}

fn tokens(t: Option<u64>) -> String {
    t.map_or("–".into(), |t| t.to_string())
}

fn step(step: &StepRecord) -> String {
    let mut out = String::from("<div class=\"step\">\n");
    out += &screen(step);
    out += "<div class=\"detail\">\n";
    out += &format!(
        "<div><b>step {}</b> <span class=\"meta\">· {:.1} ms · tokens {} prompt / {} completion{}</span></div>\n",
        step.index,
        step.latency_ms,
        tokens(step.prompt_tokens),
        tokens(step.completion_tokens),
        step.tap.map_or(String::new(), |(x, y)| format!(" · tap at ({x}, {y})"))
    );
    let action = if step.action.is_null() {
        "none (not a valid action)".to_string()
    } else {
        step.action.to_string()
    };
    out += &format!("<div>action: <code>{}</code></div>\n", escape(&action));
    if let Some(reason) = &step.invalid_reason {
        out += &format!("<div class=\"invalid\">invalid: {}</div>\n", escape(reason));
    }
    if step.raw_output.is_empty() {
        out += "<div class=\"meta\">(no model output: a built-in agent)</div>\n";
    } else if step.action.get("command").is_some() {
        // A program's action (`--agent-cmd`), as the phone received it.
        out += &format!(
            "<div>the command the phone ran:</div><pre class=\"raw\">{}</pre>\n",
            escape(&step.raw_output)
        );
    } else {
        out += &format!(
            "<div>the model's words:</div><pre class=\"raw\">{}</pre>\n",
            escape(&step.raw_output)
        );
    }
    out + "</div>\n</div>\n"
}

/// The oracle's checks, from the episode's verdict.
fn checks(verdict: Option<&Verdict>) -> String {
    let Some(checks) = verdict.map(|v| &v.checks).filter(|c| !c.is_empty()) else {
        return "<div class=\"meta\">no oracle checks recorded</div>\n".into();
    };
    let mut t = String::from("<table><tr><th>check</th><th>outcome</th><th>found</th></tr>\n");
    for c in checks {
        let outcome = c.outcome.name();
        t += &format!(
            "<tr><td>{}</td><td class=\"{outcome}\">{outcome}</td><td>{}</td></tr>\n",
            escape(&c.check),
            escape(&c.detail)
        );
    }
    t + "</table>\n"
}

fn episode(view: &EpisodeView, open: bool) -> String {
    let e = &view.episode;
    let st = status(e.status);
    let mut out = format!(
        "<details class=\"ep\" data-status=\"{st}\"{}>\n<summary><span class=\"badge {st}\">{st}</span> <b>{}</b> / {} #{} · {} steps ({} invalid) · {}</summary>\n",
        if open { " open" } else { "" },
        escape(&e.task),
        escape(&e.variant),
        e.repeat,
        e.steps,
        e.invalid_steps,
        escape(&e.reason)
    );
    // A program's run and the phone's log (`--agent-cmd`) are shown on
    // their own, not inside the end's JSON.
    let mut end = e.end.clone();
    let (program, log) = match end.as_object_mut() {
        Some(o) => (o.remove("program"), o.remove("phone_log")),
        None => (None, None),
    };
    out += &format!(
        "<div class=\"meta\">episode seed {} · attempts {} · ended {}</div>\n",
        e.episode_seed,
        e.attempts,
        escape(&end.to_string())
    );
    if let Some(program) = &program {
        out += &program_block(program, log.as_ref());
    }
    out += &checks(e.verdict.as_ref());
    out += "<div class=\"steps\">\n";
    for s in &view.steps {
        out += &step(s);
    }
    out + "</div>\n</details>\n"
}

/// A program's run (`--agent-cmd`): the command, how it ended, what it
/// sent, the ends of its output, and the phone's log of every command.
fn program_block(program: &serde_json::Value, log: Option<&serde_json::Value>) -> String {
    let field = |k: &str| match &program[k] {
        serde_json::Value::Null => "–".to_string(),
        serde_json::Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    let mut out = format!(
        "<div>program: <code>{}</code> · exit {} · signal {} · killed for {} · {:.0} ms · {} commands, {} actions, {} screen reads · trajectory: {}</div>\n",
        escape(&field("command")),
        escape(&field("exit_code")),
        escape(&field("signal")),
        escape(&field("killed_for")),
        program["wall_ms"].as_f64().unwrap_or_default(),
        escape(&field("commands")),
        escape(&field("actions")),
        escape(&field("observations")),
        escape(&field("trajectory")),
    );
    for stream in ["stdout", "stderr"] {
        let tail = &program[stream];
        if let Some(text) = tail["text"].as_str().filter(|t| !t.is_empty()) {
            out += &format!(
                "<div>{stream} ({} bytes{}):</div><pre>{}</pre>\n",
                tail["bytes"],
                if tail["truncated"] == true {
                    ", the end kept"
                } else {
                    ""
                },
                escape(text)
            );
        }
    }
    if let Some(entries) = log.and_then(|l| l.as_array()) {
        out += &format!(
            "<details><summary>the phone's log: {} commands</summary><pre>",
            entries.len()
        );
        for entry in entries {
            let words: Vec<&str> = entry["argv"]
                .as_array()
                .map(|a| a.iter().filter_map(|w| w.as_str()).collect())
                .unwrap_or_default();
            let step = entry["step"]
                .as_u64()
                .map_or(String::new(), |s| format!(" step {s}"));
            let refused = if entry["refused"] == true {
                " REFUSED"
            } else {
                ""
            };
            out += &escape(&format!(
                "{:>9.1} ms  {:<11} exit {}{step}{refused}  {}\n",
                entry["at_ms"].as_f64().unwrap_or_default(),
                entry["kind"].as_str().unwrap_or(""),
                entry["exit"],
                words.join(" ")
            ));
        }
        out += "</pre></details>\n";
    }
    out
}

/// The trajectories section: a filter bar, then every episode, failures first
/// and the first episode open.
pub fn section(episodes: &[EpisodeView]) -> String {
    let mut order: Vec<&EpisodeView> = episodes.iter().collect();
    order.sort_by_key(|v| rank(v.episode.status));
    let mut out = String::from("<section id=\"trajectories\">\n<h2>Trajectories</h2>\n");
    out += "<div class=\"filter\">show: <button data-show=\"all\" class=\"on\" onclick=\"show('all')\">all</button><button data-show=\"failures\" onclick=\"show('failures')\">not successful</button><button data-show=\"success\" onclick=\"show('success')\">successful</button></div>\n";
    for (i, v) in order.iter().enumerate() {
        out += &episode(v, i == 0);
    }
    out + "</section>\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_only_step() -> StepRecord {
        let xml = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/dumps/aosp-launcher-search-settings.xml"
        ))
        .unwrap();
        StepRecord {
            run_id: "r".into(),
            task: "wifi_on".into(),
            variant: "base".into(),
            repeat: 0,
            index: 0,
            observation_digest: String::new(),
            ui_dump_gz: crate::store::gzip(&xml),
            screenshot: None,
            raw_output: "<img src=x onerror=alert(1)> tap \"Settings\"".into(),
            action: serde_json::json!({"action_type": "click", "index": 3}),
            invalid_reason: None,
            tap: Some((540, 1200)),
            prompt_tokens: Some(1234),
            cached_tokens: None,
            completion_tokens: None,
            latency_ms: 812.25,
            observe: None,
        }
    }

    #[test]
    fn a_step_without_screenshot_shows_its_first_elements_and_escaped_words() {
        let html = step(&text_only_step());
        assert!(html.contains("<b>no screenshot</b>"), "{html}");
        assert!(
            !html.contains("<img") && !html.contains("class=\"tap\""),
            "{html}"
        );
        // The first element line of the dump, as the agent saw it.
        let first = uiautomator::render(&uiautomator::elements(
            &uiautomator::parse_xml(gunzip(&text_only_step().ui_dump_gz).unwrap().as_bytes())
                .unwrap(),
        ));
        let first = first.lines().next().unwrap();
        assert!(html.contains(&escape(first)), "{first}");
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt; tap &quot;Settings&quot;"));
        assert!(html.contains("812.2 ms · tokens 1234 prompt / – completion · tap at (540, 1200)"));
    }

    #[test]
    fn a_programs_run_and_the_phones_log_are_shown_apart_from_the_end_and_escaped() {
        let program = serde_json::json!({
            "command": "sh agent.sh <x>", "exit_code": 3, "signal": null,
            "killed_for": null, "wall_ms": 12.0, "commands": 2, "actions": 1,
            "observations": 1, "trajectory": "phone",
            "stdout": {"text": "", "bytes": 0, "truncated": false},
            "stderr": {"text": "boom <b>", "bytes": 9000, "truncated": true},
        });
        let log = serde_json::json!([
            {"at_ms": 1.5, "argv": ["uiautomator", "dump"], "kind": "observation", "exit": 0, "step": null, "refused": false},
            {"at_ms": 9.0, "argv": ["input", "tap", "1", "2"], "kind": "action", "exit": 0, "step": 1, "refused": false},
        ]);
        let html = program_block(&program, Some(&log));
        assert!(
            html.contains(
                "program: <code>sh agent.sh &lt;x&gt;</code> · exit 3 · signal – · killed for –"
            ),
            "{html}"
        );
        assert!(
            html.contains("2 commands, 1 actions, 1 screen reads · trajectory: phone"),
            "{html}"
        );
        assert!(
            html.contains("stderr (9000 bytes, the end kept):</div><pre>boom &lt;b&gt;</pre>"),
            "{html}"
        );
        assert!(!html.contains("stdout ("), "an empty stream is not shown");
        assert!(html.contains("the phone's log: 2 commands"));
        assert!(html.contains("exit 0 step 1  input tap 1 2"), "{html}");
        // A step the program took reads as the phone's command, not a model's words.
        let mut st = text_only_step();
        st.action = serde_json::json!({"command": ["input", "tap", "1", "2"], "exit": 0});
        st.raw_output = "input tap 1 2".into();
        assert!(step(&st).contains("the command the phone ran:"));
    }
}
