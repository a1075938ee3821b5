//! `androidcontrol@1`: OS-Atlas's AndroidControl scorer,
//! `eval/eval_scripts/android_control/evaluation_unify.py` of OS-Copilot's
//! OS-Atlas (read in the fork averychen35/OS-Atlas at
//! 1fa4fb3e8e024096ae6c23b6690167cb42039ef3). AndroidControl's own
//! repository (google-research `android_control`) ships no scorer.
//!
//! - The action types must be equal: `CLICK` and `LONG_PRESS` differ.
//! - A click or long press matches within 140 of the reference on a
//!   0..1000 grid (each axis scaled to 1000; 14 % of the screen). No box.
//! - `TYPE` and `OPEN_APP` match when the whole action is equal, or when the
//!   token F1 of `split()[1]` of both exceeds 0.5: that is the *first word*
//!   of the text or app name only, so "buy milk" matches "buy bread".
//! - Any other action matches when the whole action string is equal: a
//!   scroll's direction must be the reference's.
//! - An answer is held to `TYPE`'s rule (AndroidControl has no answer).

use super::rule::{grid, Matcher, Verdict};
use crate::offline::step::{Act, Kind, Reference};

const GRID_DISTANCE: f64 = 140.0;

#[derive(Debug)]
pub struct AndroidControl;

/// The first whitespace word, lowercased: all the F1 of single-word token
/// sets can compare (it is 1 when they are equal, else 0).
fn first_word(s: &str) -> Option<String> {
    s.split_whitespace().next().map(str::to_lowercase)
}

/// The scorer's text rule: the whole action equal, or F1 > 0.5 on the
/// first words.
pub(crate) fn text_match(answer: Option<&str>, reference: Option<&str>) -> bool {
    let (a, r) = (answer.unwrap_or(""), reference.unwrap_or(""));
    a == r || (first_word(a).is_some() && first_word(a) == first_word(r))
}

impl Matcher for AndroidControl {
    fn name(&self) -> &'static str {
        "androidcontrol@1"
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
                        let (a, r) = (grid(a, reference.screen), grid(r, reference.screen));
                        ((a.0 - r.0).powi(2) + (a.1 - r.1).powi(2)).sqrt() <= GRID_DISTANCE
                    }
                    _ => false,
                };
                Verdict::grounded(ok)
            }
            Kind::Type | Kind::Answer => {
                Verdict::same_type(text_match(answer.text.as_deref(), want.text.as_deref()))
            }
            Kind::OpenApp => Verdict::same_type(text_match(answer.app_label(), want.app_label())),
            Kind::Scroll => Verdict::same_type(answer.direction == want.direction),
            Kind::Key => Verdict::same_type(answer.text == want.text),
            _ => Verdict::TYPE_ONLY,
        }
    }
}
