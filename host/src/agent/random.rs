//! `--agent random --seed S`: a baseline that picks a valid random action on
//! each screen from a seeded splitmix64 stream (documented, so a seed gives
//! the same episode whatever crate versions are built). With probability
//! 1/20 it declares the task complete; otherwise it acts on a random element:
//! a scrollable one scrolls a random way, an editable one gets text, others
//! are clicked (1 in 10 long-pressed); 1 step in 10 goes back instead. Every
//! action goes through the same `resolve` as the LLM agent's.

use super::action::{resolve, screen_size, Action, Direction, Target};
use super::transport::splitmix64;
use super::{Agent, Decision};
use droidscore_phone::uiautomator::elements;
use droidscore_phone::Observation;

#[derive(Debug, Clone)]
pub struct RandomAgent {
    state: u64,
}

impl RandomAgent {
    pub fn new(seed: u64) -> Self {
        RandomAgent { state: seed }
    }

    /// Uniform in `0..n` (n > 0), by Lemire's multiply-shift.
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(splitmix64(&mut self.state)) * n as u128) >> 64) as usize
    }

    /// The action it would take on this screen (advances the stream).
    pub fn choose(&mut self, obs: &Observation) -> Action {
        let els = elements(&obs.hierarchy);
        if self.below(20) == 0 {
            return Action::Status { complete: true };
        }
        if els.is_empty() || self.below(10) == 0 {
            return Action::NavigateBack;
        }
        let i = self.below(els.len());
        let e = &els[i];
        if e.scrollable {
            let direction = [
                Direction::Up,
                Direction::Down,
                Direction::Left,
                Direction::Right,
            ][self.below(4)];
            Action::Scroll {
                direction,
                index: Some(i),
            }
        } else if e.editable {
            Action::InputText {
                text: "hello".into(),
                target: Some(Target::Index(i)),
                clear: false,
            }
        } else if self.below(10) == 0 {
            Action::LongPress(Target::Index(i))
        } else {
            Action::Click(Target::Index(i))
        }
    }
}

impl Agent for RandomAgent {
    fn next(&mut self, _goal: &str, obs: &Observation) -> Decision {
        let action = self.choose(obs);
        match resolve(
            &action,
            &elements(&obs.hierarchy),
            screen_size(&obs.hierarchy),
        ) {
            Ok(r) => r.decision,
            // Unreachable by construction: indexes come from the list itself.
            Err(e) => Decision::Infeasible(format!("random agent chose an invalid action: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use droidscore_phone::apps::PhoneSetup;
    use droidscore_phone::Phone;

    fn phone() -> Box<dyn Phone> {
        crate::test_support::with_setup(PhoneSetup::default())
    }

    #[test]
    fn a_seed_gives_the_same_actions_and_they_are_valid() {
        let run = |seed| {
            let mut p = phone();
            let mut agent = RandomAgent::new(seed);
            let mut out = Vec::new();
            for _ in 0..30 {
                let obs = p.observe(false).unwrap();
                let action = agent.clone().choose(&obs);
                match agent.next("", &obs) {
                    Decision::Act(a) => {
                        let _ = p.act(&a);
                    }
                    Decision::ActAll(all) => {
                        for a in all {
                            let _ = p.act(&a);
                        }
                    }
                    Decision::Infeasible(why) => panic!("{why}"),
                    _ => {}
                }
                out.push(action.to_string());
            }
            out
        };
        assert_eq!(run(1), run(1));
        assert_ne!(run(1), run(2));
    }

    #[test]
    fn below_is_in_range() {
        let mut a = RandomAgent::new(9);
        assert!((0..1000).all(|_| a.below(3) < 3));
    }
}
