//! PNG screenshots of the simulator's view tree, drawn as a Pixel running
//! Android 14 draws its Material 3 screens: Roboto text at the display's sp
//! sizes, Material Symbols for icon-only controls, anti-aliased shapes, a light
//! or dark colour scheme. Every visible view is drawn in pre-order (parents
//! under children) by its [`Style`], clipped to its own bounds, so the picture
//! an agent sees matches the uiautomator dump it reads. Output is a pure
//! function of the tree, the display and the theme: fonts and icons are
//! compiled in from pinned crates, so the same inputs give the same PNG bytes
//! on every machine.
//!
//! Pixels live in [`canvas`], glyphs and line layout in [`text`], colours in
//! [`palette`], symbols in [`icons`] (parsed by [`svg`]); this file decides
//! what each style looks like, with the multi-part controls (switch, slider,
//! text field, bars, FAB) in [`widgets`].

mod canvas;
mod env;
mod icons;
mod palette;
mod svg;
mod text;
mod widgets;

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ImageEncoder, RgbImage};

use self::canvas::{Canvas, Rect};
use self::env::Env;
use self::icons::{art_of, Art};
use self::palette::{Ink, Palette};
use self::text::{draw_text, Align, Face, Weight};
use self::widgets::{
    draw_bubble, draw_button, draw_edit_text, draw_fab, draw_icon, draw_nav_button, draw_radio,
    draw_seek_bar, draw_switch, draw_tab,
};
use super::{Display, Style, TextSize, Theme, View};
use crate::apps::LAUNCHER;

pub(crate) use self::icons::status;

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
pub(crate) fn render_rgb(root: &View, display: &Display, theme: Theme) -> RgbImage {
    let (width, height) = (display.width.max(0) as u32, display.height.max(0) as u32);
    let mut canvas = Canvas::new(width.max(1), height.max(1), palette::BACKDROP);
    let env = Env {
        display,
        pal: Palette::of(theme),
    };
    let mut ancestors = Vec::new();
    draw_tree(&mut canvas, &env, root, &mut ancestors);
    canvas.into_image()
}

/// How many icon-only views under `root` nothing names a symbol for, so they
/// are drawn as a lettered circle (a placeholder): 0 on every screen the
/// simulator lays out, which a test holds it to.
pub fn placeholder_icons(root: &View) -> usize {
    fn count<'a>(view: &'a View, ancestors: &mut Vec<&'a View>) -> usize {
        let own = usize::from(view.style == Style::Icon && art_of(view, ancestors).is_none());
        ancestors.push(view);
        let below: usize = visible(view).map(|c| count(c, ancestors)).sum();
        ancestors.pop();
        own + below
    }
    count(root, &mut Vec::new())
}

fn visible(view: &View) -> impl Iterator<Item = &View> {
    view.children.iter().filter(|c| !c.node.bounds.is_empty())
}

fn draw_tree<'a>(canvas: &mut Canvas, env: &Env, view: &'a View, ancestors: &mut Vec<&'a View>) {
    draw_view(canvas, env, view, ancestors);
    ancestors.push(view);
    for child in visible(view) {
        draw_tree(canvas, env, child, ancestors);
    }
    ancestors.pop();
}

fn draw_view(canvas: &mut Canvas, env: &Env, view: &View, ancestors: &[&View]) {
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
    let pal = env.pal;
    let ink = Ink {
        enabled: view.node.enabled,
        pal,
    };
    let node = &view.node;
    let in_style = |s: Style| ancestors.iter().any(|a| a.style == s);
    match view.style {
        Style::Container => {}
        // The home screen shows a wallpaper: a soft gradient in the theme's tones.
        Style::Screen if node.package == LAUNCHER => {
            canvas.fill_gradient(b, pal.wallpaper.0, pal.wallpaper.1);
        }
        Style::Screen => canvas.fill_rect(b, ink.of(pal.surface)),
        // The system bars are transparent, drawn edge to edge over the app's
        // window (and the launcher's wallpaper, and a dialog's scrim) as on
        // Android 14: only their content is drawn.
        Style::NavBar => {}
        Style::StatusBar => {
            // A bar given its clock as its own text (the layout gives it a child).
            let pad = env.dp(24.0) as i64;
            let inner = Rect::new(b.x0 + pad, b.y0, b.x1 - pad, b.y1);
            let face = env.face(Weight::Medium, 14.0);
            draw_text(
                canvas,
                inner,
                &node.text,
                face,
                ink.of(pal.on_surface),
                Align::Left,
            );
        }
        Style::NavButton => draw_nav_button(canvas, env, b, &node.content_desc, ink),
        Style::Heading => {
            let face = env.face(Weight::Regular, 32.0).fit_width(&node.text, b.w());
            draw_text(
                canvas,
                b,
                &node.text,
                face,
                ink.of(pal.on_surface),
                Align::Left,
            );
        }
        Style::Text(size) => {
            let toolbar = ancestors
                .last()
                .is_some_and(|p| p.node.resource_id.ends_with("toolbar"));
            let (face, color) = match size {
                _ if in_style(Style::StatusBar) => (env.face(Weight::Medium, 14.0), pal.on_surface),
                TextSize::Title if toolbar => (env.face(Weight::Regular, 22.0), pal.on_surface),
                TextSize::Small => (env.face(Weight::Regular, 12.0), pal.on_surface_variant),
                TextSize::Body => (env.face(Weight::Regular, 14.0), pal.on_surface),
                TextSize::Title => (env.face(Weight::Regular, 16.0), pal.on_surface),
            };
            let selected_tab = ancestors
                .last()
                .is_some_and(|p| p.style == Style::Tab && p.node.selected);
            let (face, align) = if in_style(Style::Tab) {
                (Face::new(Weight::Medium, face.px), Align::Centre)
            } else {
                (face, Align::Left)
            };
            let color = if selected_tab { pal.on_surface } else { color };
            draw_text(canvas, b, &node.text, face, ink.of(color), align);
        }
        Style::Row => draw_bubble(canvas, env, b, view, ink),
        Style::Icon => draw_icon(canvas, env, b, view, art_of(view, ancestors), ink),
        Style::Switch => draw_switch(canvas, env, b, view, ink),
        Style::SeekBar => draw_seek_bar(canvas, env, b, view.progress, ink),
        Style::Radio => draw_radio(canvas, env, b, view, ink),
        Style::Button => draw_button(canvas, env, b, view, in_style(Style::Dialog), ink),
        Style::Fab => {
            let symbol = match art_of(view, ancestors) {
                Some(Art::Symbol(s)) => Some(s),
                _ => None,
            };
            draw_fab(canvas, env, b, &node.text, symbol, ink);
        }
        Style::EditText => draw_edit_text(canvas, env, b, view, ink),
        Style::Dialog => {
            canvas.fill_round_rect(b, env.dp(28.0), ink.of(pal.surface_container_high));
        }
        Style::Tab => {
            let symbol = match art_of(view, ancestors) {
                Some(Art::Symbol(s)) => Some(s),
                _ => None,
            };
            draw_tab(canvas, env, b, view, symbol, ink);
        }
        Style::BigTime => {
            let px = b.h() as f32 * 0.9;
            let face = Face::new(Weight::Regular, px).fit_width(&node.text, b.w());
            draw_text(
                canvas,
                b,
                &node.text,
                face,
                ink.of(pal.on_surface),
                Align::Centre,
            );
        }
    }
}

#[cfg(test)]
mod render_tests;
#[cfg(test)]
mod screens_tests;
#[cfg(test)]
mod svg_tests;
