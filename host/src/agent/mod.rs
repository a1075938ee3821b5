//! Agents: something that looks at the phone and decides the next action.
//! Built in: `reference` (the task's reference solution, resolved against
//! each screen), `noop` (declares the task complete without acting),
//! `random` (a seeded random baseline) and `llm` (any OpenAI-compatible chat
//! endpoint answering in AndroidWorld's JSON action schema, `action`, or in
//! a model's own format, `format`).

pub mod action;
pub mod dialogue;
pub mod format;
pub mod http_client;
mod llm;
mod llm_config;
mod prompt;
pub mod prompt_stats;
mod random;
mod reference;
pub mod schema;
pub mod translate;
mod transport;

pub use action::{parse_action, resolve, Action, ActionError, Resolved};
pub use format::AgentFormat;
pub use llm::{LlmAgent, LlmError, StepLog};
pub use llm_config::LlmConfig;
pub use prompt::{element_lines, system_prompt};
pub use random::RandomAgent;
pub use reference::Solver;
pub use schema::Constrain;
pub use transport::InfraError;

use droidscore_phone::{DeviceAction, Intent, Observation};

/// What an agent decides after looking at the screen.
#[derive(Debug, Clone, PartialEq)]
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

pub trait Agent {
    fn next(&mut self, goal: &str, observation: &Observation) -> Decision;

    /// Whether observations should carry a screenshot (the LLM agent sends it
    /// to the model unless `no_image`). Screenshots cost time: ~4 ms a step on
    /// the simulator, more on a phone.
    fn wants_screenshot(&self) -> bool {
        false
    }

    /// What only the agent knows about the step it just decided: the model's
    /// raw answer, tokens, why an answer was invalid. Built-in agents have none.
    fn step_note(&mut self) -> Option<StepNote> {
        None
    }
}

/// An agent's own account of its last step, for the run store.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepNote {
    pub raw_output: String,
    /// The parsed action as JSON, when it parsed: AndroidWorld's schema, or
    /// the call as the agent format wrote it.
    pub action: Option<serde_json::Value>,
    pub invalid_reason: Option<String>,
    pub prompt_tokens: Option<u64>,
    /// Of `prompt_tokens`, those served from the server's prefix cache.
    pub cached_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    /// Model latency, when the agent measured it apart from its own work.
    pub latency_ms: Option<f64>,
}

/// The do-nothing agent: declares the task complete at once.
#[derive(Debug, Default)]
pub struct Noop;

impl Agent for Noop {
    fn next(&mut self, _goal: &str, _observation: &Observation) -> Decision {
        Decision::Complete
    }
}
