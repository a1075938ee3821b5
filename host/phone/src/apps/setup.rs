//! How a phone starts one task instance: the variant, the initial state on
//! top of the apps' defaults, the alarms and the episode seed. Every backend puts its
//! phone in this state (the simulator builds it, adb writes it); checking it
//! here is what the task loader and the simulator share.

use std::collections::BTreeMap;

use super::{Alarm, SettingsApp, UnknownRow, Variant};
use crate::records::{Clock, InitialRecord, RecordError, Records};
use crate::Condition;

/// The starting point of one episode.
#[derive(Debug, Clone, Default)]
pub struct PhoneSetup {
    pub variant: Variant,
    /// State on top of the app's defaults (task initial state, then the variant's).
    pub initial: BTreeMap<String, String>,
    pub alarms: Vec<Alarm>,
    /// Records present at the start (contacts, messages, …), in order,
    /// on top of the simulated phone's world (`fixtures/sim/world.toml`).
    pub records: Vec<InitialRecord>,
    /// The episode seed: it picks the status-bar clock; same seed, same pixels.
    pub episode_seed: u64,
    /// The device condition the phone is in (dark theme, font scale,
    /// display size, landscape): its settings go on top of the initial
    /// state, its display is the one screens are laid out on.
    pub condition: Condition,
}

/// A setup that names something the apps do not have.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("variant {0:?}: {1}")]
    Variant(String, #[source] UnknownRow),
    #[error("initial state names {0:?}, which the simulator does not have (see fixtures/sim/settings.toml [defaults])")]
    UnknownKey(String),
    #[error("records: {0}")]
    Record(#[source] RecordError),
    /// The condition writes a key the task's initial state sets: running
    /// the pair would change the task, so it is refused (and skipped).
    #[error("condition {condition} sets {key:?}, which the task's initial state also sets: the condition conflicts with the task")]
    ConditionConflict { condition: Condition, key: String },
}

impl PhoneSetup {
    /// Every state key and its starting value: the Settings app's defaults,
    /// each switch decoy off, the initial state, then the condition's
    /// settings. The variant must name only screens and rows that exist, the
    /// initial state only known keys, and the condition no key the initial
    /// state sets.
    pub fn values(&self) -> Result<BTreeMap<String, String>, SetupError> {
        let app = SettingsApp::get();
        app.check_variant(&self.variant)
            .map_err(|e| SetupError::Variant(self.variant.id.clone(), e))?;
        let mut values = app.defaults.clone();
        for decoy in self.variant.decoys.iter().filter(|d| d.switch) {
            values.insert(decoy.key(), "0".into());
        }
        for (key, value) in self.initial.iter() {
            if !values.contains_key(key) {
                return Err(SetupError::UnknownKey(key.clone()));
            }
            values.insert(key.clone(), value.clone());
        }
        for (key, value) in self.condition.settings() {
            if self.initial.contains_key(key) {
                return Err(SetupError::ConditionConflict {
                    condition: self.condition,
                    key: key.to_string(),
                });
            }
            values.insert(key.to_string(), value);
        }
        Ok(values)
    }

    /// The simulator's clock for this setup: its day, at the time of day
    /// the episode seed picks (the status-bar clock shows it).
    pub fn clock(&self) -> Clock {
        Clock::at_minutes((self.episode_seed.wrapping_mul(2_654_435_761) % (24 * 60)) as u32)
    }

    /// The records the phone starts with: the world's, then the task's,
    /// each checked against its table and its times resolved.
    pub fn records(&self) -> Result<Records, SetupError> {
        let clock = self.clock();
        let mut records = Records::default();
        for seed in super::world::records().iter().chain(&self.records) {
            let fields = records
                .complete(seed.table, seed.fields.clone(), &clock)
                .map_err(SetupError::Record)?;
            records.insert(seed.table, fields);
        }
        Ok(records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_world_loads_with_every_table() {
        let records = PhoneSetup::default().records().unwrap();
        for table in crate::records::Table::ALL {
            assert!(!records.rows(table).is_empty(), "{table} is empty");
        }
    }
    use crate::apps::Decoy;

    #[test]
    fn a_switch_decoy_starts_off_and_the_initial_state_overrides_defaults() {
        let setup = PhoneSetup {
            variant: Variant {
                id: "decoy".into(),
                decoys: vec![Decoy {
                    screen: "settings.network".into(),
                    after: None,
                    title: "Wi-Fi calling".into(),
                    summary: None,
                    switch: true,
                }],
                ..Variant::default()
            },
            initial: [("global/wifi_on".to_string(), "0".to_string())].into(),
            ..PhoneSetup::default()
        };
        let values = setup.values().unwrap();
        assert_eq!(values["app/decoy.wi_fi_calling"], "0");
        assert_eq!(values["global/wifi_on"], "0");
        assert_eq!(values["global/bluetooth_on"], "0", "a default");
    }

    #[test]
    fn an_unknown_initial_key_or_a_missing_screen_is_refused() {
        let unknown = PhoneSetup {
            initial: [("global/nope".to_string(), "1".to_string())].into(),
            ..PhoneSetup::default()
        };
        assert!(matches!(unknown.values(), Err(SetupError::UnknownKey(k)) if k == "global/nope"));
        let missing = PhoneSetup {
            variant: Variant {
                id: "v".into(),
                decoys: vec![Decoy {
                    screen: "settings.nowhere".into(),
                    after: None,
                    title: "x".into(),
                    summary: None,
                    switch: false,
                }],
                ..Variant::default()
            },
            ..PhoneSetup::default()
        };
        let err = missing.values().unwrap_err().to_string();
        assert!(err.contains("settings.nowhere"), "{err}");
    }

    #[test]
    fn a_condition_writes_its_settings_unless_the_task_sets_the_same_key() {
        let dark = PhoneSetup {
            condition: Condition::Dark,
            initial: [("global/wifi_on".to_string(), "0".to_string())].into(),
            ..PhoneSetup::default()
        };
        let values = dark.values().unwrap();
        assert_eq!(values["secure/ui_night_mode"], "2");
        assert_eq!(values["global/wifi_on"], "0");
        let landscape = PhoneSetup {
            condition: Condition::Landscape,
            ..PhoneSetup::default()
        };
        let values = landscape.values().unwrap();
        assert_eq!(values["system/user_rotation"], "1");
        assert_eq!(values["system/accelerometer_rotation"], "0");
        let conflict = PhoneSetup {
            condition: Condition::Font(1300),
            initial: [("system/font_scale".to_string(), "1.15".to_string())].into(),
            ..PhoneSetup::default()
        };
        let err = conflict.values().unwrap_err();
        assert!(
            matches!(&err, SetupError::ConditionConflict { condition: Condition::Font(1300), key } if key == "system/font_scale"),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .contains("condition font1.3 sets \"system/font_scale\""),
            "{err}"
        );
    }
}
