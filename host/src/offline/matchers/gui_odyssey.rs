//! `gui-odyssey@1`: GUI-Odyssey's rule, `action_matching` in
//! OpenGVLab/GUI-Odyssey `src/eval_mm/GUIOdyssey_action_matching.py` (read
//! at e12788f6c4197a8003730abce68ffc7dedaab3ab).
//!
//! - The action types must be equal: `CLICK` and `LONG_PRESS` differ.
//! - A click or long press matches inside the target's box (its SAM2 box
//!   there, the target element's bounds here; edges included, not grown),
//!   or within 0.14 of the reference on the 0..1000 grid divided by 1000.
//! - `TYPE` matches when either text contains the other (case-sensitive,
//!   trimmed) or their normalised Levenshtein similarity is at least 0.5.
//! - `SCROLL` matches when the directions are equal (case-insensitive).
//! - Every other type matches by type alone: the app opened and an answer
//!   are not compared (GUI-Odyssey has neither).

use super::rule::{grid, inside_inclusive, Matcher, Verdict};
use crate::offline::step::{Act, Kind, Reference};

const CLICK_DISTANCE: f64 = 0.14;
const ANLS: f64 = 0.5;

#[derive(Debug)]
pub struct GuiOdyssey;

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(here).min(row[j])
            };
            prev = here;
        }
    }
    row[b.len()]
}

/// GUI-Odyssey's `text_matching`.
pub(crate) fn text_match(reference: &str, answer: &str) -> bool {
    let (r, a) = (reference.trim(), answer.trim());
    if r.contains(a) || a.contains(r) {
        return true;
    }
    let length = r.chars().count().max(a.chars().count());
    let similarity = if length == 0 {
        1.0
    } else {
        1.0 - levenshtein(r, a) as f64 / length as f64
    };
    similarity >= ANLS
}

impl Matcher for GuiOdyssey {
    fn name(&self) -> &'static str {
        "gui-odyssey@1"
    }

    fn judge(&self, answer: &Act, reference: &Reference) -> Verdict {
        let want = &reference.act;
        if answer.kind != want.kind {
            return Verdict::WRONG_TYPE;
        }
        match want.kind {
            Kind::Tap | Kind::LongPress | Kind::DoubleTap => {
                let ok = match (answer.point, want.point) {
                    (Some(a), Some(r)) => {
                        let in_box = reference.target.is_some_and(|b| inside_inclusive(&b, a));
                        let (ga, gr) = (grid(a, reference.screen), grid(r, reference.screen));
                        let d = (((ga.0 - gr.0) / 1000.0).powi(2)
                            + ((ga.1 - gr.1) / 1000.0).powi(2))
                        .sqrt();
                        in_box || d <= CLICK_DISTANCE
                    }
                    _ => false,
                };
                Verdict::grounded(ok)
            }
            Kind::Type => Verdict::same_type(text_match(
                want.text.as_deref().unwrap_or(""),
                answer.text.as_deref().unwrap_or(""),
            )),
            Kind::Scroll => Verdict::same_type(
                answer.direction.as_deref().map(str::to_lowercase)
                    == want.direction.as_deref().map(str::to_lowercase),
            ),
            _ => Verdict::TYPE_ONLY,
        }
    }
}
