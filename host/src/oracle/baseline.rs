//! The state an episode starts from, for `unchanged` constraints: which keys
//! are watched and the values read at the start.

use std::collections::BTreeMap;

use droidscore_phone::apps::SettingsApp;
use droidscore_phone::records::{Record, Table};
use droidscore_phone::{read_key, Phone, PhoneError};

/// State read at the start of an episode, for `unchanged` constraints.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    /// Key → value (`None`: unset) for every key the phone could read.
    pub values: BTreeMap<String, Option<String>>,
    /// Keys this kind of phone cannot read at all (app data on a real phone),
    /// so `unchanged` cannot watch them; listed in its verdict.
    pub unsupported: Vec<String>,
    /// Keys whose read failed for another reason: `unchanged` is skipped then,
    /// never scored from partial data.
    pub failed: Vec<(String, String)>,
    /// Every record of each table the phone can list: a record a side
    /// effect deleted is judged by what it was (`side_effects`).
    pub records: BTreeMap<Table, Vec<Record>>,
}

/// The keys an `unchanged` constraint watches: every settings key and app-data
/// key the simulator models, plus whatever else the phone holds (a variant's
/// decoy switches, the alarm list).
pub(crate) fn watched_keys(phone: &dyn Phone) -> Vec<String> {
    let mut keys: Vec<String> = SettingsApp::get().defaults.keys().cloned().collect();
    keys.extend(phone.app_keys());
    keys.sort();
    keys.dedup();
    keys
}

impl Baseline {
    pub(crate) fn capture(phone: &mut dyn Phone) -> Baseline {
        let mut baseline = Baseline::default();
        for key in watched_keys(phone) {
            match read_key(phone, &key) {
                Ok(value) => {
                    baseline.values.insert(key, value);
                }
                Err(PhoneError::Unsupported(_)) => baseline.unsupported.push(key),
                Err(e) => baseline.failed.push((key, e.to_string())),
            }
        }
        for table in Table::ALL {
            if let Ok(rows) = phone.records(table) {
                baseline.records.insert(table, rows);
            }
        }
        baseline
    }
}
