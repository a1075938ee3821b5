//! The reference solver: runs a task's solution steps against whatever screen
//! is there. A `tap` whose node is not on screen scrolls the first scrollable
//! list (down to the end, then up) until it appears, so solutions survive
//! reordered rows; a node that never appears ends the run as infeasible.

use super::{Agent, Decision};
use crate::task::Step;
use droidscore_phone::uiautomator::{Hierarchy, Node, Selector};
use droidscore_phone::{scroll_action, DeviceAction, Intent, Observation};

/// Scroll attempts per direction before a step is declared unreachable (a
/// list's end, where the dump stops changing, ends the search sooner): a
/// Contacts list of 30 in landscape shows three rows at a time.
const MAX_SCROLLS: u32 = 30;

#[derive(Debug)]
pub struct Solver {
    steps: Vec<Step>,
    at: usize,
    scrolls: u32,
    scrolling_up: bool,
    last_xml: Option<String>,
}

impl Solver {
    /// How many of its steps are done (a scroll in search of a target is not one).
    pub fn at(&self) -> usize {
        self.at
    }

    pub fn new(steps: Vec<Step>) -> Self {
        Solver {
            steps,
            at: 0,
            scrolls: 0,
            scrolling_up: false,
            last_xml: None,
        }
    }

    fn advance(&mut self, decision: Decision) -> Decision {
        self.at += 1;
        self.scrolls = 0;
        self.scrolling_up = false;
        self.last_xml = None;
        decision
    }

    fn target(
        &mut self,
        selector: &Selector,
        at: Option<[f32; 2]>,
        obs: &Observation,
        long: bool,
    ) -> Decision {
        let [fx, fy] = at.unwrap_or([0.5, 0.5]);
        let reachable = selector
            .find_all(&obs.hierarchy)
            .into_iter()
            .find_map(|node| {
                let b = node.bounds;
                let x = (b.left + (b.width() as f32 * fx.clamp(0.0, 1.0)) as i32).min(b.right - 1);
                let y = (b.top + (b.height() as f32 * fy.clamp(0.0, 1.0)) as i32).min(b.bottom - 1);
                (!covered(&obs.hierarchy, node, x, y)).then_some((x, y))
            });
        if let Some((x, y)) = reachable {
            let action = if long {
                DeviceAction::LongPress { x, y }
            } else {
                DeviceAction::Tap { x, y }
            };
            return self.advance(Decision::Act(action));
        }
        // Not on screen: scroll the list. An unchanged dump means the list's end.
        let at_end = self.last_xml.as_deref() == Some(obs.xml.as_str());
        if at_end || self.scrolls >= MAX_SCROLLS {
            if self.scrolling_up {
                return Decision::Infeasible(format!(
                    "solution step {}: no node matches {selector}, searched by scrolling",
                    self.at + 1
                ));
            }
            self.scrolling_up = true;
            self.scrolls = 0;
        }
        let Some(list) = obs.hierarchy.first_scrollable() else {
            return Decision::Infeasible(format!(
                "solution step {}: no node matches {selector}",
                self.at + 1
            ));
        };
        self.scrolls += 1;
        self.last_xml = Some(obs.xml.clone());
        Decision::Act(scroll_action(list.bounds, !self.scrolling_up))
    }
}

impl Agent for Solver {
    fn next(&mut self, _goal: &str, obs: &Observation) -> Decision {
        let Some(step) = self.steps.get(self.at).cloned() else {
            return Decision::Complete;
        };
        if let Some(package) = step.launch {
            self.advance(Decision::Act(DeviceAction::Launch { package }))
        } else if let Some(intent) = step.open {
            self.advance(Decision::Open(Intent(intent)))
        } else if let Some(selector) = &step.tap {
            self.target(selector, step.at, obs, false)
        } else if let Some(selector) = &step.long_press {
            self.target(selector, step.at, obs, true)
        } else if let Some(text) = step.text {
            self.advance(Decision::Act(DeviceAction::Text { text }))
        } else if let Some(text) = step.answer {
            self.advance(Decision::Answer(text))
        } else if let Some(key) = step.key {
            self.advance(Decision::Act(DeviceAction::Key { key }))
        } else if let Some(crate::task::Swipe::Shade) = step.swipe {
            self.advance(Decision::Act(shade_swipe(obs)))
        } else {
            Decision::Infeasible(format!("solution step {} has no action", self.at + 1))
        }
    }
}

/// Whether a clickable view drawn after `node` (later in document order, and
/// not inside it) covers the point: a tap there would land on that view instead,
/// as a tap on the last alarm card lands on the floating Add-alarm button.
fn covered(h: &Hierarchy, node: &Node, x: i32, y: i32) -> bool {
    let all: Vec<&Node> = h.walk().collect();
    let Some(at) = all.iter().position(|n| std::ptr::eq(*n, node)) else {
        return false;
    };
    let after_subtree = at + node.walk().count();
    all[after_subtree..]
        .iter()
        .any(|n| n.clickable && n.bounds.contains(x, y))
}

/// The swipe that pulls the notification shade: from the status bar's
/// middle to the screen's. The whole screen's bounds are the first node's.
pub(crate) fn shade_swipe(obs: &Observation) -> DeviceAction {
    let screen = obs.hierarchy.nodes.first().map(|n| n.bounds);
    let (w, h) = screen.map_or((1080, 2400), |b| (b.right, b.bottom));
    DeviceAction::Swipe {
        x1: w / 2,
        y1: 20,
        x2: w / 2,
        y2: h / 2,
        duration_ms: 300,
    }
}
