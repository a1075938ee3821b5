//! The Clock app: the alarm list (cards with time, switch, expand arrow;
//! expanded cards with label and Delete), the Add-alarm button, the bottom
//! tabs, and the time-picker and label dialogs.
//!
//! Lengths are written in pixels on the default 420-dpi display and scaled
//! to the one laid out for (`Ctx::px`); the list and tabs span the width,
//! dialogs keep their phone width and stay centred.

use super::views::{clip, v, window, Ctx, Panel};
use crate::apps::CLOCK;
use crate::sim::cmd::{ClockTab, Cmd, Field};
use crate::sim::view::{Style, TextSize, View};
use crate::uiautomator::Bounds;

const CARD_COLLAPSED: i32 = 300;
const CARD_EXPANDED: i32 = 520;
const CLOCK_LIST_TOP: i32 = 370;
/// The tabs' height above the navigation bar.
const CLOCK_TABS: i32 = 189;
/// Room below the last alarm card for the floating Add-alarm button.
const FAB_CLEARANCE: i32 = 230;

pub(super) fn clock(ctx: &Ctx, tab: ClockTab) -> (View, i32) {
    let p = CLOCK;
    let id = |s: &str| format!("{CLOCK}:id/{s}");
    let mut content = vec![v(
        "android.widget.TextView",
        p,
        Bounds::new(ctx.px(63), ctx.px(180), ctx.end(63), ctx.px(330)),
    )
    .id(&id("action_bar_title"))
    .text(ctx.t(tab.label()))
    .style(Style::Heading)];
    let mut max_scroll = 0;
    let (list_top, tabs_top) = (
        ctx.px(CLOCK_LIST_TOP),
        ctx.nav_bar_top() - ctx.px(CLOCK_TABS),
    );
    if tab == ClockTab::Alarm {
        let viewport = Bounds::new(0, list_top, ctx.width(), tabs_top);
        let mut list = v("androidx.recyclerview.widget.RecyclerView", p, viewport)
            .id(&id("alarm_recycler_view"))
            .scrollable();
        let mut y = list_top - ctx.scroll;
        for alarm in ctx.state.alarms() {
            let expanded = ctx.expanded == Some(alarm.id);
            let h = ctx.px(if expanded {
                CARD_EXPANDED
            } else {
                CARD_COLLAPSED
            });
            let (top, bottom) = (y + ctx.px(21), y + h - ctx.px(21));
            // A length below the card's top.
            let at = |dy: i32| top + ctx.px(dy);
            let mut card = v(
                "androidx.cardview.widget.CardView",
                p,
                Bounds::new(ctx.px(42), top, ctx.end(42), bottom),
            )
            .id(&id("alarm_card"))
            .style(Style::Row)
            .tap(Cmd::AlarmExpand(alarm.id))
            .child(
                v(
                    "android.widget.TextView",
                    p,
                    Bounds::new(ctx.px(84), at(40), ctx.px(600), at(190)),
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
                        Bounds::new(ctx.px(84), at(190), ctx.end(280), at(250)),
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
                        Bounds::new(ctx.end(200), at(70), ctx.end(84), at(150)),
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
                        Bounds::new(ctx.end(200), at(170), ctx.end(84), at(250)),
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
                            Bounds::new(ctx.px(84), at(270), ctx.end(280), at(370)),
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
                            Bounds::new(ctx.px(84), at(380), ctx.px(400), at(470)),
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
        // Bottom padding the height of the Add-alarm button, as DeskClock pads its
        // list, so the last card can scroll clear of the button.
        let content_height = y + ctx.scroll - list_top + ctx.px(FAB_CLEARANCE);
        max_scroll = (content_height - viewport.height()).max(0);
        if ctx.state.alarms().is_empty() {
            // 530 px down the list, or its middle where it is shorter.
            let y = list_top + ctx.px(530).min((viewport.height() - ctx.px(100)) / 2);
            list.children.push(
                v(
                    "android.widget.TextView",
                    p,
                    Bounds::new(ctx.px(63), y, ctx.end(63), y + ctx.px(100)),
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
                Bounds::new(
                    ctx.width() / 2 - ctx.px(105),
                    tabs_top - ctx.px(205),
                    ctx.width() / 2 + ctx.px(105),
                    tabs_top - ctx.px(25),
                ),
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
        Bounds::new(0, tabs_top, ctx.width(), ctx.nav_bar_top()),
    )
    .id(&id("tabs"));
    let tab_w = ctx.width() / 5;
    for (i, t) in ClockTab::ALL.iter().enumerate() {
        let x = i as i32 * ctx.width() / 5;
        let label = ctx.t(t.label());
        let mut view = v(
            "android.widget.FrameLayout",
            p,
            Bounds::new(x, tabs_top, x + tab_w, ctx.nav_bar_top()),
        )
        .desc(label.clone())
        .style(Style::Tab)
        .tap(Cmd::ClockTab(*t));
        view.node.selected = *t == tab;
        view = view.child(
            v(
                "android.widget.TextView",
                p,
                Bounds::new(
                    x,
                    tabs_top + ctx.px(110),
                    x + tab_w,
                    ctx.nav_bar_top() - ctx.px(20),
                ),
            )
            .text(label)
            .style(Style::Text(TextSize::Small)),
        );
        tabs.children.push(view);
    }
    content.push(tabs);
    (window(ctx, p, content), max_scroll)
}

fn dialog_frame(ctx: &Ctx, title: &str, height: i32, mut body: Vec<View>) -> View {
    let p = CLOCK;
    let f = Panel::centred(ctx, height);
    let mut panel = v(
        "android.widget.FrameLayout",
        p,
        Bounds::new(f.left, f.top, f.right, f.bottom),
    )
    .style(Style::Dialog);
    panel.children.push(
        v(
            "android.widget.TextView",
            p,
            Bounds::new(
                f.x(ctx, 126),
                f.y(ctx, 50),
                f.x_end(ctx, 954),
                f.y(ctx, 150),
            ),
        )
        .id("android:id/alertTitle")
        .text(title)
        .style(Style::Text(TextSize::Title)),
    );
    panel.children.append(&mut body);
    let (button_top, button_bottom) = (f.bottom - ctx.px(150), f.bottom - ctx.px(40));
    panel.children.push(
        v(
            "android.widget.Button",
            p,
            Bounds::new(
                f.x_end(ctx, 500),
                button_top,
                f.x_end(ctx, 740),
                button_bottom,
            ),
        )
        .id("android:id/button2")
        .text(ctx.t("Cancel"))
        .style(Style::Button)
        .tap(Cmd::DialogCancel),
    );
    panel.children.push(
        v(
            "android.widget.Button",
            p,
            Bounds::new(
                f.x_end(ctx, 760),
                button_top,
                f.x_end(ctx, 954),
                button_bottom,
            ),
        )
        .id("android:id/button1")
        .text(ctx.t("OK"))
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

pub(super) fn time_picker(
    ctx: &Ctx,
    hour: &str,
    minute: &str,
    focus: Option<Field>,
    error: bool,
) -> View {
    let f = Panel::centred(ctx, 820);
    let b = |x1: i32, y1: i32, x2: i32, y2: i32| {
        Bounds::new(f.x(ctx, x1), f.y(ctx, y1), f.x(ctx, x2), f.y(ctx, y2))
    };
    let mut body = vec![
        edit_text(
            "android:id/input_hour",
            b(126, 200, 450, 380),
            hour,
            "00",
            focus == Some(Field::Hour),
            Field::Hour,
        ),
        v("android.widget.TextView", CLOCK, b(450, 200, 510, 380))
            .id("android:id/input_separator")
            .text(":")
            .style(Style::BigTime),
        edit_text(
            "android:id/input_minute",
            b(510, 200, 834, 380),
            minute,
            "00",
            focus == Some(Field::Minute),
            Field::Minute,
        ),
        v("android.widget.TextView", CLOCK, b(126, 390, 450, 450))
            .id("android:id/label_hour")
            .text(ctx.t("hour"))
            .style(Style::Text(TextSize::Small)),
        v("android.widget.TextView", CLOCK, b(510, 390, 834, 450))
            .id("android:id/label_minute")
            .text(ctx.t("minute"))
            .style(Style::Text(TextSize::Small)),
    ];
    if error {
        body.push(
            v(
                "android.widget.TextView",
                CLOCK,
                Bounds::new(
                    f.x(ctx, 126),
                    f.y(ctx, 470),
                    f.x_end(ctx, 954),
                    f.y(ctx, 540),
                ),
            )
            .id("android:id/label_error")
            .text(ctx.t("Enter a valid time"))
            .style(Style::Text(TextSize::Small)),
        );
    }
    dialog_frame(ctx, &ctx.t("Enter time"), 820, body)
}

pub(super) fn label_dialog(ctx: &Ctx, text: &str, focused: bool) -> View {
    let f = Panel::centred(ctx, 560);
    let body = vec![edit_text(
        "com.google.android.deskclock:id/label_input_field",
        Bounds::new(
            f.x(ctx, 126),
            f.y(ctx, 180),
            f.x_end(ctx, 954),
            f.y(ctx, 300),
        ),
        text,
        &ctx.t("Label"),
        focused,
        Field::Label,
    )];
    dialog_frame(ctx, &ctx.t("Label"), 560, body)
}
