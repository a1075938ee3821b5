//! Oracles: predicates over the phone's own state — a setting where one exists,
//! the UI dump otherwise (after opening the screen that shows the state), app
//! data on the simulator, and side-effect constraints from the final state or
//! the flip history. Never the transcript.

mod baseline;
mod predicate;
mod side_effects;
mod verdict;

pub use baseline::Baseline;

pub use predicate::{CheckKind, Count, Normalize, Predicate, PredicateError, PredicateSpec, Want};
pub use side_effects::{glob, side_effects, INCIDENTAL};
pub use verdict::{CheckResult, Harm, Outcome, Verdict};

use droidscore_phone::Phone;

/// A task file's `oracle` that cannot be checked; shown after `oracle`, so
/// each message starts with the check's index and field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OracleError {
    #[error(": an oracle needs at least one check")]
    Empty,
    #[error("[{index}].{source}")]
    Check {
        index: usize,
        #[source]
        source: PredicateError,
    },
    #[error("[{index}].{field}: {key:?} is not a state key this phone has")]
    UnknownKey {
        index: usize,
        field: &'static str,
        key: String,
    },
    #[error("[{index}].keys: prefix {prefix:?} matches no state key, so it could never fail")]
    DeadPrefix { index: usize, prefix: String },
}

/// All predicates must hold.
#[derive(Debug, Clone)]
pub struct Oracle {
    pub predicates: Vec<Predicate>,
}

impl Oracle {
    /// Build from task-file specs; the error is `[i].field: message`.
    pub(crate) fn from_specs(specs: Vec<PredicateSpec>) -> Result<Oracle, OracleError> {
        if specs.is_empty() {
            return Err(OracleError::Empty);
        }
        let predicates = specs
            .into_iter()
            .enumerate()
            .map(|(index, spec)| {
                if spec.name.is_some() {
                    return Err(OracleError::Check {
                        index,
                        source: PredicateError::Named,
                    });
                }
                spec.validate()
                    .map_err(|source| OracleError::Check { index, source })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Oracle { predicates })
    }

    /// Check every key the oracle names against the keys the phone can hold
    /// (`known`), so a typo is a load error naming the check, not a read of
    /// `null` — and an `untouched` prefix that matches nothing, which could
    /// never fail, is refused. Flip-history keys of alarms (`alarm/…`) are
    /// always allowed in `except` and `untouched`.
    pub(crate) fn check_keys(
        &self,
        known: &std::collections::BTreeSet<String>,
    ) -> Result<(), OracleError> {
        let is_known = |k: &str| known.contains(k);
        for (index, p) in self.predicates.iter().enumerate() {
            let unknown = |field: &'static str, k: &str| {
                Err(OracleError::UnknownKey {
                    index,
                    field,
                    key: k.to_string(),
                })
            };
            match p {
                Predicate::Setting { key, .. } if !is_known(&key.to_string()) => {
                    return unknown("key", &key.to_string())
                }
                Predicate::App { key, .. } if !is_known(key) => return unknown("key", key),
                Predicate::Unchanged { except } | Predicate::NoFlips { except } => {
                    if let Some(k) = except
                        .iter()
                        .find(|k| !is_known(k) && !k.starts_with("alarm/"))
                    {
                        return unknown("except", k);
                    }
                }
                Predicate::Untouched { prefixes } => {
                    let matches = |pre: &str| {
                        pre.starts_with("alarm/") || known.iter().any(|k| k.starts_with(pre))
                    };
                    if let Some(pre) = prefixes.iter().find(|p| !matches(p)) {
                        return Err(OracleError::DeadPrefix {
                            index,
                            prefix: pre.clone(),
                        });
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    pub fn needs_flip_history(&self) -> bool {
        self.predicates.iter().any(Predicate::needs_flip_history)
    }

    /// The record tables the checks read.
    pub fn tables(&self) -> Vec<droidscore_phone::records::Table> {
        let mut tables: Vec<_> = self
            .predicates
            .iter()
            .filter_map(|p| match p {
                Predicate::Record { table, .. } => Some(*table),
                _ => None,
            })
            .collect();
        tables.sort();
        tables.dedup();
        tables
    }

    /// True when some check scores the agent's answer.
    pub(crate) fn wants_answer(&self) -> bool {
        self.predicates
            .iter()
            .any(|p| matches!(p, Predicate::Answer { .. }))
    }

    /// True when some check reads simulator app data: such a task scores on the simulator only.
    pub fn needs_app_data(&self) -> bool {
        self.predicates.iter().any(Predicate::needs_app_data)
    }

    /// Score the phone's current state. Where the phone can fork (the
    /// simulator), each check runs on its own fork, so scoring never disturbs
    /// the episode and no check sees what another check's navigation did; a
    /// real phone is navigated in place.
    pub(crate) fn evaluate(&self, phone: &mut dyn Phone, baseline: &Baseline) -> Verdict {
        self.evaluate_answer(phone, baseline, None)
    }

    /// As [`Oracle::evaluate`], with the agent's answer for `answer` checks.
    pub(crate) fn evaluate_answer(
        &self,
        phone: &mut dyn Phone,
        baseline: &Baseline,
        answer: Option<&str>,
    ) -> Verdict {
        let checks = self
            .predicates
            .iter()
            .map(|p| match phone.fork() {
                Some(mut fork) => p.evaluate(fork.as_mut(), baseline, answer),
                None => p.evaluate(phone, baseline, answer),
            })
            .collect();
        Verdict::from_checks(checks)
    }
}
