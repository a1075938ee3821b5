//! Executing a plan: one worker thread per backend (a simulator per job, one
//! per adb phone) takes the next planned episode, has its backend prepare a
//! phone in the task's initial state, runs it with a fresh agent, and sends
//! the finished episode with its steps to one writer, which commits it to
//! the store in one transaction. An episode that dies of infrastructure (the
//! phone or the endpoint) is retried once, then recorded as `infra` and kept
//! out of the success rate.
//!
//! A run can end early. An endpoint that refuses stops the handing out of
//! episodes; those running finish and are kept. A signal ([`Interrupt`]) or
//! a write the store refuses (a full disk) also ends the episodes in flight
//! at their next step, unrecorded: the writer stops between two commits, so
//! the store holds only whole episodes and `--resume` runs the rest.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use super::backend::{Backend, Prepared};
use super::interrupt::{signal_name, Interrupt};
use super::plan::Planned;
use super::recording::{EpisodeKey, Recording};
use crate::agent::Agent;
use crate::episode::{self, Episode};
use crate::oracle::{CheckResult, Outcome, Verdict};
use crate::store::{EpisodeRecord, EpisodeStatus, StepRecord, Store, StoreError};
use crate::task::{self, Instance, Instructions};

/// Builds the agent for one episode (instance, seed); an agent that cannot be
/// built is an infrastructure failure of that episode.
pub type AgentFactory<'a> =
    dyn Fn(&Instance, u64) -> Result<Box<dyn Agent + Send>, String> + Sync + 'a;

/// Attempts per episode: the first, and one retry after an infrastructure failure.
const ATTEMPTS: u32 = 2;

/// How often the writer, waiting for the next episode, looks whether a
/// signal asked the run to stop (the signal's thread cannot wake a channel
/// it does not hold; a tenth of a second is no delay to a person).
const INTERRUPT_POLL: Duration = Duration::from_millis(100);

/// What an attempt produced.
enum Attempted {
    /// The episode, its steps, and for a program (`--agent-cmd`) how it
    /// ran and what the phone saw, kept in the record's `end`.
    Ran(Box<Episode>, Vec<StepRecord>, Option<serde_json::Value>),
    /// The phone cannot run this instance: skipped, with the reason.
    Skipped(String),
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The store refused a write (its message names the file and why): the
    /// run stopped; what was committed before stays.
    #[error(transparent)]
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
    /// SIGINT or SIGTERM (its number) asked the run to stop: the episodes
    /// committed before it stay, those in flight were dropped.
    #[error("interrupted by {}", signal_name(*signal))]
    Interrupted { signal: i32 },
}

/// What a worker sends the writer for one planned episode.
enum Done {
    Recorded(Box<EpisodeRecord>, Vec<StepRecord>),
    /// The endpoint refused: stop handing out episodes.
    Fatal(String),
    /// This worker's phone is gone: the worker stops.
    Gone(String),
    /// The run is stopping and the episode was cut short: not recorded.
    Abandoned,
}

/// How the workers learn that the run ends early.
#[derive(Debug, Default)]
struct Halt {
    /// Take no new episode; those running finish and are kept.
    taking_none: AtomicBool,
    /// End the episodes in flight at their next step, unrecorded.
    abandon: AtomicBool,
}

impl Halt {
    fn take_next(&self) -> bool {
        !self.taking_none.load(Ordering::Relaxed) && !self.abandon.load(Ordering::Relaxed)
    }

    fn abandon(&self) {
        self.abandon.store(true, Ordering::Relaxed);
    }
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
    abandon: &AtomicBool,
) -> Result<Attempted, Failure> {
    // A condition that writes a key the task's initial state sets would
    // change the task: the pair is skipped (recorded, not failed).
    if let Some(why) = planned.instance.conflict(planned.condition) {
        return Ok(Attempted::Skipped(why));
    }
    // The step budget grows by the steps the condition costs the reference.
    let budgeted = crate::check::in_condition(planned.instance, planned.condition);
    let instance = &budgeted;
    backend
        .set_condition(planned.condition)
        .map_err(|e| Failure::Infra(format!("condition {}: {e}", planned.condition)))?;
    match backend.prepare(instance, planned.episode_seed) {
        Ok(Prepared::Ready) => {}
        Ok(Prepared::Skip(why)) => return Ok(Attempted::Skipped(why)),
        Err(e) => return Err(Failure::Infra(e.to_string())),
    }
    let key = EpisodeKey {
        run_id: run_id.to_string(),
        task: instance.task.clone(),
        variant: instance.variant.id.clone(),
        repeat: planned.repeat,
    };
    if let Some(cmd) = planned.agent_cmd {
        let played = crate::agent_cmd::play(
            cmd,
            backend,
            instance,
            planned.episode_seed,
            &instance.goal,
            planned.strict,
            &key,
            abandon,
        )
        .map_err(Failure::Infra)?;
        if let crate::episode::End::Infra(why) = &played.episode.end {
            return Err(Failure::Infra(why.clone()));
        }
        let program = serde_json::json!({"program": played.program, "phone_log": played.log});
        return Ok(Attempted::Ran(
            Box::new(played.episode),
            played.steps,
            Some(program),
        ));
    }
    let phone = backend.phone();
    let mut agent = factory(instance, planned.episode_seed)
        .map_err(|e| Failure::Infra(format!("agent: {e}")))?;
    let mut recording = Recording::new(agent.as_mut(), key).abandon_when(abandon);
    let guide = Guide::new(instance, planned.instructions, planned.episode_seed)
        .map_err(|why| Failure::Infra(format!("step instructions: {why}")))?;
    let goal = |reached: usize| guide.goal(instance, reached);
    let episode = episode::run_guided(phone, &mut recording, instance, &goal, planned.strict)
        .map_err(|e| Failure::Infra(format!("phone: {e}")))?;
    match &episode.end {
        crate::episode::End::Infra(why) => return Err(Failure::Infra(why.clone())),
        crate::episode::End::Fatal(why) => return Err(Failure::Fatal(why.clone())),
        _ => {}
    }
    Ok(Attempted::Ran(Box::new(episode), recording.steps, None))
}

/// What the agent is told each step. Under `--instructions steps`, the
/// goal and the reference steps that lead to the next milestone not yet
/// reached in order (`task::online_instruction`), so an agent that takes
/// its own way is told where the task goes from where it is, not where the
/// reference would be; once every milestone is reached, the goal alone.
enum Guide {
    Goal,
    Steps {
        instructions: Vec<String>,
        milestone_steps: Vec<usize>,
    },
}

impl Guide {
    /// The instructions are written from the screens of this episode's
    /// seed (a screen may show the clock); the milestones' reference steps
    /// from the reference's replay, which `tasks check` proves.
    fn new(instance: &Instance, level: Instructions, episode_seed: u64) -> Result<Guide, String> {
        Ok(match level {
            Instructions::Goal => Guide::Goal,
            Instructions::Steps => Guide::Steps {
                instructions: task::step_instructions_at(instance, episode_seed)?,
                milestone_steps: crate::check::milestone_steps(instance)?,
            },
        })
    }

    fn goal(&self, instance: &Instance, reached_in_order: usize) -> String {
        match self {
            Guide::Goal => instance.goal.clone(),
            Guide::Steps {
                instructions,
                milestone_steps,
            } => task::online_instruction(instructions, milestone_steps, reached_in_order)
                .map_or_else(
                    || instance.goal.clone(),
                    |step| task::goal_with_instruction(&instance.goal, &step),
                ),
        }
    }
}

/// How an episode ended, as its record tells it.
#[derive(Clone, Copy)]
enum Ended<'a> {
    /// The agent ran and the oracle scored the phone (with a program's run).
    Ran(&'a Episode, &'a [StepRecord], Option<&'a serde_json::Value>),
    /// The phone cannot run the instance: why.
    Skipped(&'a str),
    /// Every attempt died of infrastructure: the last one's error.
    Infra(&'a str),
}

/// The record of an episode as it ended: the one place a run builds one.
/// An episode that was not scored (skipped, or lost to infrastructure) has
/// no steps; one lost to infrastructure has no verdict either.
fn episode_record(
    planned: &Planned,
    run_id: &str,
    ended: Ended<'_>,
    attempts: u32,
    started_at: String,
) -> EpisodeRecord {
    let instance = planned.instance;
    let (status, end, verdict, reason) = match ended {
        Ended::Ran(ep, _, program) => {
            let status = match (ep.success, ep.verdict.outcome) {
                (true, _) => EpisodeStatus::Success,
                (false, Outcome::Skipped) => EpisodeStatus::Skipped,
                (false, _) => EpisodeStatus::Failure,
            };
            let mut end = serde_json::to_value(&ep.end).unwrap_or_default();
            if let (Some(end), Some(serde_json::Value::Object(program))) =
                (end.as_object_mut(), program)
            {
                end.extend(program.clone());
            }
            (status, end, Some(ep.verdict.clone()), ep.reason.clone())
        }
        Ended::Skipped(why) => {
            let verdict = Verdict::from_checks(vec![CheckResult {
                check: "initial state".into(),
                outcome: Outcome::Skipped,
                detail: why.into(),
            }]);
            let end = serde_json::json!({"end": "skipped", "reason": why});
            (EpisodeStatus::Skipped, end, Some(verdict), why.into())
        }
        Ended::Infra(why) => {
            let end = serde_json::json!({"end": "infra", "reason": why});
            let reason = format!("infrastructure failure, {attempts} attempts: {why}");
            (EpisodeStatus::Infra, end, None, reason)
        }
    };
    let (steps, invalid_steps, answer, progress) = match ended {
        Ended::Ran(ep, steps, _) => {
            // RRR's reference: the solution's device actions on the simulator.
            let reference = crate::check::reference_replay(instance).ok();
            let progress = crate::episode::Progress {
                reference_steps: reference.map(|r| r.steps),
                ..ep.progress.clone()
            };
            (
                ep.steps,
                steps.iter().filter(|s| s.invalid_reason.is_some()).count() as u32,
                ep.answer.clone(),
                Some(progress),
            )
        }
        Ended::Skipped(_) | Ended::Infra(_) => (0, 0, None, None),
    };
    EpisodeRecord {
        run_id: run_id.to_string(),
        task: instance.task.clone(),
        variant: instance.variant.id.clone(),
        repeat: planned.repeat,
        condition: planned.condition.to_string(),
        episode_seed: planned.episode_seed,
        status,
        end,
        verdict,
        reason,
        steps,
        invalid_steps,
        attempts,
        started_at,
        ended_at: now(),
        instance_seed: Some(instance.instance_seed),
        params: Some(instance.params.clone()),
        answer,
        progress,
    }
}

fn run_one(
    planned: &Planned,
    run_id: &str,
    factory: &AgentFactory,
    backend: &mut dyn Backend,
    progress: &indicatif::ProgressBar,
    abandon: &AtomicBool,
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
        let outcome = attempt(planned, run_id, factory, backend, abandon);
        // Whatever the attempt ended with, a stopping run does not record
        // it, retry it, or wait for a lost phone.
        if abandon.load(Ordering::Relaxed) {
            return Done::Abandoned;
        }
        match outcome {
            Ok(Attempted::Skipped(why)) => {
                let ended = Ended::Skipped(&why);
                let record = episode_record(planned, run_id, ended, attempts, started_at);
                return Done::Recorded(Box::new(record), Vec::new());
            }
            Ok(Attempted::Ran(ep, steps, program)) => {
                let ended = Ended::Ran(&ep, &steps, program.as_ref());
                let record = episode_record(planned, run_id, ended, attempts, started_at);
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
    let ended = Ended::Infra(&last_error);
    let record = episode_record(planned, run_id, ended, ATTEMPTS, started_at);
    Done::Recorded(Box::new(record), Vec::new())
}

/// Run every planned episode on one thread per backend; each finished
/// episode is committed before the next result is taken. Returns the
/// episodes written.
///
/// A signal that `interrupt` passes on while this runs, or a write the
/// store refuses, stops the run between two commits (see the module docs).
pub fn execute(
    store: &Store,
    run_id: &str,
    planned: Vec<Planned>,
    backends: Vec<Box<dyn Backend>>,
    factory: &AgentFactory,
    progress: &indicatif::ProgressBar,
    interrupt: &Interrupt,
) -> Result<Vec<EpisodeRecord>, RunError> {
    if backends.is_empty() {
        return Err(RunError::Setup("no phone to run on".into()));
    }
    let queue = Mutex::new(planned.into_iter().collect::<VecDeque<_>>());
    let (send, receive) = mpsc::channel::<Done>();
    let halt = Halt::default();
    let mut written = Vec::new();
    interrupt.begin();
    let result = std::thread::scope(|scope| -> Result<(), RunError> {
        for mut backend in backends {
            let send = send.clone();
            let (queue, halt) = (&queue, &halt);
            scope.spawn(move || {
                loop {
                    // Signalled: no new episode, even before the writer has seen it.
                    if !halt.take_next() || interrupt.signal().is_some() {
                        break;
                    }
                    let next = queue.lock().map(|mut q| q.pop_front()).unwrap_or(None);
                    let Some(planned) = next else { break };
                    let done = run_one(
                        &planned,
                        run_id,
                        factory,
                        backend.as_mut(),
                        progress,
                        &halt.abandon,
                    );
                    let gone = matches!(done, Done::Gone(_));
                    if gone {
                        // Its episode goes back for another phone, if one is left.
                        if let Ok(mut q) = queue.lock() {
                            q.push_front(planned);
                        }
                    }
                    if send.send(done).is_err() || gone {
                        break;
                    }
                }
                // The phone goes back to how it came, also when the run
                // stopped early (a signal, a lost phone, a fatal error).
                if let Err(e) = backend.restore_condition() {
                    progress.suspend(|| {
                        eprintln!("could not restore the phone's device condition: {e}")
                    });
                }
            });
        }
        drop(send);
        let mut fatal = None;
        let mut gone = Vec::new();
        loop {
            let next = receive.recv_timeout(INTERRUPT_POLL);
            // Asked to stop: before this episode is committed, not after.
            if let Some(signal) = interrupt.signal() {
                halt.abandon();
                return Err(RunError::Interrupted { signal });
            }
            let (record, steps) = match next {
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
                Ok(Done::Recorded(record, steps)) => (*record, steps),
                Ok(Done::Fatal(why)) => {
                    // Stop handing out episodes; keep committing those that finish.
                    halt.taking_none.store(true, Ordering::Relaxed);
                    fatal.get_or_insert(why);
                    continue;
                }
                Ok(Done::Gone(why)) => {
                    // The other phones carry on with the queue.
                    progress.suspend(|| eprintln!("a phone is gone: {why}"));
                    gone.push(why);
                    continue;
                }
                Ok(Done::Abandoned) => continue,
            };
            progress.set_message(format!(
                "{}/{} #{}",
                record.task, record.variant, record.repeat
            ));
            if let Err(e) = store.record_episode(&record, &steps) {
                // Results that cannot be stored are not worth running for.
                halt.abandon();
                return Err(e.into());
            }
            progress.inc(1);
            written.push(record);
        }
        if let Some(why) = fatal {
            return Err(RunError::Fatal(why));
        }
        // Lost phones' episodes that no other phone ran stop the run;
        // with every episode run by the phones left, it is complete.
        let left = queue.lock().map_or(0, |q| q.len());
        if !gone.is_empty() && left > 0 {
            return Err(RunError::PhoneGone(gone.join("; ")));
        }
        Ok(())
    });
    // A signal after the last commit still ends the process as interrupted.
    let signal = interrupt.end();
    result?;
    if let Some(signal) = signal {
        return Err(RunError::Interrupted { signal });
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Solver;
    use crate::store::test_support::{self, ScratchDir};
    use droidscore_phone::{Phone, PhoneError};
    use std::sync::Arc;

    /// A backend of the kind a new phone would add: here it fails to prepare
    /// `failures` times, or skips every instance, around a simulated phone.
    pub(super) struct Scripted {
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
        fn capabilities(&self) -> droidscore_phone::Capabilities {
            self.inner.capabilities()
        }
        fn observe(&mut self, shot: bool) -> Result<droidscore_phone::Observation, PhoneError> {
            self.inner.observe(shot)
        }
        fn act(&mut self, action: &droidscore_phone::DeviceAction) -> Result<(), PhoneError> {
            self.inner.act(action)
        }
        fn read_setting(
            &mut self,
            _: &droidscore_phone::SettingKey,
        ) -> Result<Option<String>, PhoneError> {
            self.lost = Some("phone S lost: closed".into());
            Err(PhoneError::Device("phone S lost: closed".into()))
        }
        fn open(&mut self, intent: &droidscore_phone::Intent) -> Result<(), PhoneError> {
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
            self.phone = crate::test_support::with_setup(instance.setup(0));
            if self.reads_lost {
                let inner = std::mem::replace(
                    &mut self.phone,
                    crate::test_support::with_setup(Default::default()),
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

    /// wifi_on's base variant, and a store holding run "r".
    fn wifi_on_and_a_store(name: &str) -> (Instance, ScratchDir, Store) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks");
        let tasks = crate::task::load_dir(&dir).unwrap();
        let instance = tasks.iter().find(|t| t.id == "wifi_on").unwrap().variants[0].clone();
        let scratch = ScratchDir::new(name);
        let store = Store::open(scratch.join("runs.sqlite")).unwrap();
        store
            .create_run(&test_support::run("r", "2026-12-01T00:00:00Z"))
            .unwrap();
        (instance, scratch, store)
    }

    fn run_wifi_on(backend: Scripted) -> Result<Vec<EpisodeRecord>, RunError> {
        let (instance, _scratch, store) = wifi_on_and_a_store("execute");
        let planned = vec![Planned {
            instance: &instance,
            repeat: 0,
            episode_seed: 0,
            strict: false,
            instructions: Instructions::Goal,
            agent_cmd: None,
            condition: droidscore_phone::Condition::Base,
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
            &Interrupt::new(),
        );
        // What the store holds is what was written.
        let stored = store.episodes("r").unwrap().len();
        assert_eq!(stored, written.as_ref().map_or(0, Vec::len));
        written
    }

    /// A backend whose phone goes for good, then says so on `gone`.
    struct GoesAway(Scripted, Arc<AtomicBool>);

    impl Backend for GoesAway {
        fn prepare(&mut self, instance: &Instance, seed: u64) -> Result<Prepared, PhoneError> {
            self.0.prepare(instance, seed)
        }
        fn phone(&mut self) -> &mut dyn Phone {
            self.0.phone()
        }
        fn recover(&mut self) -> Result<(), PhoneError> {
            let recovered = self.0.recover();
            self.1.store(true, Ordering::SeqCst);
            recovered
        }
    }

    /// A healthy backend that starts its first episode only once the other
    /// phone is gone (so the lost phone surely took one).
    struct Waits(Scripted, Arc<AtomicBool>);

    impl Backend for Waits {
        fn prepare(&mut self, instance: &Instance, seed: u64) -> Result<Prepared, PhoneError> {
            let started = std::time::Instant::now();
            while !self.1.load(Ordering::SeqCst) {
                assert!(started.elapsed() < std::time::Duration::from_secs(20));
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            self.0.prepare(instance, seed)
        }
        fn phone(&mut self) -> &mut dyn Phone {
            self.0.phone()
        }
        fn recover(&mut self) -> Result<(), PhoneError> {
            self.0.recover()
        }
    }

    #[test]
    fn with_two_phones_the_one_left_runs_the_lost_phones_episode_and_the_rest() {
        let (instance, _scratch, store) = wifi_on_and_a_store("execute-two");
        let planned: Vec<Planned> = (0..4)
            .map(|repeat| Planned {
                instance: &instance,
                repeat,
                episode_seed: 0,
                strict: false,
                instructions: Instructions::Goal,
                agent_cmd: None,
                condition: droidscore_phone::Condition::Base,
            })
            .collect();
        let factory = |inst: &Instance, _: u64| -> Result<Box<dyn Agent + Send>, String> {
            Ok(Box::new(Solver::new(inst.solution.clone())))
        };
        let gone = Arc::new(AtomicBool::new(false));
        let backends: Vec<Box<dyn Backend>> = vec![
            Box::new(GoesAway(scripted(1, None, false), Arc::clone(&gone))),
            Box::new(Waits(scripted(0, None, true), gone)),
        ];
        let bar = indicatif::ProgressBar::hidden();
        let written = execute(
            &store,
            "r",
            planned,
            backends,
            &factory,
            &bar,
            &Interrupt::new(),
        )
        .expect("the phone left ran everything: the run is complete");
        let mut repeats: Vec<u32> = written.iter().map(|e| e.repeat).collect();
        repeats.sort();
        assert_eq!(repeats, [0, 1, 2, 3], "each episode once");
        assert!(written.iter().all(|e| e.status == EpisodeStatus::Success));
        assert_eq!(store.episodes("r").unwrap().len(), 4);
    }

    pub(super) fn scripted(failures: u32, skip: Option<&str>, back: bool) -> Scripted {
        Scripted {
            phone: crate::test_support::with_setup(Default::default()),
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

/// A run cut short from inside: the store refusing a write, a signal.
#[cfg(test)]
mod stop_tests {
    use std::sync::atomic::AtomicU32;

    use super::*;
    use crate::agent::Solver;
    use crate::store::test_support::{self, ScratchDir};

    const PLANNED: u32 = 30;

    /// Runs `wifi_on` [`PLANNED`] times on one scripted backend; before each
    /// episode's agent is built, `before(repeat)` runs. Returns the result,
    /// how many agents were built, and the episodes the store holds.
    fn run_wifi_on(
        create_run: bool,
        interrupt: &Interrupt,
        before: &(dyn Fn(u64) + Sync),
    ) -> (Result<Vec<EpisodeRecord>, RunError>, u32, usize) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks");
        let tasks = crate::task::load_dir(&dir).unwrap();
        let instance = tasks.iter().find(|t| t.id == "wifi_on").unwrap().variants[0].clone();
        let scratch = ScratchDir::new("execute-stop");
        let store = Store::open(scratch.join("runs.sqlite")).unwrap();
        if create_run {
            store
                .create_run(&test_support::run("r", "2026-12-01T00:00:00Z"))
                .unwrap();
        }
        let planned = (0..PLANNED)
            .map(|repeat| Planned {
                instance: &instance,
                repeat,
                episode_seed: u64::from(repeat),
                strict: false,
                instructions: Instructions::Goal,
                agent_cmd: None,
                condition: droidscore_phone::Condition::Base,
            })
            .collect();
        let built = AtomicU32::new(0);
        let factory = |inst: &Instance, seed: u64| -> Result<Box<dyn Agent + Send>, String> {
            built.fetch_add(1, Ordering::Relaxed);
            before(seed);
            Ok(Box::new(Solver::new(inst.solution.clone())))
        };
        let bar = indicatif::ProgressBar::hidden();
        let backends: Vec<Box<dyn Backend>> = vec![Box::new(super::tests::scripted(0, None, true))];
        let result = execute(&store, "r", planned, backends, &factory, &bar, interrupt);
        let stored = store.episodes("r").unwrap().len();
        (result, built.load(Ordering::Relaxed), stored)
    }

    /// Every episode after the first is slow to start, so the writer has
    /// seen the first one's result before the second can end.
    fn slow_after_the_first(seed: u64) {
        if seed > 0 {
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    #[test]
    fn a_store_that_refuses_a_write_stops_the_run_before_the_rest_of_the_queue() {
        // No run record: the first commit fails (as a full disk would).
        let (result, built, stored) = run_wifi_on(false, &Interrupt::new(), &slow_after_the_first);
        let e = result.unwrap_err();
        assert!(
            matches!(e, RunError::Store(StoreError::UnknownRun { .. })),
            "{e:?}"
        );
        assert!(
            built <= 2,
            "{built} of {PLANNED} episodes started; only the one in flight may have"
        );
        assert_eq!(stored, 0);
    }

    #[test]
    fn a_signal_stops_the_run_and_nothing_is_committed_after_it() {
        let interrupt = Interrupt::new();
        // The signal arrives as episode 2 starts (0 and 1 have ended).
        let ask = |seed: u64| {
            if seed == 2 {
                assert!(interrupt.ask(15), "the run takes the signal as a request");
            }
        };
        let (result, built, stored) = run_wifi_on(true, &interrupt, &ask);
        let e = result.unwrap_err();
        assert!(matches!(e, RunError::Interrupted { signal: 15 }), "{e:?}");
        assert_eq!(e.to_string(), "interrupted by SIGTERM");
        assert_eq!(built, 3, "no episode started after the signal");
        assert!(
            stored <= 2,
            "{stored} episodes committed: one after the signal"
        );
        assert!(
            !interrupt.ask(15),
            "after the run a signal is not a request"
        );
    }
}
