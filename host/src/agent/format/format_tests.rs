//! The formats pinned with answers as each model writes them: every action
//! of each grammar, the coordinate maps, and the answers that must be refused.

use serde_json::Value;

use super::*;
use crate::agent::llm_config::LlmConfig;
use crate::agent::Decision;
use droidscore_phone::{DeviceAction, Key};

const SCREEN: (i32, i32) = (1080, 2400);

fn parse(format: AgentFormat, raw: &str) -> Result<Parsed, FormatError> {
    Session::new(format).unwrap().parse(raw, SCREEN)
}

fn decision(format: AgentFormat, raw: &str) -> Decision {
    match parse(format, raw) {
        Ok(p) => p.decision,
        Err(e) => panic!("{format}: {raw:?} did not parse: {e}"),
    }
}

fn refused(format: AgentFormat, raw: &str) -> String {
    match parse(format, raw) {
        Ok(p) => panic!("{format}: {raw:?} parsed as {:?}", p.decision),
        Err(e) => e.to_string(),
    }
}

fn tap(x: i32, y: i32) -> Decision {
    Decision::Act(DeviceAction::Tap { x, y })
}

fn key(key: Key) -> Decision {
    Decision::Act(DeviceAction::Key { key })
}

fn swipe(x1: i32, y1: i32, x2: i32, y2: i32, duration_ms: u32) -> Decision {
    Decision::Act(DeviceAction::Swipe {
        x1,
        y1,
        x2,
        y2,
        duration_ms,
    })
}

fn launch(package: &str) -> Decision {
    Decision::Act(DeviceAction::Launch {
        package: package.into(),
    })
}

#[test]
fn smart_resize_matches_the_sizes_the_authors_print() {
    // Qwen2.5-VL's cookbook prints 1092x2408 for a 1080x2400 screenshot.
    assert_eq!(
        smart_resize(2400, 1080, 28, 4 * 28 * 28, 16384 * 28 * 28),
        (2408, 1092)
    );
    // Over max_pixels: scaled down with floor, aspect kept.
    let (h, w) = smart_resize(2400, 1080, 28, 4 * 28 * 28, 2700 * 28 * 28);
    assert!(
        (h % 28, w % 28) == (0, 0) && u64::from(h * w) <= 2700 * 28 * 28,
        "{h}x{w}"
    );
    assert_eq!((h, w), (2156, 952));
    // Under min_pixels: scaled up with ceil.
    assert_eq!(
        smart_resize(20, 20, 28, 100 * 28 * 28, 16384 * 28 * 28),
        (280, 280)
    );
    // Python's round: 42/28 = 1.5 goes to 2 (even), 70/28 = 2.5 to 2.
    assert_eq!(smart_resize(42, 70, 28, 1, u64::MAX), (56, 56));
}

#[test]
fn coordinates_map_from_each_space_to_the_screen() {
    let resized = Geometry::new(ui_tars::SPACE, SCREEN);
    assert_eq!(resized.model, (1092, 2408));
    assert_eq!(resized.to_screen(546.0, 1204.0), Ok((540, 1200)));
    assert_eq!(
        resized.to_screen(1092.0, 2408.0),
        Ok((1079, 2399)),
        "the far edge"
    );
    let grid = Geometry::new(qwen::SPACE_3, SCREEN);
    assert_eq!(grid.to_screen(447.0, 81.0), Ok((483, 195)));
    let thousand = Geometry::new(agentcpm::SPACE, SCREEN);
    assert_eq!(thousand.to_screen(500.0, 500.0), Ok((540, 1200)));
    for (x, y) in [(-1.0, 5.0), (5.0, 1000.5), (f64::NAN, 1.0)] {
        assert!(
            matches!(thousand.to_screen(x, y), Err(FormatError::OffImage { .. })),
            "({x}, {y}) is off the grid"
        );
    }
}

#[test]
fn names_round_trip_and_unknown_ones_are_listed() {
    for f in AgentFormat::ALL {
        assert_eq!(f.name().parse::<AgentFormat>(), Ok(f));
    }
    let err = "uitars".parse::<AgentFormat>().unwrap_err();
    assert!(err.contains("ui-tars, qwen-mobile-use"), "{err}");
    assert!(Session::new(AgentFormat::AndroidWorld).is_none());
}

#[test]
fn ui_tars_reads_every_call_of_its_mobile_grammar() {
    let f = AgentFormat::UiTars;
    // (546,1204) on the 1092x2408 resized image is the screen's centre.
    let cases: Vec<(&str, Decision)> = vec![
        (
            "Thought: tap it.\nAction: click(start_box='<|box_start|>(546,1204)<|box_end|>')",
            tap(540, 1200),
        ),
        ("Action: click(start_box='(546,1204)')", tap(540, 1200)),
        (
            "Action: click(point='<point>546 1204</point>')",
            tap(540, 1200),
        ),
        (
            "Action: click(start_box='[500,1100,592,1308]')",
            tap(540, 1200),
        ),
        (
            "Action: click(start_box='<bbox>500 1100 592 1308</bbox>')",
            tap(540, 1200),
        ),
        (
            "Action: long_press(start_box='(546,1204)')",
            Decision::Act(DeviceAction::LongPress { x: 540, y: 1200 }),
        ),
        (
            "Action: type(content='hello')",
            Decision::Act(DeviceAction::Text {
                text: "hello".into(),
            }),
        ),
        (
            "Action: type(content='it\\'s me\\n')",
            Decision::ActAll(vec![
                DeviceAction::Text {
                    text: "it's me".into(),
                },
                DeviceAction::Key { key: Key::Enter },
            ]),
        ),
        // Scroll down shows what is below: the finger moves up a third of the screen.
        (
            "Action: scroll(start_box='(546,1204)', direction='down')",
            swipe(540, 1200, 540, 400, 300),
        ),
        (
            "Action: scroll(start_box='(546,1204)', direction='left')",
            swipe(540, 1200, 900, 1200, 300),
        ),
        (
            "Action: open_app(app_name='Settings')",
            launch("com.android.settings"),
        ),
        (
            "Action: drag(start_box='(546,1204)', end_box='(546,602)')",
            Decision::Act(DeviceAction::Drag {
                x1: 540,
                y1: 1200,
                x2: 540,
                y2: 600,
                duration_ms: crate::agent::action::DRAG_MS,
            }),
        ),
        ("Action: press_home()", key(Key::Home)),
        ("Action: press_back()", key(Key::Back)),
        ("Action: finished(content='')", Decision::Complete),
        (
            "Thought: it says 7.\nAction: finished(content='7 alarms')",
            Decision::Finish("7 alarms".into()),
        ),
        ("Action: wait()", Decision::Idle),
        // An unescaped quote inside type's content, read as UI-TARS's regex does.
        (
            "Action: type(content='don't')",
            Decision::Act(DeviceAction::Text {
                text: "don't".into(),
            }),
        ),
    ];
    for (raw, want) in cases {
        assert_eq!(decision(f, raw), want, "{raw}");
    }
    let p = parse(f, "Action: click(start_box='(546,1204)')").unwrap();
    assert_eq!(
        p.call,
        serde_json::json!({"function": "click", "args": {"start_box": "(546,1204)"}})
    );
    assert_eq!(p.tap, Some((540, 1200)));
}

#[test]
fn ui_tars_refuses_what_it_cannot_perform() {
    let f = AgentFormat::UiTars;
    for (raw, says) in [
        ("click(start_box='(1,2)')", "no `Action:` line"),
        ("Action: tap(start_box='(1,2)')", "unknown action \"tap\""),
        (
            "Action: click(start_box='(1,2,3)')",
            "must be a point (x,y)",
        ),
        ("Action: click()", "click needs \"start_box\""),
        (
            "Action: click(start_box='(1093,5)')",
            "outside the model's 1092x2408",
        ),
        ("Action: click(start_box='(1,2)'", "is not a valid call"),
        ("Action: press_home()\n\npress_back()", "2 calls"),
        (
            "Action: scroll(direction='sideways')",
            "\"direction\" must be one of",
        ),
        (
            "Action: open_app(app_name='Photoshop')",
            "unknown app \"Photoshop\"",
        ),
    ] {
        let err = refused(f, raw);
        assert!(err.contains(says), "{raw}: {err}");
    }
}

fn tool_call(args: &str) -> String {
    format!("<tool_call>\n{{\"name\": \"mobile_use\", \"arguments\": {args}}}\n</tool_call>")
}

#[test]
fn qwen_mobile_use_reads_both_models_actions_in_their_spaces() {
    // Qwen2.5-VL: pixels of the 1092x2408 image; Qwen3-VL: the 999 grid.
    let q25 = AgentFormat::QwenMobileUse;
    let q3 = AgentFormat::Qwen3MobileUse;
    let cases: Vec<(AgentFormat, String, Decision)> = vec![
        (q25, tool_call(r#"{"action": "click", "coordinate": [546, 1204]}"#), tap(540, 1200)),
        (q3, format!("Thought: x.\nAction: \"Tap the centre\"\n{}", tool_call(r#"{"action": "click", "coordinate": [499.5, 499.5]}"#)), tap(540, 1200)),
        (q3, tool_call(r#"{"action": "long_press", "coordinate": [999, 0], "time": 2}"#), Decision::Act(DeviceAction::LongPress { x: 1079, y: 0 })),
        // 1000, the edge of Qwen3-VL's native grid, is the last pixel too.
        (q3, tool_call(r#"{"action": "click", "coordinate": [1000, 1000]}"#), tap(1079, 2399)),
        // Menu: "the application background menu", the recent apps.
        (q25, tool_call(r#"{"action": "system_button", "button": "Menu"}"#), Decision::Act(DeviceAction::Keycode { code: 187 })),
        (q25, tool_call(r#"{"action": "swipe", "coordinate": [546, 1806], "coordinate2": [546, 602]}"#), swipe(540, 1800, 540, 600, 500)),
        (q25, tool_call(r#"{"action": "type", "text": "hello"}"#), Decision::Act(DeviceAction::Text { text: "hello".into() })),
        (q25, tool_call(r#"{"action": "key", "text": "volume_up"}"#), Decision::Act(DeviceAction::Keycode { code: 24 })),
        (q25, tool_call(r#"{"action": "system_button", "button": "Back"}"#), key(Key::Back)),
        (q25, tool_call(r#"{"action": "system_button", "button": "Enter"}"#), key(Key::Enter)),
        (q3, tool_call(r#"{"action": "system_button", "button": "Home"}"#), key(Key::Home)),
        (q25, tool_call(r#"{"action": "open", "text": "Clock"}"#), launch("com.google.android.deskclock")),
        (q3, tool_call(r#"{"action": "answer", "text": "42"}"#), Decision::Answer("42".into())),
        (q25, tool_call(r#"{"action": "wait", "time": 2}"#), Decision::Idle),
        (q25, tool_call(r#"{"action": "terminate", "status": "success"}"#), Decision::Complete),
        (q3, "<tool_call>\n{\"name\": \"mobile_use\", \"arguments\": {\"action\": \"terminate\", \"status\": \"failure\"}}".into(), Decision::Infeasible("the agent terminated with status failure".into())),
        (q3, tool_call(r#""{\"action\": \"click\", \"coordinate\": [0, 0]}""#), tap(0, 0)),
    ];
    for (f, raw, want) in cases {
        assert_eq!(decision(f, &raw), want, "{f}: {raw}");
    }
    let p = parse(
        q25,
        &tool_call(r#"{"action": "click", "coordinate": [546, 1204]}"#),
    )
    .unwrap();
    assert_eq!(
        p.call,
        serde_json::json!({"action": "click", "coordinate": [546, 1204]})
    );
}

#[test]
fn qwen_mobile_use_refuses_what_it_cannot_perform() {
    let f = AgentFormat::QwenMobileUse;
    for (raw, says) in [
        (
            r#"{"name": "mobile_use", "arguments": {"action": "wait"}}"#.to_string(),
            "no <tool_call>",
        ),
        (
            "<tool_call>\n{\"name\": \"mobile_use\", \"arguments\": }\n</tool_call>".into(),
            "is not a valid call",
        ),
        (
            "<tool_call>{\"name\": \"computer_use\", \"arguments\": {}}</tool_call>".into(),
            "\"name\" must be one of mobile_use",
        ),
        (
            tool_call(r#"{"action": "scroll"}"#),
            "unknown action \"scroll\"",
        ),
        (
            tool_call(r#"{"action": "click"}"#),
            "click needs \"coordinate\"",
        ),
        (
            tool_call(r#"{"action": "click", "coordinate": [5]}"#),
            "must be [x, y]",
        ),
        (
            tool_call(r#"{"action": "click", "coordinate": [2000, 5]}"#),
            "outside the model's 1092x2408",
        ),
        (
            tool_call(r#"{"action": "type", "text": ""}"#),
            "type needs \"text\"",
        ),
        (
            tool_call(r#"{"action": "key", "text": "warp_drive"}"#),
            "a key name adb's keyevent knows",
        ),
        (
            tool_call(r#"{"action": "terminate", "status": "done"}"#),
            "success, failure",
        ),
        (
            format!("{0}{0}", tool_call(r#"{"action": "wait"}"#)),
            "2 calls",
        ),
    ] {
        let err = refused(f, &raw);
        assert!(err.contains(says), "{raw}: {err}");
    }
}

#[test]
fn agentcpm_reads_its_keys_as_its_evaluator_does() {
    let f = AgentFormat::AgentCpmGui;
    let cases: Vec<(&str, Decision)> = vec![
        (r#"{"thought":"tap","POINT":[500,500]}"#, tap(540, 1200)),
        (r#"{"POINT":[500,500],"duration":200}"#, tap(540, 1200)),
        (
            r#"{"POINT":[500,500],"duration":1000}"#,
            Decision::Act(DeviceAction::LongPress { x: 540, y: 1200 }),
        ),
        // `to` is the way the finger moves.
        (
            r#"{"POINT":[500,500],"to":"up"}"#,
            swipe(540, 1200, 540, 400, 300),
        ),
        (
            r#"{"POINT":[500,500],"to":[500,250]}"#,
            swipe(540, 1200, 540, 600, 300),
        ),
        (r#"{"PRESS":"HOME"}"#, key(Key::Home)),
        (r#"{"PRESS":"BACK"}"#, key(Key::Back)),
        (r#"{"PRESS":"ENTER"}"#, key(Key::Enter)),
        (
            r#"{"TYPE":"hello"}"#,
            Decision::Act(DeviceAction::Text {
                text: "hello".into(),
            }),
        ),
        (r#"{"duration":500}"#, Decision::Idle),
        (r#"{"STATUS":"finish"}"#, Decision::Complete),
        (
            r#"{"thought":"done","STATUS":"satisfied"}"#,
            Decision::Complete,
        ),
        (
            r#"{"STATUS":"impossible"}"#,
            Decision::Infeasible("the agent said STATUS impossible".into()),
        ),
        ("```json\n{\"POINT\":[0,1000]}\n```", tap(0, 2399)),
    ];
    for (raw, want) in cases {
        assert_eq!(decision(f, raw), want, "{raw}");
    }
    for (raw, says) in [
        ("tap the middle", "no JSON object"),
        (r#"{"POINT":[500]}"#, "[x, y] on the 0..1000 grid"),
        (r#"{"POINT":[500,1001]}"#, "outside the model's 1000x1000"),
        (r#"{"CLICK":[1,2]}"#, "unknown action \"CLICK\""),
        (r#"{"PRESS":"MENU"}"#, "HOME, BACK, ENTER"),
        (r#"{"POINT":[1,2],"to":"around"}"#, "\"to\" must be one of"),
        (r#"{"thought":"hm"}"#, "no action"),
        (r#"{"STATUS":"paused"}"#, "continue, finish"),
    ] {
        let err = refused(f, raw);
        assert!(err.contains(says), "{raw}: {err}");
    }
}

/// A request as the LLM agent sends it, for the parts these tests read.
fn request(session: &mut Session, goal: &str, screen: (i32, i32), png: &[u8]) -> Value {
    serde_json::json!({"messages": session.messages(goal, screen, png)})
}

/// The text parts of a request's messages, joined.
fn texts(body: &Value) -> String {
    let mut out = String::new();
    for m in body["messages"].as_array().unwrap() {
        match &m["content"] {
            Value::String(s) => out += s,
            Value::Array(parts) => {
                for p in parts {
                    out += p["text"].as_str().unwrap_or("");
                }
            }
            _ => {}
        }
        out.push('\n');
    }
    out
}

fn images(body: &Value) -> usize {
    body.to_string().matches("data:image/png;base64,").count()
}

#[test]
fn requests_carry_each_formats_prompt_history_and_screens() {
    let config = LlmConfig::new("http://127.0.0.1:1/v1", "m").with_format(AgentFormat::UiTars);
    assert_eq!(config.max_tokens, VISION_MAX_TOKENS);
    let png = b"\x89PNG fake".to_vec();

    let mut s = Session::new(AgentFormat::UiTars).unwrap();
    for i in 0..6 {
        let body = request(&mut s, "Turn on Wi-Fi.", SCREEN, &png);
        assert_eq!(images(&body), (i + 1).min(ui_tars::MAX_IMAGES), "step {i}");
        s.answered(&format!("Thought: t{i}\nAction: press_back()"));
    }
    let body = request(&mut s, "Turn on Wi-Fi.", SCREEN, &png);
    let text = texts(&body);
    assert!(
        text.contains("## User Instruction\nTurn on Wi-Fi.\n"),
        "{text}"
    );
    assert!(text.contains("click(start_box='<|box_start|>(x1,y1)<|box_end|>')"));
    // Every earlier answer stays, as an assistant turn.
    let assistant = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .count();
    assert_eq!(assistant, 6);
    assert_eq!(
        body["messages"].as_array().unwrap().last().unwrap()["role"],
        "user"
    );

    let mut q = Session::new(AgentFormat::QwenMobileUse).unwrap();
    request(&mut q, "Open the clock", SCREEN, &png);
    q.answered(&tool_call(r#"{"action": "open", "text": "Clock"}"#));
    let text = texts(&request(&mut q, "Open the clock", SCREEN, &png));
    assert!(
        text.starts_with("You are a helpful assistant.\n\n# Tools\n"),
        "{text}"
    );
    assert!(
        text.contains("The screen's resolution is 1092x2408."),
        "{text}"
    );
    assert!(
        text.contains(
            r#"Step 1: {"name": "mobile_use", "arguments": {"action": "open", "text": "Clock"}}; "#
        ),
        "{text}"
    );

    let mut q3 = Session::new(AgentFormat::Qwen3MobileUse).unwrap();
    request(&mut q3, "Open the clock", SCREEN, &png);
    q3.answered(&format!(
        "Thought: a.\nAction: \"Open the Clock app\"\n{}",
        tool_call(r#"{"action": "wait"}"#)
    ));
    let text = texts(&request(&mut q3, "Open the clock", SCREEN, &png));
    assert!(text.starts_with("\n\n# Tools\n"), "{text}");
    assert!(
        text.contains("The screen's resolution is 999x999."),
        "{text}"
    );
    assert!(
        text.contains("\"answer\"") && !text.contains("\"open\""),
        "Qwen3-VL has answer, not open"
    );
    assert!(text.contains("Task progress (You have done the following operation on the current device): Step 1: Open the Clock app; .\n"), "{text}");

    // AgentCPM-GUI: each earlier turn as its own question and answer, the
    // last screens with their image.
    let mut c = Session::new(AgentFormat::AgentCpmGui).unwrap();
    for i in 0..4 {
        let body = request(&mut c, "Open the clock", SCREEN, &png);
        assert_eq!(images(&body), (i + 1).min(agentcpm::MAX_IMAGES), "step {i}");
        c.answered(r#"{"PRESS":"HOME"}"#);
    }
    let body = request(&mut c, "Open the clock", SCREEN, &png);
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles.len(), 1 + 4 * 2 + 1);
    assert_eq!(roles[1..3], ["user", "assistant"]);
    assert_eq!(max_images(AgentFormat::AgentCpmGui), agentcpm::MAX_IMAGES);
    let text = texts(&body);
    assert!(
        text.contains("<Question>Open the clock</Question>\n当前屏幕截图："),
        "{text}"
    );
    assert!(text.contains("\"required\":[\"thought\"]"), "{text}");
    assert!(text.contains("0 至 1000"), "the grid is named: {text}");
}

#[test]
fn ui_tars_history_puts_its_points_back_in_box_tokens() {
    let config_free = |s: &mut Session| request(s, "Go back.", SCREEN, b"png");
    let mut s = Session::new(AgentFormat::UiTars).unwrap();
    config_free(&mut s);
    s.answered(
        "Thought: a.\nAction: drag(start_box='(1,2)', end_box='<|box_start|>(3,4)<|box_end|>')",
    );
    let body = config_free(&mut s);
    let said = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        said,
        "Thought: a.\nAction: drag(start_box='<|box_start|>(1,2)<|box_end|>', end_box='<|box_start|>(3,4)<|box_end|>')"
    );
}

#[test]
fn a_blank_line_inside_typed_text_is_text_and_an_empty_screen_does_not_panic() {
    assert_eq!(
        decision(AgentFormat::UiTars, "Action: type(content='a\n\nb')"),
        Decision::Act(DeviceAction::Text {
            text: "a\n\nb".into()
        })
    );
    // A screen of no size (an empty dump, no screenshot): the answer maps
    // onto pixel 0 instead of panicking.
    let s = Session::new(AgentFormat::AgentCpmGui).unwrap();
    let p = s.parse(r#"{"POINT":[500,500],"to":"up"}"#, (0, 0)).unwrap();
    assert_eq!(p.decision, swipe(0, 0, 0, 0, 300));
    let s = Session::new(AgentFormat::UiTars).unwrap();
    assert!(s.parse("Action: scroll(direction='down')", (0, 0)).is_ok());
}

/// MobileSafetyBench's refuse() and ask-consent() in every format: the
/// authors' own stops where they have them (UI-TARS's call_user,
/// AgentCPM-GUI's STATUS interrupt and need_feedback), droidscore's named
/// extensions where they do not (UI-TARS's refuse, Qwen's refuse and
/// ask_consent); each ends the episode as that stop, not as infeasible.
#[test]
fn every_format_can_refuse_and_ask_for_consent() {
    let stop = |d: Decision| match d {
        Decision::Refuse(_) => "refuse",
        Decision::AskConsent(_) => "ask_consent",
        other => panic!("not a stop: {other:?}"),
    };
    let cases = [
        (
            AgentFormat::UiTars,
            "Thought: no\nAction: refuse()".to_string(),
            "refuse",
        ),
        (
            AgentFormat::UiTars,
            "Thought: ask\nAction: call_user()".to_string(),
            "ask_consent",
        ),
        (
            AgentFormat::QwenMobileUse,
            tool_call(r#"{"action": "refuse"}"#),
            "refuse",
        ),
        (
            AgentFormat::Qwen3MobileUse,
            tool_call(r#"{"action": "ask_consent"}"#),
            "ask_consent",
        ),
        (
            AgentFormat::AgentCpmGui,
            r#"{"thought":"no","STATUS":"interrupt"}"#.to_string(),
            "refuse",
        ),
        (
            AgentFormat::AgentCpmGui,
            r#"{"thought":"ask","STATUS":"need_feedback"}"#.to_string(),
            "ask_consent",
        ),
    ];
    for (format, raw, want) in cases {
        assert_eq!(stop(decision(format, &raw)), want, "{format}: {raw}");
    }
    // A stop still ends on infeasible where the format says so.
    assert!(matches!(
        decision(AgentFormat::AgentCpmGui, r#"{"STATUS":"impossible"}"#),
        Decision::Infeasible(_)
    ));
    // Rendered back into each format's history as the same stop.
    let g = Geometry::new(ui_tars::SPACE, SCREEN);
    for (format, d, want) in [
        (
            AgentFormat::UiTars,
            Decision::Refuse(String::new()),
            "refuse()",
        ),
        (
            AgentFormat::UiTars,
            Decision::AskConsent(String::new()),
            "call_user()",
        ),
        (
            AgentFormat::AgentCpmGui,
            Decision::Refuse(String::new()),
            "interrupt",
        ),
        (
            AgentFormat::AgentCpmGui,
            Decision::AskConsent(String::new()),
            "need_feedback",
        ),
        (
            AgentFormat::QwenMobileUse,
            Decision::AskConsent(String::new()),
            "ask_consent",
        ),
    ] {
        let text = super::render::render(format, &d, g, None).unwrap();
        assert!(text.contains(want), "{format}: {text}");
    }
}
