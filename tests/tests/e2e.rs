//! End-to-end across crates' public APIs. A phone with only what a real phone
//! over adb offers — settings, the UI dump, intents; no flip history, no fork,
//! no app data; records through its providers — must still score every portable oracle, and must *skip* (with
//! a reason) every oracle that needs flip history rather than score it from
//! whatever final state is left.

use std::path::Path;

use droidscore::agent::Solver;
use droidscore::episode;
use droidscore::oracle::Outcome;
use droidscore::task::{self, Task};
use droidscore_phone::sim::SimPhone;
use droidscore_phone::{
    Capabilities, DeviceAction, Intent, Observation, Phone, PhoneError, SettingKey,
};

/// The simulator seen through a real phone's keyhole.
struct RealLike(SimPhone);

impl Phone for RealLike {
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            screenshots: true,
            flip_history: false,
            app_data: false,
        }
    }
    fn observe(&mut self, screenshot: bool) -> Result<Observation, PhoneError> {
        self.0.observe(screenshot)
    }
    fn act(&mut self, action: &DeviceAction) -> Result<(), PhoneError> {
        self.0.act(action)
    }
    fn read_setting(&mut self, key: &SettingKey) -> Result<Option<String>, PhoneError> {
        self.0.read_setting(key)
    }
    fn open(&mut self, intent: &Intent) -> Result<(), PhoneError> {
        self.0.open(intent)
    }
    /// A phone's content providers give its records (`content query`).
    fn records(
        &mut self,
        table: droidscore_phone::records::Table,
    ) -> Result<Vec<droidscore_phone::records::Record>, PhoneError> {
        self.0.records(table)
    }
}

fn suite() -> Vec<Task> {
    task::load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks")).unwrap()
}

#[test]
fn on_a_phone_without_flip_history_such_oracles_are_skipped_and_the_rest_scored() {
    let tasks = suite();
    let (mut scored, mut skipped) = (0, 0);
    for task in &tasks {
        for instance in &task.variants {
            let mut phone = RealLike(SimPhone::new(instance.setup(0)).unwrap());
            let ep = episode::run(
                &mut phone,
                &mut Solver::new(instance.solution.clone()),
                instance,
            )
            .unwrap();
            let needs_history = instance.oracle.needs_flip_history();
            let needs_app_data = instance.oracle.needs_app_data();
            if needs_history || needs_app_data {
                assert_eq!(
                    ep.verdict.outcome,
                    Outcome::Skipped,
                    "{}/{}: {}",
                    task.id,
                    instance.variant.id,
                    ep.reason
                );
                assert!(!ep.success, "a skipped episode is never a success");
                assert!(ep.reason.starts_with("skipped: "), "{}", ep.reason);
                skipped += 1;
            } else {
                assert!(
                    ep.success,
                    "{}/{} should score on a real-like phone: {}",
                    task.id, instance.variant.id, ep.reason
                );
                scored += 1;
            }
        }
    }
    assert!(skipped > 0, "the suite has flip-history tasks");
    assert!(scored > 100, "most of the suite is portable: {scored}");
}

#[test]
fn ui_oracles_navigate_in_place_when_the_phone_cannot_fork() {
    let tasks = suite();
    let alarm = tasks
        .iter()
        .find(|t| t.id == "alarm_add")
        .unwrap()
        .variant("base")
        .unwrap();
    let mut phone = RealLike(SimPhone::new(alarm.setup(0)).unwrap());
    let ep = episode::run(&mut phone, &mut Solver::new(alarm.solution.clone()), alarm).unwrap();
    assert!(ep.success, "{}", ep.reason);
    // Without a fork the scorer opened the alarm list on the phone itself.
    assert_eq!(
        phone.observe(false).unwrap().foreground,
        "com.google.android.deskclock"
    );
}
