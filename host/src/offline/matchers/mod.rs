//! Named, versioned step matchers: does the agent's answer at a step match
//! the reference's? The field's papers each use their own rule and their
//! numbers cannot be compared (QwenLM/Qwen3-VL#1155, InfiGUI-R1#7), so every
//! offline run is scored under each rule by name, and a rule's name carries
//! a version that changes whenever its behaviour does.
//!
//! - `aitw@1`: AndroidInTheWild's `action_matching.py` ([`aitw`]).
//! - `androidcontrol@1`: OS-Atlas's AndroidControl scorer ([`androidcontrol`]).
//! - `qwen-box@1`: the Qwen2.5-VL AndroidControl scorer ([`qwen_box`]).
//! - `gui-odyssey@1`: GUI-Odyssey's `GUIOdyssey_action_matching.py` ([`gui_odyssey`]).
//! - `droidscore@1`: droidscore's own exact rule ([`droidscore`]).
//!
//! docs/offline.md has the rules side by side with their sources;
//! `matchers_tests.rs` pins each on the cases where they disagree.

mod aitw;
mod androidcontrol;
mod droidscore;
mod gui_odyssey;
mod qwen_box;

#[cfg(test)]
mod matchers_tests;

use serde::{Deserialize, Serialize};

use super::step::{Act, Reference};
use droidscore_phone::uiautomator::Bounds;

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

/// Every matcher, in the order reports list them.
pub fn all() -> Vec<Box<dyn Matcher>> {
    vec![
        Box::new(droidscore::Droidscore),
        Box::new(aitw::Aitw),
        Box::new(androidcontrol::AndroidControl),
        Box::new(qwen_box::QwenBox),
        Box::new(gui_odyssey::GuiOdyssey),
    ]
}

/// The matchers `names` lists (comma-separated, each with or without its
/// `@version`; `all` for every one), or why one is unknown.
pub fn by_names(names: &str) -> Result<Vec<Box<dyn Matcher>>, String> {
    if names.trim() == "all" {
        return Ok(all());
    }
    let mut out = Vec::new();
    for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let found = all()
            .into_iter()
            .find(|m| m.name() == name || m.name().split('@').next() == Some(name));
        match found {
            Some(m) => out.push(m),
            None => {
                let known: Vec<&str> = all().iter().map(|m| m.name()).collect();
                return Err(format!(
                    "unknown matcher {name:?}; known: {}",
                    known.join(", ")
                ));
            }
        }
    }
    if out.is_empty() {
        return Err("no matcher named".into());
    }
    Ok(out)
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
