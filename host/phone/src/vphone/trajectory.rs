//! An agent's episode seen from the phone's side: every command a program
//! sent over adb, in order, with when it came, what kind it was and how it
//! exited; for each action (a tap, typed text, a key, an app started, a
//! setting written) the screen before and after it, by the digest of the
//! UI dump, and its step number. An agent that drives the phone itself
//! (`droidscore run --agent-cmd`) has no trajectory of its own to record:
//! this is it.
//!
//! While a trajectory is recorded the phone also enforces the episode's
//! step budget (the action after the last allowed one is refused, not run,
//! and the episode is over) and hides its `droidscore-sim` controls, as a
//! phone has none: an agent must not read the answer off the simulator.

use std::time::Instant;

use sha2::{Digest, Sha256};

use crate::sim::SimPhone;
use crate::{Observation, Phone};

/// What a command is to the episode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Acts on the phone: a step (`input`, `am start|broadcast|force-stop`,
    /// `monkey`, `settings put|delete`, `content insert|update|delete`,
    /// `svc`, `cmd connectivity airplane-mode …`, `cmd uimode night …`,
    /// `wm size|density VALUE`).
    Action,
    /// Reads the screen: `uiautomator dump`, `screencap`.
    Observation,
    /// Reads other state: `dumpsys`, `getprop`, `settings get|list`,
    /// `content query`, `pm`, `wm size|density`.
    Query,
    /// Anything else (`rm`, `ime`, `echo`, …).
    Other,
}

/// The kind of a command, by its words.
pub fn kind(args: &[String]) -> Kind {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["input", ..] | ["monkey", ..] | ["svc", ..] => Kind::Action,
        ["am", "start" | "start-activity" | "broadcast" | "force-stop" | "kill", ..] => {
            Kind::Action
        }
        ["settings", "put" | "delete" | "reset", ..] => Kind::Action,
        ["content", "insert" | "update" | "delete" | "call", ..] => Kind::Action,
        ["cmd", "connectivity", "airplane-mode", _, ..] | ["cmd", "uimode", "night", _, ..] => {
            Kind::Action
        }
        ["wm", "size" | "density", _, ..] => Kind::Action,
        ["uiautomator", "dump", ..] | ["screencap", ..] => Kind::Observation,
        ["dumpsys", ..] | ["getprop", ..] | ["pm", ..] | ["wm", ..] => Kind::Query,
        ["settings", ..] | ["content", ..] | ["cmd", ..] => Kind::Query,
        _ => Kind::Other,
    }
}

/// One command as the phone received it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Entry {
    /// Milliseconds since the trajectory started.
    pub at_ms: f64,
    pub argv: Vec<String>,
    pub kind: Kind,
    pub exit: u8,
    /// An action's step number, 1-based; none for a refused one.
    pub step: Option<u32>,
    /// An action refused because the step budget was spent.
    pub refused: bool,
    /// An action's screen before and after it: the sha256 of the UI dump.
    pub before: Option<String>,
    pub after: Option<String>,
    /// The UI dump before an action, and the screenshot (PNG) when the
    /// program took one since its last action, whole (for the store's step
    /// record and the trajectory viewer): a program that reads only dumps
    /// gets none, so a run's store holds the pictures its agent looked at.
    #[serde(skip)]
    pub before_xml: Option<String>,
    #[serde(skip)]
    pub before_png: Option<Vec<u8>>,
}

/// Called after each action that ran, with the phone, the screen it left
/// (the dump the trajectory read already) and the step number: what reads
/// the task's milestones as the episode goes.
pub type AfterAction = Box<dyn FnMut(&mut SimPhone, &Observation, u32) + Send>;

/// The log of one agent's episode, and its budget.
pub struct Trajectory {
    pub(super) started: Instant,
    pub entries: Vec<Entry>,
    /// Actions run so far.
    pub actions: u32,
    /// Actions allowed; none: no bound.
    pub budget: Option<u32>,
    /// An action came after the budget was spent.
    pub over_budget: bool,
    /// The program took a screenshot since its last action: the next
    /// action's step keeps the screen as a picture too (what it looked at).
    pub(super) looked: bool,
    pub(super) after_action: Option<AfterAction>,
}

impl std::fmt::Debug for Trajectory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trajectory")
            .field("entries", &self.entries.len())
            .field("actions", &self.actions)
            .field("budget", &self.budget)
            .field("over_budget", &self.over_budget)
            .finish()
    }
}

impl Trajectory {
    pub fn new(budget: Option<u32>, after_action: Option<AfterAction>) -> Trajectory {
        Trajectory {
            started: Instant::now(),
            entries: Vec::new(),
            actions: 0,
            budget,
            over_budget: false,
            looked: false,
            after_action,
        }
    }

    /// The entries and counts, without the hook (what a caller keeps).
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            entries: self.entries.clone(),
            actions: self.actions,
            observations: self
                .entries
                .iter()
                .filter(|e| e.kind == Kind::Observation)
                .count() as u32,
            over_budget: self.over_budget,
        }
    }
}

/// A trajectory as it stood when read.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Snapshot {
    pub entries: Vec<Entry>,
    pub actions: u32,
    pub observations: u32,
    pub over_budget: bool,
}

/// The phone's screen now (with `shot`, its screenshot too) and the sha256
/// of its UI dump; none when the simulator cannot lay it out.
pub(super) fn screen(sim: &mut SimPhone, shot: bool) -> (String, Option<Observation>) {
    let seen = sim.observe(shot).ok();
    let xml = seen.as_ref().map_or("", |o| o.xml.as_str());
    (format!("{:x}", Sha256::digest(xml.as_bytes())), seen)
}
