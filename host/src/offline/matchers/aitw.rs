//! `aitw@1`: AndroidInTheWild's rule, as `check_actions_match` in
//! google-research/google-research `android_in_the_wild/action_matching.py`
//! (read at 1d49f2c0d5506a6e11115726164d42f6b7b7b95a).
//!
//! - Every touch is one type, `DUAL_POINT`; a touch whose lift is within
//!   0.04 of the screen of its start is a tap, any other a swipe. So a long
//!   press, a double tap and a tap are the same action.
//! - Two taps match when both fall inside one UI element's box grown by 1.4
//!   of its width and height (0.7 on each side: 2.4 times the size, kept on
//!   the screen, edges included), or lie within 0.14 of each other (the
//!   distance of the points as fractions of the screen's width and height).
//!   The boxes are every annotated element's on the screen, not only the
//!   target's: AITW's annotations are OCR'd text and detected icons, so
//!   here the elements that hold no other element (`Reference::boxes`).
//! - Two swipes match when they move most along the same axis: up matches
//!   down.
//! - Any other pair matches when its types are equal: typed text, the app
//!   opened and an answer are never compared. (AITW has no `open_app`,
//!   `answer` or `wait`; each is its own type here.)

use super::rule::{distance, normalised, Matcher, Verdict};
use crate::offline::step::{Act, Kind, Reference};
use droidscore_phone::uiautomator::Bounds;

const TAP_DISTANCE: f64 = 0.14;
const AUGMENT: f64 = 1.4;
const SWIPE_DISTANCE: f64 = 0.04;

#[derive(Debug)]
pub struct Aitw;

/// AITW's `DUAL_POINT` action: where the finger touches and lifts.
struct Touch {
    /// It lifts within 0.04 of the screen of where it touched.
    tap: bool,
    start: (i32, i32),
    end: (i32, i32),
}

/// An act as a touch, when it is one (a tap, or a swipe from `point` to `end`).
fn touch(act: &Act, screen: (i32, i32)) -> Option<Touch> {
    let kind = matches!(
        act.kind,
        Kind::Tap | Kind::LongPress | Kind::DoubleTap | Kind::Scroll | Kind::Drag
    );
    let start = act.point?;
    let end = act.end.unwrap_or(start);
    kind.then(|| Touch {
        tap: distance(start, end, screen) <= SWIPE_DISTANCE,
        start,
        end,
    })
}

/// A box grown as AITW grows its annotations, in screen fractions.
fn augmented(b: &Bounds, screen: (i32, i32)) -> (f64, f64, f64, f64) {
    let (left, top) = normalised((b.left, b.top), screen);
    let (w, h) = normalised((b.width(), b.height()), screen);
    let (dw, dh) = (AUGMENT * w, AUGMENT * h);
    let (left, top) = ((left - dw / 2.0).max(0.0), (top - dh / 2.0).max(0.0));
    (left, top, left + (w + dw).min(1.0), top + (h + dh).min(1.0))
}

fn in_box(b: (f64, f64, f64, f64), p: (f64, f64)) -> bool {
    p.0 >= b.0 && p.0 <= b.2 && p.1 >= b.1 && p.1 <= b.3
}

/// Whether two taps match under AITW's rule.
pub(crate) fn taps_match(
    a: (i32, i32),
    b: (i32, i32),
    boxes: &[Bounds],
    screen: (i32, i32),
) -> bool {
    let (pa, pb) = (normalised(a, screen), normalised(b, screen));
    let same_box = boxes.iter().any(|bx| {
        let grown = augmented(bx, screen);
        in_box(grown, pa) && in_box(grown, pb)
    });
    same_box || distance(a, b, screen) <= TAP_DISTANCE
}

impl Matcher for Aitw {
    fn name(&self) -> &'static str {
        "aitw@1"
    }

    fn judge(&self, answer: &Act, reference: &Reference) -> Verdict {
        let screen = reference.screen;
        match (touch(answer, screen), touch(&reference.act, screen)) {
            (Some(a), Some(r)) => {
                if a.tap != r.tap {
                    return Verdict::WRONG_TYPE;
                }
                if r.tap {
                    return Verdict::grounded(taps_match(
                        a.start,
                        r.start,
                        &reference.boxes,
                        screen,
                    ));
                }
                let vertical =
                    |t: &Touch| (t.end.1 - t.start.1).abs() >= (t.end.0 - t.start.0).abs();
                Verdict::same_type(vertical(&a) == vertical(&r))
            }
            (None, None) if answer.kind == reference.act.kind => Verdict::TYPE_ONLY,
            _ => Verdict::WRONG_TYPE,
        }
    }
}
