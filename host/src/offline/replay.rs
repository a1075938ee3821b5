//! One offline episode (AndroidControl/AITW style, teacher-forced): the
//! reference solution is replayed on a phone, and at each of its steps the
//! agent is asked, on the very screen the reference acted on, exactly what
//! it would be asked online at that point. Its answer is scored against
//! the reference's step by every matcher, then the *reference's* action is
//! performed, and the agent is told so ([`Agent::follow`]), so that its
//! next request carries the reference's history rather than its own.
//!
//! What counts as a step:
//! - every action the reference solver takes, including the scrolls it
//!   makes in search of a row that is not on screen yet (`search`: scored,
//!   as AITW scores scrolls; reports count them apart);
//! - not the reference's final `complete`: AndroidControl's episodes have
//!   no such step, and scoring it would give an agent that answers
//!   `complete` to everything credit on every episode (15 % of the suite's
//!   steps), the opposite of a floor.
//!
//! An endpoint failure ends the episode unscored (`Infra`, as online); a
//! reference that cannot be replayed ends it too (`ReplayFailed`), which
//! `tasks check` would have refused.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::matchers::{Matcher, Verdict};
use super::step::{Act, Reference};
use crate::agent::{Agent, Decision, Solver};
use crate::task::{goal_with_instruction, Instance};
use droidscore_phone::{Phone, PhoneError};

/// Steps past which a replay is cut: no solution of the suite comes near
/// (each step may scroll 10 times each way in search of its target).
pub const MAX_REPLAY_STEPS: u32 = 400;

/// One scored step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepResult {
    /// 0-based, over the episode's steps (search scrolls included).
    pub index: u32,
    pub reference: Reference,
    /// The step instruction shown with the goal (`--instructions steps`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instruction: Option<String>,
    /// The agent's answer, reduced to what the matchers compare.
    pub answer: Act,
    /// The model's raw answer (empty for built-in agents).
    #[serde(default)]
    pub raw_output: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_reason: Option<String>,
    /// Each matcher's verdict, by its versioned name.
    pub verdicts: Vec<(String, Verdict)>,
    pub latency_ms: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_tokens: Option<u64>,
    /// The request the agent sent its model (none for built-in agents).
    #[serde(skip)]
    pub request: Option<serde_json::Value>,
}

/// Every matcher's verdict on `answer`, by name.
fn judged(
    matchers: &[Box<dyn Matcher>],
    answer: &Act,
    reference: &Reference,
) -> Vec<(String, Verdict)> {
    matchers
        .iter()
        .map(|m| (m.name().to_owned(), m.judge(answer, reference)))
        .collect()
}

/// Judge every step of `episodes` again under `matchers`, in place of the
/// verdicts recorded (`report --matchers`): a step keeps its answer and
/// its reference, so any rule and version can score it.
pub fn rejudge(episodes: &mut [OfflineEpisode], matchers: &[Box<dyn Matcher>]) {
    for step in episodes.iter_mut().flat_map(|e| e.steps.iter_mut()) {
        step.verdicts = judged(matchers, &step.answer, &step.reference);
    }
}

impl StepResult {
    /// `matcher`'s verdict on the step.
    pub fn verdict(&self, matcher: &str) -> Option<Verdict> {
        self.verdicts
            .iter()
            .find(|(name, _)| name == matcher)
            .map(|(_, v)| *v)
    }
}

/// How an offline episode ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "end", content = "reason", rename_all = "snake_case")]
pub enum End {
    /// Every reference step was asked and scored.
    Done,
    /// The agent's endpoint failed: not scored.
    Infra(String),
    /// The endpoint refused the request (HTTP 4xx): the run stops.
    Fatal(String),
    /// The reference itself could not be replayed: not scored.
    ReplayFailed(String),
}

/// One task instance × variant, replayed and scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OfflineEpisode {
    pub task: String,
    pub variant: String,
    pub instance_seed: u64,
    pub end: End,
    pub steps: Vec<StepResult>,
    /// Wall time of the whole episode, agent and phone, milliseconds.
    pub wall_ms: f64,
}

impl OfflineEpisode {
    /// Scored: it ran to the end of the reference.
    pub fn scored(&self) -> bool {
        self.end == End::Done
    }
}

/// The goal the agent is given at a step: the task's goal, and under
/// `--instructions steps` that step's instruction on its own labelled line
/// (`task::goal_with_instruction`, as online).
pub fn goal_with(goal: &str, instruction: Option<&str>) -> String {
    match instruction.map(str::trim).filter(|i| !i.is_empty()) {
        Some(step) => goal_with_instruction(goal, step),
        None => goal.to_owned(),
    }
}

/// Replay `instance`'s reference on `phone` and score `agent` at each of
/// its steps under `matchers`. `instructions` are the solution steps'
/// instructions (`--instructions steps`), one per solution step.
pub fn replay(
    phone: &mut dyn Phone,
    agent: &mut dyn Agent,
    instance: &Instance,
    instructions: Option<&[String]>,
    matchers: &[Box<dyn Matcher>],
) -> Result<OfflineEpisode, PhoneError> {
    let started = Instant::now();
    let mut solver = Solver::new(instance.solution.clone());
    let mut steps = Vec::new();
    let end = loop {
        if steps.len() as u32 >= MAX_REPLAY_STEPS {
            break End::ReplayFailed(format!(
                "the reference took more than {MAX_REPLAY_STEPS} steps"
            ));
        }
        let observation = phone.observe(agent.wants_screenshot())?;
        let at = solver.at();
        let want = solver.next(&instance.goal, &observation);
        match &want {
            Decision::Infeasible(why) => break End::ReplayFailed(why.clone()),
            Decision::Complete => break End::Done,
            _ => {}
        }
        let search = solver.at() == at;
        let Some(reference) =
            Reference::new(&want, &observation, instance.solution.get(at), at, search)
        else {
            break End::ReplayFailed(format!("the reference decided {want:?}"));
        };
        let instruction = instructions.and_then(|list| list.get(at)).cloned();
        let goal = goal_with(&instance.goal, instruction.as_deref());
        let asked = Instant::now();
        let decision = agent.next(&goal, &observation);
        let latency_ms = asked.elapsed().as_secs_f64() * 1e3;
        let own = agent.step_record();
        match &decision {
            Decision::Infra(why) => break End::Infra(why.clone()),
            Decision::Fatal(why) => break End::Fatal(why.clone()),
            _ => {}
        }
        let invalid_reason = own.as_ref().and_then(|r| r.invalid_reason.clone());
        let answer = Act::of(&decision, invalid_reason.is_some())
            .expect("an answer that is not an endpoint failure is an act");
        let verdicts = judged(matchers, &answer, &reference);
        steps.push(StepResult {
            index: steps.len() as u32,
            reference,
            instruction,
            answer,
            raw_output: own
                .as_ref()
                .map(|r| r.raw_output.clone())
                .unwrap_or_default(),
            invalid_reason,
            verdicts,
            latency_ms: own.as_ref().map_or(latency_ms, |r| r.latency_ms),
            prompt_tokens: own.as_ref().and_then(|r| r.prompt_tokens),
            completion_tokens: own.as_ref().and_then(|r| r.completion_tokens),
            request: agent.last_request(),
        });
        agent.follow(&want, &observation);
        if let Err(why) = perform(phone, &want)? {
            break End::ReplayFailed(format!("the phone refused the reference's action: {why}"));
        }
    };
    Ok(OfflineEpisode {
        task: instance.task.clone(),
        variant: instance.variant.id.clone(),
        instance_seed: instance.instance_seed,
        end,
        steps,
        wall_ms: started.elapsed().as_secs_f64() * 1e3,
    })
}

/// Do the reference's decision on the phone: `Err` inside when the phone
/// refused it (a reference the phone refuses cannot be replayed).
fn perform(phone: &mut dyn Phone, decision: &Decision) -> Result<Result<(), String>, PhoneError> {
    let refused = |result: Result<(), PhoneError>| match result {
        Ok(()) => Ok(Ok(())),
        Err(e) if e.is_refusal() => Ok(Err(e.to_string())),
        Err(e) => Err(e),
    };
    match decision {
        Decision::Act(action) => refused(phone.act(action)),
        Decision::ActAll(actions) => {
            for action in actions {
                if let Err(why) = refused(phone.act(action))? {
                    return Ok(Err(why));
                }
            }
            Ok(Ok(()))
        }
        Decision::Open(intent) => refused(phone.open(intent)),
        _ => Ok(Ok(())),
    }
}
