//! Alarms in the Clock app, as task files list them and the Clock app shows
//! them, and the app-data key that holds the whole list.

/// The app-data key whose value is the whole alarm list, one line.
pub const ALARMS_KEY: &str = "app/alarms";

/// One alarm in the Clock app.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Alarm {
    #[serde(skip_deserializing)]
    pub id: u32,
    pub hour: u8,
    pub minute: u8,
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default)]
    pub label: String,
}

fn yes() -> bool {
    true
}

impl Alarm {
    /// The time as the Clock app shows it on a 24-hour phone: `07:30`.
    pub(crate) fn time_text(&self) -> String {
        format!("{:02}:{:02}", self.hour, self.minute)
    }
}
