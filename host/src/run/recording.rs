//! Recording what an agent sees and does, step by step: a wrapper that
//! completes each step's [`StepRecord`] with which episode and step it is,
//! the observation's digest, its compressed dump (and screenshot, when the
//! step had one) and where the decision taps. An agent that talks to a model
//! starts the record with what only it knows (raw answer, the action as the
//! model wrote it, tokens, why an answer was invalid, its latency) through
//! `Agent::step_record`; a built-in agent's record is its decision, timed.
//! It is also where a stopping run ends the episode it is in: the next step
//! is not asked for (see [`Recording::abandon_when`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::agent::{Agent, Decision};
use crate::store::{gzip, sha256_hex, StepRecord};
use droidscore_phone::Observation;

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
    pub(crate) fn abandon_when(mut self, flag: &'a AtomicBool) -> Self {
        self.abandon = Some(flag);
        self
    }
}

/// Why an abandoned episode ended (never stored: the episode is dropped).
pub(super) const ABANDONED: &str = "the run is stopping";

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
        // The agent's own account of the step, or the run's of a built-in
        // agent: how long it took.
        let own = self.inner.step_record().unwrap_or(StepRecord {
            latency_ms,
            ..StepRecord::default()
        });
        self.steps.push(StepRecord {
            run_id: self.key.run_id.clone(),
            task: self.key.task.clone(),
            variant: self.key.variant.clone(),
            repeat: self.key.repeat,
            index: self.steps.len() as u32,
            observation_digest: sha256_hex(observation.xml.as_bytes()),
            ui_dump_gz: gzip(&observation.xml),
            screenshot: observation.screenshot.clone(),
            observe: observation.timing,
            // The action as the model wrote it, else the decision.
            action: match own.action {
                serde_json::Value::Null => serde_json::to_value(&decision).unwrap_or_default(),
                written => written,
            },
            tap: decision.tap(),
            ..own
        });
        decision
    }

    fn wants_screenshot(&self) -> bool {
        self.inner.wants_screenshot()
    }

    /// The step just recorded was refused by the phone: its invalid reason
    /// (after the agent's own, if it had one), and the agent is told.
    fn refused(&mut self, why: &str) {
        if let Some(step) = self.steps.last_mut() {
            step.invalid_reason = Some(match step.invalid_reason.take() {
                Some(own) => format!("{own}; {why}"),
                None => why.to_string(),
            });
        }
        self.inner.refused(why);
    }
}
