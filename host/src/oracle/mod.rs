//! Oracles: predicates over the phone's own state — a setting where one exists,
//! the UI dump otherwise (after opening the screen that shows the state), app
//! data on the simulator, and side-effect constraints from the final state or
//! the flip history. Never the transcript.

mod baseline;
mod predicate;
mod verdict;

pub use baseline::{read_key, watched_keys, Baseline};
pub use predicate::{Count, Predicate, PredicateSpec, Want};
pub use verdict::{CheckResult, Outcome, Verdict};

use crate::phone::Phone;

/// All predicates must hold.
#[derive(Debug, Clone)]
pub struct Oracle {
    pub predicates: Vec<Predicate>,
}

impl Oracle {
    /// Build from task-file specs; the error is `[i].field: message`.
    pub fn from_specs(specs: Vec<PredicateSpec>) -> Result<Oracle, String> {
        if specs.is_empty() {
            return Err(": an oracle needs at least one check".into());
        }
        let predicates = specs
            .into_iter()
            .enumerate()
            .map(|(i, spec)| spec.validate().map_err(|e| format!("[{i}].{e}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Oracle { predicates })
    }

    /// Check every key the oracle names against the keys the phone can hold
    /// (`known`), so a typo is a load error naming the check, not a read of
    /// `null` — and an `untouched` prefix that matches nothing, which could
    /// never fail, is refused. Flip-history keys of alarms (`alarm/…`) are
    /// always allowed in `except` and `untouched`.
    pub fn check_keys(&self, known: &std::collections::BTreeSet<String>) -> Result<(), String> {
        let is_known = |k: &str| known.contains(k);
        for (i, p) in self.predicates.iter().enumerate() {
            let unknown = |field: &str, k: &str| {
                Err(format!(
                    "[{i}].{field}: {k:?} is not a state key this phone has"
                ))
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
                        return Err(format!("[{i}].keys: prefix {pre:?} matches no state key, so it could never fail"));
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

    /// True when some check reads simulator app data: such a task scores on the simulator only.
    pub fn needs_app_data(&self) -> bool {
        self.predicates.iter().any(Predicate::needs_app_data)
    }

    /// Score the phone's current state. Where the phone can fork (the
    /// simulator), each check runs on its own fork, so scoring never disturbs
    /// the episode and no check sees what another check's navigation did; a
    /// real phone is navigated in place.
    pub fn evaluate(&self, phone: &mut dyn Phone, baseline: &Baseline) -> Verdict {
        let checks = self
            .predicates
            .iter()
            .map(|p| match phone.fork() {
                Some(mut fork) => p.evaluate(fork.as_mut(), baseline),
                None => p.evaluate(phone, baseline),
            })
            .collect();
        Verdict::from_checks(checks)
    }
}
