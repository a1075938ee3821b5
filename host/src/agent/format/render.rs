//! Writing an action as each vision format writes it: the inverse of the
//! formats' parsers, for teacher forcing (`droidscore steps`). There the
//! reference's action, not the model's answer, was performed, and the next
//! request must recall it as the model would have written it: UI-TARS's
//! `Thought:`/`Action:` call, the `mobile_use` tool call (after Qwen3-VL's
//! `Action:` sentence, which is all its history keeps), AgentCPM-GUI's
//! compact JSON. Points go into the format's space from screen pixels,
//! rounded to whole numbers as the models write them: exact on a resized
//! image at least as large as the screen, within half a grid cell on a
//! relative grid (`render_tests.rs` pins `parse(render(a)) == a` to that).
//!
//! A decision a format has no action for (AgentCPM-GUI has no `open_app`
//! and no answer, UI-TARS and Qwen2.5-VL no answer) is written as a thought
//! that says what was done and no action ([`said`]): the history is then
//! true, and the turn's answer does not parse, as none could.

use serde_json::{json, Value};

use super::common::Geometry;
use super::AgentFormat;
use crate::agent::translate::scroll_direction;
use crate::agent::Decision;
use droidscore_phone::apps::APPS;
use droidscore_phone::{DeviceAction, Key};

impl Geometry {
    /// The model's whole-number point for the screen pixel `(x, y)`: the
    /// inverse of `to_screen`, kept inside the space.
    pub(crate) fn to_model(self, (x, y): (i32, i32)) -> (i64, i64) {
        let (sw, sh) = (f64::from(self.screen.0), f64::from(self.screen.1));
        let (mw, mh) = (f64::from(self.model.0), f64::from(self.model.1));
        let mx = (f64::from(x) * mw / sw).round() as i64;
        let my = (f64::from(y) * mh / sh).round() as i64;
        (
            mx.clamp(0, i64::from(self.limit.0)),
            my.clamp(0, i64::from(self.limit.1)),
        )
    }
}

/// The launcher's label of `package`, as the formats name apps.
fn label(package: &str) -> &str {
    APPS.iter()
        .find(|(_, p)| *p == package)
        .map_or(package, |(l, _)| l)
}

/// What `decision` does, in one imperative sentence (`target`: the label
/// of the element a tap lands on, when it has one).
pub fn sentence(decision: &Decision, target: Option<&str>) -> String {
    let on = |verb: &str, x: &i32, y: &i32| match target.filter(|t| !t.is_empty()) {
        Some(t) => format!("{verb} \"{t}\"."),
        None => format!("{verb} the point ({x}, {y})."),
    };
    match decision {
        Decision::Act(action) => match action {
            DeviceAction::Tap { x, y } => on("Tap", x, y),
            DeviceAction::LongPress { x, y } => on("Long-press", x, y),
            DeviceAction::DoubleTap { x, y } => on("Double-tap", x, y),
            DeviceAction::Text { text } => format!("Type \"{text}\"."),
            DeviceAction::Swipe { x1, y1, x2, y2, .. } => {
                format!("Scroll {}.", scroll_direction(x2 - x1, y2 - y1).name())
            }
            DeviceAction::Drag { .. } => "Drag.".into(),
            DeviceAction::Key { key } => match key {
                Key::Back => "Go back.".into(),
                Key::Home => "Go to the home screen.".into(),
                Key::Enter => "Press Enter.".into(),
            },
            DeviceAction::Keycode { code } => format!("Press key {code}."),
            DeviceAction::ClearText => "Clear the field.".into(),
            DeviceAction::Launch { package } => format!("Open {}.", label(package)),
        },
        Decision::ActAll(actions) => actions
            .iter()
            .map(|a| sentence(&Decision::Act(a.clone()), target))
            .collect::<Vec<_>>()
            .join(" "),
        Decision::Open(intent) => format!("Open {}.", intent.0),
        Decision::Complete => "The task is done.".into(),
        Decision::Finish(text) => format!("The task is done: {text}."),
        Decision::Infeasible(_) => "The task cannot be done.".into(),
        Decision::Refuse(_) => "Refuse to go on.".into(),
        Decision::AskConsent(_) => "Ask the user first.".into(),
        Decision::Answer(text) => format!("Answer \"{text}\"."),
        Decision::Idle => "Wait.".into(),
        Decision::Infra(_) | Decision::Fatal(_) => "Nothing was done.".into(),
    }
}

/// `decision` as `format` writes an answer, `None` when the format has no
/// action for it (then [`said`]). AndroidWorld has its own history
/// (`dialogue`): `None`.
pub fn render(
    format: AgentFormat,
    decision: &Decision,
    g: Geometry,
    target: Option<&str>,
) -> Option<String> {
    let thought = sentence(decision, target);
    match format {
        AgentFormat::AndroidWorld => None,
        AgentFormat::UiTars => {
            ui_tars(decision, g).map(|call| format!("Thought: {thought}\nAction: {call}"))
        }
        AgentFormat::QwenMobileUse => qwen(decision, g, false)
            .map(|args| format!("<tool_call>\n{}\n</tool_call>", tool_call(args))),
        AgentFormat::Qwen3MobileUse => qwen(decision, g, true).map(|args| {
            format!(
                "Thought: {thought}\nAction: {thought}\n<tool_call>\n{}\n</tool_call>",
                tool_call(args)
            )
        }),
        AgentFormat::AgentCpmGui => agentcpm(decision, g).map(|rest| {
            let head = json!({ "thought": thought }).to_string();
            if rest.is_empty() {
                head
            } else {
                format!("{},{rest}}}", &head[..head.len() - 1])
            }
        }),
    }
}

/// What was done, written where `format` writes its reasoning, with no
/// action: for a decision the format cannot say.
pub fn said(format: AgentFormat, decision: &Decision, target: Option<&str>) -> String {
    let thought = sentence(decision, target);
    match format {
        AgentFormat::AgentCpmGui => json!({ "thought": thought }).to_string(),
        AgentFormat::Qwen3MobileUse => format!("Thought: {thought}\nAction: {thought}"),
        _ => format!("Thought: {thought}"),
    }
}

fn tool_call(args: Value) -> String {
    json!({"name": "mobile_use", "arguments": args}).to_string()
}

/// A Python string literal in single quotes, as UI-TARS's `ast` reads it.
fn py(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\\' => out += "\\\\",
            '\'' => out += "\\'",
            '\n' => out += "\\n",
            '\t' => out += "\\t",
            '\r' => out += "\\r",
            c => out.push(c),
        }
    }
    out + "'"
}

fn ui_tars(decision: &Decision, g: Geometry) -> Option<String> {
    let point = |x: &i32, y: &i32| {
        let (mx, my) = g.to_model((*x, *y));
        py(&format!("({mx},{my})"))
    };
    Some(match decision {
        Decision::Act(action) => match action {
            DeviceAction::Tap { x, y } => format!("click(start_box={})", point(x, y)),
            DeviceAction::LongPress { x, y } => format!("long_press(start_box={})", point(x, y)),
            DeviceAction::Text { text } => format!("type(content={})", py(text)),
            DeviceAction::Key { key: Key::Enter } => format!("type(content={})", py("\n")),
            DeviceAction::Key { key: Key::Back } => "press_back()".into(),
            DeviceAction::Key { key: Key::Home } => "press_home()".into(),
            DeviceAction::Swipe { x1, y1, x2, y2, .. } => format!(
                "scroll(start_box={}, direction={})",
                point(x1, y1),
                py(scroll_direction(x2 - x1, y2 - y1).name())
            ),
            DeviceAction::Drag { x1, y1, x2, y2, .. } => format!(
                "drag(start_box={}, end_box={})",
                point(x1, y1),
                point(x2, y2)
            ),
            DeviceAction::Launch { package } => {
                format!("open_app(app_name={})", py(label(package)))
            }
            _ => return None,
        },
        Decision::ActAll(actions) => match actions.as_slice() {
            [DeviceAction::Text { text }, DeviceAction::Key { key: Key::Enter }] => {
                format!("type(content={})", py(&format!("{text}\n")))
            }
            _ => return None,
        },
        Decision::Complete => "finished()".into(),
        Decision::Finish(text) => format!("finished(content={})", py(text)),
        Decision::Infeasible(_) | Decision::AskConsent(_) => "call_user()".into(),
        Decision::Refuse(_) => "refuse()".into(),
        Decision::Idle => "wait()".into(),
        _ => return None,
    })
}

fn qwen(decision: &Decision, g: Geometry, v3: bool) -> Option<Value> {
    let point = |x: &i32, y: &i32| {
        let (mx, my) = g.to_model((*x, *y));
        json!([mx, my])
    };
    let button = |b: &str| json!({"action": "system_button", "button": b});
    Some(match decision {
        Decision::Act(action) => match action {
            DeviceAction::Tap { x, y } => json!({"action": "click", "coordinate": point(x, y)}),
            DeviceAction::LongPress { x, y } => {
                json!({"action": "long_press", "coordinate": point(x, y), "time": 2})
            }
            DeviceAction::Swipe { x1, y1, x2, y2, .. } => json!({
                "action": "swipe",
                "coordinate": point(x1, y1),
                "coordinate2": point(x2, y2),
            }),
            DeviceAction::Text { text } => json!({"action": "type", "text": text}),
            DeviceAction::Key { key: Key::Back } => button("Back"),
            DeviceAction::Key { key: Key::Home } => button("Home"),
            DeviceAction::Key { key: Key::Enter } => button("Enter"),
            DeviceAction::Launch { package } => json!({"action": "open", "text": label(package)}),
            _ => return None,
        },
        Decision::Answer(text) if v3 => json!({"action": "answer", "text": text}),
        Decision::Complete => json!({"action": "terminate", "status": "success"}),
        Decision::Infeasible(_) => json!({"action": "terminate", "status": "failure"}),
        Decision::Refuse(_) => json!({"action": "refuse"}),
        Decision::AskConsent(_) => json!({"action": "ask_consent"}),
        Decision::Idle => json!({"action": "wait", "time": 1}),
        _ => return None,
    })
}

/// AgentCPM-GUI's keys after `thought`, as JSON members without braces
/// (empty for none: a lone thought is not its answer to anything).
fn agentcpm(decision: &Decision, g: Geometry) -> Option<String> {
    let point = |x: &i32, y: &i32| {
        let (mx, my) = g.to_model((*x, *y));
        format!("\"POINT\":[{mx},{my}]")
    };
    Some(match decision {
        Decision::Act(action) => match action {
            DeviceAction::Tap { x, y } => point(x, y),
            DeviceAction::LongPress { x, y } => format!("{},\"duration\":1000", point(x, y)),
            DeviceAction::Swipe { x1, y1, x2, y2, .. } => {
                // `to` is the way the finger moves: against the scroll.
                let finger = match scroll_direction(x2 - x1, y2 - y1).name() {
                    "down" => "up",
                    "up" => "down",
                    "left" => "right",
                    _ => "left",
                };
                format!("{},\"to\":\"{finger}\"", point(x1, y1))
            }
            DeviceAction::Text { text } => format!("\"TYPE\":{}", json!(text)),
            DeviceAction::Key { key } => format!(
                "\"PRESS\":\"{}\"",
                match key {
                    Key::Back => "BACK",
                    Key::Home => "HOME",
                    Key::Enter => "ENTER",
                }
            ),
            _ => return None,
        },
        Decision::Complete => "\"STATUS\":\"finish\"".into(),
        Decision::Infeasible(_) => "\"STATUS\":\"impossible\"".into(),
        Decision::Refuse(_) => "\"STATUS\":\"interrupt\"".into(),
        Decision::AskConsent(_) => "\"STATUS\":\"need_feedback\"".into(),
        Decision::Idle => "\"duration\":200".into(),
        _ => return None,
    })
}
