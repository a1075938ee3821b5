//! `droidscore run --agent-format` for each model's own format, against a
//! scripted endpoint answering in that format: the run is scored exactly
//! (Wi-Fi turned on by taps at the format's coordinates, Bluetooth given up
//! on), the store keeps each call as the format wrote it, and the run
//! records its format. The answers are written from a shadow phone's
//! element centres mapped into each format's coordinate space, as a model
//! looking at the screenshot would point.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use droidscore::agent::AgentFormat;
use droidscore_phone::sim::SimPhone;
use droidscore_phone::uiautomator::elements;
use droidscore_phone::{DeviceAction, Phone};
use serde_json::Value;

use super::runs::{last_line, rows, suite_of};
use super::scripted_server::{runtime, Reply, ScriptedServer};
use super::support::{root, TestEnv};

const SCREEN: (i32, i32) = (1080, 2400);

/// The model's coordinates of screen pixel `(x, y)` in `format`, from the
/// authors' own figures rather than the code under test: Qwen2.5-VL's
/// cookbook prints 1092x2408 for a 1080x2400 screenshot (UI-TARS-1.5 uses
/// the same resize), Qwen3-VL's maps `x / 999`, AgentCPM-GUI's `x / 1000`.
fn model_point(format: AgentFormat, (x, y): (i32, i32)) -> (i64, i64) {
    let (w, h) = match format {
        AgentFormat::UiTars | AgentFormat::QwenMobileUse => (1092.0, 2408.0),
        AgentFormat::Qwen3MobileUse => (999.0, 999.0),
        AgentFormat::AgentCpmGui => (1000.0, 1000.0),
        AgentFormat::AndroidWorld => unreachable!("not a vision format"),
    };
    let scale =
        |v: i32, screen: i32, model: f64| (f64::from(v) * model / f64::from(screen)).round() as i64;
    (scale(x, SCREEN.0, w), scale(y, SCREEN.1, h))
}

/// One step of the Wi-Fi solution, as each format writes it.
enum Step {
    OpenSettings,
    Tap((i32, i32)),
    Done,
    GiveUp,
    Garbage,
}

fn answer(format: AgentFormat, step: &Step) -> String {
    let tool = |args: String| {
        format!("<tool_call>\n{{\"name\": \"mobile_use\", \"arguments\": {args}}}\n</tool_call>")
    };
    let p = |at: &(i32, i32)| model_point(format, *at);
    match (format, step) {
        (_, Step::Garbage) => "I am not sure what to do.".into(),
        (AgentFormat::UiTars, Step::OpenSettings) => {
            "Thought: Settings holds Wi-Fi.\nAction: open_app(app_name='Settings')".into()
        }
        (AgentFormat::UiTars, Step::Tap(at)) => {
            let (x, y) = p(at);
            format!(
                "Thought: tap it.\nAction: click(start_box='<|box_start|>({x},{y})<|box_end|>')"
            )
        }
        (AgentFormat::UiTars, Step::Done) => {
            "Thought: Wi-Fi is on.\nAction: finished(content='')".into()
        }
        (AgentFormat::UiTars, Step::GiveUp) => "Thought: I need help.\nAction: call_user()".into(),
        (AgentFormat::QwenMobileUse, Step::OpenSettings) => {
            tool(r#"{"action": "open", "text": "Settings"}"#.into())
        }
        (AgentFormat::Qwen3MobileUse | AgentFormat::QwenMobileUse, Step::Tap(at)) => {
            let (x, y) = p(at);
            format!(
                "Thought: the next control.\nAction: \"Tap it\"\n{}",
                tool(format!(
                    r#"{{"action": "click", "coordinate": [{x}, {y}]}}"#
                ))
            )
        }
        (AgentFormat::Qwen3MobileUse | AgentFormat::QwenMobileUse, Step::Done) => {
            tool(r#"{"action": "terminate", "status": "success"}"#.into())
        }
        (AgentFormat::Qwen3MobileUse | AgentFormat::QwenMobileUse, Step::GiveUp) => {
            tool(r#"{"action": "terminate", "status": "failure"}"#.into())
        }
        (AgentFormat::AgentCpmGui, Step::Tap(at)) => {
            let (x, y) = p(at);
            format!(r#"{{"thought":"tap it","POINT":[{x},{y}]}}"#)
        }
        (AgentFormat::AgentCpmGui, Step::Done) => r#"{"thought":"done","STATUS":"finish"}"#.into(),
        (AgentFormat::AgentCpmGui, Step::GiveUp) => {
            r#"{"thought":"cannot","STATUS":"impossible"}"#.into()
        }
        (f, Step::OpenSettings) => unreachable!("{f} opens Settings from the launcher"),
        (AgentFormat::AndroidWorld, _) => unreachable!("not a vision format"),
    }
}

/// The centre of the first element labelled `label` (a prefix) of a class
/// ending in `class` on the shadow phone, which is then tapped there.
fn tap_on(phone: &mut SimPhone, label: &str, class: &str) -> (i32, i32) {
    let obs = phone.observe(false).unwrap();
    let at = elements(&obs.hierarchy)
        .iter()
        .find(|e| e.label.starts_with(label) && e.class.ends_with(class))
        .unwrap_or_else(|| panic!("no {class} {label:?} on screen:\n{}", obs.xml))
        .center;
    phone.act(&DeviceAction::Tap { x: at.0, y: at.1 }).unwrap();
    at
}

/// Wi-Fi on, step by step: an invalid answer first, Settings (by name where
/// the format can open an app, else its launcher icon), Network & internet,
/// Internet, the Wi-Fi switch, done.
fn wifi_script(format: AgentFormat) -> Vec<Step> {
    let tasks = droidscore::task::load_dir(&root().join("tasks")).unwrap();
    let inst = tasks.iter().find(|t| t.id == "wifi_on").unwrap();
    let inst = inst.variant("base").unwrap();
    let mut shadow = SimPhone::new(inst.setup(0)).unwrap();
    let mut steps = vec![Step::Garbage];
    match format {
        AgentFormat::UiTars | AgentFormat::QwenMobileUse => {
            steps.push(Step::OpenSettings);
            shadow
                .act(&DeviceAction::Launch {
                    package: "com.android.settings".into(),
                })
                .unwrap();
        }
        _ => steps.push(Step::Tap(tap_on(&mut shadow, "Settings", ""))),
    }
    for (label, class) in [
        ("Network & internet", ""),
        ("Internet", ""),
        ("Wi-Fi", "Switch"),
    ] {
        steps.push(Step::Tap(tap_on(&mut shadow, label, class)));
    }
    steps.push(Step::Done);
    steps
}

/// A "model" answering each goal's requests in turn with its script.
fn server(rt: &tokio::runtime::Runtime, format: AgentFormat) -> ScriptedServer {
    let scripts: Arc<Vec<(String, Vec<String>)>> = Arc::new(vec![
        (
            "Turn on Wi-Fi".into(),
            wifi_script(format)
                .iter()
                .map(|s| answer(format, s))
                .collect(),
        ),
        (
            "Turn on Bluetooth".into(),
            vec![answer(format, &Step::GiveUp)],
        ),
    ]);
    let asked: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    ScriptedServer::start_policy(
        rt,
        Arc::new(move |body: &Value| {
            let text = body["messages"].to_string();
            let Some((goal, script)) = scripts.iter().find(|(g, _)| text.contains(g)) else {
                return Reply::Status(400, "no goal this script knows".into());
            };
            let mut asked = asked.lock().unwrap();
            let n = asked.entry(goal.clone()).or_default();
            *n += 1;
            match script.get(*n - 1) {
                Some(answer) => Reply::Content(answer.clone()),
                None => Reply::Status(418, "script exhausted".into()),
            }
        }),
    )
}

#[test]
fn a_run_in_each_models_own_format_is_scored_exactly() {
    let rt = runtime();
    let dir = TestEnv::new("formats");
    let suite = suite_of(dir.path(), &["wifi_on", "bluetooth_on"]);
    let mut ui_tars_url = String::new();
    for format in AgentFormat::ALL.into_iter().filter(|f| f.is_vision()) {
        let server = server(&rt, format);
        if format == AgentFormat::UiTars {
            ui_tars_url.clone_from(&server.base_url);
        }
        let store = dir.join(format!("{format}.sqlite"));
        let out = dir
            .droidscore()
            .args(["run", "--base-url", &server.base_url, "--model", "scripted"])
            .args(["--agent-format", format.name(), "--variants", "base"])
            .args(["--suite", suite.to_str().unwrap()])
            .args(["--store", store.to_str().unwrap(), "--run-id", "r"])
            .ok();
        let last = last_line(&out);
        assert!(
            last.starts_with("agent llm: 1/2 episodes succeeded"),
            "{format}: {last}"
        );
        eprintln!("--agent-format {format}: {last}");
        let summary: Vec<(String, String, u32, u32)> = rows(&store, "r")
            .into_iter()
            .map(|r| (r.0, r.2, r.3, r.4))
            .collect();
        assert_eq!(
            summary,
            [
                // Given up at once: nothing done, scored from the phone's state.
                ("bluetooth_on".into(), "Failure".into(), 0, 0),
                // An invalid answer (a step of the budget), Settings, three taps, done.
                ("wifi_on".into(), "Success".into(), 4, 1),
            ],
            "{format}"
        );

        let store = droidscore::store::Store::open_existing(&store).unwrap();
        let run = store.run("r").unwrap().unwrap();
        assert_eq!(run.config["agent_format"], format.name(), "{format}");
        assert_eq!(run.config["max_tokens"], 512);
        let steps = store.steps("r", "wifi_on", "base", 0).unwrap();
        assert_eq!(steps.len(), 6, "{format}");
        assert!(steps[0].invalid_reason.is_some() && steps[0].action.is_null());
        let taps: Vec<(i32, i32)> = steps.iter().filter_map(|s| s.tap).collect();
        let expected: Vec<(i32, i32)> = wifi_script(format)
            .iter()
            .filter_map(|s| match s {
                Step::Tap(at) => Some(*at),
                _ => None,
            })
            .collect();
        // Each tap lands within a pixel of the element's centre: the
        // model's coordinates are rounded in its own space.
        assert_eq!(taps.len(), expected.len(), "{format}");
        for (got, want) in taps.iter().zip(&expected) {
            assert!(
                (got.0 - want.0).abs() <= 1 && (got.1 - want.1).abs() <= 1,
                "{format}: tapped {got:?} for {want:?}"
            );
        }
        // The store keeps the call as the format wrote it.
        let call = &steps[2].action;
        match format {
            AgentFormat::UiTars => assert_eq!(call["function"], "click", "{call}"),
            AgentFormat::QwenMobileUse | AgentFormat::Qwen3MobileUse => {
                assert_eq!(call["action"], "click", "{call}")
            }
            _ => assert!(call["POINT"].is_array(), "{call}"),
        }
        // Every request carried the screenshot.
        assert!(server
            .received()
            .iter()
            .all(|r| r.body.to_string().contains("data:image/png;base64,")));
    }

    // A run is resumed in the format it was started in, and only in that one.
    let store = dir.join("ui-tars.sqlite");
    let resume = |format: &str| {
        let mut cmd = dir.droidscore();
        cmd.args(["run", "--base-url", &ui_tars_url, "--model", "scripted"])
            .args(["--agent-format", format, "--variants", "base"])
            .args(["--suite", suite.to_str().unwrap()])
            .args(["--store", store.to_str().unwrap(), "--resume", "r"]);
        cmd
    };
    let out = resume("qwen-mobile-use").code(droidscore::exit::BAD_INPUT);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(r#"agent_format was "ui-tars" (now "qwen-mobile-use")"#),
        "{stderr}"
    );
    resume("ui-tars").ok();
}

#[test]
fn a_vision_format_without_its_screenshot_or_under_a_schema_is_refused() {
    let dir = TestEnv::new("formats-refused");
    for (extra, says) in [
        (
            "--no-image",
            "--agent-format ui-tars reads the screenshot alone: drop --no-image",
        ),
        ("--constrain=schema", "drop --constrain schema"),
    ] {
        let out = dir
            .droidscore()
            .args(["run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"])
            .args(["--agent-format", "ui-tars", extra, "--tasks", "wifi_on"])
            .args(["--store", dir.join("s.sqlite").to_str().unwrap()])
            .fails();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{extra}: {stderr}");
    }
    let out = dir
        .droidscore()
        .args(["run", "--agent-format", "uitars"])
        .fails();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown agent format \"uitars\""),
        "{stderr}"
    );
}
