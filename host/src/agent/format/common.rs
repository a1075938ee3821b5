//! What the models' own formats share: the space their coordinates live in
//! and its map to screen pixels, a parsed answer as the phone will carry it
//! out, and the errors that make an answer invalid.
//!
//! Coordinate spaces, as the formats' authors define them:
//! - `Resized`: absolute pixels of the image after Qwen2-VL's
//!   `smart_resize` (each side a multiple of `factor`, the area between
//!   `min_pixels` and `max_pixels`), the image the vision encoder saw. The
//!   screenshot is sent as taken; the server's processor resizes it the same
//!   way, and the prompt names the resized size, as Qwen2.5-VL's
//!   `mobile_agent` cookbook does. A server configured with other pixel
//!   limits sees another size: the answer's points then drift.
//! - `Relative(n)`: `x / n` of the width, `y / n` of the height, whatever
//!   the image's size (Qwen3-VL's cookbook uses 999, AgentCPM-GUI 1000). A
//!   999 grid takes 1000 too, the edge of Qwen3-VL's native grid, which a
//!   third-party AndroidWorld harness divides by.
//!
//! A point outside the space is an invalid answer, never clamped into it: a
//! model that points off its image has not pointed at the screen.

use base64::Engine as _;
use serde_json::Value;

use crate::agent::Decision;
use droidscore_phone::{DeviceAction, Key};

/// Where a format's coordinates live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    Resized {
        factor: u32,
        min_pixels: u64,
        max_pixels: u64,
    },
    Relative(u32),
}

/// A screen and the model's view of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Screen pixels (width, height).
    pub screen: (i32, i32),
    /// The range of the model's coordinates (width, height): the resized
    /// image's size, or `n` by `n` for a relative space.
    pub model: (u32, u32),
    /// The largest coordinate taken on each axis.
    pub limit: (u32, u32),
}

impl Geometry {
    pub fn new(space: Space, screen: (i32, i32)) -> Geometry {
        let (w, h) = (screen.0.max(1) as u32, screen.1.max(1) as u32);
        let model = match space {
            Space::Resized {
                factor,
                min_pixels,
                max_pixels,
            } => {
                let (rh, rw) = smart_resize(h, w, factor, min_pixels, max_pixels);
                (rw, rh)
            }
            Space::Relative(n) => (n, n),
        };
        let limit = match space {
            Space::Relative(n) => (n.max(1000), n.max(1000)),
            Space::Resized { .. } => model,
        };
        Geometry {
            screen: (screen.0.max(1), screen.1.max(1)),
            model,
            limit,
        }
    }

    /// The screen pixel under the model's point `(x, y)`.
    pub(crate) fn to_screen(self, x: f64, y: f64) -> Result<(i32, i32), FormatError> {
        let (mw, mh) = (f64::from(self.model.0), f64::from(self.model.1));
        let (lw, lh) = (f64::from(self.limit.0), f64::from(self.limit.1));
        if !(x.is_finite() && y.is_finite()) || x < 0.0 || y < 0.0 || x > lw || y > lh {
            return Err(FormatError::OffImage {
                x,
                y,
                width: self.model.0,
                height: self.model.1,
            });
        }
        let (sw, sh) = self.screen;
        // The far edge itself (x == width) is the last pixel.
        let px = ((x * f64::from(sw) / mw).round() as i32).min(sw - 1);
        let py = ((y * f64::from(sh) / mh).round() as i32).min(sh - 1);
        Ok((px, py))
    }
}

/// Python's `round`: halves go to the even neighbour (`round(2.5) == 2`),
/// as `smart_resize` is written in Python.
fn round_half_even(v: f64) -> f64 {
    let r = v.round();
    if (v - v.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - v.signum()
    } else {
        r
    }
}

/// Qwen2-VL's `smart_resize` (`qwen_vl_utils` and the Transformers image
/// processor): `(height, width)` rounded to multiples of `factor`, then
/// scaled down (floor) or up (ceil), aspect kept, into
/// `min_pixels..=max_pixels`.
pub fn smart_resize(
    height: u32,
    width: u32,
    factor: u32,
    min_pixels: u64,
    max_pixels: u64,
) -> (u32, u32) {
    let (h, w, f) = (f64::from(height), f64::from(width), f64::from(factor));
    let mut hb = f.max(round_half_even(h / f) * f);
    let mut wb = f.max(round_half_even(w / f) * f);
    if hb * wb > max_pixels as f64 {
        let beta = (h * w / max_pixels as f64).sqrt();
        hb = f.max((h / beta / f).floor() * f);
        wb = f.max((w / beta / f).floor() * f);
    } else if hb * wb < min_pixels as f64 {
        let beta = (min_pixels as f64 / (h * w)).sqrt();
        hb = (h * beta / f).ceil() * f;
        wb = (w * beta / f).ceil() * f;
    }
    (hb as u32, wb as u32)
}

/// One past step of a vision format's episode.
#[derive(Debug, Clone)]
pub struct Turn {
    /// The model's answer as received.
    pub answer: String,
    /// The screenshot it answered (PNG).
    pub screenshot: Vec<u8>,
}

/// An answer read in a model's own format.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The call as the format writes it, canonical JSON (for the store):
    /// `{"function": "click", "args": {…}}`, a `mobile_use` tool call's
    /// `arguments`, AgentCPM-GUI's object.
    pub call: Value,
    pub decision: Decision,
    /// Where a tap or long press lands, in screen pixels.
    pub tap: Option<(i32, i32)>,
}

impl Parsed {
    pub fn new(call: Value, decision: Decision) -> Parsed {
        let tap = match &decision {
            Decision::Act(DeviceAction::Tap { x, y })
            | Decision::Act(DeviceAction::LongPress { x, y })
            | Decision::Act(DeviceAction::DoubleTap { x, y }) => Some((*x, *y)),
            _ => None,
        };
        Parsed {
            call,
            decision,
            tap,
        }
    }
}

/// Why an answer in a model's format is not an action.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FormatError {
    #[error("the answer is empty")]
    Empty,
    #[error("no {expected} in the answer")]
    NoCall { expected: &'static str },
    #[error("{snippet} is not a valid call: {error}")]
    BadCall { snippet: String, error: String },
    #[error("unknown action {got:?}; expected one of {expected}")]
    UnknownAction { got: String, expected: &'static str },
    #[error("{action} needs {field:?}")]
    Missing { action: String, field: &'static str },
    #[error("{field:?} must be {expected}, got {got}")]
    WrongType {
        field: String,
        expected: &'static str,
        got: String,
    },
    #[error("{field:?} must be one of {allowed}, got {got:?}")]
    BadValue {
        field: &'static str,
        allowed: &'static str,
        got: String,
    },
    #[error("point ({x}, {y}) is outside the model's {width}x{height} coordinate space")]
    OffImage {
        x: f64,
        y: f64,
        width: u32,
        height: u32,
    },
    #[error("unknown app {0:?}; known apps: {known}", known = droidscore_phone::apps::app_labels().join(", "))]
    UnknownApp(String),
    #[error("the answer holds {0} calls; give exactly one")]
    Several(usize),
}

/// An offending answer's start, quoted, as AndroidWorld's parser quotes it.
pub(super) use crate::agent::action::snippet;

/// A JSON value as a message names it.
pub(crate) fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// What the decisions the formats share come to on the phone.
pub fn key(key: Key) -> Decision {
    Decision::Act(DeviceAction::Key { key })
}

/// A finger moving from `from` to `to` over `ms`.
pub fn swipe(from: (i32, i32), to: (i32, i32), ms: u32) -> Decision {
    Decision::Act(DeviceAction::Swipe {
        x1: from.0,
        y1: from.1,
        x2: to.0,
        y2: to.1,
        duration_ms: ms,
    })
}

/// Open the app a format names by its label or package.
pub fn launch(name: &str) -> Result<Decision, FormatError> {
    let package = crate::agent::action::app_package(name)
        .ok_or_else(|| FormatError::UnknownApp(name.to_owned()))?;
    Ok(Decision::Act(DeviceAction::Launch {
        package: package.to_owned(),
    }))
}

/// Typing: the text, then Enter when `submit`.
pub(crate) fn type_text(text: &str, submit: bool) -> Decision {
    let typed = DeviceAction::Text {
        text: text.to_owned(),
    };
    if submit {
        Decision::ActAll(vec![typed, DeviceAction::Key { key: Key::Enter }])
    } else {
        Decision::Act(typed)
    }
}

/// Where a swipe `direction` leads from `from`: a third of the screen's
/// extent that way, kept on the screen.
pub(crate) fn towards(from: (i32, i32), direction: &str, screen: (i32, i32)) -> Option<(i32, i32)> {
    let (dx, dy) = (screen.0 / 3, screen.1 / 3);
    let (x, y) = from;
    let to = match direction {
        "up" => (x, y - dy),
        "down" => (x, y + dy),
        "left" => (x - dx, y),
        "right" => (x + dx, y),
        _ => return None,
    };
    Some((
        to.0.clamp(0, (screen.0 - 1).max(0)),
        to.1.clamp(0, (screen.1 - 1).max(0)),
    ))
}

/// A screenshot as the `data:image/png;base64,` URL an OpenAI-compatible
/// request carries.
pub(crate) fn data_url(png: &[u8]) -> String {
    let mut url = String::from("data:image/png;base64,");
    base64::engine::general_purpose::STANDARD.encode_string(png, &mut url);
    url
}
