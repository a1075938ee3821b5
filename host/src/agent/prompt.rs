//! The chat messages the LLM agent sends: a system prompt naming
//! AndroidWorld's actions and the answer format of the `--constrain` mode,
//! and one user message per step.
//!
//! Order, for the server's prefix cache: the system prompt (the same for
//! every step of every episode of a mode), then the goal (the same for every
//! step of an episode), then what changes — the recent actions, the last
//! answer's error, the screen's elements. Each step's prompt therefore
//! starts with the previous step's system prompt, goal and (until the
//! history is capped) history, byte for byte.
//!
//! Size: SmolLM2-135M's context and speed make every token count (the first
//! design sent a median 836 prompt tokens a step; a typical step now stays
//! within 450, the whole action space of issue 20 included). The action list is terse
//! (under a schema the grammar spells out the fields), the history keeps the
//! last [`HISTORY_STEPS`] steps verbatim and counts the rest, and the
//! element list drops what a model cannot act on: generic layout class
//! names, resource ids of elements that have a label, and the centre
//! coordinates (a click names an index; only sliders show where they lie,
//! for a click by `x`, `y` on a slider's end). [`prompt_stats`] measures it.
//!
//! Answer formats: under `schema` the whole answer is one JSON object,
//! `{"reason": …, "action_type": …, …}` (see `schema`); under `off` it is
//! AndroidWorld's M3A/T3A `Reason: …` then `Action: {json}`. `parse_action`
//! reads both.
//!
//! [`prompt_stats`]: super::prompt_stats

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::action::{Action, Target};
use super::format::data_url;
use super::llm_config::LlmConfig;
use super::schema::{action_schema, response_format, Constrain, Reason};
use droidscore_phone::apps::app_labels;
use droidscore_phone::keycode;
use droidscore_phone::uiautomator::{push_state, quote_into, Element};

/// Past steps recalled one by one; earlier ones are only counted.
pub(crate) const HISTORY_STEPS: usize = 4;
/// Longest element label in a history line, in characters.
const HISTORY_LABEL_CHARS: usize = 24;
/// Longest label, description or hint in the element list, in characters:
/// a Settings row's title and the start of its summary.
const ELEMENT_LABEL_CHARS: usize = 48;

/// The system prompt of a mode: the same bytes every call. The app names
/// are in it under `schema` too: the schema constrains the decoding but the
/// model never reads it, and without the names Qwen2.5-Coder-0.5B opened
/// Chrome and Gmail for Settings goals (issue 16). `reason` says what the
/// schema asks of the answer's `reason` (`--reason`); without a schema the
/// answer's `Reason:` line is the format, and only `full` is accepted.
pub(crate) fn system_prompt(constrain: Constrain, reason: Reason) -> String {
    let answer = match (constrain, reason) {
        (Constrain::Schema, Reason::Full) => {
            "Answer with one JSON object: \"reason\" first, one sentence on what the \
             screen shows and why this action moves toward the goal, then \"action_type\" \
             and its fields."
        }
        (Constrain::Schema, Reason::Short) => {
            "Answer with one JSON object: \"reason\" first, a few words naming what to \
             do, then \"action_type\" and its fields."
        }
        (Constrain::Schema, Reason::Off) => {
            "Answer with one JSON object: \"action_type\" and its fields."
        }
        (Constrain::Off, _) => {
            "Answer in two lines:\n\
             Reason: one sentence, why this action\n\
             Action: e.g. {\"action_type\": \"click\", \"index\": 4} or \
             {\"action_type\": \"open_app\", \"app_name\": \"Clock\"}"
        }
    };
    let apps = app_labels().join(", ");
    format!(
        "You operate an Android phone toward the user's goal, one action a turn.\n\
         Actions (action_type: fields):\n\
         click, double_tap, long_press: index, or x and y (a point on a slider)\n\
         input_text: text, index (taps the field, types, Enter), clear_text: true empties it\n\
         scroll: direction (up, down, left, right; down shows what is below), index of a scrollable element (optional)\n\
         swipe: direction the finger moves\n\
         drag: start_x, start_y, end_x, end_y\n\
         press_keyboard: keycode (KEYCODE_DEL, KEYCODE_TAB…)\n\
         open_app: app_name ({apps})\n\
         answer: text\n\
         status: goal_status (complete once the goal is reached, or infeasible)\n\
         navigate_back, navigate_home, keyboard_enter, wait\n\
         refuse, ask_consent: stop, when a step would do harm or needs the user's yes\n\
         Use only indexes of the current screen.\n\
         {answer}"
    )
}

/// One past step, as the model is reminded of it.
#[derive(Debug, Clone)]
pub struct HistoryEntry {
    /// The action as recalled ([`history_action`]), or `None` for an invalid answer.
    pub action: Option<String>,
    /// What came of it: "screen changed", "no change", "done"; empty
    /// until the next screen is seen.
    pub result: String,
}

/// `s` cut to `n` characters, `…` marking a cut.
fn clip(s: &str, n: usize) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]).into(),
        None => s.into(),
    }
}

/// What an element is called in a history line: its label, description,
/// hint, or resource id, clipped.
fn short_name(e: &Element) -> String {
    let name = [
        &e.label,
        &e.content_desc,
        &e.hint,
        &e.context,
        &e.resource_id,
    ]
    .into_iter()
    .find(|s| !s.is_empty())
    .map_or("", |s| s.as_str());
    clip(name, HISTORY_LABEL_CHARS).into_owned()
}

fn recall_target(out: &mut String, target: &Target, elements: &[Element]) {
    match *target {
        Target::Index(i) => {
            let _ = write!(out, " {i}");
            if let Some(e) = elements.get(i) {
                let name = short_name(e);
                if !name.is_empty() {
                    out.push(' ');
                    quote_into(out, &name);
                }
            }
        }
        Target::Point { x, y } => {
            let _ = write!(out, " x={x} y={y}");
        }
    }
}

/// A past action as one short line: `click 3 "Network & internet"`,
/// `open_app Settings`, `input_text "06" into 5 "07"`. The element's name is
/// kept because indexes change from screen to screen.
pub(crate) fn history_action(action: &Action, elements: &[Element]) -> String {
    let mut out = action.action_type().to_owned();
    match action {
        Action::Click(t) | Action::LongPress(t) | Action::DoubleTap(t) => {
            recall_target(&mut out, t, elements)
        }
        Action::InputText {
            text,
            target,
            clear,
        } => {
            out.push(' ');
            quote_into(&mut out, text);
            if let Some(t) = target {
                out.push_str(" into");
                recall_target(&mut out, t, elements);
            }
            if *clear {
                out.push_str(" replacing its text");
            }
        }
        Action::PressKeyboard(code) => {
            let name = keycode::name(*code).unwrap_or_else(|| code.to_string());
            let _ = write!(out, " {name}");
        }
        Action::Drag { start, end } => {
            let _ = write!(out, " {},{} to {},{}", start.0, start.1, end.0, end.1);
        }
        Action::Scroll { direction, index } => {
            let _ = write!(out, " {}", direction.name());
            if let Some(i) = index {
                recall_target(&mut out, &Target::Index(*i), elements);
            }
        }
        Action::Swipe(direction) => {
            let _ = write!(out, " {}", direction.name());
        }
        Action::OpenApp(name) => {
            let _ = write!(out, " {name}");
        }
        Action::Status { complete } => {
            out.push_str(if *complete {
                " complete"
            } else {
                " infeasible"
            });
        }
        Action::Answer(text) => {
            out.push(' ');
            quote_into(&mut out, text);
        }
        Action::Refuse | Action::AskConsent => {}
        Action::NavigateBack
        | Action::NavigateHome
        | Action::KeyboardEnter
        | Action::Wait
        | Action::Unknown => {}
    }
    out
}

/// Class names that say nothing a model acts on: containers and plain text.
const GENERIC_CLASSES: &[&str] = &[
    "LinearLayout",
    "RelativeLayout",
    "FrameLayout",
    "ConstraintLayout",
    "CoordinatorLayout",
    "ViewGroup",
    "View",
    "TextView",
    "ImageView",
    "CardView",
    "RecyclerView",
    "ListView",
    "ScrollView",
    "NestedScrollView",
    "ComposeView",
];

/// The element list as the model reads it, one line an element:
/// `3 Switch "Wi-Fi — Off" off`, `7 SeekBar "Brightness level" x=96..984 y=860`.
pub fn element_lines(elements: &[Element]) -> String {
    let mut out = String::with_capacity(elements.len() * 32);
    for e in elements {
        let _ = write!(out, "{}", e.index);
        if !GENERIC_CLASSES.contains(&e.class.as_str()) {
            let _ = write!(out, " {}", e.class);
        }
        if !e.label.is_empty() {
            out.push(' ');
            quote_into(&mut out, &clip(&e.label, ELEMENT_LABEL_CHARS));
        }
        if !e.content_desc.is_empty() && e.content_desc != e.label {
            out.push_str(" desc=");
            quote_into(&mut out, &clip(&e.content_desc, ELEMENT_LABEL_CHARS));
        }
        if !e.hint.is_empty() && e.hint != e.label {
            out.push_str(" hint=");
            quote_into(&mut out, &clip(&e.hint, ELEMENT_LABEL_CHARS));
        }
        push_state(&mut out, e);
        if !e.context.is_empty() {
            out.push_str(" in ");
            quote_into(&mut out, &clip(&e.context, ELEMENT_LABEL_CHARS));
        }
        let unnamed = e.label.is_empty()
            && e.content_desc.is_empty()
            && e.hint.is_empty()
            && e.context.is_empty();
        if unnamed && !e.resource_id.is_empty() {
            let _ = write!(out, " id={}", e.resource_id);
        }
        if e.class.contains("SeekBar") {
            let b = e.bounds;
            let _ = write!(out, " x={}..{} y={}", b.left, b.right - 1, e.center.1);
        }
        out.push('\n');
    }
    out
}

/// The text part of a step's user message (see the module docs for the order).
pub fn user_text(
    constrain: Constrain,
    goal: &str,
    history: &[HistoryEntry],
    last_error: Option<&str>,
    elements: &[Element],
) -> String {
    let mut out = String::with_capacity(256 + elements.len() * 32 + history.len() * 40);
    out.push_str("Goal: ");
    out.push_str(goal);
    out.push('\n');
    let skipped = history.len().saturating_sub(HISTORY_STEPS);
    match (history.len(), skipped) {
        (0, _) => out.push_str("Actions so far: none\n"),
        (_, 0) => out.push_str("Actions so far:\n"),
        (_, n) => {
            let _ = writeln!(out, "Actions so far ({n} earlier not shown):");
        }
    }
    for (i, h) in history.iter().enumerate().skip(skipped) {
        let action = h.action.as_deref().unwrap_or("invalid answer");
        let _ = write!(out, "{}. {action}", i + 1);
        if !h.result.is_empty() && h.action.is_some() {
            let _ = write!(out, " -> {}", h.result);
        }
        out.push('\n');
    }
    if let Some(error) = last_error {
        let _ = writeln!(out, "Last answer invalid, not performed: {error}");
    }
    out.push_str("Screen:\n");
    if elements.is_empty() {
        out.push_str("(no elements)\n");
    } else {
        out.push_str(&element_lines(elements));
    }
    if constrain == Constrain::Off {
        out.push_str("Reason: …\nAction: {…}\n");
    }
    out
}

/// The chat-completions request body; under `schema`, with the step's
/// action schema (`elements` and `screen` bound it) as `response_format`.
pub(crate) fn request_body(
    config: &LlmConfig,
    text: String,
    screenshot: Option<&[u8]>,
    elements: usize,
    screen: (i32, i32),
) -> Value {
    let content = match screenshot {
        Some(png) => json!([
            {"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": data_url(png)}},
        ]),
        None => Value::String(text),
    };
    let mut body = json!({
        "model": config.model,
        "messages": [
            {"role": "system", "content": system_prompt(config.constrain, config.reason)},
            {"role": "user", "content": content},
        ],
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        "seed": config.seed,
    });
    if config.constrain == Constrain::Schema {
        body["response_format"] = response_format(action_schema(elements, screen, config.reason));
    }
    body
}

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;
