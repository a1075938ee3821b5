//! The Material 3 controls, each drawn inside its view's bounds at the sizes
//! the Material 3 specs give in dp: icons and avatars, navigation buttons,
//! switch, radio button, slider, buttons and search bars, floating action
//! button, text field and tabs.

use super::canvas::{Canvas, Rect};
use super::env::Env;
use super::icons::{initial, name_hash, Art, Symbol};
use super::palette::Ink;
use super::text::{chars_of, draw_text, line_width, Align, Face, Weight};
use crate::sim::View;

fn centre(b: Rect) -> (f32, f32) {
    ((b.x0 + b.x1) as f32 / 2.0, (b.y0 + b.y1) as f32 / 2.0)
}

/// A square of side `side` centred on (cx, cy), in whole pixels.
fn square(cx: f32, cy: f32, side: f32) -> Rect {
    let h = side / 2.0;
    Rect::new(
        (cx - h).round() as i64,
        (cy - h).round() as i64,
        (cx + h).round() as i64,
        (cy + h).round() as i64,
    )
}

/// An icon-only view: a symbol, a contact's avatar, a launcher icon with its
/// label, or — when nothing names it — a lettered circle.
pub(super) fn draw_icon(
    canvas: &mut Canvas,
    env: &Env,
    b: Rect,
    view: &View,
    art: Option<Art>,
    ink: Ink,
) {
    let pal = env.pal;
    let node = &view.node;
    let (w, h) = (b.w() as f32, b.h() as f32);
    let (cx, cy) = centre(b);
    match art {
        Some(Art::Symbol(symbol)) => {
            // A bare icon (a Settings row's) is quieter than a control's.
            let color = if node.content_desc.is_empty() {
                pal.on_surface_variant
            } else {
                pal.on_surface
            };
            let size = env.dp(24.0).min(w.min(h));
            symbol.draw(canvas, cx, cy, size, ink.of(color));
        }
        Some(Art::Avatar(name)) => {
            let d = w.min(h);
            let (bg, fg) = pal.avatars[name_hash(&name) as usize % pal.avatars.len()];
            canvas.fill_circle(cx, cy, d / 2.0, ink.of(bg));
            let face = Face::new(Weight::Medium, d * 0.45);
            draw_text(
                canvas,
                square(cx, cy, d),
                &initial(&name),
                face,
                ink.of(fg),
                Align::Centre,
            );
        }
        Some(Art::App(symbol, bg)) => {
            let labelled = !node.text.is_empty() && h >= env.dp(48.0);
            let d = if labelled {
                (h * 0.55).min(w * 0.62).min(env.dp(56.0))
            } else {
                w.min(h)
            };
            let icon_cy = if labelled {
                b.y0 as f32 + h * 0.08 + d / 2.0
            } else {
                cy
            };
            canvas.fill_circle(cx, icon_cy, d / 2.0, ink.of(bg));
            symbol.draw(canvas, cx, icon_cy, d * 0.5, ink.of([0xff, 0xff, 0xff]));
            if labelled {
                let top = (icon_cy + d / 2.0 + env.dp(6.0)) as i64;
                let label = Rect::new(b.x0 + 4, top, b.x1 - 4, top + env.sp_px(12.0) * 3 / 2);
                let face = env.face(Weight::Regular, 12.0);
                draw_text(
                    canvas,
                    label,
                    &node.text,
                    face,
                    ink.of(pal.on_surface),
                    Align::Centre,
                );
            }
        }
        None => {
            let d = w.min(h);
            canvas.fill_circle(cx, cy, d / 2.0, ink.of(pal.primary_container));
            let source = if node.content_desc.is_empty() {
                &node.text
            } else {
                &node.content_desc
            };
            let face = Face::new(Weight::Medium, d * 0.45);
            let letter = initial(source);
            let color = ink.of(pal.on_primary_container);
            draw_text(
                canvas,
                square(cx, cy, d),
                &letter,
                face,
                color,
                Align::Centre,
            );
        }
    }
}

/// The three-button navigation bar's Back (a triangle), Home (a ring) and
/// Overview (a rounded square), as System UI draws them.
pub(super) fn draw_nav_button(canvas: &mut Canvas, env: &Env, b: Rect, desc: &str, ink: Ink) {
    let (cx, cy) = centre(b);
    let s = env.dp(18.0).min(b.w().min(b.h()) as f32 * 0.6);
    let stroke = env.dp(2.0);
    let fg = ink.of(env.pal.on_surface_variant);
    match desc.to_ascii_lowercase().as_str() {
        "back" => {
            let half = s / 2.0;
            canvas.fill_convex(
                &[
                    (cx - half, cy),
                    (cx + half * 0.8, cy - half),
                    (cx + half * 0.8, cy + half),
                ],
                fg,
            );
        }
        "home" => canvas.stroke_circle(cx, cy, s / 2.0, stroke, fg),
        "overview" | "recents" | "recent apps" => {
            let r = square(cx, cy, s * 0.85);
            canvas.stroke_round_rect(r, env.dp(2.0), stroke, fg);
        }
        _ => canvas.fill_circle(cx, cy, s / 6.0, fg),
    }
}

/// A Material 3 switch: a 52×32 dp track; on, a primary track with a 24 dp
/// thumb holding a check; off, an outlined track with a 16 dp thumb.
pub(super) fn draw_switch(canvas: &mut Canvas, env: &Env, b: Rect, view: &View, ink: Ink) {
    let pal = env.pal;
    let node = &view.node;
    let th = env
        .dp(32.0)
        .min(b.h() as f32 * 0.8)
        .min(b.w() as f32 * 32.0 / 52.0)
        .max(2.0);
    let tw = th * 52.0 / 32.0;
    let x0 = if node.text.is_empty() {
        centre(b).0 - tw / 2.0
    } else {
        b.x1 as f32 - tw
    };
    let y0 = centre(b).1 - th / 2.0;
    let track = Rect::new(
        x0.round() as i64,
        y0.round() as i64,
        (x0 + tw).round() as i64,
        (y0 + th).round() as i64,
    );
    let cy = y0 + th / 2.0;
    if node.checked {
        canvas.fill_round_rect(track, th / 2.0, ink.of(pal.primary));
        let tx = x0 + tw - th / 2.0;
        canvas.fill_circle(tx, cy, th * 0.375, ink.of(pal.on_primary));
        Symbol::Check.draw(canvas, tx, cy, th * 0.5, ink.of(pal.on_primary_container));
    } else {
        canvas.fill_round_rect(track, th / 2.0, ink.of(pal.surface_container_highest));
        canvas.stroke_round_rect(track, th / 2.0, th / 16.0, ink.of(pal.outline));
        canvas.fill_circle(x0 + th / 2.0, cy, th * 0.25, ink.of(pal.outline));
    }
    let label = Rect::new(b.x0, b.y0, track.x0 - env.dp(16.0) as i64, b.y1);
    let face = env.face(Weight::Regular, 16.0);
    draw_text(
        canvas,
        label,
        &node.text,
        face,
        ink.of(pal.on_surface),
        Align::Left,
    );
}

/// A radio button: a 20 dp ring, with a 10 dp dot when checked, and its label.
pub(super) fn draw_radio(canvas: &mut Canvas, env: &Env, b: Rect, view: &View, ink: Ink) {
    let pal = env.pal;
    let node = &view.node;
    let (w, h) = (b.w() as f32, b.h() as f32);
    let r = (env.dp(10.0)).min(w.min(h) * 0.4);
    let (rx, label_x) = if node.text.is_empty() {
        (centre(b).0, b.x1)
    } else {
        (b.x0 as f32 + h / 2.0, b.x0 + b.h())
    };
    let cy = centre(b).1;
    let color = ink.of(if node.checked {
        pal.primary
    } else {
        pal.on_surface_variant
    });
    canvas.stroke_circle(rx, cy, r, (r * 0.2).max(2.0), color);
    if node.checked {
        canvas.fill_circle(rx, cy, r * 0.5, color);
    }
    let label = Rect::new(label_x, b.y0, b.x1, b.y1);
    let face = env.face(Weight::Regular, 16.0);
    draw_text(
        canvas,
        label,
        &node.text,
        face,
        ink.of(pal.on_surface),
        Align::Left,
    );
}

/// A slider: a 4 dp track, primary up to the thumb, and a 20 dp thumb.
pub(super) fn draw_seek_bar(
    canvas: &mut Canvas,
    env: &Env,
    b: Rect,
    progress: Option<f32>,
    ink: Ink,
) {
    let pal = env.pal;
    let p = progress
        .filter(|p| p.is_finite())
        .unwrap_or(0.0)
        .clamp(0.0, 1.0);
    let r = env.dp(10.0).min(b.h() as f32 / 2.0).max(1.0);
    let (x0, x1) = (b.x0 as f32 + r, (b.x1 as f32 - r).max(b.x0 as f32 + r));
    let cy = centre(b).1;
    let t = env.dp(4.0).min(r);
    let at = x0 + (x1 - x0) * p;
    let (ty0, ty1) = ((cy - t / 2.0).round() as i64, (cy + t / 2.0).round() as i64);
    let inactive = Rect::new(at.round() as i64, ty0, x1.round() as i64, ty1);
    canvas.fill_round_rect(inactive, t / 2.0, ink.of(pal.secondary_container));
    let active = Rect::new(x0.round() as i64, ty0, at.round() as i64, ty1);
    canvas.fill_round_rect(active, t / 2.0, ink.of(pal.primary));
    canvas.fill_circle(at, cy, r, ink.of(pal.primary));
}

/// A button: a text button in a dialog, a filled pill elsewhere; one with no
/// text is a search bar (the launcher's and Settings'), a pill with a
/// magnifier (and the launcher's microphone).
pub(super) fn draw_button(
    canvas: &mut Canvas,
    env: &Env,
    b: Rect,
    view: &View,
    in_dialog: bool,
    ink: Ink,
) {
    let pal = env.pal;
    let node = &view.node;
    let face = env.face(Weight::Medium, 14.0);
    if node.text.is_empty() {
        canvas.fill_round_rect(b, b.h() as f32 / 2.0, ink.of(pal.surface_container_high));
        let size = env.dp(24.0).min(b.h() as f32 * 0.6);
        let cy = centre(b).1;
        let x = b.x0 as f32 + env.dp(12.0) + size / 2.0;
        Symbol::Search.draw(canvas, x, cy, size, ink.of(pal.on_surface_variant));
        if node.content_desc.eq_ignore_ascii_case("search") {
            let x = b.x1 as f32 - env.dp(16.0) - size / 2.0;
            Symbol::Mic.draw(canvas, x, cy, size, ink.of(pal.on_surface_variant));
        }
        return;
    }
    if in_dialog {
        draw_text(
            canvas,
            b,
            &node.text,
            face,
            ink.of(pal.primary),
            Align::Centre,
        );
        return;
    }
    let pill = b.inset((b.h() / 12).min(b.w() / 12));
    canvas.fill_round_rect(pill, pill.h() as f32 / 2.0, ink.of(pal.primary));
    let label = pill.inset(pill.h() / 5);
    draw_text(
        canvas,
        label,
        &node.text,
        face,
        ink.of(pal.on_primary),
        Align::Centre,
    );
}

/// A floating action button: a rounded square with its symbol, or, extended,
/// its symbol and label on a rounded rectangle filling the bounds.
pub(super) fn draw_fab(
    canvas: &mut Canvas,
    env: &Env,
    b: Rect,
    label: &str,
    symbol: Option<Symbol>,
    ink: Ink,
) {
    let pal = env.pal;
    let (bg, fg) = (
        ink.of(pal.primary_container),
        ink.of(pal.on_primary_container),
    );
    let icon = env.dp(24.0);
    if !label.is_empty() {
        canvas.fill_round_rect(b, env.dp(16.0).min(b.h() as f32 / 2.0), bg);
        let face = env.face(Weight::Medium, 14.0);
        let text_w = line_width(&chars_of(label), face);
        let gap = env.dp(12.0);
        let total = text_w + symbol.map_or(0.0, |_| icon + gap);
        let mut x = centre(b).0 - total / 2.0;
        if let Some(s) = symbol {
            s.draw(canvas, x + icon / 2.0, centre(b).1, icon, fg);
            x += icon + gap;
        }
        let text = Rect::new(x.floor() as i64, b.y0, b.x1, b.y1);
        draw_text(canvas, text, label, face, fg, Align::Left);
        return;
    }
    let side = b.w().min(b.h()) as f32;
    let (cx, cy) = centre(b);
    canvas.fill_round_rect(square(cx, cy, side), side * 0.3, bg);
    let size = if side >= env.dp(80.0) {
        env.dp(36.0)
    } else {
        icon
    };
    match symbol {
        Some(s) => s.draw(canvas, cx, cy, size.min(side * 0.6), fg),
        None => Symbol::Add.draw(canvas, cx, cy, size.min(side * 0.6), fg),
    }
}

/// A text field: a filled pill for search and compose fields, an outlined box
/// otherwise (2 dp primary when focused); the hint when empty; a caret.
pub(super) fn draw_edit_text(canvas: &mut Canvas, env: &Env, b: Rect, view: &View, ink: Ink) {
    let pal = env.pal;
    let node = &view.node;
    let id = &node.resource_id;
    let time = id.ends_with(":id/input_hour") || id.ends_with(":id/input_minute");
    if time {
        draw_time_field(canvas, env, b, view, ink);
        return;
    }
    let pill = id.contains("search") || id.contains("compose") || id.contains("recipient");
    if pill {
        canvas.fill_round_rect(b, b.h() as f32 / 2.0, ink.of(pal.surface_container_high));
    } else {
        let (width, color) = if node.focused {
            (env.dp(2.0), pal.primary)
        } else {
            (env.dp(1.0), pal.outline)
        };
        canvas.stroke_round_rect(b, env.dp(4.0), width, ink.of(color));
    }
    let pad = env.dp(16.0).min(b.w() as f32 / 8.0) as i64;
    let field = Rect::new(b.x0 + pad, b.y0, b.x1 - pad, b.y1);
    let face = env.face(Weight::Regular, 16.0).fit_height(b.h());
    let shown = if node.password {
        "•".repeat(node.text.chars().count())
    } else {
        node.text.to_string()
    };
    let hint = view.hint.as_deref().unwrap_or("");
    // An empty field's dump text is its hint (as Android reports it): draw it as one.
    let text_w = if shown.is_empty() || (!hint.is_empty() && shown == hint) {
        let color = ink.of(pal.on_surface_variant);
        draw_text(canvas, field, hint, face, color, Align::Left);
        0
    } else {
        // One line: the field scrolls sideways on a phone, it does not wrap.
        let one_line = Rect::new(
            field.x0,
            b.y0 + (b.h() - face.height()) / 2,
            field.x1,
            b.y0 + (b.h() + face.height()) / 2,
        );
        draw_text(
            canvas,
            one_line,
            &shown,
            face,
            ink.of(pal.on_surface),
            Align::Left,
        )
    };
    if node.focused {
        // Just after the text, or just before an empty field's hint.
        let x = if text_w > 0 {
            field.x0 + text_w + 2
        } else {
            field.x0 - env.dp(4.0) as i64
        }
        .min(field.x1 - 3);
        let (top, bottom) = (
            b.y0 + (b.h() - face.height()) / 2,
            b.y0 + (b.h() + face.height()) / 2,
        );
        let caret = Rect::new(
            x,
            top + face.height() / 10,
            x + env.dp(2.0) as i64,
            bottom - face.height() / 10,
        );
        canvas.fill_rect(caret, ink.of(pal.primary));
    }
}

/// A time picker's hour or minute field, as Material 3's time input draws it:
/// large digits centred in a filled box, outlined in primary when focused.
fn draw_time_field(canvas: &mut Canvas, env: &Env, b: Rect, view: &View, ink: Ink) {
    let pal = env.pal;
    let node = &view.node;
    let radius = env.dp(8.0);
    if node.focused {
        canvas.fill_round_rect(b, radius, ink.of(pal.primary_container));
        canvas.stroke_round_rect(b, radius, env.dp(2.0), ink.of(pal.primary));
    } else {
        canvas.fill_round_rect(b, radius, ink.of(pal.surface_container_highest));
    }
    let face = env.face(Weight::Regular, 45.0).fit_height(b.h());
    let hint = view.hint.as_deref().unwrap_or("");
    let empty = node.text.is_empty() || node.text == hint;
    let (shown, color) = if empty {
        (hint, pal.on_surface_variant)
    } else {
        (node.text.as_str(), pal.on_primary_container)
    };
    let w = draw_text(canvas, b, shown, face, ink.of(color), Align::Centre);
    if node.focused {
        // After the digits typed, or before the hint.
        let cx = centre(b).0 as i64;
        let x = if empty {
            cx - w / 2 - 4
        } else {
            cx + w / 2 + 2
        };
        let (top, bottom) = (
            b.y0 + (b.h() - face.height()) / 2,
            b.y0 + (b.h() + face.height()) / 2,
        );
        let caret = Rect::new(x, top, x + env.dp(2.0) as i64, bottom);
        canvas.fill_rect(caret, ink.of(pal.primary));
    }
}

/// A tab. With no text of its own it is a navigation bar item (the label is a
/// child): its symbol in a 64×32 dp pill, filled when selected. With text it
/// is a primary tab: the label, and a primary line under the selected one.
pub(super) fn draw_tab(
    canvas: &mut Canvas,
    env: &Env,
    b: Rect,
    view: &View,
    symbol: Option<Symbol>,
    ink: Ink,
) {
    let pal = env.pal;
    let node = &view.node;
    if node.text.is_empty() {
        let (cx, _) = centre(b);
        let (pw, ph) = (env.dp(64.0).min(b.w() as f32), env.dp(32.0));
        let cy = b.y0 as f32 + env.dp(12.0) + ph / 2.0;
        let color = if node.selected {
            let pill = Rect::new(
                (cx - pw / 2.0).round() as i64,
                (cy - ph / 2.0).round() as i64,
                (cx + pw / 2.0).round() as i64,
                (cy + ph / 2.0).round() as i64,
            );
            canvas.fill_round_rect(pill, ph / 2.0, ink.of(pal.secondary_container));
            pal.on_secondary_container
        } else {
            pal.on_surface_variant
        };
        if let Some(s) = symbol {
            s.draw(canvas, cx, cy, env.dp(24.0), ink.of(color));
        }
        return;
    }
    let color = ink.of(if node.selected {
        pal.primary
    } else {
        pal.on_surface_variant
    });
    let face = env.face(Weight::Medium, 14.0);
    let label_w = draw_text(canvas, b, &node.text, face, color, Align::Centre);
    if node.selected {
        let bar_w = (label_w + 16).min(b.w());
        let x0 = b.x0 + (b.w() - bar_w) / 2;
        let t = env.dp(3.0) as i64;
        canvas.fill_round_rect(
            Rect::new(x0, b.y1 - t, x0 + bar_w, b.y1 + t),
            t as f32,
            color,
        );
    }
}

/// A message in a thread (a row holding a `message_text`): a bubble behind
/// its text and time, on the right and in the primary container colour when
/// sent (the layout moves a sent message's text right), on the left when
/// received. Other rows draw nothing of their own, as Material 3 lists have
/// no dividers.
pub(super) fn draw_bubble(canvas: &mut Canvas, env: &Env, b: Rect, view: &View, ink: Ink) {
    let texts: Vec<&View> = view
        .children
        .iter()
        .filter(|c| !c.node.bounds.is_empty() && !c.node.text.is_empty())
        .collect();
    let Some(body) = texts
        .iter()
        .find(|c| c.node.resource_id.ends_with(":id/message_text"))
    else {
        return;
    };
    let pal = env.pal;
    let pad = env.dp(14.0);
    let sent = body.node.bounds.left > (b.x0 + b.w() / 5) as i32;
    let (mut x0, mut x1, mut y0, mut y1) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
    for t in &texts {
        let tb = t.node.bounds;
        let sp = if t.node.resource_id == body.node.resource_id {
            16.0
        } else {
            12.0
        };
        let w = line_width(&chars_of(&t.node.text), env.face(Weight::Regular, sp));
        x0 = x0.min(tb.left as f32);
        x1 = x1.max((tb.left as f32 + w).min(tb.right as f32));
        y0 = y0.min(tb.top as f32);
        y1 = y1.max(tb.bottom as f32);
    }
    let bubble = Rect::new(
        (x0 - pad) as i64,
        (y0 - pad / 2.0) as i64,
        (x1 + pad) as i64,
        (y1 + pad / 2.0) as i64,
    );
    let color = if sent {
        pal.primary_container
    } else {
        pal.surface_container_high
    };
    canvas.fill_round_rect(bubble, env.dp(20.0), ink.of(color));
}
