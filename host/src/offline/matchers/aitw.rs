//! `aitw@2` (the default) and `aitw@1`: AndroidInTheWild's rule,
//! `check_actions_match` in google-research/google-research
//! `android_in_the_wild/action_matching.py` (read at
//! 1d49f2c0d5506a6e11115726164d42f6b7b7b95a; line numbers at that commit).
//!
//! - Every touch is one type, `DUAL_POINT`; a touch whose lift is within
//!   0.04 of the screen of its start is a tap, any other a swipe
//!   (`is_tap_action`, lines 100–104). So a long press, a double tap and a
//!   tap are the same action.
//! - Two taps match when both fall inside one UI element's box grown by 1.4
//!   of its width and height (0.7 on each side: 2.4 times the size, kept on
//!   the screen, edges included; lines 66–97 and 38–63), or lie within 0.14
//!   of each other (the distance of the points as fractions of the screen's
//!   width and height; lines 128–133). The boxes are every annotated
//!   element's on the screen, not only the target's: AITW's annotations are
//!   OCR'd text and detected icons, so here the elements that hold no other
//!   element (`Reference::boxes`).
//! - Two swipes match when they move most along the same axis: up matches
//!   down (`_check_drag_actions_match`, lines 137–158).
//! - Any other pair matches when its types are equal (lines 215–218 and
//!   244–251): typed text, the app opened and an answer are never compared.
//!   (AITW has no `open_app`, `answer` or `wait`; each is its own type here.)
//!
//! What `aitw@2` computes as AITW's code does, and `aitw@1` did not:
//!
//! - **The main axis of a swipe is decided on screen fractions.** Lines
//!   153–158 take `argmax(|lift_yx − touch_yx|)` over (y, x) as fractions of
//!   the screen, so on a 1080×2400 screen a swipe 300 px right and 500 px
//!   down moves most along x (0.278 of the width against 0.208 of the
//!   height). `aitw@1` compared pixels and called it vertical. A tie goes
//!   to y, `argmax`'s first index.
//! - **In float32.** The module is JAX (`jnp.asarray`, `jnp.linalg.norm`),
//!   whose default dtype is float32, and AITW's dataset keeps its points as
//!   float32 fractions; `aitw@2` holds every fraction, box and distance in
//!   `f32` (each fraction the `f64` quotient rounded to `f32`, as a stored
//!   float feature is), so a distance on the 0.14 or 0.04 line falls on the
//!   side it falls there. `aitw@1` computed in `f64`.

use super::rule::{distance, normalised, Matcher, Verdict};
use crate::offline::step::{Act, Kind, Reference};
use droidscore_phone::uiautomator::Bounds;

const TAP_DISTANCE: f64 = 0.14;
const AUGMENT: f64 = 1.4;
const SWIPE_DISTANCE: f64 = 0.04;

/// `aitw@1`: pixel axes, `f64`.
#[derive(Debug)]
pub struct Aitw1;

/// `aitw@2`: AITW's code as it computes.
#[derive(Debug)]
pub struct Aitw2;

/// Whether AITW calls the act a touch (`DUAL_POINT`), and where it starts
/// and lifts.
fn touch_points(act: &Act) -> Option<((i32, i32), (i32, i32))> {
    let kind = matches!(
        act.kind,
        Kind::Tap | Kind::LongPress | Kind::DoubleTap | Kind::Scroll | Kind::Drag
    );
    let start = act.point?;
    kind.then(|| (start, act.end.unwrap_or(start)))
}

/// The verdict on two touches, once each is known to be a tap or not.
fn touches(
    answer_tap: bool,
    reference_tap: bool,
    taps: impl FnOnce() -> bool,
    axes: impl FnOnce() -> bool,
) -> Verdict {
    if answer_tap != reference_tap {
        Verdict::WRONG_TYPE
    } else if reference_tap {
        Verdict::grounded(taps())
    } else {
        Verdict::same_type(axes())
    }
}

/// Any pair that is not two touches: equal types (`has_non_dual_point_action`).
fn other(answer: &Act, reference: &Reference) -> Verdict {
    let both_untouched = touch_points(answer).is_none() && touch_points(&reference.act).is_none();
    match both_untouched && answer.kind == reference.act.kind {
        true => Verdict::TYPE_ONLY,
        false => Verdict::WRONG_TYPE,
    }
}

/// A box grown as AITW grows its annotations, in screen fractions (`f64`).
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

/// Whether two taps match under `aitw@1`'s `f64` reading of the rule.
fn taps_match(a: (i32, i32), b: (i32, i32), boxes: &[Bounds], screen: (i32, i32)) -> bool {
    let (pa, pb) = (normalised(a, screen), normalised(b, screen));
    let same_box = boxes.iter().any(|bx| {
        let grown = augmented(bx, screen);
        in_box(grown, pa) && in_box(grown, pb)
    });
    same_box || distance(a, b, screen) <= TAP_DISTANCE
}

impl Matcher for Aitw1 {
    fn name(&self) -> &'static str {
        "aitw@1"
    }

    fn judge(&self, answer: &Act, reference: &Reference) -> Verdict {
        let screen = reference.screen;
        let (Some((a0, a1)), Some((r0, r1))) = (touch_points(answer), touch_points(&reference.act))
        else {
            return other(answer, reference);
        };
        let tap = |s, e| distance(s, e, screen) <= SWIPE_DISTANCE;
        let vertical = |s: (i32, i32), e: (i32, i32)| (e.1 - s.1).abs() >= (e.0 - s.0).abs();
        touches(
            tap(a0, a1),
            tap(r0, r1),
            || taps_match(a0, r0, &reference.boxes, screen),
            || vertical(a0, a1) == vertical(r0, r1),
        )
    }
}

/// A point as AITW's data holds it: (y, x), fractions of the screen, `f32`.
fn yx((x, y): (i32, i32), (w, h): (i32, i32)) -> [f32; 2] {
    let fraction = |v: i32, of: i32| (f64::from(v) / f64::from(of.max(1))) as f32;
    [fraction(y, h), fraction(x, w)]
}

/// `jnp.linalg.norm(a - b)` in float32.
fn norm(a: [f32; 2], b: [f32; 2]) -> f32 {
    let (dy, dx) = (a[0] - b[0], a[1] - b[1]);
    (dy * dy + dx * dx).sqrt()
}

/// `is_tap_action` (lines 100–104).
fn is_tap(touch: [f32; 2], lift: [f32; 2]) -> bool {
    norm(touch, lift) <= SWIPE_DISTANCE as f32
}

/// `_resize_annotation_bounding_boxes` (lines 66–97) then
/// `_yx_in_bounding_boxes` (lines 38–63) of one box: the box as (y, x,
/// height, width) fractions, grown, and the point tested with its edges.
fn in_grown_box(b: &Bounds, p: [f32; 2], screen: (i32, i32)) -> bool {
    let [top, left] = yx((b.left, b.top), screen);
    let [height, width] = yx((b.width(), b.height()), screen);
    let augment = AUGMENT as f32;
    let (dh, dw) = (augment * height, augment * width);
    let top = (top - dh / 2.0).max(0.0);
    let left = (left - dw / 2.0).max(0.0);
    let (height, width) = ((height + dh).min(1.0), (width + dw).min(1.0));
    let (bottom, right) = (top + height, left + width);
    p[0] >= top && p[0] <= bottom && p[1] >= left && p[1] <= right
}

/// `_check_tap_actions_match` (lines 107–134).
fn taps_match_f32(a: [f32; 2], b: [f32; 2], boxes: &[Bounds], screen: (i32, i32)) -> bool {
    let both_in_box = boxes
        .iter()
        .any(|bx| in_grown_box(bx, a, screen) && in_grown_box(bx, b, screen));
    both_in_box || norm(a, b) <= TAP_DISTANCE as f32
}

/// `np.argmax(|lift − touch|)` over (y, x): 0 (y) when the swipe moves at
/// least as far down the screen's height as across its width.
fn main_axis(touch: [f32; 2], lift: [f32; 2]) -> usize {
    let (dy, dx) = ((lift[0] - touch[0]).abs(), (lift[1] - touch[1]).abs());
    usize::from(dx > dy)
}

impl Matcher for Aitw2 {
    fn name(&self) -> &'static str {
        "aitw@2"
    }

    fn judge(&self, answer: &Act, reference: &Reference) -> Verdict {
        let screen = reference.screen;
        let (Some((a0, a1)), Some((r0, r1))) = (touch_points(answer), touch_points(&reference.act))
        else {
            return other(answer, reference);
        };
        let (a0, a1, r0, r1) = (
            yx(a0, screen),
            yx(a1, screen),
            yx(r0, screen),
            yx(r1, screen),
        );
        touches(
            is_tap(a0, a1),
            is_tap(r0, r1),
            || taps_match_f32(a0, r0, &reference.boxes, screen),
            || main_axis(a0, a1) == main_axis(r0, r1),
        )
    }
}
