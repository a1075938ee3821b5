//! Agents: something that looks at the phone and decides the next action.
//! Built in: `reference` (the task's reference solution, resolved against
//! each screen), `noop` (declares the task complete without acting),
//! `random` (a seeded random baseline) and `llm` (any OpenAI-compatible chat
//! endpoint answering in AndroidWorld's JSON action schema, `action`, or in
//! a model's own format, `format`).

pub mod action;
mod decision;
pub mod dialogue;
pub mod format;
pub mod http_client;
mod lexical;
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
pub use decision::Decision;
pub use format::AgentFormat;
pub use lexical::LexicalAgent;
pub use llm::{LlmAgent, LlmError};
pub use llm_config::{ApiKey, LlmConfig};
pub use prompt::element_lines;
pub use random::RandomAgent;
pub use reference::Solver;
pub use schema::Constrain;
pub use transport::InfraError;

use crate::store::StepRecord;
use droidscore_phone::Observation;

pub trait Agent {
    fn next(&mut self, goal: &str, observation: &Observation) -> Decision;

    /// Whether observations should carry a screenshot (the LLM agent sends it
    /// to the model unless `no_image`). Screenshots cost time: ~4 ms a step on
    /// the simulator, more on a phone.
    fn wants_screenshot(&self) -> bool {
        false
    }

    /// What only the agent knows about the step it just decided, as the
    /// run will record it: the model's raw answer, the action as the model
    /// wrote it (`null` when it did not parse), why an answer was invalid,
    /// tokens, and the time the agent took. The run completes the record
    /// with which episode and step it is, what the phone showed and where a
    /// tap landed (`run::record::Recording`). Built-in agents have
    /// none: the run records their decision and times it.
    fn step_record(&mut self) -> Option<StepRecord> {
        None
    }

    /// The phone refused the action just decided, for `why` (text `input
    /// text` cannot type without ADBKeyBoard, an app or intent it does not
    /// have): nothing was done. The step is invalid for that reason, and an
    /// agent that tells its model what came of each action says so in the
    /// next prompt. Built-in agents ignore it.
    fn refused(&mut self, why: &str) {
        let _ = why;
    }

    /// Offline (`droidscore steps`, teacher forcing): the answer just given
    /// was not performed; the reference's `reference` was, decided on
    /// `observation` (the screen the answer was given on too). An agent
    /// that keeps a history replaces its last entry (its answer) with the
    /// reference's action, written as the agent would have written it, so
    /// that the next request carries the reference's history. Built-in
    /// agents keep none and ignore it.
    fn follow(&mut self, reference: &Decision, observation: &Observation) {
        let _ = (reference, observation);
    }

    /// The request body the agent last sent its model, for the offline
    /// store; none for built-in agents.
    fn last_request(&self) -> Option<serde_json::Value> {
        None
    }
}

/// The do-nothing agent: declares the task complete at once.
#[derive(Debug, Default)]
pub struct Noop;

impl Agent for Noop {
    fn next(&mut self, _goal: &str, _observation: &Observation) -> Decision {
        Decision::Complete
    }
}
