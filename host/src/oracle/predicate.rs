//! One oracle check: its task-file form (`PredicateSpec`, a flat table whose
//! `check` field names the kind) and its validated form (`Predicate`).

use std::collections::BTreeSet;

use super::verdict::{CheckResult, Outcome};
use super::{read_key, watched_keys, Baseline};
use crate::phone::{DeviceAction, Intent, Phone, SettingKey};
use crate::uiautomator::{Hierarchy, Node, Selector};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    Setting,
    App,
    Ui,
    Unchanged,
    NoFlips,
    Untouched,
}

/// A check as written in a task file.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PredicateSpec {
    pub check: CheckKind,
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
}

impl PredicateSpec {
    pub fn validate(self) -> Result<Predicate, String> {
        let want = |spec: &PredicateSpec| -> Result<Want, String> {
            match (&spec.equals, &spec.any_of, spec.range) {
                (Some(v), None, None) => Ok(Want::Equals(v.clone())),
                (None, Some(v), None) if !v.is_empty() => Ok(Want::AnyOf(v.clone())),
                (None, None, Some([lo, hi])) if lo <= hi => Ok(Want::Range(lo, hi)),
                (None, None, Some(_)) => Err("range: low end above high end".into()),
                _ => Err("equals: give exactly one of equals, any_of, range".into()),
            }
        };
        let key = |spec: &PredicateSpec| spec.key.clone().ok_or_else(|| "key: missing".to_string());
        Ok(match self.check {
            CheckKind::Setting => {
                let k = key(&self)?;
                if k.starts_with("app/") {
                    return Err(format!("key: {k:?} is app data: use check = \"app\""));
                }
                Predicate::Setting {
                    key: k.parse().map_err(|e| format!("key: {e}"))?,
                    want: want(&self)?,
                }
            }
            CheckKind::App => {
                let k = key(&self)?;
                if !k.starts_with("app/") {
                    return Err(format!(
                        "key: {k:?} is not app data (app/…): use check = \"setting\""
                    ));
                }
                Predicate::App {
                    key: k,
                    want: want(&self)?,
                }
            }
            CheckKind::Ui => {
                let select = self.select.clone().ok_or("select: missing")?;
                let count = match (self.count, self.absent) {
                    (Some(_), true) => return Err("count: give count or absent, not both".into()),
                    (Some(n), false) => Count::Exactly(n),
                    (None, true) => Count::Absent,
                    (None, false) => Count::AtLeastOne,
                };
                Predicate::Ui {
                    open: self.open.clone().map(Intent),
                    select: Box::new(select),
                    count,
                }
            }
            CheckKind::Unchanged => Predicate::Unchanged {
                except: self.except.clone(),
            },
            CheckKind::NoFlips => Predicate::NoFlips {
                except: self.except.clone(),
            },
            CheckKind::Untouched => {
                if self.keys.is_empty() {
                    return Err("keys: list the key prefixes that must stay untouched".into());
                }
                Predicate::Untouched {
                    prefixes: self.keys.clone(),
                }
            }
        })
    }
}

impl Want {
    fn holds(&self, value: Option<&str>) -> bool {
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
    pub fn describe(&self) -> String {
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
                let n = match count {
                    Count::AtLeastOne => "some".to_string(),
                    Count::Exactly(n) => format!("exactly {n}"),
                    Count::Absent => "no".to_string(),
                };
                format!("{n} node {select}{at}")
            }
            Predicate::Unchanged { except } if except.is_empty() => "nothing else changed".into(),
            Predicate::Unchanged { except } => format!("nothing changed but {}", except.join(", ")),
            Predicate::NoFlips { except } => format!("no flips but {}", except.join(", ")),
            Predicate::Untouched { prefixes } => format!("untouched {}", prefixes.join(", ")),
        }
    }

    pub fn evaluate(&self, phone: &mut dyn Phone, baseline: &Baseline) -> CheckResult {
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
                    Ok(found) => {
                        let ok = match count {
                            Count::AtLeastOne => found > 0,
                            Count::Exactly(n) => found == *n,
                            Count::Absent => found == 0,
                        };
                        result(pass_fail(ok), format!("found {found}"))
                    }
                    Err(e) => result(Outcome::Skipped, format!("cannot read the screen: {e}")),
                }
            }
            Predicate::Unchanged { except } => {
                let mut changed = Vec::new();
                for key in watched_keys().filter(|k| !except.iter().any(|e| e == k)) {
                    let Some(before) = baseline.values.get(key) else {
                        continue;
                    };
                    if let Ok(now) = read_key(phone, key) {
                        if &now != before {
                            changed.push(format!("{key} {} → {}", shown(before), shown(&now)));
                        }
                    }
                }
                let detail = if changed.is_empty() {
                    "no other key changed".into()
                } else {
                    changed.join("; ")
                };
                result(pass_fail(changed.is_empty()), detail)
            }
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

/// Count distinct matching nodes on the current screen and, where it scrolls,
/// on every page of its first scrollable list (a node seen on two pages counts once).
fn scan(phone: &mut dyn Phone, select: &Selector) -> Result<usize, crate::phone::PhoneError> {
    const MAX_PAGES: usize = 12;
    let mut seen = BTreeSet::new();
    let mut last_xml = String::new();
    for _ in 0..MAX_PAGES {
        let obs = phone.observe(false)?;
        if obs.xml == last_xml {
            break;
        }
        for node in select.find_all(&obs.hierarchy) {
            seen.insert(identity(node));
        }
        let Some(list) = first_scrollable(&obs.hierarchy) else {
            break;
        };
        let b = list.bounds;
        let (x, y1, y2) = (
            b.center().0,
            b.top + b.height() * 3 / 4,
            b.top + b.height() / 4,
        );
        phone.act(&DeviceAction::Swipe {
            x1: x,
            y1,
            x2: x,
            y2,
            duration_ms: 300,
        })?;
        last_xml = obs.xml;
    }
    Ok(seen.len())
}

fn first_scrollable(h: &Hierarchy) -> Option<&Node> {
    h.walk().find(|n| n.scrollable && !n.bounds.is_empty())
}

/// What makes a node the same node on another page: everything but its bounds.
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
