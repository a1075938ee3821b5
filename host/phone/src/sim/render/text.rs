//! Text for the renderer: Roboto Regular and Medium, the Pixel's system font,
//! from the pinned `damascene-fonts-roboto` crate (no system font is ever
//! looked up), rasterised by ab_glyph with anti-aliasing, laid out as lines
//! that fit a width, with "…" where text is cut.
//!
//! Rasterised glyphs are cached by font, glyph, size and quarter-pixel offset:
//! a cached glyph is the same coverage a fresh one would be, so the cache
//! changes speed, never pixels.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use ab_glyph::{point, Font, FontRef, GlyphId, PxScale, ScaleFont};

use super::canvas::{Canvas, Rect, Rgb};

/// Roboto's two weights the Material 3 type scale uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Weight {
    /// 400: body text, summaries.
    Regular,
    /// 500: titles, buttons, tabs.
    Medium,
}

fn font(weight: Weight) -> &'static FontRef<'static> {
    static REGULAR: OnceLock<FontRef<'static>> = OnceLock::new();
    static MEDIUM: OnceLock<FontRef<'static>> = OnceLock::new();
    let (cell, bytes) = match weight {
        Weight::Regular => (&REGULAR, damascene_fonts_roboto::ROBOTO_REGULAR),
        Weight::Medium => (&MEDIUM, damascene_fonts_roboto::ROBOTO_MEDIUM),
    };
    // The bytes are compiled in from a pinned crate: failing to parse them is a
    // build defect every test would show at once.
    cell.get_or_init(|| FontRef::try_from_slice(bytes).expect("the embedded Roboto parses"))
}

/// A weight at a size: `px` is the em size in pixels (an sp size times the
/// display's density and font scale).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Face {
    pub weight: Weight,
    pub px: f32,
}

/// Below this the text is unreadable on any screen; it is drawn no smaller (and clipped).
const MIN_PX: f32 = 6.0;

impl Face {
    pub fn new(weight: Weight, px: f32) -> Face {
        Face {
            weight,
            px: px.max(MIN_PX),
        }
    }

    /// ab_glyph's scale is the ascent-to-descent height, not the em size.
    fn scale(&self) -> PxScale {
        let f = font(self.weight);
        let em = f.units_per_em().unwrap_or(2048.0);
        PxScale::from(self.px * f.height_unscaled() / em)
    }

    /// The height of one line: ascent plus descent, whole pixels.
    pub fn height(&self) -> i64 {
        let f = font(self.weight).as_scaled(self.scale());
        (f.ascent() - f.descent()).ceil() as i64
    }

    fn ascent(&self) -> f32 {
        font(self.weight).as_scaled(self.scale()).ascent()
    }

    /// The same weight made smaller, if need be, so one line fits `max_h`
    /// pixels — but never below 3/4 of its size: a box that small is a view
    /// scrolled partly out of sight, whose text a phone clips rather than shrinks.
    pub(crate) fn fit_height(self, max_h: i64) -> Face {
        let h = self.height();
        if h <= max_h || h == 0 {
            return self;
        }
        let k = (max_h.max(0) as f32 / h as f32).max(0.75);
        Face::new(self.weight, self.px * k)
    }

    /// As [`Face::fit_height`], and `text` also fits `max_w` pixels on one line.
    pub(crate) fn fit_width(self, text: &str, max_w: i64) -> Face {
        let w = line_width(&chars_of(text), self);
        if w <= max_w as f32 || w <= 0.0 {
            return self;
        }
        Face::new(self.weight, self.px * max_w.max(0) as f32 / w)
    }
}

/// Characters to draw: line breaks and tabs become spaces.
pub(super) fn chars_of(text: &str) -> Vec<char> {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The advance of each character of `chars` in `face`, in pixels.
fn advances(chars: &[char], face: Face) -> impl Iterator<Item = f32> + '_ {
    let f = font(face.weight).as_scaled(face.scale());
    chars.iter().map(move |&c| f.h_advance(f.glyph_id(c)))
}

pub(super) fn line_width(chars: &[char], face: Face) -> f32 {
    advances(chars, face).sum()
}

/// Break `text` into at most `max_lines` lines of `face` no wider than `max_w`,
/// at spaces where possible; the last line ends in "…" if text was left over.
pub(super) fn layout(text: &[char], face: Face, max_w: i64, max_lines: usize) -> Vec<Vec<char>> {
    let max_w = max_w as f32;
    let mut lines = Vec::new();
    let mut rest = trim(text);
    while !rest.is_empty() && lines.len() < max_lines {
        let fits = fitting(rest, face, max_w);
        if fits == rest.len() {
            lines.push(rest.to_vec());
            break;
        }
        if lines.len() + 1 == max_lines {
            lines.push(ellipsize(rest, face, max_w));
            break;
        }
        if fits == 0 {
            break;
        }
        let cut = rest[..=fits]
            .iter()
            .rposition(|&c| c == ' ')
            .filter(|&i| i > 0)
            .unwrap_or(fits);
        lines.push(trim(&rest[..cut]).to_vec());
        rest = trim(&rest[cut..]);
    }
    lines
}

/// How many leading characters of `chars` fit `max_w`.
fn fitting(chars: &[char], face: Face, max_w: f32) -> usize {
    let mut x = 0.0;
    for (i, a) in advances(chars, face).enumerate() {
        x += a;
        if x > max_w + 0.01 {
            return i;
        }
    }
    chars.len()
}

/// The longest start of `chars` that fits `max_w` with "…" after it.
fn ellipsize(chars: &[char], face: Face, max_w: f32) -> Vec<char> {
    let dots = line_width(&['…'], face);
    let n = fitting(chars, face, (max_w - dots).max(0.0));
    let mut line = trim(&chars[..n]).to_vec();
    line.push('…');
    line
}

fn trim(s: &[char]) -> &[char] {
    let start = s.iter().position(|&c| c != ' ').unwrap_or(s.len());
    let end = s.iter().rposition(|&c| c != ' ').map_or(start, |i| i + 1);
    &s[start..end.max(start)]
}

/// How `draw_text` places lines in its box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Align {
    Left,
    Centre,
}

/// Draw `text` in `b`, as many lines as fit (left-aligned) or one line
/// (centred), vertically centred; returns the widest line's width in pixels.
pub(super) fn draw_text(
    canvas: &mut Canvas,
    b: Rect,
    text: &str,
    face: Face,
    color: Rgb,
    align: Align,
) -> i64 {
    let face = face.fit_height(b.h());
    let chars = chars_of(text);
    let line_h = face.height().max(1);
    let max_lines = match align {
        Align::Left => usize::try_from(b.h() / line_h).unwrap_or(1).max(1),
        Align::Centre => 1,
    };
    let lines = layout(&chars, face, b.w(), max_lines);
    let total = line_h * lines.len() as i64;
    let mut y = b.y0 + (b.h() - total) / 2;
    let mut widest = 0.0f32;
    for line in &lines {
        let lw = line_width(line, face);
        let x = match align {
            Align::Left => b.x0 as f32,
            Align::Centre => b.x0 as f32 + (b.w() as f32 - lw) / 2.0,
        };
        draw_line(canvas, line, x, y, face, color);
        widest = widest.max(lw);
        y += line_h;
    }
    widest.ceil() as i64
}

/// Draw one line with its top-left corner at (x, y).
pub(super) fn draw_line(
    canvas: &mut Canvas,
    chars: &[char],
    x: f32,
    y: i64,
    face: Face,
    color: Rgb,
) {
    let baseline = y + face.ascent().round() as i64;
    let f = font(face.weight).as_scaled(face.scale());
    let mut pen = x;
    for &c in chars {
        let id = f.glyph_id(c);
        if c != ' ' {
            // Quarter-pixel positions keep spacing even and the cache small.
            let whole = pen.floor();
            let quarter = ((pen - whole) * 4.0).round() as u8;
            let (whole, quarter) = if quarter == 4 {
                (whole + 1.0, 0)
            } else {
                (whole, quarter)
            };
            if let Some(g) = coverage(face, id, quarter) {
                let (gx, gy) = (whole as i64 + g.left, baseline + g.top);
                canvas.blend_alpha(gx, gy, g.w, &g.alpha, color);
            }
        }
        pen += f.h_advance(id);
    }
}

/// One rasterised glyph: coverage bytes in a `w`-wide box at an offset from
/// the pen position on the baseline.
#[derive(Debug)]
struct Coverage {
    left: i64,
    top: i64,
    w: usize,
    alpha: Vec<u8>,
}

type GlyphKey = (Weight, u16, u32, u8);

/// Past this many cached glyphs the cache starts over (a long run with many sizes).
const CACHE_LIMIT: usize = 8192;

fn coverage(face: Face, id: GlyphId, quarter: u8) -> Option<Arc<Coverage>> {
    static CACHE: OnceLock<Mutex<HashMap<GlyphKey, Option<Arc<Coverage>>>>> = OnceLock::new();
    let key = (face.weight, id.0, face.px.to_bits(), quarter);
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return hit;
    }
    let fresh = rasterise(face, id, quarter).map(Arc::new);
    if let Ok(mut c) = cache.lock() {
        if c.len() >= CACHE_LIMIT {
            c.clear();
        }
        c.insert(key, fresh.clone());
    }
    fresh
}

fn rasterise(face: Face, id: GlyphId, quarter: u8) -> Option<Coverage> {
    let glyph = id.with_scale_and_position(face.scale(), point(f32::from(quarter) / 4.0, 0.0));
    let outlined = font(face.weight).outline_glyph(glyph)?;
    let bb = outlined.px_bounds();
    let (w, h) = (bb.width() as usize, bb.height() as usize);
    let mut alpha = vec![0u8; w * h];
    outlined.draw(|x, y, c| {
        let i = y as usize * w + x as usize;
        if let Some(a) = alpha.get_mut(i) {
            *a = (c.clamp(0.0, 1.0) * 255.0).round() as u8;
        }
    });
    Some(Coverage {
        left: bb.min.x as i64,
        top: bb.min.y as i64,
        w,
        alpha,
    })
}
