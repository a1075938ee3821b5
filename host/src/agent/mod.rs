//! Agents: something that looks at the phone and decides the next action.
//! Built in: `reference` (the task's reference solution, resolved against
//! each screen) and `noop` (declares the task complete without acting).

mod reference;

pub use reference::Solver;

use crate::phone::{DeviceAction, Intent, Observation};

/// What an agent decides after looking at the screen.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Act(DeviceAction),
    /// Open a screen by intent (privileged: the checker's decoy agent).
    Open(Intent),
    /// The agent says the task is done.
    Complete,
    /// The agent says the task cannot be done, and why.
    Infeasible(String),
}

pub trait Agent {
    fn next(&mut self, goal: &str, observation: &Observation) -> Decision;

    /// Whether observations should carry a screenshot (costs ~4 ms a step on
    /// the simulator, ~250 ms on a phone).
    fn wants_screenshot(&self) -> bool {
        false
    }

    /// What only the agent knows about the step it just decided: the model's
    /// raw answer, tokens, why an answer was invalid. Built-in agents have none.
    fn step_note(&mut self) -> Option<StepNote> {
        None
    }

    /// Set when the agent could not reach its model (timeouts, connection
    /// errors, 5xx after retries): the episode died of infrastructure and is
    /// not the agent's failure.
    fn infra_failure(&self) -> Option<String> {
        None
    }
}

/// An agent's own account of its last step, for the run store.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepNote {
    pub raw_output: String,
    /// The parsed action (AndroidWorld schema) as JSON, when it parsed.
    pub action: Option<serde_json::Value>,
    pub invalid_reason: Option<String>,
    pub prompt_tokens: Option<u64>,
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
