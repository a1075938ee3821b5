//! `droidscore@1`: droidscore's own exact rule, which knows what the
//! public datasets do not: which node the reference's selector names.
//!
//! - The action types must be equal: a long press is not a tap.
//! - A tap, long press or double tap matches when its point lies inside a
//!   node the solution step's selector matches on that screen (the
//!   selector's alternatives, "Wi-Fi or WLAN", are the equivalent targets a
//!   task marks); with no selector, the node the reference taps.
//! - Typed text and an answer match when equal under the oracle's `text`
//!   normalisation (`oracle::Normalize::Text`: case folded, whitespace
//!   collapsed, a final `.` or `!` dropped).
//! - `open_app` matches by package; a scroll by direction; a key by key;
//!   anything else by type.

use super::{Matcher, Verdict};
use crate::offline::step::{Act, Kind, Reference};
use crate::oracle::Normalize;

#[derive(Debug)]
pub struct Droidscore;

impl Matcher for Droidscore {
    fn name(&self) -> &'static str {
        "droidscore@1"
    }

    fn judge(&self, answer: &Act, reference: &Reference) -> Verdict {
        let want = &reference.act;
        if answer.kind != want.kind {
            return Verdict::WRONG_TYPE;
        }
        match want.kind {
            Kind::Tap | Kind::LongPress | Kind::DoubleTap => {
                let ok = answer.point.is_some_and(|(x, y)| {
                    let on = |b: &droidscore_phone::uiautomator::Bounds| b.contains(x, y);
                    if reference.matches.is_empty() {
                        reference.target.is_some_and(|b| on(&b)) || answer.point == want.point
                    } else {
                        reference.matches.iter().any(on)
                    }
                });
                Verdict::grounded(ok)
            }
            Kind::Type | Kind::Answer => Verdict::same_type(Normalize::Text.same(
                answer.text.as_deref().unwrap_or(""),
                want.text.as_deref().unwrap_or(""),
            )),
            Kind::OpenApp => Verdict::same_type(answer.app == want.app),
            Kind::Scroll => Verdict::same_type(answer.direction == want.direction),
            Kind::Key => Verdict::same_type(answer.text == want.text),
            _ => Verdict::TYPE_ONLY,
        }
    }
}
