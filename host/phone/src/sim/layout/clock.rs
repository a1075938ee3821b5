//! The Clock app: the alarm list (cards with time, switch, expand arrow;
//! expanded cards with label and Delete), the Add-alarm button, the bottom
//! tabs, and the time-picker and label dialogs.

use super::views::{clip, v, window, Ctx, HEIGHT, NAV_BAR_TOP, WIDTH};
use crate::apps::CLOCK;
use crate::sim::cmd::{ClockTab, Cmd, Field};
use crate::sim::view::{Style, TextSize, View};
use crate::uiautomator::Bounds;

const CARD_COLLAPSED: i32 = 300;
const CARD_EXPANDED: i32 = 520;
const CLOCK_LIST_TOP: i32 = 370;
const CLOCK_TABS_TOP: i32 = 2085;
/// Room below the last alarm card for the floating Add-alarm button.
const FAB_CLEARANCE: i32 = 230;

pub(super) fn clock(ctx: &Ctx, tab: ClockTab) -> (View, i32) {
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
        // Bottom padding the height of the Add-alarm button, as DeskClock pads its
        // list, so the last card can scroll clear of the button.
        let content_height = y + ctx.scroll - CLOCK_LIST_TOP + FAB_CLEARANCE;
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

pub(super) fn time_picker(
    ctx: &Ctx,
    hour: &str,
    minute: &str,
    focus: Option<Field>,
    error: bool,
) -> View {
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

pub(super) fn label_dialog(ctx: &Ctx, text: &str, focused: bool) -> View {
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
