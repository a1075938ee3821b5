//! What the simulated phone knows: settings in their real `settings get`
//! encodings, app data (`app/…` keys with no settings key on a real phone),
//! the alarm list, and the flip history of every write.

use std::collections::BTreeMap;

use crate::apps::Alarm;
use crate::records::{Clock, Records, Table};
use crate::Flip;

/// The simulator's state. Keys are `global/…`, `system/…`, `secure/…` (settings)
/// or `app/…` (app data); values are strings as `settings get` prints them.
#[derive(Debug, Clone, Default)]
pub struct State {
    values: BTreeMap<String, String>,
    alarms: Vec<Alarm>,
    next_alarm_id: u32,
    flips: Vec<Flip>,
    /// Contacts, messages, calls, events, files.
    records: Records,
    /// The phone's time, for new records (a sent message's date).
    pub clock: Clock,
    /// Device actions taken so far; stamped on every flip.
    pub step: u32,
}

impl State {
    pub fn new(values: BTreeMap<String, String>, alarms: Vec<Alarm>) -> Self {
        let mut state = State {
            values,
            ..State::default()
        };
        for alarm in alarms {
            state.insert_alarm(alarm);
        }
        state
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    /// Every key and value, in key order.
    pub fn values(&self) -> &BTreeMap<String, String> {
        &self.values
    }

    /// Write a value from outside the UI (`settings put` over adb, setting up
    /// an episode): no control was operated, so no flip is recorded.
    pub fn put(&mut self, key: &str, value: &str) {
        self.values.insert(key.to_string(), value.to_string());
    }

    /// Write a value, recording the flip when it changes anything.
    pub fn set(&mut self, key: &str, value: &str, control: &str) {
        let from = self.get(key).unwrap_or("null").to_string();
        if from == value {
            return;
        }
        self.values.insert(key.to_string(), value.to_string());
        self.record(key, control, from, value.to_string());
    }

    pub fn alarms(&self) -> &[Alarm] {
        &self.alarms
    }

    /// The alarm list as one line, in list order: `07:30 on "Gym"; 22:00 off ""`.
    pub(crate) fn alarms_digest(&self) -> String {
        let items: Vec<String> = self
            .alarms
            .iter()
            .map(|a| {
                format!(
                    "{} {} {:?}",
                    a.time_text(),
                    if a.enabled { "on" } else { "off" },
                    a.label
                )
            })
            .collect();
        items.join("; ")
    }

    pub fn alarm(&self, id: u32) -> Option<&Alarm> {
        self.alarms.iter().find(|a| a.id == id)
    }

    /// Add an alarm (kept sorted by time, as the Clock app lists them); returns its id.
    pub(crate) fn add_alarm(&mut self, hour: u8, minute: u8) -> u32 {
        let id = self.insert_alarm(Alarm {
            id: 0,
            hour,
            minute,
            enabled: true,
            label: String::new(),
        });
        let text = format!("{hour:02}:{minute:02}");
        self.record(
            &format!("alarm/{id}"),
            "OK",
            "absent".into(),
            format!("{text} on"),
        );
        id
    }

    fn insert_alarm(&mut self, mut alarm: Alarm) -> u32 {
        self.next_alarm_id += 1;
        alarm.id = self.next_alarm_id;
        let at = self
            .alarms
            .iter()
            .position(|a| (a.hour, a.minute) > (alarm.hour, alarm.minute))
            .unwrap_or(self.alarms.len());
        self.alarms.insert(at, alarm);
        self.next_alarm_id
    }

    pub(crate) fn set_alarm_enabled(&mut self, id: u32, enabled: bool) {
        if let Some(alarm) = self.alarms.iter_mut().find(|a| a.id == id) {
            if alarm.enabled != enabled {
                alarm.enabled = enabled;
                let control = alarm.time_text();
                self.record(
                    &format!("alarm/{id}/enabled"),
                    &control,
                    (!enabled).to_string(),
                    enabled.to_string(),
                );
            }
        }
    }

    pub(crate) fn set_alarm_label(&mut self, id: u32, label: &str) {
        if let Some(alarm) = self.alarms.iter_mut().find(|a| a.id == id) {
            if alarm.label != label {
                let from = std::mem::replace(&mut alarm.label, label.to_string());
                let control = alarm.time_text();
                self.record(
                    &format!("alarm/{id}/label"),
                    &control,
                    from,
                    label.to_string(),
                );
            }
        }
    }

    pub(crate) fn delete_alarm(&mut self, id: u32) {
        if let Some(at) = self.alarms.iter().position(|a| a.id == id) {
            let alarm = self.alarms.remove(at);
            self.record(
                &format!("alarm/{id}"),
                "Delete",
                alarm.time_text(),
                "absent".into(),
            );
        }
    }

    /// Start with these records (setting up an episode: no flips).
    pub(crate) fn with_records(mut self, records: Records, clock: Clock) -> Self {
        self.records = records;
        self.clock = clock;
        self
    }

    pub fn records(&self) -> &Records {
        &self.records
    }

    /// Records written from outside the UI (`content insert|delete` over adb): no flip.
    pub(crate) fn records_mut(&mut self) -> &mut Records {
        &mut self.records
    }

    /// Add a record through the UI; `fields` are completed (defaults,
    /// times, thread) first. Returns its id. The flip's key is
    /// `record/<table>/<id>`.
    pub(crate) fn insert_record(
        &mut self,
        table: Table,
        fields: BTreeMap<String, String>,
        control: &str,
    ) -> Result<u64, crate::records::RecordError> {
        let fields = self.records.complete(table, fields, &self.clock)?;
        let id = self.records.insert(table, fields);
        let digest = self.record_digest(table, id);
        self.record(
            &format!("record/{table}/{id}"),
            control,
            "absent".into(),
            digest,
        );
        Ok(id)
    }

    /// Set one column of a record through the UI (`None` clears it); the
    /// flip's key is `record/<table>/<id>/<column>`.
    pub(crate) fn update_record(
        &mut self,
        table: Table,
        id: u64,
        column: &str,
        value: Option<&str>,
        control: &str,
    ) {
        let Some(old) = self.records.update(table, id, column, value) else {
            return;
        };
        if old.as_deref() != value {
            self.record(
                &format!("record/{table}/{id}/{column}"),
                control,
                old.unwrap_or_else(|| "NULL".into()),
                value.unwrap_or("NULL").to_string(),
            );
        }
    }

    /// Delete a record through the UI; the flip's key is `record/<table>/<id>`.
    pub(crate) fn delete_record(&mut self, table: Table, id: u64, control: &str) {
        let digest = self.record_digest(table, id);
        if self.records.delete(table, id).is_some() {
            self.record(
                &format!("record/{table}/{id}"),
                control,
                digest,
                "absent".into(),
            );
        }
    }

    fn record_digest(&self, table: Table, id: u64) -> String {
        self.records
            .get(table, id)
            .map(|r| {
                r.fields
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    }

    pub fn flips(&self) -> &[Flip] {
        &self.flips
    }

    fn record(&mut self, key: &str, control: &str, from: String, to: String) {
        self.flips.push(Flip {
            key: key.to_string(),
            control: control.to_string(),
            from,
            to,
            step: self.step,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_records_a_flip_only_when_the_value_changes() {
        let mut state = State::new(
            [("global/wifi_on".to_string(), "0".to_string())].into(),
            vec![],
        );
        state.set("global/wifi_on", "0", "Wi-Fi");
        assert!(state.flips().is_empty());
        state.step = 3;
        state.set("global/wifi_on", "1", "Wi-Fi");
        assert_eq!(
            state.flips(),
            [Flip {
                key: "global/wifi_on".into(),
                control: "Wi-Fi".into(),
                from: "0".into(),
                to: "1".into(),
                step: 3
            }]
        );
    }

    #[test]
    fn alarms_stay_sorted_by_time() {
        let mut state = State::default();
        state.add_alarm(9, 0);
        state.add_alarm(6, 45);
        state.add_alarm(21, 15);
        let times: Vec<_> = state.alarms().iter().map(Alarm::time_text).collect();
        assert_eq!(times, ["06:45", "09:00", "21:15"]);
    }
}
