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
}

/// The do-nothing agent: declares the task complete at once.
#[derive(Debug, Default)]
pub struct Noop;

impl Agent for Noop {
    fn next(&mut self, _goal: &str, _observation: &Observation) -> Decision {
        Decision::Complete
    }
}
