//! `qwen-box@1`: the AndroidControl scorer the Qwen2.5-VL team shared
//! (linked from X-PLUG/MobileAgent#154 and QwenLM/Qwen3-VL#1155 as the gist
//! LukeForeverYoung/1f5d19495788de0d905c5ac6341153f5). The gist itself could
//! not be read here; the rule is DESIGN.md's summary of it ("Offline step
//! matchers"), and QwenLM/Qwen3-VL#1155 confirms its core: a click is
//! judged by whether it falls in the target's `candidate_bbox`, not by
//! distance.
//!
//! - The action types must be equal.
//! - A click or long press matches inside the target element's box grown
//!   about its centre to 1.2 times its width and height; outside it, within
//!   0.04 of the reference point (screen fractions).
//! - Typed text, an answer and the app opened match by case-insensitive
//!   containment either way.
//! - A scroll's direction must be the reference's; other actions match by
//!   type.

use super::rule::{distance, scaled, Matcher, Verdict};
use crate::offline::step::{Act, Kind, Reference};

const BOX_SCALE: f64 = 1.2;
const NEAR: f64 = 0.04;

#[derive(Debug)]
pub struct QwenBox;

/// Case-insensitive containment either way; an empty text matches only
/// an empty one.
pub(crate) fn contains_either(a: Option<&str>, b: Option<&str>) -> bool {
    let (a, b) = (
        a.unwrap_or("").trim().to_lowercase(),
        b.unwrap_or("").trim().to_lowercase(),
    );
    if a.is_empty() || b.is_empty() {
        return a == b;
    }
    a.contains(&b) || b.contains(&a)
}

impl Matcher for QwenBox {
    fn name(&self) -> &'static str {
        "qwen-box@1"
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
                        let in_box = reference.target.is_some_and(|b| {
                            let (l, t, rt, bt) = scaled(&b, BOX_SCALE);
                            let (x, y) = (f64::from(a.0), f64::from(a.1));
                            x >= l && x <= rt && y >= t && y <= bt
                        });
                        in_box || distance(a, r, reference.screen) <= NEAR
                    }
                    _ => false,
                };
                Verdict::grounded(ok)
            }
            Kind::Type | Kind::Answer => Verdict::same_type(contains_either(
                answer.text.as_deref(),
                want.text.as_deref(),
            )),
            Kind::OpenApp => {
                Verdict::same_type(contains_either(answer.app_label(), want.app_label()))
            }
            Kind::Scroll => Verdict::same_type(answer.direction == want.direction),
            Kind::Key => Verdict::same_type(answer.text == want.text),
            _ => Verdict::TYPE_ONLY,
        }
    }
}
