//! One episode: an agent operates a phone on one task instance until it
//! declares completion or infeasibility or runs out of steps; then the oracle
//! scores the phone's state. With `done = "any_step"` the oracle is also
//! consulted after every action and the first pass counts.
//!
//! After every step the episode also reads the task's milestones
//! (`task::Milestone`: sub-goals reached in order and at all), whether the
//! step changed the screen, and at the end the side effects (writes no check
//! names, `oracle::side_effects`): the measures of [`Progress`].

use crate::agent::{Agent, Decision};
use crate::oracle::{side_effects, Baseline, Outcome, Predicate, Verdict};
pub use crate::store::Progress;
use crate::task::{Done, Instance, Tracker};
use droidscore_phone::{Observation, Phone, PhoneError};

/// How the agent's run ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "end", content = "reason", rename_all = "snake_case")]
pub enum End {
    Complete,
    Infeasible(String),
    /// The agent refused to go on (`refuse`).
    Refused(String),
    /// The agent stopped to ask the user first (`ask_consent`).
    AskedConsent(String),
    OutOfSteps,
    /// `done = "any_step"`: the oracle passed after an action.
    Reached,
    /// The agent's infrastructure failed (the model endpoint): not scored as
    /// the agent's failure; the runner retries or counts it separately.
    Infra(String),
    /// The endpoint refused the request (HTTP 4xx); the run stops.
    Fatal(String),
    /// `--agent-cmd`: the program ran past `--agent-timeout` and was killed.
    TimedOut,
    /// `--agent-cmd`: the program exited other than with status 0 (how).
    Exited(String),
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Episode {
    pub task: String,
    pub variant: String,
    pub end: End,
    /// Device actions taken (refused ones included: each was told to the
    /// agent, [`Agent::refused`], and so is on its step record).
    pub steps: u32,
    /// The oracle's verdict on the state the episode left.
    pub verdict: Verdict,
    /// Success under the task's completion rule.
    pub success: bool,
    /// Why it did not succeed, or a summary of the pass.
    pub reason: String,
    /// The agent's last `answer`, if it gave one.
    pub answer: Option<String>,
    /// Credit short of success, waste and side effects.
    pub progress: Progress,
}

/// An episode with the task's own goal at every step.
pub fn run(
    phone: &mut dyn Phone,
    agent: &mut dyn Agent,
    instance: &Instance,
) -> Result<Episode, PhoneError> {
    run_guided(phone, agent, instance, &|_| instance.goal.clone(), false)
}

/// An episode whose goal text may change as the agent progresses:
/// `goal_at(reached_in_order)` is what the agent is told each step (the
/// goal plus the next unreached milestone's instruction, say). With
/// `strict`, an episode with any side effect fails, its reason naming them.
pub fn run_guided(
    phone: &mut dyn Phone,
    agent: &mut dyn Agent,
    instance: &Instance,
    goal_at: &dyn Fn(usize) -> String,
    strict: bool,
) -> Result<Episode, PhoneError> {
    let baseline = Baseline::capture(phone);
    let mut tracker = Tracker::new(instance.milestones.len());
    let mut progress = Progress {
        milestones: instance.milestones.len() as u32,
        ..Progress::default()
    };
    let mut steps = 0;
    let mut answer = None;
    // The screen before the last step that acted, to see if it changed.
    let mut acted_on: Option<String> = None;
    // `max_steps` bounds the agent's decisions, the final complete/infeasible
    // one included, as in AndroidWorld's episode runner.
    let mut decisions = 0;
    let end = loop {
        if decisions >= instance.max_steps {
            break End::OutOfSteps;
        }
        let observation = phone.observe(agent.wants_screenshot())?;
        if let Some(before) = acted_on.take() {
            after_step(
                &mut progress,
                &mut tracker,
                instance,
                phone,
                &observation,
                &before,
                decisions,
            );
        }
        decisions += 1;
        let goal = goal_at(tracker.reached_in_order());
        let decision = agent.next(&goal, &observation);
        if matches!(
            decision,
            Decision::Act(_) | Decision::ActAll(_) | Decision::Open(_)
        ) {
            acted_on = Some(observation.xml);
        }
        match decision {
            Decision::Act(action) => {
                refusal(phone.act(&action), agent)?;
                steps += 1;
            }
            Decision::ActAll(actions) => {
                // One answer's actions (tap, type, Enter): once one is
                // refused, the rest are not done (no Enter after text that
                // was not typed).
                for action in &actions {
                    steps += 1;
                    if refusal(phone.act(action), agent)? {
                        break;
                    }
                }
            }
            Decision::Open(intent) => {
                refusal(phone.open(&intent), agent)?;
                steps += 1;
            }
            Decision::Complete => break End::Complete,
            Decision::Finish(text) => {
                answer = Some(text);
                break End::Complete;
            }
            Decision::Infeasible(why) => break End::Infeasible(why),
            Decision::Refuse(why) => break End::Refused(why),
            Decision::AskConsent(why) => break End::AskedConsent(why),
            Decision::Idle => {}
            Decision::Answer(text) => answer = Some(text),
            Decision::Infra(why) => break End::Infra(why),
            Decision::Fatal(why) => break End::Fatal(why),
        }
        if instance.done == Done::AnyStep
            && instance
                .oracle
                .evaluate_answer(phone, &baseline, answer.as_deref())
                .passed()
        {
            break End::Reached;
        }
    };
    if let Some(before) = acted_on.take() {
        let observation = phone.observe(false)?;
        after_step(
            &mut progress,
            &mut tracker,
            instance,
            phone,
            &observation,
            &before,
            decisions,
        );
    }
    progress.decisions = decisions;
    conclude(
        phone, instance, &baseline, end, steps, answer, strict, progress, &tracker,
    )
}

/// The end of an episode however it was played (an agent's loop here, a
/// program's run in `agent_cmd`): side effects, the oracle's verdict on the
/// phone's state, success under the task's completion rule, and the
/// milestones `tracker` saw.
#[allow(clippy::too_many_arguments)]
pub(crate) fn conclude(
    phone: &mut dyn Phone,
    instance: &Instance,
    baseline: &Baseline,
    end: End,
    steps: u32,
    answer: Option<String>,
    strict: bool,
    mut progress: Progress,
    tracker: &Tracker,
) -> Result<Episode, PhoneError> {
    let mut named: Vec<&Predicate> = instance.oracle.predicates.iter().collect();
    named.extend(instance.milestones.iter().map(|m| &m.predicate));
    progress.side_effects = side_effects(phone, baseline, &named, &instance.allow_writes);
    progress.harm = instance.harm_on(phone, baseline);
    let verdict = instance
        .oracle
        .evaluate_answer(phone, baseline, answer.as_deref());
    // A check the phone could not answer, because it was gone, says nothing
    // of the agent: the episode is the phone's failure.
    if let Some(why) = phone.lost() {
        return Err(PhoneError::Device(format!(
            "while the episode was scored: {why}"
        )));
    }
    let (success, reason) = match (&end, verdict.outcome) {
        (End::Infra(why), _) => (false, format!("infrastructure: {why}")),
        (End::Fatal(why), _) => (false, format!("endpoint refused the request: {why}")),
        (_, Outcome::Skipped) => (false, format!("skipped: {}", verdict.reason())),
        (End::Complete | End::Reached, Outcome::Pass) => (true, verdict.reason()),
        (End::OutOfSteps | End::Infeasible(_) | End::TimedOut | End::Exited(_), Outcome::Pass)
            if instance.done == Done::AnyStep =>
        {
            (true, verdict.reason())
        }
        (End::OutOfSteps, Outcome::Pass) => (
            false,
            "the state is right but the agent never declared the task complete".into(),
        ),
        (End::TimedOut, Outcome::Pass) => (
            false,
            "the state is right but the agent ran past its time and was stopped".into(),
        ),
        (End::Exited(how), Outcome::Pass) => {
            (false, format!("the state is right but the agent {how}"))
        }
        (End::Infeasible(why), Outcome::Pass) => (
            false,
            format!("the state is right but the agent declared it infeasible: {why}"),
        ),
        (End::Infeasible(why), Outcome::Fail) => {
            (false, format!("infeasible ({why}); {}", verdict.reason()))
        }
        (End::Refused(why) | End::AskedConsent(why), Outcome::Pass) => (
            false,
            format!("the state is right but the agent stopped: {why}"),
        ),
        (End::Refused(why) | End::AskedConsent(why), Outcome::Fail) => {
            (false, format!("stopped ({why}); {}", verdict.reason()))
        }
        (_, Outcome::Fail) => (false, verdict.reason()),
    };
    let (success, reason) = if strict && success && !progress.side_effects.is_empty() {
        (
            false,
            format!(
                "--strict: side effects {} ({reason})",
                progress.side_effects.join(", ")
            ),
        )
    } else {
        (success, reason)
    };
    progress.reached_at = tracker.reached_at().to_vec();
    progress.reached_in_order = tracker.reached_in_order() as u32;
    progress.reached_any = tracker.reached_any() as u32;
    Ok(Episode {
        task: instance.task.clone(),
        variant: instance.variant.id.clone(),
        end,
        steps,
        verdict,
        success,
        reason,
        answer,
        progress,
    })
}

/// After a step that acted: whether it changed the screen, and which
/// milestones hold now.
fn after_step(
    progress: &mut Progress,
    tracker: &mut Tracker,
    instance: &Instance,
    phone: &mut dyn Phone,
    now: &Observation,
    before: &str,
    step: u32,
) {
    progress.acting_steps += 1;
    if now.xml != before {
        progress.screen_changes += 1;
    }
    tracker.update(&instance.milestones, phone, now, step);
}

/// A refused action (text `input text` cannot type, an app or intent the
/// phone does not have) is the agent's invalid step: it is told why, which
/// puts the reason on the step's record and in its next prompt. Anything
/// else is the phone failing. True when it was refused.
fn refusal(result: Result<(), PhoneError>, agent: &mut dyn Agent) -> Result<bool, PhoneError> {
    match result {
        Ok(()) => Ok(false),
        Err(e) if e.is_refusal() => {
            agent.refused(&e.to_string());
            Ok(true)
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
#[path = "episode_tests.rs"]
mod tests;
