//! `droidscore report --format html` of a real run: the LLM agent with
//! screenshots against the scripted server, rendered into one self-contained
//! page whose screenshots, tap markers and escaped model words are counted.
//!
//! Set `DROIDSCORE_KEEP_HTML=/path/report.html` to keep the page (it is how
//! `docs/img/trajectory-viewer.png` was made).

use std::sync::Arc;

use serde_json::Value;

use super::runs::{index_of, solve_wifi, suite_of, user_text, DONE};
use super::scripted_server::{runtime, Reply, ScriptedServer};
use super::support::{text, TestEnv};

/// Solves Wi-Fi from the element list. For Bluetooth it first answers with
/// broken JSON wrapped in markup (which must come out escaped), then opens
/// Settings, taps the wrong row and claims success.
fn policy(body: &Value) -> Reply {
    let text = user_text(body);
    let goal = text.lines().next().unwrap_or("");
    let first = text.contains("Actions so far: none");
    if goal.contains("Bluetooth") {
        if first {
            return Reply::Content(
                "<script>alert('pwned')</script> Bluetooth & co: {\"action_type\": \"click\", \"index\": }"
                    .into(),
            );
        }
        if let Some(i) = index_of(&text, "\"Network & internet") {
            return Reply::Content(format!(
                "Reason: Bluetooth <b>must</b> live under Network & internet.\nAction: {{\"action_type\": \"click\", \"index\": {i}}}"
            ));
        }
        if text.contains("\"Internet —") {
            return Reply::Content(format!("Reason: it looks on to me.\n{DONE}"));
        }
        return Reply::Content(
            "Action: {\"action_type\": \"open_app\", \"app_name\": \"Settings\"}".into(),
        );
    }
    solve_wifi(&text)
}

fn section<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("<section id=\"{id}\">"))
        .expect("section present");
    let end = start + html[start..].find("</section>").expect("section closed");
    &html[start..end + "</section>".len()]
}

#[test]
fn the_html_report_shows_each_screenshot_tap_and_escaped_model_words() {
    let rt = runtime();
    let server = ScriptedServer::start_policy(&rt, Arc::new(policy));
    let dir = TestEnv::new("html");
    let suite = suite_of(dir.path(), &["wifi_on", "bluetooth_on"]);
    let store = dir.join("runs.sqlite");
    dir.droidscore()
        .args(["run", "--base-url", &server.base_url, "--model", "scripted"])
        .args(["--variants", "base", "--repeat", "1", "--run-id", "html"])
        .args(["--suite", suite.to_str().unwrap()])
        .args(["--store", store.to_str().unwrap()])
        .ok();

    let page = dir.join("report.html");
    let o = dir
        .droidscore()
        .args(["report", "html", "--format", "html"])
        .args(["--store", store.to_str().unwrap()])
        .args(["--out", page.to_str().unwrap()])
        .ok();
    assert_eq!(text(&o.stdout).trim(), page.to_str().unwrap());
    let html = std::fs::read_to_string(&page).unwrap();
    if let Some(keep) = std::env::var_os("DROIDSCORE_KEEP_HTML") {
        std::fs::copy(&page, keep).unwrap();
    }

    // What the store holds, to count against.
    let s = droidscore::store::Store::open_existing(&store).unwrap();
    let mut shots = 0;
    let mut taps = 0;
    for e in s.episodes("html").unwrap() {
        for step in s.steps("html", &e.task, &e.variant, e.repeat).unwrap() {
            shots += usize::from(step.screenshot.is_some());
            taps += usize::from(step.screenshot.is_some() && step.tap.is_some());
        }
    }
    // Wi-Fi: open Settings, three taps, done; Bluetooth: invalid, open, one tap, done.
    assert_eq!((shots, taps), (9, 4));
    assert_eq!(
        html.matches("<img src=\"data:image/png;base64,").count(),
        shots
    );
    assert_eq!(html.matches("<span class=\"tap\"").count(), taps);
    assert!(!html.contains("http://") && !html.contains("https://"));
    assert!(html.contains("&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;"));
    assert!(html.contains("Bluetooth &lt;b&gt;must&lt;/b&gt; live under Network &amp; internet."));
    assert!(!html.contains("<script>alert"));
    assert_eq!(
        html.matches("<script>").count(),
        1,
        "only the page's own filter"
    );
    // Failures first, and the first one open.
    let first = &html[html.find("<details").unwrap()..];
    assert!(first.starts_with("<details class=\"ep\" data-status=\"failure\" open>"));

    let latency = regex::Regex::new(r"agent latency per step: [^<]*").unwrap();
    insta::assert_snapshot!(
        "html-summary",
        latency
            .replace_all(
                section(&html, "summary"),
                "agent latency per step: [redacted]"
            )
            .to_string()
    );
}
