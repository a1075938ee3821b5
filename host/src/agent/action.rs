//! AndroidWorld's JSON action schema (`android_world/env/json_action.py`):
//! parsing a model's answer into one [`Action`], and resolving it against the
//! screen's element list into device actions (`env/actuation.py`).
//!
//! Parse rules. AndroidWorld's M3A/T3A prompts ask for `Reason: …` then
//! `Action: {"action_type": …}`, and `m3a_utils.parse_reason_action_output`
//! takes the text after the first `Action:` and the first `{…}` in it. We do
//! the same, leniently but without guessing:
//! - An answer that starts with `{` is read whole (the `--constrain schema`
//!   format: one JSON object, `reason` first, which may itself say
//!   "action:"). Otherwise look after the first `Action:` (any case) when
//!   there is one and it holds a `{`, else in the whole answer. Code fences
//!   and prose around are ignored.
//! - Every balanced top-level `{…}` (braces inside JSON strings do not count) is
//!   a candidate. The one that parses and has `action_type` is the action. The
//!   same action repeated (reasoning, then answer) is one action; two different
//!   ones are an error, as is a malformed object that mentions `action_type`
//!   (it may have been the intended action).
//! - Fields are AndroidWorld's: `action_type index x y text direction app_name
//!   goal_status keycode clear_text`, MobileWorld's `start_x start_y end_x
//!   end_y` (its `drag`), and `reason`, the schema format's own reasoning
//!   (ignored). Any other key is an error, as AndroidWorld's
//!   `JSONAction(**json)` rejects it. `null` means absent. As in
//!   `JSONAction`, `index` may be a digit string and `text` a number; whole
//!   floats (`3.0`) count as integers. `keycode` and `clear_text` are read by
//!   the actions that use them (`press_keyboard`, `input_text`) and ignored
//!   on the others, as AndroidWorld's actuation ignores them.
//!
//! The actions beyond click, type, scroll and the keys, as their sources do
//! them:
//! - `double_tap` (index, or x and y): two taps at one point
//!   (`actuation.execute_adb_action` → `adb_utils.double_tap`).
//! - `swipe` (direction): edge to edge across the whole screen in
//!   `direction`, 500 ms (the inverse of `scroll`).
//! - `press_keyboard` with `keycode` `KEYCODE_*`: `input keyevent` of that
//!   key (`adb_utils.press_keyboard_generic`); `json_action` checks the
//!   `KEYCODE_` prefix. The name must be one Android knows
//!   ([`droidscore_phone::keycode`]).
//! - `input_text` with `clear_text: true`: the field is emptied before
//!   typing (AndroidWorld sends Ctrl+A then Delete).
//! - `unknown`: a step that does nothing (AndroidWorld prints "no action
//!   will be executed").
//! - `drag` with `start_x start_y end_x end_y`: MobileWorld's
//!   (Tongyi-MAI/MobileWorld `src/mobile_world/runtime/utils/models.py`,
//!   executed by `runtime/controller.py` `drag`): press at the start, move
//!   to the end, release. AndroidWorld's newer `drag_and_drop` (`touch_xy`,
//!   `lift_xy`, `input draganddrop`) is the same gesture; its fields are not
//!   in its `JSONAction`, so only MobileWorld's form is read.
//!
//! Deliberate differences: `scroll` with `index: 0` scrolls element 0
//! (AndroidWorld's `if action.index:` scrolls the whole screen); `input_text`
//! without a target types into the focused field (AndroidWorld raises);
//! `press_keyboard` is accepted although AndroidWorld's `json_action`
//! type list omits it (its actuation runs it); a drag holds past the
//! long-press timeout before it moves (`input draganddrop`, as
//! AndroidWorld's `drag_and_drop`; MobileWorld sends a 400 ms `input
//! swipe`, which on a list is the same scroll).

use std::fmt;

use serde_json::{Map, Value};

use super::Decision;
use droidscore_phone::apps::APPS;
use droidscore_phone::uiautomator::{Bounds, Element};
use droidscore_phone::{keycode, DeviceAction, Key};

/// Where a click, long press or text entry lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The element's number in the list the model saw.
    Index(usize),
    /// Screen pixels.
    Point { x: i32, y: i32 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Up,
    Down,
    Left,
    Right,
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::Up => "up",
            Direction::Down => "down",
            Direction::Left => "left",
            Direction::Right => "right",
        }
    }
}

/// One action in AndroidWorld's schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Click(Target),
    LongPress(Target),
    /// Tap the target (when given), empty the field when `clear`, type,
    /// press Enter.
    InputText {
        text: String,
        target: Option<Target>,
        clear: bool,
    },
    /// Two taps at one point.
    DoubleTap(Target),
    /// `press_keyboard`: one key, by its `KEYCODE_*` code.
    PressKeyboard(u32),
    /// MobileWorld's drag: press at `start`, move to `end`, release.
    Drag {
        start: (i32, i32),
        end: (i32, i32),
    },
    /// A step that does nothing.
    Unknown,
    /// Move the content so that what lies in `direction` comes into view
    /// ("scroll down" reveals what is below): a swipe the opposite way.
    Scroll {
        direction: Direction,
        index: Option<usize>,
    },
    /// A full-screen finger movement in `direction` (the inverse of scroll).
    Swipe(Direction),
    NavigateBack,
    NavigateHome,
    KeyboardEnter,
    OpenApp(String),
    Wait,
    /// `status` with `goal_status` `complete` (true) or `infeasible` (false).
    Status {
        complete: bool,
    },
    Answer(String),
    /// Stop: the goal or what the screen says asks for harm
    /// (MobileSafetyBench's `refuse()`).
    Refuse,
    /// Stop and ask the user first (MobileSafetyBench's `ask-consent()`).
    AskConsent,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    #[error("the answer is empty")]
    Empty,
    #[error("no JSON object in the answer; answer with one action like {{\"action_type\": \"click\", \"index\": 3}}")]
    NoJson,
    #[error("{snippet} is not valid JSON: {error}")]
    BadJson { snippet: String, error: String },
    #[error("the JSON object has no \"action_type\" at its top level: {snippet}")]
    NoActionType { snippet: String },
    #[error("the answer holds {} different actions ({}); give exactly one", .0.len(), .0.join(", "))]
    Several(Vec<String>),
    #[error("unknown action_type {0:?}; expected one of {ACTION_TYPES}")]
    UnknownActionType(String),
    #[error("{action} needs {field:?}")]
    Missing {
        action: &'static str,
        field: &'static str,
    },
    #[error("{field:?} must be {expected}, got {got}")]
    WrongType {
        field: &'static str,
        expected: &'static str,
        got: String,
    },
    #[error("unknown field {0:?}; AndroidWorld's action has action_type, index, x, y, text, direction, app_name, goal_status, keycode, clear_text (MobileWorld's drag start_x, start_y, end_x, end_y; and reason)")]
    UnknownField(String),
    #[error("{field:?} must be one of {allowed}, got {got:?}")]
    BadValue {
        field: &'static str,
        allowed: &'static str,
        got: String,
    },
    #[error("{0} takes either \"index\" or \"x\" and \"y\", not both")]
    IndexAndPoint(&'static str),
    #[error("{0} needs both \"x\" and \"y\"")]
    HalfPoint(&'static str),
    #[error("index {index} is out of range: the element list has {len} elements (0..{len})")]
    IndexOutOfRange { index: usize, len: usize },
    #[error("point ({x}, {y}) is off the {width}x{height} screen")]
    OffScreen {
        x: i32,
        y: i32,
        width: i32,
        height: i32,
    },
    #[error("unknown app {0:?}; known apps: {known}", known = app_names())]
    UnknownApp(String),
}

const ACTION_TYPES: &str = "click, double_tap, long_press, input_text, scroll, swipe, drag, press_keyboard, navigate_back, navigate_home, keyboard_enter, open_app, wait, status, answer, unknown";

const KNOWN_FIELDS: &[&str] = &[
    "action_type",
    "index",
    "x",
    "y",
    "text",
    "direction",
    "app_name",
    "goal_status",
    "keycode",
    "clear_text",
    "start_x",
    "start_y",
    "end_x",
    "end_y",
    "reason",
];

/// The drag duration, ms: past Android's long-press timeout (400-500 ms),
/// which `input draganddrop` waits before it moves, so the move itself
/// takes about a second.
pub(crate) const DRAG_MS: u32 = 1500;

fn app_names() -> String {
    droidscore_phone::apps::app_labels().join(", ")
}

/// The package an app name opens: the launcher's labels (case and surrounding
/// space ignored) or a package name itself.
pub(crate) fn app_package(name: &str) -> Option<&'static str> {
    let name = name.trim();
    APPS.iter()
        .find(|(label, package)| label.eq_ignore_ascii_case(name) || *package == name)
        .map(|(_, package)| *package)
}

/// At most this many characters of an offending snippet go into a message.
const SNIPPET_CHARS: usize = 120;

pub(super) fn snippet(s: &str) -> String {
    match s.char_indices().nth(SNIPPET_CHARS) {
        Some((i, _)) => format!("`{}…`", &s[..i]),
        None => format!("`{s}`"),
    }
}

/// The balanced top-level `{…}` spans of `text`, skipping braces in strings.
/// An unclosed `{` yields the rest of the text (so it is reported as bad JSON).
fn object_spans(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'{' {
            i += 1;
            continue;
        }
        let start = i;
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        let mut end = None;
        while i < bytes.len() {
            let b = bytes[i];
            if in_string {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_string = false,
                    _ => {}
                }
            } else {
                match b {
                    b'"' => in_string = true,
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(i + 1);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            i += 1;
        }
        match end {
            Some(e) => {
                spans.push(&text[start..e]);
                i = e;
            }
            None => {
                spans.push(&text[start..]);
                break;
            }
        }
    }
    spans
}

/// The text after the first `Action:` (any case), when it holds an object;
/// an answer that is a JSON object from its start is read whole.
fn action_segment(raw: &str) -> &str {
    if raw.trim_start().starts_with('{') {
        return raw;
    }
    let lower = raw.to_ascii_lowercase();
    match lower.find("action:") {
        Some(at) if raw[at..].contains('{') => &raw[at + "action:".len()..],
        _ => raw,
    }
}

/// Parse a model's answer into one action; see the module docs for the rules.
pub fn parse_action(raw: &str) -> Result<Action, ActionError> {
    if raw.trim().is_empty() {
        return Err(ActionError::Empty);
    }
    let mut actions: Vec<Map<String, Value>> = Vec::new();
    let mut bad: Option<ActionError> = None;
    let mut untyped: Option<String> = None;
    for span in object_spans(action_segment(raw)) {
        match serde_json::from_str::<Value>(span) {
            Ok(Value::Object(map)) if map.contains_key("action_type") => {
                if !actions.contains(&map) {
                    actions.push(map);
                }
            }
            Ok(_) => {
                untyped.get_or_insert_with(|| snippet(span));
            }
            Err(e) => {
                let err = ActionError::BadJson {
                    snippet: snippet(span),
                    error: e.to_string(),
                };
                if span.contains("action_type") {
                    // Possibly the intended action: never pick another one over it.
                    return Err(err);
                }
                bad.get_or_insert(err);
            }
        }
    }
    match actions.len() {
        1 => from_json(actions.pop().unwrap_or_default()),
        0 => Err(bad.unwrap_or(match untyped {
            Some(snippet) => ActionError::NoActionType { snippet },
            None => ActionError::NoJson,
        })),
        _ => Err(ActionError::Several(
            actions
                .iter()
                .map(|m| Value::Object(m.clone()).to_string())
                .collect(),
        )),
    }
}

fn type_name(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("{s:?}"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// An integer field: a JSON integer, a whole float, or (for `index`, as
/// AndroidWorld's `int(index)`) a digit string.
fn int_field(map: &Map<String, Value>, field: &'static str) -> Result<Option<i64>, ActionError> {
    let wrong = |v: &Value| ActionError::WrongType {
        field,
        expected: "an integer",
        got: type_name(v),
    };
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v @ Value::Number(n)) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Ok(Some(i)),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e9 => Ok(Some(f as i64)),
            _ => Err(wrong(v)),
        },
        Some(v @ Value::String(s)) if field == "index" => {
            s.trim().parse::<i64>().map(Some).map_err(|_| wrong(v))
        }
        Some(v) => Err(wrong(v)),
    }
}

fn index_field(map: &Map<String, Value>) -> Result<Option<usize>, ActionError> {
    match int_field(map, "index")? {
        None => Ok(None),
        Some(i) => usize::try_from(i)
            .map(Some)
            .map_err(|_| ActionError::WrongType {
                field: "index",
                expected: "a non-negative integer",
                got: i.to_string(),
            }),
    }
}

fn str_field(map: &Map<String, Value>, field: &'static str) -> Result<Option<String>, ActionError> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        // AndroidWorld's JSONAction stringifies a non-string text (a PIN as a number).
        Some(Value::Number(n)) if field == "text" => Ok(Some(n.to_string())),
        Some(v) => Err(ActionError::WrongType {
            field,
            expected: "a string",
            got: type_name(v),
        }),
    }
}

fn target(map: &Map<String, Value>, action: &'static str) -> Result<Option<Target>, ActionError> {
    let index = index_field(map)?;
    let x = int_field(map, "x")?;
    let y = int_field(map, "y")?;
    let coord = |v: i64, field: &'static str| {
        i32::try_from(v).map_err(|_| ActionError::WrongType {
            field,
            expected: "a screen coordinate",
            got: v.to_string(),
        })
    };
    match (index, x, y) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(ActionError::IndexAndPoint(action)),
        (Some(i), None, None) => Ok(Some(Target::Index(i))),
        (None, Some(x), Some(y)) => Ok(Some(Target::Point {
            x: coord(x, "x")?,
            y: coord(y, "y")?,
        })),
        (None, Some(_), None) | (None, None, Some(_)) => Err(ActionError::HalfPoint(action)),
        (None, None, None) => Ok(None),
    }
}

/// A required coordinate field (`start_x` …).
fn coord_field(map: &Map<String, Value>, field: &'static str) -> Result<i32, ActionError> {
    let v = int_field(map, field)?.ok_or(ActionError::Missing {
        action: "drag",
        field,
    })?;
    i32::try_from(v).map_err(|_| ActionError::WrongType {
        field,
        expected: "a screen coordinate",
        got: v.to_string(),
    })
}

fn bool_field(map: &Map<String, Value>, field: &'static str) -> Result<bool, ActionError> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(ActionError::WrongType {
            field,
            expected: "true or false",
            got: type_name(v),
        }),
    }
}

fn direction(map: &Map<String, Value>, action: &'static str) -> Result<Direction, ActionError> {
    let got = str_field(map, "direction")?.ok_or(ActionError::Missing {
        action,
        field: "direction",
    })?;
    match got.as_str() {
        "up" => Ok(Direction::Up),
        "down" => Ok(Direction::Down),
        "left" => Ok(Direction::Left),
        "right" => Ok(Direction::Right),
        _ => Err(ActionError::BadValue {
            field: "direction",
            allowed: "up, down, left, right",
            got,
        }),
    }
}

fn from_json(map: Map<String, Value>) -> Result<Action, ActionError> {
    if let Some(unknown) = map.keys().find(|k| !KNOWN_FIELDS.contains(&k.as_str())) {
        return Err(ActionError::UnknownField(unknown.clone()));
    }
    let kind = match map.get("action_type") {
        Some(Value::String(s)) => s.clone(),
        Some(v) => {
            return Err(ActionError::WrongType {
                field: "action_type",
                expected: "a string",
                got: type_name(v),
            })
        }
        None => unreachable!("candidates have action_type"),
    };
    let needs_target = |action: &'static str| {
        target(&map, action)?.ok_or(ActionError::Missing {
            action,
            field: "index",
        })
    };
    let text = |action: &'static str| {
        str_field(&map, "text")?.ok_or(ActionError::Missing {
            action,
            field: "text",
        })
    };
    Ok(match kind.as_str() {
        "click" => Action::Click(needs_target("click")?),
        "long_press" => Action::LongPress(needs_target("long_press")?),
        "input_text" => {
            let text = text("input_text")?;
            if text.is_empty() {
                return Err(ActionError::Missing {
                    action: "input_text",
                    field: "text",
                });
            }
            Action::InputText {
                text,
                target: target(&map, "input_text")?,
                clear: bool_field(&map, "clear_text")?,
            }
        }
        "double_tap" => Action::DoubleTap(needs_target("double_tap")?),
        "press_keyboard" => {
            let got = str_field(&map, "keycode")?.ok_or(ActionError::Missing {
                action: "press_keyboard",
                field: "keycode",
            })?;
            match got
                .strip_prefix("KEYCODE_")
                .and_then(|_| keycode::parse(&got))
            {
                Some(code) => Action::PressKeyboard(code),
                None => {
                    return Err(ActionError::BadValue {
                        field: "keycode",
                        allowed:
                            "a KEYCODE_* name, e.g. KEYCODE_DEL, KEYCODE_TAB, KEYCODE_MOVE_END",
                        got,
                    })
                }
            }
        }
        "drag" => Action::Drag {
            start: (coord_field(&map, "start_x")?, coord_field(&map, "start_y")?),
            end: (coord_field(&map, "end_x")?, coord_field(&map, "end_y")?),
        },
        "unknown" => Action::Unknown,
        "scroll" => Action::Scroll {
            direction: direction(&map, "scroll")?,
            index: index_field(&map)?,
        },
        "swipe" => Action::Swipe(direction(&map, "swipe")?),
        "navigate_back" => Action::NavigateBack,
        "navigate_home" => Action::NavigateHome,
        "keyboard_enter" => Action::KeyboardEnter,
        "open_app" => {
            Action::OpenApp(str_field(&map, "app_name")?.ok_or(ActionError::Missing {
                action: "open_app",
                field: "app_name",
            })?)
        }
        "wait" => Action::Wait,
        "status" => {
            let got = str_field(&map, "goal_status")?.ok_or(ActionError::Missing {
                action: "status",
                field: "goal_status",
            })?;
            match got.as_str() {
                "complete" => Action::Status { complete: true },
                "infeasible" => Action::Status { complete: false },
                _ => {
                    return Err(ActionError::BadValue {
                        field: "goal_status",
                        allowed: "complete, infeasible",
                        got,
                    })
                }
            }
        }
        "answer" => Action::Answer(text("answer")?),
        "refuse" => Action::Refuse,
        "ask_consent" => Action::AskConsent,
        _ => return Err(ActionError::UnknownActionType(kind)),
    })
}

impl Action {
    pub fn action_type(&self) -> &'static str {
        match self {
            Action::Click(_) => "click",
            Action::LongPress(_) => "long_press",
            Action::InputText { .. } => "input_text",
            Action::DoubleTap(_) => "double_tap",
            Action::PressKeyboard(_) => "press_keyboard",
            Action::Drag { .. } => "drag",
            Action::Unknown => "unknown",
            Action::Scroll { .. } => "scroll",
            Action::Swipe(_) => "swipe",
            Action::NavigateBack => "navigate_back",
            Action::NavigateHome => "navigate_home",
            Action::KeyboardEnter => "keyboard_enter",
            Action::OpenApp(_) => "open_app",
            Action::Wait => "wait",
            Action::Status { .. } => "status",
            Action::Answer(_) => "answer",
            Action::Refuse => "refuse",
            Action::AskConsent => "ask_consent",
        }
    }

    /// The action in AndroidWorld's JSON form, canonical (no nulls).
    pub(crate) fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("action_type".into(), self.action_type().into());
        let put_target = |m: &mut Map<String, Value>, t: &Target| match *t {
            Target::Index(i) => {
                m.insert("index".into(), i.into());
            }
            Target::Point { x, y } => {
                m.insert("x".into(), x.into());
                m.insert("y".into(), y.into());
            }
        };
        match self {
            Action::Click(t) | Action::LongPress(t) | Action::DoubleTap(t) => put_target(&mut m, t),
            Action::InputText {
                text,
                target,
                clear,
            } => {
                m.insert("text".into(), text.clone().into());
                if let Some(t) = target {
                    put_target(&mut m, t);
                }
                if *clear {
                    m.insert("clear_text".into(), true.into());
                }
            }
            Action::PressKeyboard(code) => {
                let name = keycode::name(*code).unwrap_or_else(|| code.to_string());
                m.insert("keycode".into(), name.into());
            }
            Action::Drag { start, end } => {
                m.insert("start_x".into(), start.0.into());
                m.insert("start_y".into(), start.1.into());
                m.insert("end_x".into(), end.0.into());
                m.insert("end_y".into(), end.1.into());
            }
            Action::Scroll { direction, index } => {
                m.insert("direction".into(), direction.name().into());
                if let Some(i) = index {
                    m.insert("index".into(), (*i).into());
                }
            }
            Action::Swipe(direction) => {
                m.insert("direction".into(), direction.name().into());
            }
            Action::OpenApp(name) => {
                m.insert("app_name".into(), name.clone().into());
            }
            Action::Status { complete } => {
                let status = if *complete { "complete" } else { "infeasible" };
                m.insert("goal_status".into(), status.into());
            }
            Action::Answer(text) => {
                m.insert("text".into(), text.clone().into());
            }
            Action::NavigateBack
            | Action::NavigateHome
            | Action::KeyboardEnter
            | Action::Wait
            | Action::Refuse
            | Action::AskConsent
            | Action::Unknown => {}
        }
        Value::Object(m)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_json())
    }
}

/// An action turned into what the phone does.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub decision: Decision,
    /// Where a click, long press or text-field tap lands.
    pub tap: Option<(i32, i32)>,
}

/// The screen size a hierarchy covers: the union of its root nodes' bounds.
pub fn screen_size(h: &droidscore_phone::uiautomator::Hierarchy) -> (i32, i32) {
    h.nodes.iter().fold((0, 0), |(w, hgt), n| {
        (w.max(n.bounds.right), hgt.max(n.bounds.bottom))
    })
}

fn point(
    target: Target,
    elements: &[Element],
    (width, height): (i32, i32),
) -> Result<(i32, i32), ActionError> {
    match target {
        Target::Index(index) => {
            elements
                .get(index)
                .map(|e| e.center)
                .ok_or(ActionError::IndexOutOfRange {
                    index,
                    len: elements.len(),
                })
        }
        Target::Point { x, y } => {
            if (0..width).contains(&x) && (0..height).contains(&y) {
                Ok((x, y))
            } else {
                Err(ActionError::OffScreen {
                    x,
                    y,
                    width,
                    height,
                })
            }
        }
    }
}

/// Turn an action into device actions against the element list the model saw
/// and the screen size (`screen_size`). Indexes and points are checked.
pub fn resolve(
    action: &Action,
    elements: &[Element],
    screen: (i32, i32),
) -> Result<Resolved, ActionError> {
    let act = |a: DeviceAction| Resolved {
        decision: Decision::Act(a),
        tap: None,
    };
    Ok(match action {
        Action::Click(t) => {
            let (x, y) = point(*t, elements, screen)?;
            Resolved {
                decision: Decision::Act(DeviceAction::Tap { x, y }),
                tap: Some((x, y)),
            }
        }
        Action::LongPress(t) => {
            let (x, y) = point(*t, elements, screen)?;
            Resolved {
                decision: Decision::Act(DeviceAction::LongPress { x, y }),
                tap: Some((x, y)),
            }
        }
        Action::DoubleTap(t) => {
            let (x, y) = point(*t, elements, screen)?;
            Resolved {
                decision: Decision::Act(DeviceAction::DoubleTap { x, y }),
                tap: Some((x, y)),
            }
        }
        Action::PressKeyboard(code) => act(keycode::action(*code)),
        Action::Drag { start, end } => {
            let on = |(x, y): (i32, i32)| point(Target::Point { x, y }, elements, screen);
            let ((x1, y1), (x2, y2)) = (on(*start)?, on(*end)?);
            act(DeviceAction::Drag {
                x1,
                y1,
                x2,
                y2,
                duration_ms: DRAG_MS,
            })
        }
        Action::Unknown => Resolved {
            decision: Decision::Idle,
            tap: None,
        },
        Action::InputText {
            text,
            target,
            clear,
        } => {
            let tap = target.map(|t| point(t, elements, screen)).transpose()?;
            let mut actions = Vec::with_capacity(4);
            if let Some((x, y)) = tap {
                actions.push(DeviceAction::Tap { x, y });
            }
            if *clear {
                actions.push(DeviceAction::ClearText);
            }
            actions.push(DeviceAction::Text { text: text.clone() });
            actions.push(DeviceAction::Key { key: Key::Enter });
            Resolved {
                decision: Decision::ActAll(actions),
                tap,
            }
        }
        Action::Scroll { direction, index } => {
            let full = Bounds::new(0, 0, screen.0, screen.1);
            let region = match index {
                Some(i) => {
                    let b = elements
                        .get(*i)
                        .ok_or(ActionError::IndexOutOfRange {
                            index: *i,
                            len: elements.len(),
                        })?
                        .bounds;
                    Bounds::new(
                        b.left.max(0),
                        b.top.max(0),
                        b.right.min(screen.0),
                        b.bottom.min(screen.1),
                    )
                }
                None => full,
            };
            act(scroll_swipe(region, *direction))
        }
        Action::Swipe(direction) => act(full_swipe(screen, *direction)),
        Action::NavigateBack => act(DeviceAction::Key { key: Key::Back }),
        Action::NavigateHome => act(DeviceAction::Key { key: Key::Home }),
        Action::KeyboardEnter => act(DeviceAction::Key { key: Key::Enter }),
        Action::OpenApp(name) => {
            let package = app_package(name).ok_or_else(|| ActionError::UnknownApp(name.clone()))?;
            act(DeviceAction::Launch {
                package: package.to_owned(),
            })
        }
        Action::Wait => Resolved {
            decision: Decision::Idle,
            tap: None,
        },
        Action::Answer(text) => Resolved {
            decision: Decision::Answer(text.clone()),
            tap: None,
        },
        Action::Status { complete: true } => Resolved {
            decision: Decision::Complete,
            tap: None,
        },
        Action::Status { complete: false } => Resolved {
            decision: Decision::Infeasible("the agent declared the task infeasible".into()),
            tap: None,
        },
        Action::Refuse => Resolved {
            decision: Decision::Refuse("the agent refused".into()),
            tap: None,
        },
        Action::AskConsent => Resolved {
            decision: Decision::AskConsent("the agent asked for the user's consent".into()),
            tap: None,
        },
    })
}

/// AndroidWorld's scroll: from the region's centre to its edge, the finger
/// moving against `direction` (scroll down = finger up = content below shows).
/// Edges stay one pixel inside the region so the swipe stays on it.
fn scroll_swipe(r: Bounds, direction: Direction) -> DeviceAction {
    let (cx, cy) = r.center();
    let (x2, y2) = match direction {
        Direction::Down => (cx, r.top),
        Direction::Up => (cx, (r.bottom - 1).max(r.top)),
        Direction::Right => (r.left, cy),
        Direction::Left => ((r.right - 1).max(r.left), cy),
    };
    DeviceAction::Swipe {
        x1: cx,
        y1: cy,
        x2,
        y2,
        duration_ms: 300,
    }
}

/// AndroidWorld's swipe: edge to edge across the whole screen, in `direction`.
fn full_swipe((w, h): (i32, i32), direction: Direction) -> DeviceAction {
    let (mx, my, r, b) = (w / 2, h / 2, (w - 1).max(0), (h - 1).max(0));
    let (x1, y1, x2, y2) = match direction {
        Direction::Down => (mx, 0, mx, b),
        Direction::Up => (mx, b, mx, 0),
        Direction::Left => (0, my, r, my),
        Direction::Right => (r, my, 0, my),
    };
    DeviceAction::Swipe {
        x1,
        y1,
        x2,
        y2,
        duration_ms: 500,
    }
}

#[cfg(test)]
#[path = "action_tests.rs"]
mod tests;
