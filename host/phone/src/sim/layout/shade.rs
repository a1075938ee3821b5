//! The notification shade and the notifications it lists: what System UI
//! shows when a finger swipes down from the status bar. The notifications
//! come from the phone's records, as the apps would post them: each unread
//! message in the inbox (Messages), each missed call of the last day
//! (Phone), and each row of the `notifications` table (an app's own, an
//! injected one). Newest first. The dump is System UI's
//! (`com.android.systemui`), with the ids its notification rows carry:
//! `notification_stack_scroller`, `expandableNotificationRow`,
//! `app_name_text`, `title`, `text`.

use std::collections::BTreeMap;

use super::views::{clip, v, window, Ctx};
use crate::apps::{defs, APPS};
use crate::records::Table;
use crate::sim::cmd::Cmd;
use crate::sim::query::contact_name;
use crate::sim::state::State;
use crate::sim::view::{Style, TextSize, View};
use crate::uiautomator::Bounds;

/// At most this many notification icons in the status bar, as System UI
/// shows a few and then a dot.
const STATUS_ICONS: usize = 4;

const SYSTEMUI: &str = "com.android.systemui";
const MESSAGES: &str = "com.google.android.apps.messaging";
const DIALER: &str = "com.google.android.dialer";

/// A missed call stays in the shade this long (a day, in ms).
const MISSED_CALL_MS: i64 = 24 * 3600 * 1000;

/// One notification as the shade lists it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Notice {
    pub package: String,
    pub title: String,
    pub text: String,
    /// When it was posted (ms since the epoch): the shade's order.
    pub date: i64,
    /// What a tap on it does.
    pub open: Cmd,
}

/// The app's label as the launcher names it, else the package.
fn app_label(package: &str) -> String {
    APPS.iter()
        .find(|(_, p)| *p == package)
        .map_or(package, |(label, _)| label)
        .to_string()
}

fn launch(package: &str) -> Cmd {
    Cmd::Notification {
        package: package.to_string(),
        screen: None,
        params: BTreeMap::new(),
    }
}

/// Every notification the phone's state holds now, newest first.
pub(crate) fn notices(state: &State) -> Vec<Notice> {
    let records = state.records();
    let number = |s: &str| s.parse::<i64>().unwrap_or(0);
    let mut out = Vec::new();
    for sms in records.rows(Table::Sms) {
        if sms.text("type") != "1" || sms.text("read") != "0" {
            continue;
        }
        let address = sms.text("address");
        // Messages' own thread screen, when the app is defined as data.
        let thread = defs::app_for_package(MESSAGES).map(|app| format!("{}:thread", app.name));
        out.push(Notice {
            package: MESSAGES.into(),
            title: contact_name(state, &address).unwrap_or_else(|| address.clone()),
            text: sms.text("body"),
            date: number(&sms.text("date")),
            open: Cmd::Notification {
                package: MESSAGES.into(),
                params: BTreeMap::from([("address".to_string(), address)]),
                screen: thread,
            },
        });
    }
    let now = state.clock.now_ms;
    for call in records.rows(Table::Calls) {
        let date = number(&call.text("date"));
        if call.text("type") != "3" || now - date > MISSED_CALL_MS || date > now {
            continue;
        }
        let number_text = call.text("number");
        let who = [
            call.text("name"),
            contact_name(state, &number_text).unwrap_or_default(),
        ]
        .into_iter()
        .find(|n| !n.is_empty())
        .unwrap_or(number_text);
        out.push(Notice {
            package: DIALER.into(),
            title: "Missed call".into(),
            text: who,
            date,
            open: launch(DIALER),
        });
    }
    for n in records.rows(Table::Notifications) {
        let package = n.text("package");
        out.push(Notice {
            open: launch(&package),
            package,
            title: n.text("title"),
            text: n.text("text"),
            date: number(&n.text("date")),
        });
    }
    // Newest first; ties in the order posted.
    out.sort_by_key(|n| std::cmp::Reverse(n.date));
    out
}

/// The content-desc of a notification's icon in the status bar, as System
/// UI words it: `Messages notification: Ana Moreau`.
pub(crate) fn status_desc(n: &Notice) -> String {
    format!("{} notification: {}", app_label(&n.package), n.title)
}

/// The status bar's notification icons, left of centre after the clock:
/// one per app with a notification, newest first.
pub(crate) fn status_icons(ctx: &Ctx) -> Vec<View> {
    let mut packages: Vec<Notice> = Vec::new();
    for n in notices(ctx.state) {
        if !packages.iter().any(|p| p.package == n.package) {
            packages.push(n);
        }
    }
    packages
        .iter()
        .take(STATUS_ICONS)
        .enumerate()
        .map(|(i, n)| {
            let left = ctx.px(230) + i as i32 * ctx.px(55);
            v(
                "android.widget.ImageView",
                SYSTEMUI,
                Bounds::new(left, ctx.px(35), left + ctx.px(47), ctx.px(82)),
            )
            .desc(status_desc(n))
            .style(Style::Icon)
        })
        .collect()
}

/// The shade's window over the screen: the notifications, newest first,
/// each a row that opens its app; "No notifications" when there are none.
pub(crate) fn window_of(ctx: &Ctx, notices: &[Notice]) -> View {
    let p = SYSTEMUI;
    let top = ctx.status_bar() + ctx.px(42);
    let row_h = ctx.px(260);
    let mut list = v(
        "android.widget.ScrollView",
        p,
        Bounds::new(0, top, ctx.width(), ctx.nav_bar_top()),
    )
    .id("com.android.systemui:id/notification_stack_scroller");
    for (i, n) in notices.iter().enumerate() {
        let y = top + i as i32 * (row_h + ctx.px(21));
        let (left, right) = (ctx.px(42), ctx.end(42));
        let line = |k: i32| {
            Bounds::new(
                left + ctx.px(42),
                y + ctx.px(21 + 70 * k),
                right - ctx.px(42),
                y + ctx.px(91 + 70 * k),
            )
        };
        let label = ctx.t(&app_label(&n.package));
        list = list.child(
            v(
                "android.widget.FrameLayout",
                p,
                Bounds::new(left, y, right, y + row_h),
            )
            .id("com.android.systemui:id/expandableNotificationRow")
            .style(Style::Row)
            .tap(n.open.clone())
            .child(
                v("android.widget.TextView", p, line(0))
                    .id("android:id/app_name_text")
                    .text(label)
                    .style(Style::Text(TextSize::Small)),
            )
            .child(
                v("android.widget.TextView", p, line(1))
                    .id("android:id/title")
                    .text(ctx.t(&n.title))
                    .style(Style::Text(TextSize::Title)),
            )
            .child(
                v("android.widget.TextView", p, line(2))
                    .id("android:id/text")
                    .text(n.text.clone())
                    .style(Style::Text(TextSize::Body)),
            ),
        );
    }
    let mut content = vec![list];
    if notices.is_empty() {
        content.push(
            v(
                "android.widget.TextView",
                p,
                Bounds::new(ctx.px(63), top + ctx.px(84), ctx.end(63), top + ctx.px(210)),
            )
            .id("com.android.systemui:id/no_notifications")
            .text(ctx.t("No notifications"))
            .style(Style::Text(TextSize::Body)),
        );
    }
    let mut window = window(ctx, p, content);
    clip(&mut window, ctx.screen());
    window
}
