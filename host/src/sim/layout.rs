//! Layout: turn the simulator's state and navigation into the laid-out view
//! tree of the current window, with uiautomator's classes, resource ids and row
//! structure (the clickable target in Settings is the row, not its title).

use super::app::{RowDef, RowKind, SettingsApp};
use super::cmd::{ClockTab, Cmd, Dialog, Field, Screen};
use super::state::State;
use super::variant::Variant;
use super::view::{Style, TextSize, View};
use crate::uiautomator::{Bounds, Node};

pub const WIDTH: i32 = 1080;
pub const HEIGHT: i32 = 2400;
pub const STATUS_BAR: i32 = 118;
pub const NAV_BAR_TOP: i32 = 2274;

pub const SETTINGS: &str = "com.android.settings";
pub const CLOCK: &str = "com.google.android.deskclock";
pub const LAUNCHER: &str = "com.google.android.apps.nexuslauncher";
const SYSTEMUI: &str = "com.android.systemui";

/// Launcher icons: label, package. Only Settings and Clock are simulated.
pub const APPS: &[(&str, &str)] = &[
    ("Phone", "com.google.android.dialer"),
    ("Messages", "com.google.android.apps.messaging"),
    ("Chrome", "com.android.chrome"),
    ("Camera", "com.google.android.GoogleCamera"),
    ("Photos", "com.google.android.apps.photos"),
    ("Gmail", "com.google.android.gm"),
    ("Clock", CLOCK),
    ("Settings", SETTINGS),
];

/// Everything needed to lay out one frame.
#[derive(Debug)]
pub struct Ctx<'a> {
    pub app: &'a SettingsApp,
    pub variant: &'a Variant,
    pub state: &'a State,
    pub scroll: i32,
    pub expanded: Option<u32>,
    /// The status bar clock, `HH:MM`.
    pub clock: String,
}

/// One laid-out frame.
#[derive(Debug)]
pub struct Frame {
    /// The app window (what `uiautomator dump` shows when no dialog is open).
    pub window: View,
    /// The dialog window, when one is open (then the dump shows only it).
    pub dialog: Option<View>,
    /// Status and navigation bars: drawn and tappable, never dumped.
    pub bars: View,
    /// How far the current list can scroll, in pixels.
    pub max_scroll: i32,
}

impl Ctx<'_> {
    fn t<'s>(&'s self, label: &'s str) -> String {
        self.variant.label(label).to_string()
    }

    fn value(&self, key: &str) -> &str {
        self.state.get(key).unwrap_or("")
    }
}

/// Builder shorthand for a view.
fn v(class: &str, package: &str, b: Bounds) -> View {
    View {
        node: Node {
            class: class.into(),
            package: package.into(),
            enabled: true,
            bounds: b,
            ..Node::default()
        },
        ..View::default()
    }
}

impl View {
    fn id(mut self, id: &str) -> Self {
        self.node.resource_id = id.into();
        self
    }
    fn text(mut self, text: impl Into<String>) -> Self {
        self.node.text = text.into();
        self
    }
    fn desc(mut self, desc: impl Into<String>) -> Self {
        self.node.content_desc = desc.into();
        self
    }
    fn style(mut self, style: Style) -> Self {
        self.style = style;
        self
    }
    fn tap(mut self, cmd: Cmd) -> Self {
        self.node.clickable = true;
        self.node.focusable = true;
        self.on_tap = Some(cmd);
        self
    }
    fn checkable(mut self, checked: bool) -> Self {
        self.node.checkable = true;
        self.node.checked = checked;
        self
    }
    fn child(mut self, child: View) -> Self {
        self.children.push(child);
        self
    }
    fn scrollable(mut self) -> Self {
        self.node.scrollable = true;
        self.node.focusable = true;
        self
    }
}

/// Clip every view to its parent's visible bounds (and the screen), as
/// uiautomator reports visible bounds; views wholly outside end up empty.
fn clip(view: &mut View, to: Bounds) {
    view.node.bounds = view.node.bounds.intersect(&to);
    let inner = view.node.bounds;
    for child in &mut view.children {
        clip(child, inner);
    }
}

pub fn layout(ctx: &Ctx, screen: &Screen, dialog: Option<&Dialog>) -> Frame {
    let (window, max_scroll) = match screen {
        Screen::Launcher => (launcher(ctx), 0),
        Screen::Settings(id) => settings_page(ctx, id),
        Screen::Blank { title, package } => (blank(ctx, title, package), 0),
        Screen::Clock(tab) => clock(ctx, *tab),
    };
    let mut window = window;
    clip(&mut window, Bounds::new(0, 0, WIDTH, HEIGHT));
    let dialog = dialog.map(|d| {
        let mut view = match d {
            Dialog::TimePicker {
                hour,
                minute,
                focus,
                error,
            } => time_picker(ctx, hour, minute, *focus, *error),
            Dialog::Label { text, focused, .. } => label_dialog(ctx, text, *focused),
        };
        clip(&mut view, Bounds::new(0, 0, WIDTH, HEIGHT));
        view
    });
    Frame {
        window,
        dialog,
        bars: bars(ctx),
        max_scroll,
    }
}

fn bars(ctx: &Ctx) -> View {
    let status = v(
        "android.widget.FrameLayout",
        SYSTEMUI,
        Bounds::new(0, 0, WIDTH, STATUS_BAR),
    )
    .style(Style::StatusBar)
    .child(
        v(
            "android.widget.TextView",
            SYSTEMUI,
            Bounds::new(63, 30, 300, 90),
        )
        .text(ctx.clock.clone())
        .style(Style::Text(TextSize::Small)),
    );
    let status = if ctx.value("app/battery_percentage_on") == "1" {
        status.child(
            v(
                "android.widget.TextView",
                SYSTEMUI,
                Bounds::new(880, 30, 1017, 90),
            )
            .text("100%")
            .style(Style::Text(TextSize::Small)),
        )
    } else {
        status
    };
    let nav = v(
        "android.widget.FrameLayout",
        SYSTEMUI,
        Bounds::new(0, NAV_BAR_TOP, WIDTH, HEIGHT),
    )
    .style(Style::NavBar);
    let buttons = [
        ("Back", Cmd::Back, 160),
        ("Home", Cmd::Home, 540),
        ("Overview", Cmd::Overview, 920),
    ];
    let nav = buttons.into_iter().fold(nav, |nav, (desc, cmd, cx)| {
        nav.child(
            v(
                "android.widget.ImageView",
                SYSTEMUI,
                Bounds::new(cx - 100, NAV_BAR_TOP, cx + 100, HEIGHT),
            )
            .desc(desc)
            .style(Style::NavButton)
            .tap(cmd),
        )
    });
    v(
        "android.widget.FrameLayout",
        SYSTEMUI,
        Bounds::new(0, 0, WIDTH, HEIGHT),
    )
    .child(status)
    .child(nav)
}

/// The app window's root and content frame, as every app's dump starts.
fn window(package: &str, content: Vec<View>) -> View {
    let mut frame = v(
        "android.widget.FrameLayout",
        package,
        Bounds::new(0, 0, WIDTH, HEIGHT),
    )
    .id("android:id/content");
    frame.children = content;
    v(
        "android.widget.FrameLayout",
        package,
        Bounds::new(0, 0, WIDTH, HEIGHT),
    )
    .style(Style::Screen)
    .child(
        v(
            "android.widget.LinearLayout",
            package,
            Bounds::new(0, 0, WIDTH, HEIGHT),
        )
        .child(frame),
    )
}

fn launcher(ctx: &Ctx) -> View {
    let p = LAUNCHER;
    let mut content = vec![
        v(
            "android.widget.TextView",
            p,
            Bounds::new(63, 260, 1017, 460),
        )
        .text(ctx.clock.clone())
        .style(Style::BigTime),
        v(
            "android.widget.TextView",
            p,
            Bounds::new(63, 460, 1017, 540),
        )
        .text("Mon, Nov 30")
        .style(Style::Text(TextSize::Body)),
    ];
    let (cols, cell_w, cell_h, top) = (4, WIDTH / 4, 260, 1500);
    for (i, (label, package)) in APPS.iter().enumerate() {
        let (col, row) = (i as i32 % cols, i as i32 / cols);
        let b = Bounds::new(
            col * cell_w,
            top + row * cell_h,
            (col + 1) * cell_w,
            top + (row + 1) * cell_h,
        );
        let label = ctx.t(label);
        content.push(
            v("android.widget.TextView", p, b)
                .text(label.clone())
                .desc(label)
                .style(Style::Icon)
                .tap(Cmd::Launch(package.to_string())),
        );
    }
    content.push(
        v(
            "android.widget.FrameLayout",
            p,
            Bounds::new(63, 2070, 1017, 2220),
        )
        .id("com.google.android.apps.nexuslauncher:id/search_container_hotseat")
        .desc("Search")
        .style(Style::Button)
        .tap(Cmd::Nothing),
    );
    window(p, content)
}

fn blank(ctx: &Ctx, title: &str, package: &str) -> View {
    let p = package;
    window(
        p,
        vec![
            v(
                "android.widget.ImageButton",
                p,
                Bounds::new(0, STATUS_BAR, 147, 265),
            )
            .desc("Navigate up")
            .style(Style::Icon)
            .tap(Cmd::Back),
            v(
                "android.widget.TextView",
                p,
                Bounds::new(63, 300, 1017, 480),
            )
            .text(ctx.t(title))
            .style(Style::Heading),
        ],
    )
}

const TOOLBAR_BOTTOM: i32 = 538;
const HOME_LIST_TOP: i32 = 600;

fn settings_page(ctx: &Ctx, id: &str) -> (View, i32) {
    let p = SETTINGS;
    let Some(screen) = ctx.app.screen(id) else {
        return (blank(ctx, id, p), 0);
    };
    let title = ctx.t(&screen.title);
    let (mut content, list_top) = if id == "settings" {
        let header = vec![
            v(
                "android.widget.TextView",
                p,
                Bounds::new(63, 180, 1017, 380),
            )
            .id("com.android.settings:id/homepage_title")
            .text(title)
            .style(Style::Heading),
            v(
                "android.widget.LinearLayout",
                p,
                Bounds::new(42, 418, 1038, 565),
            )
            .id("com.android.settings:id/search_action_bar")
            .style(Style::Button)
            .tap(Cmd::Nothing)
            .child(
                v(
                    "android.widget.TextView",
                    p,
                    Bounds::new(140, 440, 1000, 543),
                )
                .text(ctx.t("Search settings"))
                .style(Style::Text(TextSize::Body)),
            ),
        ];
        (header, HOME_LIST_TOP)
    } else {
        let toolbar = v(
            "android.widget.FrameLayout",
            p,
            Bounds::new(0, STATUS_BAR, WIDTH, TOOLBAR_BOTTOM),
        )
        .id("com.android.settings:id/collapsing_toolbar")
        .desc(title.clone())
        .child(
            v(
                "android.widget.ImageButton",
                p,
                Bounds::new(0, STATUS_BAR, 147, 265),
            )
            .desc(ctx.t("Navigate up"))
            .style(Style::Icon)
            .tap(Cmd::Back),
        )
        .child(
            v(
                "android.widget.TextView",
                p,
                Bounds::new(63, 330, 1017, 500),
            )
            .text(title)
            .style(Style::Heading),
        );
        (vec![toolbar], TOOLBAR_BOTTOM)
    };
    let viewport = Bounds::new(0, list_top, WIDTH, NAV_BAR_TOP);
    let mut list = v("androidx.recyclerview.widget.RecyclerView", p, viewport)
        .id("com.android.settings:id/recycler_view")
        .scrollable();
    let mut y = list_top - ctx.scroll;
    for row in ctx.app.rows(screen, ctx.variant) {
        if let Some(when) = &row.when {
            let (key, want) = when.split_once('=').unwrap_or((when, ""));
            if ctx.value(key) != want {
                continue;
            }
        }
        let (view, height) = settings_row(ctx, &row, y);
        list.children.push(view);
        y += height;
    }
    let content_height = y + ctx.scroll - list_top;
    let max_scroll = (content_height - viewport.height()).max(0);
    clip(&mut list, viewport);
    content.push(list);
    (window(p, content), max_scroll)
}

fn summary_text(ctx: &Ctx, row: &RowDef) -> Option<String> {
    if let Some(key) = &row.summary_of {
        return row.summaries.get(ctx.value(key)).map(|s| ctx.t(s));
    }
    row.summary.as_deref().map(|s| ctx.t(s))
}

/// The title/summary block of a row, starting at `left`.
fn titles(
    ctx: &Ctx,
    title: &str,
    summary: Option<&str>,
    left: i32,
    right: i32,
    y: i32,
    h: i32,
) -> View {
    let p = SETTINGS;
    let mut block = v(
        "android.widget.RelativeLayout",
        p,
        Bounds::new(left, y + 42, right, y + h - 42),
    );
    match summary {
        Some(summary) => {
            block = block
                .child(
                    v(
                        "android.widget.TextView",
                        p,
                        Bounds::new(left, y + 42, right, y + 112),
                    )
                    .id("android:id/title")
                    .text(ctx.t(title))
                    .style(Style::Text(TextSize::Title)),
                )
                .child(
                    v(
                        "android.widget.TextView",
                        p,
                        Bounds::new(left, y + 112, right, y + h - 42),
                    )
                    .id("android:id/summary")
                    .text(summary)
                    .style(Style::Text(TextSize::Small)),
                );
        }
        None => {
            block = block.child(
                v(
                    "android.widget.TextView",
                    p,
                    Bounds::new(left, y + 42, right, y + h - 42),
                )
                .id("android:id/title")
                .text(ctx.t(title))
                .style(Style::Text(TextSize::Title)),
            );
        }
    }
    block
}

fn settings_row(ctx: &Ctx, row: &RowDef, y: i32) -> (View, i32) {
    let p = SETTINGS;
    let summary = summary_text(ctx, row);
    let h = if summary.is_some() { 231 } else { 168 };
    let label = ctx.t(&row.title);
    let text_left = if row.icon { 189 } else { 63 };
    let icon = |row_view: View| {
        if row.icon {
            row_view.child(
                v(
                    "android.widget.LinearLayout",
                    p,
                    Bounds::new(0, y, 189, y + h),
                )
                .id("android:id/icon_frame")
                .child(
                    v(
                        "android.widget.ImageView",
                        p,
                        Bounds::new(63, y + h / 2 - 32, 127, y + h / 2 + 32),
                    )
                    .id("android:id/icon")
                    .desc(String::new())
                    .style(Style::Icon),
                ),
            )
        } else {
            row_view
        }
    };
    let row_box = |h: i32| {
        v(
            "android.widget.LinearLayout",
            p,
            Bounds::new(0, y, WIDTH, y + h),
        )
        .style(Style::Row)
    };
    match row.kind() {
        RowKind::Nav(to) => {
            let cmd = match to {
                Some(to) => Cmd::Open(to),
                None => Cmd::OpenBlank {
                    title: row.title.clone(),
                    package: p.into(),
                },
            };
            let view = icon(row_box(h).tap(cmd)).child(titles(
                ctx,
                &row.title,
                summary.as_deref(),
                text_left,
                1017,
                y,
                h,
            ));
            (view, h)
        }
        RowKind::Info => {
            let view = v(
                "android.widget.LinearLayout",
                p,
                Bounds::new(0, y, WIDTH, y + 168),
            )
            .child(
                v(
                    "android.widget.TextView",
                    p,
                    Bounds::new(63, y + 42, 1017, y + 126),
                )
                .id("android:id/title")
                .text(label)
                .style(Style::Text(TextSize::Small)),
            );
            (view, 168)
        }
        RowKind::Switch { key, on, off } => {
            let checked = ctx.value(&key) == on;
            let target = if checked { off } else { on };
            let view = icon(row_box(h).tap(Cmd::Write {
                key,
                value: target,
                control: label.clone(),
            }))
            .child(titles(
                ctx,
                &row.title,
                summary.as_deref(),
                text_left,
                870,
                y,
                h,
            ))
            .child(
                v(
                    "android.widget.LinearLayout",
                    p,
                    Bounds::new(870, y, WIDTH, y + h),
                )
                .id("android:id/widget_frame")
                .child(
                    v(
                        "android.widget.Switch",
                        p,
                        Bounds::new(903, y + h / 2 - 40, 1017, y + h / 2 + 40),
                    )
                    .id("android:id/switch_widget")
                    .checkable(checked)
                    .style(Style::Switch),
                ),
            );
            (view, h)
        }
        RowKind::MainSwitch { key, on, off } => {
            let checked = ctx.value(&key) == on;
            let target = if checked { off } else { on };
            let (top, bottom) = (y + 21, y + 231);
            let bar = v(
                "android.widget.LinearLayout",
                p,
                Bounds::new(42, top, 1038, bottom),
            )
            .id("com.android.settings:id/settingslib_main_switch_bar")
            .style(Style::Button)
            .tap(Cmd::Write {
                key,
                value: target,
                control: label.clone(),
            })
            .child(
                v(
                    "android.widget.TextView",
                    p,
                    Bounds::new(105, top, 870, bottom),
                )
                .id("com.android.settings:id/switch_text")
                .text(label)
                .style(Style::Text(TextSize::Title)),
            )
            .child(
                v(
                    "android.widget.Switch",
                    p,
                    Bounds::new(903, top + 65, 1017, bottom - 65),
                )
                .id("android:id/switch_widget")
                .checkable(checked)
                .style(Style::Switch),
            );
            (
                v(
                    "android.widget.LinearLayout",
                    p,
                    Bounds::new(0, y, WIDTH, y + 252),
                )
                .child(bar),
                252,
            )
        }
        RowKind::Slider { key, min, max } => {
            let value: i64 = ctx.value(&key).parse().unwrap_or(min);
            let fraction = if max > min {
                (value - min) as f32 / (max - min) as f32
            } else {
                0.0
            };
            let percent = (fraction * 100.0).round() as i64;
            let mut seekbar = v(
                "android.widget.SeekBar",
                p,
                Bounds::new(147, y + 140, 1038, y + 220),
            )
            .id("android:id/seekbar")
            .desc(label.clone())
            .style(Style::SeekBar)
            .tap(Cmd::Slider {
                key,
                min,
                max,
                control: label.clone(),
            });
            seekbar.progress = Some(fraction.clamp(0.0, 1.0));
            let view = v(
                "android.widget.LinearLayout",
                p,
                Bounds::new(0, y, WIDTH, y + 252),
            )
            .child(
                v(
                    "android.widget.TextView",
                    p,
                    Bounds::new(63, y + 30, 800, y + 110),
                )
                .id("android:id/title")
                .text(label)
                .style(Style::Text(TextSize::Title)),
            )
            .child(
                v(
                    "android.widget.TextView",
                    p,
                    Bounds::new(800, y + 30, 1017, y + 110),
                )
                .id("android:id/summary")
                .text(format!("{percent}%"))
                .style(Style::Text(TextSize::Small)),
            )
            .child(seekbar);
            (view, 252)
        }
        RowKind::Radio { key, value } => {
            let checked = ctx.value(&key) == value;
            let view = row_box(168)
                .tap(Cmd::Write {
                    key,
                    value,
                    control: label.clone(),
                })
                .child(
                    v(
                        "android.widget.RadioButton",
                        p,
                        Bounds::new(42, y + 42, 126, y + 126),
                    )
                    .id("android:id/checkbox")
                    .checkable(checked)
                    .style(Style::Radio),
                )
                .child(
                    v(
                        "android.widget.TextView",
                        p,
                        Bounds::new(168, y + 42, 1017, y + 126),
                    )
                    .id("android:id/title")
                    .text(label)
                    .style(Style::Text(TextSize::Title)),
                );
            (view, 168)
        }
        RowKind::ToggleButton {
            key,
            on,
            off,
            text_on,
            text_off,
        } => {
            let is_on = ctx.value(&key) == on;
            let (text, target, id) = if is_on {
                (
                    ctx.t(&text_on),
                    off,
                    "com.android.settings:id/zen_mode_settings_turn_off_button",
                )
            } else {
                (
                    ctx.t(&text_off),
                    on,
                    "com.android.settings:id/zen_mode_settings_turn_on_button",
                )
            };
            let button = v(
                "android.widget.Button",
                p,
                Bounds::new(63, y + 42, 500, y + 168),
            )
            .id(id)
            .text(text.clone())
            .style(Style::Button)
            .tap(Cmd::Write {
                key,
                value: target,
                control: text,
            });
            (
                v(
                    "android.widget.LinearLayout",
                    p,
                    Bounds::new(0, y, WIDTH, y + 210),
                )
                .child(button),
                210,
            )
        }
    }
}

const CARD_COLLAPSED: i32 = 300;
const CARD_EXPANDED: i32 = 520;
const CLOCK_LIST_TOP: i32 = 370;
const CLOCK_TABS_TOP: i32 = 2085;

fn clock(ctx: &Ctx, tab: ClockTab) -> (View, i32) {
    let p = CLOCK;
    let id = |s: &str| format!("{CLOCK}:id/{s}");
    let mut content = vec![v(
        "android.widget.TextView",
        p,
        Bounds::new(63, 180, 1017, 330),
    )
    .id(&id("action_bar_title"))
    .text(ctx.t(tab.label()))
    .style(Style::Heading)];
    let mut max_scroll = 0;
    if tab == ClockTab::Alarm {
        let viewport = Bounds::new(0, CLOCK_LIST_TOP, WIDTH, CLOCK_TABS_TOP);
        let mut list = v("androidx.recyclerview.widget.RecyclerView", p, viewport)
            .id(&id("alarm_recycler_view"))
            .scrollable();
        let mut y = CLOCK_LIST_TOP - ctx.scroll;
        for alarm in ctx.state.alarms() {
            let expanded = ctx.expanded == Some(alarm.id);
            let h = if expanded {
                CARD_EXPANDED
            } else {
                CARD_COLLAPSED
            };
            let (top, bottom) = (y + 21, y + h - 21);
            let mut card = v(
                "androidx.cardview.widget.CardView",
                p,
                Bounds::new(42, top, 1038, bottom),
            )
            .id(&id("alarm_card"))
            .style(Style::Row)
            .tap(Cmd::AlarmExpand(alarm.id))
            .child(
                v(
                    "android.widget.TextView",
                    p,
                    Bounds::new(84, top + 40, 600, top + 190),
                )
                .id(&id("digital_clock"))
                .text(alarm.time_text())
                .style(Style::BigTime),
            );
            if !alarm.label.is_empty() && !expanded {
                card = card.child(
                    v(
                        "android.widget.TextView",
                        p,
                        Bounds::new(84, top + 190, 800, top + 250),
                    )
                    .id(&id("label"))
                    .text(alarm.label.clone())
                    .style(Style::Text(TextSize::Small)),
                );
            }
            card = card
                .child(
                    v(
                        "android.widget.Switch",
                        p,
                        Bounds::new(880, top + 70, 996, top + 150),
                    )
                    .id(&id("onoff"))
                    .checkable(alarm.enabled)
                    .style(Style::Switch)
                    .tap(Cmd::AlarmSwitch {
                        id: alarm.id,
                        on: !alarm.enabled,
                    }),
                )
                .child(
                    v(
                        "android.widget.ImageButton",
                        p,
                        Bounds::new(880, top + 170, 996, top + 250),
                    )
                    .id(&id("arrow"))
                    .desc(ctx.t(if expanded {
                        "Collapse alarm"
                    } else {
                        "Expand alarm"
                    }))
                    .style(Style::Icon)
                    .tap(Cmd::AlarmExpand(alarm.id)),
                );
            if expanded {
                let label = if alarm.label.is_empty() {
                    ctx.t("Add label")
                } else {
                    alarm.label.clone()
                };
                card = card
                    .child(
                        v(
                            "android.widget.TextView",
                            p,
                            Bounds::new(84, top + 270, 800, top + 370),
                        )
                        .id(&id("edit_label"))
                        .text(label)
                        .style(Style::Text(TextSize::Body))
                        .tap(Cmd::AlarmLabel(alarm.id)),
                    )
                    .child(
                        v(
                            "android.widget.Button",
                            p,
                            Bounds::new(84, top + 380, 400, top + 470),
                        )
                        .id(&id("delete"))
                        .text(ctx.t("Delete"))
                        .style(Style::Button)
                        .tap(Cmd::AlarmDelete(alarm.id)),
                    );
            }
            list.children.push(card);
            y += h;
        }
        let content_height = y + ctx.scroll - CLOCK_LIST_TOP;
        max_scroll = (content_height - viewport.height()).max(0);
        if ctx.state.alarms().is_empty() {
            list.children.push(
                v(
                    "android.widget.TextView",
                    p,
                    Bounds::new(63, 900, 1017, 1000),
                )
                .id(&id("alarms_empty_view"))
                .text(ctx.t("No alarms"))
                .style(Style::Text(TextSize::Body)),
            );
        }
        clip(&mut list, viewport);
        content.push(list);
        content.push(
            v(
                "android.widget.ImageButton",
                p,
                Bounds::new(435, 1880, 645, 2060),
            )
            .id(&id("fab"))
            .desc(ctx.t("Add alarm"))
            .style(Style::Fab)
            .tap(Cmd::AddAlarm),
        );
    }
    let mut tabs = v(
        "android.widget.LinearLayout",
        p,
        Bounds::new(0, CLOCK_TABS_TOP, WIDTH, NAV_BAR_TOP),
    )
    .id(&id("tabs"));
    for (i, t) in ClockTab::ALL.iter().enumerate() {
        let x = i as i32 * WIDTH / 5;
        let label = ctx.t(t.label());
        let mut view = v(
            "android.widget.FrameLayout",
            p,
            Bounds::new(x, CLOCK_TABS_TOP, x + WIDTH / 5, NAV_BAR_TOP),
        )
        .desc(label.clone())
        .style(Style::Tab)
        .tap(Cmd::ClockTab(*t));
        view.node.selected = *t == tab;
        view = view.child(
            v(
                "android.widget.TextView",
                p,
                Bounds::new(x, CLOCK_TABS_TOP + 110, x + WIDTH / 5, NAV_BAR_TOP - 20),
            )
            .text(label)
            .style(Style::Text(TextSize::Small)),
        );
        tabs.children.push(view);
    }
    content.push(tabs);
    (window(p, content), max_scroll)
}

fn dialog_frame(title: &str, height: i32, mut body: Vec<View>, ok: &str, cancel: &str) -> View {
    let p = CLOCK;
    let top = (HEIGHT - height) / 2;
    let bottom = top + height;
    let mut panel = v(
        "android.widget.FrameLayout",
        p,
        Bounds::new(63, top, 1017, bottom),
    )
    .style(Style::Dialog);
    panel.children.push(
        v(
            "android.widget.TextView",
            p,
            Bounds::new(126, top + 50, 954, top + 150),
        )
        .id("android:id/alertTitle")
        .text(title)
        .style(Style::Text(TextSize::Title)),
    );
    panel.children.append(&mut body);
    panel.children.push(
        v(
            "android.widget.Button",
            p,
            Bounds::new(500, bottom - 150, 740, bottom - 40),
        )
        .id("android:id/button2")
        .text(cancel)
        .style(Style::Button)
        .tap(Cmd::DialogCancel),
    );
    panel.children.push(
        v(
            "android.widget.Button",
            p,
            Bounds::new(760, bottom - 150, 954, bottom - 40),
        )
        .id("android:id/button1")
        .text(ok)
        .style(Style::Button)
        .tap(Cmd::DialogOk),
    );
    panel
}

fn edit_text(id: &str, b: Bounds, text: &str, hint: &str, focused: bool, field: Field) -> View {
    let mut view = v("android.widget.EditText", CLOCK, b)
        .id(id)
        .text(text)
        .style(Style::EditText)
        .tap(Cmd::Focus(field));
    view.node.focused = focused;
    view.node.long_clickable = true;
    view.hint = Some(hint.to_string());
    view
}

fn time_picker(ctx: &Ctx, hour: &str, minute: &str, focus: Option<Field>, error: bool) -> View {
    let top = (HEIGHT - 820) / 2;
    let mut body = vec![
        edit_text(
            "android:id/input_hour",
            Bounds::new(126, top + 200, 450, top + 380),
            hour,
            "00",
            focus == Some(Field::Hour),
            Field::Hour,
        ),
        v(
            "android.widget.TextView",
            CLOCK,
            Bounds::new(450, top + 200, 510, top + 380),
        )
        .id("android:id/input_separator")
        .text(":")
        .style(Style::BigTime),
        edit_text(
            "android:id/input_minute",
            Bounds::new(510, top + 200, 834, top + 380),
            minute,
            "00",
            focus == Some(Field::Minute),
            Field::Minute,
        ),
        v(
            "android.widget.TextView",
            CLOCK,
            Bounds::new(126, top + 390, 450, top + 450),
        )
        .id("android:id/label_hour")
        .text(ctx.t("hour"))
        .style(Style::Text(TextSize::Small)),
        v(
            "android.widget.TextView",
            CLOCK,
            Bounds::new(510, top + 390, 834, top + 450),
        )
        .id("android:id/label_minute")
        .text(ctx.t("minute"))
        .style(Style::Text(TextSize::Small)),
    ];
    if error {
        body.push(
            v(
                "android.widget.TextView",
                CLOCK,
                Bounds::new(126, top + 470, 954, top + 540),
            )
            .id("android:id/label_error")
            .text(ctx.t("Enter a valid time"))
            .style(Style::Text(TextSize::Small)),
        );
    }
    dialog_frame(
        &ctx.t("Enter time"),
        820,
        body,
        &ctx.t("OK"),
        &ctx.t("Cancel"),
    )
}

fn label_dialog(ctx: &Ctx, text: &str, focused: bool) -> View {
    let top = (HEIGHT - 560) / 2;
    let body = vec![edit_text(
        "com.google.android.deskclock:id/label_input_field",
        Bounds::new(126, top + 180, 954, top + 300),
        text,
        &ctx.t("Label"),
        focused,
        Field::Label,
    )];
    dialog_frame(&ctx.t("Label"), 560, body, &ctx.t("OK"), &ctx.t("Cancel"))
}
