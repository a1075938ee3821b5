//! Layout: turn the simulator's state and navigation into the laid-out view
//! tree of the current window, with uiautomator's classes, resource ids and row
//! structure (the clickable target in Settings is the row, not its title).

mod app;
mod app_dialog;
mod clock;
mod settings;
pub(crate) mod shade;
mod text;
mod views;

use self::app::app_page;
use self::app_dialog::app_dialog;
use self::clock::{clock, label_dialog, time_picker};
use self::settings::settings_page;
use self::views::{blank, clip, v, window};
use super::cmd::{Cmd, Dialog, Screen};
use super::view::{Style, TextSize, View};
use crate::uiautomator::Bounds;

// The launcher's packages, which the layout draws (`crate::apps` owns them).
use crate::apps::{APPS, LAUNCHER};
pub use views::Ctx;
#[cfg(test)]
pub(crate) use views::NAV_BAR;

const SYSTEMUI: &str = "com.android.systemui";

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

pub fn layout(ctx: &Ctx, screen: &Screen, dialog: Option<&Dialog>) -> Frame {
    let (window, max_scroll) = match screen {
        Screen::Launcher => (launcher(ctx), 0),
        Screen::Settings(id) => settings_page(ctx, id),
        Screen::Blank { title, package } => (blank(ctx, title, package), 0),
        Screen::Clock(tab) => clock(ctx, *tab),
        Screen::App(app) => app_page(ctx, app),
    };
    let mut window = window;
    clip(&mut window, ctx.screen());
    let dialog = dialog.map(|d| {
        let mut view = match d {
            Dialog::TimePicker {
                hour,
                minute,
                focus,
                error,
            } => time_picker(ctx, hour, minute, *focus, *error),
            Dialog::Label { text, focused, .. } => label_dialog(ctx, text, *focused),
            Dialog::App(d) => {
                let app = match screen {
                    Screen::App(app) => Some(app),
                    _ => None,
                };
                app_dialog(ctx, app, d)
            }
        };
        clip(&mut view, ctx.screen());
        view
    });
    Frame {
        window,
        dialog,
        bars: bars(ctx),
        max_scroll,
    }
}

/// The notification shade pulled down over the screen (`shade.rs`), with
/// the bars still drawn.
pub fn notification_shade(ctx: &Ctx) -> Frame {
    Frame {
        window: shade::window_of(ctx, &shade::notices(ctx.state)),
        dialog: None,
        bars: bars(ctx),
        max_scroll: 0,
    }
}

/// The Overview screen (recent tasks), laid out by the launcher as Pixel's
/// Quickstep does: one card a task, the task left last in the middle and the
/// older ones to its left, cut off at the screen's edge; each card a
/// tappable `task` view holding the app's icon and name (the card shows no
/// snapshot of the app's screen), and "Clear all" below them. With no
/// recent task, "No recent items".
pub fn overview(ctx: &Ctx, tasks: &[String]) -> Frame {
    let p = LAUNCHER;
    let (card_w, gap) = (ctx.width() * 62 / 100, ctx.px(42));
    let (top, bottom) = (ctx.px(420), ctx.above_bottom(560));
    let mut content = Vec::new();
    for (i, package) in tasks.iter().enumerate() {
        let label = APPS
            .iter()
            .find(|(_, pkg)| pkg == package)
            .map_or(package.as_str(), |(label, _)| label);
        let label = ctx.t(label);
        let left = (ctx.width() - card_w) / 2 - i as i32 * (card_w + gap);
        let card = Bounds::new(left, top, left + card_w, bottom);
        let icon = Bounds::new(
            left + card_w / 2 - ctx.px(63),
            top - ctx.px(150),
            left + card_w / 2 + ctx.px(63),
            top - ctx.px(24),
        );
        content.push(
            v("android.widget.FrameLayout", p, card)
                .id("com.google.android.apps.nexuslauncher:id/task")
                .desc(label.clone())
                .style(Style::Row)
                .tap(Cmd::Launch(package.clone()))
                .child(
                    v("android.widget.ImageView", p, icon)
                        .id("com.google.android.apps.nexuslauncher:id/icon")
                        .desc(label.clone())
                        .style(Style::Icon),
                )
                .child(
                    v(
                        "android.widget.TextView",
                        p,
                        Bounds::new(left, top + ctx.px(42), left + card_w, top + ctx.px(142)),
                    )
                    .text(label)
                    .style(Style::Text(TextSize::Title)),
                ),
        );
    }
    let below = Bounds::new(
        ctx.px(290),
        bottom + ctx.px(84),
        ctx.end(290),
        bottom + ctx.px(210),
    );
    content.push(if tasks.is_empty() {
        v("android.widget.TextView", p, below)
            .text(ctx.t("No recent items"))
            .style(Style::Text(TextSize::Body))
    } else {
        v("android.widget.Button", p, below)
            .id("com.google.android.apps.nexuslauncher:id/clear_all")
            .text(ctx.t("Clear all"))
            .style(Style::Button)
            .tap(Cmd::ClearRecents)
    });
    let mut window = window(ctx, p, content);
    clip(&mut window, ctx.screen());
    Frame {
        window,
        dialog: None,
        bars: bars(ctx),
        max_scroll: 0,
    }
}

fn bars(ctx: &Ctx) -> View {
    let (w, h) = (ctx.width(), ctx.height());
    let (top, bottom) = (ctx.status_bar(), ctx.nav_bar_top());
    let status = v(
        "android.widget.FrameLayout",
        SYSTEMUI,
        Bounds::new(0, 0, w, top),
    )
    .style(Style::StatusBar)
    .child(
        v(
            "android.widget.TextView",
            SYSTEMUI,
            Bounds::new(ctx.px(63), ctx.px(30), ctx.px(300), ctx.px(90)),
        )
        .text(ctx.clock.clone())
        .style(Style::Text(TextSize::Small)),
    );
    let status = if ctx.value("system/status_bar_show_battery_percent") == "1" {
        status.child(
            v(
                "android.widget.TextView",
                SYSTEMUI,
                Bounds::new(ctx.end(200), ctx.px(30), ctx.end(63), ctx.px(90)),
            )
            .text("100%")
            .style(Style::Text(TextSize::Small)),
        )
    } else {
        status
    };
    let status = status_icons(ctx).into_iter().fold(status, View::child);
    let status = shade::status_icons(ctx)
        .into_iter()
        .fold(status, View::child);
    let nav = v(
        "android.widget.FrameLayout",
        SYSTEMUI,
        Bounds::new(0, bottom, w, h),
    )
    .style(Style::NavBar);
    // Back, Home and Overview at 160, 540 and 920 of the default 1080 px:
    // the same fractions of any width.
    let buttons = [
        ("Back", Cmd::Back, 160),
        ("Home", Cmd::Home, 540),
        ("Overview", Cmd::Overview, 920),
    ];
    let half = ctx.px(100);
    let nav = buttons.into_iter().fold(nav, |nav, (desc, cmd, at1080)| {
        let cx = (w as i64 * at1080 / 1080) as i32;
        nav.child(
            v(
                "android.widget.ImageView",
                SYSTEMUI,
                Bounds::new(cx - half, bottom, cx + half, h),
            )
            .desc(desc)
            .style(Style::NavButton)
            .tap(cmd),
        )
    });
    v(
        "android.widget.FrameLayout",
        SYSTEMUI,
        Bounds::new(0, 0, w, h),
    )
    .child(status)
    .child(nav)
}

/// The status bar's icons, right to left as System UI places them: battery
/// (Battery Saver's when `global/low_power` is on), cellular (not in airplane
/// mode), Wi-Fi when on, then airplane mode, Bluetooth and Do Not Disturb when
/// on. Each is a view whose content-desc names it, as System UI's do; the bars
/// are drawn but never dumped, so the XML does not change.
fn status_icons(ctx: &Ctx) -> Vec<View> {
    use crate::sim::render::status;
    let on = |key: &str| !matches!(ctx.value(key), "" | "0");
    let airplane = on("global/airplane_mode_on");
    let shown = [
        (
            true,
            if on("global/low_power") {
                status::BATTERY_SAVER
            } else {
                status::BATTERY
            },
        ),
        (!airplane, status::CELLULAR),
        (on("global/wifi_on"), status::WIFI),
        (airplane, status::AIRPLANE),
        (on("global/bluetooth_on"), status::BLUETOOTH),
        (on("global/zen_mode"), status::DND),
    ];
    // Left of the battery percentage when it is shown.
    let mut right = if ctx.value("system/status_bar_show_battery_percent") == "1" {
        ctx.end(208)
    } else {
        ctx.end(63)
    };
    let mut icons = Vec::new();
    for (desc, _) in shown.iter().filter(|(show, _)| *show).map(|(s, d)| (*d, s)) {
        icons.push(
            v(
                "android.widget.ImageView",
                SYSTEMUI,
                Bounds::new(right - ctx.px(47), ctx.px(35), right, ctx.px(82)),
            )
            .desc(desc)
            .style(Style::Icon),
        );
        right -= ctx.px(55);
    }
    icons
}

/// The launcher: the clock and date at the top, the app grid above the
/// search bar. The grid has 4 columns, or more where its rows would not fit
/// between the date and the search bar (landscape: all the apps in one row
/// of narrower cells); cells get shorter only when even one row has less
/// room than a cell's height.
fn launcher(ctx: &Ctx) -> View {
    let p = LAUNCHER;
    let date_bottom = ctx.px(540);
    let mut content = vec![
        v(
            "android.widget.TextView",
            p,
            Bounds::new(ctx.px(63), ctx.px(260), ctx.end(63), ctx.px(460)),
        )
        .text(ctx.clock.clone())
        .style(Style::BigTime),
        v(
            "android.widget.TextView",
            p,
            Bounds::new(ctx.px(63), ctx.px(460), ctx.end(63), date_bottom),
        )
        .text("Mon, Nov 30")
        .style(Style::Text(TextSize::Body)),
    ];
    // The grid's rows end above the search bar.
    let grid_bottom = ctx.above_bottom(350);
    let apps = APPS.len() as i32;
    let room = grid_bottom - date_bottom;
    let rows_that_fit = (room / ctx.px(260)).max(1);
    let cols = 4.max((apps + rows_that_fit - 1) / rows_that_fit);
    let rows = (apps + cols - 1) / cols;
    let (cell_w, cell_h) = (ctx.width() / cols, ctx.px(260).min(room / rows));
    let top = grid_bottom - rows * cell_h;
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
            Bounds::new(
                ctx.px(63),
                ctx.above_bottom(330),
                ctx.end(63),
                ctx.above_bottom(180),
            ),
        )
        .id("com.google.android.apps.nexuslauncher:id/search_container_hotseat")
        .desc("Search")
        .style(Style::Button)
        .tap(Cmd::Nothing),
    );
    window(ctx, p, content)
}
