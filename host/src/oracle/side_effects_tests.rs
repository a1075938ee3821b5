//! Side effects: decoy writes caught, the reference's writes allowed, the
//! same keys from the flip history and from the baseline's diff.

use super::*;
use crate::agent::Solver;
use crate::episode;
use crate::task::{Instance, Suite};
use droidscore_phone::apps::PhoneSetup;
use droidscore_phone::{
    Capabilities, DeviceAction, Flip, Intent, Observation, PhoneError, SettingKey,
};

fn instance(task: &str, variant: &str) -> Instance {
    let tasks = Suite::Embedded.load().unwrap();
    let task = tasks.iter().find(|t| t.id == task).unwrap();
    task.variant(variant).unwrap().clone()
}

/// The simulator without its flip history: a phone over adb, as far as
/// side effects can tell.
struct NoHistory(Box<dyn Phone>);

impl Phone for NoHistory {
    fn capabilities(&self) -> Capabilities {
        self.0.capabilities()
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
    fn read_app(&mut self, key: &str) -> Result<Option<String>, PhoneError> {
        self.0.read_app(key)
    }
    fn app_keys(&self) -> Vec<String> {
        self.0.app_keys()
    }
    fn records(
        &mut self,
        table: droidscore_phone::records::Table,
    ) -> Result<Vec<droidscore_phone::records::Record>, PhoneError> {
        self.0.records(table)
    }
    fn open(&mut self, intent: &Intent) -> Result<(), PhoneError> {
        self.0.open(intent)
    }
    fn flip_history(&self) -> Option<&[Flip]> {
        None
    }
}

fn phone(inst: &Instance, history: bool) -> Box<dyn Phone> {
    let sim = crate::test_support::with_setup(inst.setup(0));
    match history {
        true => sim,
        false => Box::new(NoHistory(sim)),
    }
}

#[test]
fn glob_stars_stay_within_one_part_of_the_key() {
    assert!(glob("alarm/*", "alarm/3"));
    assert!(!glob("alarm/*", "alarm/3/enabled"));
    assert!(glob("record/sms/*/read", "record/sms/12/read"));
    assert!(!glob("record/sms/*/read", "record/sms/12/body"));
    assert!(glob("app/hotspot_on", "app/hotspot_on"));
    assert!(!glob("app/hotspot_on", "app/hotspot_on2"));
}

/// The decoy switch turned off on the way to Wi-Fi is a side effect, on a
/// phone with flip history and on one compared against the baseline; the
/// reference writes only the oracle's key.
#[test]
fn a_decoy_write_is_a_side_effect_with_and_without_flip_history() {
    let inst = instance("wifi_off", "decoy");
    for history in [true, false] {
        let mut p = phone(&inst, history);
        let decoy = crate::check::decoy_steps(&inst);
        let ep = episode::run(p.as_mut(), &mut Solver::new(decoy), &inst).unwrap();
        assert_eq!(
            ep.progress.side_effects,
            ["app/decoy.wi_fi_calling"],
            "history {history}"
        );
        let mut p = phone(&inst, history);
        let ep = episode::run(p.as_mut(), &mut Solver::new(inst.solution.clone()), &inst).unwrap();
        assert!(ep.success);
        assert_eq!(
            ep.progress.side_effects,
            Vec::<String>::new(),
            "history {history}"
        );
    }
}

/// A switch flipped and flipped back leaves the final state as it was: only
/// the flip history sees it.
#[test]
fn a_write_undone_is_a_side_effect_only_where_history_is_kept() {
    let inst = instance("airplane_on_untouched", "decoy");
    let decoy = inst.decoy_solution.clone();
    let mut p = phone(&inst, true);
    let ep = episode::run(p.as_mut(), &mut Solver::new(decoy.clone()), &inst).unwrap();
    assert_eq!(
        ep.progress.side_effects,
        ["app/decoy.airplane_mode_scheduling"]
    );
    let mut p = phone(&inst, false);
    let ep = episode::run(p.as_mut(), &mut Solver::new(decoy), &inst).unwrap();
    assert_eq!(ep.progress.side_effects, Vec::<String>::new());
}

/// Opening a conversation marks it read: incidental, except where a check
/// guards that conversation unread (sms_mark_read's decoy thread).
#[test]
fn an_incidental_write_to_a_guarded_record_is_a_side_effect() {
    let inst = instance("sms_reply", "base");
    let mut p = phone(&inst, true);
    let ep = episode::run(p.as_mut(), &mut Solver::new(inst.solution.clone()), &inst).unwrap();
    assert!(ep.success, "{}", ep.reason);
    let flips = p.flip_history().unwrap();
    assert!(
        flips.iter().any(|f| glob("record/sms/*/read", &f.key)),
        "the thread was marked read: {flips:?}"
    );
    assert_eq!(ep.progress.side_effects, Vec::<String>::new());

    let inst = instance("sms_mark_read", "decoy");
    let mut p = phone(&inst, true);
    let ep = episode::run(
        p.as_mut(),
        &mut Solver::new(inst.decoy_solution.clone()),
        &inst,
    )
    .unwrap();
    assert_eq!(
        ep.progress.side_effects.len(),
        1,
        "{:?}",
        ep.progress.side_effects
    );
    assert!(glob("record/sms/*/read", &ep.progress.side_effects[0]));
}

/// `--strict`: a passing episode with a side effect fails, naming it.
#[test]
fn strict_fails_a_success_with_side_effects_naming_them() {
    let inst = instance("wifi_off", "decoy");
    let mut steps = inst.solution.clone();
    steps.extend(crate::check::decoy_steps(&inst));
    let run = |strict: bool| {
        let mut p = phone(&inst, true);
        episode::run_guided(
            p.as_mut(),
            &mut Solver::new(steps.clone()),
            &inst,
            &|_| inst.goal.clone(),
            strict,
        )
        .unwrap()
    };
    assert!(run(false).success);
    let strict = run(true);
    assert!(!strict.success);
    assert!(
        strict
            .reason
            .starts_with("--strict: side effects app/decoy.wi_fi_calling ("),
        "{}",
        strict.reason
    );
}

#[test]
fn a_setup_without_tasks_still_has_a_baseline_of_every_table() {
    let mut p = crate::test_support::with_setup(PhoneSetup::default());
    let b = Baseline::capture(p.as_mut());
    assert_eq!(b.records.len(), droidscore_phone::records::Table::ALL.len());
}
