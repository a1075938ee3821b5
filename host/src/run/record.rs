//! Recording what an agent sees and does, step by step, without the agent's
//! cooperation: a wrapper that digests each observation, keeps the compressed
//! dump (and screenshot, when the step had one), and the decision it returned
//! and how long it took. Agents that talk to a model add what only they know
//! (raw answer, tokens, why an answer was invalid) through `Agent::step_note`.
//! It is also where a stopping run ends the episode it is in: the next step
//! is not asked for (see [`Recording::abandon_when`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::agent::{Agent, Decision};
use crate::store::{gzip, sha256_hex, StepRecord};
use droidscore_phone::{DeviceAction, Observation};

/// Which episode the steps belong to.
#[derive(Debug, Clone)]
pub struct EpisodeKey {
    pub run_id: String,
    pub task: String,
    pub variant: String,
    pub repeat: u32,
}

pub struct Recording<'a> {
    inner: &'a mut dyn Agent,
    key: EpisodeKey,
    pub steps: Vec<StepRecord>,
    /// Set when the run is stopping: the episode ends before its next step.
    abandon: Option<&'a AtomicBool>,
}

impl std::fmt::Debug for Recording<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recording")
            .field("key", &self.key)
            .field("steps", &self.steps.len())
            .finish()
    }
}

impl<'a> Recording<'a> {
    pub fn new(inner: &'a mut dyn Agent, key: EpisodeKey) -> Self {
        Recording {
            inner,
            key,
            steps: Vec::new(),
            abandon: None,
        }
    }

    /// End the episode before its next step once `flag` is set (the run is
    /// stopping: interrupted, or its store can take no more): the agent is
    /// not asked again and the episode ends as [`Decision::Fatal`], which
    /// is never recorded, so `--resume` runs it again.
    pub fn abandon_when(mut self, flag: &'a AtomicBool) -> Self {
        self.abandon = Some(flag);
        self
    }
}

/// Why an abandoned episode ended (never stored: the episode is dropped).
pub(super) const ABANDONED: &str = "the run is stopping";

fn action_json(decision: &Decision) -> (serde_json::Value, Option<(i32, i32)>) {
    match decision {
        Decision::Act(action) => {
            let tap = match action {
                DeviceAction::Tap { x, y } | DeviceAction::LongPress { x, y } => Some((*x, *y)),
                _ => None,
            };
            (serde_json::to_value(action).unwrap_or_default(), tap)
        }
        Decision::ActAll(actions) => {
            let tap = actions.iter().find_map(|a| match a {
                DeviceAction::Tap { x, y } | DeviceAction::LongPress { x, y } => Some((*x, *y)),
                _ => None,
            });
            (serde_json::to_value(actions).unwrap_or_default(), tap)
        }
        Decision::Idle => (serde_json::Value::Null, None),
        Decision::Answer(text) => (
            serde_json::json!({"action_type": "answer", "text": text}),
            None,
        ),
        Decision::Infra(why) => (serde_json::json!({"kind": "infra", "reason": why}), None),
        Decision::Fatal(why) => (serde_json::json!({"kind": "fatal", "reason": why}), None),
        Decision::Open(intent) => (
            serde_json::json!({"kind": "open", "intent": intent.0}),
            None,
        ),
        Decision::Complete => (
            serde_json::json!({"action_type": "status", "goal_status": "complete"}),
            None,
        ),
        Decision::Finish(text) => (
            serde_json::json!({"action_type": "status", "goal_status": "complete", "answer": text}),
            None,
        ),
        Decision::Infeasible(why) => (
            serde_json::json!({"action_type": "status", "goal_status": "infeasible", "reason": why}),
            None,
        ),
    }
}

impl Agent for Recording<'_> {
    fn next(&mut self, goal: &str, observation: &Observation) -> Decision {
        if self
            .abandon
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
        {
            return Decision::Fatal(ABANDONED.into());
        }
        let started = Instant::now();
        let decision = self.inner.next(goal, observation);
        let latency_ms = started.elapsed().as_secs_f64() * 1e3;
        let (action, tap) = action_json(&decision);
        let note = self.inner.step_note();
        self.steps.push(StepRecord {
            run_id: self.key.run_id.clone(),
            task: self.key.task.clone(),
            variant: self.key.variant.clone(),
            repeat: self.key.repeat,
            index: self.steps.len() as u32,
            observation_digest: sha256_hex(observation.xml.as_bytes()),
            ui_dump_gz: gzip(&observation.xml),
            screenshot: observation.screenshot.clone(),
            raw_output: note
                .as_ref()
                .map(|n| n.raw_output.clone())
                .unwrap_or_default(),
            action: note
                .as_ref()
                .and_then(|n| n.action.clone())
                .unwrap_or(action),
            invalid_reason: note.as_ref().and_then(|n| n.invalid_reason.clone()),
            tap,
            prompt_tokens: note.as_ref().and_then(|n| n.prompt_tokens),
            cached_tokens: note.as_ref().and_then(|n| n.cached_tokens),
            completion_tokens: note.as_ref().and_then(|n| n.completion_tokens),
            latency_ms: note
                .as_ref()
                .and_then(|n| n.latency_ms)
                .unwrap_or(latency_ms),
            observe: observation.timing,
        });
        decision
    }

    fn wants_screenshot(&self) -> bool {
        self.inner.wants_screenshot()
    }
}
