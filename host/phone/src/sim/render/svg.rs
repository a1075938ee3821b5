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

#[cfg(test)]
mod tests {
    use super::super::icons::Symbol;
    use super::*;

    #[test]
    fn every_symbol_the_renderer_uses_parses() {
        for s in Symbol::ALL {
            let path = s.path().unwrap_or_else(|e| panic!("{s:?}: {e}"));
            let b = path.bounds();
            assert!(
                b.left() >= 0.0
                    && b.top() >= 0.0
                    && b.right() <= VIEW_BOX
                    && b.bottom() <= VIEW_BOX,
                "{s:?} leaves its view box: {b:?}"
            );
            assert!(b.width() > 100.0, "{s:?} is a speck: {b:?}");
        }
    }

    #[test]
    fn commands_other_than_lines_and_quadratics_are_refused() {
        assert_eq!(
            parse("M0 0A5 5 0 0 1 10 10Z").unwrap_err(),
            SvgError::Command('A')
        );
        assert_eq!(
            parse("M0 0C1 1 2 2 3 3Z").unwrap_err(),
            SvgError::Command('C')
        );
        assert_eq!(symbol("<svg></svg>").unwrap_err(), SvgError::NoPath);
        assert_eq!(parse("M0 0Lx").unwrap_err(), SvgError::Number(5));
    }

    #[test]
    fn relative_commands_run_together_numbers_and_t_reflect() {
        // "10-20" is 10 and -20; ".5.5" is 0.5 and 0.5; h/v are relative.
        let p = parse("M100-900l10-20h.5.5v30H50V-960q10 10 20 0t20 0z").unwrap();
        let pts: Vec<(f32, f32)> = p.points().iter().map(|p| (p.x, p.y)).collect();
        assert_eq!(pts[0], (100.0, -900.0));
        assert_eq!(pts[1], (110.0, -920.0));
        assert_eq!(pts[2], (110.5, -920.0));
        assert_eq!(pts[3], (111.0, -920.0));
        assert_eq!(pts[4], (111.0, -890.0));
        assert_eq!(pts[5], (50.0, -890.0));
        assert_eq!(pts[6], (50.0, -960.0));
        // q: control (60, -950), end (70, -960); t mirrors the control to (80, -970).
        assert_eq!(&pts[7..9], &[(60.0, -950.0), (70.0, -960.0)]);
        assert_eq!(&pts[9..11], &[(80.0, -970.0), (90.0, -960.0)]);
    }

    #[test]
    fn a_symbol_is_mapped_from_its_view_box_onto_0_to_960() {
        let boxed = symbol(r#"<svg viewBox="0 -960 960 960"><path d="M0-960H960V0z"/></svg>"#);
        let bare = symbol(r#"<svg><path d="M0 0H24V24z"/></svg>"#);
        for p in [boxed.unwrap(), bare.unwrap()] {
            let b = p.bounds();
            assert_eq!(
                (b.left(), b.top(), b.right(), b.bottom()),
                (0.0, 0.0, 960.0, 960.0)
            );
        }
    }
}
