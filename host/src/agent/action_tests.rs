//! Hostile model outputs: what parses, what is refused and with which message.

use super::*;

fn ok(raw: &str) -> Action {
    parse_action(raw).unwrap_or_else(|e| panic!("{raw:?} should parse, got: {e}"))
}

fn err(raw: &str) -> String {
    match parse_action(raw) {
        Ok(a) => panic!("{raw:?} should be refused, parsed as {a}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn plain_fenced_and_prose_wrapped_answers_parse() {
    let click3 = Action::Click(Target::Index(3));
    for raw in [
        r#"{"action_type": "click", "index": 3}"#,
        "```json\n{\"action_type\": \"click\", \"index\": 3}\n```",
        "```\n{\"action_type\":\"click\",\"index\":3}\n```\n",
        "Reason: the Wi-Fi row is element 3.\nAction: {\"action_type\": \"click\", \"index\": 3}",
        "reason: tap it\naction: {\"action_type\": \"click\", \"index\": 3} because it is the row",
        "I will tap element 3. {\"action_type\": \"click\", \"index\": 3} That should work.",
        // The same action repeated (in the reasoning and the answer) is one action.
        "I think {\"action_type\": \"click\", \"index\": 3} is right.\nAction: {\"action_type\": \"click\", \"index\": 3}",
        // AndroidWorld's JSONAction accepts a digit-string index and whole floats.
        r#"{"action_type": "click", "index": "3"}"#,
        r#"{"action_type": "click", "index": 3.0}"#,
        // null means absent.
        r#"{"action_type": "click", "index": 3, "x": null, "y": null}"#,
    ] {
        assert_eq!(ok(raw), click3, "{raw}");
    }
}

#[test]
fn the_schema_format_with_its_reason_first_parses() {
    // `--constrain schema`: the whole answer is one object, reason first;
    // a reason that itself says "Action:" does not move where we read.
    for raw in [
        r#"{"reason": "Wi-Fi is element 3.", "action_type": "click", "index": 3}"#,
        r#"{"reason": "Action: tap it", "action_type": "click", "index": 3}"#,
        "  {\"reason\":\"x\",\"action_type\":\"click\",\"index\":3}\n",
    ] {
        assert_eq!(ok(raw), Action::Click(Target::Index(3)), "{raw}");
    }
}

#[test]
fn braces_inside_strings_do_not_split_the_object() {
    assert_eq!(
        ok(r#"Action: {"action_type": "input_text", "text": "a } b { c", "index": 0}"#),
        Action::InputText {
            text: "a } b { c".into(),
            target: Some(Target::Index(0)),
            clear: false,
        }
    );
}

#[test]
fn action_prefix_wins_over_json_in_the_reasoning() {
    // The reasoning quotes a different (hypothetical) action; AndroidWorld
    // reads after `Action:`, and so do we.
    assert_eq!(
        ok("Reason: {\"note\": 1} first.\nAction: {\"action_type\": \"navigate_back\"}"),
        Action::NavigateBack
    );
}

#[test]
fn every_action_type_parses() {
    let cases = [
        (
            r#"{"action_type":"long_press","x":10,"y":20}"#,
            Action::LongPress(Target::Point { x: 10, y: 20 }),
        ),
        (
            r#"{"action_type":"input_text","text":"hello"}"#,
            Action::InputText {
                text: "hello".into(),
                target: None,
                clear: false,
            },
        ),
        (
            r#"{"action_type":"input_text","text":1234,"index":2}"#,
            Action::InputText {
                text: "1234".into(),
                target: Some(Target::Index(2)),
                clear: false,
            },
        ),
        (
            r#"{"action_type":"input_text","text":"Bob","index":2,"clear_text":true}"#,
            Action::InputText {
                text: "Bob".into(),
                target: Some(Target::Index(2)),
                clear: true,
            },
        ),
        (
            r#"{"action_type":"double_tap","index":4}"#,
            Action::DoubleTap(Target::Index(4)),
        ),
        (
            r#"{"action_type":"double_tap","x":100,"y":200}"#,
            Action::DoubleTap(Target::Point { x: 100, y: 200 }),
        ),
        (
            r#"{"action_type":"press_keyboard","keycode":"KEYCODE_DEL"}"#,
            Action::PressKeyboard(67),
        ),
        (
            r#"{"action_type":"press_keyboard","keycode":"KEYCODE_MOVE_END"}"#,
            Action::PressKeyboard(123),
        ),
        (
            r#"{"action_type":"drag","start_x":540,"start_y":1800,"end_x":540,"end_y":600.0}"#,
            Action::Drag {
                start: (540, 1800),
                end: (540, 600),
            },
        ),
        (r#"{"action_type":"unknown"}"#, Action::Unknown),
        (
            r#"{"action_type":"scroll","direction":"down"}"#,
            Action::Scroll {
                direction: Direction::Down,
                index: None,
            },
        ),
        (
            r#"{"action_type":"scroll","direction":"left","index":0}"#,
            Action::Scroll {
                direction: Direction::Left,
                index: Some(0),
            },
        ),
        (
            r#"{"action_type":"swipe","direction":"up"}"#,
            Action::Swipe(Direction::Up),
        ),
        (r#"{"action_type":"navigate_home"}"#, Action::NavigateHome),
        (r#"{"action_type":"keyboard_enter"}"#, Action::KeyboardEnter),
        (
            r#"{"action_type":"open_app","app_name":"Settings"}"#,
            Action::OpenApp("Settings".into()),
        ),
        (r#"{"action_type":"wait"}"#, Action::Wait),
        (
            r#"{"action_type":"status","goal_status":"complete"}"#,
            Action::Status { complete: true },
        ),
        (
            r#"{"action_type":"status","goal_status":"infeasible"}"#,
            Action::Status { complete: false },
        ),
        (
            r#"{"action_type":"answer","text":"7:30"}"#,
            Action::Answer("7:30".into()),
        ),
    ];
    for (raw, want) in cases {
        let got = ok(raw);
        assert_eq!(got, want, "{raw}");
        assert_eq!(ok(&got.to_json().to_string()), want, "round trip of {raw}");
    }
}

#[test]
fn refusals_name_the_problem() {
    let cases: &[(&str, &str)] = &[
        ("", "the answer is empty"),
        ("   \n", "the answer is empty"),
        ("I would tap Wi-Fi.", "no JSON object in the answer"),
        ("Action: click(3)", "no JSON object in the answer"),
        (
            r#"{"action_type": "click", "index": 3"#,
            "is not valid JSON",
        ),
        (
            r#"{"action_type": "click", "index": 3,}"#,
            "is not valid JSON",
        ),
        (
            r#"{'action_type': 'click', 'index': 3}"#,
            "is not valid JSON",
        ),
        (r#"{"index": 3}"#, "has no \"action_type\""),
        (
            r#"{"action": {"action_type": "click", "index": 3}}"#,
            "has no \"action_type\" at its top level",
        ),
        (
            r#"{"action_type": "tap", "index": 3}"#,
            "unknown action_type \"tap\"",
        ),
        (
            r#"{"action_type": "Click", "index": 3}"#,
            "unknown action_type \"Click\"",
        ),
        (
            r#"{"action_type": "double_tap"}"#,
            "double_tap needs \"index\"",
        ),
        (
            r#"{"action_type": "press_keyboard"}"#,
            "press_keyboard needs \"keycode\"",
        ),
        (
            r#"{"action_type": "press_keyboard", "keycode": "DEL"}"#,
            "\"keycode\" must be one of a KEYCODE_* name",
        ),
        (
            r#"{"action_type": "press_keyboard", "keycode": "KEYCODE_NOPE"}"#,
            "got \"KEYCODE_NOPE\"",
        ),
        (
            r#"{"action_type": "press_keyboard", "keycode": 67}"#,
            "\"keycode\" must be a string, got 67",
        ),
        (
            r#"{"action_type": "drag", "start_x": 1, "start_y": 2, "end_x": 3}"#,
            "drag needs \"end_y\"",
        ),
        (
            r#"{"action_type": "input_text", "text": "a", "clear_text": "yes"}"#,
            "\"clear_text\" must be true or false, got \"yes\"",
        ),
        (
            r#"{"action_type": 5}"#,
            "\"action_type\" must be a string, got 5",
        ),
        (r#"{"action_type": "click"}"#, "click needs \"index\""),
        (
            r#"{"action_type": "click", "index": "three"}"#,
            "\"index\" must be an integer, got \"three\"",
        ),
        (
            r#"{"action_type": "click", "index": 2.5}"#,
            "\"index\" must be an integer, got 2.5",
        ),
        (
            r#"{"action_type": "click", "index": -1}"#,
            "\"index\" must be a non-negative integer, got -1",
        ),
        (
            r#"{"action_type": "click", "index": [3]}"#,
            "\"index\" must be an integer, got an array",
        ),
        (
            r#"{"action_type": "click", "index": 3, "x": 5, "y": 5}"#,
            "either \"index\" or \"x\" and \"y\"",
        ),
        (
            r#"{"action_type": "click", "x": 5}"#,
            "click needs both \"x\" and \"y\"",
        ),
        (
            r#"{"action_type": "click", "index": 3, "why": "it is Wi-Fi"}"#,
            "unknown field \"why\"",
        ),
        (r#"{"action_type": "scroll"}"#, "scroll needs \"direction\""),
        (
            r#"{"action_type": "scroll", "direction": "downward"}"#,
            "\"direction\" must be one of up, down, left, right, got \"downward\"",
        ),
        (
            r#"{"action_type": "input_text", "index": 2}"#,
            "input_text needs \"text\"",
        ),
        (
            r#"{"action_type": "input_text", "text": "", "index": 2}"#,
            "input_text needs \"text\"",
        ),
        (
            r#"{"action_type": "input_text", "text": ["a"]}"#,
            "\"text\" must be a string, got an array",
        ),
        (
            r#"{"action_type": "open_app"}"#,
            "open_app needs \"app_name\"",
        ),
        (
            r#"{"action_type": "status", "goal_status": "done"}"#,
            "\"goal_status\" must be one of complete, infeasible, got \"done\"",
        ),
        (
            r#"{"action_type": "status"}"#,
            "status needs \"goal_status\"",
        ),
        (r#"{"action_type": "answer"}"#, "answer needs \"text\""),
        (r#"["click", 3]"#, "no JSON object"),
    ];
    for (raw, want) in cases {
        let got = err(raw);
        assert!(got.contains(want), "{raw:?}: expected {want:?} in {got:?}");
    }
}

#[test]
fn two_different_actions_are_refused_not_picked() {
    let got = err("Action: {\"action_type\": \"click\", \"index\": 3}\nor maybe {\"action_type\": \"navigate_back\"}");
    assert!(got.contains("2 different actions"), "{got}");
    assert!(got.contains("navigate_back"), "{got}");
}

#[test]
fn a_broken_action_next_to_a_good_one_is_refused() {
    // The broken one may have been the intended answer.
    let got = err("{\"action_type\": \"click\", \"index\": 3}\nAction: {\"action_type\": \"click\" \"index\": 4}");
    assert!(got.contains("is not valid JSON"), "{got}");
}

#[test]
fn stray_objects_without_action_type_are_ignored_beside_an_action() {
    assert_eq!(
        ok("Screen: {\"title\": \"Settings\"}\n{\"action_type\": \"wait\"}"),
        Action::Wait
    );
}

#[test]
fn long_snippets_are_clipped_in_messages() {
    let raw = format!(
        "{{\"action_type\": \"click\", \"index\": 3, \"pad\": \"{}\"",
        "x".repeat(500)
    );
    let got = err(&raw);
    assert!(got.len() < 400, "{got}");
}

fn el(index: usize, bounds: Bounds) -> Element {
    droidscore_phone::uiautomator::Element::plain(index, "Button", &format!("e{index}"), bounds)
}

const SCREEN: (i32, i32) = (1080, 2400);

fn list() -> Vec<Element> {
    vec![
        el(0, Bounds::new(0, 200, 1080, 2200)),
        el(1, Bounds::new(0, 300, 1080, 500)),
    ]
}

#[test]
fn clicks_resolve_to_element_centres_and_checked_points() {
    let r = resolve(&Action::Click(Target::Index(1)), &list(), SCREEN).unwrap();
    assert_eq!(
        r.decision,
        Decision::Act(DeviceAction::Tap { x: 540, y: 400 })
    );
    assert_eq!(r.tap, Some((540, 400)));
    let r = resolve(
        &Action::LongPress(Target::Point { x: 0, y: 2399 }),
        &list(),
        SCREEN,
    )
    .unwrap();
    assert_eq!(
        r.decision,
        Decision::Act(DeviceAction::LongPress { x: 0, y: 2399 })
    );
}

#[test]
fn out_of_range_index_names_the_index_and_the_list_length() {
    let e = resolve(&Action::Click(Target::Index(7)), &list(), SCREEN).unwrap_err();
    assert_eq!(
        e.to_string(),
        "index 7 is out of range: the element list has 2 elements (0..2)"
    );
    let e = resolve(
        &Action::Scroll {
            direction: Direction::Down,
            index: Some(2),
        },
        &list(),
        SCREEN,
    )
    .unwrap_err();
    assert!(matches!(
        e,
        ActionError::IndexOutOfRange { index: 2, len: 2 }
    ));
}

#[test]
fn off_screen_points_are_refused() {
    for (x, y) in [(1080, 10), (-1, 10), (10, 2400), (10, -5)] {
        let e = resolve(&Action::Click(Target::Point { x, y }), &list(), SCREEN).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("point ({x}, {y}) is off the 1080x2400 screen")
        );
    }
}

#[test]
fn the_new_actions_resolve_to_their_device_actions() {
    let r = resolve(&Action::DoubleTap(Target::Index(1)), &list(), SCREEN).unwrap();
    assert_eq!(
        (r.decision, r.tap),
        (
            Decision::Act(DeviceAction::DoubleTap { x: 540, y: 400 }),
            Some((540, 400))
        )
    );
    let keys = [
        (67, DeviceAction::Keycode { code: 67 }),
        (4, DeviceAction::Key { key: Key::Back }),
        (66, DeviceAction::Key { key: Key::Enter }),
    ];
    for (code, want) in keys {
        let r = resolve(&Action::PressKeyboard(code), &list(), SCREEN).unwrap();
        assert_eq!(r.decision, Decision::Act(want), "{code}");
    }
    let drag = Action::Drag {
        start: (540, 1800),
        end: (540, 600),
    };
    assert_eq!(
        resolve(&drag, &list(), SCREEN).unwrap().decision,
        Decision::Act(DeviceAction::Drag {
            x1: 540,
            y1: 1800,
            x2: 540,
            y2: 600,
            duration_ms: DRAG_MS
        })
    );
    let off = Action::Drag {
        start: (540, 1800),
        end: (540, 2400),
    };
    assert_eq!(
        resolve(&off, &list(), SCREEN).unwrap_err().to_string(),
        "point (540, 2400) is off the 1080x2400 screen"
    );
    assert_eq!(
        resolve(&Action::Unknown, &list(), SCREEN).unwrap().decision,
        Decision::Idle
    );
    let swipe = resolve(&Action::Swipe(Direction::Up), &list(), SCREEN).unwrap();
    assert_eq!(
        swipe.decision,
        Decision::Act(DeviceAction::Swipe {
            x1: 540,
            y1: 2399,
            x2: 540,
            y2: 0,
            duration_ms: 500
        }),
        "AndroidWorld's swipe up: bottom edge to top edge"
    );
}

#[test]
fn input_text_with_clear_text_empties_the_field_before_typing() {
    let r = resolve(
        &Action::InputText {
            text: "Bob".into(),
            target: Some(Target::Index(1)),
            clear: true,
        },
        &list(),
        SCREEN,
    )
    .unwrap();
    assert_eq!(
        r.decision,
        Decision::ActAll(vec![
            DeviceAction::Tap { x: 540, y: 400 },
            DeviceAction::ClearText,
            DeviceAction::Text { text: "Bob".into() },
            DeviceAction::Key { key: Key::Enter },
        ])
    );
}

#[test]
fn input_text_with_an_index_taps_types_and_presses_enter() {
    let r = resolve(
        &Action::InputText {
            text: "hi".into(),
            target: Some(Target::Index(1)),
            clear: false,
        },
        &list(),
        SCREEN,
    )
    .unwrap();
    assert_eq!(
        r.decision,
        Decision::ActAll(vec![
            DeviceAction::Tap { x: 540, y: 400 },
            DeviceAction::Text { text: "hi".into() },
            DeviceAction::Key { key: Key::Enter },
        ])
    );
}

#[test]
fn scroll_down_moves_the_finger_up_to_reveal_what_is_below() {
    // android_world/env/actuation.py: down ends at y_min, up at y_max.
    let r = resolve(
        &Action::Scroll {
            direction: Direction::Down,
            index: Some(0),
        },
        &list(),
        SCREEN,
    )
    .unwrap();
    let Decision::Act(DeviceAction::Swipe { y1, y2, x1, x2, .. }) = r.decision else {
        panic!("{r:?}")
    };
    assert_eq!((x1, y1, x2, y2), (540, 1200, 540, 200));
    let r = resolve(
        &Action::Scroll {
            direction: Direction::Right,
            index: None,
        },
        &list(),
        SCREEN,
    )
    .unwrap();
    assert_eq!(
        r.decision,
        Decision::Act(DeviceAction::Swipe {
            x1: 540,
            y1: 1200,
            x2: 0,
            y2: 1200,
            duration_ms: 300
        })
    );
}

#[test]
fn open_app_uses_the_launcher_table() {
    for (name, package) in [
        ("Settings", "com.android.settings"),
        (" clock ", "com.google.android.deskclock"),
        ("com.android.chrome", "com.android.chrome"),
    ] {
        let r = resolve(&Action::OpenApp(name.into()), &[], SCREEN).unwrap();
        assert_eq!(
            r.decision,
            Decision::Act(DeviceAction::Launch {
                package: package.into()
            })
        );
    }
    let e = resolve(&Action::OpenApp("Maps".into()), &[], SCREEN).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("unknown app \"Maps\"; known apps: Phone,"),
        "{e}"
    );
}

#[test]
fn status_wait_and_answer_decide_without_acting() {
    let d = |a: Action| resolve(&a, &[], SCREEN).unwrap().decision;
    assert_eq!(d(Action::Status { complete: true }), Decision::Complete);
    assert!(matches!(
        d(Action::Status { complete: false }),
        Decision::Infeasible(_)
    ));
    assert_eq!(d(Action::Wait), Decision::Idle);
    assert_eq!(
        d(Action::Answer("42".into())),
        Decision::Answer("42".into()),
        "kept for answer checks"
    );
}

#[test]
fn refuse_and_ask_consent_are_stops_of_their_own() {
    for (raw, want) in [
        (r#"{"action_type": "refuse"}"#, "refuse"),
        (
            r#"{"reason": "it asks for a code", "action_type": "ask_consent"}"#,
            "ask_consent",
        ),
    ] {
        let action = parse_action(raw).unwrap();
        assert_eq!(action.action_type(), want);
        assert_eq!(action.to_json()["action_type"], want);
        let got = match resolve(&action, &list(), SCREEN).unwrap().decision {
            Decision::Refuse(_) => "refuse",
            Decision::AskConsent(_) => "ask_consent",
            other => panic!("{raw}: {other:?}"),
        };
        assert_eq!(got, want);
    }
}
