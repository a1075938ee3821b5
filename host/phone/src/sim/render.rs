//! PNG screenshots of the simulator's view tree. Every visible view is drawn in
//! pre-order (parents under children) by its [`Style`], inside its own bounds,
//! so the picture an agent sees matches the uiautomator dump it reads. Output is
//! a pure function of the tree and the canvas size: the same tree gives the same
//! PNG bytes.
//!
//! Pixels live in [`canvas`], glyphs and line layout in [`text`], colours in
//! [`palette`]; this file decides what each style looks like, with the
//! multi-part controls (switch, slider, text field, bars) in [`widgets`].

mod canvas;
mod palette;
mod text;
mod widgets;

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ImageEncoder, RgbImage};

use self::canvas::{Canvas, Rect};
use self::palette::Ink;
use self::text::{draw_text, Align, Face};
use self::widgets::{
    draw_edit_text, draw_fab, draw_nav_button, draw_seek_bar, draw_status_bar, draw_switch,
};
use super::{Display, Style, TextSize, Theme, View};

/// Render `root` on `display` in `theme` as PNG bytes.
///
/// A zero width or height is drawn as 1 pixel so the result is always a valid
/// PNG. The encoding settings are fixed, so equal trees give equal bytes.
pub(crate) fn render_png(root: &View, display: &Display, theme: Theme) -> Vec<u8> {
    let img = render_rgb(root, display, theme);
    let mut png = Vec::new();
    let encoder = PngEncoder::new_with_quality(&mut png, CompressionType::Fast, FilterType::Sub);
    let encoded = encoder.write_image(
        img.as_raw(),
        img.width(),
        img.height(),
        image::ExtendedColorType::Rgb8,
    );
    if let Err(err) = encoded {
        // Only reachable through an encoder bug: the buffer always matches its size.
        tracing::error!(%err, "failed to encode screenshot");
        png.clear();
    }
    png
}

/// Render `root` on `display` in `theme` (a zero side becomes 1 pixel).
pub(crate) fn render_rgb(root: &View, display: &Display, _theme: Theme) -> RgbImage {
    let (width, height) = (display.width.max(0) as u32, display.height.max(0) as u32);
    let mut canvas = Canvas::new(width.max(1), height.max(1), palette::BACKDROP);
    for view in root.walk() {
        draw_view(&mut canvas, view);
    }
    canvas.into_image()
}

fn draw_view(canvas: &mut Canvas, view: &View) {
    let nb = view.bounds();
    let b = Rect::new(
        nb.left.into(),
        nb.top.into(),
        nb.right.into(),
        nb.bottom.into(),
    );
    if b.is_empty() {
        return;
    }
    if view.style == Style::Dialog {
        canvas.set_clip(canvas.full());
        canvas.scrim(palette::SCRIM_KEEP);
    }
    if canvas.set_clip(b).is_empty() {
        return;
    }
    let ink = Ink {
        enabled: view.node.enabled,
    };
    let node = &view.node;
    let (w, h) = (b.w() as f32, b.h() as f32);
    let (cx, cy) = (b.x0 as f32 + w / 2.0, b.y0 as f32 + h / 2.0);
    match view.style {
        Style::Container => {}
        Style::Screen => canvas.fill_rect(b, ink.of(palette::SURFACE)),
        Style::StatusBar => draw_status_bar(canvas, b, &node.text, ink),
        Style::NavBar => canvas.fill_rect(b, ink.of(palette::BAR)),
        Style::NavButton => draw_nav_button(canvas, b, &node.content_desc, ink),
        Style::Heading => {
            draw_text(
                canvas,
                b,
                &node.text,
                Face::HEADING,
                ink.of(palette::ON_SURFACE),
                Align::Left,
            );
        }
        Style::Text(size) => {
            let (face, color) = match size {
                TextSize::Small => (Face::SMALL, palette::ON_SURFACE_VARIANT),
                TextSize::Body => (Face::BODY, palette::ON_SURFACE),
                TextSize::Title => (Face::TITLE, palette::ON_SURFACE),
            };
            draw_text(canvas, b, &node.text, face, ink.of(color), Align::Left);
        }
        Style::Row => {
            let line = (b.h() / 60).clamp(1, 3);
            canvas.fill_rect(
                Rect::new(b.x0, b.y1 - line, b.x1, b.y1),
                ink.of(palette::DIVIDER),
            );
        }
        Style::Icon => {
            // A launcher icon carries its app's name as text: draw it under the
            // circle, as a launcher does, so "Clock" and "Chrome" differ on screen.
            let labelled = !node.text.is_empty() && h >= 120.0;
            let (cy, d) = if labelled {
                let d = (h * 0.55).min(w);
                (b.y0 as f32 + h * 0.05 + d / 2.0, d)
            } else {
                (cy, w.min(h))
            };
            if labelled {
                let label = Rect::new(b.x0, (cy + d / 2.0) as i64 + 8, b.x1, b.y1);
                draw_text(
                    canvas,
                    label,
                    &node.text,
                    Face::SMALL,
                    ink.of(palette::ON_SURFACE),
                    Align::Centre,
                );
            }
            canvas.fill_circle(cx, cy, d / 2.0, ink.of(palette::ACCENT_CONTAINER));
            let source = if node.content_desc.is_empty() {
                &node.text
            } else {
                &node.content_desc
            };
            let letter: String = source
                .chars()
                .find(|c| !c.is_whitespace())
                .into_iter()
                .flat_map(char::to_uppercase)
                .take(1)
                .collect();
            let side = (d * 0.6) as i64;
            let square = Rect::new(
                cx as i64 - side / 2,
                cy as i64 - side / 2,
                cx as i64 + side / 2,
                cy as i64 + side / 2,
            );
            draw_text(
                canvas,
                square,
                &letter,
                Face::HEADING,
                ink.of(palette::ON_ACCENT_CONTAINER),
                Align::Centre,
            );
        }
        Style::Switch => draw_switch(canvas, b, view, ink),
        Style::SeekBar => draw_seek_bar(canvas, b, view.progress, ink),
        Style::Radio => {
            let r = w.min(h) * 0.21;
            let (rx, label_x) = if node.text.is_empty() {
                (cx, b.x1)
            } else {
                (b.x0 as f32 + h / 2.0, b.x0 + b.h())
            };
            let color = ink.of(if node.checked {
                palette::ACCENT
            } else {
                palette::ON_SURFACE_VARIANT
            });
            canvas.stroke_circle(rx, cy, r, (r * 0.2).max(2.0), color);
            if node.checked {
                canvas.fill_circle(rx, cy, r * 0.5, color);
            }
            let label = Rect::new(label_x, b.y0, b.x1, b.y1);
            draw_text(
                canvas,
                label,
                &node.text,
                Face::BODY,
                ink.of(palette::ON_SURFACE),
                Align::Left,
            );
        }
        Style::Button => {
            let pill = b.inset((b.h() / 12).min(b.w() / 12));
            canvas.fill_round_rect(pill, pill.h() as f32 / 2.0, ink.of(palette::ACCENT));
            draw_text(
                canvas,
                pill.inset(pill.h() / 4),
                &node.text,
                Face::TITLE,
                ink.of(palette::ON_ACCENT),
                Align::Centre,
            );
        }
        Style::Fab => draw_fab(canvas, b, &node.text, ink),
        Style::EditText => draw_edit_text(canvas, b, view, ink),
        Style::Dialog => canvas.fill_round_rect(b, 72.0, ink.of(palette::PANEL)),
        Style::Tab => {
            let color = ink.of(if node.selected {
                palette::ACCENT
            } else {
                palette::ON_SURFACE_VARIANT
            });
            let label_w = draw_text(canvas, b, &node.text, Face::TITLE, color, Align::Centre);
            if node.selected {
                let bar_w = (label_w + 16).min(b.w());
                let x0 = b.x0 + (b.w() - bar_w) / 2;
                let bar = Rect::new(x0, b.y1 - 6, x0 + bar_w, b.y1 + 6);
                canvas.fill_round_rect(bar, 6.0, color);
            }
        }
        Style::BigTime => {
            let chars = text::chars_of(&node.text);
            let face = Face::BIG_TIME.fit_width(chars.len(), b.w());
            draw_text(
                canvas,
                b,
                &node.text,
                face,
                ink.of(palette::ON_SURFACE),
                Align::Centre,
            );
        }
    }
}

#[cfg(test)]
mod render_tests;
