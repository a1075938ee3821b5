//! Text for the renderer: embedded-graphics' ISO 8859-1 mono fonts, scaled up by
//! whole factors (each font pixel an N×N block, with diagonal steps filled in so
//! large text is not jagged), laid out as lines that fit a width, with "…" where
//! text is cut and a hollow box for characters the font does not have.

use std::convert::Infallible;

use embedded_graphics::mono_font::{iso_8859_1, MonoFont, MonoTextStyle};
use embedded_graphics::pixelcolor::BinaryColor;
use embedded_graphics::prelude::*;
use embedded_graphics::text::{Baseline, Text};

use super::canvas::{Canvas, Rect, Rgb};

/// A font at a whole-number scale, optionally thickened.
#[derive(Debug, Clone, Copy)]
pub(super) struct Face {
    font: &'static MonoFont<'static>,
    scale: i64,
    /// Extra pixels added to the right of every font pixel.
    bold: i64,
}

impl Face {
    /// Secondary text: 9×15 at 2× (18×30 px cells).
    pub(crate) const SMALL: Face = Face::new(&iso_8859_1::FONT_9X15, 2, false);
    /// Body text: 10×20 at 2× (20×40 px cells), about a phone's 16 sp.
    pub(crate) const BODY: Face = Face::new(&iso_8859_1::FONT_10X20, 2, false);
    /// Row titles and button labels: body size, thickened.
    pub(crate) const TITLE: Face = Face::new(&iso_8859_1::FONT_10X20, 2, true);
    /// Page headings: 10×20 at 3×.
    pub(crate) const HEADING: Face = Face::new(&iso_8859_1::FONT_10X20, 3, true);
    /// Clock faces: 10×20 at 7× (140 px cells).
    pub(crate) const BIG_TIME: Face = Face::new(&iso_8859_1::FONT_10X20, 7, true);

    pub const fn new(font: &'static MonoFont<'static>, scale: i64, bold: bool) -> Self {
        Self {
            font,
            scale,
            bold: if bold { (scale + 1) / 2 } else { 0 },
        }
    }

    pub fn advance(&self) -> i64 {
        i64::from(self.font.character_size.width + self.font.character_spacing) * self.scale
    }

    pub fn height(&self) -> i64 {
        i64::from(self.font.character_size.height) * self.scale
    }

    /// The largest face no bigger than this one whose line fits `max_h` pixels:
    /// a smaller scale or a smaller font of the same family, never below the
    /// smallest font at 1× (which is then clipped).
    pub(crate) fn fit_height(self, max_h: i64) -> Face {
        self.shrink(|f| f.height() <= max_h)
    }

    /// As [`Face::fit_height`], and `chars` characters also fit `max_w` pixels.
    pub(crate) fn fit_width(self, chars: usize, max_w: i64) -> Face {
        self.shrink(|f| f.advance().saturating_mul(chars as i64) <= max_w)
    }

    fn shrink(self, fits: impl Fn(&Face) -> bool) -> Face {
        const LADDER: [&MonoFont<'static>; 6] = [
            &iso_8859_1::FONT_10X20,
            &iso_8859_1::FONT_9X18,
            &iso_8859_1::FONT_9X15,
            &iso_8859_1::FONT_8X13,
            &iso_8859_1::FONT_6X10,
            &iso_8859_1::FONT_5X8,
        ];
        if fits(&self) {
            return self;
        }
        let bold = self.bold > 0;
        let candidates = LADDER
            .iter()
            .flat_map(|&font| (1..=self.scale).map(move |scale| Face::new(font, scale, bold)));
        // Prefer the tallest that fits; between equals, the finer font at a lower scale.
        candidates
            .filter(|f| f.height() <= self.height() && fits(f))
            .max_by_key(|f| (f.height(), -f.scale))
            .unwrap_or(Face::new(&iso_8859_1::FONT_5X8, 1, bold))
    }
}

/// Characters to draw: line breaks and tabs become spaces.
pub(super) fn chars_of(text: &str) -> Vec<char> {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Break `text` into at most `max_lines` lines of `face` no wider than `max_w`,
/// at spaces where possible; the last line ends in "…" if text was left over.
pub(super) fn layout(text: &[char], face: Face, max_w: i64, max_lines: usize) -> Vec<Vec<char>> {
    let max_chars = usize::try_from(max_w / face.advance().max(1)).unwrap_or(0);
    let mut lines = Vec::new();
    if max_chars == 0 {
        return lines;
    }
    let mut rest = trim(text);
    while !rest.is_empty() && lines.len() < max_lines {
        if rest.len() <= max_chars {
            lines.push(rest.to_vec());
            break;
        }
        if lines.len() + 1 == max_lines {
            let mut line = trim(&rest[..max_chars - 1]).to_vec();
            line.push('…');
            lines.push(line);
            break;
        }
        let cut = rest[..=max_chars]
            .iter()
            .rposition(|&c| c == ' ')
            .filter(|&i| i > 0)
            .unwrap_or(max_chars);
        lines.push(trim(&rest[..cut]).to_vec());
        rest = trim(&rest[cut..]);
    }
    lines
}

fn trim(s: &[char]) -> &[char] {
    let start = s.iter().position(|&c| c != ' ').unwrap_or(s.len());
    let end = s.iter().rposition(|&c| c != ' ').map_or(start, |i| i + 1);
    &s[start..end.max(start)]
}

pub(super) fn line_width(chars: &[char], face: Face) -> i64 {
    face.advance() * chars.len() as i64
}

/// Draw one line with its cell's top-left corner at (x, y).
pub(super) fn draw_line(
    canvas: &mut Canvas,
    chars: &[char],
    x: i64,
    y: i64,
    face: Face,
    color: Rgb,
) {
    for (i, &c) in chars.iter().enumerate() {
        draw_char(canvas, c, x + face.advance() * i as i64, y, face, color);
    }
}

/// How `draw_text` places lines in its box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Align {
    Left,
    Centre,
}

/// Draw `text` in `b`, as many lines as fit (left-aligned) or one line
/// (centred), vertically centred; returns the widest line's width.
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
    let max_lines = match align {
        Align::Left => usize::try_from(b.h() / face.height().max(1))
            .unwrap_or(1)
            .max(1),
        Align::Centre => 1,
    };
    let lines = layout(&chars, face, b.w(), max_lines);
    let total = face.height() * lines.len() as i64;
    let mut y = b.y0 + (b.h() - total) / 2;
    let mut widest = 0;
    for line in &lines {
        let lw = line_width(line, face);
        let x = match align {
            Align::Left => b.x0,
            Align::Centre => b.x0 + (b.w() - lw) / 2,
        };
        draw_line(canvas, line, x, y, face, color);
        widest = widest.max(lw);
        y += face.height();
    }
    widest
}

fn draw_char(canvas: &mut Canvas, c: char, x: i64, y: i64, face: Face, color: Rgb) {
    let s = face.scale;
    let size = face.font.character_size;
    let (w, h) = (i64::from(size.width), i64::from(size.height));
    let base = i64::from(face.font.baseline);
    let px = |gx: i64, gy: i64, gw: i64, gh: i64| {
        Rect::new(x + gx * s, y + gy * s, x + (gx + gw) * s, y + (gy + gh) * s)
    };
    match c {
        ' ' => {}
        '…' => {
            let dot = (w / 5).max(1);
            for i in 0..3 {
                canvas.fill_rect(
                    px(i * w / 3 + (w / 3 - dot) / 2, base - dot + 1, dot, dot),
                    color,
                );
            }
        }
        '•' => {
            let r = (w * s) as f32 / 4.0;
            canvas.fill_circle(
                (x + w * s / 2) as f32,
                (y + (base - w / 2) * s) as f32,
                r,
                color,
            );
        }
        c if has_glyph(c) => {
            let grid = Glyph::of(face.font, c);
            grid.draw(canvas, x, y, face, color);
        }
        _ => {
            // A hollow box from x-height to the baseline: "no glyph here".
            let (top, bottom) = (h / 4, base + 1);
            let (l, r) = (1, w - 1);
            canvas.fill_rect(px(l, top, r - l, 1), color);
            canvas.fill_rect(px(l, bottom - 1, r - l, 1), color);
            canvas.fill_rect(px(l, top, 1, bottom - top), color);
            canvas.fill_rect(px(r - 1, top, 1, bottom - top), color);
        }
    }
}

/// ISO 8859-1's printable characters, which the fonts cover.
fn has_glyph(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{a0}'..='\u{ff}')
}

/// One character's pixels, read out of the font by drawing it with embedded-graphics.
#[derive(Debug)]
struct Glyph {
    w: i64,
    h: i64,
    on: Vec<bool>,
}

impl Glyph {
    fn of(font: &'static MonoFont<'static>, c: char) -> Glyph {
        let size = font.character_size;
        let mut g = Glyph {
            w: i64::from(size.width),
            h: i64::from(size.height),
            on: vec![false; (size.width * size.height) as usize],
        };
        let mut buf = [0u8; 4];
        let style = MonoTextStyle::new(font, BinaryColor::On);
        let drawn =
            Text::with_baseline(c.encode_utf8(&mut buf), Point::zero(), style, Baseline::Top)
                .draw(&mut g);
        drawn.unwrap_or_else(|never| match never {});
        g
    }

    fn at(&self, x: i64, y: i64) -> bool {
        x >= 0 && y >= 0 && x < self.w && y < self.h && self.on[(y * self.w + x) as usize]
    }

    /// Each font pixel as a `scale`-sized block; at 2× and up, an empty block
    /// whose two neighbours around one corner are lit gets that corner's half
    /// filled, turning staircases into diagonals.
    fn draw(&self, canvas: &mut Canvas, x: i64, y: i64, face: Face, color: Rgb) {
        let s = face.scale;
        for gy in 0..self.h {
            for gx in 0..self.w {
                let (x0, y0) = (x + gx * s, y + gy * s);
                if self.at(gx, gy) {
                    canvas.fill_rect(Rect::new(x0, y0, x0 + s + face.bold, y0 + s), color);
                    continue;
                }
                if s < 2 {
                    continue;
                }
                let (up, down) = (self.at(gx, gy - 1), self.at(gx, gy + 1));
                let (left, right) = (self.at(gx - 1, gy), self.at(gx + 1, gy));
                let (fx, fy, fs) = (x0 as f32, y0 as f32, s as f32);
                let b = face.bold as f32;
                let corners = [
                    (
                        up && left && !down && !right,
                        [(fx, fy), (fx + fs + b, fy), (fx, fy + fs)],
                    ),
                    (
                        up && right && !down && !left,
                        [(fx, fy), (fx + fs + b, fy), (fx + fs + b, fy + fs)],
                    ),
                    (
                        down && left && !up && !right,
                        [(fx, fy), (fx, fy + fs), (fx + fs + b, fy + fs)],
                    ),
                    (
                        down && right && !up && !left,
                        [(fx + fs + b, fy), (fx + fs + b, fy + fs), (fx, fy + fs)],
                    ),
                ];
                for (fill, tri) in corners {
                    if fill {
                        canvas.fill_convex(&tri, color);
                    }
                }
            }
        }
    }
}

impl OriginDimensions for Glyph {
    fn size(&self) -> Size {
        Size::new(self.w as u32, self.h as u32)
    }
}

impl DrawTarget for Glyph {
    type Color = BinaryColor;
    type Error = Infallible;

    fn draw_iter<I>(&mut self, pixels: I) -> Result<(), Self::Error>
    where
        I: IntoIterator<Item = Pixel<Self::Color>>,
    {
        for Pixel(p, c) in pixels {
            let (x, y) = (i64::from(p.x), i64::from(p.y));
            if c.is_on() && x >= 0 && y >= 0 && x < self.w && y < self.h {
                self.on[(y * self.w + x) as usize] = true;
            }
        }
        Ok(())
    }
}
