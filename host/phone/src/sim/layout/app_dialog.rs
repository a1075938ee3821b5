//! The dialogs of data-defined apps: a confirmation, a one-field prompt
//! (rename) with its clear-text icon, a list of choices (move to), and the
//! popup menu an overflow button opens.

use super::app::CLEAR_TEXT_ID;
use super::views::{v, Ctx, Panel};
use crate::apps::defs::{self, ItemDef};
use crate::sim::cmd::{AppCmd, AppDialog, AppScreen, Cmd};
use crate::sim::view::{Style, TextSize, View};
use crate::uiautomator::Bounds;

fn button(p: &str, id: &str, b: Bounds, text: String, cmd: Cmd) -> View {
    v("android.widget.Button", p, b)
        .id(id)
        .text(text)
        .style(Style::Button)
        .tap(cmd)
}

/// A dialog of the app in front.
pub(super) fn app_dialog(ctx: &Ctx, screen: Option<&AppScreen>, dialog: &AppDialog) -> View {
    let app = screen.and_then(|s| defs::app_named(&s.app));
    let p = app.map(|a| a.package.as_str()).unwrap_or("android");
    // Buttons at the panel's bottom end.
    let end_button = |f: &Panel, from: i32, to: i32| {
        Bounds::new(
            f.x_end(ctx, from),
            f.bottom - ctx.px(150),
            f.x_end(ctx, to),
            f.bottom - ctx.px(40),
        )
    };
    let cancel = |f: &Panel| {
        button(
            p,
            "android:id/button2",
            end_button(f, 460, 720),
            ctx.t("Cancel"),
            Cmd::DialogCancel,
        )
    };
    let ok = |f: &Panel, text: &str| {
        button(
            p,
            "android:id/button1",
            end_button(f, 740, 954),
            text.to_string(),
            Cmd::App(AppCmd::DialogOk),
        )
    };
    let panel = |height: i32, title: &str| {
        let f = Panel::centred(ctx, height);
        let view = v(
            "android.widget.FrameLayout",
            p,
            Bounds::new(f.left, f.top, f.right, f.bottom),
        )
        .style(Style::Dialog)
        .child(
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
        (view, f)
    };
    match dialog {
        AppDialog::Confirm {
            title,
            message,
            ok: ok_text,
            ..
        } => {
            let (mut view, f) = panel(520, title);
            if let Some(m) = message {
                view = view.child(
                    v(
                        "android.widget.TextView",
                        p,
                        Bounds::new(
                            f.x(ctx, 126),
                            f.y(ctx, 170),
                            f.x_end(ctx, 954),
                            f.y(ctx, 330),
                        ),
                    )
                    .id("android:id/message")
                    .text(m.clone())
                    .style(Style::Text(TextSize::Body)),
                );
            }
            view.child(cancel(&f)).child(ok(&f, ok_text))
        }
        AppDialog::Prompt {
            title,
            ok: ok_text,
            id,
            text,
            ..
        } => {
            let (mut view, f) = panel(600, title);
            let field_id = match (app, id) {
                (Some(app), Some(id)) => app.resource_id(id),
                _ => "android:id/edit".into(),
            };
            let mut right = f.x_end(ctx, 954);
            let mut clear = None;
            if !text.is_empty() {
                right -= ctx.px(126);
                clear = Some(
                    v(
                        "android.widget.ImageButton",
                        p,
                        Bounds::new(right, f.y(ctx, 200), right + ctx.px(126), f.y(ctx, 320)),
                    )
                    .id(CLEAR_TEXT_ID)
                    .desc(ctx.t("Clear text"))
                    .style(Style::Icon)
                    .tap(Cmd::App(AppCmd::Clear(String::new()))),
                );
            }
            let mut edit = v(
                "android.widget.EditText",
                p,
                Bounds::new(f.x(ctx, 126), f.y(ctx, 180), right, f.y(ctx, 340)),
            )
            .id(&field_id)
            .text(text.clone())
            .style(Style::EditText)
            .tap(Cmd::Nothing);
            edit.node.focused = true;
            edit.node.long_clickable = true;
            view = view.child(edit);
            if let Some(c) = clear {
                view = view.child(c);
            }
            view.child(cancel(&f)).child(ok(&f, ok_text))
        }
        AppDialog::Choose { title, options, .. } => {
            let height = 200 + 150 * options.len() as i32 + 170;
            let (mut view, f) = panel(height, title);
            for (i, option) in options.iter().enumerate() {
                let y = f.y(ctx, 180 + i as i32 * 150);
                let label = ctx.t(option);
                view = view.child(
                    v(
                        "android.widget.TextView",
                        p,
                        Bounds::new(f.left, y, f.right, y + ctx.px(150)),
                    )
                    .id("android:id/text1")
                    .text(label)
                    .style(Style::Row)
                    .tap(Cmd::App(AppCmd::Choose(option.clone()))),
                );
            }
            view.child(cancel(&f))
        }
        AppDialog::Menu { items, .. } => menu(ctx, p, items),
    }
}

/// A popup menu at the top end of the screen, as an overflow menu opens.
fn menu(ctx: &Ctx, p: &str, items: &[ItemDef]) -> View {
    // Items are padding and a line of text tall.
    let (top, item_h) = (ctx.status_bar() + ctx.px(21), ctx.px(63) + ctx.sp_px(84));
    let (left, right) = (ctx.end(560), ctx.end(21));
    let b = Bounds::new(left, top, right, top + item_h * items.len() as i32);
    let mut list = v("android.widget.ListView", p, b).style(Style::Dialog);
    for (i, item) in items.iter().enumerate() {
        let y = top + i as i32 * item_h;
        let label = ctx.t(&item.label);
        list = list.child(
            v(
                "android.widget.LinearLayout",
                p,
                Bounds::new(left, y, right, y + item_h),
            )
            .tap(Cmd::App(AppCmd::MenuPick(i)))
            .child(
                v(
                    "android.widget.TextView",
                    p,
                    Bounds::new(
                        ctx.end(497),
                        y + ctx.px(30),
                        ctx.end(63),
                        y + item_h - ctx.px(30),
                    ),
                )
                .id("android:id/title")
                .text(label)
                .style(Style::Text(TextSize::Body)),
            ),
        );
    }
    list
}
