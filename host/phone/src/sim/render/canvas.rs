//! The pixel surface the renderer paints on: an `RgbImage` with a clip rectangle
//! and the anti-aliased primitives the views need (rectangles, rounded
//! rectangles, circles, rings, convex polygons, a full-screen scrim, coverage
//! masks for glyphs, and any tiny-skia path for icons). Every primitive clips
//! to the canvas and the clip, so no coordinate can panic.

use image::RgbImage;
use tiny_skia::{FillRule, Mask, Path, Transform};

pub(super) type Rgb = [u8; 3];

/// A half-open pixel rectangle in `i64`, wide enough that view bounds from
/// `i32` can be offset and summed without overflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Rect {
    pub x0: i64,
    pub y0: i64,
    pub x1: i64,
    pub y1: i64,
}

impl Rect {
    pub fn new(x0: i64, y0: i64, x1: i64, y1: i64) -> Self {
        Self { x0, y0, x1, y1 }
    }
    pub fn w(&self) -> i64 {
        self.x1 - self.x0
    }
    pub fn h(&self) -> i64 {
        self.y1 - self.y0
    }
    pub fn is_empty(&self) -> bool {
        self.w() <= 0 || self.h() <= 0
    }
    pub(crate) fn intersect(&self, o: &Rect) -> Rect {
        let x0 = self.x0.max(o.x0);
        let y0 = self.y0.max(o.y0);
        Rect::new(x0, y0, self.x1.min(o.x1).max(x0), self.y1.min(o.y1).max(y0))
    }
    /// Shrunk by `d` on every side (never inverted).
    pub(crate) fn inset(&self, d: i64) -> Rect {
        let cx = (self.x0 + self.x1) / 2;
        let cy = (self.y0 + self.y1) / 2;
        Rect::new(
            (self.x0 + d).min(cx),
            (self.y0 + d).min(cy),
            (self.x1 - d).max(cx),
            (self.y1 - d).max(cy),
        )
    }
}

/// An `RgbImage` plus the rectangle drawing is currently clipped to.
#[derive(Debug)]
pub(super) struct Canvas {
    img: RgbImage,
    clip: Rect,
}

impl Canvas {
    pub fn new(width: u32, height: u32, background: Rgb) -> Self {
        let img = RgbImage::from_pixel(width, height, image::Rgb(background));
        Self {
            img,
            clip: Rect::new(0, 0, width.into(), height.into()),
        }
    }

    pub fn full(&self) -> Rect {
        Rect::new(0, 0, self.img.width().into(), self.img.height().into())
    }

    /// Clip all further drawing to `r` (and the canvas); returns the clip now in force.
    pub(crate) fn set_clip(&mut self, r: Rect) -> Rect {
        self.clip = r.intersect(&self.full());
        self.clip
    }

    pub(crate) fn into_image(self) -> RgbImage {
        self.img
    }

    /// Solid fill of `r` within the clip.
    pub(crate) fn fill_rect(&mut self, r: Rect, c: Rgb) {
        let r = r.intersect(&self.clip);
        if r.is_empty() {
            return;
        }
        let stride = self.img.width() as usize * 3;
        let buf: &mut [u8] = &mut self.img;
        let (x0, x1) = (r.x0 as usize * 3, r.x1 as usize * 3);
        // Fill the first row's span pixel by pixel, then copy it down.
        let first = r.y0 as usize * stride;
        for px in buf[first + x0..first + x1].chunks_exact_mut(3) {
            px.copy_from_slice(&c);
        }
        for y in r.y0 + 1..r.y1 {
            let row = y as usize * stride;
            buf.copy_within(first + x0..first + x1, row + x0);
        }
    }

    /// A vertical gradient from `top` to `bottom` over `r` (rows of integer
    /// colours, so the same on every machine), within the clip.
    pub(crate) fn fill_gradient(&mut self, r: Rect, top: Rgb, bottom: Rgb) {
        let h = r.h().max(1);
        let at = |y: i64| -> Rgb {
            let mix = |i: usize| {
                let (a, b) = (i64::from(top[i]), i64::from(bottom[i]));
                (a + (b - a) * (y - r.y0) / h) as u8
            };
            [mix(0), mix(1), mix(2)]
        };
        // Runs of rows share a colour: fill each run as one rectangle.
        let mut start = r.y0;
        while start < r.y1 {
            let c = at(start);
            let mut end = start + 1;
            while end < r.y1 && at(end) == c {
                end += 1;
            }
            self.fill_rect(Rect::new(r.x0, start, r.x1, end), c);
            start = end;
        }
    }

    /// Mix `c` into one pixel with coverage `a` in 0..=1, if inside the clip.
    pub(crate) fn blend(&mut self, x: i64, y: i64, c: Rgb, a: f32) {
        let cl = self.clip;
        if a <= 0.0 || x < cl.x0 || x >= cl.x1 || y < cl.y0 || y >= cl.y1 {
            return;
        }
        let px = self.img.get_pixel_mut(x as u32, y as u32);
        if a >= 1.0 {
            px.0 = c;
        } else {
            for (dst, src) in px.0.iter_mut().zip(c) {
                *dst = (f32::from(*dst) + (f32::from(src) - f32::from(*dst)) * a).round() as u8;
            }
        }
    }

    /// Mix `c` into the `w`-wide block of coverage bytes `alpha` whose top-left
    /// pixel is (x, y), within the clip: how glyphs and icon masks land.
    pub(crate) fn blend_alpha(&mut self, x: i64, y: i64, w: usize, alpha: &[u8], c: Rgb) {
        if w == 0 {
            return;
        }
        let h = (alpha.len() / w) as i64;
        let area = Rect::new(x, y, x + w as i64, y + h).intersect(&self.clip);
        if area.is_empty() {
            return;
        }
        let stride = self.img.width() as usize * 3;
        let buf: &mut [u8] = &mut self.img;
        for py in area.y0..area.y1 {
            let src = &alpha[(py - y) as usize * w..][..w];
            let row = py as usize * stride;
            for px in area.x0..area.x1 {
                let a = u32::from(src[(px - x) as usize]);
                if a == 0 {
                    continue;
                }
                let dst = &mut buf[row + px as usize * 3..][..3];
                for (d, s) in dst.iter_mut().zip(c) {
                    let (d32, s32) = (u32::from(*d), u32::from(s));
                    *d = ((d32 * (255 - a) + s32 * a + 127) / 255) as u8;
                }
            }
        }
    }

    /// Anti-aliased fill of a tiny-skia `path` placed by `transform` (non-zero
    /// winding, as SVG's default): rasterised to a coverage mask over the part
    /// of its bounds inside the clip, then blended.
    pub(crate) fn fill_path(&mut self, path: &Path, transform: Transform, c: Rgb) {
        let Some(bounds) = path.bounds().transform(transform) else {
            return;
        };
        let area = Rect::new(
            bounds.left().floor() as i64,
            bounds.top().floor() as i64,
            bounds.right().ceil() as i64,
            bounds.bottom().ceil() as i64,
        )
        .intersect(&self.clip);
        let Some(mut mask) = Mask::new(area.w().max(0) as u32, area.h().max(0) as u32) else {
            return;
        };
        let shifted = transform.post_translate(-area.x0 as f32, -area.y0 as f32);
        mask.fill_path(path, FillRule::Winding, true, shifted);
        self.blend_alpha(area.x0, area.y0, area.w() as usize, mask.data(), c);
    }

    /// Darken every pixel of the canvas (not just the clip): `keep` of 256 remains.
    pub(crate) fn scrim(&mut self, keep: u16) {
        let buf: &mut [u8] = &mut self.img;
        for v in buf {
            *v = ((u16::from(*v) * keep) >> 8) as u8;
        }
    }

    /// Anti-aliased rounded rectangle; `radius` is capped at half the short side,
    /// so a square with a large radius is a circle.
    pub(crate) fn fill_round_rect(&mut self, r: Rect, radius: f32, c: Rgb) {
        let shape = RoundRect::new(r, radius);
        let area = r.intersect(&self.clip);
        if area.is_empty() {
            return;
        }
        // Columns further than the radius from the left and right edges, and
        // rows as far from the top and bottom, are fully inside: fill them as
        // rectangles and shade only the four corner boxes.
        let band = shape.r.ceil() as i64 + 1;
        let (mx0, mx1) = (r.x0 + band, r.x1 - band);
        let (my0, my1) = (r.y0 + band, r.y1 - band);
        if mx0 < mx1 {
            self.fill_rect(Rect::new(mx0, r.y0, mx1, r.y1), c);
        }
        if my0 < my1 {
            self.fill_rect(Rect::new(r.x0, my0, r.x1, my1), c);
        }
        let (left, right) = if mx0 < mx1 {
            ((area.x0, area.x1.min(mx0)), (area.x0.max(mx1), area.x1))
        } else {
            ((area.x0, area.x1), (0, 0))
        };
        for y in area.y0..area.y1 {
            if my0 < my1 && y >= my0 && y < my1 {
                continue;
            }
            for x in (left.0..left.1).chain(right.0..right.1) {
                self.blend(x, y, c, shape.coverage(x, y));
            }
        }
    }

    pub(crate) fn fill_circle(&mut self, cx: f32, cy: f32, radius: f32, c: Rgb) {
        self.fill_round_rect(circle_box(cx, cy, radius), radius, c);
    }

    /// An anti-aliased outline `width` thick just inside the rounded rectangle `r`.
    pub(crate) fn stroke_round_rect(&mut self, r: Rect, radius: f32, width: f32, c: Rgb) {
        let outer = RoundRect::new(r, radius);
        let w = width.max(1.0);
        let inner = RoundRect {
            cx: outer.cx,
            cy: outer.cy,
            hw: outer.hw - w,
            hh: outer.hh - w,
            r: (outer.r - w).max(0.0),
        };
        let area = r.intersect(&self.clip);
        for y in area.y0..area.y1 {
            for x in area.x0..area.x1 {
                let a = outer.coverage(x, y) * (1.0 - inner.coverage(x, y));
                self.blend(x, y, c, a);
            }
        }
    }

    pub(crate) fn stroke_circle(&mut self, cx: f32, cy: f32, radius: f32, width: f32, c: Rgb) {
        self.stroke_round_rect(circle_box(cx, cy, radius), radius, width, c);
    }

    /// Anti-aliased fill of a convex polygon given in either winding order.
    pub(crate) fn fill_convex(&mut self, pts: &[(f32, f32)], c: Rgb) {
        if pts.len() < 3 {
            return;
        }
        let (mut lo_x, mut lo_y, mut hi_x, mut hi_y) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
        for &(x, y) in pts {
            lo_x = lo_x.min(x);
            lo_y = lo_y.min(y);
            hi_x = hi_x.max(x);
            hi_y = hi_y.max(y);
        }
        let area: f32 = (0..pts.len())
            .map(|i| {
                let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
                a.0 * b.1 - b.0 * a.1
            })
            .sum();
        let sign = if area < 0.0 { -1.0 } else { 1.0 };
        let bbox = Rect::new(
            lo_x.floor() as i64,
            lo_y.floor() as i64,
            hi_x.ceil() as i64,
            hi_y.ceil() as i64,
        );
        let bbox = bbox.intersect(&self.clip);
        for y in bbox.y0..bbox.y1 {
            for x in bbox.x0..bbox.x1 {
                let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
                // Signed distance outside the nearest edge (negative: inside).
                let mut out = f32::MIN;
                for i in 0..pts.len() {
                    let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
                    let (ex, ey) = (b.0 - a.0, b.1 - a.1);
                    let len = (ex * ex + ey * ey).sqrt().max(f32::EPSILON);
                    let d = -sign * (ex * (py - a.1) - ey * (px - a.0)) / len;
                    out = out.max(d);
                }
                self.blend(x, y, c, (0.5 - out).clamp(0.0, 1.0));
            }
        }
    }
}

/// The pixel box of a circle, rounded to whole pixels.
fn circle_box(cx: f32, cy: f32, radius: f32) -> Rect {
    let r = radius.max(0.0);
    Rect::new(
        (cx - r).round() as i64,
        (cy - r).round() as i64,
        (cx + r).round() as i64,
        (cy + r).round() as i64,
    )
}

/// A rounded rectangle as a signed distance field (centre, half sizes, radius).
#[derive(Debug, Clone, Copy)]
struct RoundRect {
    cx: f32,
    cy: f32,
    hw: f32,
    hh: f32,
    r: f32,
}

impl RoundRect {
    fn new(b: Rect, radius: f32) -> Self {
        let (hw, hh) = (b.w() as f32 / 2.0, b.h() as f32 / 2.0);
        Self {
            cx: b.x0 as f32 + hw,
            cy: b.y0 as f32 + hh,
            hw,
            hh,
            r: radius.clamp(0.0, hw.min(hh).max(0.0)),
        }
    }

    /// How much of pixel (x, y) lies inside, 0..=1.
    fn coverage(&self, x: i64, y: i64) -> f32 {
        if self.hw <= 0.0 || self.hh <= 0.0 {
            return 0.0;
        }
        let qx = (x as f32 + 0.5 - self.cx).abs() - (self.hw - self.r);
        let qy = (y as f32 + 0.5 - self.cy).abs() - (self.hh - self.r);
        let (ox, oy) = (qx.max(0.0), qy.max(0.0));
        // sqrt, not hypot: IEEE-exact everywhere, so bytes match across platforms.
        let outside = (ox * ox + oy * oy).sqrt();
        let sd = outside + qx.max(qy).min(0.0) - self.r;
        (0.5 - sd).clamp(0.0, 1.0)
    }
}
