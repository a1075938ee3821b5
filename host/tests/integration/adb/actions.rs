//! Issue 20's action space on both backends: each action type, as a model
//! answers it (AndroidWorld's JSON, MobileWorld's `drag`), parsed and
//! resolved against the screen, then done on the in-process simulator and
//! through the real `adb` server on `droidscore sim serve` (the adb backend
//! sends `input tap … && input tap …`, `input draganddrop`, `input
//! keyevent N`, `input keycombination 113 29 && input keyevent 67`). After
//! every step both phones must show the same dump, and at the end hold the
//! same records. Fails, not passes, without `adb`.

use droidscore::agent::{parse_action, resolve, Decision};
use droidscore::run::backend::{prepare_adb_phone, Prepared};
use droidscore::task::{self, Task};
use droidscore_phone::adb::{AdbOptions, AdbPhone, ServerTransport};
use droidscore_phone::records::Table;
use droidscore_phone::sim::SimPhone;
use droidscore_phone::uiautomator::{elements, Element};
use droidscore_phone::Phone;

use super::rig::phone;
use crate::support::{root, TestEnv};

/// A model's answer on a screen: JSON with `{i}` (the index), `{x}` and
/// `{y}` (the centre) of the element named `label` (or `label — summary`).
struct Step {
    json: &'static str,
    label: Option<&'static str>,
}

fn fixed(json: &'static str) -> Step {
    Step { json, label: None }
}

fn on(label: &'static str, json: &'static str) -> Step {
    Step {
        json,
        label: Some(label),
    }
}

fn answer(step: &Step, els: &[Element]) -> String {
    let Some(label) = step.label else {
        return step.json.to_string();
    };
    let e = els
        .iter()
        .find(|e| {
            [&e.label, &e.content_desc, &e.hint]
                .iter()
                .any(|s| s.as_str() == label || s.starts_with(&format!("{label} — ")))
        })
        .unwrap_or_else(|| {
            panic!(
                "no element {label:?} on\n{}",
                droidscore_phone::uiautomator::render(els)
            )
        });
    step.json
        .replace("{i}", &e.index.to_string())
        .replace("{x}", &e.center.0.to_string())
        .replace("{y}", &e.center.1.to_string())
}

/// Do the decision on a phone, as the episode loop does.
fn perform(phone: &mut dyn Phone, decision: &Decision) {
    match decision {
        Decision::Act(a) => phone.act(a).unwrap(),
        Decision::ActAll(all) => all.iter().for_each(|a| phone.act(a).unwrap()),
        Decision::Idle => {}
        other => panic!("unexpected decision {other:?}"),
    }
}

fn scenarios() -> Vec<(&'static str, Vec<Step>)> {
    vec![
        (
            "double_tap",
            vec![
                fixed(r#"{"action_type":"open_app","app_name":"Contacts"}"#),
                on("Create contact", r#"{"action_type":"click","index":{i}}"#),
                fixed(r#"{"action_type":"input_text","text":"Zoe"}"#),
                // Two taps at one point: on a text field, its text is selected…
                on("Zoe", r#"{"action_type":"double_tap","index":{i}}"#),
                // … and what is typed replaces it.
                fixed(r#"{"action_type":"input_text","text":"Ann"}"#),
                on("Save", r#"{"action_type":"click","x":{x},"y":{y}}"#),
            ],
        ),
        (
            "double_tap on a switch",
            vec![
                fixed(r#"{"action_type":"open_app","app_name":"Settings"}"#),
                on(
                    "Network & internet",
                    r#"{"action_type":"click","index":{i}}"#,
                ),
                on(
                    "Airplane mode",
                    r#"{"action_type":"double_tap","x":{x},"y":{y}}"#,
                ),
            ],
        ),
        (
            "press_keyboard",
            vec![
                fixed(r#"{"action_type":"open_app","app_name":"Contacts"}"#),
                on("Create contact", r#"{"action_type":"click","index":{i}}"#),
                fixed(r#"{"action_type":"input_text","text":"Zoey"}"#),
                fixed(r#"{"action_type":"press_keyboard","keycode":"KEYCODE_DEL"}"#),
                fixed(r#"{"action_type":"press_keyboard","keycode":"KEYCODE_MOVE_HOME"}"#),
                fixed(r#"{"action_type":"press_keyboard","keycode":"KEYCODE_FORWARD_DEL"}"#),
                fixed(r#"{"action_type":"press_keyboard","keycode":"KEYCODE_Z"}"#),
                fixed(r#"{"action_type":"press_keyboard","keycode":"KEYCODE_DPAD_RIGHT"}"#),
                fixed(r#"{"action_type":"press_keyboard","keycode":"KEYCODE_MOVE_END"}"#),
                fixed(r#"{"action_type":"press_keyboard","keycode":"KEYCODE_TAB"}"#),
                fixed(r#"{"action_type":"input_text","text":"Quinn"}"#),
                fixed(r#"{"action_type":"press_keyboard","keycode":"KEYCODE_VOLUME_UP"}"#),
                on("Save", r#"{"action_type":"click","index":{i}}"#),
                fixed(r#"{"action_type":"press_keyboard","keycode":"KEYCODE_BACK"}"#),
            ],
        ),
        (
            "clear_text",
            vec![
                fixed(r#"{"action_type":"open_app","app_name":"Contacts"}"#),
                on("Create contact", r#"{"action_type":"click","index":{i}}"#),
                fixed(r#"{"action_type":"input_text","text":"Zoe"}"#),
                on(
                    "Zoe",
                    r#"{"action_type":"input_text","text":"Priya","index":{i},"clear_text":true}"#,
                ),
                on("Save", r#"{"action_type":"click","index":{i}}"#),
            ],
        ),
        (
            "drag, swipe, unknown",
            vec![
                fixed(r#"{"action_type":"open_app","app_name":"Settings"}"#),
                fixed(
                    r#"{"action_type":"drag","start_x":540,"start_y":1900,"end_x":540,"end_y":900}"#,
                ),
                fixed(r#"{"action_type":"unknown"}"#),
                fixed(r#"{"action_type":"swipe","direction":"down"}"#),
            ],
        ),
        (
            "drag from a row with a menu",
            vec![
                fixed(r#"{"action_type":"open_app","app_name":"Files"}"#),
                on("Download", r#"{"action_type":"click","index":{i}}"#),
                on(
                    "menu.pdf",
                    r#"{"action_type":"drag","start_x":{x},"start_y":{y},"end_x":{x},"end_y":600}"#,
                ),
                on("Rename", r#"{"action_type":"click","index":{i}}"#),
                fixed(r#"{"action_type":"input_text","text":"lunch.pdf","clear_text":true}"#),
                on("OK", r#"{"action_type":"click","index":{i}}"#),
            ],
        ),
    ]
}

#[test]
fn each_action_type_reaches_the_same_state_on_the_simulator_and_through_adb() {
    let env = TestEnv::new("adb-actions");
    let (adb, served) = phone(&env);
    let mut over_adb = AdbPhone::new(
        Box::new(ServerTransport::new(adb.address(), &served.addr)),
        AdbOptions::default(),
    )
    .unwrap();
    assert!(over_adb.is_virtual());
    let suite: Vec<Task> = task::load_dir(&root().join("tasks")).unwrap();
    let inst = suite
        .iter()
        .find(|t| t.id == "contact_create")
        .unwrap()
        .variant("base")
        .unwrap();
    let mut table = String::from("scenario\tstep\tanswer\tsame dump\n");
    for (name, steps) in scenarios() {
        assert!(matches!(
            prepare_adb_phone(&mut over_adb, inst, 0).unwrap(),
            Prepared::Ready
        ));
        let mut sim = SimPhone::new(inst.setup(0)).unwrap();
        for (n, step) in steps.iter().enumerate() {
            let seen = sim.observe(false).unwrap();
            let els = elements(&seen.hierarchy);
            let json = answer(step, &els);
            let action = parse_action(&json).unwrap_or_else(|e| panic!("{name}: {json}: {e}"));
            let screen = droidscore::agent::action::screen_size(&seen.hierarchy);
            let resolved = resolve(&action, &els, screen).unwrap();
            perform(&mut sim, &resolved.decision);
            perform(&mut over_adb, &resolved.decision);
            let (on_sim, on_adb) = (
                sim.observe(false).unwrap(),
                over_adb.observe(false).unwrap(),
            );
            assert_eq!(
                on_adb.hierarchy, on_sim.hierarchy,
                "{name}, step {n} ({json}): the dumps differ"
            );
            assert_eq!(on_adb.foreground, on_sim.foreground);
            table.push_str(&format!("{name}\t{n}\t{json}\tyes\n"));
        }
        // The columns the actions wrote. (`type` differs: the virtual
        // phone's contacts provider answers a default phone type for a
        // contact saved without a number, the simulator's store has none.)
        for (t, columns) in [
            (Table::Contacts, &["display_name", "number", "email"][..]),
            (Table::Files, &["path"][..]),
        ] {
            let cells = |phone: &mut dyn Phone| -> Vec<Vec<String>> {
                let rows = phone.records(t).unwrap();
                let mut cells: Vec<Vec<String>> = rows
                    .iter()
                    .map(|r| columns.iter().map(|c| r.text(c)).collect())
                    .collect();
                // `find` lists files in directory order, the store by id.
                cells.sort();
                cells
            };
            assert_eq!(
                cells(&mut over_adb),
                cells(&mut sim),
                "{name}: {t} records differ"
            );
        }
        for key in ["global/airplane_mode_on", "global/wifi_on"] {
            let key = key.parse().unwrap();
            assert_eq!(
                over_adb.read_setting(&key).unwrap(),
                sim.read_setting(&key).unwrap(),
                "{name}: {key}"
            );
        }
        table.push_str(&format!("{name}\t-\tcontacts, files, settings\tsame\n"));
    }
    println!("{table}");
}

/// What each action type changed, so the comparison above cannot pass on
/// two phones that both ignored it.
#[test]
fn the_actions_compared_do_change_the_simulator() {
    let suite: Vec<Task> = task::load_dir(&root().join("tasks")).unwrap();
    let inst = suite
        .iter()
        .find(|t| t.id == "contact_create")
        .unwrap()
        .variant("base")
        .unwrap();
    for (name, steps) in scenarios() {
        let mut sim = SimPhone::new(inst.setup(0)).unwrap();
        let mut changed = 0;
        for step in &steps {
            let seen = sim.observe(false).unwrap();
            let els = elements(&seen.hierarchy);
            let json = answer(step, &els);
            let resolved = resolve(
                &parse_action(&json).unwrap(),
                &els,
                droidscore::agent::action::screen_size(&seen.hierarchy),
            )
            .unwrap();
            perform(&mut sim, &resolved.decision);
            let after = sim.observe(false).unwrap().xml;
            // Nothing to see: a step that does nothing, a key no view
            // takes, a caret move or the selection a double tap makes in a
            // field (a dump shows neither) and a switch flipped and back.
            // AndroidWorld's edge-to-edge swipe starts on the status bar,
            // where Android pulls the shade down, and so does the simulator.
            // The records below show what the others did.
            let unseen = ["unknown", "VOLUME_UP", "double_tap", "MOVE_", "DPAD_"]
                .iter()
                .any(|w| json.contains(w));
            assert_eq!(after == seen.xml, unseen, "{name}: {json}");
            changed += usize::from(after != seen.xml);
        }
        assert!(changed > 0, "{name}");
        let contacts = sim.records(Table::Contacts).unwrap();
        let names: Vec<String> = contacts.iter().map(|r| r.text("display_name")).collect();
        match name {
            "double_tap" => assert!(names.contains(&"Ann".into()), "{names:?}"),
            "double_tap on a switch" => {
                let flips: Vec<&str> = sim
                    .flip_history()
                    .unwrap()
                    .iter()
                    .map(|f| f.key.as_str())
                    .collect();
                assert_eq!(flips, ["global/airplane_mode_on"; 2], "on, then off again");
            }
            // "Zoey", DEL, HOME, FORWARD_DEL, KEYCODE_Z (no shift: "z"), TAB.
            "press_keyboard" => assert!(names.contains(&"zoe Quinn".into()), "{names:?}"),
            "clear_text" => assert!(names.contains(&"Priya".into()), "{names:?}"),
            "drag from a row with a menu" => {
                let files = sim.records(Table::Files).unwrap();
                assert!(files.iter().any(|r| r.text("path") == "Download/lunch.pdf"));
            }
            _ => {}
        }
    }
}
