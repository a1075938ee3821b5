//! The dialogs of data-defined apps: a confirmation, a one-field prompt
//! (rename) with its clear-text icon, a list of choices (move to), and the
//! popup menu an overflow button opens.

use super::app::CLEAR_TEXT_ID;
use super::views::{v, Ctx, HEIGHT, STATUS_BAR};
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
    let cancel = |bottom: i32| {
        button(
            p,
            "android:id/button2",
            Bounds::new(460, bottom - 150, 720, bottom - 40),
            ctx.t("Cancel"),
            Cmd::DialogCancel,
        )
    };
    let ok = |bottom: i32, text: &str| {
        button(
            p,
            "android:id/button1",
            Bounds::new(740, bottom - 150, 954, bottom - 40),
            text.to_string(),
            Cmd::App(AppCmd::DialogOk),
        )
    };
    let panel = |height: i32, title: &str| {
        let top = (HEIGHT - height) / 2;
        let view = v(
            "android.widget.FrameLayout",
            p,
            Bounds::new(63, top, 1017, top + height),
        )
        .style(Style::Dialog)
        .child(
            v(
                "android.widget.TextView",
                p,
                Bounds::new(126, top + 50, 954, top + 150),
            )
            .id("android:id/alertTitle")
            .text(title)
            .style(Style::Text(TextSize::Title)),
        );
        (view, top, top + height)
    };
    match dialog {
        AppDialog::Confirm {
            title,
            message,
            ok: ok_text,
            ..
        } => {
            let (mut view, top, bottom) = panel(520, title);
            if let Some(m) = message {
                view = view.child(
                    v(
                        "android.widget.TextView",
                        p,
                        Bounds::new(126, top + 170, 954, top + 330),
                    )
                    .id("android:id/message")
                    .text(m.clone())
                    .style(Style::Text(TextSize::Body)),
                );
            }
            view.child(cancel(bottom)).child(ok(bottom, ok_text))
        }
        AppDialog::Prompt {
            title,
            ok: ok_text,
            id,
            text,
            ..
        } => {
            let (mut view, top, bottom) = panel(600, title);
            let field_id = match (app, id) {
                (Some(app), Some(id)) => app.resource_id(id),
                _ => "android:id/edit".into(),
            };
            let mut right = 954;
            let mut clear = None;
            if !text.is_empty() {
                right -= 126;
                clear = Some(
                    v(
                        "android.widget.ImageButton",
                        p,
                        Bounds::new(right, top + 200, right + 126, top + 320),
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
                Bounds::new(126, top + 180, right, top + 340),
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
            view.child(cancel(bottom)).child(ok(bottom, ok_text))
        }
        AppDialog::Choose { title, options, .. } => {
            let height = 200 + 150 * options.len() as i32 + 170;
            let (mut view, top, bottom) = panel(height, title);
            for (i, option) in options.iter().enumerate() {
                let y = top + 180 + i as i32 * 150;
                let label = ctx.t(option);
                view = view.child(
                    v(
                        "android.widget.TextView",
                        p,
                        Bounds::new(63, y, 1017, y + 150),
                    )
                    .id("android:id/text1")
                    .text(label)
                    .style(Style::Row)
                    .tap(Cmd::App(AppCmd::Choose(option.clone()))),
                );
            }
            view.child(cancel(bottom))
        }
        AppDialog::Menu { items, .. } => menu(ctx, p, items),
    }
}

/// A popup menu at the top end of the screen, as an overflow menu opens.
fn menu(ctx: &Ctx, p: &str, items: &[ItemDef]) -> View {
    let (top, item_h) = (STATUS_BAR + 21, 147);
    let b = Bounds::new(520, top, 1059, top + item_h * items.len() as i32);
    let mut list = v("android.widget.ListView", p, b).style(Style::Dialog);
    for (i, item) in items.iter().enumerate() {
        let y = top + i as i32 * item_h;
        let label = ctx.t(&item.label);
        list = list.child(
            v(
                "android.widget.LinearLayout",
                p,
                Bounds::new(520, y, 1059, y + item_h),
            )
            .tap(Cmd::App(AppCmd::MenuPick(i)))
            .child(
                v(
                    "android.widget.TextView",
                    p,
                    Bounds::new(583, y + 30, 1017, y + item_h - 30),
                )
                .id("android:id/title")
                .text(label)
                .style(Style::Text(TextSize::Body)),
            ),
        );
    }
    list
}
