//! The simulator under every device condition: the screens along a few flows
//! lie inside the display and clear of its system bars, every Settings row
//! can be scrolled into sight, rows grow with the font scale (also when it is
//! changed mid-episode), and a condition that writes a key the task sets is
//! refused.

use std::collections::BTreeSet;

use crate::apps::{Decoy, PhoneSetup, SettingsApp, SetupError, Variant};
use crate::sim::{Display, SimPhone};
use crate::uiautomator::{self, Hierarchy, Selector, XmlStyle};
use crate::{Condition, DeviceAction, Phone};

fn phone(condition: Condition) -> SimPhone {
    SimPhone::new(PhoneSetup {
        condition,
        episode_seed: 1,
        ..PhoneSetup::default()
    })
    .unwrap()
}

fn dump(p: &mut SimPhone) -> Hierarchy {
    p.observe(false).unwrap().hierarchy
}

fn launch(p: &mut SimPhone, package: &str) {
    p.act(&DeviceAction::Launch {
        package: package.into(),
    })
    .unwrap();
}

/// A swipe up the middle of the screen by a fifth of its height: less than
/// any list's height, so no row is skipped between two dumps.
fn swipe_up(p: &mut SimPhone) {
    let d = p.display();
    p.act(&DeviceAction::Swipe {
        x1: d.width / 2,
        y1: d.height * 3 / 5,
        x2: d.width / 2,
        y2: d.height * 2 / 5,
        duration_ms: 300,
    })
    .unwrap();
}

/// The top of the navigation bar and the bottom of the status bar on `d`,
/// as the layout scales them (118 and 126 px at 420 dpi).
fn bars(d: &Display) -> (i32, i32) {
    let px = |v: i32| (v as i64 * d.dpi as i64 * 2 + 420) / 840;
    (px(118) as i32, d.height - px(126) as i32)
}

/// Every node lies inside the screen, and every clickable node that shows
/// has its centre between the system bars, where a tap reaches it.
fn check_screen(h: &Hierarchy, d: &Display, at: &str) {
    let (status, nav) = bars(d);
    for n in h.walk() {
        let b = n.bounds;
        assert!(
            b.left >= 0 && b.top >= 0 && b.right <= d.width && b.bottom <= d.height,
            "{at}: {:?} {:?} {b:?} is outside the {}x{} screen",
            n.class,
            n.text,
            d.width,
            d.height
        );
        if n.clickable && !b.is_empty() {
            let (_, y) = b.center();
            assert!(
                (status..nav).contains(&y),
                "{at}: clickable {:?} {:?}{:?} at {b:?} is under a system bar ({status}..{nav})",
                n.class,
                n.text,
                n.content_desc
            );
        }
    }
}

/// Every screen reachable from the launcher in `depth` taps (each visible
/// clickable node) or swipes, each checked with [`check_screen`]; how many.
fn walk_flows(condition: Condition, depth: usize) -> usize {
    let start = phone(condition);
    let display = start.display();
    let mut seen = BTreeSet::new();
    let mut frontier = vec![start];
    for _ in 0..=depth {
        let mut next = Vec::new();
        for mut p in frontier {
            let h = dump(&mut p);
            if !seen.insert(uiautomator::to_xml(&h)) {
                continue;
            }
            check_screen(&h, &display, &format!("{condition}"));
            let taps = h
                .walk()
                .filter(|n| n.clickable && !n.bounds.is_empty())
                .map(|n| n.bounds.center())
                .collect::<Vec<_>>();
            for (x, y) in taps {
                let mut q = p.clone();
                q.act(&DeviceAction::Tap { x, y }).unwrap();
                next.push(q);
            }
            let mut q = p.clone();
            swipe_up(&mut q);
            next.push(q);
        }
        frontier = next;
    }
    seen.len()
}

#[test]
fn every_condition_lays_every_screen_along_the_flows_inside_the_display() {
    for condition in Condition::ALL {
        let screens = walk_flows(condition, 3);
        assert!(screens > 80, "{condition}: only {screens} screens reached");
    }
}

#[test]
fn each_condition_gives_the_phone_its_display_and_the_dump_its_rotation() {
    for condition in Condition::ALL {
        let mut p = phone(condition);
        assert_eq!(
            p.display(),
            condition.display(Display::default()),
            "{condition}"
        );
        let want = if condition == Condition::Landscape {
            1
        } else {
            0
        };
        assert_eq!(dump(&mut p).rotation, want, "{condition}");
    }
}

/// The titles of the Settings root's rows seen while scrolling to its end.
fn settings_titles_seen(p: &mut SimPhone) -> BTreeSet<String> {
    launch(p, "com.android.settings");
    let title = Selector::resource_id("android:id/title");
    let mut seen = BTreeSet::new();
    let mut last = String::new();
    for _ in 0..80 {
        let h = dump(p);
        for n in title.find_all(&h) {
            if !n.bounds.is_empty() {
                seen.insert(n.text.to_string());
            }
        }
        let xml = uiautomator::to_xml(&h);
        if xml == last {
            break;
        }
        last = xml;
        swipe_up(p);
    }
    seen
}

#[test]
fn every_settings_row_scrolls_into_sight_under_every_condition() {
    let app = SettingsApp::get();
    let root = app.screen("settings").unwrap();
    let all: BTreeSet<String> = app
        .rows(root, &Variant::default())
        .into_iter()
        .map(|r| r.title)
        .collect();
    for condition in Condition::ALL {
        let seen = settings_titles_seen(&mut phone(condition));
        assert_eq!(seen, all, "{condition}");
    }
}

/// The bounds of the Settings root row whose title is `title`.
fn row_bounds(h: &Hierarchy, title: &str) -> uiautomator::Bounds {
    let node = Selector::text(title).find_first(h).unwrap();
    node.bounds
}

#[test]
fn a_larger_font_makes_rows_taller_wraps_a_long_title_and_scrolls_further() {
    let mut base = phone(Condition::Base);
    let mut big = phone(Condition::Font(1300));
    launch(&mut base, "com.android.settings");
    launch(&mut big, "com.android.settings");
    let (hb, hg) = (dump(&mut base), dump(&mut big));
    let (network_b, network_g) = (
        row_bounds(&hb, "Network & internet"),
        row_bounds(&hg, "Network & internet"),
    );
    // One line of 16 sp at 1.3: 70 px grows to 91.
    assert_eq!(network_b.height(), 70);
    assert_eq!(network_g.height(), 91);
    assert!(big.max_scroll() > base.max_scroll());
    // "Digital Wellbeing & parental controls" takes two lines at 1.3.
    for _ in 0..20 {
        swipe_up(&mut base);
        swipe_up(&mut big);
    }
    let title = "Digital Wellbeing & parental controls";
    let (wb, wg) = (
        row_bounds(&dump(&mut base), title),
        row_bounds(&dump(&mut big), title),
    );
    assert_eq!(wb.height(), 70);
    assert_eq!(wg.height(), 91 + 82, "a second line of 24 sp at 1.3");
}

#[test]
fn a_summary_longer_than_a_line_keeps_the_default_rows_and_grows_under_a_larger_font() {
    // Two lines on the default phone by the estimate, three at 1.3.
    let summary =
        "Charge other devices by placing them on the back of your phone, even while it charges";
    let setup = |condition| PhoneSetup {
        condition,
        variant: Variant {
            id: "long".into(),
            decoys: vec![Decoy {
                screen: "settings".into(),
                after: None,
                title: "Battery share".into(),
                summary: Some(summary.into()),
                switch: true,
            }],
            ..Variant::default()
        },
        ..PhoneSetup::default()
    };
    let mut heights = Vec::new();
    for condition in [Condition::Base, Condition::Font(1300)] {
        let mut p = SimPhone::new(setup(condition)).unwrap();
        launch(&mut p, "com.android.settings");
        heights.push(row_bounds(&dump(&mut p), summary).height());
    }
    // One 77 px summary line on the default phone, as its dumps have it;
    // at 1.3 the text gains a line: (77 + 53) × 1.3.
    assert_eq!(heights, [77, 169]);
}

#[test]
fn a_font_scale_written_mid_episode_changes_the_next_frame() {
    let mut p = phone(Condition::Base);
    launch(&mut p, "com.android.settings");
    let before = row_bounds(&dump(&mut p), "Network & internet");
    p.write_setting("system/font_scale", "1.3");
    let after = row_bounds(&dump(&mut p), "Network & internet");
    assert_eq!((before.height(), after.height()), (70, 91));
    assert_eq!(p.display().font_scale_milli, 1300);
    p.write_setting("system/font_scale", "not a number");
    assert_eq!(p.display().font_scale_milli, 1000, "falls back to 1.0");
}

#[test]
fn landscape_turns_the_screen_and_the_dial_pad_scrolls_to_its_call_button() {
    let mut p = phone(Condition::Landscape);
    launch(&mut p, "com.google.android.dialer");
    let keypad = Selector::resource_id("com.google.android.dialer:id/tab_keypad");
    let (x, y) = keypad.find_first(&dump(&mut p)).unwrap().bounds.center();
    p.act(&DeviceAction::Tap { x, y }).unwrap();
    let call = Selector::resource_id("com.google.android.dialer:id/dialpad_voice_call_button");
    let visible = |h: &Hierarchy| call.find_first(h).is_some_and(|n| !n.bounds.is_empty());
    assert!(!visible(&dump(&mut p)), "below the fold in landscape");
    for _ in 0..5 {
        swipe_up(&mut p);
    }
    let h = dump(&mut p);
    assert!(visible(&h), "the pad scrolls to it");
    assert!(Selector::class("android.widget.ScrollView")
        .find_first(&h)
        .is_some_and(|n| n.scrollable));
}

#[test]
fn a_condition_that_writes_a_key_the_task_sets_is_refused() {
    let err = SimPhone::new(PhoneSetup {
        condition: Condition::Dark,
        initial: [("secure/ui_night_mode".to_string(), "1".to_string())].into(),
        ..PhoneSetup::default()
    })
    .unwrap_err();
    assert!(
        matches!(&err, SetupError::ConditionConflict { condition: Condition::Dark, key } if key == "secure/ui_night_mode"),
        "{err:?}"
    );
}

#[test]
fn the_settings_root_under_each_condition() {
    for condition in Condition::ALL {
        let mut p = phone(condition);
        launch(&mut p, "com.android.settings");
        let xml = uiautomator::to_xml_styled(&dump(&mut p), XmlStyle::Indented { crlf: false });
        insta::assert_snapshot!(format!("settings_root_{condition}"), xml);
    }
}

/// The Settings root's screenshot under each condition, pinned by its
/// SHA-256 (the bytes are the same on every machine: pinned fonts, no
/// system lookup); a change to the drawing shows here condition by
/// condition, beside the dumps above.
#[test]
fn the_settings_root_png_under_each_condition_is_pinned() {
    use sha2::{Digest, Sha256};
    let mut lines = Vec::new();
    for condition in Condition::ALL {
        let mut p = phone(condition);
        launch(&mut p, "com.android.settings");
        let png = p.screenshot_png();
        assert_eq!(png, p.screenshot_png(), "{condition}: two renders differ");
        let size = image::load_from_memory(&png).unwrap();
        let hex: String = Sha256::digest(&png)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        lines.push(format!(
            "{:10} {}x{} {hex}",
            condition.to_string(),
            size.width(),
            size.height()
        ));
    }
    insta::assert_snapshot!("settings_root_png_sha256", lines.join("\n"));
}
