//! The Material Symbols' path data parser: what it reads, what it refuses,
//! and that every symbol the renderer draws parses inside its view box.

use super::icons::Symbol;
use super::svg::{parse, symbol, SvgError, VIEW_BOX};

#[test]
fn every_symbol_the_renderer_uses_parses() {
    for s in Symbol::ALL {
        let path = s.path().unwrap_or_else(|e| panic!("{s:?}: {e}"));
        let b = path.bounds();
        assert!(
            b.left() >= 0.0 && b.top() >= 0.0 && b.right() <= VIEW_BOX && b.bottom() <= VIEW_BOX,
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
