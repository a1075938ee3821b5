//! `droidscore@1`: droidscore's own exact rule, which knows what the
//! public datasets do not: which node the reference's selector names.
//!
//! - The action types must be equal: a long press is not a tap.
//! - A tap, long press or double tap matches when it lands on the view a
//!   tap on a node the solution step's selector matches lands on (the
//!   topmost clickable view under the point; the selector's alternatives,
//!   "Wi-Fi or WLAN", are the equivalent targets a task marks): anywhere
//!   on a Settings row, but not on the switch inside an alarm card that
//!   the step opens.
//! - Typed text and an answer match when equal under the oracle's `text`
//!   normalisation (`oracle::Normalize::Text`: case folded, whitespace
//!   collapsed, a final `.` or `!` dropped).
//! - `open_app` matches by package; a scroll by direction; a key by key;
//!   anything else by type.

use super::rule::{Matcher, Verdict};
use crate::offline::step::{Act, Kind, Reference};
use crate::oracle::Normalize;
use droidscore_phone::uiautomator::Bounds;

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
                Verdict::grounded(answer.point.is_some_and(|p| grounds(p, reference)))
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

/// Whether a tap at `p` lands where a tap on a node the step's selector
/// matches lands (at the reference's point on the node that holds it, at
/// the centre of the others): on the same clickable view, or, where no
/// clickable view is under the node, inside the node itself. A point on
/// an alarm card's switch is not a tap on the card: it lands on the switch.
fn grounds(p: (i32, i32), reference: &Reference) -> bool {
    let want = reference.act.point;
    let candidates: Vec<Bounds> = match (&reference.matches[..], reference.target) {
        ([], Some(target)) => vec![target],
        ([], None) => return want == Some(p),
        (matches, _) => matches.to_vec(),
    };
    candidates.iter().any(|m| {
        let at = want
            .filter(|&(x, y)| m.contains(x, y))
            .unwrap_or_else(|| m.center());
        match reference.lands(at) {
            Some(view) => reference.lands(p) == Some(view),
            None => m.contains(p.0, p.1),
        }
    })
}
