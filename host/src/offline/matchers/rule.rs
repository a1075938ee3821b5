//! What every matcher shares: the [`Matcher`] trait, its [`Verdict`], and
//! the geometry the rules are written in (screen fractions, the 0..1000
//! grid, boxes with their edges, boxes grown about their centre).

use crate::offline::step::{Act, Reference};
use droidscore_phone::uiautomator::Bounds;
use serde::{Deserialize, Serialize};

/// One matcher's judgement of one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// The answer's action type is the reference's, as the rule counts types.
    #[serde(rename = "type")]
    pub type_match: bool,
    /// Whether the answer's point grounds the reference's target: `Some`
    /// only when the reference points at the screen and the types matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grounded: Option<bool>,
    /// The step is right under the rule.
    pub correct: bool,
}

impl Verdict {
    /// A type mismatch: wrong, and no grounding to judge.
    pub(crate) const WRONG_TYPE: Verdict = Verdict {
        type_match: false,
        grounded: None,
        correct: false,
    };

    /// The types match and nothing else is compared.
    pub(crate) const TYPE_ONLY: Verdict = Verdict {
        type_match: true,
        grounded: None,
        correct: true,
    };

    /// The types match and the rest is `ok`.
    pub(crate) fn same_type(ok: bool) -> Verdict {
        Verdict {
            type_match: true,
            grounded: None,
            correct: ok,
        }
    }

    /// The types match and the point grounds (or not).
    pub(crate) fn grounded(ok: bool) -> Verdict {
        Verdict {
            type_match: true,
            grounded: Some(ok),
            correct: ok,
        }
    }
}

/// A step-matching rule.
pub trait Matcher: Send + Sync + std::fmt::Debug {
    /// Its name with its version: `aitw@1`.
    fn name(&self) -> &'static str;
    /// Judge `answer` against `reference`.
    fn judge(&self, answer: &Act, reference: &Reference) -> Verdict;
}

/// A point as fractions of the screen's width and height.
pub(crate) fn normalised((x, y): (i32, i32), (w, h): (i32, i32)) -> (f64, f64) {
    (
        f64::from(x) / f64::from(w.max(1)),
        f64::from(y) / f64::from(h.max(1)),
    )
}

/// Euclidean distance between two points in screen fractions (each axis
/// divided by its own extent, as AITW and GUI-Odyssey measure).
pub(crate) fn distance(a: (i32, i32), b: (i32, i32), screen: (i32, i32)) -> f64 {
    let (a, b) = (normalised(a, screen), normalised(b, screen));
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

/// A point on the 0..1000 grid of OS-Atlas and GUI-Odyssey (rounded to whole
/// numbers, as a model writes them).
pub(crate) fn grid(p: (i32, i32), screen: (i32, i32)) -> (f64, f64) {
    let (x, y) = normalised(p, screen);
    ((x * 1000.0).round(), (y * 1000.0).round())
}

/// Whether `(x, y)` lies in `b` with its edges (the Python scorers'
/// `<=` on both sides).
pub(crate) fn inside_inclusive(b: &Bounds, (x, y): (i32, i32)) -> bool {
    x >= b.left && x <= b.right && y >= b.top && y <= b.bottom
}

/// `b` grown about its centre to `factor` times its width and height.
pub(crate) fn scaled(b: &Bounds, factor: f64) -> (f64, f64, f64, f64) {
    let (w, h) = (f64::from(b.width()), f64::from(b.height()));
    let (cx, cy) = (f64::from(b.left) + w / 2.0, f64::from(b.top) + h / 2.0);
    (
        cx - w * factor / 2.0,
        cy - h * factor / 2.0,
        cx + w * factor / 2.0,
        cy + h * factor / 2.0,
    )
}
