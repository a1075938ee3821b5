//! The offline mode with the built-in agents on a few tasks of the suite
//! (a Settings toggle, typing, a long press, an answer): the reference is
//! right at every step under every matcher, the do-nothing agent at none,
//! and the random agent somewhere between, with the steps it got right
//! depending on the rule.

use super::matchers::all;
use super::replay::{goal_with, replay, End, OfflineEpisode};
use super::step::Kind;
use super::summarize;
use crate::agent::{Agent, Noop, RandomAgent, Solver};
use crate::task::{Instance, Suite};

const TASKS: &[&str] = &["wifi_off", "sms_reply", "files_delete", "sms_answer_code"];

fn instances() -> Vec<Instance> {
    let tasks = Suite::Embedded.load().unwrap();
    TASKS
        .iter()
        .map(|id| {
            let task = tasks.iter().find(|t| t.id == *id).unwrap();
            task.variants[0].clone()
        })
        .collect()
}

fn run(agent: &mut dyn FnMut(&Instance) -> Box<dyn Agent>) -> Vec<OfflineEpisode> {
    let matchers = all();
    instances()
        .iter()
        .map(|inst| {
            let mut phone = crate::test_support::with_setup(inst.setup(0));
            replay(phone.as_mut(), agent(inst).as_mut(), inst, None, &matchers).unwrap()
        })
        .collect()
}

fn names() -> Vec<String> {
    all().iter().map(|m| m.name().to_owned()).collect()
}

#[test]
fn the_reference_is_right_at_every_step_under_every_matcher() {
    let episodes = run(&mut |inst| Box::new(Solver::new(inst.solution.clone())));
    for e in &episodes {
        assert_eq!(e.end, End::Done, "{}", e.task);
        // Every solution step is a step (search scrolls come on top); the
        // reference's final `complete` is not.
        assert!(
            e.steps.len() >= inst_len(&e.task),
            "{}: {} steps",
            e.task,
            e.steps.len()
        );
        assert!(e
            .steps
            .iter()
            .all(|s| s.reference.act.kind != Kind::Complete));
    }
    let s = summarize(&episodes, &names());
    assert_eq!(s.scored, TASKS.len());
    for m in &s.scores {
        assert_eq!(m.steps.successes, m.steps.n, "{}", m.matcher);
        assert_eq!(m.types.successes, m.types.n, "{}", m.matcher);
        assert_eq!(m.grounding.successes, m.grounding.n, "{}", m.matcher);
        assert!(m.grounding.n > 0, "{}", m.matcher);
        assert_eq!(m.episodes.successes, TASKS.len() as u64, "{}", m.matcher);
    }
    // Every kind the reference takes here was asked: launch, tap, type,
    // long press, answer.
    let kinds: std::collections::BTreeSet<String> = episodes
        .iter()
        .flat_map(|e| &e.steps)
        .map(|s| format!("{:?}", s.reference.act.kind))
        .collect();
    for k in ["OpenApp", "Tap", "Type", "LongPress", "Answer"] {
        assert!(kinds.contains(k), "no {k} step in {kinds:?}");
    }
}

/// The solution's length.
fn inst_len(task: &str) -> usize {
    instances()
        .iter()
        .find(|i| i.task == task)
        .unwrap()
        .solution
        .len()
}

#[test]
fn the_do_nothing_agent_is_right_at_no_step() {
    let episodes = run(&mut |_| Box::new(Noop));
    let s = summarize(&episodes, &names());
    assert!(s.steps > 0);
    for m in &s.scores {
        // It says "complete" at every step, and no step is the reference's
        // `complete`.
        assert_eq!(m.steps.successes, 0, "{}", m.matcher);
        assert_eq!(m.types.successes, 0, "{}", m.matcher);
        assert_eq!(m.grounding.n, 0, "{}", m.matcher);
        assert_eq!(m.episodes.successes, 0, "{}", m.matcher);
    }
}

#[test]
fn the_random_agent_scores_between_and_the_rules_differ_on_it() {
    let episodes = run(&mut |_| Box::new(RandomAgent::new(7)));
    let s = summarize(&episodes, &names());
    let rates: Vec<u64> = s.scores.iter().map(|m| m.steps.successes).collect();
    for m in &s.scores {
        assert!(m.steps.successes < m.steps.n, "{}", m.matcher);
    }
    // AITW compares no text and accepts any tap near or in the same box:
    // never stricter than droidscore's exact rule.
    let (droidscore, aitw) = (&s.scores[0], &s.scores[1]);
    assert!(
        aitw.steps.successes >= droidscore.steps.successes,
        "{rates:?}"
    );
    assert!(
        rates.iter().any(|r| *r != rates[0]),
        "the rules agree: {rates:?}"
    );
    // A second run of the same seed gives the same verdicts.
    let again = run(&mut |_| Box::new(RandomAgent::new(7)));
    let verdicts = |eps: &[OfflineEpisode]| -> Vec<_> {
        eps.iter()
            .flat_map(|e| e.steps.iter().map(|s| s.verdicts.clone()))
            .collect()
    };
    assert_eq!(verdicts(&episodes), verdicts(&again));
}

#[test]
fn the_step_instruction_follows_the_goal() {
    assert_eq!(goal_with("Turn Wi-Fi off.", None), "Turn Wi-Fi off.");
    assert_eq!(
        goal_with("Turn Wi-Fi off.", Some("Tap Network & internet")),
        "Turn Wi-Fi off.\nStep instruction: Tap Network & internet"
    );
    assert_eq!(goal_with("Goal.", Some("  ")), "Goal.");
}

/// An agent that records the goal it was given at each step.
struct Goals(Vec<String>);

impl Agent for Goals {
    fn next(&mut self, goal: &str, _: &droidscore_phone::Observation) -> crate::agent::Decision {
        self.0.push(goal.to_owned());
        crate::agent::Decision::Idle
    }
}

#[test]
fn under_step_instructions_each_step_gets_its_own() {
    let inst = &instances()[0];
    let instructions: Vec<String> = (0..inst.solution.len())
        .map(|i| format!("do step {i}"))
        .collect();
    let mut agent = Goals(Vec::new());
    let mut phone = crate::test_support::with_setup(inst.setup(0));
    let ep = replay(
        phone.as_mut(),
        &mut agent,
        inst,
        Some(&instructions),
        &all(),
    )
    .unwrap();
    assert_eq!(ep.end, End::Done);
    assert_eq!(agent.0.len(), ep.steps.len());
    for (step, goal) in ep.steps.iter().zip(&agent.0) {
        let k = step.reference.solution_step;
        assert_eq!(goal, &goal_with(&inst.goal, Some(&instructions[k])));
        assert_eq!(step.instruction.as_deref(), Some(instructions[k].as_str()));
    }
}
