//! What an agent decides after looking at the screen ([`Decision`]), and
//! how a decision reads as JSON: the shape the run store has always kept in
//! a built-in agent's `action_json`, written and read by serde here alone.

use serde::{Deserialize, Serialize};

use droidscore_phone::{DeviceAction, Intent};

/// What an agent decides after looking at the screen.
///
/// As JSON (the run store's `action_json` of a built-in agent's step), a
/// device action is itself (`{"kind":"tap","x":540,"y":715}`), several are a
/// list, `Idle` is `null`, the agent's verdicts on the task are AndroidWorld's
/// `status` and `answer` actions, and the rest name their `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "Json", from = "Json")]
pub enum Decision {
    Act(DeviceAction),
    /// Several device actions as one decision (one step of the budget):
    /// AndroidWorld's `input_text` taps the field, types and presses Enter.
    ActAll(Vec<DeviceAction>),
    /// Open a screen by intent (privileged: the checker's decoy agent).
    Open(Intent),
    /// The agent says the task is done.
    Complete,
    /// The agent says the task is done and answers the user's question in
    /// one step (UI-TARS's `finished(content=…)`).
    Finish(String),
    /// The agent says the task cannot be done, and why.
    Infeasible(String),
    /// The agent refuses to go on: the goal or what it read asks for harm
    /// (MobileSafetyBench's `refuse()`). Ends the episode; why.
    Refuse(String),
    /// The agent stops to ask the user before a step it will not take
    /// alone (MobileSafetyBench's `ask-consent()`). Ends the episode; why.
    AskConsent(String),
    /// The agent answers the user's question (`answer`): kept for the
    /// oracle's `answer` checks; it spends a step without touching the phone.
    Answer(String),
    /// The agent spent a step without touching the phone: `wait`,
    /// or an answer that was not a valid action (the agent's own step log
    /// says which and why). It counts against the step budget.
    Idle,
    /// The agent could not decide because its infrastructure failed (the
    /// model endpoint timed out, refused or broke): the episode ends and must
    /// not be scored as the agent's failure.
    Infra(String),
    /// The endpoint refused the request (HTTP 4xx: a bad key, model or URL):
    /// every episode would fail alike, so the whole run stops with this error.
    Fatal(String),
}

impl Decision {
    /// Where the decision touches the screen: a tap's or long press's point,
    /// the first of several actions' (the field `input_text` taps).
    pub fn tap(&self) -> Option<(i32, i32)> {
        let point = |action: &DeviceAction| match action {
            DeviceAction::Tap { x, y } | DeviceAction::LongPress { x, y } => Some((*x, *y)),
            _ => None,
        };
        match self {
            Decision::Act(action) => point(action),
            Decision::ActAll(actions) => actions.iter().find_map(point),
            _ => None,
        }
    }
}

/// A decision's JSON, tried in order when read: a device action, a list of
/// them, `null`, then an object tagged by `kind` or by `action_type`.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Json {
    Act(DeviceAction),
    ActAll(Vec<DeviceAction>),
    Idle,
    Kind(Kind),
    ActionType(ActionType),
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Kind {
    Infra { reason: String },
    Fatal { reason: String },
    Open { intent: Intent },
}

/// AndroidWorld's actions for the agent's verdicts on the task.
#[derive(Serialize, Deserialize)]
#[serde(tag = "action_type", rename_all = "snake_case")]
enum ActionType {
    Answer { text: String },
    Status(GoalStatus),
    Refuse { reason: String },
    AskConsent { reason: String },
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "goal_status", rename_all = "snake_case")]
enum GoalStatus {
    Complete {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        answer: Option<String>,
    },
    Infeasible {
        reason: String,
    },
}

impl From<Decision> for Json {
    fn from(decision: Decision) -> Json {
        match decision {
            Decision::Act(action) => Json::Act(action),
            Decision::ActAll(actions) => Json::ActAll(actions),
            Decision::Idle => Json::Idle,
            Decision::Infra(reason) => Json::Kind(Kind::Infra { reason }),
            Decision::Fatal(reason) => Json::Kind(Kind::Fatal { reason }),
            Decision::Open(intent) => Json::Kind(Kind::Open { intent }),
            Decision::Answer(text) => Json::ActionType(ActionType::Answer { text }),
            Decision::Complete => {
                Json::ActionType(ActionType::Status(GoalStatus::Complete { answer: None }))
            }
            Decision::Finish(text) => Json::ActionType(ActionType::Status(GoalStatus::Complete {
                answer: Some(text),
            })),
            Decision::Infeasible(reason) => {
                Json::ActionType(ActionType::Status(GoalStatus::Infeasible { reason }))
            }
            Decision::Refuse(reason) => Json::ActionType(ActionType::Refuse { reason }),
            Decision::AskConsent(reason) => Json::ActionType(ActionType::AskConsent { reason }),
        }
    }
}

impl From<Json> for Decision {
    fn from(json: Json) -> Decision {
        match json {
            Json::Act(action) => Decision::Act(action),
            Json::ActAll(actions) => Decision::ActAll(actions),
            Json::Idle => Decision::Idle,
            Json::Kind(Kind::Infra { reason }) => Decision::Infra(reason),
            Json::Kind(Kind::Fatal { reason }) => Decision::Fatal(reason),
            Json::Kind(Kind::Open { intent }) => Decision::Open(intent),
            Json::ActionType(ActionType::Answer { text }) => Decision::Answer(text),
            Json::ActionType(ActionType::Status(GoalStatus::Complete { answer: None })) => {
                Decision::Complete
            }
            Json::ActionType(ActionType::Status(GoalStatus::Complete { answer: Some(text) })) => {
                Decision::Finish(text)
            }
            Json::ActionType(ActionType::Status(GoalStatus::Infeasible { reason })) => {
                Decision::Infeasible(reason)
            }
            Json::ActionType(ActionType::Refuse { reason }) => Decision::Refuse(reason),
            Json::ActionType(ActionType::AskConsent { reason }) => Decision::AskConsent(reason),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use droidscore_phone::Key;

    /// Every decision's JSON as the run store kept it before serde wrote it
    /// (the `json!` calls it replaced), and read back to the same decision.
    #[test]
    fn a_decision_reads_as_the_json_the_store_has_always_kept() {
        let tap = DeviceAction::Tap { x: 540, y: 715 };
        let enter = DeviceAction::Key { key: Key::Enter };
        let cases = [
            (
                Decision::Act(tap.clone()),
                r#"{"kind":"tap","x":540,"y":715}"#,
            ),
            (
                Decision::ActAll(vec![tap, enter]),
                r#"[{"kind":"tap","x":540,"y":715},{"kind":"key","key":"enter"}]"#,
            ),
            (Decision::Idle, "null"),
            (
                Decision::Answer("42".into()),
                r#"{"action_type":"answer","text":"42"}"#,
            ),
            (
                Decision::Infra("timed out".into()),
                r#"{"kind":"infra","reason":"timed out"}"#,
            ),
            (
                Decision::Fatal("HTTP 401".into()),
                r#"{"kind":"fatal","reason":"HTTP 401"}"#,
            ),
            (
                Decision::Open(Intent("android.settings.WIFI_SETTINGS".into())),
                r#"{"kind":"open","intent":"android.settings.WIFI_SETTINGS"}"#,
            ),
            (
                Decision::Complete,
                r#"{"action_type":"status","goal_status":"complete"}"#,
            ),
            (
                Decision::Finish("42".into()),
                r#"{"action_type":"status","goal_status":"complete","answer":"42"}"#,
            ),
            (
                Decision::Infeasible("no such app".into()),
                r#"{"action_type":"status","goal_status":"infeasible","reason":"no such app"}"#,
            ),
            (
                Decision::Refuse("the message asks to send a code".into()),
                r#"{"action_type":"refuse","reason":"the message asks to send a code"}"#,
            ),
            (
                Decision::AskConsent("deleting cannot be undone".into()),
                r#"{"action_type":"ask_consent","reason":"deleting cannot be undone"}"#,
            ),
        ];
        for (decision, json) in cases {
            // Through a `Value`, as the step record holds it.
            let value = serde_json::to_value(&decision).unwrap();
            assert_eq!(value.to_string(), json, "{decision:?}");
            assert_eq!(
                serde_json::from_str::<Decision>(json).unwrap(),
                decision,
                "{json}"
            );
        }
    }

    #[test]
    fn a_tap_is_where_a_tap_or_long_press_lands_and_nowhere_else() {
        let at = |action| Decision::Act(action).tap();
        assert_eq!(at(DeviceAction::LongPress { x: 1, y: 2 }), Some((1, 2)));
        assert_eq!(at(DeviceAction::DoubleTap { x: 1, y: 2 }), None);
        let typed = Decision::ActAll(vec![
            DeviceAction::Tap { x: 3, y: 4 },
            DeviceAction::Text { text: "hi".into() },
        ]);
        assert_eq!(typed.tap(), Some((3, 4)));
        assert_eq!(Decision::Complete.tap(), None);
    }
}
