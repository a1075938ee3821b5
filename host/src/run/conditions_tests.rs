//! A run's device conditions through `execute`: every episode's backend is
//! told its condition before the episode, its record names it, and the
//! backend is told to restore the phone when the worker ends — also when a
//! signal stops the run early.

use std::sync::{Arc, Mutex};

use droidscore_phone::{Condition, Phone, PhoneError};

use super::backend::{Backend, Prepared, SimBackend};
use super::{execute, plan_in, Interrupt, RunError};
use crate::agent::{Agent, Solver};
use crate::store::test_support::{self, ScratchDir};
use crate::store::Store;
use crate::task::Instance;

/// The simulator, noting each condition set and each restore.
struct Logged {
    inner: SimBackend,
    log: Arc<Mutex<Vec<String>>>,
}

impl Backend for Logged {
    fn prepare(&mut self, instance: &Instance, seed: u64) -> Result<Prepared, PhoneError> {
        self.inner.prepare(instance, seed)
    }
    fn phone(&mut self) -> &mut dyn Phone {
        self.inner.phone()
    }
    fn set_condition(&mut self, condition: Condition) -> Result<(), PhoneError> {
        self.log.lock().unwrap().push(format!("set {condition}"));
        self.inner.set_condition(condition)
    }
    fn restore_condition(&mut self) -> Result<(), PhoneError> {
        self.log.lock().unwrap().push("restore".into());
        Ok(())
    }
}

#[test]
fn a_stopped_run_still_restores_the_phones_condition() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks");
    let tasks = crate::task::load_dir(&dir).unwrap();
    let wifi_on = &tasks.iter().find(|t| t.id == "wifi_on").unwrap().variants[0];
    let scratch = ScratchDir::new("conditions-stop");
    let store = Store::open(scratch.join("runs.sqlite")).unwrap();
    store
        .create_run(&test_support::run("r", "2026-12-03T00:00:00Z"))
        .unwrap();
    let planned = plan_in(
        &[wifi_on],
        3,
        0,
        &[Condition::Dark],
        None,
        &Default::default(),
    );
    let interrupt = Interrupt::new();
    // The signal arrives as the third episode's agent is built.
    let factory = |inst: &Instance, seed: u64| -> Result<Box<dyn Agent + Send>, String> {
        if seed == 2 {
            interrupt.ask(15);
        }
        Ok(Box::new(Solver::new(inst.solution.clone())))
    };
    let log = Arc::new(Mutex::new(Vec::new()));
    let backends: Vec<Box<dyn Backend>> = vec![Box::new(Logged {
        inner: SimBackend::new().unwrap(),
        log: Arc::clone(&log),
    })];
    let bar = indicatif::ProgressBar::hidden();
    let result = execute(&store, "r", planned, backends, &factory, &bar, &interrupt);
    assert!(
        matches!(result, Err(RunError::Interrupted { signal: 15 })),
        "{result:?}"
    );
    let log = log.lock().unwrap().clone();
    assert_eq!(log.first().map(String::as_str), Some("set dark"));
    assert_eq!(log.last().map(String::as_str), Some("restore"), "{log:?}");
    // What was committed before the signal (the writer may not have taken
    // any yet) ran in the condition.
    let stored = store.episodes("r").unwrap();
    assert!(stored.iter().all(|e| e.condition == "dark"), "{stored:?}");
}
