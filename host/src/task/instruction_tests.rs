use super::*;
use crate::task::{Suite, Task};

fn suite() -> Vec<Task> {
    Suite::Embedded.load().expect("the built-in suite loads")
}

fn instructions(tasks: &[Task], task: &str, variant: &str) -> Vec<String> {
    let task = tasks.iter().find(|t| t.id == task).expect("task exists");
    let instance = task.variant(variant).expect("variant exists");
    step_instructions(instance).unwrap()
}

#[test]
fn the_base_variant_names_each_row_as_its_screen_shows_it() {
    let tasks = suite();
    assert_eq!(
        instructions(&tasks, "wifi_on", "base"),
        [
            "Open Settings",
            "Tap Network & internet",
            "Tap Internet",
            "Tap Wi-Fi"
        ]
    );
}

/// A renamed variant's instructions use its own labels: "Tap WLAN".
#[test]
fn a_renamed_variant_says_its_own_labels() {
    let tasks = suite();
    assert_eq!(
        instructions(&tasks, "wifi_on", "renamed"),
        [
            "Open Settings",
            "Tap Network & internet",
            "Tap Internet & WLAN",
            "Tap WLAN"
        ]
    );
}

/// Reordered rows are the same rows: the same instructions.
#[test]
fn a_reordered_variant_names_the_same_rows() {
    let tasks = suite();
    assert_eq!(
        instructions(&tasks, "wifi_on", "reordered"),
        instructions(&tasks, "wifi_on", "base")
    );
}

/// A decoy variant names the real target, never the decoy beside it.
#[test]
fn a_decoy_variant_names_the_real_target() {
    let tasks = suite();
    let decoy = instructions(&tasks, "wifi_on", "decoy");
    assert_eq!(decoy.last().map(String::as_str), Some("Tap Wi-Fi"));
    assert!(!decoy.iter().any(|s| s.contains("calling")), "{decoy:?}");
}

/// Typed text is quoted and the field is named by its hint.
#[test]
fn a_typed_step_quotes_the_text_and_names_the_field() {
    let tasks = suite();
    let task = tasks.iter().find(|t| t.id == "sms_reply").unwrap();
    let base = task.variant("base").unwrap();
    let body = &base.params["body"];
    let got = step_instructions(base).unwrap();
    assert_eq!(got[2], "Tap the Text message field");
    assert_eq!(got[3], format!("Type “{body}” in the Text message field"));
    // The renamed variant calls the field what its hint says there.
    let renamed = step_instructions(task.variant("renamed").unwrap()).unwrap();
    assert_eq!(renamed[3], format!("Type “{body}” in the Message field"));
}

/// `instruction = "…"` on a step replaces the written text, params filled in.
#[test]
fn a_step_may_override_its_instruction() {
    let env = droidscore_testenv::TestEnv::new("instruction-override");
    let path = env.join("own.toml");
    std::fs::write(
        &path,
        r#"id = "own"
app = "com.android.settings"
goal = "Turn on {thing}."
[params]
thing = "Wi-Fi"
[initial]
"global/wifi_on" = "0"
[[oracle]]
check = "setting"
key = "global/wifi_on"
any_of = ["1"]
[[variant]]
id = "base"
[[solution]]
launch = "com.android.settings"
[[solution]]
tap = { text = "Network & internet", row = true }
instruction = "Go to the network settings for {thing}"
"#,
    )
    .unwrap();
    let task = crate::task::load_file(&path).unwrap();
    assert_eq!(
        step_instructions(&task.variants[0]).unwrap(),
        ["Open Settings", "Go to the network settings for Wi-Fi"]
    );
}

/// An intent names the screen it opened and its app.
#[test]
fn an_opened_screen_is_named_by_its_title_and_app() {
    let env = droidscore_testenv::TestEnv::new("instruction-open");
    let path = env.join("opened.toml");
    std::fs::write(
        &path,
        r#"id = "opened"
app = "com.android.settings"
goal = "Turn on Wi-Fi."
[initial]
"global/wifi_on" = "0"
[[oracle]]
check = "setting"
key = "global/wifi_on"
any_of = ["1"]
[[variant]]
id = "base"
[[solution]]
open = "android.settings.WIFI_SETTINGS"
[[solution]]
key = "back"
"#,
    )
    .unwrap();
    let task = crate::task::load_file(&path).unwrap();
    let got = step_instructions(&task.variants[0]).unwrap();
    assert!(
        got[0].starts_with("Open ") && got[0].ends_with(" in Settings"),
        "{got:?}"
    );
    assert_eq!(got[1], "Go back");
}

/// An `instruction` that is not text is refused naming its field; one
/// alone is no step.
#[test]
fn a_bad_instruction_is_refused_naming_the_field() {
    let env = droidscore_testenv::TestEnv::new("instruction-bad");
    let head = r#"id = "bad"
app = "com.android.settings"
goal = "g"
[[oracle]]
check = "setting"
key = "global/wifi_on"
any_of = ["1"]
[[variant]]
id = "base"
[[solution]]
launch = "com.android.settings"
"#;
    let path = env.join("bad.toml");
    std::fs::write(&path, format!("{head}instruction = 3\n")).unwrap();
    let e = crate::task::load_file(&path).unwrap_err().to_string();
    assert!(e.contains("solution[0].instruction"), "{e}");
    std::fs::write(
        &path,
        format!("{head}[[solution]]\ninstruction = \"Tap Wi-Fi\"\n"),
    )
    .unwrap();
    let e = crate::task::load_file(&path).unwrap_err().to_string();
    assert!(
        e.contains("solution[1]: a step needs exactly one of"),
        "{e}"
    );
}

#[test]
fn a_step_instruction_is_a_labelled_line_after_the_goal() {
    assert_eq!(
        goal_with_instruction("Turn on Wi-Fi.", "Tap Internet"),
        "Turn on Wi-Fi.\nStep instruction: Tap Internet"
    );
}

fn owned(steps: &[&str]) -> Vec<String> {
    steps.iter().map(|s| s.to_string()).collect()
}

#[test]
fn online_the_instruction_leads_to_the_next_unreached_milestone() {
    let steps = owned(&[
        "Open Messages",
        "Tap Ana Diaz",
        "Tap the Text message field",
        "Type “hi” in the Text message field",
        "Tap Send SMS",
    ]);
    // Milestones: the app is open (after step 1), the chat (after 2), the
    // message sent (after 5).
    let milestones = [1, 2, 5];
    assert_eq!(
        online_instruction(&steps, &milestones, 0).as_deref(),
        Some("Open Messages")
    );
    assert_eq!(
        online_instruction(&steps, &milestones, 1).as_deref(),
        Some("Tap Ana Diaz")
    );
    assert_eq!(
        online_instruction(&steps, &milestones, 2).as_deref(),
        Some(
            "Tap the Text message field, then type “hi” in the Text message field, \
             then tap Send SMS"
        )
    );
    assert_eq!(
        online_instruction(&steps, &milestones, 3),
        None,
        "all reached"
    );
    assert_eq!(online_instruction(&steps, &milestones, 9), None);
}

#[test]
fn online_without_milestones_the_whole_solution_is_one_stretch() {
    let steps = owned(&["Open Settings", "Tap Display"]);
    assert_eq!(
        online_instruction(&steps, &[], 0).as_deref(),
        Some("Open Settings, then tap Display")
    );
    assert_eq!(online_instruction(&steps, &[], 1), None);
    assert_eq!(online_instruction(&[], &[1], 0), None);
}

/// Two milestones that first hold after the same step (the screen reached
/// and a setting it shows): the step after them is still shown.
#[test]
fn online_milestones_reached_by_one_step_show_the_next_step() {
    let steps = owned(&["Open Settings", "Tap Display", "Tap Dark theme"]);
    assert_eq!(
        online_instruction(&steps, &[1, 1, 3], 1).as_deref(),
        Some("Tap Display")
    );
    assert_eq!(
        online_instruction(&steps, &[1, 1, 3], 2).as_deref(),
        Some("Tap Display, then tap Dark theme")
    );
}

/// Every variant of every built-in task has one instruction a step, none
/// empty; with `DROIDSCORE_INSTRUCTIONS_OUT` set, each template's
/// base-variant instructions are written there for a person to read.
#[test]
fn every_built_in_variant_has_an_instruction_a_step() {
    let tasks = suite();
    let mut listing = String::new();
    for task in &tasks {
        for instance in &task.variants {
            let got = step_instructions(instance).unwrap();
            assert_eq!(got.len(), instance.solution.len(), "{}", task.id);
            for (i, text) in got.iter().enumerate() {
                assert!(
                    text.len() > 4 && !text.ends_with(' '),
                    "{} {} step {}: {text:?}",
                    task.id,
                    instance.variant.id,
                    i + 1
                );
            }
            if instance.variant.id == task.variants[0].variant.id {
                listing.push_str(&format!("{}  goal: {}\n", task.id, instance.goal));
                for (i, text) in got.iter().enumerate() {
                    listing.push_str(&format!("  {}. {text}\n", i + 1));
                }
            }
        }
    }
    if let Ok(path) = std::env::var("DROIDSCORE_INSTRUCTIONS_OUT") {
        std::fs::write(path, listing).unwrap();
    }
}

/// The episode seed sets the clock, and the instructions are written from
/// that episode's screens; no built-in task's instructions name a time that
/// moves with it, so seed 0's serve every episode of the suite.
#[test]
fn no_built_in_instruction_changes_with_the_episode_seed() {
    let tasks = suite();
    let mut differ = Vec::new();
    for task in &tasks {
        for instance in &task.variants {
            let at0 = step_instructions(instance).unwrap();
            for seed in [7, 1000] {
                let other = step_instructions_at(instance, seed).unwrap();
                if other != at0 {
                    differ.push(format!(
                        "{} {} seed {seed}: {other:?} against {at0:?}",
                        task.id, instance.variant.id
                    ));
                }
            }
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
}
