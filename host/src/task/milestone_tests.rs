//! Milestones: declared ones checked at load, derived ones from the
//! solution and oracle, and the tracker's in-order and any-order counts.

use super::*;
use crate::task::{Task, TaskError};

/// A Wi-Fi task; `extra` goes before the variants (`[[milestone]]` tables).
fn wifi(test: &str, extra: &str) -> Result<Task, TaskError> {
    // Only the message after the path is compared: the path is a temp dir.
    crate::task::test_tasks::wifi_off_with(&format!("milestone-{test}"), extra)
}

fn message(e: TaskError) -> String {
    e.problem.to_string()
}

#[test]
fn a_constraint_is_refused_as_a_milestone_naming_the_field() {
    for kind in ["unchanged", "no_flips", "answer"] {
        let extra = format!("[[milestone]]\ncheck = \"{kind}\"\nequals = \"x\"\n");
        let e = message(wifi(kind, &extra).unwrap_err());
        assert_eq!(
            e,
            format!(
                "variant \"base\": milestone[0].check: \"{kind}\" constrains a whole episode, \
                 it is no state to reach; a milestone is one of setting, app, record, ui, foreground"
            )
        );
    }
}

#[test]
fn a_ui_milestone_that_opens_a_screen_is_refused() {
    let extra = "[[milestone]]\ncheck = \"ui\"\nopen = \"android.settings.WIFI_SETTINGS\"\nselect = { text = \"Wi-Fi\" }\n";
    let e = message(wifi("open", extra).unwrap_err());
    assert_eq!(
        e,
        "variant \"base\": milestone[0].open: a milestone is read from the screen the agent is on, \
         so it cannot open another (drop open, or make it an oracle check)"
    );
}

#[test]
fn a_milestone_key_the_phone_lacks_is_refused_and_an_oracle_name_too() {
    let extra = "[[milestone]]\ncheck = \"setting\"\nkey = \"global/wifi_onn\"\nequals = \"0\"\n";
    let e = message(wifi("key", extra).unwrap_err());
    assert_eq!(
        e,
        "variant \"base\": milestone[0].key: \"global/wifi_onn\" is not a state key this phone has"
    );
    let extra =
        "[[oracle]]\nname = \"x\"\ncheck = \"setting\"\nkey = \"global/wifi_on\"\nequals = \"0\"\n";
    let e = message(wifi("named-oracle", extra).unwrap_err());
    assert_eq!(
        e,
        "variant \"base\": oracle[1].name: only a [[milestone]] has a name"
    );
}

#[test]
fn declared_milestones_replace_the_derived_ones_and_keep_their_names() {
    let extra = "[[milestone]]\nname = \"Settings open\"\ncheck = \"foreground\"\nequals = \"com.android.settings\"\n\
                 [[milestone]]\ncheck = \"ui\"\nselect = { text = \"Wi-Fi\" }\n";
    let task = wifi("declared", extra).unwrap();
    let names: Vec<&str> = task.variants[0]
        .milestones
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(names, ["Settings open", "some node {text=\"Wi-Fi\"}"]);
    assert!(task.variants[0]
        .milestones
        .iter()
        .all(|m| m.source == Source::Declared));
}

/// The app launched, the screens of the two taps after a tap (the first
/// tap is on the app's first screen), then the oracle's check.
#[test]
fn milestones_are_derived_from_the_solution_and_the_oracle() {
    let task = wifi("derived", "").unwrap();
    let m = &task.variants[0].milestones;
    let names: Vec<&str> = m.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "com.android.settings in the foreground",
            "on screen: {text=\"Internet\", row}",
            "on screen: {text=\"Wi-Fi\", row}",
            "global/wifi_on = 0",
        ]
    );
    let sources: Vec<Source> = m.iter().map(|m| m.source).collect();
    assert_eq!(
        sources,
        [Source::App, Source::Screen, Source::Screen, Source::Oracle]
    );
}

/// An oracle check that holds at the start guards what must stay; it is
/// no sub-goal, so it is not derived.
#[test]
fn a_guard_check_true_at_the_start_is_not_a_derived_milestone() {
    let extra =
        "[[oracle]]\ncheck = \"setting\"\nkey = \"global/airplane_mode_on\"\nequals = \"0\"\n";
    let task = wifi("guard", extra).unwrap();
    let names: Vec<&str> = task.variants[0]
        .milestones
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert!(!names.contains(&"global/airplane_mode_on = 0"), "{names:?}");
    assert!(names.contains(&"global/wifi_on = 0"), "{names:?}");
}

/// In order is a prefix: the second milestone reached before the first
/// counts at all, not in order, until it holds again at or after the first.
#[test]
fn the_tracker_counts_a_prefix_in_order_and_every_milestone_at_all() {
    let extra = "[[milestone]]\ncheck = \"ui\"\nselect = { text = \"Wi-Fi\" }\n\
                 [[milestone]]\ncheck = \"foreground\"\nequals = \"com.android.settings\"\n";
    let task = wifi("tracker", extra).unwrap();
    let inst = &task.variants[0];
    let mut phone = crate::test_support::with_setup(inst.setup(0));
    let mut solver = crate::agent::Solver::new(inst.solution.clone());
    let mut tracker = Tracker::new(inst.milestones.len());
    let mut seen = Vec::new();
    for step in 1..=3 {
        let screen = phone.observe(false).unwrap();
        match crate::agent::Agent::next(&mut solver, "", &screen) {
            crate::agent::Decision::Act(action) => phone.act(&action).unwrap(),
            other => panic!("the solver acts: {other:?}"),
        }
        let screen = phone.observe(false).unwrap();
        tracker.update(&inst.milestones, phone.as_mut(), &screen, step);
        seen.push((tracker.reached_in_order(), tracker.reached_any()));
    }
    // Settings in front from step 1; the Wi-Fi row from step 3 (Internet).
    assert_eq!(seen, [(0, 1), (0, 1), (2, 2)]);
    assert_eq!(tracker.reached_at(), [Some(3), Some(3)]);
}
