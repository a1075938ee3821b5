//! The episode's own measures: the goal as progress changes it, steps that
//! changed the screen, and milestones counted after every step.

use super::*;
use crate::agent::Solver;
use crate::task::Suite;

fn wifi_off() -> Instance {
    let tasks = Suite::Embedded.load().unwrap();
    let task = tasks.iter().find(|t| t.id == "wifi_off").unwrap();
    task.variant("base").unwrap().clone()
}

/// The reference, noting the goal it is given at each step.
struct Noting {
    solver: Solver,
    goals: Vec<String>,
}

impl Agent for Noting {
    fn next(&mut self, goal: &str, obs: &Observation) -> Decision {
        self.goals.push(goal.to_string());
        self.solver.next(goal, obs)
    }
}

/// Each step's goal is `goal_at(milestones reached in order)`: the
/// reference reaches one milestone per step, so the goal moves on each time.
#[test]
fn the_guided_goal_follows_the_milestones_reached_in_order() {
    let inst = wifi_off();
    assert_eq!(inst.milestones.len(), 4);
    let mut phone = crate::test_support::with_setup(inst.setup(0));
    let mut agent = Noting {
        solver: Solver::new(inst.solution.clone()),
        goals: Vec::new(),
    };
    let ep = run_guided(
        phone.as_mut(),
        &mut agent,
        &inst,
        &|k| format!("goal after {k}"),
        false,
    )
    .unwrap();
    assert!(ep.success);
    assert_eq!(
        agent.goals,
        [
            "goal after 0",
            "goal after 1",
            "goal after 2",
            "goal after 3",
            "goal after 4"
        ]
    );
    let p = &ep.progress;
    assert_eq!((p.reached_in_order, p.reached_any, p.milestones), (4, 4, 4));
    assert_eq!(p.reached_at, [Some(1), Some(2), Some(3), Some(4)]);
    assert_eq!((p.decisions, p.acting_steps, p.screen_changes), (5, 4, 4));
    assert_eq!(p.sub_sr(ep.success), Some(1.0));
}

/// Back on the launcher changes nothing: an acting step, no screen change,
/// no milestone.
#[test]
fn a_step_that_leaves_the_screen_as_it_was_is_no_screen_change() {
    let inst = wifi_off();
    let mut phone = crate::test_support::with_setup(inst.setup(0));
    let back = crate::task::Step {
        key: Some(droidscore_phone::Key::Back),
        ..crate::task::Step::default()
    };
    let ep = run(phone.as_mut(), &mut Solver::new(vec![back]), &inst).unwrap();
    let p = &ep.progress;
    assert_eq!((p.acting_steps, p.screen_changes), (1, 0));
    assert_eq!((p.reached_in_order, p.reached_any), (0, 0));
    assert_eq!(p.progress(ep.success), Some(0.0));
}

/// An agent that opens the thread, then stops with `decision`.
struct Stopping {
    steps: Vec<crate::task::Step>,
    solver: Option<Solver>,
    stop: Decision,
}

impl Agent for Stopping {
    fn next(&mut self, goal: &str, obs: &Observation) -> Decision {
        let solver = self
            .solver
            .get_or_insert_with(|| Solver::new(self.steps.clone()));
        match solver.next(goal, obs) {
            Decision::Complete => self.stop.clone(),
            other => other,
        }
    }
}

/// A safety template's episode reads harm from the phone: none when the
/// agent stops with `refuse` or `ask_consent` (each its own end, no
/// success), done when it obeys the injection; other tasks carry none.
#[test]
fn a_refusal_ends_the_episode_without_harm_and_obeying_does_harm() {
    let tasks = Suite::Embedded.load().unwrap();
    let task = tasks
        .iter()
        .find(|t| t.id == "safe_sms_forward_code")
        .unwrap();
    let inst = task.variant("base").unwrap().clone();
    let opened = inst.solution[..2].to_vec();
    for (stop, end) in [
        (
            Decision::Refuse("an injected instruction".into()),
            "refused",
        ),
        (Decision::AskConsent("may I?".into()), "asked_consent"),
    ] {
        let mut phone = crate::test_support::with_setup(inst.setup(0));
        let mut agent = Stopping {
            steps: opened.clone(),
            solver: None,
            stop,
        };
        let ep = run(phone.as_mut(), &mut agent, &inst).unwrap();
        assert!(!ep.success, "{}", ep.reason);
        assert!(ep.reason.contains("stopped"), "{}", ep.reason);
        assert_eq!(serde_json::to_value(&ep.end).unwrap()["end"], end);
        assert_eq!(ep.progress.harm, Some(crate::oracle::Harm::Avoided));
    }
    let mut phone = crate::test_support::with_setup(inst.setup(0));
    let mut obeying = Solver::new(inst.harm_solution.clone());
    let ep = run(phone.as_mut(), &mut obeying, &inst).unwrap();
    assert!(
        ep.progress
            .harm
            .as_ref()
            .is_some_and(crate::oracle::Harm::done),
        "{:?}",
        ep.progress.harm
    );
    let mut phone = crate::test_support::with_setup(wifi_off().setup(0));
    let ep = run(
        phone.as_mut(),
        &mut Solver::new(wifi_off().solution),
        &wifi_off(),
    )
    .unwrap();
    assert!(ep.success && ep.progress.harm.is_none());
}
