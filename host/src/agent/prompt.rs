//! The chat messages the LLM agent sends: a system prompt describing
//! AndroidWorld's action schema and the answer format its M3A/T3A agents use
//! (`Reason: …` then `Action: {json}`), and one user message per step with the
//! goal, the history, the previous answer's error, the numbered element list
//! and (unless `no_image`) the screenshot as an `image_url` part.

use base64::Engine as _;
use serde_json::{json, Value};

pub const SYSTEM_PROMPT: &str = r#"You operate an Android phone for a user. At each step you see the user's goal, what you did so far, the phone's screen as a numbered list of UI elements (and, when available, a screenshot), and you answer with exactly ONE action as a JSON object.

Actions (JSON format):
- Tap an element by its index: {"action_type": "click", "index": <index>}
- Tap a screen point in pixels: {"action_type": "click", "x": <x>, "y": <y>}
- Long press an element: {"action_type": "long_press", "index": <index>}
- Type text into a field (taps the field, types, presses Enter): {"action_type": "input_text", "text": "<text>", "index": <index>}
- Press Enter: {"action_type": "keyboard_enter"}
- Scroll the screen, or one scrollable element, to reveal content in a direction ("down" shows what is below): {"action_type": "scroll", "direction": "<up|down|left|right>", "index": <optional index>}
- Go back: {"action_type": "navigate_back"}
- Go to the home screen: {"action_type": "navigate_home"}
- Open an app by name: {"action_type": "open_app", "app_name": "<name>"}
- Wait for the screen to update: {"action_type": "wait"}
- Answer the user's question: {"action_type": "answer", "text": "<answer>"}
- The goal is achieved: {"action_type": "status", "goal_status": "complete"}
- The goal cannot be achieved: {"action_type": "status", "goal_status": "infeasible"}

Rules:
- Use only indexes from the current element list; an element's line ends with its centre @x,y.
- If the goal is already achieved, declare it complete.
- Use no other fields than the ones shown. An answer that is not exactly one valid action is not performed and still uses up a step.

Answer in this format:
Reason: <one or two sentences>
Action: {"action_type": ...}"#;

/// One past step, as the model is reminded of it.
#[derive(Debug, Clone)]
pub struct HistoryEntry {
    /// The action's JSON, or `None` for an invalid answer.
    pub action: Option<String>,
    /// What came of it: "the screen changed", or why the answer was invalid.
    pub result: String,
}

/// The text part of a step's user message.
pub fn user_text(
    goal: &str,
    history: &[HistoryEntry],
    last_error: Option<&str>,
    elements: &str,
) -> String {
    let mut out = String::with_capacity(256 + elements.len() + history.len() * 80);
    out.push_str("Goal: ");
    out.push_str(goal);
    out.push_str("\n\nHistory:\n");
    if history.is_empty() {
        out.push_str("No actions yet.\n");
    }
    for (i, h) in history.iter().enumerate() {
        let action = h.action.as_deref().unwrap_or("invalid answer");
        out.push_str(&format!("Step {}: {action} -> {}\n", i + 1, h.result));
    }
    if let Some(error) = last_error {
        out.push_str("\nYour previous answer was not a valid action: ");
        out.push_str(error);
        out.push_str(
            ". It was not performed. Answer with exactly one action in the JSON format.\n",
        );
    }
    out.push_str("\nUI elements on the current screen (index class \"label\" state id @centre):\n");
    if elements.is_empty() {
        out.push_str("(none)\n");
    } else {
        out.push_str(elements);
    }
    out.push_str("\nReason: ...\nAction: {\"action_type\": ...}\n");
    out
}

/// The chat-completions request body.
pub fn request_body(
    model: &str,
    temperature: f32,
    max_tokens: u32,
    seed: u64,
    text: String,
    screenshot: Option<&[u8]>,
) -> Value {
    let content = match screenshot {
        Some(png) => json!([
            {"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": data_url(png)}},
        ]),
        None => Value::String(text),
    };
    json!({
        "model": model,
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": content},
        ],
        "temperature": temperature,
        "max_tokens": max_tokens,
        "seed": seed,
    })
}

pub fn data_url(png: &[u8]) -> String {
    let mut url = String::from("data:image/png;base64,");
    base64::engine::general_purpose::STANDARD.encode_string(png, &mut url);
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_user_message_carries_goal_history_error_and_elements() {
        let history = [
            HistoryEntry {
                action: Some(r#"{"action_type":"open_app","app_name":"Settings"}"#.into()),
                result: "the screen changed".into(),
            },
            HistoryEntry {
                action: None,
                result: "no JSON object in the answer".into(),
            },
        ];
        let text = user_text(
            "Turn on Wi-Fi.",
            &history,
            Some("no JSON object in the answer"),
            "0 LinearLayout \"Wi-Fi — Off\" @540,400\n",
        );
        insta::assert_snapshot!(text);
    }

    #[test]
    fn no_image_sends_plain_text_content() {
        let body = request_body("m", 0.0, 64, 1, "hi".into(), None);
        assert_eq!(body["messages"][1]["content"], "hi");
        let body = request_body("m", 0.0, 64, 1, "hi".into(), Some(b"\x89PNG"));
        assert_eq!(body["messages"][1]["content"][1]["type"], "image_url");
        assert_eq!(
            body["messages"][1]["content"][1]["image_url"]["url"],
            "data:image/png;base64,iVBORw=="
        );
    }
}
