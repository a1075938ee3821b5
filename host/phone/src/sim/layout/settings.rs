//! Settings pages: a collapsing toolbar and a RecyclerView of preference rows
//! (navigation, switch, main switch bar, slider, radio, button), each row the
//! clickable target with `android:id/title`/`summary` TextViews inside.

use super::views::{blank, clip, v, window, Ctx, NAV_BAR_TOP, STATUS_BAR, WIDTH};
use crate::apps::{RowDef, SETTINGS};
use crate::sim::cmd::Cmd;
use crate::sim::row::{self, RowKind};
use crate::sim::view::{Style, TextSize, View};
use crate::uiautomator::Bounds;

const TOOLBAR_BOTTOM: i32 = 538;
const HOME_LIST_TOP: i32 = 600;

pub(super) fn settings_page(ctx: &Ctx, id: &str) -> (View, i32) {
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
    match row::kind(row) {
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
            let checked = ctx.value(&key) != off;
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
            let checked = ctx.value(&key) != off;
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
        RowKind::Slider { key, scale } => {
            let value: i64 = ctx.value(&key).parse().unwrap_or(0);
            // Settings shows the slider's position as the percentage.
            let fraction = scale.fraction(value) as f32;
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
                scale,
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
            let is_on = ctx.value(&key) != off;
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
