//! The adb path end to end, through the real `adb` binary (Debian's `adb`,
//! installed by scripts/test.sh): the virtual phone listens on loopback, a
//! private adb server (its own port, so nothing on the machine interferes)
//! connects to it, and the adb backend drives it through that server exactly
//! as it drives a phone on USB. These tests fail, not pass, without `adb`.

use std::process::Output;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use droidscore::agent::{Agent, Decision, Solver};
use droidscore::episode;
use droidscore::run::backend::{prepare_adb_phone, AdbBackend, Backend, Prepared};
use droidscore::run::{execute, plan};
use droidscore::store::{RunRecord, Store};
use droidscore::task::{self, Instance, Task};
use droidscore_phone::adb::{AdbOptions, AdbPhone, PrivateAdbServer, ServerTransport};
use droidscore_phone::adbd::{Server, ServerHandle};
use droidscore_phone::sim::SimPhone;
use droidscore_phone::vphone::VirtualPhone;
use droidscore_phone::Observation;

use crate::support::{root, TestEnv};

fn suite() -> Vec<Task> {
    task::load_dir(&root().join("tasks")).unwrap()
}

/// `adb ARGS…` on the private server; a missing `adb` fails the test, saying so.
fn adb(server: &PrivateAdbServer, args: &[&str]) -> Output {
    server.adb(args).unwrap_or_else(|e| panic!("{e}"))
}

fn adb_text(server: &PrivateAdbServer, args: &[&str]) -> String {
    server.text(args).unwrap_or_else(|e| panic!("{e}"))
}

/// A virtual phone served on loopback, reached through a private adb server.
struct Rig {
    adb: PrivateAdbServer,
    phone: Arc<VirtualPhone>,
    handle: Option<ServerHandle>,
    serial: String,
}

impl Rig {
    fn new() -> Rig {
        let adb = PrivateAdbServer::start().unwrap_or_else(|e| panic!("{e}"));
        let phone = Arc::new(VirtualPhone::new(droidscore::task::SuiteSetups(suite())).unwrap());
        let server = Server::bind("127.0.0.1:0").unwrap();
        let serial = server.local_addr().to_string();
        assert!(!(5555..=5585).contains(&server.local_addr().port()));
        let handle = Some(server.spawn(phone.clone()));
        adb.connect(&serial, Duration::from_secs(20))
            .unwrap_or_else(|e| panic!("{e}"));
        Rig {
            adb,
            phone,
            handle,
            serial,
        }
    }

    /// `adb -s SERIAL shell ARGS…`.
    fn shell(&self, args: &[&str]) -> Output {
        adb(
            &self.adb,
            &[&["-s", self.serial.as_str(), "shell"], args].concat(),
        )
    }

    fn adb_phone(&self, options: AdbOptions) -> AdbPhone {
        AdbPhone::new(
            Box::new(ServerTransport::new(self.adb.address(), &self.serial)),
            options,
        )
        .unwrap()
    }
}

#[test]
fn adb_devices_lists_the_virtual_phone_and_adb_shell_drives_it() {
    let rig = Rig::new();
    let listed = adb_text(&rig.adb, &["devices", "-l"]);
    println!("$ adb devices -l\n{listed}");
    let line = listed
        .lines()
        .find(|l| l.starts_with(&rig.serial))
        .unwrap_or_else(|| panic!("{listed}"));
    assert!(
        line.contains(" device ")
            && line.contains("product:droidscore_sim model:droidscore_sim device:droidscore_sim"),
        "{line}"
    );
    let s = rig.serial.as_str();
    let out = rig.shell(&["uiautomator", "dump", "/sdcard/d.xml"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "UI hierchary dumped to: /sdcard/d.xml\n"
    );
    let xml = adb(&rig.adb, &["-s", s, "exec-out", "cat", "/sdcard/d.xml"]).stdout;
    assert!(xml.starts_with(
        b"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    ));
    // Exit statuses come through the real server (shell v2).
    let out = rig.shell(&["no-such-command"]);
    assert_eq!(out.status.code(), Some(127));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "/system/bin/sh: no-such-command: inaccessible or not found\n"
    );
    // A dump failure prints on stdout with status 0, as uiautomator does.
    rig.shell(&["droidscore-sim", "fail-dumps", "1"]);
    let out = rig.shell(&["uiautomator", "dump", "/sdcard/d.xml"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ERROR: could not get idle state.\n"
    );
}

#[test]
fn the_suite_through_the_real_adb_server_scores_as_the_simulator_does() {
    let rig = Rig::new();
    let mut phone = rig.adb_phone(AdbOptions::default());
    assert!(phone.is_virtual());
    let tasks = suite();
    // Three instances of every parameterised task, each variant.
    let all: Vec<&Instance> = tasks.iter().flat_map(|t| &t.variants).collect();
    let instances = droidscore::run::with_instances(&tasks, &all, 3).unwrap();
    let mut table = String::from("task/variant#instance\tsimulator\tadb\n");
    let (mut equal, mut skipped, mut harmed) = (0, Vec::new(), 0);
    for inst in &instances {
        let name = format!("{}/{}#{}", inst.task, inst.variant.id, inst.instance_seed);
        let mut sim = SimPhone::new(inst.setup(0)).unwrap();
        let on_sim = episode::run(&mut sim, &mut Solver::new(inst.solution.clone()), inst).unwrap();
        let sim_says = if on_sim.success { "pass" } else { "fail" };
        let adb_says = match prepare_adb_phone(&mut phone, inst, 0).unwrap() {
            Prepared::Skip(why) => {
                assert!(inst.oracle.needs_flip_history(), "{name}: {why}");
                skipped.push(format!("{name}: {why}"));
                "skipped".to_string()
            }
            Prepared::Ready => {
                let ep = episode::run(&mut phone, &mut Solver::new(inst.solution.clone()), inst)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(ep.success, on_sim.success, "{name}: {}", ep.reason);
                assert_eq!(ep.progress.harm, on_sim.progress.harm, "{name}");
                equal += 1;
                // A safety template's obeying agent harms through adb too.
                if !inst.harm_solution.is_empty() {
                    let obey = || Solver::new(inst.harm_solution.clone());
                    let mut sim = SimPhone::new(inst.setup(0)).unwrap();
                    let on_sim = episode::run(&mut sim, &mut obey(), inst).unwrap();
                    assert!(matches!(
                        prepare_adb_phone(&mut phone, inst, 0).unwrap(),
                        Prepared::Ready
                    ));
                    let ep = episode::run(&mut phone, &mut obey(), inst)
                        .unwrap_or_else(|e| panic!("{name}, obeying: {e}"));
                    assert!(
                        ep.progress.harm.as_ref().is_some_and(|h| h.done()),
                        "{name}: {:?}",
                        ep.progress.harm
                    );
                    assert_eq!(ep.progress.harm, on_sim.progress.harm, "{name}");
                    harmed += 1;
                }
                if ep.success { "pass" } else { "fail" }.to_string()
            }
        };
        table.push_str(&format!("{name}\t{sim_says}\t{adb_says}\n"));
    }
    println!("{table}\nskipped through adb:\n{}", skipped.join("\n"));
    let flip_history = instances
        .iter()
        .filter(|i| i.oracle.needs_flip_history())
        .count();
    assert_eq!(skipped.len(), flip_history);
    assert_eq!(equal + skipped.len(), instances.len());
    let safety = instances.iter().filter(|i| !i.harm.is_empty()).count();
    assert_eq!(harmed, safety);
    println!(
        "{} instances: {equal} scored alike through adb, {} skipped; the obeying agent harmed all {harmed} safety instances through adb as on the simulator",
        instances.len(),
        skipped.len()
    );
}

/// `adb shell wm size` on the rig's phone.
fn wm_size(rig: &Rig) -> String {
    String::from_utf8_lossy(&rig.shell(&["wm", "size"]).stdout).into_owned()
}

/// A run's condition over adb: the backend sets it with the real commands
/// after each reset (the virtual phone's screens change: the dump's bounds
/// are the small phone's), undoes it when the condition changes, and a run
/// that ends leaves the phone as it came.
#[test]
fn a_condition_over_adb_changes_the_phones_screens_and_is_restored_after_the_run() {
    use droidscore_phone::Condition;
    let rig = Rig::new();
    let tasks = suite();
    let wifi_on = tasks.iter().find(|t| t.id == "wifi_on").unwrap();
    let base = wifi_on.variant("base").unwrap();
    let mut backend = AdbBackend::new(rig.adb_phone(AdbOptions::default()), Duration::from_secs(5));
    backend.set_condition(Condition::Small).unwrap();
    assert_eq!(backend.prepare(base, 0).unwrap(), Prepared::Ready);
    assert_eq!(
        wm_size(&rig),
        "Physical size: 1080x2400\nOverride size: 720x1600\n"
    );
    let seen = backend.phone().observe(false).unwrap();
    assert!(seen.xml.contains("[0,0][720,1600]"), "{}", seen.xml);
    assert!(!seen.xml.contains("[1080,2400]"), "{}", seen.xml);
    backend.set_condition(Condition::Dark).unwrap();
    assert_eq!(wm_size(&rig), "Physical size: 1080x2400\n", "small undone");
    backend.prepare(base, 0).unwrap();
    let night =
        String::from_utf8_lossy(&rig.shell(&["cmd", "uimode", "night"]).stdout).into_owned();
    assert_eq!(night.trim(), "Night mode: yes");
    backend.restore_condition().unwrap();
    let night =
        String::from_utf8_lossy(&rig.shell(&["cmd", "uimode", "night"]).stdout).into_owned();
    assert_eq!(night.trim(), "Night mode: no");

    // A whole run in `small` through `execute`: scored, then restored.
    let dir = TestEnv::new("adb-conditions");
    let store = Store::open(dir.join("runs.sqlite")).unwrap();
    store
        .create_run(&RunRecord {
            id: "small".into(),
            started_at: "2026-12-03T00:00:00Z".into(),
            config: serde_json::json!({"phone": "adb", "conditions": "small"}),
            provenance: Default::default(),
        })
        .unwrap();
    let planned = droidscore::run::plan_in(
        &[base],
        1,
        0,
        &[Condition::Small],
        None,
        &Default::default(),
    );
    let factory = |inst: &Instance, _seed: u64| -> Result<Box<dyn Agent + Send>, String> {
        Ok(Box::new(Solver::new(inst.solution.clone())))
    };
    let backends: Vec<Box<dyn Backend>> = vec![Box::new(AdbBackend::new(
        rig.adb_phone(AdbOptions::default()),
        Duration::from_secs(5),
    ))];
    let bar = indicatif::ProgressBar::hidden();
    let interrupt = droidscore::run::Interrupt::new();
    let written = execute(
        &store, "small", planned, backends, &factory, &bar, &interrupt,
    )
    .unwrap();
    assert_eq!(written.len(), 1);
    assert_eq!(written[0].condition, "small");
    assert_eq!(
        written[0].status,
        droidscore::store::EpisodeStatus::Success,
        "{}",
        written[0].reason
    );
    assert_eq!(
        wm_size(&rig),
        "Physical size: 1080x2400\n",
        "restored after the run"
    );
}

#[test]
fn hostile_text_goes_through_the_real_adb_server_as_one_literal_argument() {
    let rig = Rig::new();
    let mut phone = rig.adb_phone(AdbOptions::default());
    for hostile in [
        "'; touch \"$CANARY\"; echo '",
        "$(reboot) `reboot` && reboot || reboot; reboot | reboot",
        "a\\'b\"c\\\"d",
    ] {
        let out = phone
            .shell(&format!("echo {}", droidscore_phone::adb::quote(hostile)))
            .unwrap();
        assert_eq!(out.status, 0);
        assert_eq!(out.stdout_text(), format!("{hostile}\n"));
    }
}

/// Pulls the phone's plug, once.
type Plug = Arc<Mutex<Option<Box<dyn FnOnce() + Send>>>>;

/// Solves the task, but pulls the phone's plug at its third decision of the
/// first episode; the phone comes back on the same port a moment later.
struct Unplugger {
    inner: Solver,
    decisions: u32,
    plug: Plug,
}

impl Agent for Unplugger {
    fn next(&mut self, goal: &str, observation: &Observation) -> Decision {
        self.decisions += 1;
        if self.decisions == 3 {
            if let Some(pull) = self.plug.lock().unwrap().take() {
                pull();
            }
        }
        self.inner.next(goal, observation)
    }
}

/// Run `tasks` (base variants) on the rig's phone through `execute`, pulling
/// the plug at the first episode's third decision; the phone is back on the
/// same port after `away`. Returns each episode as `task status attempts reason`.
fn run_unplugged(
    tasks: &[&str],
    away: Duration,
    device_wait: Duration,
) -> Result<Vec<droidscore::store::EpisodeRecord>, droidscore::run::RunError> {
    let mut rig = Rig::new();
    let phone = rig.adb_phone(AdbOptions::default());
    let handle = rig.handle.take().unwrap();
    let addr = handle.local_addr();
    let device = rig.phone.clone();
    let plug: Plug = Arc::new(Mutex::new(Some(Box::new(move || {
        handle.shutdown();
        std::thread::spawn(move || {
            std::thread::sleep(away);
            let server = Server::bind(&addr.to_string()).unwrap();
            std::mem::forget(server.spawn(device));
        });
    }))));
    let suite = suite();
    let picked: Vec<&Instance> = tasks
        .iter()
        .map(|id| {
            suite
                .iter()
                .find(|t| t.id == *id)
                .unwrap()
                .variant("base")
                .unwrap()
        })
        .collect();
    let dir = TestEnv::new(&format!("adb-drop-{}", away.as_millis()));
    let store = Store::open(dir.join("runs.sqlite")).unwrap();
    store
        .create_run(&RunRecord {
            id: "drop".into(),
            started_at: "2026-11-30T00:00:00Z".into(),
            config: serde_json::json!({"phone": "adb"}),
            provenance: Default::default(),
        })
        .unwrap();
    let planned = plan(&picked, 1, 0, None, &Default::default());
    let factory = |inst: &Instance, _seed: u64| -> Result<Box<dyn Agent + Send>, String> {
        Ok(Box::new(Unplugger {
            inner: Solver::new(inst.solution.clone()),
            decisions: 0,
            plug: plug.clone(),
        }))
    };
    let backends: Vec<Box<dyn Backend>> = vec![Box::new(AdbBackend::new(phone, device_wait))];
    let bar = indicatif::ProgressBar::hidden();
    let interrupt = droidscore::run::Interrupt::new();
    let written = execute(
        &store, "drop", planned, backends, &factory, &bar, &interrupt,
    );
    assert!(plug.lock().unwrap().is_none(), "the plug was never pulled");
    // What the store holds is what was written, whatever the outcome.
    let stored = store.episodes("drop").unwrap();
    for e in &stored {
        println!(
            "{} {:?} attempts={} {}",
            e.task, e.status, e.attempts, e.reason
        );
    }
    assert_eq!(stored.len(), written.as_ref().map_or(0, Vec::len));
    written
}

#[test]
fn a_phone_lost_mid_episode_is_retried_once_it_is_back_and_the_run_continues() {
    let written = run_unplugged(
        &["wifi_on", "bluetooth_on", "dark_theme_on"],
        Duration::from_secs(1),
        Duration::from_secs(20),
    )
    .unwrap();
    assert_eq!(written.len(), 3);
    // The first episode died with the phone, was retried once the phone was
    // back, and passed; the others ran as usual.
    assert_eq!(written[0].attempts, 2);
    assert!(written
        .iter()
        .all(|e| e.status == droidscore::store::EpisodeStatus::Success));
}

#[test]
fn a_phone_away_longer_than_the_wait_stops_the_run_with_its_episode_unrecorded() {
    let stopped = run_unplugged(
        &["wifi_on", "bluetooth_on", "dark_theme_on", "wifi_off"],
        Duration::from_secs(4),
        Duration::from_secs(1),
    )
    .unwrap_err();
    // Not an `infra` row for each episode left (each costing a deadline and
    // the wait): the run stops, and `--resume` runs the rest once it is back.
    assert!(
        matches!(stopped, droidscore::run::RunError::PhoneGone(_)),
        "{stopped:?}"
    );
    let why = stopped.to_string();
    assert!(
        why.starts_with("the run stopped: wifi_on/base #0:"),
        "{why}"
    );
    assert!(why.contains("not back within 1s"), "{why}");
}

#[test]
fn push_pull_and_forward_through_the_deploy_helpers_and_the_adb_binary() {
    let rig = Rig::new();
    let mut phone = rig.adb_phone(AdbOptions::default());
    let data: Vec<u8> = (0..=255u8).cycle().take(200_000).collect();
    phone.push(&data, "/data/local/tmp/blob", false).unwrap();
    let dir = TestEnv::new("adb-pull");
    let local = dir.join("blob");
    let out = adb(
        &rig.adb,
        &[
            "-s",
            &rig.serial,
            "pull",
            "/data/local/tmp/blob",
            local.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read(&local).unwrap(), data);
    // A forward registered through the backend is the adb server's own.
    phone.forward("tcp:18080", "tcp:8080").unwrap();
    let forwards = adb_text(&rig.adb, &["forward", "--list"]);
    assert!(
        forwards.contains(&format!("{} tcp:18080 tcp:8080", rig.serial)),
        "{forwards}"
    );
}
