//! Settings pages: a collapsing toolbar and a RecyclerView of preference rows
//! (navigation, switch, main switch bar, slider, radio, button), each row the
//! clickable target with `android:id/title`/`summary` TextViews inside.
//!
//! Lengths are written in pixels on the default 420-dpi display and scaled
//! to the one laid out for (`Ctx::px`); a row's height is its padding plus
//! its text lines. The default phone's rows are the reference (one title
//! and one summary line, as its dumps have always had); a larger font scale
//! or a narrower screen adds the lines their text gains there
//! (`Ctx::extra_lines`), so rows grow and the list scrolls further. A title
//! wraps onto at most [`TITLE_MAX_LINES`] lines (then it is ellipsized, which
//! only the drawing shows), a summary onto at most [`SUMMARY_MAX_LINES`]
//! (AndroidX Preference's layout caps the summary at 10 lines).

use super::views::{blank, clip, v, window, Ctx};
use crate::apps::{RowDef, SETTINGS};
use crate::sim::cmd::Cmd;
use crate::sim::row::{self, RowKind};
use crate::sim::view::{Style, TextSize, View};
use crate::uiautomator::Bounds;

const TOOLBAR_BOTTOM: i32 = 538;
const HOME_LIST_TOP: i32 = 600;
/// A collapsed toolbar's height at 420 dpi: 64 dp.
const TOOLBAR_ROW: i32 = 168;
/// A row's padding above and below its text.
const ROW_PAD: i32 = 42;
/// The most lines a row's title and summary take.
const TITLE_MAX_LINES: i32 = 2;
const SUMMARY_MAX_LINES: i32 = 10;
/// Line heights at 420 dpi and font scale 1: the first line of a title alone
/// in its row, of a title above a summary, and of a summary; then each
/// further line of a title (24 sp) and of a summary (20 sp).
const TITLE_ALONE_LINE: i32 = 84;
const TITLE_LINE: i32 = 70;
const SUMMARY_LINE: i32 = 77;
const TITLE_MORE_LINE: i32 = 63;
const SUMMARY_MORE_LINE: i32 = 53;
/// A footer's (an info row's) line: 14 sp set tight.
const FOOTER_LINE: i32 = 42;

pub(super) fn settings_page(ctx: &Ctx, id: &str) -> (View, i32) {
    let p = SETTINGS;
    let Some(screen) = ctx.app.screen(id) else {
        return (blank(ctx, id, p), 0);
    };
    let title = ctx.t(&screen.title);
    let (mut content, list_top) = if ctx.landscape() {
        collapsed_header(ctx, id, title)
    } else if id == "settings" {
        let header = vec![
            v(
                "android.widget.TextView",
                p,
                Bounds::new(ctx.px(63), ctx.px(180), ctx.end(63), ctx.px(380)),
            )
            .id("com.android.settings:id/homepage_title")
            .text(title)
            .style(Style::Heading),
            search_bar(ctx, (ctx.px(418), ctx.px(565)), (ctx.px(440), ctx.px(543))),
        ];
        (header, ctx.px(HOME_LIST_TOP))
    } else {
        let toolbar = v(
            "android.widget.FrameLayout",
            p,
            Bounds::new(0, ctx.status_bar(), ctx.width(), ctx.px(TOOLBAR_BOTTOM)),
        )
        .id("com.android.settings:id/collapsing_toolbar")
        .desc(title.clone())
        .child(
            v(
                "android.widget.ImageButton",
                p,
                Bounds::new(0, ctx.status_bar(), ctx.px(147), ctx.px(265)),
            )
            .desc(ctx.t("Navigate up"))
            .style(Style::Icon)
            .tap(Cmd::Back),
        )
        .child(
            v(
                "android.widget.TextView",
                p,
                Bounds::new(ctx.px(63), ctx.px(330), ctx.end(63), ctx.px(500)),
            )
            .text(title)
            .style(Style::Heading),
        );
        (vec![toolbar], ctx.px(TOOLBAR_BOTTOM))
    };
    let viewport = Bounds::new(0, list_top, ctx.width(), ctx.nav_bar_top());
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
    (window(ctx, p, content), max_scroll)
}

/// The header in landscape: collapsed to one toolbar row, as Settings shows
/// it there once the list has moved (from Android 14 the header scrolls
/// away in landscape; AOSP SettingsLib `CollapsingToolbarDelegate`), so the
/// list keeps most of the 1,080 px. The home page keeps its search bar and
/// drops the large title; a sub-page's title sits beside Navigate up. The
/// views and their ids are those of the portrait header, moved.
fn collapsed_header(ctx: &Ctx, id: &str, title: String) -> (Vec<View>, i32) {
    let p = SETTINGS;
    let top = ctx.status_bar();
    let bottom = top + ctx.px(TOOLBAR_ROW);
    if id == "settings" {
        let bar = search_bar(
            ctx,
            (top + ctx.px(10), bottom - ctx.px(10)),
            (top + ctx.px(32), bottom - ctx.px(32)),
        );
        return (vec![bar], bottom + ctx.px(21));
    }
    let toolbar = v(
        "android.widget.FrameLayout",
        p,
        Bounds::new(0, top, ctx.width(), bottom),
    )
    .id("com.android.settings:id/collapsing_toolbar")
    .desc(title.clone())
    .child(
        v(
            "android.widget.ImageButton",
            p,
            Bounds::new(0, top, ctx.px(147), bottom),
        )
        .desc(ctx.t("Navigate up"))
        .style(Style::Icon)
        .tap(Cmd::Back),
    )
    .child(
        v(
            "android.widget.TextView",
            p,
            Bounds::new(
                ctx.px(189),
                top + ctx.px(21),
                ctx.end(63),
                bottom - ctx.px(21),
            ),
        )
        .text(title)
        .style(Style::Text(TextSize::Title)),
    );
    (vec![toolbar], bottom)
}

/// The home page's search bar over `bar` (top, bottom), its hint over
/// `hint`: the same views in portrait and in the collapsed landscape header.
fn search_bar(ctx: &Ctx, bar: (i32, i32), hint: (i32, i32)) -> View {
    let p = SETTINGS;
    v(
        "android.widget.LinearLayout",
        p,
        Bounds::new(ctx.px(42), bar.0, ctx.end(42), bar.1),
    )
    .id("com.android.settings:id/search_action_bar")
    .style(Style::Button)
    .tap(Cmd::Nothing)
    .child(
        v(
            "android.widget.TextView",
            p,
            Bounds::new(ctx.px(140), hint.0, ctx.end(80), hint.1),
        )
        .text(ctx.t("Search settings"))
        .style(Style::Text(TextSize::Body)),
    )
}

fn summary_text(ctx: &Ctx, row: &RowDef) -> Option<String> {
    if let Some(key) = &row.summary_of {
        return row.summaries.get(ctx.value(key)).map(|s| ctx.t(s));
    }
    row.summary.as_deref().map(|s| ctx.t(s))
}

/// How tall a row's title and summary are in the box from `left420` to
/// `end420` from the right (at 420 dpi): the title's and the summary's
/// heights in pixels on this display, each grown by the lines the display
/// adds ([`Ctx::extra_lines`]).
fn text_heights(
    ctx: &Ctx,
    title: &str,
    summary: Option<&str>,
    (left420, end420): (i32, i32),
) -> (i32, i32) {
    let more = ctx
        .extra_lines(title, TextSize::Title, left420, end420)
        .min(TITLE_MAX_LINES - 1);
    match summary {
        Some(summary) => {
            let summary_more = ctx
                .extra_lines(summary, TextSize::Small, left420, end420)
                .min(SUMMARY_MAX_LINES - 1);
            (
                ctx.sp_px(TITLE_LINE + more * TITLE_MORE_LINE),
                ctx.sp_px(SUMMARY_LINE + summary_more * SUMMARY_MORE_LINE),
            )
        }
        None => (ctx.sp_px(TITLE_ALONE_LINE + more * TITLE_MORE_LINE), 0),
    }
}

/// The title/summary block of a row, starting at `left`, its text
/// `heights` tall ([`text_heights`]) below the row's top padding.
fn titles(
    ctx: &Ctx,
    title: &str,
    summary: Option<&str>,
    (left, right): (i32, i32),
    y: i32,
    (title_h, summary_h): (i32, i32),
) -> View {
    let p = SETTINGS;
    let top = y + ctx.px(ROW_PAD);
    let mut block = v(
        "android.widget.RelativeLayout",
        p,
        Bounds::new(left, top, right, top + title_h + summary_h),
    )
    .child(
        v(
            "android.widget.TextView",
            p,
            Bounds::new(left, top, right, top + title_h),
        )
        .id("android:id/title")
        .text(ctx.t(title))
        .style(Style::Text(TextSize::Title)),
    );
    if let Some(summary) = summary {
        block = block.child(
            v(
                "android.widget.TextView",
                p,
                Bounds::new(left, top + title_h, right, top + title_h + summary_h),
            )
            .id("android:id/summary")
            .text(summary)
            .style(Style::Text(TextSize::Small)),
        );
    }
    block
}

fn settings_row(ctx: &Ctx, row: &RowDef, y: i32) -> (View, i32) {
    let p = SETTINGS;
    let summary = summary_text(ctx, row);
    let label = ctx.t(&row.title);
    // Nav rows' text runs to the end margin; switch rows' stops at the switch.
    let box420 = (
        if row.icon { 189 } else { 63 },
        match row::kind(row) {
            RowKind::Switch { .. } => 210,
            _ => 63,
        },
    );
    let (text_left, text_right) = ctx.span(box420.0, box420.1);
    let heights = text_heights(ctx, &label, summary.as_deref(), box420);
    let h = 2 * ctx.px(ROW_PAD) + heights.0 + heights.1;
    let icon = |row_view: View| {
        if row.icon {
            row_view.child(
                v(
                    "android.widget.LinearLayout",
                    p,
                    Bounds::new(0, y, ctx.px(189), y + h),
                )
                .id("android:id/icon_frame")
                .child(
                    v(
                        "android.widget.ImageView",
                        p,
                        Bounds::new(
                            ctx.px(63),
                            y + h / 2 - ctx.px(32),
                            ctx.px(127),
                            y + h / 2 + ctx.px(32),
                        ),
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
            Bounds::new(0, y, ctx.width(), y + h),
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
                (text_left, text_right),
                y,
                heights,
            ));
            (view, h)
        }
        RowKind::Info => {
            // Footer text: its box holds two lines, and the lines the
            // display adds.
            let (left, right) = ctx.span(63, 63);
            let lines = 2 + ctx.extra_lines(&label, TextSize::Small, 63, 63);
            let text_h = ctx.sp_px(lines * FOOTER_LINE);
            let h = 2 * ctx.px(ROW_PAD) + text_h;
            let top = y + ctx.px(ROW_PAD);
            let view = v(
                "android.widget.LinearLayout",
                p,
                Bounds::new(0, y, ctx.width(), y + h),
            )
            .child(
                v(
                    "android.widget.TextView",
                    p,
                    Bounds::new(left, top, right, top + text_h),
                )
                .id("android:id/title")
                .text(label)
                .style(Style::Text(TextSize::Small)),
            );
            (view, h)
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
                (text_left, text_right),
                y,
                heights,
            ))
            .child(
                v(
                    "android.widget.LinearLayout",
                    p,
                    Bounds::new(ctx.end(210), y, ctx.width(), y + h),
                )
                .id("android:id/widget_frame")
                .child(
                    v(
                        "android.widget.Switch",
                        p,
                        Bounds::new(
                            ctx.end(177),
                            y + h / 2 - ctx.px(40),
                            ctx.end(63),
                            y + h / 2 + ctx.px(40),
                        ),
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
            // The bar is its padding and one line of text tall.
            let bar_h = ctx.px(126) + ctx.sp_px(TITLE_ALONE_LINE);
            let (top, bottom) = (y + ctx.px(21), y + ctx.px(21) + bar_h);
            let bar = v(
                "android.widget.LinearLayout",
                p,
                Bounds::new(ctx.px(42), top, ctx.end(42), bottom),
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
                    Bounds::new(ctx.px(105), top, ctx.end(210), bottom),
                )
                .id("com.android.settings:id/switch_text")
                .text(label)
                .style(Style::Text(TextSize::Title)),
            )
            .child(
                v(
                    "android.widget.Switch",
                    p,
                    Bounds::new(
                        ctx.end(177),
                        top + bar_h / 2 - ctx.px(40),
                        ctx.end(63),
                        top + bar_h / 2 + ctx.px(40),
                    ),
                )
                .id("android:id/switch_widget")
                .checkable(checked)
                .style(Style::Switch),
            );
            let h = bar_h + ctx.px(42);
            (
                v(
                    "android.widget.LinearLayout",
                    p,
                    Bounds::new(0, y, ctx.width(), y + h),
                )
                .child(bar),
                h,
            )
        }
        RowKind::Slider { key, scale } => {
            let value: i64 = ctx.value(&key).parse().unwrap_or(0);
            // Settings shows the slider's position as the percentage.
            let fraction = scale.fraction(value) as f32;
            let percent = (fraction * 100.0).round() as i64;
            // Title line, then the bar below it.
            let (title_top, title_h) = (y + ctx.px(30), ctx.sp_px(80));
            let bar_top = title_top + title_h + ctx.px(30);
            let h = bar_top + ctx.px(80) + ctx.px(32) - y;
            let mut seekbar = v(
                "android.widget.SeekBar",
                p,
                Bounds::new(ctx.px(147), bar_top, ctx.end(42), bar_top + ctx.px(80)),
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
                Bounds::new(0, y, ctx.width(), y + h),
            )
            .child(
                v(
                    "android.widget.TextView",
                    p,
                    Bounds::new(ctx.px(63), title_top, ctx.end(280), title_top + title_h),
                )
                .id("android:id/title")
                .text(label)
                .style(Style::Text(TextSize::Title)),
            )
            .child(
                v(
                    "android.widget.TextView",
                    p,
                    Bounds::new(ctx.end(280), title_top, ctx.end(63), title_top + title_h),
                )
                .id("android:id/summary")
                .text(format!("{percent}%"))
                .style(Style::Text(TextSize::Small)),
            )
            .child(seekbar);
            (view, h)
        }
        RowKind::Radio { key, value } => {
            let checked = ctx.value(&key) == value;
            let (left, right) = ctx.span(168, 63);
            let more = ctx
                .extra_lines(&label, TextSize::Title, 168, 63)
                .min(TITLE_MAX_LINES - 1);
            let text_h = ctx.sp_px(TITLE_ALONE_LINE + more * TITLE_MORE_LINE);
            let h = 2 * ctx.px(ROW_PAD) + text_h;
            let top = y + ctx.px(ROW_PAD);
            let view = row_box(h)
                .tap(Cmd::Write {
                    key,
                    value,
                    control: label.clone(),
                })
                .child(
                    v(
                        "android.widget.RadioButton",
                        p,
                        Bounds::new(
                            ctx.px(42),
                            y + h / 2 - ctx.px(42),
                            ctx.px(126),
                            y + h / 2 + ctx.px(42),
                        ),
                    )
                    .id("android:id/checkbox")
                    .checkable(checked)
                    .style(Style::Radio),
                )
                .child(
                    v(
                        "android.widget.TextView",
                        p,
                        Bounds::new(left, top, right, top + text_h),
                    )
                    .id("android:id/title")
                    .text(label)
                    .style(Style::Text(TextSize::Title)),
                );
            (view, h)
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
            let top = y + ctx.px(42);
            let button_h = ctx.px(42) + ctx.sp_px(TITLE_ALONE_LINE);
            let button = v(
                "android.widget.Button",
                p,
                Bounds::new(ctx.px(63), top, ctx.px(500), top + button_h),
            )
            .id(id)
            .text(text.clone())
            .style(Style::Button)
            .tap(Cmd::Write {
                key,
                value: target,
                control: text,
            });
            let h = button_h + 2 * ctx.px(42);
            (
                v(
                    "android.widget.LinearLayout",
                    p,
                    Bounds::new(0, y, ctx.width(), y + h),
                )
                .child(button),
                h,
            )
        }
    }
}
