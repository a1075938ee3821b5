//! Screens the simulator lays out itself, drawn by the renderer: the six
//! issue 32 shows before and after, pinned by the SHA-256 of their PNGs in
//! both themes; every Settings page and app root free of lettered
//! placeholders; every node with text or a content-desc visible in its bounds.

use sha2::{Digest, Sha256};

use super::placeholder_icons;
use super::render_png;
use crate::apps::{PhoneSetup, SettingsApp, APPS, CLOCK, SETTINGS};
use crate::sim::{Display, SimPhone, Style, Theme, View};
use crate::uiautomator::Selector;
use crate::{DeviceAction, Intent, Phone};

fn phone() -> SimPhone {
    SimPhone::new(PhoneSetup {
        episode_seed: 1,
        ..PhoneSetup::default()
    })
    .unwrap()
}

fn launch(p: &mut SimPhone, package: &str) {
    p.act(&DeviceAction::Launch {
        package: package.into(),
    })
    .unwrap();
}

fn tap(p: &mut SimPhone, selector: &Selector) {
    let h = p.observe(false).unwrap().hierarchy;
    let node = selector
        .find_first(&h)
        .unwrap_or_else(|| panic!("no node matches {selector}"));
    let (x, y) = node.bounds.center();
    p.act(&DeviceAction::Tap { x, y }).unwrap();
}

/// Launcher, Settings root, Internet, Contacts list, a Messages thread and the
/// Clock's alarm editor (the time picker "Add alarm" opens), by name.
pub(super) fn six_screens() -> Vec<(&'static str, SimPhone)> {
    let launcher = phone();
    let mut settings = phone();
    launch(&mut settings, SETTINGS);
    let mut internet = phone();
    internet
        .open(&Intent("sim:settings.internet".into()))
        .unwrap();
    let mut contacts = phone();
    launch(&mut contacts, "com.google.android.contacts");
    let mut thread = phone();
    launch(&mut thread, "com.google.android.apps.messaging");
    tap(
        &mut thread,
        &Selector::desc("Tomás Silva, 2 unread messages"),
    );
    let mut alarm = phone();
    launch(&mut alarm, CLOCK);
    tap(&mut alarm, &Selector::desc("Add alarm"));
    vec![
        ("launcher", launcher),
        ("settings", settings),
        ("internet", internet),
        ("contacts", contacts),
        ("messages_thread", thread),
        ("alarm_editor", alarm),
    ]
}

fn write_both_themes(out: &str) {
    for (name, p) in six_screens() {
        let root = p.composite();
        for (theme, suffix) in [(Theme::Light, "light"), (Theme::Dark, "dark")] {
            let png = render_png(&root, &Display::default(), theme);
            std::fs::write(format!("{out}/{name}_{suffix}.png"), png).unwrap();
        }
    }
}

#[test]
#[ignore = "writes PNGs to $SCREENS_OUT"]
fn write_six_screens_both_themes() {
    write_both_themes(&std::env::var("SCREENS_OUT").unwrap());
}

/// Every Settings page (opened by id), every app's first screen, and the six.
fn every_screen() -> Vec<(String, SimPhone)> {
    let mut screens: Vec<(String, SimPhone)> = six_screens()
        .into_iter()
        .map(|(name, p)| (name.to_string(), p))
        .collect();
    for screen in &SettingsApp::get().screen {
        let mut p = phone();
        p.open(&Intent(format!("sim:{}", screen.id))).unwrap();
        screens.push((screen.id.clone(), p));
    }
    for (label, package) in APPS {
        let mut p = phone();
        launch(&mut p, package);
        screens.push((label.to_string(), p));
    }
    // The pages and dialogs the apps' flows tests pass through.
    let contacts = "com.google.android.contacts";
    let flows: [(&str, &str, &[Selector]); 9] = [
        ("contact", contacts, &[Selector::text("Alex Moreno")]),
        (
            "contact_menu",
            contacts,
            &[Selector::text("Chen Wei"), Selector::desc("More options")],
        ),
        ("contact_new", contacts, &[Selector::desc("Create contact")]),
        (
            "chat_new",
            "com.google.android.apps.messaging",
            &[Selector::desc("Start chat")],
        ),
        (
            "keypad",
            "com.google.android.dialer",
            &[Selector::desc("Keypad")],
        ),
        (
            "recents",
            "com.google.android.dialer",
            &[Selector::desc("Recents")],
        ),
        (
            "event_new",
            "com.google.android.calendar",
            &[Selector::desc("Create new event")],
        ),
        (
            "files_menu",
            "com.google.android.documentsui",
            &[Selector::text("Download"), Selector::desc("More options")],
        ),
        ("clock_tab", CLOCK, &[Selector::desc("Clock")]),
    ];
    for (name, package, taps) in flows {
        let mut p = phone();
        launch(&mut p, package);
        for selector in taps {
            tap(&mut p, selector);
        }
        screens.push((name.to_string(), p));
    }
    screens
}

/// `Style::Icon` views outside the status bar: each was a lettered circle
/// before issue 32 (the status bar had no icons then).
fn old_placeholders(root: &View) -> usize {
    fn count(v: &View) -> usize {
        if v.style == Style::StatusBar {
            return 0;
        }
        usize::from(v.style == Style::Icon)
            + v.children
                .iter()
                .filter(|c| !c.node.bounds.is_empty())
                .map(count)
                .sum::<usize>()
    }
    count(root)
}

#[test]
fn no_icon_on_any_screen_is_a_lettered_placeholder() {
    let screens = every_screen();
    assert!(screens.len() >= 39, "only {} screens", screens.len());
    let offenders: Vec<String> = screens
        .iter()
        .map(|(name, p)| (name, placeholder_icons(&p.composite())))
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name}: {n}"))
        .collect();
    assert!(
        offenders.is_empty(),
        "lettered placeholders on {offenders:?}"
    );
    // The same screens had icons the old renderer lettered: the count is real.
    let before: usize = screens
        .iter()
        .map(|(_, p)| old_placeholders(&p.composite()))
        .sum();
    assert!(before > 100, "only {before} icon views");
}

#[test]
#[ignore = "prints the placeholder counts before and after issue 32"]
fn print_placeholder_counts() {
    let (mut before, mut after, mut n) = (0, 0, 0);
    for (name, p) in every_screen() {
        let root = p.composite();
        let (b, a) = (old_placeholders(&root), placeholder_icons(&root));
        println!("{name}: before {b}, after {a}");
        (before, after, n) = (before + b, after + a, n + 1);
    }
    println!("{n} screens: before {before}, after {after}");
}

#[test]
fn every_node_with_text_or_a_content_desc_shows_inside_its_bounds() {
    for (name, p) in every_screen() {
        let root = p.composite();
        let img = super::render_rgb(&root, &Display::default(), Theme::Light);
        // The composite is [window, dialog?, bars]; the dump shows the dialog
        // when one is open (it may cover the window), else the window.
        let dumped = &root.children[root.children.len() - 2];
        for v in dumped.walk() {
            let n = &v.node;
            if n.text.is_empty() && n.content_desc.is_empty() {
                continue;
            }
            let b = n.bounds;
            let first = img.get_pixel(b.left as u32, b.top as u32).0;
            let varied = (b.top..b.bottom)
                .flat_map(|y| (b.left..b.right).map(move |x| (x, y)))
                .any(|(x, y)| img.get_pixel(x as u32, y as u32).0 != first);
            assert!(
                varied,
                "{name}: {:?} {:?} {b} is blank",
                n.text, n.content_desc
            );
        }
    }
}

/// The SHA-256 of each of the six screens' PNGs, light then dark. A change
/// here is a change to what agents see: look at the PNGs
/// (`write_six_screens_both_themes`) before updating it.
const PNG_SHA256: [(&str, &str, &str); 6] = [
    (
        "launcher",
        "7ca601f99f98370a55a6f9a7c79763c4b2fb2801961160900bef000f7480b975",
        "e61fb04e658d165fe52e10a933565fe669c64a7c3407f6fe6fe8f66376090bf6",
    ),
    (
        "settings",
        "15d501fff647d5174fbaabbc8af218b79272393483b8d5d0aa3e3bf42b7fa23e",
        "a627c06a5da77255a9a416eb43f133e40ae00ee73ff49b50a3987c0d3a0b21f9",
    ),
    (
        "internet",
        "a479ac6b683c45aa3b9158a7a5c3b81dc2d326dfa07897a5ef31ee1693f13ec3",
        "7247b34fc1c79f4d1862d3e6a92702e149b5e54967967edcc270e8bc38123175",
    ),
    (
        "contacts",
        "146cdeddcdfc19d73b8d0219dfb82bdec531d4553761a7af6b9054e7fd9b7d96",
        "72fbd6c2ecd3fa703392f6e048c29633e715f8d2d2da2d74121c0746fd38c052",
    ),
    (
        "messages_thread",
        "99811d51e6b14eb1f52b7f32c7a194b2375e82c34ca9af5e20b811649e7a9e8c",
        "dea2b6bffabf28dbe826314260f41364d16971e8c226a9116c5a1ec1b051e338",
    ),
    (
        "alarm_editor",
        "a44c2abfb92a0f4ac4cdfd186ab4ee5880dde950ef918266d0587f85cfa3cef6",
        "0dc5176c4b5a0f6a19e6013f95c9f4e03458a3c265efe9e1184cfcbf8fcf50df",
    ),
];

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn the_six_screens_png_bytes_are_pinned_in_both_themes() {
    let mut got = Vec::new();
    for (name, p) in six_screens() {
        let root = p.composite();
        let light = sha256(&render_png(&root, &Display::default(), Theme::Light));
        let dark = sha256(&render_png(&root, &Display::default(), Theme::Dark));
        assert_eq!(
            render_png(&root, &Display::default(), Theme::Dark),
            render_png(&root, &Display::default(), Theme::Dark),
            "{name}: two renders differ"
        );
        got.push(format!("(\"{name}\", \"{light}\", \"{dark}\"),"));
    }
    let want: Vec<String> = PNG_SHA256
        .iter()
        .map(|(n, l, d)| format!("(\"{n}\", \"{l}\", \"{d}\"),"))
        .collect();
    assert_eq!(got, want, "new hashes:\n{}", got.join("\n"));
}

/// The status bar icons' content-descs in the order the layout adds them
/// (right to left on screen).
fn status_icons(p: &SimPhone) -> Vec<String> {
    let root = p.composite();
    let bar = root.walk().find(|v| v.style == Style::StatusBar).unwrap();
    bar.walk()
        .filter(|v| v.style == Style::Icon)
        .map(|v| v.node.content_desc.to_string())
        .collect()
}

#[test]
fn the_status_bar_shows_the_state_the_settings_hold() {
    use super::status::*;
    let mut p = phone();
    assert_eq!(status_icons(&p), [BATTERY, CELLULAR, WIFI]);
    let before = p.screenshot_rgb();
    for (key, value) in [
        ("global/airplane_mode_on", "1"),
        ("global/wifi_on", "0"),
        ("global/bluetooth_on", "1"),
        ("global/zen_mode", "1"),
        ("global/low_power", "1"),
    ] {
        p.write_setting(key, value);
    }
    assert_eq!(status_icons(&p), [BATTERY_SAVER, AIRPLANE, BLUETOOTH, DND]);
    assert_eq!(placeholder_icons(&p.composite()), 0);
    // On the launcher only the status bar changes, and it does change.
    let after = p.screenshot_rgb();
    let changed: Vec<(u32, u32)> = after
        .enumerate_pixels()
        .filter(|(x, y, px)| before.get_pixel(*x, *y) != *px)
        .map(|(x, y, _)| (x, y))
        .collect();
    assert!(changed.len() > 500, "{} pixels changed", changed.len());
    assert!(
        changed.iter().all(|&(_, y)| y < 118),
        "drawn below the status bar"
    );
}

#[test]
fn an_avatar_takes_its_colour_from_a_stable_hash_of_the_name() {
    use super::icons::name_hash;
    // FNV-1a: fixed values, unlike std's per-process seeded hasher.
    assert_eq!(name_hash("Alex Moreno"), 4_249_240_569);
    assert_eq!(name_hash("Mum"), 1_334_542_222);
    let mut p = phone();
    launch(&mut p, "com.google.android.contacts");
    let root = p.composite();
    let img = p.screenshot_rgb();
    let avatar_fill = |name: &str| {
        let row = root
            .walk()
            .find(|v| v.walk().any(|c| c.node.text == name) && v.node.clickable)
            .unwrap();
        let avatar = row
            .walk()
            .find(|v| v.node.resource_id.ends_with(":id/avatar"))
            .unwrap();
        // Just inside the circle's left edge, clear of the initial.
        let b = avatar.node.bounds;
        let (x, y) = (b.left + 12, (b.top + b.bottom) / 2);
        img.get_pixel(x as u32, y as u32).0
    };
    let light = &super::palette::LIGHT.avatars;
    assert_eq!(avatar_fill("Alex Moreno"), light[1].0);
    assert_eq!(avatar_fill("Mum"), light[6].0);
}

#[test]
fn night_mode_in_the_settings_draws_the_dark_scheme() {
    let mut p = phone();
    launch(&mut p, SETTINGS);
    // A pixel of the page's background, clear of text and icons.
    let background = |p: &SimPhone| p.screenshot_rgb().get_pixel(1060, 1000).0;
    assert_eq!(background(&p), super::palette::LIGHT.surface);
    p.write_setting("secure/ui_night_mode", "2");
    assert_eq!(background(&p), super::palette::DARK.surface);
}

/// The six screens under every device condition, as the phone in that
/// condition draws them (its display, its theme).
fn write_conditions(out: &str) {
    for condition in crate::Condition::ALL {
        for (name, _) in six_screens() {
            let mut p = SimPhone::new(PhoneSetup {
                episode_seed: 1,
                condition,
                ..PhoneSetup::default()
            })
            .unwrap();
            match name {
                "launcher" => {}
                "settings" => launch(&mut p, SETTINGS),
                "internet" => p.open(&Intent("sim:settings.internet".into())).unwrap(),
                "contacts" => launch(&mut p, "com.google.android.contacts"),
                "messages_thread" => {
                    launch(&mut p, "com.google.android.apps.messaging");
                    tap(&mut p, &Selector::desc("Tomás Silva, 2 unread messages"));
                }
                _ => {
                    launch(&mut p, CLOCK);
                    tap(&mut p, &Selector::desc("Add alarm"));
                }
            }
            let obs = p.observe(true).unwrap();
            let stem = format!("{out}/{condition}_{name}");
            std::fs::write(format!("{stem}.png"), obs.screenshot.unwrap()).unwrap();
            std::fs::write(format!("{stem}.xml"), obs.xml).unwrap();
        }
    }
}

#[test]
#[ignore = "writes PNGs and dumps to $SCREENS_OUT"]
fn write_six_screens_every_condition() {
    write_conditions(&std::env::var("SCREENS_OUT").unwrap());
}
