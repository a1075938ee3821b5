//! The lexical floor agent (`--agent lexical`): no model, only the words of
//! the text it is given. A score that no model is needed for, so that a
//! model's score has a baseline to beat; given step instructions it also
//! checks that the instructions are right (they must be enough to do the task).
//!
//! What it reads: the goal text of the step. Under `--instructions steps`
//! that text ends in a `Step instruction: …` line (see
//! `task::goal_with_instruction`), and the agent reads that line alone; else
//! it reads the goal. The text is cut into clauses at `, then ` and `. `.
//!
//! What it does with a clause, deterministically:
//! - `Open X` (or a launcher label, of one word or several, after open,
//!   launch, start, in, using, or before "app"): launch that app unless it
//!   is in the foreground.
//! - `Type “text” …` (curly or straight quotes): type the text when an
//!   editable field is focused; else tap the editable field whose name best
//!   matches the clause's words (first the field, then the text).
//! - `Go back`, `Press Enter`, `Go to the home screen`: that key.
//! - `Swipe down from the top of the screen …`: pull the notification
//!   shade (a swipe from the status bar).
//! - `Answer “text”`: answer it.
//! - `Tap …`, `Long-press …`, or anything else: tap (long-press) the element
//!   whose label, content-desc or hint shares the most words with the
//!   clause, stopwords left out and a plural's `s` dropped (a clause of
//!   stopwords alone, "Turn on", is read with them); ties go to the element
//!   of the kind the clause names (a field for "the Hour field", a switch
//!   for "the switch in 07:30", a slider; no field when it names none), then
//!   to the one with fewer words of its own (the exact "Wi-Fi" before
//!   "Wi-Fi calling"), then to document order. A field is also known by its
//!   resource id's words, since its text is what was typed in it. An element bearing every word of
//!   the clause is wanted; with none on screen it pages down the first list,
//!   at most 4 times, then takes the best bearing at least half of them,
//!   else passes the clause over. A slider is tapped where the clause says
//!   (left end, right end, middle, N %).
//!
//! When it is done: a step instruction's clauses are done one an action, in
//! order; once every clause is done it declares the task complete, unless
//! the same instruction is still shown after its last action changed the
//! screen: then it is the next sub-goal's instruction too ("Go back" for
//! two sub-goals) and its clauses are done again. A goal (no step
//! instruction) is not a list of steps: the agent keeps tapping the best
//! match (one word shared is enough) it has not tapped yet, types each
//! quoted text once, and declares complete when nothing left on screen
//! matches. Once it has been given a step instruction, a goal with none
//! means every milestone was reached, and it declares complete. It never
//! taps the same element (by its label, description, hint, context and
//! bounds) twice under one instruction, so it cannot repeat a tap forever.

use std::collections::BTreeSet;

use super::{Agent, Decision};
use crate::task::STEP_INSTRUCTION_LABEL;
use droidscore_phone::apps::APPS;
use droidscore_phone::uiautomator::{elements, Element};
use droidscore_phone::{scroll_action, DeviceAction, Key, Observation};

/// Words that name no element: articles, prepositions, the verbs of the
/// instructions, and words the instructions add around a name.
const STOPWORDS: &[&str] = &[
    "a", "an", "the", "to", "of", "in", "on", "off", "at", "for", "with", "and", "or", "its", "it",
    "is", "be", "by", "from", "as", "into", "this", "that", "then", "tap", "long", "press", "type",
    "open", "go", "field", "button", "switch", "slider", "my", "your", "please", "set", "turn",
    "app", "screen", "end", "left", "right", "middle", "width",
];

/// Scrolls in search of one clause's element before it is passed over.
const MAX_SCROLLS: u32 = 4;

/// Words before a launcher label that say the app is to be opened.
const OPEN_WORDS: &[&str] = &["open", "launch", "start", "in", "using"];

/// How many of the words an element must share to be a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    /// None: any candidate (a field to type into), best first.
    Any,
    One,
    /// At least half of them.
    Half,
    /// Every one.
    All,
}

/// One clause of the text, as the agent reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Clause {
    Open(String),
    /// "Swipe down from the top of the screen": pull the notification shade.
    Shade,
    Type(String, String),
    Key(Key),
    Answer(String),
    Tap {
        long: bool,
        words: String,
    },
}

#[derive(Debug, Default)]
pub struct LexicalAgent {
    /// The text it last read: the step instruction, or the goal.
    text: String,
    /// Whether that text is a step instruction (a list of steps).
    stepwise: bool,
    /// Whether any step instruction was given this episode.
    guided: bool,
    /// The next clause of a step instruction to do.
    at: usize,
    /// What was done under this text: `tap:NAME`, `type:TEXT`, `open:PKG`.
    done: BTreeSet<String>,
    /// Scrolls in search of the current clause's element.
    scrolls: u32,
    /// The screen before the last scroll: an unchanged one is the list's end.
    scrolled_from: Option<String>,
    /// The screen the last action under a step instruction was taken on.
    acted_from: Option<String>,
}

impl LexicalAgent {
    pub fn new() -> Self {
        Self::default()
    }

    /// Read `goal`: its step instruction line if it has one. A new text
    /// starts afresh.
    fn read(&mut self, goal: &str) {
        let (text, stepwise) = match goal
            .lines()
            .find_map(|l| l.strip_prefix(STEP_INSTRUCTION_LABEL))
        {
            Some(step) => (step.trim().to_string(), true),
            None => (goal.trim().to_string(), false),
        };
        if text != self.text || stepwise != self.stepwise {
            self.text = text;
            self.stepwise = stepwise;
            self.at = 0;
            self.done.clear();
            self.scrolls = 0;
            self.scrolled_from = None;
            self.acted_from = None;
        }
        self.guided |= stepwise;
    }

    /// One step instruction, clause by clause.
    fn stepwise(&mut self, obs: &Observation) -> Decision {
        let clauses = clauses(&self.text);
        let els = elements(&obs.hierarchy);
        // Every clause done, the same instruction still shown, and the last
        // action changed the screen: the instruction is the next sub-goal's
        // too ("Go back" twice). Its clauses are done again; what was
        // tapped under it stays tapped.
        if self.at >= clauses.len() && self.acted_from.as_ref().is_some_and(|x| *x != obs.xml) {
            self.at = 0;
            self.acted_from = None;
        }
        while let Some(clause) = clauses.get(self.at) {
            if let Some(decision) = self.act_on(clause, obs, &els) {
                if matches!(decision, Decision::Act(_)) {
                    self.acted_from = Some(obs.xml.clone());
                }
                return decision;
            }
            self.at += 1;
        }
        Decision::Complete
    }

    /// What to do for `clause`, or `None` when it is done or cannot be done
    /// here (the next clause then). Advances past a clause it completes.
    fn act_on(&mut self, clause: &Clause, obs: &Observation, els: &[Element]) -> Option<Decision> {
        match clause {
            Clause::Open(package) => {
                let key = format!("open:{package}");
                if obs.foreground == *package || self.done.contains(&key) {
                    return None;
                }
                self.done.insert(key);
                self.at += 1;
                Some(Decision::Act(DeviceAction::Launch {
                    package: package.clone(),
                }))
            }
            Clause::Type(text, words) => {
                if els.iter().any(|e| e.editable && e.focused) {
                    self.done.insert(format!("type:{text}"));
                    self.at += 1;
                    return Some(Decision::Act(DeviceAction::Text { text: text.clone() }));
                }
                let fields = els.iter().filter(|e| e.editable);
                match self.best(fields, words, Need::Any) {
                    Some(field) => Some(self.tap(field, false, words)),
                    // No field to focus: typed anyway, the phone decides.
                    None => {
                        self.at += 1;
                        Some(Decision::Act(DeviceAction::Text { text: text.clone() }))
                    }
                }
            }
            Clause::Key(key) => {
                self.at += 1;
                Some(Decision::Act(DeviceAction::Key { key: *key }))
            }
            Clause::Shade => {
                self.at += 1;
                Some(Decision::Act(super::reference::shade_swipe(obs)))
            }
            Clause::Answer(text) => {
                self.at += 1;
                Some(Decision::Answer(text.clone()))
            }
            Clause::Tap { long, words } => {
                // An element bearing every word; else a few scrolls in
                // search of one; else the best bearing half of them.
                let target = match self.best(els.iter(), words, Need::All) {
                    Some(e) => Some(e),
                    None => match self.scroll(obs) {
                        Some(scroll) => return Some(scroll),
                        None => self.best(els.iter(), words, Need::Half),
                    },
                };
                let target = target?;
                self.at += 1;
                self.scrolls = 0;
                self.scrolled_from = None;
                Some(self.tap(target, *long, words))
            }
        }
    }

    /// A scroll down the first list in search of a clause's element, at
    /// most [`MAX_SCROLLS`] a clause and never past the list's end; `None`
    /// (the clause is passed over) when no scroll is left.
    fn scroll(&mut self, obs: &Observation) -> Option<Decision> {
        let at_end = self.scrolled_from.as_deref() == Some(obs.xml.as_str());
        let list = obs.hierarchy.first_scrollable();
        match list {
            Some(list) if self.scrolls < MAX_SCROLLS && !at_end => {
                self.scrolls += 1;
                self.scrolled_from = Some(obs.xml.clone());
                Some(Decision::Act(scroll_action(list.bounds, true)))
            }
            _ => {
                self.scrolls = 0;
                self.scrolled_from = None;
                None
            }
        }
    }

    /// A goal, not a list of steps: open the app it names, type its quoted
    /// text into a focused field, else tap the best match not yet tapped.
    fn greedy(&mut self, obs: &Observation) -> Decision {
        let els = elements(&obs.hierarchy);
        if let Some(package) = named_app(&self.text) {
            let key = format!("open:{package}");
            if obs.foreground != package && !self.done.contains(&key) {
                self.done.insert(key);
                return Decision::Act(DeviceAction::Launch { package });
            }
        }
        if els.iter().any(|e| e.editable && e.focused) {
            if let Some(text) = quoted(&self.text)
                .into_iter()
                .find(|t| !self.done.contains(&format!("type:{t}")))
            {
                self.done.insert(format!("type:{text}"));
                return Decision::Act(DeviceAction::Text { text });
            }
        }
        let words = unquoted(&self.text);
        match self.best(els.iter(), &words, Need::One) {
            Some(target) => self.tap(target, false, &words),
            None => Decision::Complete,
        }
    }

    /// The element sharing the most words with `words`, not tapped yet
    /// under this text, with at least `least` words shared (see the module
    /// docs for ties).
    fn best<'a>(
        &self,
        candidates: impl Iterator<Item = &'a Element>,
        words: &str,
        need: Need,
    ) -> Option<&'a Element> {
        let (want, plain) = match tokens(words) {
            // Only stopwords ("Turn on"): the words as they are, less the verb.
            w if w.is_empty() => (plain_tokens(words).into_iter().skip(1).collect(), true),
            w => (w, false),
        };
        let want: Vec<String> = want
            .iter()
            .enumerate()
            .filter(|(i, w)| !want[..*i].contains(w))
            .map(|(_, w)| w.clone())
            .collect();
        let lower = words.to_lowercase();
        let names = |kind: &str| {
            lower
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| w == kind)
        };
        // The kind of element the clause names, if any ("the Hour field",
        // "the switch in 07:30"); a clause naming none means no field.
        let of_kind = |e: &Element| {
            if names("field") {
                e.editable
            } else if names("switch") || names("checkbox") {
                e.checked.is_some()
            } else if names("slider") {
                e.class.contains("SeekBar")
            } else {
                !e.editable
            }
        };
        let mut best: Option<(usize, bool, usize, &Element)> = None;
        for e in candidates {
            if self.done.contains(&format!("tap:{}", name(e))) {
                continue;
            }
            let own = element_tokens(e, plain);
            let shared = own.iter().filter(|t| want.contains(t)).count();
            let extra = own.len() - shared;
            let enough = match need {
                Need::Any => true,
                Need::One => shared >= 1,
                Need::Half => shared >= 1 && shared * 2 >= want.len(),
                Need::All => !want.is_empty() && shared == want.len(),
            };
            if !enough {
                continue;
            }
            let kind = of_kind(e);
            let better = match best {
                None => true,
                Some((s, k, x, _)) => {
                    (shared, kind, std::cmp::Reverse(extra)) > (s, k, std::cmp::Reverse(x))
                }
            };
            if better {
                best = Some((shared, kind, extra, e));
            }
        }
        best.map(|(_, _, _, e)| e)
    }

    /// Tap (or long-press) `e`, remembered by name; a slider where `words` say.
    fn tap(&mut self, e: &Element, long: bool, words: &str) -> Decision {
        self.done.insert(format!("tap:{}", name(e)));
        let (mut x, y) = e.center;
        if e.class.contains("SeekBar") {
            if let Some(fx) = slider_fraction(words) {
                let b = e.bounds;
                x = (b.left + (b.width() as f32 * fx) as i32).clamp(b.left, b.right - 1);
            }
        }
        Decision::Act(if long {
            DeviceAction::LongPress { x, y }
        } else {
            DeviceAction::Tap { x, y }
        })
    }
}

impl Agent for LexicalAgent {
    fn next(&mut self, goal: &str, observation: &Observation) -> Decision {
        self.read(goal);
        if self.stepwise {
            self.stepwise(observation)
        } else if self.guided {
            Decision::Complete
        } else {
            self.greedy(observation)
        }
    }
}

/// What an element is remembered by: the first part of its label (a
/// Settings row's title, not its summary, which says its state: a switch
/// row is the same row on or off), description, hint, context and bounds.
fn name(e: &Element) -> String {
    let title = e.label.split(" — ").next().unwrap_or_default();
    format!(
        "{title}|{}|{}|{}|{:?}",
        e.content_desc, e.hint, e.context, e.bounds
    )
}

/// The words an element is known by, each once: its label, description
/// and hint, or when it has none, the label of the element it sits in.
fn element_tokens(e: &Element, plain: bool) -> Vec<String> {
    let words = |s: &str| if plain { plain_tokens(s) } else { tokens(s) };
    let mut own: Vec<String> = Vec::new();
    for text in [&e.label, &e.content_desc, &e.hint] {
        for t in words(text) {
            if !own.contains(&t) {
                own.push(t);
            }
        }
    }
    // A field's text is what was typed in it: it is also known by its
    // resource id's words (`input_hour`: "input hour").
    if e.editable {
        for t in words(&e.resource_id.replace('_', " ")) {
            if !own.contains(&t) {
                own.push(t);
            }
        }
    }
    if own.is_empty() {
        for t in words(&e.context) {
            if !own.contains(&t) {
                own.push(t);
            }
        }
    }
    own
}

/// Lower-case words of `s` without stopwords, a plural's `s` dropped.
fn tokens(s: &str) -> Vec<String> {
    plain_tokens(s)
        .into_iter()
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .collect()
}

/// Lower-case words of `s`, a plural's `s` dropped, stopwords kept.
fn plain_tokens(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| stem(&w.to_lowercase()))
        .collect()
}

fn stem(w: &str) -> String {
    match w.strip_suffix('s') {
        Some(base) if w.len() > 3 && !base.ends_with('s') => base.to_string(),
        _ => w.to_string(),
    }
}

/// The texts in “…” or "…" quotes, in order.
fn quoted(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    loop {
        let Some(open) = rest.find(['“', '"']) else {
            return out;
        };
        let after = &rest[open + rest[open..].chars().next().map_or(1, char::len_utf8)..];
        let Some(close) = after.find(['”', '"']) else {
            return out;
        };
        out.push(after[..close].to_string());
        rest = &after[close + after[close..].chars().next().map_or(1, char::len_utf8)..];
    }
}

/// `s` with its quoted texts taken out (what is typed names no element).
fn unquoted(s: &str) -> String {
    let mut out = s.to_string();
    for q in quoted(s) {
        out = out.replacen(&q, " ", 1);
    }
    out
}

/// The package of a launcher label the text names as the app to open: after
/// open, launch, start, in or using, or before "app". A label of several
/// words ("Pro Expense", "Audio Recorder") is matched whole, the longest
/// label first where two would match at one place.
fn named_app(text: &str) -> Option<String> {
    let words: Vec<String> = unquoted(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut labels: Vec<(Vec<String>, &str)> = APPS
        .iter()
        .map(|(label, package)| {
            let label_words = label
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect();
            (label_words, *package)
        })
        .filter(|(label_words, _): &(Vec<String>, &str)| !label_words.is_empty())
        .collect();
    labels.sort_by_key(|(label_words, _)| std::cmp::Reverse(label_words.len()));
    for i in 0..words.len() {
        for (label_words, package) in &labels {
            let end = i + label_words.len();
            if words.get(i..end) != Some(label_words.as_slice()) {
                continue;
            }
            let before = i.checked_sub(1).map(|j| words[j].as_str());
            let after = words.get(end).map(String::as_str);
            if before.is_some_and(|b| OPEN_WORDS.contains(&b)) || after == Some("app") {
                return Some(package.to_string());
            }
        }
    }
    None
}

/// Where on a slider the words say to tap, as a share of its width.
fn slider_fraction(words: &str) -> Option<f32> {
    let lower = words.to_lowercase();
    if lower.contains("left end") {
        return Some(0.0);
    }
    if lower.contains("right end") {
        return Some(1.0);
    }
    if lower.contains("middle") {
        return Some(0.5);
    }
    let at = lower.find(" %")?;
    let digits: String = lower[..at]
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse::<f32>().ok().map(|p| p / 100.0)
}

/// The clauses of a step instruction, in order.
fn clauses(text: &str) -> Vec<Clause> {
    split_clauses(text).iter().map(|c| clause(c)).collect()
}

/// `A, then b. C` → `A`, `b`, `C`; quoted text is never cut.
fn split_clauses(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut in_quote = false;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '“' => in_quote = true,
            '”' => in_quote = false,
            '"' => in_quote = !in_quote,
            _ => {}
        }
        let rest: String = chars[i..].iter().take(7).collect();
        if !in_quote && rest == ", then " {
            out.push(std::mem::take(&mut current));
            i += 7;
            continue;
        }
        if !in_quote && c == '.' && chars.get(i + 1).is_none_or(|n| *n == ' ') {
            out.push(std::mem::take(&mut current));
            i += 1;
            continue;
        }
        current.push(c);
        i += 1;
    }
    out.push(current);
    out.into_iter()
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect()
}

/// What one clause asks, by its first word.
fn clause(text: &str) -> Clause {
    let lower = text.to_lowercase();
    let first = lower.split_whitespace().next().unwrap_or("");
    let quote = quoted(text).into_iter().next();
    match (first, quote) {
        ("type", Some(q)) => Clause::Type(q, unquoted(text)),
        ("answer", Some(q)) => Clause::Answer(q),
        _ if lower == "go back" => Clause::Key(Key::Back),
        _ if lower.starts_with("swipe down from the top") => Clause::Shade,
        _ if lower.starts_with("press enter") => Clause::Key(Key::Enter),
        _ if lower.starts_with("go to the home screen") || lower == "go home" => {
            Clause::Key(Key::Home)
        }
        ("open" | "launch" | "start", _) if named_app(text).is_some() => {
            Clause::Open(named_app(text).unwrap_or_default())
        }
        _ => Clause::Tap {
            long: first.starts_with("long"),
            words: unquoted(text),
        },
    }
}

#[cfg(test)]
#[path = "lexical_tests.rs"]
mod tests;
