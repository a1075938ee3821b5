//! Renderer tests: determinism, pixels staying inside their view's bounds, odd
//! input never panicking, and a realistic Settings screen to look at.

use std::time::Instant;

use image::RgbImage;
use proptest::prelude::*;

use super::*;
use crate::uiautomator::{Bounds, Node};

const W: u32 = 1080;
const H: u32 = 2400;

/// A `w`×`h` display at the default density, light: what most tests draw on.
fn sized(w: u32, h: u32) -> Display {
    Display {
        width: w as i32,
        height: h as i32,
        ..Display::default()
    }
}

fn png_of(root: &View, w: u32, h: u32) -> Vec<u8> {
    render_png(root, &sized(w, h), Theme::Light)
}

fn rgb_of(root: &View, w: u32, h: u32) -> RgbImage {
    render_rgb(root, &sized(w, h), Theme::Light)
}

fn view(style: Style, (l, t, r, b): (i32, i32, i32, i32), text: &str) -> View {
    View {
        node: Node {
            text: text.into(),
            enabled: true,
            bounds: Bounds::new(l, t, r, b),
            ..Node::default()
        },
        style,
        ..View::default()
    }
}

fn with(mut parent: View, children: Vec<View>) -> View {
    parent.children = children;
    parent
}

fn screen(children: Vec<View>) -> View {
    with(
        view(Style::Screen, (0, 0, W as i32, H as i32), ""),
        children,
    )
}

fn icon(bounds: (i32, i32, i32, i32), desc: &str) -> View {
    let mut v = view(Style::Icon, bounds, "");
    v.node.content_desc = desc.into();
    v
}

fn switch(bounds: (i32, i32, i32, i32), checked: bool) -> View {
    let mut v = view(Style::Switch, bounds, "");
    v.node.checked = checked;
    v
}

fn nav_button(bounds: (i32, i32, i32, i32), desc: &str) -> View {
    let mut v = view(Style::NavButton, bounds, "");
    v.node.content_desc = desc.into();
    v
}

/// A settings row at `top`: icon, title, summary and an optional switch.
fn setting_row(top: i32, title: &str, summary: &str, toggle: Option<bool>) -> View {
    let mut children = vec![
        icon((48, top + 50, 148, top + 150), title),
        view(
            Style::Text(TextSize::Title),
            (196, top + 36, 860, top + 100),
            title,
        ),
        view(
            Style::Text(TextSize::Small),
            (196, top + 100, 860, top + 164),
            summary,
        ),
    ];
    children.extend(toggle.map(|on| switch((880, top + 50, 1032, top + 150), on)));
    with(view(Style::Row, (0, top, 1080, top + 200), ""), children)
}

/// Settings › Network & internet with a rename dialog open.
fn sample_settings() -> View {
    let mut hotspot = setting_row(960, "Hotspot & tethering", "Off", None);
    hotspot.node.enabled = false;
    for v in &mut hotspot.children {
        v.node.enabled = false;
    }
    let mut seek = view(Style::SeekBar, (48, 1290, 1032, 1370), "");
    seek.progress = Some(0.4);
    let mut name = view(Style::EditText, (108, 1780, 972, 1900), "");
    name.hint = Some("Device name".into());
    name.node.focused = true;
    screen(vec![
        view(Style::StatusBar, (0, 0, 1080, 100), "12:30"),
        view(Style::Heading, (48, 180, 1032, 330), "Network & internet"),
        setting_row(360, "Wi-Fi", "HomeNet-5G · connected", Some(true)),
        setting_row(560, "Mobile network", "T-Mobile", Some(false)),
        setting_row(
            760,
            "Airplane mode",
            "Turn off radios to save battery on long flights",
            Some(false),
        ),
        hotspot,
        view(
            Style::Text(TextSize::Body),
            (48, 1200, 1032, 1280),
            "Screen brightness",
        ),
        seek,
        with(
            view(Style::Dialog, (60, 1600, 1020, 2150), ""),
            vec![
                view(
                    Style::Text(TextSize::Title),
                    (108, 1660, 972, 1740),
                    "Rename this device",
                ),
                name,
                view(Style::Button, (520, 2010, 740, 2110), "Cancel"),
                view(Style::Button, (780, 2010, 972, 2110), "OK"),
            ],
        ),
        with(
            view(Style::NavBar, (0, 2274, 1080, 2400), ""),
            vec![
                nav_button((140, 2274, 340, 2400), "Back"),
                nav_button((440, 2274, 640, 2400), "Home"),
                nav_button((740, 2274, 940, 2400), "Overview"),
            ],
        ),
    ])
}

/// Clock › Alarm: tabs, a big time, a radio pair and a FAB.
fn sample_clock() -> View {
    let mut alarm = view(Style::Tab, (0, 120, 360, 240), "Alarm");
    alarm.node.selected = true;
    let mut once = view(Style::Radio, (48, 800, 1032, 926), "Ring once");
    once.node.checked = true;
    let mut fab = view(Style::Fab, (858, 2040, 1026, 2208), "");
    fab.node.content_desc = "Add alarm".into();
    screen(vec![
        view(Style::StatusBar, (0, 0, 1080, 100), "7:02"),
        alarm,
        view(Style::Tab, (360, 120, 720, 240), "Clock"),
        view(Style::Tab, (720, 120, 1080, 240), "Timer"),
        view(Style::BigTime, (48, 320, 1032, 620), "7:30"),
        view(
            Style::Text(TextSize::Body),
            (48, 640, 1032, 720),
            "Mon, Tue, Wed, Thu, Fri",
        ),
        once,
        view(Style::Radio, (48, 926, 1032, 1052), "Repeat daily"),
        view(
            Style::Text(TextSize::Body),
            (48, 1100, 1032, 1180),
            "Ünïcödé ok, 日本語 boxed",
        ),
        switch((880, 1200, 1032, 1300), true),
        fab,
    ])
}

/// Pixels that differ between two images of the same size, as (x, y).
fn diff(a: &RgbImage, b: &RgbImage) -> Vec<(i32, i32)> {
    a.enumerate_pixels()
        .zip(b.pixels())
        .filter(|((_, _, p), q)| p != q)
        .map(|((x, y, _), _)| (x as i32, y as i32))
        .collect()
}

#[test]
fn same_tree_gives_identical_png_bytes() {
    let tree = sample_settings();
    let a = png_of(&tree, W, H);
    let b = png_of(&tree.clone(), W, H);
    assert!(!a.is_empty());
    assert!(a == b, "two renders of one tree differ");
}

#[test]
fn png_decodes_to_the_requested_size() {
    for (w, h) in [(W, H), (1, 1), (33, 7)] {
        let png = png_of(&sample_clock(), w, h);
        let img = image::load_from_memory_with_format(&png, image::ImageFormat::Png).unwrap();
        assert_eq!((img.width(), img.height()), (w, h));
    }
}

#[test]
fn zero_sized_canvas_still_gives_a_png() {
    let png = png_of(&sample_clock(), 0, 0);
    let img = image::load_from_memory_with_format(&png, image::ImageFormat::Png).unwrap();
    assert_eq!((img.width(), img.height()), (1, 1));
}

#[test]
fn switch_state_changes_pixels_only_inside_its_bounds() {
    let bounds = Bounds::new(880, 410, 1032, 510);
    let tree = |on| screen(vec![setting_row(360, "Wi-Fi", "Connected", Some(on))]);
    let (on, off) = (rgb_of(&tree(true), W, H), rgb_of(&tree(false), W, H));
    let changed = diff(&on, &off);
    assert!(
        changed.len() > 1000,
        "checked and unchecked look alike: {} pixels differ",
        changed.len()
    );
    assert!(
        changed.iter().all(|&(x, y)| bounds.contains(x, y)),
        "switch drew outside {bounds}"
    );
    // The checked thumb is on the right half (below its check mark), the
    // unchecked one on the left.
    let right = |img: &RgbImage| img.get_pixel(981, 486).0;
    let left = |img: &RgbImage| img.get_pixel(934, 460).0;
    assert_eq!(right(&on), palette::LIGHT.on_primary);
    assert_eq!(left(&off), palette::LIGHT.outline);
}

#[test]
fn every_two_state_style_shows_its_state_inside_its_bounds() {
    let bounds = (100, 100, 700, 230);
    type Set = fn(&mut Node);
    let cases: [(Style, &str, Set); 5] = [
        (Style::Switch, "", |n| n.checked = true),
        (Style::Radio, "Ring once", |n| n.checked = true),
        (Style::Tab, "Alarm", |n| n.selected = true),
        (Style::EditText, "", |n| n.focused = true),
        (Style::EditText, "secret", |n| n.password = true),
    ];
    for (style, text, set) in cases {
        let plain = view(style, bounds, text);
        let mut changed = plain.clone();
        set(&mut changed.node);
        let (a, b) = (
            rgb_of(&screen(vec![plain]), 800, 400),
            rgb_of(&screen(vec![changed]), 800, 400),
        );
        let moved = diff(&a, &b);
        let (l, t, r, bt) = bounds;
        assert!(
            moved.len() > 50,
            "{style:?}: state barely shows ({} pixels)",
            moved.len()
        );
        assert!(
            moved
                .iter()
                .all(|&(x, y)| Bounds::new(l, t, r, bt).contains(x, y)),
            "{style:?} drew outside"
        );
    }
}

#[test]
fn text_pixels_stay_inside_the_text_view() {
    let long = "Mobile data usage this month is far longer than the row is wide";
    for text in ["Wi-Fi", long, "Ünïcödé 日本語 🙂"] {
        for (l, t, r, b) in [
            (200, 300, 700, 380),
            (200, 300, 260, 310),
            (-40, -10, 90, 30),
            (1000, 2340, 1200, 2420),
        ] {
            let bounds = Bounds::new(l, t, r, b);
            let blank = rgb_of(&screen(vec![]), W, H);
            let drawn = rgb_of(
                &screen(vec![view(Style::Text(TextSize::Body), (l, t, r, b), text)]),
                W,
                H,
            );
            let changed = diff(&blank, &drawn);
            assert!(!changed.is_empty(), "{text:?} at {bounds} drew nothing");
            assert!(
                changed.iter().all(|&(x, y)| bounds.contains(x, y)),
                "{text:?} leaked out of {bounds}"
            );
        }
    }
}

#[test]
fn long_text_ends_in_an_ellipsis() {
    let face = Face::new(text::Weight::Regular, 40.0);
    let width = |s: &str| text::line_width(&text::chars_of(s), face).ceil() as i64;
    let chars = text::chars_of("Turn off radios to save battery");
    let lines = text::layout(&chars, face, width("Turn off ra…"), 1);
    assert_eq!(lines, vec!["Turn off ra…".chars().collect::<Vec<_>>()]);
    let lines = text::layout(&chars, face, width("save battery"), 3);
    let lines: Vec<String> = lines.iter().map(|l| l.iter().collect()).collect();
    assert_eq!(lines, ["Turn off", "radios to", "save battery"]);
    assert!(text::layout(&chars, face, width("T") - 1, 3).is_empty());
}

#[test]
fn disabled_views_are_drawn_without_accent() {
    let button = |enabled| {
        let mut b = view(Style::Button, (100, 100, 500, 220), "OK");
        b.node.enabled = enabled;
        rgb_of(&screen(vec![b]), 600, 300)
    };
    let (on, off) = (button(true), button(false));
    assert!(on.pixels().any(|p| p.0 == palette::LIGHT.primary));
    assert!(!off.pixels().any(|p| p.0 == palette::LIGHT.primary));
    assert!(
        off.pixels().any(|p| p.0 != palette::LIGHT.surface),
        "disabled button vanished"
    );
}

#[test]
fn dialog_dims_what_was_drawn_before_it() {
    let before = rgb_of(&screen(vec![]), 200, 400);
    let after = rgb_of(
        &screen(vec![view(Style::Dialog, (20, 100, 180, 300), "")]),
        200,
        400,
    );
    let outside = after.get_pixel(5, 5).0;
    assert!(outside
        .iter()
        .zip(before.get_pixel(5, 5).0)
        .all(|(a, b)| *a < b));
    assert_eq!(
        after.get_pixel(100, 200).0,
        palette::LIGHT.surface_container_high
    );
}

#[test]
fn odd_bounds_and_values_do_not_panic() {
    let mut seek = view(Style::SeekBar, (10, 10, 5, 50), "");
    seek.progress = Some(f32::NAN);
    let mut seek2 = view(Style::SeekBar, (-500, 10, 50, 50), "");
    seek2.progress = Some(f32::INFINITY);
    let huge = (i32::MIN / 2, i32::MIN / 2, i32::MAX / 2, i32::MAX / 2);
    let children = vec![
        seek,
        seek2,
        view(Style::Button, huge, "huge"),
        view(Style::Dialog, huge, ""),
        view(Style::Icon, (0, 0, 1, 1000), "tall"),
        view(Style::Switch, (-100, -100, -10, -10), ""),
        view(Style::Radio, (190, 390, 400, 800), "off the edge"),
        view(Style::BigTime, (0, 0, 3, 3), "12:00"),
        view(Style::EditText, (10, 10, 12, 12), "x\n\t\u{0}y"),
        view(Style::Text(TextSize::Small), (0, 0, 0, 0), "empty"),
        view(Style::Heading, (50, 50, 40, 40), "inverted"),
    ];
    for (w, h) in [(200, 400), (1, 1), (0, 5)] {
        let png = png_of(&screen(children.clone()), w, h);
        assert!(!png.is_empty());
    }
}

fn style() -> impl Strategy<Value = Style> {
    prop_oneof![
        Just(Style::Container),
        Just(Style::Screen),
        Just(Style::StatusBar),
        Just(Style::NavBar),
        Just(Style::NavButton),
        Just(Style::Heading),
        Just(Style::Text(TextSize::Small)),
        Just(Style::Text(TextSize::Body)),
        Just(Style::Text(TextSize::Title)),
        Just(Style::Row),
        Just(Style::Icon),
        Just(Style::Switch),
        Just(Style::SeekBar),
        Just(Style::Radio),
        Just(Style::Button),
        Just(Style::Fab),
        Just(Style::EditText),
        Just(Style::Dialog),
        Just(Style::Tab),
        Just(Style::BigTime),
    ]
}

fn leaf() -> impl Strategy<Value = View> {
    let coord = -400i32..700;
    let desc = prop_oneof![
        Just("Back".to_string()),
        Just("Home".to_string()),
        Just("Overview".to_string()),
        "\\PC{0,4}"
    ];
    (
        style(),
        (coord.clone(), coord.clone(), coord.clone(), coord),
        "\\PC{0,40}",
        desc,
        any::<[bool; 5]>(),
        any::<Option<f32>>(),
        proptest::option::of("\\PC{0,10}"),
    )
        .prop_map(
            |(
                style,
                (l, t, r, b),
                text,
                desc,
                [checked, enabled, focused, selected, password],
                progress,
                hint,
            )| {
                let mut v = view(style, (l, t, r, b), &text);
                let n = &mut v.node;
                (
                    n.content_desc,
                    n.checked,
                    n.enabled,
                    n.focused,
                    n.selected,
                    n.password,
                ) = (desc.into(), checked, enabled, focused, selected, password);
                v.progress = progress;
                v.hint = hint;
                v
            },
        )
}

fn tree() -> impl Strategy<Value = View> {
    leaf().prop_recursive(3, 24, 5, |inner| {
        (leaf(), prop::collection::vec(inner, 0..5)).prop_map(|(v, kids)| with(v, kids))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_trees_render_without_panicking(root in tree(), w in 1u32..300, h in 1u32..300) {
        let png = png_of(&root, w, h);
        let img = image::load_from_memory_with_format(&png, image::ImageFormat::Png).unwrap();
        prop_assert_eq!((img.width(), img.height()), (w, h));
    }
}

/// Writes the sample screens to /tmp for a person to look at:
/// `cargo test -p droidscore --lib render::tests::write_samples -- --ignored`
#[test]
#[ignore = "writes /tmp/render-sample*.png for inspection"]
fn write_samples() {
    std::fs::write("/tmp/render-sample.png", png_of(&sample_settings(), W, H)).unwrap();
    std::fs::write(
        "/tmp/render-sample-clock.png",
        png_of(&sample_clock(), W, H),
    )
    .unwrap();
    // 1:1 crops, since an image viewer shrinks the whole screen.
    let full = rgb_of(&sample_settings(), W, H);
    for (name, top) in [("rows", 150), ("dialog", 1560)] {
        let crop = image::imageops::crop_imm(&full, 0, top, W, 800).to_image();
        crop.save(format!("/tmp/render-sample-{name}.png")).unwrap();
    }
}

/// Render time per 1080×2400 screen; run in release:
/// `cargo test --release -p droidscore --lib render::tests::time_per_screen -- --ignored --nocapture`
#[test]
#[ignore = "timing, meaningful only in release"]
fn time_per_screen() {
    let tree = sample_settings();
    let median = |f: &dyn Fn()| {
        let mut ms: Vec<f64> = (0..31)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        ms.sort_by(f64::total_cmp);
        ms[ms.len() / 2]
    };
    let rgb = median(&|| drop(rgb_of(&tree, W, H)));
    let png = median(&|| drop(png_of(&tree, W, H)));
    println!("median of 31: render_rgb {rgb:.2} ms, render_png {png:.2} ms");
    for (name, p) in super::screens_tests::six_screens() {
        let root = p.composite();
        let display = Display::default();
        let png = median(&|| drop(render_png(&root, &display, Theme::Light)));
        println!("{name}: render_png {png:.2} ms");
    }
}

#[test]
fn symbols_avatars_and_launcher_icons_stay_inside_their_bounds() {
    let mut launcher_icon = icon((300, 300, 570, 560), "Clock");
    launcher_icon.node.text = "Clock".into();
    launcher_icon.on_tap = Some(crate::sim::Cmd::Launch(
        "com.google.android.deskclock".into(),
    ));
    let mut avatar = view(Style::Icon, (40, 900, 160, 1020), "");
    avatar.node.resource_id = "com.google.android.contacts:id/avatar".into();
    let row = with(
        view(Style::Row, (0, 880, 1080, 1040), ""),
        vec![
            avatar,
            view(Style::Text(TextSize::Title), (210, 900, 900, 1020), "Mum"),
        ],
    );
    let cases = [
        (
            icon((0, 118, 147, 265), "Navigate up"),
            Bounds::new(0, 118, 147, 265),
        ),
        (
            icon((10, 10, 40, 40), "More options"),
            Bounds::new(10, 10, 40, 40),
        ),
        (launcher_icon, Bounds::new(300, 300, 570, 560)),
        (row, Bounds::new(0, 880, 1080, 1040)),
    ];
    let blank = rgb_of(&screen(vec![]), W, H);
    for (view, bounds) in cases {
        let drawn = rgb_of(&screen(vec![view.clone()]), W, H);
        let changed = diff(&blank, &drawn);
        assert!(
            changed.len() > 20,
            "{:?} barely drew: {} pixels",
            view.node.content_desc,
            changed.len()
        );
        assert!(
            changed.iter().all(|&(x, y)| bounds.contains(x, y)),
            "{:?} drew outside {bounds}",
            view.node.content_desc
        );
        assert_eq!(placeholder_icons(&view), 0, "{:?}", view.node.content_desc);
    }
}
