//! The phone-side trajectory: what it logs of each command, the budget it
//! enforces, and the controls it hides while an agent's episode runs.
use super::trajectory::Kind;
use super::VirtualPhone;

fn phone() -> VirtualPhone {
    let phone = VirtualPhone::new(super::test_support::TestSetups).unwrap();
    phone.load("wifi_on", "base", 0).unwrap();
    phone
}

#[test]
fn each_command_is_logged_with_its_kind_and_each_action_with_its_screens_and_step() {
    let phone = phone();
    let steps = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = steps.clone();
    phone.start_trajectory(
        Some(5),
        Some(Box::new(move |_sim, _now, step| {
            seen.lock().unwrap().push(step)
        })),
    );
    for line in [
        "uiautomator dump /sdcard/window_dump.xml",
        "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1",
        "getprop ro.build.version.sdk",
        "screencap -p /sdcard/s.png",
        "settings get global wifi_on",
        "input keyevent KEYCODE_HOME",
        "rm /sdcard/s.png",
    ] {
        phone.run(line);
    }
    let t = phone.trajectory().unwrap();
    let kinds: Vec<Kind> = t.entries.iter().map(|e| e.kind).collect();
    use Kind::*;
    assert_eq!(
        kinds,
        [
            Observation,
            Action,
            Query,
            Observation,
            Query,
            Action,
            Other
        ]
    );
    assert_eq!((t.actions, t.observations, t.over_budget), (2, 2, false));
    let monkey = &t.entries[1];
    assert_eq!(monkey.step, Some(1));
    assert_eq!(monkey.argv[0], "monkey");
    // The launcher before, Settings after.
    assert_ne!(monkey.before, monkey.after);
    assert!(monkey.before_xml.as_deref().unwrap().contains("launcher"));
    // Only a dump before it: the step keeps no picture.
    assert!(monkey.before_png.is_none());
    let home = &t.entries[5];
    assert_eq!(home.step, Some(2));
    // A screencap came before it: the step keeps the screen as a picture.
    assert!(home
        .before_png
        .as_ref()
        .is_some_and(|png| png.starts_with(b"\x89PNG")));
    assert_eq!(home.before, monkey.after, "nothing acted between them");
    assert_eq!(*steps.lock().unwrap(), [1, 2], "the hook saw each step");
    // Entries are in time order.
    assert!(t.entries.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
}

#[test]
fn the_action_after_the_budget_is_refused_not_run_and_the_episode_is_over() {
    let phone = phone();
    phone.start_trajectory(Some(1), None);
    assert_eq!(phone.run("svc wifi enable").exit, 0);
    assert!(!phone.over_budget());
    let refused = phone.run("svc wifi disable");
    assert_eq!(refused.exit, 1);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("step budget (1 actions) is spent"));
    assert!(phone.over_budget());
    // Not run: Wi-Fi stays on.
    assert_eq!(phone.run("settings get global wifi_on").stdout, b"1\n");
    let t = phone.end_trajectory().unwrap();
    assert_eq!(t.actions, 1);
    let last = t.entries.iter().rfind(|e| e.kind == Kind::Action).unwrap();
    assert!(last.refused && last.step.is_none());
}

#[test]
fn the_controls_are_hidden_while_an_agent_runs_as_a_phone_has_none() {
    let phone = phone();
    assert_eq!(phone.run("droidscore-sim state").exit, 0);
    phone.start_trajectory(None, None);
    let hidden = phone.run("droidscore-sim state");
    assert_eq!(hidden.exit, 127);
    assert!(String::from_utf8_lossy(&hidden.stderr).contains("inaccessible or not found"));
    phone.end_trajectory();
    assert_eq!(phone.run("droidscore-sim state").exit, 0);
}

#[test]
fn no_trajectory_is_kept_unless_one_is_started() {
    let phone = phone();
    phone.run("input keyevent KEYCODE_HOME");
    assert!(phone.trajectory().is_none());
}
