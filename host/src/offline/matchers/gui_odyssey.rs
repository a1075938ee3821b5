//! `gui-odyssey@2` (the default) and `gui-odyssey@1`: GUI-Odyssey's rule,
//! `action_matching` in OpenGVLab/GUI-Odyssey
//! `src/eval_mm/GUIOdyssey_action_matching.py`, fed as its evaluation loop
//! feeds it (`src/eval_mm/evaluate_GUIOdyssey.py`) with references written
//! by its converter (`data/format_converter.py`); all read at
//! e12788f6c4197a8003730abce68ffc7dedaab3ab, line numbers at that commit.
//!
//! - The action types must be equal (`action_matching`, lines 53–63):
//!   `CLICK` and `LONG_PRESS` differ.
//! - A click or long press matches inside the target's box (its SAM2 box
//!   there, the target element's bounds here; edges included, not grown),
//!   or within 0.14 of the reference on the 0..1000 grid divided by 1000
//!   (`click_matching`, lines 35–49).
//! - `TYPE` matches when either text contains the other (case-sensitive,
//!   stripped) or their normalised Levenshtein similarity is at least 0.5
//!   (`text_matching`, lines 22–32).
//! - `SCROLL` matches when the directions are equal, case-insensitive.
//! - Every other type matches by type alone (lines 65–66): the app opened
//!   and an answer are not compared (GUI-Odyssey has neither; each is a
//!   type of its own here, as are a wait, Enter, a key and a clear; a double
//!   tap is held to the click rule).
//!
//! What `gui-odyssey@2` computes as GUI-Odyssey's pipeline does, and
//! `gui-odyssey@1` did not. `gui-odyssey@2` writes both acts as the
//! converter's command strings (`CLICK: (x, y)` on the grid, `TYPE: text`,
//! `SCROLL: UP`, `PRESS_BACK`, …) and reads them back as the loop does:
//!
//! - **A scroll's direction is decided on the grid.** `decode_action`
//!   (format_converter.py lines 32–42) takes the swipe's start and end on
//!   the 0..1000 grid and calls it horizontal only when |dx| > |dy| there
//!   (`LEFT` when dx < 0, else `RIGHT`; `UP` when dy < 0, else `DOWN`: the
//!   way the finger moves). On a 1080×2400 screen a swipe 300 px right and
//!   330 px down is 278 right and 137 down on the grid: `RIGHT`.
//!   `gui-odyssey@1` decided on pixels and called it a scroll up. An act
//!   with a direction and no points keeps its direction.
//! - **A typed text is what `simple_decode` keeps.** The loop splits each
//!   command on `:` and keeps the second piece, stripped
//!   (evaluate_GUIOdyssey.py lines 63–74), so a typed "10:45 pm" is
//!   compared as "10", "Room 5: Alice" as "Room 5", and a text that
//!   begins with `:` as the empty string, which every text contains. The
//!   published numbers were computed so.
//! - **The box test is on the grid**: the answer's grid point against the
//!   target's box on the grid, as `click_matching` compares a SAM2 box
//!   with the predicted point (line 43), where `gui-odyssey@1` compared
//!   pixels. The grid is each coordinate's fraction of the screen times
//!   1000, rounded half away from zero, for points and box edges alike
//!   (how GUI-Odyssey put its SAM2 boxes on the grid is not published).
//!   The distance divides each grid point by 1000 before subtracting, as
//!   `np.asarray(…) / 1000` does.

use super::python;
use super::rule::{grid, inside_inclusive, Matcher, Verdict};
use crate::offline::step::{Act, Kind, Reference};

const CLICK_DISTANCE: f64 = 0.14;
const ANLS: f64 = 0.5;

/// `gui-odyssey@1`: pixel directions and boxes, whole texts.
#[derive(Debug)]
pub struct GuiOdyssey1;

/// `gui-odyssey@2`: GUI-Odyssey's pipeline as it computes.
#[derive(Debug)]
pub struct GuiOdyssey2;

/// `levenshtein_distance` (lines 6–19), over characters.
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

/// `text_matching` (lines 22–32), with Python's `strip`.
fn text_match(reference: &str, answer: &str) -> bool {
    let (r, a) = (python::strip(reference), python::strip(answer));
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

impl Matcher for GuiOdyssey1 {
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

/// A point on the grid as the whole numbers a command holds.
fn grid_point(p: (i32, i32), screen: (i32, i32)) -> (i64, i64) {
    let (x, y) = grid(p, screen);
    (x as i64, y as i64)
}

/// A scroll's direction as `decode_action` writes it (the way the finger
/// moves), from its points on the grid; from its direction (the side the
/// content comes in from) when it has no points.
fn scroll_direction(act: &Act, screen: (i32, i32)) -> Option<&'static str> {
    if let (Some(start), Some(end)) = (act.point, act.end) {
        let ((x1, y1), (x2, y2)) = (grid_point(start, screen), grid_point(end, screen));
        let (dx, dy) = (x2 - x1, y2 - y1);
        return Some(match dx.abs() > dy.abs() {
            true if dx < 0 => "LEFT",
            true => "RIGHT",
            false if dy < 0 => "UP",
            false => "DOWN",
        });
    }
    match act.direction.as_deref()?.to_lowercase().as_str() {
        "down" => Some("UP"),
        "up" => Some("DOWN"),
        "right" => Some("LEFT"),
        "left" => Some("RIGHT"),
        _ => None,
    }
}

/// `act` as the converter's command string.
pub(crate) fn command(act: &Act, screen: (i32, i32)) -> String {
    let at = |name: &str| match act.point {
        Some(p) => {
            let (x, y) = grid_point(p, screen);
            format!("{name}: ({x}, {y})")
        }
        None => name.to_owned(),
    };
    let with = |name: &str, info: Option<&str>| match info {
        Some(info) => format!("{name}: {info}"),
        None => name.to_owned(),
    };
    match act.kind {
        Kind::Tap => at("CLICK"),
        Kind::LongPress => at("LONG_PRESS"),
        Kind::DoubleTap => at("DOUBLE_TAP"),
        Kind::Scroll => with("SCROLL", scroll_direction(act, screen)),
        Kind::Type => with("TYPE", Some(act.text.as_deref().unwrap_or(""))),
        Kind::Answer => with("ANSWER", act.text.as_deref()),
        Kind::OpenApp => with("OPEN_APP", act.app_label()),
        Kind::Key => with("PRESS_KEY", act.text.as_deref()),
        Kind::Drag => "DRAG".into(),
        Kind::Back => "PRESS_BACK".into(),
        Kind::Home => "PRESS_HOME".into(),
        Kind::Enter => "PRESS_ENTER".into(),
        Kind::Clear => "CLEAR".into(),
        Kind::Intent => "INTENT".into(),
        Kind::Wait => "WAIT".into(),
        Kind::Complete => "COMPLETE".into(),
        Kind::Infeasible => "IMPOSSIBLE".into(),
        Kind::Invalid => "INVALID".into(),
    }
}

/// `simple_decode` (evaluate_GUIOdyssey.py lines 63–74): the action and
/// the second `:`-separated piece, each stripped.
fn simple_decode(command: &str) -> (&str, &str) {
    let mut pieces = command.split(':');
    let action = python::strip(pieces.next().unwrap_or(""));
    let info = pieces.next().map_or("", python::strip);
    (action, info)
}

/// `eval` of a click's info, `(x, y)`: `None` where Python would raise.
fn point_of(info: &str) -> Option<(i64, i64)> {
    let inner = info.strip_prefix('(')?.strip_suffix(')')?;
    let (x, y) = inner.split_once(',')?;
    Some((
        python::strip(x).parse().ok()?,
        python::strip(y).parse().ok()?,
    ))
}

/// `click_matching` (lines 35–49) with the target's box on the grid.
fn click_match(pred: (i64, i64), gt: (i64, i64), reference: &Reference) -> bool {
    let in_box = reference.target.is_some_and(|b| {
        let (x1, y1) = grid_point((b.left, b.top), reference.screen);
        let (x2, y2) = grid_point((b.right, b.bottom), reference.screen);
        x1 <= pred.0 && pred.0 <= x2 && y1 <= pred.1 && pred.1 <= y2
    });
    let scaled = |v: i64| v as f64 / 1000.0;
    let (dx, dy) = (scaled(pred.0) - scaled(gt.0), scaled(pred.1) - scaled(gt.1));
    in_box || (dx * dx + dy * dy).sqrt() <= CLICK_DISTANCE
}

impl Matcher for GuiOdyssey2 {
    fn name(&self) -> &'static str {
        "gui-odyssey@2"
    }

    fn judge(&self, answer: &Act, reference: &Reference) -> Verdict {
        let (gt, pred) = (
            command(&reference.act, reference.screen),
            command(answer, reference.screen),
        );
        let ((gt_action, gt_info), (pred_action, pred_info)) =
            (simple_decode(&gt), simple_decode(&pred));
        if pred_action != gt_action {
            return Verdict::WRONG_TYPE;
        }
        match gt_action {
            "CLICK" | "LONG_PRESS" | "DOUBLE_TAP" => {
                // A point that does not parse is the loop's `invalid`.
                let ok = match (point_of(pred_info), point_of(gt_info)) {
                    (Some(p), Some(g)) => click_match(p, g, reference),
                    _ => false,
                };
                Verdict::grounded(ok)
            }
            "TYPE" => Verdict::same_type(text_match(gt_info, pred_info)),
            "SCROLL" => Verdict::same_type(gt_info.to_lowercase() == pred_info.to_lowercase()),
            _ => Verdict::TYPE_ONLY,
        }
    }
}
