//! Oracles: predicates over the phone's own state — a setting where one exists,
//! the UI dump otherwise (after opening the screen that shows the state), app
//! data on the simulator, and side-effect constraints from the final state or
//! the flip history. Never the transcript.

mod predicate;
mod verdict;

pub use predicate::{Count, Predicate, PredicateSpec, Want};
pub use verdict::{CheckResult, Outcome, Verdict};

use std::collections::BTreeMap;

use crate::phone::{Phone, PhoneError, SettingKey};
use crate::sim::SettingsApp;

/// All predicates must hold.
#[derive(Debug, Clone)]
pub struct Oracle {
    pub predicates: Vec<Predicate>,
}

/// State read at the start of an episode, for `unchanged` constraints.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    /// Key → value (`None`: unset); keys the phone cannot read are absent.
    pub values: BTreeMap<String, Option<String>>,
}

/// The keys an `unchanged` constraint watches: every key the simulator models.
pub fn watched_keys() -> impl Iterator<Item = &'static str> {
    SettingsApp::get().defaults.keys().map(String::as_str)
}

/// Read one state key: `ns/key` through `settings get`, `app/…` as app data.
pub fn read_key(phone: &mut dyn Phone, key: &str) -> Result<Option<String>, PhoneError> {
    if key.starts_with("app/") {
        return phone.read_app(key);
    }
    let setting: SettingKey = key.parse().map_err(PhoneError::Device)?;
    phone.read_setting(&setting)
}

impl Baseline {
    pub fn capture(phone: &mut dyn Phone) -> Baseline {
        let mut values = BTreeMap::new();
        for key in watched_keys() {
            if let Ok(value) = read_key(phone, key) {
                values.insert(key.to_string(), value);
            }
        }
        Baseline { values }
    }
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

    pub fn needs_flip_history(&self) -> bool {
        self.predicates.iter().any(Predicate::needs_flip_history)
    }

    /// True when some check reads simulator app data: such a task scores on the simulator only.
    pub fn needs_app_data(&self) -> bool {
        self.predicates.iter().any(Predicate::needs_app_data)
    }

    /// Score the phone's current state. Screens the oracle opens are opened on a
    /// fork of the phone where it can fork (the simulator), so scoring does not
    /// disturb the episode; a real phone is navigated in place.
    pub fn evaluate(&self, phone: &mut dyn Phone, baseline: &Baseline) -> Verdict {
        let mut fork = phone.fork();
        let phone: &mut dyn Phone = match fork.as_mut() {
            Some(f) => f.as_mut(),
            None => phone,
        };
        let checks = self
            .predicates
            .iter()
            .map(|p| p.evaluate(phone, baseline))
            .collect();
        Verdict::from_checks(checks)
    }
}
