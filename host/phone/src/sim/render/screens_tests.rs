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
        "1fb91968460efbfb8e95c2503557b78ef664519d2ada54d427f3fa8ff5f83355",
        "ac28fabe6e652a97169edb16acfe39259654fcd4882cc922e5432ced716af182",
    ),
    (
        "settings",
        "e5c4853b72e54e090a6ce4b0ca22e628627945a4efb3463713e8f516f1b0b3ad",
        "cf519f0b03e7339c08a76aec541bc5eb0f788fbb1a492ba00159bce34466ea57",
    ),
    (
        "internet",
        "dcd4d57ffbb334faa23826a05b49aedecfd4d3e05c4a87ed9676ea8d38688d26",
        "6c1621e15fd89ed6899ba16a5d67758df2f67b7155a0fd8c1737dec0b4d3b4a4",
    ),
    (
        "contacts",
        "cf9c2fb18c3a9401b613b705503e1307debbf41d01b3b3c812f8756538dd29ed",
        "fb16474b09c7850a6d6193663e24b3681d8c4be0afed92f6d63b8348917d668e",
    ),
    (
        "messages_thread",
        "6e0a7af5a7fe9c59202faf9fd8706434d15bc776293336bc383ade95a337e367",
        "3fa9103cdeff262e68a2529faabf72eb4d6f6d088cd25c1be4eee9cf6e7f6cd3",
    ),
    (
        "alarm_editor",
        "6ef01f39385c248c18939ccbc0eadee9e0527865a97fcd566a77e434d1067ff2",
        "ed31f647f608ccf3986af122e88134f403c061b6ac23df7258ff50afbdc36f82",
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
        // The notification icons on the left are the records', not the settings'.
        .filter(|d| !d.contains(" notification: "))
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
