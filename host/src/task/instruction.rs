//! Step instructions: AndroidControl's low-level step instruction ("Tap
//! Network & internet") for each step of a task's reference solution, the
//! text an agent is given beside the goal under `--instructions steps`.
//!
//! They are written from the variant's own screens, not from the solution's
//! selectors: the reference solver is replayed on a simulator set up as the
//! variant is, and each tapped node is named by what that screen shows of it
//! (its text, its content-desc, a field's hint, the first text inside a
//! row). A renamed variant therefore says "Tap WLAN", a reordered one names
//! the same row wherever it now lies, and a decoy variant names the real
//! target, not the decoy beside it. A step's `instruction = "…"` in the task
//! file replaces the written text (params filled in like any other string).
//!
//! The dataset these follow is AndroidControl (google-research
//! `android_control`, whose episodes carry a `goal` and a list of
//! `step_instructions`, one per action). On its low level a model is given
//! the step's instruction beside the goal and predicts only the action
//! (bytedance/UI-TARS issue #79); here the two are separate labelled lines.

use std::collections::BTreeMap;

use crate::agent::{Agent, Decision, Solver};
use crate::task::{Instance, Step};
use droidscore_phone::apps::APPS;
use droidscore_phone::sim::SimPhone;
use droidscore_phone::uiautomator::{Hierarchy, Node, Selector};
use droidscore_phone::{DeviceAction, Key, Observation, Phone};

/// What an agent is told each step (`--instructions`): AndroidControl's
/// two levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Instructions {
    /// The task's goal alone (AndroidControl's high level).
    #[default]
    Goal,
    /// The goal and the current reference step's instruction (its low level).
    Steps,
}

impl Instructions {
    pub fn name(self) -> &'static str {
        match self {
            Instructions::Goal => "goal",
            Instructions::Steps => "steps",
        }
    }
}

/// The label the step instruction gets on its own line of the goal text.
pub const STEP_INSTRUCTION_LABEL: &str = "Step instruction: ";

/// Replay turns per solution step before the replay is given up: the
/// solver scrolls at most 10 times each way in search of a node.
pub(crate) const TURNS_PER_STEP: usize = 24;

/// One instruction per step of `instance`'s reference solution, in order,
/// written from the variant's own screens (see the module docs), as an
/// episode with seed 0 shows them. An error says which step could not be
/// replayed.
pub fn step_instructions(instance: &Instance) -> Result<Vec<String>, String> {
    step_instructions_at(instance, 0)
}

/// [`step_instructions`] as the episode with `episode_seed` shows the
/// screens: the seed sets the phone's clock, and a screen may show times.
pub fn step_instructions_at(instance: &Instance, episode_seed: u64) -> Result<Vec<String>, String> {
    let mut phone = SimPhone::new(instance.setup(episode_seed))
        .map_err(|e| format!("{} {}: {e}", instance.task, instance.variant.id))?;
    let mut solver = Solver::new(instance.solution.clone());
    let steps = &instance.solution;
    let mut out = Vec::with_capacity(steps.len());
    let fail = |why: String| format!("{} {}: {why}", instance.task, instance.variant.id);
    for _ in 0..steps.len() * TURNS_PER_STEP {
        if out.len() == steps.len() {
            return Ok(out);
        }
        let before = phone.observe(false).map_err(|e| fail(e.to_string()))?;
        let at = solver.at();
        let decision = solver.next(&instance.goal, &before);
        let advanced = solver.at() > at;
        match &decision {
            Decision::Act(action) => phone.act(action).map_err(|e| fail(e.to_string()))?,
            Decision::Open(intent) => phone.open(intent).map_err(|e| fail(e.to_string()))?,
            Decision::Answer(_) => {}
            Decision::Infeasible(why) => return Err(fail(why.clone())),
            other => {
                return Err(fail(format!(
                    "solution step {}: the reference solver decided {other:?}",
                    at + 1
                )))
            }
        }
        if advanced {
            let step = &steps[at];
            let text = match &step.instruction {
                Some(own) => own.clone(),
                None => {
                    let after = phone.observe(false).map_err(|e| fail(e.to_string()))?;
                    describe(step, &decision, &before, &after, &instance.params)
                }
            };
            out.push(text);
        }
    }
    if out.len() == steps.len() {
        return Ok(out);
    }
    Err(fail(format!(
        "solution step {} was not done within {} turns",
        out.len() + 1,
        steps.len() * TURNS_PER_STEP
    )))
}

/// The goal as an agent sees it under `--instructions steps`: the goal,
/// then the step's instruction on its own labelled line.
pub fn goal_with_instruction(goal: &str, instruction: &str) -> String {
    format!("{goal}\n{STEP_INSTRUCTION_LABEL}{instruction}")
}

/// The instruction shown online, where the agent may take its own way: the
/// reference steps that lead from the last milestone reached (in order) to
/// the next one, joined ("Type “x” in the Text message field, then tap
/// Send"). Milestone `i` first holds after `milestone_steps[i]` reference
/// steps; `reached_in_order` milestones are reached. Once every milestone
/// is reached, the reference steps after the last one (an `answer`, a
/// final tap no milestone names); `None` when there are none, or no
/// instructions. Without milestones, the whole solution is the one stretch.
pub fn online_instruction(
    instructions: &[String],
    milestone_steps: &[usize],
    reached_in_order: usize,
) -> Option<String> {
    if instructions.is_empty() || reached_in_order > milestone_steps.len() {
        return None;
    }
    let from = match reached_in_order {
        0 => 0,
        n => milestone_steps[n - 1],
    };
    let to = match milestone_steps.get(reached_in_order) {
        Some(&to) => to,
        None if from < instructions.len() => instructions.len(),
        None => return None,
    };
    let from = from.min(instructions.len());
    let to = to.clamp(from, instructions.len());
    // A milestone that holds after the same step as the last one: the next
    // step is still the way forward.
    let stretch = if from == to {
        &instructions[from..(from + 1).min(instructions.len())]
    } else {
        &instructions[from..to]
    };
    join_steps(stretch)
}

/// `A`, `A, then b`, `A, then b, then c`: each later step's first letter
/// lowered unless it starts a name ("Open Settings" stays as it is).
fn join_steps(steps: &[String]) -> Option<String> {
    let (first, rest) = steps.split_first()?;
    let mut out = first.clone();
    for step in rest {
        out.push_str(", then ");
        out.push_str(&lower_verb(step));
    }
    Some(out)
}

/// The instruction's leading verb in lower case: "Tap X" → "tap X".
fn lower_verb(step: &str) -> String {
    let verb_end = step.find(' ').unwrap_or(step.len());
    let (verb, rest) = step.split_at(verb_end);
    format!("{}{rest}", verb.to_lowercase())
}

/// The instruction for one solution step, from what it did and the screens
/// before and after it.
fn describe(
    step: &Step,
    decision: &Decision,
    before: &Observation,
    after: &Observation,
    params: &BTreeMap<String, String>,
) -> String {
    if let Some(package) = &step.launch {
        return format!("Open {}", app_label(package));
    }
    if step.open.is_some() {
        return open_phrase(after);
    }
    if let Some(text) = &step.text {
        return match focused_field(&before.hierarchy, params) {
            Some(field) => format!("Type “{text}” in the {field} field"),
            None => format!("Type “{text}”"),
        };
    }
    if let Some(text) = &step.answer {
        return format!("Answer “{text}”");
    }
    if step.swipe.is_some() {
        return "Swipe down from the top of the screen to open the notifications".into();
    }
    if let Some(key) = step.key {
        return match key {
            Key::Back => "Go back".into(),
            Key::Home => "Go to the home screen".into(),
            Key::Enter => "Press Enter".into(),
        };
    }
    let (verb, point) = match decision {
        Decision::Act(DeviceAction::Tap { x, y }) => ("Tap", (*x, *y)),
        Decision::Act(DeviceAction::LongPress { x, y }) => ("Long-press", (*x, *y)),
        // The solver decides nothing else for a tap or long press step.
        _ => return "Tap".into(),
    };
    let selector = step.tap.as_ref().or(step.long_press.as_ref());
    let node = selector.and_then(|s| {
        s.find_all(&before.hierarchy)
            .into_iter()
            .find(|n| n.bounds.contains(point.0, point.1))
    });
    match (node, selector) {
        (Some(node), Some(selector)) => format!(
            "{verb} {}{}",
            target_name(&before.hierarchy, node, selector, params),
            slider_point(node, step.at)
        ),
        _ => verb.to_string(),
    }
}

/// The launcher label of `package` ("Settings"), or the package itself.
fn app_label(package: &str) -> &str {
    APPS.iter()
        .find(|(_, p)| *p == package)
        .map_or(package, |(label, _)| label)
}

/// "Open the Alarm tab of Clock": the screen an intent opened, named by its
/// title (the first text on it) and its app.
fn open_phrase(after: &Observation) -> String {
    let app = app_label(&after.foreground);
    let title = after
        .hierarchy
        .walk()
        .find(|n| !n.bounds.is_empty() && !n.text.trim().is_empty())
        .map(|n| n.text.trim().to_string());
    match title {
        Some(title) => format!("Open {title} in {app}"),
        None => format!("Open {app}"),
    }
}

fn is_field(n: &Node) -> bool {
    let class = n.class.rsplit('.').next().unwrap_or(&n.class);
    n.password || class.ends_with("EditText") || class.ends_with("AutoCompleteTextView")
}

/// A field's name: its hint, its content-desc, the text it shows while
/// empty (Android reports an empty field's hint as its text, and so does
/// the simulator), or its resource id in words. Text that holds a digit,
/// an `@`, or one of the task's param values is what was typed in it, not
/// its name.
fn field_name(n: &Node, params: &BTreeMap<String, String>) -> String {
    let text = n.text.trim();
    let typed = text.contains(|c: char| c.is_ascii_digit() || c == '@')
        || params
            .values()
            .any(|v| v.chars().count() >= 3 && text.contains(v.as_str()));
    let shown = if typed { "" } else { text };
    [
        n.extra("hint").unwrap_or(""),
        n.content_desc.as_str(),
        shown,
    ]
    .into_iter()
    .map(str::trim)
    .find(|s| !s.is_empty())
    .map(str::to_string)
    .unwrap_or_else(|| id_words(&n.resource_id))
}

/// The focused field of the screen, by name.
fn focused_field(h: &Hierarchy, params: &BTreeMap<String, String>) -> Option<String> {
    h.walk()
        .find(|n| n.focused && is_field(n))
        .map(|n| field_name(n, params))
        .filter(|name| !name.is_empty())
}

/// What to call a tapped node: a field by its name ("the Text message
/// field"); else the text the step's selector matched inside it (a
/// Settings row's title, a file's name); else its own text or
/// content-desc, or the first text inside it (texts before
/// descriptions); else the text of the nearest enclosing node that has
/// one ("the switch in 17:30"); else its resource id in words. A name
/// that more than one node of the screen bears ("More options" on every
/// file) is told apart by the node it sits in ("More options in
/// trip_notes.docx").
fn target_name(
    h: &Hierarchy,
    node: &Node,
    selector: &Selector,
    params: &BTreeMap<String, String>,
) -> String {
    if is_field(node) {
        return format!("the {} field", field_name(node, params));
    }
    let matched = (selector.text.is_some() || selector.text_regex.is_some())
        .then(|| Selector {
            text: selector.text.clone(),
            text_regex: selector.text_regex.clone(),
            ..Selector::default()
        })
        .and_then(|inner| {
            inner
                .find_all(h)
                .into_iter()
                .find(|m| node.walk().any(|d| std::ptr::eq(d, *m)))
                .map(|m| m.text.trim().to_string())
        })
        .filter(|t| !t.is_empty());
    if let Some(name) = matched.or_else(|| inner_text(node)) {
        let bearers = h
            .walk()
            .filter(|n| {
                n.clickable && !is_field(n) && inner_text(n).as_deref() == Some(name.as_str())
            })
            .count();
        if bearers > 1 {
            let around = ancestors(h, node)
                .into_iter()
                .rev()
                .filter_map(inner_text)
                .find(|t| *t != name);
            if let Some(around) = around {
                return format!("{name} in {around}");
            }
        }
        return name;
    }
    let kind = node
        .class
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .to_lowercase();
    let kind = match kind.as_str() {
        "switch" | "checkbox" => kind,
        "seekbar" => "slider".into(),
        _ => "button".into(),
    };
    if let Some(around) = ancestors(h, node).into_iter().rev().find_map(inner_text) {
        return format!("the {kind} in {around}");
    }
    match id_words(&node.resource_id).to_lowercase() {
        words if words.is_empty() => format!("the {kind}"),
        words => format!("the {words} {kind}"),
    }
}

/// A node's own text or content-desc, else the first text of a visible
/// node inside it, else the first content-desc, in document order (a row
/// is named by its title, not by the description of an icon before it).
fn inner_text(node: &Node) -> Option<String> {
    let own = [node.text.trim(), node.content_desc.trim()]
        .into_iter()
        .find(|s| !s.is_empty());
    let visible = || node.walk().filter(|n| !n.bounds.is_empty());
    own.or_else(|| visible().map(|n| n.text.trim()).find(|s| !s.is_empty()))
        .or_else(|| {
            visible()
                .map(|n| n.content_desc.trim())
                .find(|s| !s.is_empty())
        })
        .map(str::to_string)
}

/// The nodes enclosing `node`, outermost first.
fn ancestors<'a>(h: &'a Hierarchy, node: &Node) -> Vec<&'a Node> {
    fn search<'a>(at: &'a Node, node: &Node, path: &mut Vec<&'a Node>) -> bool {
        if std::ptr::eq(at, node) {
            return true;
        }
        path.push(at);
        if at.children.iter().any(|c| search(c, node, path)) {
            return true;
        }
        path.pop();
        false
    }
    let mut path = Vec::new();
    for root in &h.nodes {
        if search(root, node, &mut path) {
            break;
        }
    }
    path
}

/// `send_message_button_icon` → "Send message button icon"; a field's
/// `label_input_field` → "Label" (words that only say it is a field are
/// dropped, unless nothing else is left).
fn id_words(resource_id: &str) -> String {
    const FIELD_WORDS: &[&str] = &["input", "text", "view", "edit", "field", "et"];
    let short = resource_id
        .split_once(":id/")
        .map_or(resource_id, |(_, name)| name);
    let words: Vec<&str> = short.split('_').filter(|w| !w.is_empty()).collect();
    let named: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !FIELD_WORDS.contains(w))
        .collect();
    let words = if named.is_empty() { words } else { named };
    let mut out = words.join(" ");
    if let Some(first) = out.get(..1) {
        out = first.to_uppercase() + &out[1..];
    }
    out
}

/// Where on a slider a tap aims, when the step says (`at`): its ends, its
/// middle, or a share of its width.
fn slider_point(node: &Node, at: Option<[f32; 2]>) -> String {
    let Some([fx, _]) = at else {
        return String::new();
    };
    if !node.class.contains("SeekBar") {
        return String::new();
    }
    match fx {
        f if f <= 0.05 => " at its left end".into(),
        f if f >= 0.95 => " at its right end".into(),
        f if (f - 0.5).abs() < 0.02 => " in its middle".into(),
        f => format!(" at {:.0} % of its width", f * 100.0),
    }
}

#[cfg(test)]
#[path = "instruction_tests.rs"]
mod tests;
