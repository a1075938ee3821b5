//! Issue 20's action space on the simulator: double tap, drag, key codes and
//! clearing a field, each checked on the views it acts on.

use std::time::{Duration, Instant};

use super::*;
use crate::keycode;
use crate::uiautomator::Selector;

const CONTACTS: &str = "com.google.android.contacts";
const FILES: &str = "com.google.android.documentsui";

fn phone() -> SimPhone {
    SimPhone::new(PhoneSetup::default()).unwrap()
}

fn launch(p: &mut SimPhone, package: &str) {
    p.act(&DeviceAction::Launch {
        package: package.into(),
    })
    .unwrap();
}

fn centre(p: &mut SimPhone, selector: &Selector) -> (i32, i32) {
    let h = p.observe(false).unwrap().hierarchy;
    selector
        .find_first(&h)
        .unwrap_or_else(|| panic!("no node matches {selector}"))
        .bounds
        .center()
}

fn tap(p: &mut SimPhone, selector: &Selector) {
    let (x, y) = centre(p, selector);
    p.act(&DeviceAction::Tap { x, y }).unwrap();
}

fn key(p: &mut SimPhone, name: &str) {
    let code = keycode::parse(name).unwrap();
    p.act(&keycode::action(code)).unwrap();
}

fn text(p: &mut SimPhone, t: &str) {
    p.act(&DeviceAction::Text { text: t.into() }).unwrap();
}

/// The text of the contact form's field `id`.
fn field(p: &mut SimPhone, id: &str) -> String {
    let h = p.observe(false).unwrap().hierarchy;
    Selector::resource_id(&format!("{CONTACTS}:id/{id}"))
        .find_first(&h)
        .unwrap_or_else(|| panic!("no field {id}"))
        .text
        .to_string()
}

/// The contact form, "Zoe" typed into its first field (focused on open).
fn form_with_zoe() -> SimPhone {
    let mut p = phone();
    launch(&mut p, CONTACTS);
    tap(&mut p, &Selector::desc("Create contact"));
    text(&mut p, "Zoe");
    assert_eq!(field(&mut p, "first_name"), "Zoe");
    p
}

#[test]
fn del_deletes_before_the_caret_and_the_caret_keys_move_it() {
    let mut p = form_with_zoe();
    key(&mut p, "KEYCODE_DEL");
    assert_eq!(field(&mut p, "first_name"), "Zo");
    key(&mut p, "KEYCODE_MOVE_HOME");
    key(&mut p, "KEYCODE_DEL");
    assert_eq!(
        field(&mut p, "first_name"),
        "Zo",
        "nothing before the caret"
    );
    key(&mut p, "KEYCODE_FORWARD_DEL");
    assert_eq!(field(&mut p, "first_name"), "o");
    // Typing goes in at the caret, by `input text` and by typing keys alike.
    text(&mut p, "Le");
    key(&mut p, "KEYCODE_DPAD_RIGHT");
    key(&mut p, "KEYCODE_N");
    assert_eq!(field(&mut p, "first_name"), "Leon");
    key(&mut p, "KEYCODE_DPAD_LEFT");
    key(&mut p, "KEYCODE_DPAD_LEFT");
    key(&mut p, "KEYCODE_MOVE_END");
    text(&mut p, "a");
    assert_eq!(field(&mut p, "first_name"), "Leona");
}

#[test]
fn tab_moves_to_the_next_field_and_other_keys_only_count_a_step() {
    let mut p = form_with_zoe();
    key(&mut p, "KEYCODE_TAB");
    text(&mut p, "Quinn");
    assert_eq!(field(&mut p, "first_name"), "Zoe");
    assert_eq!(field(&mut p, "last_name"), "Quinn");
    let before = p.observe(false).unwrap().xml;
    let (values, step) = (p.state().values().clone(), p.state().step);
    for name in [
        "KEYCODE_VOLUME_UP",
        "KEYCODE_DPAD_UP",
        "KEYCODE_MENU",
        "KEYCODE_CAMERA",
    ] {
        key(&mut p, name);
    }
    assert_eq!(p.observe(false).unwrap().xml, before);
    assert_eq!(p.state().values(), &values);
    assert_eq!(p.state().step, step + 4, "each key press is a step");
}

#[test]
fn clear_text_empties_the_focused_field_as_ctrl_a_then_del_does() {
    let mut p = form_with_zoe();
    let mut q = p.clone();
    p.act(&DeviceAction::ClearText).unwrap();
    assert_eq!(
        field(&mut p, "first_name"),
        "First name",
        "an empty field shows its hint"
    );
    q.key_combination(&[keycode::CTRL_LEFT, keycode::A]);
    key(&mut q, "KEYCODE_DEL");
    assert_eq!(q.observe(false).unwrap().xml, p.observe(false).unwrap().xml);
    // Ctrl+A then typing replaces the text.
    let mut r = form_with_zoe();
    r.key_combination(&[keycode::CTRL_RIGHT, keycode::A]);
    text(&mut r, "Ann");
    assert_eq!(field(&mut r, "first_name"), "Ann");
    // With no field focused, a clear changes nothing.
    let mut s = phone();
    let before = s.observe(false).unwrap().xml;
    s.act(&DeviceAction::ClearText).unwrap();
    assert_eq!(s.observe(false).unwrap().xml, before);
}

#[test]
fn a_double_tap_on_a_switch_is_two_taps_and_on_a_field_selects_its_text() {
    let mut p = phone();
    p.open(&Intent("android.settings.WIFI_SETTINGS".into()))
        .unwrap();
    let (x, y) = centre(&mut p, &Selector::text("Wi-Fi").row());
    let wifi = p.state().get("global/wifi_on").map(str::to_string);
    p.act(&DeviceAction::DoubleTap { x, y }).unwrap();
    assert_eq!(p.state().get("global/wifi_on").map(str::to_string), wifi);
    let flips: Vec<(&str, &str)> = p
        .state()
        .flips()
        .iter()
        .map(|f| (f.from.as_str(), f.to.as_str()))
        .collect();
    assert_eq!(flips.len(), 2, "on and off again: {flips:?}");

    let mut p = form_with_zoe();
    let (x, y) = centre(
        &mut p,
        &Selector::resource_id(&format!("{CONTACTS}:id/first_name")),
    );
    p.act(&DeviceAction::DoubleTap { x, y }).unwrap();
    text(&mut p, "Ann");
    assert_eq!(
        field(&mut p, "first_name"),
        "Ann",
        "the selection was replaced"
    );
    // A single tap only puts the caret at the end.
    let mut p = form_with_zoe();
    p.act(&DeviceAction::Tap { x, y }).unwrap();
    text(&mut p, "y");
    assert_eq!(field(&mut p, "first_name"), "Zoey");
}

#[test]
fn two_input_taps_within_the_timeout_are_a_double_tap() {
    let mut direct = form_with_zoe();
    let (x, y) = centre(
        &mut direct,
        &Selector::resource_id(&format!("{CONTACTS}:id/first_name")),
    );
    let mut via_input = direct.clone();
    let mut slow = direct.clone();
    direct.act(&DeviceAction::DoubleTap { x, y }).unwrap();
    let t0 = Instant::now();
    via_input.input_tap(x, y, t0).unwrap();
    via_input
        .input_tap(x + 30, y, t0 + Duration::from_millis(120))
        .unwrap();
    for p in [&mut direct, &mut via_input] {
        text(p, "Ann");
    }
    assert_eq!(
        via_input.observe(false).unwrap().xml,
        direct.observe(false).unwrap().xml
    );
    // Past the timeout they are two taps: the caret stays at the end.
    slow.input_tap(x, y, t0).unwrap();
    slow.input_tap(x, y, t0 + DOUBLE_TAP_TIMEOUT + Duration::from_millis(1))
        .unwrap();
    text(&mut slow, "y");
    assert_eq!(field(&mut slow, "first_name"), "Zoey");
}

#[test]
fn a_drag_on_a_list_scrolls_like_a_slow_swipe() {
    let mut swiped = phone();
    launch(&mut swiped, crate::apps::SETTINGS);
    let mut dragged = swiped.clone();
    let before = swiped.observe(false).unwrap().xml;
    swiped
        .act(&DeviceAction::Swipe {
            x1: 540,
            y1: 1800,
            x2: 540,
            y2: 900,
            duration_ms: 300,
        })
        .unwrap();
    dragged
        .act(&DeviceAction::Drag {
            x1: 540,
            y1: 1800,
            x2: 540,
            y2: 900,
            duration_ms: 1500,
        })
        .unwrap();
    let after = dragged.observe(false).unwrap().xml;
    assert_ne!(after, before, "the list scrolled");
    assert_eq!(after, swiped.observe(false).unwrap().xml);
    assert!(
        dragged.state().flips().is_empty(),
        "a drag over rows taps none"
    );
}

#[test]
fn a_drag_from_a_row_with_a_menu_opens_the_menu_and_a_still_drag_is_a_long_press() {
    let mut p = phone();
    launch(&mut p, FILES);
    tap(&mut p, &Selector::text("Download"));
    let mut pressed = p.clone();
    let mut still = p.clone();
    let (x, y) = centre(&mut p, &Selector::text("menu.pdf"));
    p.act(&DeviceAction::Drag {
        x1: x,
        y1: y,
        x2: x,
        y2: y - 600,
        duration_ms: 1500,
    })
    .unwrap();
    assert!(
        Selector::text("Rename")
            .find_first(&p.observe(false).unwrap().hierarchy)
            .is_some(),
        "the hold opened the row's menu"
    );
    pressed.act(&DeviceAction::LongPress { x, y }).unwrap();
    assert_eq!(
        p.observe(false).unwrap().xml,
        pressed.observe(false).unwrap().xml
    );
    still
        .act(&DeviceAction::Drag {
            x1: x,
            y1: y,
            x2: x + 5,
            y2: y,
            duration_ms: 1500,
        })
        .unwrap();
    assert_eq!(
        still.observe(false).unwrap().xml,
        pressed.observe(false).unwrap().xml
    );
}

#[test]
fn the_time_pickers_fields_take_del_and_tab() {
    let mut p = phone();
    launch(&mut p, crate::apps::CLOCK);
    tap(&mut p, &Selector::desc("Add alarm"));
    text(&mut p, "78");
    key(&mut p, "KEYCODE_DEL");
    key(&mut p, "KEYCODE_TAB");
    text(&mut p, "30");
    tap(&mut p, &Selector::text("OK"));
    let alarms = p.state().alarms();
    assert_eq!(alarms.len(), 1);
    assert_eq!((alarms[0].hour, alarms[0].minute), (7, 30));
}

fn swipe(p: &mut SimPhone, (x1, y1): (i32, i32), (x2, y2): (i32, i32)) {
    p.act(&DeviceAction::Swipe {
        x1,
        y1,
        x2,
        y2,
        duration_ms: 300,
    })
    .unwrap();
}

fn dump_package(p: &mut SimPhone) -> String {
    let h = p.observe(false).unwrap().hierarchy;
    h.nodes[0].package.to_string()
}

fn shade_texts(p: &mut SimPhone) -> Vec<String> {
    let h = p.observe(false).unwrap().hierarchy;
    h.walk()
        .filter(|n| n.resource_id == "android:id/text")
        .map(|n| n.text.to_string())
        .collect()
}

/// Issue 34's notifications: a swipe down from the status bar pulls the
/// shade over any screen (System UI's window in the dump), listing the
/// unread messages, the day's missed calls and the posted notifications,
/// newest first; a swipe up or Back puts it away, typing goes nowhere, and
/// a tap on a message's notification opens its conversation. A swipe that
/// starts below the status bar is a scroll, not the shade.
#[test]
fn the_shade_opens_from_the_status_bar_and_its_notifications_open_their_apps() {
    let mut p = phone();
    launch(&mut p, CONTACTS);
    swipe(&mut p, (540, 600), (540, 1400));
    assert_eq!(dump_package(&mut p), CONTACTS, "a scroll, not the shade");
    swipe(&mut p, (540, 20), (540, 1200));
    assert_eq!(dump_package(&mut p), "com.android.systemui");
    // Newest first: two unread texts, Gmail's receipt (2 h ago), a missed
    // call, an older unread text.
    assert_eq!(
        shade_texts(&mut p),
        [
            "Never mind, found it",
            "Can you send me the address?",
            "Order #4471: 2 items",
            "+1 800-555-0199",
            "Are we still on for lunch tomorrow?",
        ]
    );
    text(&mut p, "typed into nothing");
    assert_eq!(dump_package(&mut p), "com.android.systemui");
    swipe(&mut p, (540, 1200), (540, 300));
    assert_eq!(dump_package(&mut p), CONTACTS, "a swipe up puts it away");
    swipe(&mut p, (540, 20), (540, 1200));
    p.act(&DeviceAction::Key { key: Key::Back }).unwrap();
    assert_eq!(dump_package(&mut p), CONTACTS, "Back puts it away");
    swipe(&mut p, (540, 20), (540, 1200));
    tap(
        &mut p,
        &Selector::resource_id("android:id/text").with_text("Can you send me the address?"),
    );
    let h = p.observe(false).unwrap().hierarchy;
    assert_eq!(h.nodes[0].package, "com.google.android.apps.messaging");
    let title = Selector::resource_id("com.google.android.apps.messaging:id/conversation_title");
    let title = title.find_first(&h).map(|n| n.text.to_string());
    assert_eq!(title.as_deref(), Some("Tomás Silva"));
    // Opening the conversation read its messages: their notifications are gone.
    swipe(&mut p, (540, 20), (540, 1200));
    assert_eq!(
        shade_texts(&mut p),
        [
            "Order #4471: 2 items",
            "+1 800-555-0199",
            "Are we still on for lunch tomorrow?",
        ]
    );
}
