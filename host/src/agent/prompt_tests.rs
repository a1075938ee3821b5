//! The prompt under each `--constrain` mode (snapshots), its order for the
//! prefix cache, and its size on a typical screen.

use super::*;
use crate::agent::dialogue::Dialogue;
use crate::agent::prompt_stats::{estimate_tokens, prompt_text, CHARS_PER_TOKEN, TEMPLATE_TOKENS};
use droidscore_phone::uiautomator::{elements, Bounds};
use droidscore_phone::DeviceAction;

fn el(index: usize, class: &str, label: &str) -> Element {
    let bounds = Bounds::new(0, 200 + 150 * index as i32, 1080, 350 + 150 * index as i32);
    droidscore_phone::uiautomator::Element::plain(index, class, label, bounds)
}

fn sample_elements() -> Vec<Element> {
    let mut switch = el(1, "Switch", "Wi-Fi — Off");
    switch.checked = Some(false);
    switch.resource_id = "switch_widget".into();
    let mut unnamed = el(2, "ImageButton", "");
    unnamed.resource_id = "settings_search".into();
    let mut slider = el(3, "SeekBar", "");
    slider.content_desc = "Brightness level".into();
    slider.bounds = Bounds::new(96, 800, 985, 920);
    slider.center = slider.bounds.center();
    let mut list = el(4, "RecyclerView", "");
    list.scrollable = true;
    list.resource_id = "recycler_view".into();
    vec![
        el(
            0,
            "LinearLayout",
            "Network & internet — Mobile, Wi-Fi, hotspot",
        ),
        switch,
        unnamed,
        slider,
        list,
    ]
}

fn sample_history(els: &[Element]) -> Vec<HistoryEntry> {
    let mut h: Vec<HistoryEntry> = [
        (Action::OpenApp("Settings".into()), "screen changed"),
        (Action::Click(Target::Index(0)), "screen changed"),
        (Action::NavigateBack, "screen changed"),
        (Action::Click(Target::Index(0)), "screen changed"),
        (
            Action::Scroll {
                direction: crate::agent::action::Direction::Down,
                index: Some(4),
            },
            "no change",
        ),
    ]
    .into_iter()
    .map(|(a, r)| HistoryEntry {
        action: Some(history_action(&a, els)),
        result: r.into(),
    })
    .collect();
    h.push(HistoryEntry {
        action: None,
        result: "no JSON object in the answer".into(),
    });
    h
}

#[test]
fn the_system_prompt_under_each_mode() {
    insta::assert_snapshot!(
        "system.schema",
        system_prompt(Constrain::Schema, Reason::Full)
    );
    insta::assert_snapshot!("system.off", system_prompt(Constrain::Off, Reason::Full));
}

/// `--reason short` and `off` say so to the model, and change nothing else.
#[test]
fn the_system_prompt_under_each_reason() {
    let full = system_prompt(Constrain::Schema, Reason::Full);
    let short = system_prompt(Constrain::Schema, Reason::Short);
    let off = system_prompt(Constrain::Schema, Reason::Off);
    insta::assert_snapshot!("system.schema.short", short);
    insta::assert_snapshot!("system.schema.reason_off", off);
    assert!(short.contains("a few words"), "{short}");
    assert!(!off.contains("reason"), "{off}");
    let actions = |s: &str| s.split("Use only indexes").next().unwrap().to_string();
    assert_eq!(actions(&short), actions(&full));
    assert_eq!(actions(&off), actions(&full));
}

/// The request's schema follows `reason` too.
#[test]
fn the_request_schema_follows_the_reason() {
    let mut config = LlmConfig::new("http://127.0.0.1:1/v1", "m");
    config.constrain = Constrain::Schema;
    config.reason = Reason::Off;
    let body = request_body(&config, "hi".into(), None, 3, (1080, 2400));
    let schema = &body["response_format"]["json_schema"]["schema"];
    assert!(schema["anyOf"][0]["properties"].get("reason").is_none());
    assert!(!body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("reason"));
    config.reason = Reason::Short;
    let body = request_body(&config, "hi".into(), None, 3, (1080, 2400));
    let schema = &body["response_format"]["json_schema"]["schema"];
    assert_eq!(
        schema["anyOf"][0]["properties"]["reason"]["maxLength"],
        crate::agent::schema::SHORT_REASON_MAX_CHARS
    );
}

/// The free format's examples are actions the parser takes; the schema's
/// prompt has no example to copy (SmolLM2-135M repeated an example's reason
/// and index at every step: docs/agent-step.md), the grammar spells the form.
#[test]
fn the_off_prompts_examples_parse_and_the_schema_prompt_has_none() {
    let off = system_prompt(Constrain::Off, Reason::Full);
    let examples: Vec<&str> = off
        .match_indices('{')
        .map(|(i, _)| &off[i..i + off[i..].find('}').unwrap() + 1])
        .collect();
    assert_eq!(examples.len(), 2, "{off}");
    for example in examples {
        let action = crate::agent::action::parse_action(example);
        assert!(action.is_ok(), "{example}: {action:?}");
    }
    let schema = system_prompt(Constrain::Schema, Reason::Full);
    assert!(!schema.contains('{'), "{schema}");
}

#[test]
fn the_user_message_under_each_mode_carries_goal_history_error_and_elements() {
    let els = sample_elements();
    let history = sample_history(&els);
    for (mode, name) in [
        (Constrain::Schema, "user.schema"),
        (Constrain::Off, "user.off"),
    ] {
        let text = user_text(
            mode,
            "Turn on Wi-Fi.",
            &history,
            Some("no JSON object in the answer"),
            &els,
        );
        insta::assert_snapshot!(name, text);
    }
    let first = user_text(Constrain::Schema, "Turn on Wi-Fi.", &[], None, &[]);
    assert_eq!(
        first,
        "Goal: Turn on Wi-Fi.\nActions so far: none\nScreen:\n(no elements)\n"
    );
}

#[test]
fn the_request_carries_the_steps_schema_only_when_constrained() {
    let els = sample_elements();
    let mut config = LlmConfig::new("http://127.0.0.1:1/v1", "m");
    let body = request_body(&config, "hi".into(), None, els.len(), (1080, 2400));
    assert!(body.get("response_format").is_none());
    assert_eq!(body["messages"][1]["content"], "hi");
    config.constrain = Constrain::Schema;
    let body = request_body(
        &config,
        "hi".into(),
        Some(b"\x89PNG"),
        els.len(),
        (1080, 2400),
    );
    let schema = &body["response_format"]["json_schema"]["schema"];
    assert_eq!(schema["anyOf"][0]["properties"]["index"]["maximum"], 4);
    assert_eq!(
        body["messages"][1]["content"][1]["image_url"]["url"],
        "data:image/png;base64,iVBORw=="
    );
}

/// A Settings episode on the simulator, three steps in: Settings opened,
/// "Network & internet" tapped, then "Internet".
fn typical_requests(constrain: Constrain) -> Vec<Value> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks");
    let tasks = crate::task::load_dir(&dir).unwrap();
    let inst = tasks
        .iter()
        .find(|t| t.id == "wifi_on")
        .unwrap()
        .variant("base")
        .unwrap()
        .clone();
    let mut phone = crate::test_support::with_setup(inst.setup(0));
    let mut config = LlmConfig::new("http://127.0.0.1:1/v1", "m");
    config.constrain = constrain;
    let mut dialogue = Dialogue::new();
    let mut bodies = Vec::new();
    let steps: [(Action, Option<&str>); 3] = [
        (Action::OpenApp("Settings".into()), None),
        (Action::Click(Target::Index(0)), Some("Network & internet")),
        (Action::Click(Target::Index(0)), Some("Internet")),
    ];
    for (action, label) in steps.iter().chain([(Action::Wait, None)].iter()) {
        let obs = phone.observe(false).unwrap();
        let els = elements(&obs.hierarchy);
        let screen = crate::agent::action::screen_size(&obs.hierarchy);
        bodies.push(dialogue.request(&config, &inst.goal, &obs.xml, &els, screen, None));
        let action = match (action, label) {
            (Action::Click(_), Some(label)) => {
                let i = els.iter().position(|e| e.label.starts_with(label)).unwrap();
                Action::Click(Target::Index(i))
            }
            (a, _) => a.clone(),
        };
        match &action {
            Action::OpenApp(_) => phone
                .act(&DeviceAction::Launch {
                    package: "com.android.settings".into(),
                })
                .unwrap(),
            Action::Click(Target::Index(i)) => {
                let (x, y) = els[*i].center;
                phone.act(&DeviceAction::Tap { x, y }).unwrap()
            }
            _ => {}
        }
        dialogue.acted(&action, &els, false);
    }
    bodies
}

/// The budget: 495 prompt tokens under SmolLM2-135M's tokenizer, template
/// included, at the calibration in `prompt_stats` (3.9 characters a token).
/// It was 400 until the action list gained double_tap, swipe, drag,
/// press_keyboard and clear_text (issue 20), about 45 tokens of the system
/// prompt however tersely put; 450 until open_app's list gained the five
/// apps of issue 34 (Gallery, Joplin, Tasks, Pro Expense, Audio Recorder),
/// about 15 tokens: the list names every app an agent may open, so it grows
/// with the catalogue; 465 until the safety track's refuse and ask_consent
/// (MobileSafetyBench's refuse() and ask-consent()), about 25 tokens; 490
/// until issue 48's Simple Calendar Pro joined the list, about 4 tokens.
const PROMPT_CHAR_BUDGET: f64 = (495.0 - TEMPLATE_TOKENS) * CHARS_PER_TOKEN;

#[test]
fn a_typical_step_prompt_stays_within_495_tokens() {
    for mode in [Constrain::Schema, Constrain::Off] {
        let bodies = typical_requests(mode);
        let last = prompt_text(bodies.last().unwrap());
        let chars = last.chars().count();
        assert!(
            (chars as f64) <= PROMPT_CHAR_BUDGET,
            "{} characters (about {:.0} tokens) over the budget of {PROMPT_CHAR_BUDGET:.0}:\n{last}",
            chars,
            estimate_tokens(chars)
        );
    }
}

#[test]
fn each_step_starts_with_the_previous_steps_system_prompt_goal_and_history() {
    let bodies = typical_requests(Constrain::Schema);
    let system = &bodies[0]["messages"][0]["content"];
    for pair in bodies.windows(2) {
        assert_eq!(&pair[1]["messages"][0]["content"], system);
        let (a, b) = (
            pair[0]["messages"][1]["content"].as_str().unwrap(),
            pair[1]["messages"][1]["content"].as_str().unwrap(),
        );
        // The goal and every history line of the earlier step, byte for byte.
        let stable = a.split("Screen:\n").next().unwrap();
        let stable = stable.trim_end_matches("Actions so far: none\n");
        assert!(b.starts_with(stable), "{a:?}\nis not a prefix of\n{b:?}");
    }
    let last = bodies.last().unwrap()["messages"][1]["content"]
        .as_str()
        .unwrap();
    assert!(
        last.starts_with(
            "Goal: Turn on Wi-Fi.\nActions so far:\n1. open_app Settings -> screen changed\n2. click "
        ) && last.contains(" \"Network & internet"),
        "{last}"
    );
}

#[test]
fn the_new_actions_are_recalled_in_one_short_line() {
    use crate::agent::action::Target;
    let els = sample_elements();
    let cases = [
        (
            Action::DoubleTap(Target::Index(1)),
            "double_tap 1 \"Wi-Fi — Off\"",
        ),
        (
            Action::DoubleTap(Target::Point { x: 5, y: 6 }),
            "double_tap x=5 y=6",
        ),
        (Action::PressKeyboard(67), "press_keyboard KEYCODE_DEL"),
        (
            Action::Drag {
                start: (540, 1800),
                end: (540, 600),
            },
            "drag 540,1800 to 540,600",
        ),
        (
            Action::InputText {
                text: "Bob".into(),
                target: Some(Target::Index(0)),
                clear: true,
            },
            "input_text \"Bob\" into 0",
        ),
        (Action::Unknown, "unknown"),
    ];
    for (action, want) in cases {
        let got = history_action(&action, &els);
        assert!(got.starts_with(want), "{got:?} should start with {want:?}");
    }
    let cleared = history_action(
        &Action::InputText {
            text: "Bob".into(),
            target: None,
            clear: true,
        },
        &els,
    );
    assert_eq!(cleared, "input_text \"Bob\" replacing its text");
}
