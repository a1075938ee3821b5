//! `androidcontrol@2` (the default) and `androidcontrol@1`: OS-Atlas's
//! AndroidControl scorer, `evaluate` in
//! `eval/eval_scripts/android_control/evaluation_unify.py` of OS-Copilot's
//! OS-Atlas (read in the fork averychen35/OS-Atlas at
//! 1fa4fb3e8e024096ae6c23b6690167cb42039ef3; line numbers at that commit).
//! AndroidControl's own repository (google-research `android_control`)
//! ships no scorer.
//!
//! `androidcontrol@2` writes both acts as the action strings OS-Atlas's
//! prompt teaches (`eval/data/ac_test.jsonl`: `CLICK <point>[[x,y]]</point>`,
//! `LONG_PRESS <point>[[x,y]]</point>`, `TYPE [text]`, `SCROLL [UP]`,
//! `OPEN_APP [app]`, `PRESS_BACK`, `PRESS_HOME`, `WAIT`, `COMPLETE`) and
//! scores the strings as the script does:
//!
//! - The answer's string loses any of the characters `<|im_end|>` at its
//!   ends (`.strip("<|im_end|>")`, line 62, a set, not a suffix): only the
//!   final `>` of a click, which changes nothing.
//! - The types are the first words, compared exactly (lines 74–78): `CLICK`
//!   and `LONG_PRESS` differ.
//! - A click or long press matches when the first two numbers of each
//!   string (`re.findall(r'\d+', …)`) lie within `0.14*1000` of each other
//!   (lines 81–88); an answer with no point is at (−100, −100). The points
//!   are on OS-Atlas's 0..1000 grid. How OS-Atlas put AndroidControl's
//!   pixels on that grid is not published; here each coordinate is its
//!   fraction of the screen times 1000, rounded half away from zero.
//! - `TYPE` and `OPEN_APP` match when the whole strings are equal, or when
//!   `calculate_f1_score(pred.split()[1], gt.split()[1]) > 0.5` (lines 94
//!   and 100). **The token keeps the bracket**: `split()[1]` of
//!   `TYPE [station road]` is `[station`, of `TYPE [Station]` is `[Station]`,
//!   so "station road" never matches "Station" and "Pro" never matches
//!   "Pro Expense" (one word carries both brackets, the first of several
//!   only the opening one), while "buy bread" matches "buy milk" (`[buy`
//!   both), and two texts that begin with a space match whatever follows
//!   (the token is `[`). The F1 is of lowercased token sets (lines 14–32).
//!   `androidcontrol@1` compared the bare first words.
//! - Any other action matches when the whole strings are equal (line 106):
//!   a scroll's direction must be the reference's.
//!
//! Extensions, for what OS-Atlas's action space lacks (both versions): an
//! answer is `ANSWER [text]` held to `TYPE`'s rule; a double tap is
//! `DOUBLE_TAP <point>[[x,y]]</point>` held to the click rule; a key, a
//! clear, a drag and the rest are strings of their own, matched whole.

use super::python;
use super::rule::{grid, Matcher, Verdict};
use crate::offline::step::{Act, Kind, Reference};

const GRID_DISTANCE: f64 = 140.0;

/// `androidcontrol@1`: the bare first word of a text.
#[derive(Debug)]
pub struct AndroidControl1;

/// `androidcontrol@2`: OS-Atlas's script on OS-Atlas's strings.
#[derive(Debug)]
pub struct AndroidControl2;

/// The first whitespace word, lowercased: all the F1 of single-word token
/// sets can compare (it is 1 when they are equal, else 0).
fn first_word(s: &str) -> Option<String> {
    s.split_whitespace().next().map(str::to_lowercase)
}

/// `androidcontrol@1`'s text rule: the whole action equal, or the first
/// words equal.
fn text_match(answer: Option<&str>, reference: Option<&str>) -> bool {
    let (a, r) = (answer.unwrap_or(""), reference.unwrap_or(""));
    a == r || (first_word(a).is_some() && first_word(a) == first_word(r))
}

impl Matcher for AndroidControl1 {
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

/// `act` as OS-Atlas's action string on a screen of `screen` pixels.
pub(crate) fn action_string(act: &Act, screen: (i32, i32)) -> String {
    let at = |name: &str| match act.point {
        Some(p) => {
            let (x, y) = grid(p, screen);
            format!("{name} <point>[[{},{}]]</point>", x as i64, y as i64)
        }
        None => name.to_owned(),
    };
    let bracket = |name: &str, text: Option<&str>| format!("{name} [{}]", text.unwrap_or(""));
    match act.kind {
        Kind::Tap => at("CLICK"),
        Kind::LongPress => at("LONG_PRESS"),
        Kind::DoubleTap => at("DOUBLE_TAP"),
        Kind::Type => bracket("TYPE", act.text.as_deref()),
        Kind::Answer => bracket("ANSWER", act.text.as_deref()),
        Kind::OpenApp => bracket("OPEN_APP", act.app_label()),
        Kind::Scroll => match &act.direction {
            Some(d) => format!("SCROLL [{}]", d.to_uppercase()),
            None => "SCROLL".into(),
        },
        Kind::Key => bracket("PRESS_KEY", act.text.as_deref()),
        Kind::Drag => match (act.point, act.end) {
            (Some(a), Some(b)) => {
                let ((x1, y1), (x2, y2)) = (grid(a, screen), grid(b, screen));
                let (x1, y1, x2, y2) = (x1 as i64, y1 as i64, x2 as i64, y2 as i64);
                format!("DRAG <point>[[{x1},{y1}]]</point> <point>[[{x2},{y2}]]</point>")
            }
            _ => "DRAG".into(),
        },
        Kind::Back => "PRESS_BACK".into(),
        Kind::Home => "PRESS_HOME".into(),
        Kind::Enter => "PRESS_ENTER".into(),
        Kind::Clear => "CLEAR".into(),
        Kind::Intent => "INTENT".into(),
        Kind::Wait => "WAIT".into(),
        Kind::Complete => "COMPLETE".into(),
        Kind::Infeasible => "INFEASIBLE".into(),
        // What the script scores when the model's output does not parse.
        Kind::Invalid => "invalid action".into(),
    }
}

/// `calculate_f1_score` (lines 14–32): F1 of the lowercased word sets.
fn f1(predicted: &str, truth: &str) -> f64 {
    use std::collections::BTreeSet;
    let (p, t) = (predicted.to_lowercase(), truth.to_lowercase());
    let words =
        |s: &str| -> BTreeSet<String> { python::split(s).into_iter().map(str::to_owned).collect() };
    let (p, t) = (words(&p), words(&t));
    let common = p.intersection(&t).count() as f64;
    let ratio = |n: usize| if n == 0 { 0.0 } else { common / n as f64 };
    let (precision, recall) = (ratio(p.len()), ratio(t.len()));
    if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * (precision * recall) / (precision + recall)
    }
}

/// `s.split()[1]`; a string with one word has none (the script would
/// raise; no action string written here has fewer than two words where
/// it is asked).
fn second_word(s: &str) -> &str {
    python::split(s).get(1).copied().unwrap_or("")
}

/// The first two numbers of a click's string, or the script's fallback.
fn click_point(s: &str) -> (i64, i64) {
    match python::numbers(s)[..] {
        [x, y, ..] => (x, y),
        _ => (-100, -100),
    }
}

impl Matcher for AndroidControl2 {
    fn name(&self) -> &'static str {
        "androidcontrol@2"
    }

    fn judge(&self, answer: &Act, reference: &Reference) -> Verdict {
        let gt = action_string(&reference.act, reference.screen);
        let pred = action_string(answer, reference.screen);
        let pred = python::strip_chars(&pred, "<|im_end|>");
        let kind = |s: &str| python::split(s).first().copied().unwrap_or("").to_owned();
        let gt_type = kind(&gt);
        if gt_type != kind(pred) {
            return Verdict::WRONG_TYPE;
        }
        match gt_type.as_str() {
            "CLICK" | "LONG_PRESS" | "DOUBLE_TAP" => {
                let ((px, py), (gx, gy)) = (click_point(pred), click_point(&gt));
                let (dx, dy) = (px.saturating_sub(gx) as f64, py.saturating_sub(gy) as f64);
                Verdict::grounded((dx.powi(2) + dy.powi(2)).sqrt() <= 0.14 * 1000.0)
            }
            "TYPE" | "OPEN_APP" | "ANSWER" => {
                Verdict::same_type(pred == gt || f1(second_word(pred), second_word(&gt)) > 0.5)
            }
            _ => Verdict::same_type(pred == gt),
        }
    }
}
