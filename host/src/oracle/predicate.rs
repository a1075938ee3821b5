//! One oracle check: its task-file form (`PredicateSpec`, a flat table whose
//! `check` field names the kind) and its validated form (`Predicate`).

use std::collections::BTreeSet;

use super::baseline::Baseline;
use super::verdict::{CheckResult, Outcome};
use droidscore_phone::read_key;
use droidscore_phone::records::{fold, same_number, Filter, FilterError, Table};
use droidscore_phone::uiautomator::{Node, Selector};
use droidscore_phone::{scroll_action, Intent, Phone, SettingKey};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    Setting,
    App,
    Ui,
    Unchanged,
    NoFlips,
    Untouched,
    Record,
    Answer,
    /// The package of the foreground window (`equals`/`any_of`).
    Foreground,
}

impl CheckKind {
    /// As a task file writes it.
    pub fn name(self) -> &'static str {
        match self {
            CheckKind::Setting => "setting",
            CheckKind::App => "app",
            CheckKind::Ui => "ui",
            CheckKind::Unchanged => "unchanged",
            CheckKind::NoFlips => "no_flips",
            CheckKind::Untouched => "untouched",
            CheckKind::Record => "record",
            CheckKind::Answer => "answer",
            CheckKind::Foreground => "foreground",
        }
    }
}

/// A check as written in a task file.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PredicateSpec {
    pub check: CheckKind,
    /// A milestone's name, shown in reports (`[[milestone]]` only).
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub key: Option<String>,
    #[serde(default)]
    pub equals: Option<String>,
    #[serde(default)]
    pub any_of: Option<Vec<String>>,
    #[serde(default)]
    pub range: Option<[i64; 2]>,
    #[serde(default)]
    pub open: Option<String>,
    #[serde(default)]
    pub select: Option<Selector>,
    #[serde(default)]
    pub count: Option<usize>,
    #[serde(default)]
    pub absent: bool,
    #[serde(default)]
    pub except: Vec<String>,
    #[serde(default)]
    pub keys: Vec<String>,
    /// `record`: the table (`contacts`, `sms`, `calls`, `events`, `files`).
    #[serde(default)]
    pub table: Option<String>,
    /// `record`: which records (see `records::Filter`).
    #[serde(default, rename = "where")]
    pub filter: Option<Filter>,
    /// `answer`: how the answer and the wanted value are compared.
    #[serde(default)]
    pub normalize: Option<Normalize>,
}

/// How an `answer` check compares the agent's answer with the wanted value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Normalize {
    /// Case-folded, whitespace collapsed, trailing `.`/`!` dropped.
    #[default]
    Text,
    /// Digits only (a phone number in any spelling; see `records::same_number`).
    Digits,
    /// The first integer in the answer (`3`, `3 messages`, `three` is not one).
    Number,
    /// Byte for byte.
    Exact,
}

impl Normalize {
    fn name(self) -> &'static str {
        match self {
            Normalize::Text => "text",
            Normalize::Digits => "digits",
            Normalize::Number => "number",
            Normalize::Exact => "exact",
        }
    }

    /// Whether `answer` says `want` under this normalisation.
    pub fn same(self, answer: &str, want: &str) -> bool {
        let text = |s: &str| fold(s).trim_end_matches(['.', '!']).trim().to_string();
        match self {
            Normalize::Exact => answer == want,
            Normalize::Text => text(answer) == text(want),
            Normalize::Digits => same_number(answer, want),
            Normalize::Number => {
                let first = |s: &str| {
                    s.split(|c: char| !c.is_ascii_digit() && c != '-')
                        .find_map(|t| t.parse::<i64>().ok())
                };
                first(answer).is_some() && first(answer) == first(want)
            }
        }
    }
}

/// What a value must be.
#[derive(Debug, Clone, PartialEq)]
pub enum Want {
    Equals(String),
    AnyOf(Vec<String>),
    /// Inclusive integer range.
    Range(i64, i64),
}

/// How many nodes a UI check wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    AtLeastOne,
    Exactly(usize),
    Absent,
}

#[derive(Debug, Clone)]
pub enum Predicate {
    /// `settings get` value.
    Setting { key: SettingKey, want: Want },
    /// Simulator app data (`app/…`).
    App { key: String, want: Want },
    /// Nodes in the UI dump, after opening `open` (if given). Lists are scrolled through.
    Ui {
        open: Option<Intent>,
        select: Box<Selector>,
        count: Count,
    },
    /// Every watched key keeps its start value, except these.
    Unchanged { except: Vec<String> },
    /// No state write happened at any step, except to these keys (flip history).
    NoFlips { except: Vec<String> },
    /// No state write ever touched keys starting with these prefixes (flip history).
    Untouched { prefixes: Vec<String> },
    /// Records of `table` that `filter` accepts, as many as `count` says.
    Record {
        table: Table,
        filter: Filter,
        count: Count,
    },
    /// The agent's answer (its `answer` action) says `want`.
    Answer { want: Want, normalize: Normalize },
    /// The foreground window's package (as `Observation::foreground` gives
    /// it: the dump's root package on the simulator, `dumpsys window` over adb).
    Foreground { package: Want },
}

/// A check in a task file's `oracle` that is not a check: the message
/// starts with the field at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PredicateError {
    #[error("range: low end above high end")]
    ReversedRange,
    #[error("equals: give exactly one of equals, any_of, range")]
    Want,
    #[error("key: missing")]
    NoKey,
    #[error("key: {0:?} is app data: use check = \"app\"")]
    AppKey(String),
    #[error("key: {0:?} is not app data (app/…): use check = \"setting\"")]
    NotAppKey(String),
    /// A `setting` key that is not `namespace/name`.
    #[error("key: {0}")]
    SettingKey(#[source] droidscore_phone::SettingKeyError),
    #[error("select: missing")]
    NoSelect,
    #[error("count: give count or absent, not both")]
    CountAndAbsent,
    #[error("keys: list the key prefixes that must stay untouched")]
    NoPrefixes,
    #[error("table: missing (one of contacts, sms, calls, events, files)")]
    NoTable,
    #[error("table: {0}")]
    Table(String),
    #[error("{0}")]
    Filter(#[from] FilterError),
    #[error("equals: an answer check takes equals or any_of")]
    AnswerWant,
    #[error("equals: a foreground check takes a package in equals or any_of")]
    ForegroundWant,
    #[error("name: only a [[milestone]] has a name")]
    Named,
}

impl PredicateSpec {
    pub fn validate(self) -> Result<Predicate, PredicateError> {
        let want = |spec: &PredicateSpec| -> Result<Want, PredicateError> {
            match (&spec.equals, &spec.any_of, spec.range) {
                (Some(v), None, None) => Ok(Want::Equals(v.clone())),
                (None, Some(v), None) if !v.is_empty() => Ok(Want::AnyOf(v.clone())),
                (None, None, Some([lo, hi])) if lo <= hi => Ok(Want::Range(lo, hi)),
                (None, None, Some(_)) => Err(PredicateError::ReversedRange),
                _ => Err(PredicateError::Want),
            }
        };
        let key = |spec: &PredicateSpec| spec.key.clone().ok_or(PredicateError::NoKey);
        let count = |spec: &PredicateSpec| match (spec.count, spec.absent) {
            (Some(_), true) => Err(PredicateError::CountAndAbsent),
            (Some(n), false) => Ok(Count::Exactly(n)),
            (None, true) => Ok(Count::Absent),
            (None, false) => Ok(Count::AtLeastOne),
        };
        Ok(match self.check {
            CheckKind::Setting => {
                let k = key(&self)?;
                if k.starts_with("app/") {
                    return Err(PredicateError::AppKey(k));
                }
                Predicate::Setting {
                    key: k.parse().map_err(PredicateError::SettingKey)?,
                    want: want(&self)?,
                }
            }
            CheckKind::App => {
                let k = key(&self)?;
                if !k.starts_with("app/") {
                    return Err(PredicateError::NotAppKey(k));
                }
                Predicate::App {
                    key: k,
                    want: want(&self)?,
                }
            }
            CheckKind::Ui => {
                let select = self.select.clone().ok_or(PredicateError::NoSelect)?;
                Predicate::Ui {
                    open: self.open.clone().map(Intent),
                    select: Box::new(select),
                    count: count(&self)?,
                }
            }
            CheckKind::Unchanged => Predicate::Unchanged {
                except: self.except.clone(),
            },
            CheckKind::NoFlips => Predicate::NoFlips {
                except: self.except.clone(),
            },
            CheckKind::Record => {
                let table: Table = self
                    .table
                    .as_deref()
                    .ok_or(PredicateError::NoTable)?
                    .parse()
                    .map_err(PredicateError::Table)?;
                let filter = self.filter.clone().unwrap_or_default();
                filter.check(table.columns())?;
                Predicate::Record {
                    table,
                    filter,
                    count: count(&self)?,
                }
            }
            CheckKind::Answer => {
                let want = want(&self)?;
                if matches!(want, Want::Range(..)) {
                    return Err(PredicateError::AnswerWant);
                }
                Predicate::Answer {
                    want,
                    normalize: self.normalize.unwrap_or_default(),
                }
            }
            CheckKind::Foreground => {
                let package = want(&self)?;
                if matches!(package, Want::Range(..)) {
                    return Err(PredicateError::ForegroundWant);
                }
                Predicate::Foreground { package }
            }
            CheckKind::Untouched => {
                if self.keys.is_empty() {
                    return Err(PredicateError::NoPrefixes);
                }
                Predicate::Untouched {
                    prefixes: self.keys.clone(),
                }
            }
        })
    }
}

impl Want {
    pub(crate) fn holds(&self, value: Option<&str>) -> bool {
        let Some(value) = value else { return false };
        match self {
            Want::Equals(v) => value == v,
            Want::AnyOf(vs) => vs.iter().any(|v| v == value),
            Want::Range(lo, hi) => value
                .trim()
                .parse::<i64>()
                .is_ok_and(|n| (*lo..=*hi).contains(&n)),
        }
    }
}

impl std::fmt::Display for Want {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Want::Equals(v) => write!(f, "= {v}"),
            Want::AnyOf(vs) => write!(f, "in {{{}}}", vs.join(", ")),
            Want::Range(lo, hi) => write!(f, "in [{lo}, {hi}]"),
        }
    }
}

fn shown(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("null")
}

impl Predicate {
    /// Simulator app data (`app/…` keys) has no equivalent on a real phone.
    pub fn needs_app_data(&self) -> bool {
        matches!(self, Predicate::App { .. })
    }

    pub fn needs_flip_history(&self) -> bool {
        matches!(
            self,
            Predicate::NoFlips { .. } | Predicate::Untouched { .. }
        )
    }

    /// The check as one line, for tables and reasons.
    pub(crate) fn describe(&self) -> String {
        match self {
            Predicate::Setting { key, want } => format!("{key} {want}"),
            Predicate::App { key, want } => format!("{key} {want}"),
            Predicate::Ui {
                open,
                select,
                count,
            } => {
                let at = open
                    .as_ref()
                    .map(|i| format!(" on {}", i.0))
                    .unwrap_or_default();
                format!("{} node {select}{at}", count_words(*count))
            }
            Predicate::Unchanged { except } if except.is_empty() => "nothing else changed".into(),
            Predicate::Unchanged { except } => format!("nothing changed but {}", except.join(", ")),
            Predicate::NoFlips { except } => format!("no flips but {}", except.join(", ")),
            Predicate::Untouched { prefixes } => format!("untouched {}", prefixes.join(", ")),
            Predicate::Record {
                table,
                filter,
                count,
            } => {
                let n = count_words(*count);
                if filter.0.is_empty() {
                    format!("{n} {table} record")
                } else {
                    format!("{n} {table} record where {filter}")
                }
            }
            Predicate::Answer { want, normalize } => {
                format!("answer {want} (compared as {})", normalize.name())
            }
            Predicate::Foreground { package } => format!("foreground {package}"),
        }
    }

    /// Score this check; `answer` is the agent's last `answer` action, if any.
    pub(crate) fn evaluate(
        &self,
        phone: &mut dyn Phone,
        baseline: &Baseline,
        answer: Option<&str>,
    ) -> CheckResult {
        let check = self.describe();
        let result = |outcome, detail: String| CheckResult {
            check: check.clone(),
            outcome,
            detail,
        };
        let pass_fail = |ok: bool| if ok { Outcome::Pass } else { Outcome::Fail };
        if self.needs_flip_history() && phone.flip_history().is_none() {
            return result(
                Outcome::Skipped,
                "needs flip history, which only the simulator records".into(),
            );
        }
        match self {
            Predicate::Setting { key, want } => match phone.read_setting(key) {
                Ok(v) => result(
                    pass_fail(want.holds(v.as_deref())),
                    format!("{key} is {}", shown(&v)),
                ),
                Err(e) => result(Outcome::Skipped, format!("cannot read {key}: {e}")),
            },
            Predicate::App { key, want } => match phone.read_app(key) {
                Ok(v) => result(
                    pass_fail(want.holds(v.as_deref())),
                    format!("{key} is {}", shown(&v)),
                ),
                Err(e) => result(Outcome::Skipped, format!("cannot read {key}: {e}")),
            },
            Predicate::Ui {
                open,
                select,
                count,
            } => {
                if let Some(intent) = open {
                    if let Err(e) = phone.open(intent) {
                        return result(Outcome::Skipped, format!("cannot open {}: {e}", intent.0));
                    }
                }
                match scan(phone, select) {
                    Ok(found) => result(pass_fail(count.holds(found)), format!("found {found}")),
                    Err(e) => result(Outcome::Skipped, format!("cannot read the screen: {e}")),
                }
            }
            Predicate::Unchanged { except } => {
                let watched = |k: &String| !except.iter().any(|e| e == k);
                if let Some((key, why)) = baseline.failed.iter().find(|(k, _)| watched(k)) {
                    return result(
                        Outcome::Skipped,
                        format!("could not read {key} at the start: {why}"),
                    );
                }
                let mut changed = Vec::new();
                for (key, before) in baseline.values.iter().filter(|(k, _)| watched(k)) {
                    match read_key(phone, key) {
                        Ok(now) if &now != before => {
                            changed.push(format!("{key} {} → {}", shown(before), shown(&now)))
                        }
                        Ok(_) => {}
                        Err(e) => {
                            return result(
                                Outcome::Skipped,
                                format!("could not read {key} at the end: {e}"),
                            )
                        }
                    }
                }
                let mut detail = if changed.is_empty() {
                    format!(
                        "{} watched keys unchanged",
                        baseline.values.keys().filter(|k| watched(k)).count()
                    )
                } else {
                    changed.join("; ")
                };
                let unwatched: Vec<&str> = baseline
                    .unsupported
                    .iter()
                    .filter(|k| watched(k))
                    .map(String::as_str)
                    .collect();
                if !unwatched.is_empty() {
                    detail += &format!(
                        " (not readable on this phone, so not watched: {})",
                        unwatched.join(", ")
                    );
                }
                result(pass_fail(changed.is_empty()), detail)
            }
            Predicate::Record {
                table,
                filter,
                count,
            } => match phone.records(*table) {
                Ok(records) => {
                    let found = records.iter().filter(|r| filter.accepts(r)).count();
                    result(
                        pass_fail(count.holds(found)),
                        format!("found {found} of {} {table} records", records.len()),
                    )
                }
                Err(e) => result(Outcome::Skipped, format!("cannot read {table}: {e}")),
            },
            Predicate::Answer { want, normalize } => match answer {
                None => result(Outcome::Fail, "the agent gave no answer".into()),
                Some(said) => {
                    let ok = match want {
                        Want::Equals(v) => normalize.same(said, v),
                        Want::AnyOf(vs) => vs.iter().any(|v| normalize.same(said, v)),
                        Want::Range(..) => false,
                    };
                    result(pass_fail(ok), format!("the agent answered {said:?}"))
                }
            },
            Predicate::Foreground { package } => match phone.observe(false) {
                Ok(screen) => result(
                    pass_fail(package.holds(Some(&screen.foreground))),
                    format!("{} is in the foreground", screen.foreground),
                ),
                Err(e) => result(Outcome::Skipped, format!("cannot read the screen: {e}")),
            },
            Predicate::NoFlips { except } => {
                let flips = phone.flip_history().unwrap_or_default();
                let bad: Vec<String> = flips
                    .iter()
                    .filter(|f| !except.iter().any(|e| &f.key == e))
                    .map(|f| format!("{} {} → {} at step {}", f.key, f.from, f.to, f.step))
                    .collect();
                let detail = if bad.is_empty() {
                    format!("{} flips, all allowed", flips.len())
                } else {
                    bad.join("; ")
                };
                result(pass_fail(bad.is_empty()), detail)
            }
            Predicate::Untouched { prefixes } => {
                let flips = phone.flip_history().unwrap_or_default();
                let bad: Vec<String> = flips
                    .iter()
                    .filter(|f| prefixes.iter().any(|p| f.key.starts_with(p.as_str())))
                    .map(|f| {
                        format!(
                            "{} ({}) {} → {} at step {}",
                            f.key, f.control, f.from, f.to, f.step
                        )
                    })
                    .collect();
                let detail = if bad.is_empty() {
                    "not touched".into()
                } else {
                    bad.join("; ")
                };
                result(pass_fail(bad.is_empty()), detail)
            }
        }
    }
}

fn count_words(count: Count) -> String {
    match count {
        Count::AtLeastOne => "some".to_string(),
        Count::Exactly(n) => format!("exactly {n}"),
        Count::Absent => "no".to_string(),
    }
}

impl Count {
    pub(crate) fn holds(self, found: usize) -> bool {
        match self {
            Count::AtLeastOne => found > 0,
            Count::Exactly(n) => found == n,
            Count::Absent => found == 0,
        }
    }
}

/// Most pages scanned for a UI check: 19 alarm cards in landscape, half a
/// 395 px list a page, take 29.
const MAX_PAGES: usize = 64;

/// Count distinct matching nodes on the current screen and, where it scrolls,
/// over the whole of its first scrollable list.
///
/// The list is first scrolled to its start, then paged through by half a list
/// height at a time. Each match inside the list is placed in content
/// coordinates (its top plus the scroll offset, measured from an item whose
/// top shows on both pages), so two identical alarm cards count twice and one
/// card seen on two pages counts once. A match counts on any page where its
/// top shows: in a list shorter than two cards (the Clock in landscape) a
/// card may never show whole. Nodes outside the list are counted on the
/// first page only.
fn scan(phone: &mut dyn Phone, select: &Selector) -> Result<usize, droidscore_phone::PhoneError> {
    scroll_to_start(phone)?;
    let mut seen = BTreeSet::new();
    let mut offset: i64 = 0;
    let mut obs = phone.observe(false)?;
    let mut prev_items: Vec<(String, i32)> = Vec::new();
    for page in 0..MAX_PAGES {
        let list = obs.hierarchy.first_scrollable();
        let items = list.map(items_with_top).unwrap_or_default();
        if page > 0 {
            let step = list.map_or(0, |l| swipe_distance(l.bounds));
            offset += measured_shift(&prev_items, &items, step).unwrap_or(step);
        }
        let next = match list {
            Some(l) => {
                phone.act(&scroll_action(l.bounds, true))?;
                let next = phone.observe(false)?;
                (next.xml != obs.xml).then_some(next)
            }
            None => None,
        };
        for node in select.find_all(&obs.hierarchy) {
            let Some(list) = list.filter(|l| l.walk().any(|n| std::ptr::eq(n, node))) else {
                if page == 0 {
                    seen.insert((identity(node), i64::from(node.bounds.top), false));
                }
                continue;
            };
            let (b, l) = (node.bounds, list.bounds);
            let cut_at_top = page > 0 && b.top <= l.top;
            if !cut_at_top {
                seen.insert((place(node), i64::from(b.top) + offset, true));
            }
        }
        match next {
            Some(next) => {
                prev_items = items;
                obs = next;
            }
            None => break,
        }
    }
    Ok(seen.len())
}

fn scroll_to_start(phone: &mut dyn Phone) -> Result<(), droidscore_phone::PhoneError> {
    let mut last = phone.observe(false)?;
    for _ in 0..MAX_PAGES {
        let Some(list) = last.hierarchy.first_scrollable() else {
            return Ok(());
        };
        phone.act(&scroll_action(list.bounds, false))?;
        let now = phone.observe(false)?;
        if now.xml == last.xml {
            return Ok(());
        }
        last = now;
    }
    Ok(())
}

/// The list's direct children whose top shows (a child cut off at the
/// bottom keeps its true top; one cut off at the top does not):
/// `(identity, top)`. In a list shorter than two rows — a Clock list in
/// landscape — no child shows whole on two pages, but one's top does.
fn items_with_top(list: &Node) -> Vec<(String, i32)> {
    let l = list.bounds;
    list.children
        .iter()
        .filter(|c| c.bounds.top > l.top && c.bounds.top < l.bottom)
        .map(|c| (head(c), c.bounds.top))
        .collect()
}

/// What names a list item whose bottom may be cut off: its own attributes
/// and the first text inside it (an alarm card's time, a contact's name),
/// which sits at its top.
fn head(item: &Node) -> String {
    let first_text = item.walk().map(|n| n.text.as_str()).find(|t| !t.is_empty());
    format!(
        "{}|{}|{}|{}",
        item.class,
        item.resource_id,
        item.content_desc,
        first_text.unwrap_or("")
    )
}

/// What tells a match inside the list from another at the same content
/// position (a card and a view inside it): its class, id and left edge.
/// Not its content: a card cut off at the bottom lacks views it has whole.
fn place(node: &Node) -> String {
    format!("{}|{}|{}", node.class, node.resource_id, node.bounds.left)
}

/// How far [`scroll_action`] moves a list's content, unless it hits the end.
fn swipe_distance(list: droidscore_phone::uiautomator::Bounds) -> i64 {
    match scroll_action(list, true) {
        droidscore_phone::DeviceAction::Swipe { y1, y2, .. } => i64::from(y1 - y2),
        _ => i64::from(list.height() / 2),
    }
}

/// How far the content moved between two pages: the shift of an item seen
/// whole on both, choosing the one nearest the intended step where identical
/// items make it ambiguous.
fn measured_shift(prev: &[(String, i32)], now: &[(String, i32)], step: i64) -> Option<i64> {
    now.iter()
        .flat_map(|(id, top)| {
            prev.iter()
                .filter(move |(p, _)| p == id)
                .map(move |(_, ptop)| i64::from(ptop - top))
        })
        .min_by_key(|shift| (shift - step).abs())
}

/// What makes a node the same node: everything but its bounds.
fn identity(node: &Node) -> String {
    let mut parts = Vec::new();
    for n in node.walk() {
        parts.push(format!(
            "{}|{}|{}|{}|{}",
            n.class, n.resource_id, n.text, n.content_desc, n.checked
        ));
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use droidscore_phone::apps::{Alarm, PhoneSetup};

    /// Regression: counting by content alone merged identical alarms, and a card
    /// cut off at the list's edge was counted again where it showed whole.
    /// In landscape the Clock's list is shorter than two cards, so a card
    /// may never show whole (it was missed) and no card shows whole on two
    /// pages (the shift was guessed, and a card counted twice).
    #[test]
    fn scan_counts_every_card_of_a_long_list_once_and_identical_cards_apart() {
        for condition in [
            droidscore_phone::Condition::Base,
            droidscore_phone::Condition::Landscape,
            droidscore_phone::Condition::Small,
            droidscore_phone::Condition::Font(1300),
        ] {
            scan_alarms_in(condition);
        }
    }

    fn scan_alarms_in(condition: droidscore_phone::Condition) {
        let mut alarms: Vec<Alarm> = (5..=22)
            .map(|hour| Alarm {
                id: 0,
                hour,
                minute: 40,
                enabled: true,
                label: String::new(),
            })
            .collect();
        alarms.push(Alarm {
            id: 0,
            hour: 9,
            minute: 40,
            enabled: true,
            label: String::new(),
        });
        let mut phone = crate::test_support::with_setup(PhoneSetup {
            alarms,
            condition,
            ..PhoneSetup::default()
        });
        let baseline = Baseline::capture(phone.as_mut());
        for hour in 5..=22 {
            let time = format!("{hour:02}:40");
            let want = if hour == 9 { 2 } else { 1 };
            let select = Selector::resource_id("com.google.android.deskclock:id/alarm_card").has(
                Selector::resource_id("com.google.android.deskclock:id/digital_clock")
                    .with_text(&time),
            );
            let check = Predicate::Ui {
                open: Some(Intent("android.intent.action.SHOW_ALARMS".into())),
                select: Box::new(select),
                count: Count::Exactly(want),
            };
            let result = check.evaluate(phone.as_mut(), &baseline, None);
            assert_eq!(
                result.outcome,
                Outcome::Pass,
                "{condition} {time}: {}",
                result.detail
            );
        }
    }
}
