//! The SVG path data of the Material Symbols (as the md-icons crate ships
//! them) turned into tiny-skia paths. The symbols use only straight lines and
//! quadratic curves — `M L H V Q T Z` and their relative forms — so that is all
//! this reads; any other command is an error naming it, which a test checks
//! over every symbol the renderer uses.

use tiny_skia::{Path, PathBuilder, Transform};

/// The side of the square every symbol is normalised to: the view box most
/// Material Symbols use (`0 -960 960 960`).
pub(super) const VIEW_BOX: f32 = 960.0;

/// Why a symbol's path data could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum SvgError {
    #[error("no `d=\"…\"` path data in the symbol")]
    NoPath,
    #[error("path command {0:?} is not supported (only M L H V Q T Z)")]
    Command(char),
    #[error("expected a number at byte {0} of the path data")]
    Number(usize),
    #[error("the path data draws nothing")]
    Empty,
}

/// The path of an SVG document with one `<path d="…">`, as md-icons' are,
/// mapped from its view box onto 0..960 on both axes. Most symbols' view box
/// is `0 -960 960 960`; a few have none and draw in 0..24, SVG's default here.
pub(super) fn symbol(svg: &str) -> Result<Path, SvgError> {
    let (x, y, side) = match attribute(svg, "viewBox") {
        Some(vb) => {
            let mut p = Parser {
                d: vb.as_bytes(),
                i: 0,
            };
            let (x, y, w) = (p.number()?, p.number()?, p.number()?);
            (x, y, w)
        }
        None => (0.0, 0.0, 24.0),
    };
    let d = attribute(svg, "d").ok_or(SvgError::NoPath)?;
    let k = VIEW_BOX / side;
    parse(d)?
        .transform(Transform::from_row(k, 0.0, 0.0, k, -x * k, -y * k))
        .ok_or(SvgError::Empty)
}

/// The value of the first ` name="…"` in `svg`.
fn attribute<'a>(svg: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = svg.find(&key)? + key.len();
    let len = svg[start..].find('"')?;
    Some(&svg[start..start + len])
}

/// Parse path data `d` into a path in its own coordinates.
pub(super) fn parse(d: &str) -> Result<Path, SvgError> {
    let mut p = Parser {
        d: d.as_bytes(),
        i: 0,
    };
    let mut pb = PathBuilder::new();
    let mut cmd = b'M';
    let (mut x, mut y) = (0.0f32, 0.0f32);
    let (mut start_x, mut start_y) = (0.0f32, 0.0f32);
    // The last quadratic control point, for `T`'s reflection.
    let mut control: Option<(f32, f32)> = None;
    while p.skip_separators() {
        let c = p.d[p.i];
        if c.is_ascii_alphabetic() {
            p.i += 1;
            cmd = c;
            if matches!(c, b'Z' | b'z') {
                pb.close();
                (x, y) = (start_x, start_y);
                control = None;
                continue;
            }
        } else if matches!(cmd, b'Z' | b'z') {
            return Err(SvgError::Number(p.i));
        }
        let rel = cmd.is_ascii_lowercase();
        let (ox, oy) = if rel { (x, y) } else { (0.0, 0.0) };
        match cmd.to_ascii_uppercase() {
            b'M' => {
                (x, y) = (ox + p.number()?, oy + p.number()?);
                (start_x, start_y) = (x, y);
                pb.move_to(x, y);
                // Further pairs after a move are lines.
                cmd = if rel { b'l' } else { b'L' };
                control = None;
            }
            b'L' => {
                (x, y) = (ox + p.number()?, oy + p.number()?);
                pb.line_to(x, y);
                control = None;
            }
            b'H' => {
                x = ox + p.number()?;
                pb.line_to(x, y);
                control = None;
            }
            b'V' => {
                y = oy + p.number()?;
                pb.line_to(x, y);
                control = None;
            }
            b'Q' => {
                let (cx, cy) = (ox + p.number()?, oy + p.number()?);
                (x, y) = (ox + p.number()?, oy + p.number()?);
                pb.quad_to(cx, cy, x, y);
                control = Some((cx, cy));
            }
            b'T' => {
                // The control point mirrors the previous one through the current point.
                let (cx, cy) = control.map_or((x, y), |(qx, qy)| (2.0 * x - qx, 2.0 * y - qy));
                (x, y) = (ox + p.number()?, oy + p.number()?);
                pb.quad_to(cx, cy, x, y);
                control = Some((cx, cy));
            }
            other => return Err(SvgError::Command(other as char)),
        }
    }
    pb.finish().ok_or(SvgError::Empty)
}

struct Parser<'a> {
    d: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    /// Skip spaces and commas; false at the end of the data.
    fn skip_separators(&mut self) -> bool {
        while self.i < self.d.len() && matches!(self.d[self.i], b' ' | b',' | b'\n' | b'\t') {
            self.i += 1;
        }
        self.i < self.d.len()
    }

    /// One number. SVG lets numbers run together: `1.413.587` is 1.413 and
    /// .587, `5-3` is 5 and -3, so a number ends at a second dot or a sign.
    fn number(&mut self) -> Result<f32, SvgError> {
        self.skip_separators();
        let start = self.i;
        if self.i < self.d.len() && matches!(self.d[self.i], b'-' | b'+') {
            self.i += 1;
        }
        let mut dot = false;
        while self.i < self.d.len() {
            match self.d[self.i] {
                b'0'..=b'9' => {}
                b'.' if !dot => dot = true,
                _ => break,
            }
            self.i += 1;
        }
        std::str::from_utf8(&self.d[start..self.i])
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or(SvgError::Number(start))
    }
}
