//! The action space of one step as a JSON schema, sent as the request's
//! `response_format` under `--constrain schema` so that a server decoding
//! under the schema (llguidance in mistral.rs, outlines or xgrammar in vLLM,
//! llama.cpp's grammar) can only produce a valid action.
//!
//! Shape: one flat object, `{"reason": "…", "action_type": "click",
//! "index": 3}`, as an `anyOf` with one branch per action form. `reason`
//! comes first in every branch: llguidance fixes the property order to the
//! order of `properties`, so the model writes its reason before it commits
//! to an action. `--reason short` caps it at a few words (`maxLength`
//! [`SHORT_REASON_MAX_CHARS`]) and `--reason off` leaves it out of every
//! branch, so the answer is the action alone: fewer tokens decoded a step. Every branch requires its fields and sets
//! `additionalProperties: false`; `action_type` is a `const`. The bounds
//! come from the step's screen: `index` is `0..=n-1` over its element list
//! (and the index forms are left out when the list is empty), `x`/`y` lie
//! on the screen, `app_name` is one of the launcher's labels, `direction`
//! and `goal_status` are enums, `keycode` is one of the `KEYCODE_*` names
//! Android knows, a drag's ends lie on the screen, and strings are capped so
//! an answer fits in `max_tokens`. Whatever validates here, `parse_action`
//! parses and `resolve` resolves. `unknown` (a step that does nothing) is
//! parsed but left out: a constrained model has no use for it.
//!
//! Keywords used, and only these: `anyOf`, `type`, `const`, `enum`,
//! `properties`, `required`, `additionalProperties`, `minimum`, `maximum`,
//! `minLength`, `maxLength` — the common subset of llguidance
//! (docs/json_schema.md in guidance-ai/llguidance), outlines, xgrammar and
//! llama.cpp's schema converter. No `oneOf` (llguidance turns it into
//! `anyOf` only when it can prove them equal), no `$ref`, no `pattern`.

use serde_json::{json, Map, Value};

use droidscore_phone::apps::app_labels;
use droidscore_phone::keycode;

/// `reason` at most this many characters (about 30 tokens): enough for one
/// sentence, and it keeps the whole answer well inside `max_tokens`.
pub(crate) const REASON_MAX_CHARS: u64 = 120;
/// `reason` at most this many characters under `--reason short` (about 8
/// tokens): a few words ("open Network & internet"), for a cheaper step.
pub(crate) const SHORT_REASON_MAX_CHARS: u64 = 32;
/// `text` of `input_text` and `answer` at most this many characters.
pub(crate) const TEXT_MAX_CHARS: u64 = 100;

/// Whether each request carries the step's schema (`--constrain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Constrain {
    /// `response_format` json_schema: the answer is one JSON object.
    Schema,
    /// No `response_format`: the answer is `Reason: …` then `Action: {…}`.
    #[default]
    Off,
}

impl Constrain {
    pub fn name(self) -> &'static str {
        match self {
            Constrain::Schema => "schema",
            Constrain::Off => "off",
        }
    }
}

/// How much of a `reason` the constrained answer carries (`--reason`):
/// every token of it is decoded before the action, so a shorter one is a
/// cheaper step on a small CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reason {
    /// One sentence, at most [`REASON_MAX_CHARS`].
    #[default]
    Full,
    /// A few words, at most [`SHORT_REASON_MAX_CHARS`].
    Short,
    /// No `reason` field: the answer is the action alone.
    Off,
}

impl Reason {
    pub fn name(self) -> &'static str {
        match self {
            Reason::Full => "full",
            Reason::Short => "short",
            Reason::Off => "off",
        }
    }
}

/// The name `response_format.json_schema.name` carries.
pub(crate) const SCHEMA_NAME: &str = "android_action";

/// One branch: `reason` (unless `--reason off`), `action_type` and
/// `fields` (name, schema, required), in that order.
fn branch(reason: Reason, action: &str, fields: &[(&str, &Value, bool)]) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    let cap = match reason {
        Reason::Full => Some(REASON_MAX_CHARS),
        Reason::Short => Some(SHORT_REASON_MAX_CHARS),
        Reason::Off => None,
    };
    if let Some(cap) = cap {
        properties.insert("reason".into(), json!({"type": "string", "maxLength": cap}));
        required.push(json!("reason"));
    }
    properties.insert("action_type".into(), json!({"const": action}));
    required.push(json!("action_type"));
    for (name, schema, needed) in fields {
        properties.insert((*name).into(), (*schema).clone());
        if *needed {
            required.push(json!(name));
        }
    }
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// The schema of a valid action on a screen with `elements` elements and
/// the given size in pixels, with `reason` as `--reason` says (see the
/// module docs).
pub(crate) fn action_schema(elements: usize, (width, height): (i32, i32), reason: Reason) -> Value {
    let branch = |action: &str, fields: &[(&str, &Value, bool)]| branch(reason, action, fields);
    let index =
        (elements > 0).then(|| json!({"type": "integer", "minimum": 0, "maximum": elements - 1}));
    let text = json!({"type": "string", "minLength": 1, "maxLength": TEXT_MAX_CHARS});
    let direction = json!({"type": "string", "enum": ["up", "down", "left", "right"]});
    let app = json!({"type": "string", "enum": app_labels()});
    let status = json!({"type": "string", "enum": ["complete", "infeasible"]});

    let clear = json!({"type": "boolean"});
    let keycode = json!({"type": "string", "enum": keycode::names().collect::<Vec<_>>()});

    let mut any = Vec::new();
    let on_screen = (width > 0 && height > 0).then(|| {
        (
            json!({"type": "integer", "minimum": 0, "maximum": width - 1}),
            json!({"type": "integer", "minimum": 0, "maximum": height - 1}),
        )
    });
    for tap in ["click", "double_tap"] {
        if let Some(index) = &index {
            any.push(branch(tap, &[("index", index, true)]));
        }
        if let Some((x, y)) = &on_screen {
            any.push(branch(tap, &[("x", x, true), ("y", y, true)]));
        }
    }
    if let Some(index) = &index {
        any.push(branch("long_press", &[("index", index, true)]));
        any.push(branch(
            "input_text",
            &[
                ("text", &text, true),
                ("index", index, false),
                ("clear_text", &clear, false),
            ],
        ));
    } else {
        any.push(branch(
            "input_text",
            &[("text", &text, true), ("clear_text", &clear, false)],
        ));
    }
    match &index {
        Some(index) => any.push(branch(
            "scroll",
            &[("direction", &direction, true), ("index", index, false)],
        )),
        None => any.push(branch("scroll", &[("direction", &direction, true)])),
    }
    any.push(branch("swipe", &[("direction", &direction, true)]));
    if let Some((x, y)) = &on_screen {
        any.push(branch(
            "drag",
            &[
                ("start_x", x, true),
                ("start_y", y, true),
                ("end_x", x, true),
                ("end_y", y, true),
            ],
        ));
    }
    any.push(branch("press_keyboard", &[("keycode", &keycode, true)]));
    for bare in [
        "keyboard_enter",
        "navigate_back",
        "navigate_home",
        "wait",
        "refuse",
        "ask_consent",
    ] {
        any.push(branch(bare, &[]));
    }
    any.push(branch("open_app", &[("app_name", &app, true)]));
    any.push(branch("answer", &[("text", &text, true)]));
    any.push(branch("status", &[("goal_status", &status, true)]));
    json!({ "anyOf": any })
}

/// OpenAI's `response_format` carrying `schema`.
pub fn response_format(schema: Value) -> Value {
    json!({
        "type": "json_schema",
        "json_schema": {"name": SCHEMA_NAME, "schema": schema, "strict": true},
    })
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
