//! Executing a plan: `jobs` worker threads each take the next planned episode,
//! run it on a fresh simulator with a fresh agent, and send the finished
//! episode with its steps to one writer, which commits it to the store in one
//! transaction. An episode that dies of infrastructure (the phone or the
//! endpoint) is retried once, then recorded as `infra` and kept out of the
//! success rate.

use std::collections::VecDeque;
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::SystemTime;

use super::plan::Planned;
use super::record::{EpisodeKey, Recording};
use crate::agent::Agent;
use crate::episode::{self, Episode};
use crate::oracle::Outcome;
use crate::sim::SimPhone;
use crate::store::{EpisodeRecord, EpisodeStatus, StepRecord, Store, StoreError};
use crate::task::Instance;

/// Builds the agent for one episode (instance, seed); an agent that cannot be
/// built is an infrastructure failure of that episode.
pub type AgentFactory<'a> =
    dyn Fn(&Instance, u64) -> Result<Box<dyn Agent + Send>, String> + Sync + 'a;

/// Attempts per episode: the first, and one retry after an infrastructure failure.
const ATTEMPTS: u32 = 2;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("run store: {0}")]
    Store(#[from] StoreError),
    #[error("{0}")]
    Setup(String),
    /// The endpoint refused a request (HTTP 4xx): the run stopped; what was
    /// committed before stays, and `--resume` continues once it is fixed.
    #[error("the run stopped: {0}")]
    Fatal(String),
}

fn now() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}

/// Why an attempt produced no episode.
enum Failure {
    /// Infrastructure: retry once, then record the episode as `infra`.
    Infra(String),
    /// The endpoint refused the request: stop the run.
    Fatal(String),
}

/// The outcome of one attempt: the episode, or why there is none.
fn attempt(
    planned: &Planned,
    run_id: &str,
    factory: &AgentFactory,
) -> Result<(Episode, Vec<StepRecord>), Failure> {
    let instance = planned.instance;
    let mut phone = SimPhone::new(instance.sim_config(planned.seed))
        .map_err(|e| Failure::Infra(e.to_string()))?;
    let mut agent =
        factory(instance, planned.seed).map_err(|e| Failure::Infra(format!("agent: {e}")))?;
    let key = EpisodeKey {
        run_id: run_id.to_string(),
        task: instance.task.clone(),
        variant: instance.variant.id.clone(),
        repeat: planned.repeat,
    };
    let mut recording = Recording::new(agent.as_mut(), key);
    let episode = episode::run(&mut phone, &mut recording, instance)
        .map_err(|e| Failure::Infra(format!("phone: {e}")))?;
    match &episode.end {
        crate::episode::End::Infra(why) => return Err(Failure::Infra(why.clone())),
        crate::episode::End::Fatal(why) => return Err(Failure::Fatal(why.clone())),
        _ => {}
    }
    Ok((episode, recording.steps))
}

fn run_one(
    planned: &Planned,
    run_id: &str,
    factory: &AgentFactory,
) -> Result<(EpisodeRecord, Vec<StepRecord>), String> {
    let started_at = now();
    let mut last_error = String::new();
    for attempts in 1..=ATTEMPTS {
        match attempt(planned, run_id, factory) {
            Ok((ep, steps)) => {
                let status = match (ep.success, ep.verdict.outcome) {
                    (true, _) => EpisodeStatus::Success,
                    (false, Outcome::Skipped) => EpisodeStatus::Skipped,
                    (false, _) => EpisodeStatus::Failure,
                };
                let invalid_steps =
                    steps.iter().filter(|s| s.invalid_reason.is_some()).count() as u32;
                let record = EpisodeRecord {
                    run_id: run_id.to_string(),
                    task: ep.task.clone(),
                    variant: ep.variant.clone(),
                    repeat: planned.repeat,
                    seed: planned.seed,
                    status,
                    end: serde_json::to_value(&ep.end).unwrap_or_default(),
                    verdict: serde_json::to_value(&ep.verdict).unwrap_or_default(),
                    reason: ep.reason.clone(),
                    steps: ep.steps,
                    invalid_steps,
                    attempts,
                    started_at,
                    ended_at: now(),
                };
                return Ok((record, steps));
            }
            Err(Failure::Fatal(why)) => return Err(why),
            Err(Failure::Infra(why)) => last_error = why,
        }
    }
    let instance = planned.instance;
    let record = EpisodeRecord {
        run_id: run_id.to_string(),
        task: instance.task.clone(),
        variant: instance.variant.id.clone(),
        repeat: planned.repeat,
        seed: planned.seed,
        status: EpisodeStatus::Infra,
        end: serde_json::json!({"end": "infra", "reason": last_error}),
        verdict: serde_json::Value::Null,
        reason: format!("infrastructure failure, {ATTEMPTS} attempts: {last_error}"),
        steps: 0,
        invalid_steps: 0,
        attempts: ATTEMPTS,
        started_at,
        ended_at: now(),
    };
    Ok((record, Vec::new()))
}

/// Run every planned episode on `jobs` threads; each finished episode is
/// committed before the next result is taken. Returns the episodes written.
pub fn execute(
    store: &Store,
    run_id: &str,
    planned: Vec<Planned>,
    jobs: usize,
    factory: &AgentFactory,
    progress: &indicatif::ProgressBar,
) -> Result<Vec<EpisodeRecord>, RunError> {
    let queue = Mutex::new(planned.into_iter().collect::<VecDeque<_>>());
    let (send, receive) = mpsc::channel::<Result<(EpisodeRecord, Vec<StepRecord>), String>>();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut written = Vec::new();
    std::thread::scope(|scope| -> Result<(), RunError> {
        for _ in 0..jobs.max(1) {
            let send = send.clone();
            let (queue, stop) = (&queue, &stop);
            scope.spawn(move || loop {
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    break;
                }
                let next = queue.lock().map(|mut q| q.pop_front()).unwrap_or(None);
                let Some(planned) = next else { break };
                if send.send(run_one(&planned, run_id, factory)).is_err() {
                    break;
                }
            });
        }
        drop(send);
        let mut fatal = None;
        for result in receive {
            let (record, steps) = match result {
                Ok(done) => done,
                Err(why) => {
                    // Stop handing out episodes; keep committing those that finish.
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    fatal.get_or_insert(why);
                    continue;
                }
            };
            progress.set_message(format!(
                "{}/{} #{}",
                record.task, record.variant, record.repeat
            ));
            store.record_episode(&record, &steps)?;
            progress.inc(1);
            written.push(record);
        }
        fatal.map_or(Ok(()), |why| Err(RunError::Fatal(why)))
    })?;
    Ok(written)
}
