//! Executing a plan: one worker thread per backend (a simulator per job, one
//! per adb phone) takes the next planned episode, has its backend prepare a
//! phone in the task's initial state, runs it with a fresh agent, and sends
//! the finished episode with its steps to one writer, which commits it to
//! the store in one transaction. An episode that dies of infrastructure (the
//! phone or the endpoint) is retried once, then recorded as `infra` and kept
//! out of the success rate.

use std::collections::VecDeque;
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::SystemTime;

use super::plan::Planned;
use super::record::{EpisodeKey, Recording};
use crate::agent::Agent;
use crate::episode::{self, Episode};
use crate::oracle::Outcome;
use crate::phone::{Backend, Prepared};
use crate::store::{EpisodeRecord, EpisodeStatus, StepRecord, Store, StoreError};
use crate::task::Instance;

/// Builds the agent for one episode (instance, seed); an agent that cannot be
/// built is an infrastructure failure of that episode.
pub type AgentFactory<'a> =
    dyn Fn(&Instance, u64) -> Result<Box<dyn Agent + Send>, String> + Sync + 'a;

/// Attempts per episode: the first, and one retry after an infrastructure failure.
const ATTEMPTS: u32 = 2;

/// What an attempt produced.
enum Attempted {
    Ran(Episode, Vec<StepRecord>),
    /// The phone cannot run this instance: skipped, with the reason.
    Skipped(String),
}

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
    /// A phone went away and did not come back within its wait: its worker
    /// stopped, the episode it held is not recorded (so `--resume` runs it
    /// again), and the run stopped once the others finished.
    #[error("the run stopped: {0}")]
    PhoneGone(String),
}

/// What a worker sends the writer for one planned episode.
enum Done {
    Recorded(Box<EpisodeRecord>, Vec<StepRecord>),
    /// The endpoint refused: stop handing out episodes.
    Fatal(String),
    /// This worker's phone is gone: the worker stops.
    Gone(String),
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
    backend: &mut dyn Backend,
) -> Result<Attempted, Failure> {
    let instance = planned.instance;
    match backend.prepare(instance, planned.seed) {
        Ok(Prepared::Ready) => {}
        Ok(Prepared::Skip(why)) => return Ok(Attempted::Skipped(why)),
        Err(e) => return Err(Failure::Infra(e.to_string())),
    }
    let phone = backend.phone();
    let mut agent =
        factory(instance, planned.seed).map_err(|e| Failure::Infra(format!("agent: {e}")))?;
    let key = EpisodeKey {
        run_id: run_id.to_string(),
        task: instance.task.clone(),
        variant: instance.variant.id.clone(),
        repeat: planned.repeat,
    };
    let mut recording = Recording::new(agent.as_mut(), key);
    let episode = episode::run(phone, &mut recording, instance)
        .map_err(|e| Failure::Infra(format!("phone: {e}")))?;
    match &episode.end {
        crate::episode::End::Infra(why) => return Err(Failure::Infra(why.clone())),
        crate::episode::End::Fatal(why) => return Err(Failure::Fatal(why.clone())),
        _ => {}
    }
    Ok(Attempted::Ran(episode, recording.steps))
}

/// The record of an episode that was not scored (skipped, or lost to
/// infrastructure): no steps, no agent verdict.
#[allow(clippy::too_many_arguments)]
fn unscored(
    planned: &Planned,
    run_id: &str,
    status: EpisodeStatus,
    end: serde_json::Value,
    verdict: serde_json::Value,
    reason: String,
    attempts: u32,
    started_at: String,
) -> EpisodeRecord {
    let instance = planned.instance;
    EpisodeRecord {
        run_id: run_id.to_string(),
        task: instance.task.clone(),
        variant: instance.variant.id.clone(),
        repeat: planned.repeat,
        seed: planned.seed,
        status,
        end,
        verdict,
        reason,
        steps: 0,
        invalid_steps: 0,
        attempts,
        started_at,
        ended_at: now(),
    }
}

fn run_one(
    planned: &Planned,
    run_id: &str,
    factory: &AgentFactory,
    backend: &mut dyn Backend,
    progress: &indicatif::ProgressBar,
) -> Done {
    let started_at = now();
    let name = format!(
        "{}/{} #{}",
        planned.instance.task, planned.instance.variant.id, planned.repeat
    );
    // Said as it happens, above the progress bar (and without one).
    let say = |line: String| progress.suspend(|| eprintln!("{line}"));
    let mut last_error = String::new();
    for attempts in 1..=ATTEMPTS {
        match attempt(planned, run_id, factory, backend) {
            Ok(Attempted::Skipped(why)) => {
                let record = unscored(
                    planned,
                    run_id,
                    EpisodeStatus::Skipped,
                    serde_json::json!({"end": "skipped", "reason": why}),
                    serde_json::json!({
                        "outcome": "skipped",
                        "checks": [{"check": "initial state", "outcome": "skipped", "detail": why}],
                    }),
                    why,
                    attempts,
                    started_at,
                );
                return Done::Recorded(Box::new(record), Vec::new());
            }
            Ok(Attempted::Ran(ep, steps)) => {
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
                return Done::Recorded(Box::new(record), steps);
            }
            Err(Failure::Fatal(why)) => return Done::Fatal(why),
            Err(Failure::Infra(why)) => {
                // A lost phone: wait for it (bounded) before the retry or the
                // next episode. One that does not come back ends this worker,
                // and the episode stays unrecorded for `--resume`.
                say(format!(
                    "{name}: attempt {attempts} of {ATTEMPTS} failed: {why}"
                ));
                if let Err(e) = backend.recover() {
                    return Done::Gone(format!("{name}: {why}; then {e}"));
                }
                last_error = why;
            }
        }
    }
    say(format!(
        "{name}: recorded as an infrastructure failure after {ATTEMPTS} attempts"
    ));
    let record = unscored(
        planned,
        run_id,
        EpisodeStatus::Infra,
        serde_json::json!({"end": "infra", "reason": last_error}),
        serde_json::Value::Null,
        format!("infrastructure failure, {ATTEMPTS} attempts: {last_error}"),
        ATTEMPTS,
        started_at,
    );
    Done::Recorded(Box::new(record), Vec::new())
}

/// Run every planned episode on one thread per backend; each finished
/// episode is committed before the next result is taken. Returns the
/// episodes written.
pub fn execute(
    store: &Store,
    run_id: &str,
    planned: Vec<Planned>,
    backends: Vec<Box<dyn Backend>>,
    factory: &AgentFactory,
    progress: &indicatif::ProgressBar,
) -> Result<Vec<EpisodeRecord>, RunError> {
    if backends.is_empty() {
        return Err(RunError::Setup("no phone to run on".into()));
    }
    let queue = Mutex::new(planned.into_iter().collect::<VecDeque<_>>());
    let (send, receive) = mpsc::channel::<Done>();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut written = Vec::new();
    std::thread::scope(|scope| -> Result<(), RunError> {
        for mut backend in backends {
            let send = send.clone();
            let (queue, stop) = (&queue, &stop);
            scope.spawn(move || loop {
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    break;
                }
                let next = queue.lock().map(|mut q| q.pop_front()).unwrap_or(None);
                let Some(planned) = next else { break };
                let done = run_one(&planned, run_id, factory, backend.as_mut(), progress);
                let gone = matches!(done, Done::Gone(_));
                if send.send(done).is_err() || gone {
                    break;
                }
            });
        }
        drop(send);
        let mut fatal = None;
        let mut gone = Vec::new();
        for result in receive {
            let (record, steps) = match result {
                Done::Recorded(record, steps) => (*record, steps),
                Done::Fatal(why) => {
                    // Stop handing out episodes; keep committing those that finish.
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    fatal.get_or_insert(why);
                    continue;
                }
                Done::Gone(why) => {
                    // The other phones carry on with the queue.
                    progress.suspend(|| eprintln!("a phone is gone: {why}"));
                    gone.push(why);
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
        if let Some(why) = fatal {
            return Err(RunError::Fatal(why));
        }
        if !gone.is_empty() {
            return Err(RunError::PhoneGone(gone.join("; ")));
        }
        Ok(())
    })?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Solver;
    use crate::phone::{Phone, PhoneError};
    use crate::store::test_support::{self, ScratchDir};

    /// A backend of the kind a new phone would add: here it fails to prepare
    /// `failures` times, or skips every instance, around a simulated phone.
    struct Scripted {
        phone: Box<dyn Phone>,
        failures: u32,
        skip: Option<String>,
        /// Whether the phone comes back after a failure.
        back: bool,
        /// Whether every read of a setting fails as a lost phone's does.
        reads_lost: bool,
    }

    /// A phone whose setting reads fail as a lost phone's do, so only the
    /// oracle notices (acting still works).
    struct ReadsLost {
        inner: Box<dyn Phone>,
        lost: Option<String>,
    }

    impl Phone for ReadsLost {
        fn capabilities(&self) -> crate::phone::Capabilities {
            self.inner.capabilities()
        }
        fn observe(&mut self, shot: bool) -> Result<crate::phone::Observation, PhoneError> {
            self.inner.observe(shot)
        }
        fn act(&mut self, action: &crate::phone::DeviceAction) -> Result<(), PhoneError> {
            self.inner.act(action)
        }
        fn read_setting(
            &mut self,
            _: &crate::phone::SettingKey,
        ) -> Result<Option<String>, PhoneError> {
            self.lost = Some("phone S lost: closed".into());
            Err(PhoneError::Device("phone S lost: closed".into()))
        }
        fn open(&mut self, intent: &crate::phone::Intent) -> Result<(), PhoneError> {
            self.inner.open(intent)
        }
        fn lost(&self) -> Option<&str> {
            self.lost.as_deref()
        }
    }

    impl Backend for Scripted {
        fn prepare(&mut self, instance: &Instance, _seed: u64) -> Result<Prepared, PhoneError> {
            if let Some(why) = &self.skip {
                return Ok(Prepared::Skip(why.clone()));
            }
            if self.failures > 0 {
                self.failures -= 1;
                return Err(PhoneError::Device("phone S: unplugged".into()));
            }
            self.phone = crate::test_phone::for_instance(instance);
            if self.reads_lost {
                let inner = std::mem::replace(
                    &mut self.phone,
                    crate::test_phone::with_setup(Default::default()),
                );
                self.phone = Box::new(ReadsLost { inner, lost: None });
            }
            Ok(Prepared::Ready)
        }

        fn phone(&mut self) -> &mut dyn Phone {
            self.phone.as_mut()
        }

        fn recover(&mut self) -> Result<(), PhoneError> {
            if self.back {
                return Ok(());
            }
            Err(PhoneError::Device("phone S: still away".into()))
        }
    }

    fn run_wifi_on(backend: Scripted) -> Result<Vec<EpisodeRecord>, RunError> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks");
        let tasks = crate::task::load_dir(&dir).unwrap();
        let instance = tasks.iter().find(|t| t.id == "wifi_on").unwrap().variants[0].clone();
        let scratch = ScratchDir::new("execute");
        let store = Store::open(scratch.join("runs.sqlite")).unwrap();
        store
            .create_run(&test_support::run("r", "2026-12-01T00:00:00Z"))
            .unwrap();
        let planned = vec![Planned {
            instance: &instance,
            repeat: 0,
            seed: 0,
        }];
        let factory = |inst: &Instance, _: u64| -> Result<Box<dyn Agent + Send>, String> {
            Ok(Box::new(Solver::new(inst.solution.clone())))
        };
        let bar = indicatif::ProgressBar::hidden();
        let written = execute(
            &store,
            "r",
            planned,
            vec![Box::new(backend)],
            &factory,
            &bar,
        );
        // What the store holds is what was written.
        let stored = store.episodes("r").unwrap().len();
        assert_eq!(stored, written.as_ref().map_or(0, Vec::len));
        written
    }

    fn scripted(failures: u32, skip: Option<&str>, back: bool) -> Scripted {
        Scripted {
            phone: crate::test_phone::with_setup(Default::default()),
            failures,
            skip: skip.map(str::to_string),
            back,
            reads_lost: false,
        }
    }

    #[test]
    fn a_check_that_cannot_read_a_lost_phone_is_infra_not_a_skip() {
        let record = one(Scripted {
            reads_lost: true,
            ..scripted(0, None, true)
        });
        assert_eq!(record.status, EpisodeStatus::Infra, "{}", record.reason);
        assert!(
            record
                .reason
                .contains("while the episode was scored: phone S lost: closed"),
            "{}",
            record.reason
        );
    }

    fn one(backend: Scripted) -> EpisodeRecord {
        let mut written = run_wifi_on(backend).unwrap();
        assert_eq!(written.len(), 1);
        written.remove(0)
    }

    #[test]
    fn a_failed_prepare_is_recovered_from_and_retried_once_then_recorded_as_infra() {
        let once = one(scripted(1, None, true));
        assert_eq!(once.status, EpisodeStatus::Success, "{}", once.reason);
        assert_eq!(once.attempts, 2);
        let twice = one(scripted(2, None, true));
        assert_eq!(twice.status, EpisodeStatus::Infra);
        assert_eq!(
            twice.reason,
            "infrastructure failure, 2 attempts: phone S: unplugged"
        );
    }

    #[test]
    fn a_phone_that_does_not_come_back_stops_the_run_and_leaves_its_episode_unrecorded() {
        let e = run_wifi_on(scripted(1, None, false)).unwrap_err();
        assert!(matches!(e, RunError::PhoneGone(_)), "{e:?}");
        assert_eq!(
            e.to_string(),
            "the run stopped: wifi_on/base #0: phone S: unplugged; then phone S: still away"
        );
    }

    #[test]
    fn an_instance_the_backend_cannot_set_up_is_skipped_with_its_reason() {
        let record = one(scripted(0, Some("no Wi-Fi on this phone"), true));
        assert_eq!(record.status, EpisodeStatus::Skipped);
        assert_eq!(record.reason, "no Wi-Fi on this phone");
        assert_eq!(record.steps, 0);
    }
}
