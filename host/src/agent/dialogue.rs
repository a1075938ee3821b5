//! The LLM agent's side of an episode apart from HTTP: what it remembers
//! (the actions so far and what came of them, the last answer's error, the
//! last screen) and the request body it sends for a screen. `LlmAgent`
//! drives it with the model's answers; `droidscore agent prompts` drives it
//! with the reference solver's decisions, so the prompts it dumps are the
//! ones a model would have been sent.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use serde_json::Value;

use super::action::Action;
use super::llm_config::LlmConfig;
use super::prompt::{self, HistoryEntry};
use droidscore_phone::uiautomator::Element;

fn digest(xml: &str) -> u64 {
    let mut h = DefaultHasher::new();
    xml.hash(&mut h);
    h.finish()
}

/// One episode's conversation state.
#[derive(Debug, Clone, Default)]
pub struct Dialogue {
    history: Vec<HistoryEntry>,
    last_error: Option<String>,
    /// Digest of the screen the last action was decided on.
    last_screen: Option<u64>,
    /// How long the history was when the last request was made: what the
    /// answer to it added starts there.
    asked_at: usize,
}

impl Dialogue {
    pub fn new() -> Dialogue {
        Dialogue::default()
    }

    /// Forget the episode.
    pub fn reset(&mut self) {
        *self = Dialogue::default();
    }

    /// The request body for this screen (`xml` is its dump, `elements` its
    /// element list, `screen` its size); the previous action's result is
    /// settled first, now that its screen is here.
    pub fn request(
        &mut self,
        config: &LlmConfig,
        goal: &str,
        xml: &str,
        elements: &[Element],
        screen: (i32, i32),
        screenshot: Option<&[u8]>,
    ) -> Value {
        let now = digest(xml);
        if let (Some(last), Some(entry)) = (self.last_screen, self.history.last_mut()) {
            if entry.action.is_some() && entry.result.is_empty() {
                entry.result = if last == now {
                    "no change".into()
                } else {
                    "screen changed".into()
                };
            }
        }
        self.last_screen = Some(now);
        self.asked_at = self.history.len();
        let text = prompt::user_text(
            config.constrain,
            goal,
            &self.history,
            self.last_error.as_deref(),
            elements,
        );
        prompt::request_body(config, text, screenshot, elements.len(), screen)
    }

    /// The answer was `action`, valid on the screen of `elements`; `idle`
    /// when it leaves the phone alone (`wait`, `answer`).
    pub fn acted(&mut self, action: &Action, elements: &[Element], idle: bool) {
        self.last_error = None;
        self.history.push(HistoryEntry {
            action: Some(prompt::history_action(action, elements)),
            result: if idle { "done".into() } else { String::new() },
        });
    }

    /// The phone refused the action last answered, for `why`: the history
    /// says it was not performed (never "screen changed"), and the next
    /// prompt says why.
    pub fn refused(&mut self, why: &str) {
        if let Some(entry) = self.history.last_mut() {
            entry.result = "not performed".into();
        }
        self.last_error = Some(why.to_string());
    }

    /// Teacher forcing: whatever the answer to the last request added
    /// (an action, or an invalid answer and its error) is replaced by
    /// `reference`, the action that was performed instead on the screen of
    /// `elements` (`idle` as in [`Dialogue::acted`]). `None` (a decision
    /// AndroidWorld's schema cannot say) leaves no entry.
    pub fn follow(&mut self, reference: Option<&Action>, elements: &[Element], idle: bool) {
        self.history.truncate(self.asked_at);
        self.last_error = None;
        if let Some(action) = reference {
            self.acted(action, elements, idle);
        }
    }

    /// The answer was not a valid action, for `reason`.
    pub fn invalid(&mut self, reason: String) {
        self.history.push(HistoryEntry {
            action: None,
            result: reason.clone(),
        });
        self.last_error = Some(reason);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::action::Target;

    fn text(body: &Value) -> String {
        body["messages"].to_string()
    }

    #[test]
    fn following_replaces_the_answer_and_its_error_with_the_reference() {
        let config = LlmConfig::new("http://127.0.0.1:0/v1", "m");
        let mut d = Dialogue::new();
        let _ = d.request(&config, "goal", "<a/>", &[], (1080, 2400), None);
        d.invalid("the answer is not JSON".into());
        d.follow(Some(&Action::OpenApp("Settings".into())), &[], false);
        let next = text(&d.request(&config, "goal", "<b/>", &[], (1080, 2400), None));
        assert!(next.contains("open_app Settings"), "{next}");
        assert!(!next.contains("not JSON"), "{next}");
        // A valid answer is replaced too, and only the last one.
        d.acted(&Action::Click(Target::Point { x: 1, y: 2 }), &[], false);
        d.follow(Some(&Action::NavigateBack), &[], false);
        let last = text(&d.request(&config, "goal", "<c/>", &[], (1080, 2400), None));
        assert!(
            last.contains("open_app Settings") && last.contains("navigate_back"),
            "{last}"
        );
        assert!(!last.contains("x=1 y=2"), "{last}");
    }
}
