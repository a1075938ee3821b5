//! One offline step as the matchers see it: the agent's answer and the
//! reference's action, both reduced to an [`Act`] (kind, point, text,
//! direction, app) from the device-level [`Decision`] each came to, and the
//! reference's context on the screen it was taken on ([`Reference`]: the
//! target element's bounds, every node the solution step's selector names,
//! every element's box). Every agent format ends in a `Decision`, so one
//! reduction serves the AndroidWorld JSON, the vision formats and the
//! built-in agents alike.

use serde::{Deserialize, Serialize};

use crate::agent::translate::scroll_direction;
use crate::agent::Decision;
use crate::task::Step;
use droidscore_phone::apps::APPS;
use droidscore_phone::uiautomator::{elements, Bounds};
use droidscore_phone::{DeviceAction, Key, Observation};

/// What kind of action an answer or a reference step is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Tap,
    LongPress,
    DoubleTap,
    /// Typing text (with or without the tap on the field and Enter that
    /// AndroidWorld's `input_text` adds).
    Type,
    /// A swipe: `point` is where the finger starts, `end` where it lifts,
    /// `direction` the side the content comes in from.
    Scroll,
    Drag,
    Back,
    Home,
    Enter,
    /// Another key code.
    Key,
    /// Emptying a field.
    Clear,
    OpenApp,
    /// A screen opened by intent (privileged; no model can say it).
    Intent,
    Answer,
    Complete,
    Infeasible,
    Wait,
    /// The answer was not a valid action.
    Invalid,
}

/// An answer or a reference step, reduced to what the matchers compare.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Act {
    pub kind: Kind,
    /// Where a tap, long press or double tap lands; where a swipe starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<(i32, i32)>,
    /// Where a swipe or drag lifts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<(i32, i32)>,
    /// Typed text, or the answer's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A scroll's direction in AndroidWorld's sense (`down` shows what is
    /// below: the finger moves up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<String>,
    /// The package an `open_app` launches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
}

impl Act {
    /// An act of `kind` with nothing else set.
    pub(crate) fn kind(kind: Kind) -> Act {
        Act {
            kind,
            point: None,
            end: None,
            text: None,
            direction: None,
            app: None,
        }
    }

    /// A decision as an act; `None` for an endpoint failure (`Infra`,
    /// `Fatal`), which is no answer at all. `invalid` says the decision is
    /// the `Idle` of an answer that did not parse.
    pub fn of(decision: &Decision, invalid: bool) -> Option<Act> {
        Some(match decision {
            Decision::Act(action) => Act::device(action),
            Decision::ActAll(actions) => {
                // `input_text`: tap the field, maybe clear, type, Enter.
                let typed = actions.iter().find_map(|a| match a {
                    DeviceAction::Text { text } => Some(text.clone()),
                    _ => None,
                });
                match typed {
                    Some(text) => Act {
                        text: Some(text),
                        point: decision.tap(),
                        ..Act::kind(Kind::Type)
                    },
                    None => actions.first().map_or(Act::kind(Kind::Wait), Act::device),
                }
            }
            Decision::Open(_) => Act::kind(Kind::Intent),
            Decision::Complete | Decision::Finish(_) => Act::kind(Kind::Complete),
            // A stop short of the goal, as an infeasible is: no reference
            // step refuses or asks, so no matcher scores either as right.
            Decision::Infeasible(_) | Decision::Refuse(_) | Decision::AskConsent(_) => {
                Act::kind(Kind::Infeasible)
            }
            Decision::Answer(text) => Act {
                text: Some(text.clone()),
                ..Act::kind(Kind::Answer)
            },
            Decision::Idle if invalid => Act::kind(Kind::Invalid),
            Decision::Idle => Act::kind(Kind::Wait),
            Decision::Infra(_) | Decision::Fatal(_) => return None,
        })
    }

    fn device(action: &DeviceAction) -> Act {
        let at = |kind, x: &i32, y: &i32| Act {
            point: Some((*x, *y)),
            ..Act::kind(kind)
        };
        match action {
            DeviceAction::Tap { x, y } => at(Kind::Tap, x, y),
            DeviceAction::LongPress { x, y } => at(Kind::LongPress, x, y),
            DeviceAction::DoubleTap { x, y } => at(Kind::DoubleTap, x, y),
            DeviceAction::Text { text } => Act {
                text: Some(text.clone()),
                ..Act::kind(Kind::Type)
            },
            DeviceAction::Swipe { x1, y1, x2, y2, .. } => Act {
                point: Some((*x1, *y1)),
                end: Some((*x2, *y2)),
                direction: Some(scroll_direction(x2 - x1, y2 - y1).name().to_owned()),
                ..Act::kind(Kind::Scroll)
            },
            DeviceAction::Drag { x1, y1, x2, y2, .. } => Act {
                point: Some((*x1, *y1)),
                end: Some((*x2, *y2)),
                ..Act::kind(Kind::Drag)
            },
            DeviceAction::Key { key } => Act::kind(match key {
                Key::Back => Kind::Back,
                Key::Home => Kind::Home,
                Key::Enter => Kind::Enter,
            }),
            DeviceAction::Keycode { code } => Act {
                text: Some(code.to_string()),
                ..Act::kind(Kind::Key)
            },
            DeviceAction::ClearText => Act::kind(Kind::Clear),
            DeviceAction::Launch { package } => Act {
                app: Some(package.clone()),
                ..Act::kind(Kind::OpenApp)
            },
        }
    }

    /// Whether the act points at the screen (tap, long press, double tap):
    /// the steps grounding accuracy is over.
    pub fn points(&self) -> bool {
        matches!(self.kind, Kind::Tap | Kind::LongPress | Kind::DoubleTap)
    }

    /// The launcher's label of the app an `open_app` names (its package
    /// when the catalogue has no label), as a model writes it.
    pub fn app_label(&self) -> Option<&str> {
        let package = self.app.as_deref()?;
        Some(
            APPS.iter()
                .find(|(_, p)| *p == package)
                .map_or(package, |(label, _)| label),
        )
    }

    /// One line for tables: `tap (540, 812)`, `type "hi"`, `scroll down`.
    pub fn describe(&self) -> String {
        let kind = serde_json::to_value(self.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let mut out = kind;
        if let (Some((x, y)), false) = (self.point, self.kind == Kind::Scroll) {
            out += &format!(" ({x}, {y})");
        }
        if let Some(d) = &self.direction {
            out += &format!(" {d}");
        }
        if let Some(t) = &self.text {
            out += &format!(" {t:?}");
        }
        if let Some(app) = self.app_label() {
            out += &format!(" {app}");
        }
        out
    }
}

/// The reference's step on the screen it was taken on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    pub act: Act,
    /// The screen's size in pixels (the hierarchy's extent).
    pub screen: (i32, i32),
    /// The node the reference taps: the one its selector matched that holds
    /// the point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Bounds>,
    /// Every node the solution step's selector matches on this screen (the
    /// selector's alternatives are the task's equivalent targets).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matches: Vec<Bounds>,
    /// The boxes of the elements that hold no other element: AITW's UI
    /// annotations, which are OCR'd text and detected icons, never the
    /// list or the screen around them (a list's box would put any two taps
    /// on it "in the same box").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boxes: Vec<Bounds>,
    /// Every clickable (or long-clickable) node's bounds, in document
    /// order: a tap lands on the last one that holds its point, the view
    /// drawn on top (droidscore@1 resolves points with them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clickables: Vec<Bounds>,
    /// Which solution step this is (0-based; a search scroll has the
    /// step it searches for).
    pub solution_step: usize,
    /// A scroll in search of the step's target (the solver's, not a
    /// solution step of its own).
    pub search: bool,
}

impl Reference {
    /// The reference's `decision` on `obs`, taken while at solution step
    /// `step` (`None` past the solution's end); `search` when it scrolls
    /// without advancing.
    pub fn new(
        decision: &Decision,
        obs: &Observation,
        step: Option<&Step>,
        solution_step: usize,
        search: bool,
    ) -> Option<Reference> {
        let act = Act::of(decision, false)?;
        let screen = crate::agent::action::screen_size(&obs.hierarchy);
        let selector = step.and_then(|s| s.tap.as_ref().or(s.long_press.as_ref()));
        let matches: Vec<Bounds> = match (selector, act.points()) {
            (Some(selector), true) => selector
                .find_all(&obs.hierarchy)
                .into_iter()
                .map(|n| n.bounds)
                .collect(),
            _ => Vec::new(),
        };
        let target = act
            .point
            .filter(|_| act.points())
            .and_then(|(x, y)| matches.iter().copied().find(|b| b.contains(x, y)));
        let all: Vec<Bounds> = elements(&obs.hierarchy).iter().map(|e| e.bounds).collect();
        let boxes = all
            .iter()
            .copied()
            .filter(|b| !all.iter().any(|o| o != b && holds(b, o)))
            .collect();
        let clickables = obs
            .hierarchy
            .walk()
            .filter(|n| n.clickable || n.long_clickable)
            .map(|n| n.bounds)
            .collect();
        Some(Reference {
            act,
            screen,
            target,
            matches,
            boxes,
            clickables,
            solution_step,
            search,
        })
    }
}

impl Reference {
    /// The clickable node a tap at `(x, y)` lands on: the last in document
    /// order that holds the point (`None`: no clickable node there).
    pub fn lands(&self, (x, y): (i32, i32)) -> Option<Bounds> {
        self.clickables
            .iter()
            .rev()
            .find(|b| b.contains(x, y))
            .copied()
    }
}

/// Whether `outer` holds all of `inner`.
fn holds(outer: &Bounds, inner: &Bounds) -> bool {
    outer.left <= inner.left
        && outer.top <= inner.top
        && outer.right >= inner.right
        && outer.bottom >= inner.bottom
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_swipe_is_a_scroll_towards_the_content_it_brings() {
        // The finger moves up: what is below comes into view.
        let act = Act::of(
            &Decision::Act(DeviceAction::Swipe {
                x1: 540,
                y1: 1800,
                x2: 540,
                y2: 600,
                duration_ms: 300,
            }),
            false,
        )
        .unwrap();
        assert_eq!(act.kind, Kind::Scroll);
        assert_eq!(act.direction.as_deref(), Some("down"));
    }

    #[test]
    fn input_text_is_typing_where_its_field_is() {
        let act = Act::of(
            &Decision::ActAll(vec![
                DeviceAction::Tap { x: 3, y: 4 },
                DeviceAction::Text { text: "hi".into() },
                DeviceAction::Key { key: Key::Enter },
            ]),
            false,
        )
        .unwrap();
        assert_eq!(
            (act.kind, act.text.as_deref(), act.point),
            (Kind::Type, Some("hi"), Some((3, 4)))
        );
    }

    #[test]
    fn a_reference_tap_knows_its_target_the_leaf_boxes_and_where_taps_land() {
        use crate::agent::{Agent, Solver};
        let tasks = crate::task::Suite::Embedded.load().unwrap();
        let inst = tasks.iter().find(|t| t.id == "wifi_off").unwrap().variants[0].clone();
        let mut phone = crate::test_support::with_setup(inst.setup(0));
        let mut solver = Solver::new(inst.solution.clone());
        // Launch Settings, then the tap on its first row.
        let obs = phone.observe(false).unwrap();
        let Decision::Act(launch) = solver.next(&inst.goal, &obs) else {
            panic!("the solution starts with a launch")
        };
        phone.act(&launch).unwrap();
        let obs = phone.observe(false).unwrap();
        let at = solver.at();
        let tap = solver.next(&inst.goal, &obs);
        let r = Reference::new(&tap, &obs, inst.solution.get(at), at, false).unwrap();
        assert_eq!(r.act.kind, Kind::Tap);
        let target = r
            .target
            .expect("the tapped node is one the selector matches");
        assert!(r.matches.contains(&target));
        // The tap lands on a clickable view inside (or equal to) the target.
        let view = r.lands(r.act.point.unwrap()).unwrap();
        assert!(
            holds(&target, &view) || holds(&view, &target),
            "{view:?} {target:?}"
        );
        // No box holds another: the list around the rows is not one.
        let list = obs.hierarchy.first_scrollable().unwrap().bounds;
        assert!(!r.boxes.contains(&list));
        for b in &r.boxes {
            assert!(
                !r.boxes.iter().any(|o| o != b && holds(b, o)),
                "{b:?} holds another box"
            );
        }
    }

    #[test]
    fn an_invalid_answer_is_not_a_wait_and_an_endpoint_failure_is_no_answer() {
        assert_eq!(Act::of(&Decision::Idle, true).unwrap().kind, Kind::Invalid);
        assert_eq!(Act::of(&Decision::Idle, false).unwrap().kind, Kind::Wait);
        assert_eq!(Act::of(&Decision::Infra("timeout".into()), false), None);
    }
}
