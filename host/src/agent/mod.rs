//! Agents: something that looks at the phone and decides the next action.
//! Built in: `reference` (the task's reference solution, resolved against
//! each screen), `noop` (declares the task complete without acting),
//! `random` (a seeded random baseline) and `llm` (any OpenAI-compatible chat
//! endpoint answering in AndroidWorld's JSON action schema, `action`).

pub mod action;
mod llm;
mod prompt;
mod random;
mod reference;
mod transport;

pub use action::{parse_action, resolve, Action, ActionError, Resolved};
pub use llm::{LlmAgent, LlmConfig, LlmError, StepLog};
pub use random::RandomAgent;
pub use reference::Solver;
pub use transport::InfraError;

use crate::phone::{DeviceAction, Intent, Observation};

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
    /// The agent says the task cannot be done, and why.
    Infeasible(String),
    /// The agent spent a step without touching the phone: `wait`, `answer`,
    /// or an answer that was not a valid action (the agent's own step log
    /// says which and why). It counts against the step budget.
    Idle,
    /// The agent could not decide because its infrastructure failed (the
    /// model endpoint timed out, refused or broke): the episode ends and must
    /// not be scored as the agent's failure.
    Infra(String),
}

pub trait Agent {
    fn next(&mut self, goal: &str, observation: &Observation) -> Decision;

    /// Whether observations should carry a screenshot (the LLM agent sends it
    /// to the model unless `no_image`). Screenshots cost time on real phones.
    fn wants_screenshot(&self) -> bool {
        false
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
