//! The multi-part controls: status and navigation bars, switch, seek bar,
//! floating action button and text field, each drawn inside its view's bounds.

use super::canvas::{Canvas, Rect};
use super::palette::{self, Ink};
use super::text::{draw_text, Align, Face};
use crate::sim::View;

pub(super) fn draw_status_bar(canvas: &mut Canvas, b: Rect, clock: &str, ink: Ink) {
    canvas.fill_rect(b, ink.of(palette::BAR));
    let pad = (b.w() / 20).min(56);
    let fg = ink.of(palette::ON_BAR);
    let inner = Rect::new(b.x0 + pad, b.y0, b.x1 - pad, b.y1);
    draw_text(canvas, inner, clock, Face::TITLE, fg, Align::Left);
    // A battery at the right edge: an upright rounded body with a nub on top.
    let bh = b.h() * 2 / 5;
    let bw = bh / 2;
    let body = Rect::new(
        inner.x1 - bw,
        b.y0 + (b.h() - bh) / 2 + bh / 10,
        inner.x1,
        b.y0 + (b.h() + bh) / 2,
    );
    canvas.fill_round_rect(body, bw as f32 / 5.0, fg);
    let nub = Rect::new(
        body.x0 + bw / 4,
        body.y0 - bh / 10,
        body.x1 - bw / 4,
        body.y0,
    );
    canvas.fill_rect(nub, fg);
}

pub(super) fn draw_nav_button(canvas: &mut Canvas, b: Rect, desc: &str, ink: Ink) {
    let (cx, cy) = ((b.x0 + b.x1) as f32 / 2.0, (b.y0 + b.y1) as f32 / 2.0);
    let s = b.w().min(b.h()) as f32 * 0.36;
    let stroke = (s * 0.13).max(2.0);
    let fg = ink.of(palette::ON_BAR);
    match desc.to_ascii_lowercase().as_str() {
        "back" => {
            let half = s / 2.0;
            canvas.fill_convex(
                &[
                    (cx - half, cy),
                    (cx + half, cy - half * 1.15),
                    (cx + half, cy + half * 1.15),
                ],
                fg,
            );
        }
        "home" => canvas.stroke_circle(cx, cy, s / 2.0, stroke, fg),
        "overview" | "recents" | "recent apps" => {
            let half = (s * 0.45) as i64;
            let (x, y) = (cx as i64, cy as i64);
            canvas.stroke_round_rect(
                Rect::new(x - half, y - half, x + half, y + half),
                s * 0.1,
                stroke,
                fg,
            );
        }
        _ => canvas.fill_circle(cx, cy, s / 6.0, fg),
    }
}

pub(super) fn draw_switch(canvas: &mut Canvas, b: Rect, view: &View, ink: Ink) {
    let node = &view.node;
    // Material 3 proportions: a 52×32 track, a 24 (on) or 16 (off) thumb.
    let th = (b.h() as f32 * 0.7)
        .min(b.w() as f32 * 32.0 / 52.0)
        .max(2.0);
    let tw = th * 52.0 / 32.0;
    let x0 = if node.text.is_empty() {
        (b.x0 + b.x1) as f32 / 2.0 - tw / 2.0
    } else {
        b.x1 as f32 - tw
    };
    let y0 = (b.y0 + b.y1) as f32 / 2.0 - th / 2.0;
    let track = Rect::new(
        x0.round() as i64,
        y0.round() as i64,
        (x0 + tw).round() as i64,
        (y0 + th).round() as i64,
    );
    let cy = y0 + th / 2.0;
    if node.checked {
        canvas.fill_round_rect(track, th / 2.0, ink.of(palette::ACCENT));
        canvas.fill_circle(
            x0 + tw - th / 2.0,
            cy,
            th * 0.375,
            ink.of(palette::ON_ACCENT),
        );
    } else {
        canvas.fill_round_rect(track, th / 2.0, ink.of(palette::TRACK_OFF));
        canvas.stroke_round_rect(track, th / 2.0, th / 16.0, ink.of(palette::OUTLINE));
        canvas.fill_circle(x0 + th / 2.0, cy, th * 0.25, ink.of(palette::OUTLINE));
    }
    let label = Rect::new(b.x0, b.y0, track.x0 - 16, b.y1);
    draw_text(
        canvas,
        label,
        &node.text,
        Face::BODY,
        ink.of(palette::ON_SURFACE),
        Align::Left,
    );
}

pub(super) fn draw_seek_bar(canvas: &mut Canvas, b: Rect, progress: Option<f32>, ink: Ink) {
    let p = progress
        .filter(|p| p.is_finite())
        .unwrap_or(0.0)
        .clamp(0.0, 1.0);
    let h = b.h() as f32;
    let r = (h * 0.3).clamp(1.0, 27.0);
    let (x0, x1) = (b.x0 as f32 + r, (b.x1 as f32 - r).max(b.x0 as f32 + r));
    let cy = (b.y0 + b.y1) as f32 / 2.0;
    let t = (r * 0.6).max(2.0);
    let at = x0 + (x1 - x0) * p;
    let (ty0, ty1) = ((cy - t / 2.0).round() as i64, (cy + t / 2.0).round() as i64);
    let inactive = Rect::new(at.round() as i64, ty0, x1.round() as i64, ty1);
    canvas.fill_round_rect(inactive, t / 2.0, ink.of(palette::ACCENT_CONTAINER));
    let active = Rect::new(x0.round() as i64, ty0, at.round() as i64, ty1);
    canvas.fill_round_rect(active, t / 2.0, ink.of(palette::ACCENT));
    canvas.fill_circle(at, cy, r, ink.of(palette::ACCENT));
}

pub(super) fn draw_fab(canvas: &mut Canvas, b: Rect, label: &str, ink: Ink) {
    let (bg, fg) = (
        ink.of(palette::ACCENT_CONTAINER),
        ink.of(palette::ON_ACCENT_CONTAINER),
    );
    if !label.is_empty() {
        // An extended FAB: the label on a rounded rectangle filling the bounds.
        canvas.fill_round_rect(b, b.h() as f32 * 0.28, bg);
        draw_text(
            canvas,
            b.inset(b.h() / 4),
            label,
            Face::TITLE,
            fg,
            Align::Centre,
        );
        return;
    }
    let side = b.w().min(b.h());
    let (x, y) = ((b.x0 + b.x1) / 2 - side / 2, (b.y0 + b.y1) / 2 - side / 2);
    let square = Rect::new(x, y, x + side, y + side);
    canvas.fill_round_rect(square, side as f32 * 0.28, bg);
    let (len, thick) = (side * 3 / 10, (side / 20).max(2));
    let (cx, cy) = (x + side / 2, y + side / 2);
    canvas.fill_rect(
        Rect::new(
            cx - len / 2,
            cy - thick / 2,
            cx + len / 2,
            cy + thick - thick / 2,
        ),
        fg,
    );
    canvas.fill_rect(
        Rect::new(
            cx - thick / 2,
            cy - len / 2,
            cx + thick - thick / 2,
            cy + len / 2,
        ),
        fg,
    );
}

pub(super) fn draw_edit_text(canvas: &mut Canvas, b: Rect, view: &View, ink: Ink) {
    let node = &view.node;
    let pad = (b.w() / 40).min(16);
    // Text starts a little in, so a caret before it does not cover its first letter.
    let field = Rect::new(b.x0 + pad + 8, b.y0, b.x1 - pad, b.y1);
    let face = Face::BODY.fit_height(b.h());
    let shown = if node.password {
        "•".repeat(node.text.chars().count())
    } else {
        node.text.to_string()
    };
    let hint = view.hint.as_deref().unwrap_or("");
    // An empty field's dump text is its hint (as Android reports it): draw it as one.
    let text_w = if shown.is_empty() || (!hint.is_empty() && shown == hint) {
        draw_text(
            canvas,
            field,
            hint,
            face,
            ink.of(palette::OUTLINE),
            Align::Left,
        );
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
            ink.of(palette::ON_SURFACE),
            Align::Left,
        )
    };
    let (line, color) = if node.focused {
        (4, palette::ACCENT)
    } else {
        (2, palette::OUTLINE)
    };
    canvas.fill_rect(Rect::new(b.x0, b.y1 - line, b.x1, b.y1), ink.of(color));
    if node.focused {
        // Just after the last glyph (cells end in spacing), or just before the hint.
        let x = if text_w > 0 {
            field.x0 + text_w - face.advance() / 5
        } else {
            field.x0 - 8
        }
        .min(field.x1 - 3);
        let (top, bottom) = (
            b.y0 + (b.h() - face.height()) / 2,
            b.y0 + (b.h() + face.height()) / 2,
        );
        let caret = Rect::new(
            x,
            top + face.height() / 10,
            x + 3,
            bottom - face.height() / 10,
        );
        canvas.fill_rect(caret, ink.of(palette::ACCENT));
    }
}
