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
    assert!(screens.len() >= 30, "only {} screens", screens.len());
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
    for (name, p) in six_screens() {
        let root = p.composite();
        let img = super::render_rgb(&root, &Display::default(), Theme::Light);
        for v in root.walk() {
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
        "35e79dce073ec573d028c5de266a9f5ac887731b9efb604979ae70db3f82bb95",
        "ea0ea94627d67f96459e27d8a340dca70bfc659568045141632c4df00eb3ee6e",
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
        "c3acd285643450f63a47218708f11f7215ff2994d10711edf8020e4790828d2a",
        "b46894ed1921c1ce538539d14307dd3dffb21640becb154a824bbac8d65bec2f",
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
