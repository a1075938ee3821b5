//! The task variants this crate's tests load into the virtual phone, written
//! out here as phone setups: the task suite that serves them in a run lives
//! in the `droidscore` crate, which this one knows nothing of.

use super::{LoadError, Setups};
use crate::apps::{PhoneSetup, Variant};

/// `wifi_on` (base), `bluetooth_on` (base, renamed, decoy) and
/// `alarm_add_labeled` (base), as the suite's files set them up.
#[derive(Debug)]
pub(crate) struct TestSetups;

impl Setups for TestSetups {
    fn setup(
        &self,
        task: &str,
        variant: &str,
        _instance_seed: u64,
        episode_seed: u64,
    ) -> Result<PhoneSetup, LoadError> {
        let (initial, variant_toml) = match (task, variant) {
            ("wifi_on", "base") => (r#""global/wifi_on" = "0""#, r#"id = "base""#),
            ("alarm_add_labeled", "base") => ("", r#"id = "base""#),
            ("bluetooth_on", "base") => (r#""global/bluetooth_on" = "0""#, r#"id = "base""#),
            ("bluetooth_on", "renamed") => (
                r#""global/bluetooth_on" = "0""#,
                r#"id = "renamed"
rename = { "Connected devices" = "Connections", "Connection preferences" = "More connection settings", "Use Bluetooth" = "Bluetooth" }"#,
            ),
            ("bluetooth_on", "decoy") => (
                r#""global/bluetooth_on" = "0""#,
                r#"id = "decoy"
decoys = [{ screen = "settings.connection_prefs", after = "Bluetooth", title = "Bluetooth scanning", summary = "Let apps find nearby devices even when Bluetooth is off", switch = true }]
initial = { "app/decoy.bluetooth_scanning" = "0" }"#,
            ),
            ("wifi_on" | "bluetooth_on" | "alarm_add_labeled", _) => {
                return Err(LoadError::NoVariant {
                    task: task.into(),
                    variant: variant.into(),
                })
            }
            _ => return Err(LoadError::NoTask(task.into())),
        };
        let variant: Variant =
            toml::from_str(variant_toml).expect("a variant as tasks/ writes one");
        let mut values: std::collections::BTreeMap<String, String> =
            toml::from_str(initial).expect("an initial state as tasks/ writes one");
        values.extend(variant.initial.clone());
        Ok(PhoneSetup {
            variant,
            initial: values,
            alarms: Vec::new(),
            records: Vec::new(),
            episode_seed,
            condition: crate::Condition::Base,
        })
    }
}
