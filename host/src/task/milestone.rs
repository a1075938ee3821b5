//! Milestones: the ordered sub-goals of a task instance, for credit short of
//! success (AndroidLab's Sub-SR, LlamaTouch's ordered essential states).
//!
//! A task file may declare them as `[[milestone]]` tables in the oracle's
//! predicate language (`setting`, `app`, `record`, `ui` without `open`, and
//! `foreground`); where it declares none they are derived from the reference
//! solution and the oracle ([`derive`]): the app each `launch` brings to the
//! foreground, the screen of each tap that follows a navigating step (the
//! node that step taps is on screen), and the oracle's own state checks.
//!
//! A milestone is read from the phone as the agent left it and never moves
//! it: a `ui` milestone looks at the current dump only (no `open`, no
//! scrolling), so it means the same on the simulator and on a phone over adb.
//! `tasks check` proves every milestone false at the start and all reached in
//! order under the reference (see `check.rs`).

use droidscore_phone::{read_key, Observation, Phone};

use super::Step;
use crate::oracle::{CheckKind, Oracle, Predicate, PredicateError, PredicateSpec};

/// Where a milestone came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A `[[milestone]]` of the task file.
    Declared,
    /// A reference `launch`: the app in the foreground.
    App,
    /// A reference tap after a navigating step: the node it taps is on screen.
    Screen,
    /// One of the oracle's state checks.
    Oracle,
}

/// One sub-goal: a state predicate the phone reaches.
#[derive(Debug, Clone)]
pub struct Milestone {
    /// As reports show it (`com.android.settings in the foreground`).
    pub name: String,
    pub predicate: Predicate,
    pub source: Source,
}

/// A `[[milestone]]` that cannot be one; shown after `milestone`, so each
/// message starts with its index and field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MilestoneError {
    #[error(
        "[{index}].check: {kind:?} constrains a whole episode, it is no state to reach; \
         a milestone is one of setting, app, record, ui, foreground"
    )]
    Constraint { index: usize, kind: &'static str },
    #[error(
        "[{index}].open: a milestone is read from the screen the agent is on, \
         so it cannot open another (drop open, or make it an oracle check)"
    )]
    Opens { index: usize },
    #[error("[{index}].{source}")]
    Check {
        index: usize,
        #[source]
        source: PredicateError,
    },
    #[error("[{index}].key: {key:?} is not a state key this phone has")]
    UnknownKey { index: usize, key: String },
}

/// The task file's `[[milestone]]` tables, checked: state kinds only, no `open`.
pub(crate) fn declared(specs: Vec<PredicateSpec>) -> Result<Vec<Milestone>, MilestoneError> {
    specs
        .into_iter()
        .enumerate()
        .map(|(index, spec)| {
            match spec.check {
                CheckKind::Unchanged
                | CheckKind::NoFlips
                | CheckKind::Untouched
                | CheckKind::Answer => {
                    return Err(MilestoneError::Constraint {
                        index,
                        kind: spec.check.name(),
                    })
                }
                CheckKind::Ui if spec.open.is_some() => {
                    return Err(MilestoneError::Opens { index })
                }
                _ => {}
            }
            let name = spec.name.clone();
            let predicate = spec
                .validate()
                .map_err(|source| MilestoneError::Check { index, source })?;
            Ok(Milestone {
                name: name.unwrap_or_else(|| predicate.describe()),
                predicate,
                source: Source::Declared,
            })
        })
        .collect()
}

/// Declared `setting` and `app` keys must be keys the phone holds (`known`).
pub(crate) fn check_keys(
    milestones: &[Milestone],
    known: &std::collections::BTreeSet<String>,
) -> Result<(), MilestoneError> {
    for (index, m) in milestones.iter().enumerate() {
        let key = match &m.predicate {
            Predicate::Setting { key, .. } => key.to_string(),
            Predicate::App { key, .. } => key.clone(),
            _ => continue,
        };
        if !known.contains(&key) {
            return Err(MilestoneError::UnknownKey { index, key });
        }
    }
    Ok(())
}

/// The milestones of a task that declares none, in the order the reference
/// reaches them: for each reference step, the app a `launch` (or an `open`
/// of a `package/.Activity` component) brings to the foreground, and the
/// screen of a tap or long press that follows a tap, long press or key (the
/// previous step navigated; a tap after `launch` is on the app's first
/// screen, which the app milestone covers; one after `type` is on the
/// screen typed into); then the oracle's state checks (`setting`, `app`,
/// `record`, `foreground`, and `ui` without `open`), which the reference
/// makes true last. A screen is named by the node its step taps, present
/// in the dump: a real phone's dump has no activity name, and a window
/// title is shared by many screens (every Settings page says "Settings").
pub(crate) fn derive(solution: &[Step], oracle: &Oracle) -> Vec<Milestone> {
    let mut out: Vec<Milestone> = Vec::new();
    let mut push = |m: Milestone| {
        if !out.iter().any(|o| o.name == m.name) {
            out.push(m);
        }
    };
    for (i, step) in solution.iter().enumerate() {
        let package = step.launch.clone().or_else(|| {
            step.open
                .as_deref()
                .filter(|o| !o.starts_with("sim:"))
                .and_then(|o| o.split_once('/'))
                .map(|(pkg, _)| pkg.to_string())
        });
        if let Some(package) = package {
            push(Milestone {
                name: format!("{package} in the foreground"),
                predicate: Predicate::Foreground {
                    package: crate::oracle::Want::Equals(package),
                },
                source: Source::App,
            });
            continue;
        }
        let Some(target) = step.tap.as_ref().or(step.long_press.as_ref()) else {
            continue;
        };
        let navigated = i > 0 && {
            let prev = &solution[i - 1];
            prev.tap.is_some()
                || prev.long_press.is_some()
                || prev.key.is_some()
                || prev.swipe.is_some()
        };
        if navigated {
            push(Milestone {
                name: format!("on screen: {target}"),
                predicate: Predicate::Ui {
                    open: None,
                    select: Box::new(target.clone()),
                    count: crate::oracle::Count::AtLeastOne,
                },
                source: Source::Screen,
            });
        }
    }
    for p in &oracle.predicates {
        let state = match p {
            Predicate::Setting { .. }
            | Predicate::App { .. }
            | Predicate::Record { .. }
            | Predicate::Foreground { .. } => true,
            Predicate::Ui { open, .. } => open.is_none(),
            _ => false,
        };
        if state {
            push(Milestone {
                name: p.describe(),
                predicate: p.clone(),
                source: Source::Oracle,
            });
        }
    }
    out
}

/// Drop the derived oracle milestones that already hold in the setup's
/// initial `values` and `records`: such a check is a guard the oracle keeps
/// (the other contacts are still there), not a sub-goal.
pub(crate) fn drop_guards(
    milestones: &mut Vec<Milestone>,
    values: &std::collections::BTreeMap<String, String>,
    records: &droidscore_phone::records::Records,
) {
    milestones.retain(|m| {
        if m.source != Source::Oracle {
            return true;
        }
        let holds = match &m.predicate {
            Predicate::Setting { key, want } => {
                want.holds(values.get(&key.to_string()).map(String::as_str))
            }
            Predicate::App { key, want } => want.holds(values.get(key).map(String::as_str)),
            Predicate::Record {
                table,
                filter,
                count,
            } => count.holds(records.select(*table, filter).count()),
            _ => false,
        };
        !holds
    });
}

impl Milestone {
    /// Whether the phone is at this milestone now; `screen` is what it
    /// shows. Reads state (`settings get`, app data, records) but never
    /// acts: a `ui` milestone is matched against `screen` alone. A state
    /// the phone cannot read is not reached.
    pub fn holds(&self, phone: &mut dyn Phone, screen: &Observation) -> bool {
        match &self.predicate {
            Predicate::Setting { key, want } => phone
                .read_setting(key)
                .is_ok_and(|v| want.holds(v.as_deref())),
            Predicate::App { key, want } => {
                read_key(phone, key).is_ok_and(|v| want.holds(v.as_deref()))
            }
            Predicate::Record {
                table,
                filter,
                count,
            } => phone
                .records(*table)
                .is_ok_and(|rs| count.holds(rs.iter().filter(|r| filter.accepts(r)).count())),
            Predicate::Ui { select, count, .. } => {
                count.holds(select.find_all(&screen.hierarchy).len())
            }
            Predicate::Foreground { package } => package.holds(Some(&screen.foreground)),
            Predicate::Unchanged { .. }
            | Predicate::NoFlips { .. }
            | Predicate::Untouched { .. }
            | Predicate::Answer { .. } => false,
        }
    }
}

/// Milestones reached during one episode, updated after every step.
/// Reached in order is LlamaTouch's rule: milestone k counts once it holds
/// at some step at or after the one where milestone k − 1 counted.
#[derive(Debug, Clone)]
pub struct Tracker {
    /// Per milestone, the step (1-based agent decision) it counted at in order.
    reached_at: Vec<Option<u32>>,
    /// Per milestone, whether it ever held.
    ever: Vec<bool>,
}

impl Tracker {
    pub fn new(count: usize) -> Tracker {
        Tracker {
            reached_at: vec![None; count],
            ever: vec![false; count],
        }
    }

    /// Look at the phone after step `step`: every milestone not yet settled
    /// both ways is read once.
    pub fn update(
        &mut self,
        milestones: &[Milestone],
        phone: &mut dyn Phone,
        screen: &Observation,
        step: u32,
    ) {
        let in_order = self.reached_in_order();
        let holds: Vec<bool> = milestones
            .iter()
            .enumerate()
            .map(|(k, m)| {
                if k < in_order && self.ever[k] {
                    return true;
                }
                m.holds(phone, screen)
            })
            .collect();
        for (k, h) in holds.iter().enumerate() {
            self.ever[k] |= *h;
        }
        let mut k = in_order;
        while k < milestones.len() && holds[k] {
            self.reached_at[k] = Some(step);
            k += 1;
        }
    }

    /// The longest prefix of milestones reached in order.
    pub fn reached_in_order(&self) -> usize {
        self.reached_at.iter().take_while(|r| r.is_some()).count()
    }

    /// Milestones that held at some step, in any order (Sub-SR's numerator).
    pub fn reached_any(&self) -> usize {
        self.ever.iter().filter(|e| **e).count()
    }

    /// Per milestone, the step it counted at in order.
    pub fn reached_at(&self) -> &[Option<u32>] {
        &self.reached_at
    }
}

#[cfg(test)]
#[path = "milestone_tests.rs"]
mod tests;
