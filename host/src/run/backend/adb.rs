//! Putting an adb phone in a task variant's initial state before an episode,
//! or saying plainly why it cannot be: a variant that changes the app's UI
//! (renamed, reordered, decoy rows) exists only on the simulator and the
//! virtual phone; alarms cannot be written without root; the records an
//! app keeps in its own database (Pro Expense, Joplin, Tasks.org) are
//! written into that file on a phone whose shell can become root, and
//! skipped with what each way of becoming root answered on one that
//! cannot; an oracle that
//! needs flip history cannot be scored from a phone's final state. Skipped
//! episodes carry that reason; none is scored from a state it did not set.
//!
//! Settings go through the switch a user's phone uses where `settings put`
//! alone would lie (`cmd connectivity airplane-mode`, `svc wifi|bluetooth`),
//! and every value is read back: a value that did not take is a skip.

use std::time::Duration;

use droidscore_phone::adb::{quote, AdbPhone};
use droidscore_phone::appdb::AppDb;
use droidscore_phone::records::Table;
use droidscore_phone::{read_key, Condition, DeviceAction, Key, Phone, PhoneError};

use super::{Backend, Prepared};
use crate::model_server::on_phone::Keeper;
use crate::task::Instance;

/// One adb phone as a run's backend: every episode on it starts with
/// [`AdbPhone::prepare`]; after the phone is lost, the worker waits up to
/// `device_wait` for it before the retry.
#[derive(Debug)]
pub struct AdbBackend {
    pub phone: AdbPhone,
    pub device_wait: Duration,
    /// The condition the next episodes run in.
    pub condition: Condition,
    /// The condition whose commands were last sent to the phone, until
    /// they are undone (`Condition::restore_commands`).
    pub applied: Option<Condition>,
}

impl AdbBackend {
    pub fn new(phone: AdbPhone, device_wait: Duration) -> AdbBackend {
        AdbBackend {
            phone,
            device_wait,
            condition: Condition::Base,
            applied: None,
        }
    }
}

impl Backend for AdbBackend {
    fn prepare(&mut self, instance: &Instance, episode_seed: u64) -> Result<Prepared, PhoneError> {
        let prepared = prepare_adb_phone(&mut self.phone, instance, episode_seed)
            .map_err(|e| PhoneError::Device(format!("phone {}: {e}", self.phone.serial())))?;
        // After the reset: the virtual phone's reset (`droidscore-sim load`)
        // starts it as it comes, so the condition is set again each episode
        // (on a real phone the same commands again change nothing).
        if prepared == Prepared::Ready && self.condition != Condition::Base {
            for command in self.condition.apply_commands() {
                self.phone.shell_ok(&command)?;
            }
            self.applied = Some(self.condition);
            self.phone.act(&DeviceAction::Key { key: Key::Home })?;
        }
        Ok(prepared)
    }

    fn set_condition(&mut self, condition: Condition) -> Result<(), PhoneError> {
        if self.applied.is_some_and(|c| c != condition) {
            self.restore_condition()?;
        }
        self.condition = condition;
        Ok(())
    }

    fn restore_condition(&mut self) -> Result<(), PhoneError> {
        if let Some(applied) = self.applied {
            for command in applied.restore_commands() {
                self.phone.shell_ok(&command)?;
            }
            self.applied = None;
        }
        Ok(())
    }

    fn phone(&mut self) -> &mut dyn Phone {
        &mut self.phone
    }

    fn handoff(&mut self) -> Option<super::Handoff> {
        Some(super::Handoff {
            serial: self.phone.serial().to_string(),
            adb_server_port: None,
            virtual_phone: None,
        })
    }

    fn recover(&mut self) -> Result<(), PhoneError> {
        self.phone.wait_for_device(self.device_wait)
    }
}

/// An adb phone whose model server runs on it (`run --on-device`): after a
/// failed attempt, the phone is waited for as [`AdbBackend`] does, then the
/// server is checked and, once per run, started again.
#[derive(Debug)]
pub struct ServingBackend {
    pub inner: AdbBackend,
    pub server: Keeper,
}

impl Backend for ServingBackend {
    fn prepare(&mut self, instance: &Instance, episode_seed: u64) -> Result<Prepared, PhoneError> {
        self.inner.prepare(instance, episode_seed)
    }

    fn set_condition(&mut self, condition: Condition) -> Result<(), PhoneError> {
        self.inner.set_condition(condition)
    }

    fn restore_condition(&mut self) -> Result<(), PhoneError> {
        self.inner.restore_condition()
    }

    fn phone(&mut self) -> &mut dyn Phone {
        self.inner.phone()
    }

    fn recover(&mut self) -> Result<(), PhoneError> {
        self.inner.recover()?;
        let mut say = |line: &str| eprintln!("{line}");
        self.server
            .check(&mut self.inner.phone, &mut say)
            .map_err(|e| PhoneError::Device(e.to_string()))
    }
}

/// Why this instance cannot run on a phone that is not the virtual phone,
/// if it cannot.
fn needs_simulator(instance: &Instance) -> Option<String> {
    let v = &instance.variant;
    let mut changes = Vec::new();
    if !v.rename.is_empty() {
        changes.push("renames controls");
    }
    if !v.reorder.is_empty() {
        changes.push("reorders rows");
    }
    if !v.decoys.is_empty() {
        changes.push("adds decoy rows");
    }
    if !changes.is_empty() {
        return Some(format!(
            "variant {:?} {} in the app's UI, which only the simulator or a virtual phone can do",
            v.id,
            changes.join(", ")
        ));
    }
    let setup = instance.setup(0);
    let tables = record_tables(instance, &setup);
    let elsewhere: Vec<String> = tables
        .iter()
        .filter(|t| AppDb::for_table(**t).is_none())
        .map(|t| t.to_string())
        .collect();
    let answers_elsewhere =
        instance.oracle.wants_answer() && app_databases(instance, &tables).is_empty();
    if !elsewhere.is_empty() || answers_elsewhere {
        let which = if elsewhere.is_empty() {
            "the records the answer is read from".to_string()
        } else {
            format!("its {} records", elsewhere.join(", "))
        };
        return Some(format!("the task needs {which} (the simulated world's contacts, messages, calls, events and files) set up, which only the simulator and the virtual phone do: writing them over adb is not built yet, and SMS cannot be written from the shell at all (the provider ignores it)"));
    }
    if !setup.alarms.is_empty() {
        return Some("the initial alarm list cannot be written over adb without root (DeskClock's provider is not exported)".into());
    }
    None
}

/// The record tables the instance's oracle reads or its own records fill
/// (`setup`, its phone setup), each once.
fn record_tables(instance: &Instance, setup: &droidscore_phone::apps::PhoneSetup) -> Vec<Table> {
    let mut tables = instance.oracle.tables();
    tables.extend(setup.records.iter().map(|r| r.table));
    tables.sort();
    tables.dedup();
    tables
}

/// The apps whose own databases the instance starts from or is scored on:
/// those keeping a table its oracle reads or its records fill, and the
/// task's app when it is one of them (an answer read off its screen).
fn app_databases(instance: &Instance, tables: &[Table]) -> Vec<AppDb> {
    let mut apps: Vec<AppDb> = tables
        .iter()
        .copied()
        .filter_map(AppDb::for_table)
        .collect();
    apps.extend(AppDb::for_package(&instance.app));
    apps.sort();
    apps.dedup();
    apps
}

/// Reset `phone` to `instance`'s initial state for one episode.
pub fn prepare_adb_phone(
    phone: &mut AdbPhone,
    instance: &Instance,
    episode_seed: u64,
) -> Result<Prepared, PhoneError> {
    phone.begin_episode();
    if instance.oracle.needs_flip_history() && !phone.capabilities().flip_history {
        return Ok(Prepared::Skip(
                "the oracle needs flip history (every state write, with its step), which only the in-process simulator records; the final state alone would pass an agent that flipped the wrong switch and back".into(),
            ));
    }
    if phone.is_virtual() {
        phone.load_variant(
            &instance.task,
            &instance.variant.id,
            instance.instance_seed,
            episode_seed,
        )?;
    } else if let Some(why) = needs_simulator(instance) {
        return Ok(Prepared::Skip(why));
    }
    phone.act(&DeviceAction::Key { key: Key::Home })?;
    phone.shell_ok(&format!("am force-stop {}", quote(&instance.app)))?;

    let config = instance.setup(episode_seed);
    // Airplane mode first: turning it on turns radios off, which the
    // Wi-Fi and Bluetooth values after it then override.
    let mut initial: Vec<(&String, &String)> = config.initial.iter().collect();
    initial.sort_by_key(|(k, _)| *k != "global/airplane_mode_on");
    for (key, value) in &initial {
        if let Some(why) = phone.write_value(key, value)? {
            return Ok(Prepared::Skip(why));
        }
    }
    for (key, value) in &initial {
        let read = read_key(phone, key);
        match read {
            Ok(Some(v)) if v == **value => {}
            Ok(other) => {
                return Ok(Prepared::Skip(format!(
                    "the initial state {key} = {value} did not take on this phone: it reads {}",
                    other.as_deref().unwrap_or("null")
                )))
            }
            // A phone gone mid-read is the phone failing, not the task.
            Err(e) if phone.lost().is_some() => return Err(e),
            Err(e) => return Ok(Prepared::Skip(format!("cannot read back {key}: {e}"))),
        }
    }
    if !phone.is_virtual() {
        // The apps' own databases, as AndroidWorld writes them on its
        // emulator: root, pull, rows replaced, push, force-stop.
        let apps = app_databases(instance, &record_tables(instance, &config));
        for app in &apps {
            if let Some(why) = phone.app_data_refused(*app)? {
                return Ok(Prepared::Skip(why));
            }
        }
        if !apps.is_empty() {
            let records = config
                .records()
                .map_err(|e| PhoneError::Device(format!("the task's records: {e}")))?;
            for app in apps {
                phone.write_app_records(app, &records, &config.clock())?;
            }
        }
    }
    phone.refresh_app_keys()?;
    Ok(Prepared::Ready)
}
