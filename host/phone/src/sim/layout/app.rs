//! The screens of data-defined apps (`crate::apps::defs`): a toolbar (Navigate
//! up, title, action icons, the "More options" overflow), the widgets in a
//! column, a scrolling list of record rows with section headers, bottom-docked
//! tabs or compose bar, a floating action button. Their dialogs are in
//! `app_dialog`.
//!
//! Lengths are written in pixels on the default 420-dpi display and scaled
//! to the one laid out for (`Ctx::px`); text rows grow with the font scale
//! (`Ctx::sp_px`). A column of widgets taller than the room between the
//! toolbar and the bottom dock (a form or the dial pad in landscape) scrolls
//! inside a ScrollView, as those screens do on a phone.

use super::views::{clip, v, window, Ctx};
use crate::apps::defs::{self, AppDef, Dock, WidgetDef, WidgetKind};
use crate::sim::cmd::{AppCmd, AppScreen, Cmd, Target};
use crate::sim::query::{list_rows, Scope};
use crate::sim::view::{Style, TextSize, View};
use crate::uiautomator::Bounds;

/// The toolbar's height below the status bar.
const TOOLBAR: i32 = 168;
pub(super) const CLEAR_TEXT_ID: &str = "com.google.android.material:id/text_input_end_icon";
const KEYS: [(char, &str); 12] = [
    ('1', "one"),
    ('2', "two"),
    ('3', "three"),
    ('4', "four"),
    ('5', "five"),
    ('6', "six"),
    ('7', "seven"),
    ('8', "eight"),
    ('9', "nine"),
    ('*', "star"),
    ('0', "zero"),
    ('#', "pound"),
];

struct Page<'a> {
    ctx: &'a Ctx<'a>,
    app: &'static AppDef,
    screen: &'a AppScreen,
    scope: Scope<'a>,
}

impl Page<'_> {
    fn p(&self) -> &str {
        &self.app.package
    }
    fn id(&self, id: &Option<String>) -> String {
        id.as_deref()
            .map(|i| self.app.resource_id(i))
            .unwrap_or_default()
    }
    fn run(&self, action: &defs::Action, target: Target, control: String) -> Cmd {
        Cmd::App(AppCmd::Run {
            action: action.clone(),
            target,
            control,
        })
    }
    fn text(&self, class: &str, b: Bounds, text: String, size: TextSize) -> View {
        v(class, self.p(), b).text(text).style(Style::Text(size))
    }
}

/// The window of an app screen and how far its list scrolls.
/// A row or detail line with no action of its own is long-clickable, as
/// the real apps' are (a message bubble or a contact's number: long press
/// selects or copies), so the element list an agent reads carries its text
/// ("+1 650-555-0142 — Mobile", "Running late — 09:12"); the long press
/// does nothing here.
fn readable(mut view: View) -> View {
    view.node.long_clickable = true;
    view.on_long_press = Some(Cmd::Nothing);
    view
}

pub(super) fn app_page(ctx: &Ctx, screen: &AppScreen) -> (View, i32) {
    let app = defs::app_named(&screen.app).expect("an app screen names a bundled app");
    let p = app.package.as_str();
    let Some(def) = app.screen(&screen.screen) else {
        return (super::views::blank(ctx, &screen.screen, p), 0);
    };
    let page = Page {
        ctx,
        app,
        screen,
        scope: Scope::screen(app, ctx.state, ctx.variant, screen),
    };
    let mut content = Vec::new();
    // Toolbar.
    let (bar_top, toolbar_bottom) = (ctx.status_bar(), ctx.status_bar() + ctx.px(TOOLBAR));
    let mut toolbar = v(
        "android.view.ViewGroup",
        p,
        Bounds::new(0, bar_top, ctx.width(), toolbar_bottom),
    )
    .id(&app.resource_id("toolbar"));
    let title_left = if def.up {
        toolbar = toolbar.child(
            v(
                "android.widget.ImageButton",
                p,
                Bounds::new(0, bar_top, ctx.px(147), toolbar_bottom),
            )
            .desc(ctx.t("Navigate up"))
            .style(Style::Icon)
            .tap(Cmd::Back),
        );
        ctx.px(189)
    } else {
        ctx.px(63)
    };
    let mut right = ctx.width();
    let mut end_icons = Vec::new();
    for w in def.widgets.iter().filter(|w| w.dock == Dock::Toolbar) {
        match w.kind {
            WidgetKind::Menu => {
                right -= ctx.px(147);
                end_icons.push(
                    v(
                        "android.widget.ImageView",
                        p,
                        Bounds::new(right, bar_top, right + ctx.px(147), toolbar_bottom),
                    )
                    .desc(ctx.t("More options"))
                    .style(Style::Icon)
                    .tap(Cmd::App(AppCmd::Menu {
                        items: w.items.clone(),
                        target: screen.record,
                    })),
                );
            }
            _ => {
                // An item with a content-desc is an icon; one without, a text button.
                for item in w.items.iter().rev() {
                    let (text, desc, width, style) = match &item.desc {
                        Some(d) => (String::new(), page.scope.fill(d), 147, Style::Icon),
                        None => (
                            page.scope.fill(&item.label),
                            String::new(),
                            231,
                            Style::Button,
                        ),
                    };
                    let width = ctx.px(width);
                    right -= width;
                    let control = if desc.is_empty() {
                        text.clone()
                    } else {
                        desc.clone()
                    };
                    end_icons.push(
                        v(
                            "android.widget.Button",
                            p,
                            Bounds::new(
                                right,
                                bar_top + ctx.px(21),
                                right + width - ctx.px(10),
                                toolbar_bottom - ctx.px(21),
                            ),
                        )
                        .id(&page.id(&item.id))
                        .text(text)
                        .desc(desc)
                        .style(style)
                        .tap(page.run(
                            &item.on_tap,
                            screen.record,
                            control,
                        )),
                    );
                }
            }
        }
    }
    if let Some(title) = &def.title {
        let style = if def.up {
            Style::Text(TextSize::Title)
        } else {
            Style::Heading
        };
        toolbar = toolbar.child(
            v(
                "android.widget.TextView",
                p,
                Bounds::new(
                    title_left,
                    bar_top + ctx.px(24),
                    right - ctx.px(20),
                    toolbar_bottom - ctx.px(24),
                ),
            )
            .id(&page.id(&def.title_id))
            .text(page.scope.fill(title))
            .style(style),
        );
    }
    end_icons.reverse();
    toolbar.children.extend(end_icons);
    content.push(toolbar);
    // Bottom dock, from the navigation bar up.
    let mut bottom = ctx.nav_bar_top();
    let mut docked = Vec::new();
    for w in def.widgets.iter().rev().filter(|w| w.dock == Dock::Bottom) {
        let (view, h) = widget(&page, w, bottom, true);
        bottom -= h;
        docked.push(view);
    }
    // The column: laid out once from the top; a column with no list that
    // overflows the room above the dock is laid out again scrolled.
    let column_top = toolbar_bottom + ctx.px(21);
    let (mut column, mut max_scroll, fab, end) = flow(&page, column_top, bottom, 0);
    let has_list = def
        .widgets
        .iter()
        .any(|w| w.dock == Dock::Flow && w.kind == WidgetKind::List);
    if !has_list && end > bottom {
        let (scrolled, _, _, _) = flow(&page, column_top, bottom, ctx.scroll);
        let viewport = Bounds::new(0, toolbar_bottom, ctx.width(), bottom);
        let mut scroll = v("android.widget.ScrollView", p, viewport).scrollable();
        scroll.children = scrolled;
        clip(&mut scroll, viewport);
        column = vec![scroll];
        max_scroll = end - bottom;
    }
    content.extend(column);
    if let Some(w) = fab {
        let text = w.text.as_deref().map(|t| page.scope.fill(t));
        let desc = page.scope.fill(w.desc.as_deref().unwrap_or(""));
        let (left, class) = if text.is_some() {
            (ctx.end(503), "android.widget.Button")
        } else {
            (ctx.end(273), "android.widget.ImageButton")
        };
        content.push(
            v(
                class,
                p,
                Bounds::new(left, bottom - ctx.px(273), ctx.end(63), bottom - ctx.px(63)),
            )
            .id(&page.id(&w.id))
            .text(text.unwrap_or_default())
            .desc(desc.clone())
            .style(Style::Fab)
            .tap(page.run(
                w.on_tap.as_ref().unwrap_or(&defs::Action::Nothing(true)),
                screen.record,
                desc,
            )),
        );
    }
    docked.reverse();
    content.extend(docked);
    (window(ctx, p, content), max_scroll)
}

/// The column of flow widgets from `top` (moved up by `scroll`), a list
/// filling the room down to `bottom`: the views, how far a list in it
/// scrolls, its floating action button, and where the column ends.
fn flow<'a>(
    page: &Page<'a>,
    top: i32,
    bottom: i32,
    scroll: i32,
) -> (Vec<View>, i32, Option<&'static WidgetDef>, i32) {
    let ctx = page.ctx;
    let mut content = Vec::new();
    let mut y = top - scroll;
    let mut max_scroll = 0;
    let mut fab = None;
    if let Some(error) = &page.screen.error {
        let h = ctx.sp_px(90);
        content.push(
            page.text(
                "android.widget.TextView",
                Bounds::new(ctx.px(63), y, ctx.end(63), y + h),
                error.clone(),
                TextSize::Small,
            )
            .id(&page.app.resource_id("error")),
        );
        y += h;
    }
    let def = page
        .app
        .screen(&page.screen.screen)
        .expect("the page's screen exists");
    for w in def.widgets.iter().filter(|w| w.dock == Dock::Flow) {
        match w.kind {
            WidgetKind::Fab => fab = Some(w),
            WidgetKind::List => {
                let (view, scroll) = list(page, w, y, bottom);
                max_scroll = scroll;
                content.push(view);
                y = bottom;
            }
            _ => {
                let (view, h) = widget(page, w, y, false);
                if h > 0 {
                    content.push(view);
                }
                y += h;
            }
        }
    }
    (content, max_scroll, fab, y + scroll)
}

/// A widget at `y` (or, docked, ending at `y`) and its height.
fn widget(page: &Page, w: &WidgetDef, y: i32, docked_bottom: bool) -> (View, i32) {
    let p = page.p();
    let ctx = page.ctx;
    let target = page.screen.record;
    // Heights: padding (scaled by density) and a line of text (scaled by
    // density and font scale); 84 px is one 16 sp line at 420 dpi.
    let (text_h, second_h) = (ctx.sp_px(90), ctx.sp_px(70));
    let line = ctx.sp_px(84);
    let link_h = ctx.px(84) + line;
    let key_h = ctx.px(190);
    let h = match w.kind {
        WidgetKind::Text => {
            if w.secondary.is_some() {
                ctx.px(40) + text_h + second_h
            } else {
                ctx.px(30) + text_h
            }
        }
        WidgetKind::Field => ctx.px(if docked_bottom { 86 } else { 116 }) + line,
        WidgetKind::Buttons => ctx.px(146) + line,
        WidgetKind::Button => ctx.px(86) + line,
        WidgetKind::Tabs => ctx.px(130) + second_h,
        WidgetKind::Links => link_h * w.items.len() as i32,
        WidgetKind::Keypad => 4 * key_h,
        _ => 0,
    };
    let top = if docked_bottom { y - h } else { y };
    let b = Bounds::new(0, top, ctx.width(), top + h);
    let view = match w.kind {
        WidgetKind::Text => {
            let text = page.scope.fill(w.text.as_deref().unwrap_or(""));
            if text.is_empty() {
                return (View::default(), 0);
            }
            let mut row = v("android.widget.LinearLayout", p, b);
            if let Some(action) = &w.on_tap {
                row = row
                    .tap(page.run(action, target, text.clone()))
                    .style(Style::Row);
            } else {
                row = readable(row);
            }
            let (left, right, text_top) = (ctx.px(63), ctx.end(63), top + ctx.px(20));
            let (text_b, second_b) = (
                Bounds::new(left, text_top, right, text_top + text_h),
                Bounds::new(left, text_top + text_h, right, text_top + text_h + second_h),
            );
            row = row.child(
                page.text("android.widget.TextView", text_b, text, TextSize::Title)
                    .id(&page.id(&w.id)),
            );
            if let Some(s) = &w.secondary {
                row = row.child(
                    page.text(
                        "android.widget.TextView",
                        second_b,
                        page.scope.fill(s),
                        TextSize::Small,
                    )
                    .id(&page.id(&w.secondary_id)),
                );
            }
            row
        }
        WidgetKind::Field => field(page, w, top, h),
        WidgetKind::Buttons => {
            let n = w.items.len().max(1) as i32;
            let cell = ctx.width() / n;
            let mut row = v("android.widget.LinearLayout", p, b);
            for (i, item) in w.items.iter().enumerate() {
                let x = i as i32 * cell;
                let label = page.scope.fill(&item.label);
                let desc = page.scope.fill(item.desc.as_deref().unwrap_or(&item.label));
                row = row.child(
                    v(
                        "android.widget.Button",
                        p,
                        Bounds::new(
                            x + ctx.px(21),
                            top + ctx.px(21),
                            x + cell - ctx.px(21),
                            top + h - ctx.px(21),
                        ),
                    )
                    .id(&page.id(&item.id))
                    .text(label)
                    .desc(desc.clone())
                    .style(Style::Button)
                    .tap(page.run(&item.on_tap, target, desc)),
                );
            }
            row
        }
        WidgetKind::Button => {
            let text = page.scope.fill(w.text.as_deref().unwrap_or(""));
            v(
                "android.widget.Button",
                p,
                Bounds::new(
                    ctx.px(63),
                    top + ctx.px(21),
                    ctx.end(63),
                    top + h - ctx.px(21),
                ),
            )
            .id(&page.id(&w.id))
            .text(text.clone())
            .desc(
                w.desc
                    .as_deref()
                    .map(|d| page.scope.fill(d))
                    .unwrap_or_default(),
            )
            .style(Style::Button)
            .tap(page.run(
                w.on_tap.as_ref().unwrap_or(&defs::Action::Nothing(true)),
                target,
                text,
            ))
        }
        WidgetKind::Tabs => {
            let n = w.items.len().max(1) as i32;
            let mut tabs = v("android.widget.LinearLayout", p, b).id(&page.id(&w.id));
            for (i, item) in w.items.iter().enumerate() {
                let (x, tab_w) = (i as i32 * ctx.width() / n, ctx.width() / n);
                let label = ctx.t(&item.label);
                let selected =
                    matches!(&item.on_tap, defs::Action::Tab(s) if *s == page.screen.screen);
                let mut tab = v(
                    "android.widget.FrameLayout",
                    p,
                    Bounds::new(x, top, x + tab_w, top + h),
                )
                .id(&page.id(&item.id))
                .desc(label.clone())
                .style(Style::Tab)
                .tap(page.run(&item.on_tap, None, label.clone()));
                tab.node.selected = selected;
                tabs = tabs.child(tab.child(page.text(
                    "android.widget.TextView",
                    Bounds::new(x, top + ctx.px(110), x + tab_w, top + h - ctx.px(20)),
                    label,
                    TextSize::Small,
                )));
            }
            tabs
        }
        WidgetKind::Links => {
            let mut col = v("android.widget.LinearLayout", p, b).id(&page.id(&w.id));
            for (i, item) in w.items.iter().enumerate() {
                let y = top + i as i32 * link_h;
                let label = page.scope.fill(&item.label);
                col = col.child(
                    v(
                        "android.widget.LinearLayout",
                        p,
                        Bounds::new(0, y, ctx.width(), y + link_h),
                    )
                    .id(&page.id(&item.id))
                    .style(Style::Row)
                    .tap(page.run(&item.on_tap, target, label.clone()))
                    .child(
                        page.text(
                            "android.widget.TextView",
                            Bounds::new(
                                ctx.px(189),
                                y + ctx.px(42),
                                ctx.end(63),
                                y + ctx.px(42) + line,
                            ),
                            label,
                            TextSize::Title,
                        )
                        .id("android:id/title"),
                    ),
                );
            }
            col
        }
        WidgetKind::Keypad => {
            let field = w.field.clone().unwrap_or_default();
            let mut pad = v("android.widget.LinearLayout", p, b).id(&page.id(&w.id));
            // Three keys a row across the width inside 90 px margins.
            let key_w = (ctx.width() - 2 * ctx.px(90)) / 3;
            for (i, (key, id)) in KEYS.iter().enumerate() {
                let (col, row) = (i as i32 % 3, i as i32 / 3);
                let x = ctx.px(90) + col * key_w;
                let ky = top + row * key_h;
                pad = pad.child(
                    v(
                        "android.widget.FrameLayout",
                        p,
                        Bounds::new(x, ky + ctx.px(10), x + key_w, ky + key_h - ctx.px(10)),
                    )
                    .id(&page.app.resource_id(id))
                    .desc(key.to_string())
                    .style(Style::Button)
                    .tap(Cmd::App(AppCmd::Key {
                        field: field.clone(),
                        key: *key,
                    }))
                    .child(page.text(
                        "android.widget.TextView",
                        Bounds::new(
                            x + key_w / 2 - ctx.px(50),
                            ky + ctx.px(40),
                            x + key_w / 2 + ctx.px(50),
                            ky + key_h - ctx.px(40),
                        ),
                        key.to_string(),
                        TextSize::Title,
                    )),
                );
            }
            pad
        }
        _ => View::default(),
    };
    (view, h)
}

fn field(page: &Page, w: &WidgetDef, top: i32, h: i32) -> View {
    let p = page.p();
    let ctx = page.ctx;
    let id = w.id.clone().unwrap_or_default();
    let text = page.screen.fields.get(&id).cloned().unwrap_or_default();
    let focused = page.screen.focus.as_deref() == Some(id.as_str());
    let hint = w.hint.as_deref().map(|h| ctx.t(h)).unwrap_or_default();
    let mut right = ctx.end(63);
    let mut frame = v(
        "android.widget.FrameLayout",
        p,
        Bounds::new(0, top, ctx.width(), top + h),
    );
    let mut end = Vec::new();
    if let Some(button) = &w.button {
        right -= ctx.px(168);
        let desc = page
            .scope
            .fill(button.desc.as_deref().unwrap_or(&button.label));
        end.push(
            v(
                "android.widget.ImageButton",
                p,
                Bounds::new(
                    right + ctx.px(21),
                    top + ctx.px(21),
                    right + ctx.px(168),
                    top + h - ctx.px(21),
                ),
            )
            .id(&page.id(&button.id))
            .desc(desc.clone())
            .style(Style::Fab)
            .tap(page.run(&button.on_tap, page.screen.record, desc)),
        );
    }
    if focused && !text.is_empty() {
        right -= ctx.px(126);
        end.push(
            v(
                "android.widget.ImageButton",
                p,
                Bounds::new(
                    right,
                    top + ctx.px(40),
                    right + ctx.px(126),
                    top + h - ctx.px(40),
                ),
            )
            .id(CLEAR_TEXT_ID)
            .desc(ctx.t("Clear text"))
            .style(Style::Icon)
            .tap(Cmd::App(AppCmd::Clear(id.clone()))),
        );
    }
    let mut edit = v(
        "android.widget.EditText",
        p,
        Bounds::new(ctx.px(63), top + ctx.px(21), right, top + h - ctx.px(21)),
    )
    .id(&page.app.resource_id(&id))
    // An empty field reports its hint as its text, as TextView does for accessibility.
    .text(if text.is_empty() {
        hint.clone()
    } else {
        text.clone()
    })
    .style(Style::EditText)
    .tap(Cmd::App(AppCmd::Focus(id)));
    // Drawn as a hint, not as typed text, while empty.
    edit.hint = Some(hint);
    edit.node.focused = focused;
    edit.node.long_clickable = true;
    frame = frame.child(edit);
    frame.children.extend(end);
    frame
}

/// A list widget filling `top..bottom`; returns it and how far it scrolls.
fn list(page: &Page, w: &WidgetDef, top: i32, bottom: i32) -> (View, i32) {
    let p = page.p();
    let ctx = page.ctx;
    let Some(row_def) = &w.row else {
        return (View::default(), 0);
    };
    let viewport = Bounds::new(0, top, ctx.width(), bottom);
    // Rows: padding and their text lines (one each; a longer text is
    // ellipsized, as these lists do).
    let header_h = ctx.px(20) + ctx.sp_px(90);
    let (text_h, second_h) = (ctx.sp_px(78), ctx.sp_px(70));
    let row_h = |secondary: bool| {
        if secondary {
            ctx.px(72) + text_h + second_h
        } else {
            ctx.px(84) + ctx.sp_px(84)
        }
    };
    let mut list = v("androidx.recyclerview.widget.RecyclerView", p, viewport)
        .id(&page.id(&w.id))
        .scrollable();
    let rows = list_rows(w, &page.scope);
    let mut y = top - ctx.scroll;
    let mut section = String::new();
    for row in &rows {
        let scope = page.scope.row(row.record, &row.extra);
        let header = w
            .section
            .iter()
            .map(|t| scope.fill(t))
            .find(|s| !s.is_empty())
            .unwrap_or_default();
        // Like a RecyclerView, only rows in sight are built (and dumped).
        let in_sight = |y: i32, h: i32| y + h > top && y < bottom;
        if !header.is_empty() && header != section {
            if in_sight(y, header_h) {
                list.children.push(
                    page.text(
                        "android.widget.TextView",
                        Bounds::new(ctx.px(63), y, ctx.end(63), y + header_h),
                        header.clone(),
                        TextSize::Small,
                    )
                    .id(&page.app.resource_id("section_header")),
                );
            }
            y += header_h;
        }
        section = header;
        let h = row_h(row_def.secondary.is_some());
        if !in_sight(y, h) {
            y += h;
            continue;
        }
        let target = Some((w.table.expect("validated"), row.record.id));
        let text = scope.fill(&row_def.text);
        let secondary = row_def.secondary.as_deref().map(|s| scope.fill(s));
        let desc = row_def
            .desc
            .as_deref()
            .map(|d| scope.fill(d).trim().to_string())
            .unwrap_or_default();
        let mut view = v(
            "android.widget.LinearLayout",
            p,
            Bounds::new(0, y, ctx.width(), y + h),
        )
        .id(&page.id(&row_def.id))
        .desc(desc)
        .style(Style::Row);
        if let Some(action) = &row_def.on_tap {
            view = view.tap(page.run(action, target, text.clone()));
        }
        let menu = (!row_def.menu.is_empty()).then(|| {
            Cmd::App(AppCmd::Menu {
                items: row_def.menu.clone(),
                target,
            })
        });
        if let Some(menu) = &menu {
            view.on_long_press = Some(menu.clone());
            view.node.long_clickable = true;
            if view.on_tap.is_none() {
                view = view.tap(menu.clone());
            }
        }
        if view.on_tap.is_none() && view.on_long_press.is_none() {
            view = readable(view);
        }
        let (mut left, mut right) = (ctx.px(63), ctx.end(63));
        if let Some(when) = &row_def.bubble_end_when {
            let (column, want) = when.split_once('=').unwrap_or((when, ""));
            if row.record.text(column) == want {
                left = ctx.px(300);
            } else {
                right = ctx.end(300);
            }
        }
        if row_def.icon {
            view = view.child(
                v(
                    "android.widget.ImageView",
                    p,
                    Bounds::new(
                        ctx.px(42),
                        y + h / 2 - ctx.px(60),
                        ctx.px(162),
                        y + h / 2 + ctx.px(60),
                    ),
                )
                // A photo or a coloured initial: nothing the dump shows.
                .id(&page.app.resource_id("avatar"))
                .style(Style::Icon),
            );
            left = ctx.px(210);
        }
        let end_button = |right: i32| {
            Bounds::new(
                right,
                y + h / 2 - ctx.px(70),
                right + ctx.px(147),
                y + h / 2 + ctx.px(70),
            )
        };
        if let Some(button) = &row_def.button {
            right -= ctx.px(147);
            let desc = scope.fill(button.desc.as_deref().unwrap_or(&button.label));
            view = view.child(
                v("android.widget.ImageButton", p, end_button(right))
                    .id(&page.id(&button.id))
                    .desc(desc.clone())
                    .style(Style::Icon)
                    .tap(page.run(&button.on_tap, target, desc)),
            );
        }
        if let Some(menu) = menu {
            right -= ctx.px(147);
            view = view.child(
                v("android.widget.ImageButton", p, end_button(right))
                    .desc(ctx.t("More options"))
                    .style(Style::Icon)
                    .tap(menu),
            );
        }
        let text_top = y + ctx.px(42);
        let text_bottom = if secondary.is_some() {
            text_top + text_h
        } else {
            y + h - ctx.px(42)
        };
        view = view.child(
            page.text(
                "android.widget.TextView",
                Bounds::new(left, text_top, right - ctx.px(21), text_bottom),
                text,
                TextSize::Title,
            )
            .id(&page.id(&row_def.text_id)),
        );
        if let Some(s) = secondary {
            view = view.child(
                page.text(
                    "android.widget.TextView",
                    Bounds::new(left, text_bottom, right - ctx.px(21), y + h - ctx.px(30)),
                    s,
                    TextSize::Small,
                )
                .id(&page.id(&row_def.secondary_id)),
            );
        }
        list.children.push(view);
        y += h;
    }
    if rows.is_empty() {
        if let Some(empty) = &w.empty {
            list.children.push(
                page.text(
                    "android.widget.TextView",
                    Bounds::new(
                        ctx.px(63),
                        top + ctx.px(200),
                        ctx.end(63),
                        top + ctx.px(300),
                    ),
                    page.scope.fill(empty),
                    TextSize::Body,
                )
                .id(&page.app.resource_id("empty_view")),
            );
        }
    }
    // Room under the last row for the floating action button.
    let content_height = y + ctx.scroll - top + ctx.px(230);
    let max_scroll = (content_height - viewport.height()).max(0);
    clip(&mut list, viewport);
    (list, max_scroll)
}
