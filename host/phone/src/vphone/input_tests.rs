//! The `input` command's tests: what each form types, taps and presses.
use super::VirtualPhone;
use crate::uiautomator::Selector;
use crate::{DeviceAction, Phone};

const CONTACTS: &str = "com.google.android.contacts";

fn phone() -> VirtualPhone {
    VirtualPhone::new(super::test_support::TestSetups).unwrap()
}

fn ok(phone: &VirtualPhone, line: &str) {
    let out = phone.run(line);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.exit, 0, "{line}: {err}");
}

fn act(phone: &VirtualPhone, action: DeviceAction) {
    phone.lock().sim.act(&action).unwrap();
}

/// Contacts' new-contact form with "Zoey" typed in its first field.
fn form(phone: &VirtualPhone) {
    act(
        phone,
        DeviceAction::Launch {
            package: CONTACTS.into(),
        },
    );
    let h = phone.lock().sim.hierarchy();
    let (x, y) = Selector::desc("Create contact")
        .find_first(&h)
        .unwrap()
        .bounds
        .center();
    ok(phone, &format!("input tap {x} {y}"));
    ok(phone, "input text Zoey");
}

fn first_name(phone: &VirtualPhone) -> String {
    let h = phone.lock().sim.hierarchy();
    Selector::resource_id(&format!("{CONTACTS}:id/first_name"))
        .find_first(&h)
        .unwrap()
        .text
        .to_string()
}

fn foreground(phone: &VirtualPhone) -> String {
    phone.lock().sim.focused_activity().0
}

#[test]
fn keyevent_takes_numbers_full_names_bare_names_and_a_source() {
    let phone = phone();
    for home in [
        "input keyevent 3",
        "input keyevent KEYCODE_HOME",
        "input keyevent HOME",
        "input keyboard keyevent HOME",
        "input -d 0 keyevent --longpress HOME",
    ] {
        act(
            &phone,
            DeviceAction::Launch {
                package: crate::apps::SETTINGS.into(),
            },
        );
        ok(&phone, home);
        assert_eq!(foreground(&phone), crate::apps::LAUNCHER, "{home}");
    }
    // Android 14 injects an unknown name as KEYCODE_UNKNOWN, silently.
    let before = phone.run("uiautomator dump /dev/tty").stdout;
    let out = phone.run("input keyevent KEYCODE_NOPE");
    assert_eq!((out.exit, out.stdout.len(), out.stderr.len()), (0, 0, 0));
    assert_eq!(phone.run("uiautomator dump /dev/tty").stdout, before);
    // Only keycombination names the word it could not read.
    let out = phone.run("input keycombination KEYCODE_NOPE KEYCODE_A");
    assert_eq!(out.exit, 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("Unknown keycode: KEYCODE_NOPE"));
    assert_eq!(phone.run("input keyevent").exit, 1);
    assert_eq!(phone.run("input -d x keyevent 3").exit, 1);
}

#[test]
fn several_codes_in_one_keyevent_and_doubletap_press_each_in_turn() {
    let phone = phone();
    form(&phone);
    ok(&phone, "input keyevent 67 KEYCODE_DEL");
    assert_eq!(first_name(&phone), "Zo");
    ok(&phone, "input keyevent --doubletap DEL");
    assert_eq!(first_name(&phone), "First name", "empty: the hint shows");
    ok(&phone, "input keyevent --async KEYCODE_A");
    // Flags come before the codes, as in InputShellCommand: after them
    // `--delay` is a name it does not know (KEYCODE_UNKNOWN) and 5 is CALL.
    ok(&phone, "input keyevent KEYCODE_A --delay 5");
    assert_eq!(first_name(&phone), "aa");
    ok(&phone, "input keyevent --delay 5 KEYCODE_B MOVE_HOME C");
    assert_eq!(first_name(&phone), "caab");
}

#[test]
fn keycombination_ctrl_a_then_del_clears_the_field_as_clear_text_does() {
    let phone = phone();
    form(&phone);
    ok(&phone, "input keycombination 113 29 && input keyevent 67");
    let other = self::phone();
    form(&other);
    act(&other, DeviceAction::ClearText);
    assert_eq!(phone.lock().sim.hierarchy(), other.lock().sim.hierarchy());
    assert_eq!(first_name(&phone), "First name");
    ok(
        &phone,
        "input keycombination -t 100 KEYCODE_CTRL_LEFT KEYCODE_A",
    );
    let out = phone.run("input keycombination 113");
    assert_eq!(out.exit, 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least 2 keycodes"));
}

#[test]
fn two_quick_taps_are_a_double_tap_and_draganddrop_is_a_drag() {
    let phone = phone();
    form(&phone);
    let h = phone.lock().sim.hierarchy();
    let (x, y) = Selector::resource_id(&format!("{CONTACTS}:id/first_name"))
        .find_first(&h)
        .unwrap()
        .bounds
        .center();
    let mut direct = phone.lock().sim.clone();
    ok(&phone, &format!("input tap {x} {y} && input tap {x} {y}"));
    ok(&phone, "input text Ann");
    direct.act(&DeviceAction::DoubleTap { x, y }).unwrap();
    direct
        .act(&DeviceAction::Text { text: "Ann".into() })
        .unwrap();
    assert_eq!(first_name(&phone), "Ann");
    assert_eq!(phone.lock().sim.hierarchy(), direct.hierarchy());

    act(
        &phone,
        DeviceAction::Launch {
            package: crate::apps::SETTINGS.into(),
        },
    );
    let mut direct = phone.lock().sim.clone();
    ok(
        &phone,
        "input touchscreen draganddrop 540 1900 540 900 1500",
    );
    direct
        .act(&DeviceAction::Drag {
            x1: 540,
            y1: 1900,
            x2: 540,
            y2: 900,
            duration_ms: 1500,
        })
        .unwrap();
    assert_eq!(phone.lock().sim.hierarchy(), direct.hierarchy());
    assert_eq!(phone.run("input draganddrop 1 2 3").exit, 1);
    ok(&phone, "input trackball roll 1 -1");
    ok(&phone, "input press");
}
