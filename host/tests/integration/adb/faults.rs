//! A phone that goes away mid-run, through the real adb server: the run
//! ends with its own exit code within a bound (never hangs), keeps what it
//! finished, and `--resume` against the phone once it is back completes the
//! run with every episode exactly once and the verdicts of a clean run. A
//! phone that comes back within `--device-wait` costs nothing but the
//! episode in flight, run again. The faults are the virtual phone's own
//! (`sim serve --drop-after/--refuse-for/--stall-after`) or adb's
//! (`adb disconnect`), and the phone is killed outright.
//!
//! Every run here has a bound on its wall time ([`TestCommand::within`]):
//! a hang fails the test instead of blocking the suite.

use std::path::Path;
use std::time::{Duration, Instant};

use droidscore::exit;
use droidscore::store::{EpisodeStatus, Store};
use droidscore_phone::adb::{free_port, PrivateAdbServer};

use super::rig::{droidscore, sim_serve_with};
use crate::support::{text, Served, TestCommand, TestEnv};

/// The slice every test here runs: a few episodes, some seconds of work.
const TASKS: &str = "wifi_*";

/// A private adb server and the virtual phone (with `faults`) connected to it.
fn phone_with(env: &TestEnv, faults: &[&str]) -> (PrivateAdbServer, Served) {
    let adb = PrivateAdbServer::start().unwrap_or_else(|e| panic!("{e}"));
    let phone = sim_serve_with(env, &format!("127.0.0.1:{}", free_port()), faults);
    adb.connect(&phone.addr, Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{e}"));
    (adb, phone)
}

/// `droidscore run` of the slice on every adb phone into `store`, as run
/// `id` (or resuming it), bounded by `limit`.
fn run<'a>(
    env: &'a TestEnv,
    adb: &PrivateAdbServer,
    store: &Path,
    id: &str,
    resume: bool,
    waits: &[&str],
    limit: Duration,
) -> TestCommand<'a> {
    let mut cmd = droidscore(env, adb);
    cmd.args(["run", "--phone", "adb", "--serial", "all"])
        .args(["--agent", "reference", "--tasks", TASKS])
        .args(waits)
        .arg("--store")
        .arg(store)
        .args([if resume { "--resume" } else { "--run-id" }, id])
        .within(limit);
    cmd
}

/// Block until run `id` in `store` has recorded `n` episodes: faults are
/// timed by the run's progress, not the clock (a loaded machine takes
/// seconds to start a run). Panics after 60 s.
fn after_episodes(store: &Path, id: &str, n: usize) {
    let started = Instant::now();
    loop {
        let recorded = Store::open_existing(store)
            .ok()
            .and_then(|s| s.episodes(id).ok())
            .map_or(0, |e| e.len());
        if recorded >= n {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "run {id} recorded {recorded} of {n} episodes in 60 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A run's (task, variant, repeat, verdict) rows, sorted.
fn verdicts(store: &Path, id: &str) -> Vec<(String, String, u32, EpisodeStatus)> {
    let mut v: Vec<_> = Store::open_existing(store)
        .unwrap()
        .episodes(id)
        .unwrap()
        .into_iter()
        .map(|e| (e.task, e.variant, e.repeat, e.status))
        .collect();
    v.sort_by(|a, b| (&a.0, &a.1, a.2).cmp(&(&b.0, &b.1, b.2)));
    v
}

/// Run `id` again from the start, fault-free, and require the same verdicts:
/// every episode exactly once, none lost to the fault, none scored differently.
fn assert_as_clean(env: &TestEnv, adb: &PrivateAdbServer, store: &Path, id: &str) {
    run(
        env,
        adb,
        store,
        "clean",
        false,
        &[],
        Duration::from_secs(120),
    )
    .ok();
    let (faulted, clean) = (verdicts(store, id), verdicts(store, "clean"));
    assert!(
        clean.iter().all(|v| v.3 != EpisodeStatus::Infra),
        "the clean run had no fault: {clean:?}"
    );
    assert_eq!(
        faulted, clean,
        "every episode exactly once, as a clean run scores it"
    );
}

/// Run `id` with a phone that comes back within the wait (30 s): it
/// completes, says the attempt in flight failed, and scores as a clean run.
fn completes_through_the_fault(env: &TestEnv, adb: &PrivateAdbServer, store: &Path, id: &str) {
    let waits = ["--device-wait", "30"];
    let ran = run(env, adb, store, id, false, &waits, Duration::from_secs(120)).ok();
    // It happened mid-episode, and the run said so.
    let err = text(&ran.stderr);
    assert!(err.contains("attempt 1 of 2 failed"), "{err}");
    assert_as_clean(env, adb, store, id);
}

#[test]
fn a_phone_that_never_comes_back_ends_the_run_and_resume_completes_it() {
    let dir = TestEnv::new("adb-gone");
    let (adb, first) = phone_with(&dir, &[]);
    let address = first.addr.clone();
    let store = dir.join("runs.sqlite");
    // The phone dies once the run has finished an episode (dropping it
    // kills `sim serve`), as one does when its cable comes loose.
    let killer = {
        let store = store.clone();
        std::thread::spawn(move || {
            after_episodes(&store, "g", 1);
            drop(first);
        })
    };
    let started = Instant::now();
    // The bound: one command deadline (30 s) and the device wait (3 s), with room.
    let gone = run(
        &dir,
        &adb,
        &store,
        "g",
        false,
        &["--device-wait", "3"],
        Duration::from_secs(60),
    )
    .code(exit::PHONE_GONE);
    let took = started.elapsed();
    killer.join().unwrap();
    let err = text(&gone.stderr);
    assert!(err.contains("not back within 3s"), "{err}");
    assert!(err.contains("--resume g"), "{err}");
    let kept = verdicts(&store, "g");
    assert!(
        kept.iter().all(|e| e.3 != EpisodeStatus::Infra),
        "the episode in flight is not recorded: {kept:?}"
    );
    eprintln!(
        "noticed and stopped after {took:?}, {} episodes kept",
        kept.len()
    );

    // The phone is back at its address (the serial a run records), as a
    // real phone comes back with its own serial.
    let _second = sim_serve_with(&dir, &address, &[]);
    adb.connect(&address, Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{e}"));
    run(&dir, &adb, &store, "g", true, &[], Duration::from_secs(120)).ok();
    let clean_len = {
        assert_as_clean(&dir, &adb, &store, "g");
        verdicts(&store, "clean").len()
    };
    assert!(
        kept.len() < clean_len,
        "the phone died mid-run: {} of {clean_len}",
        kept.len()
    );
}

#[test]
fn adb_disconnect_then_a_reconnect_within_the_wait_costs_only_the_episode_in_flight() {
    let dir = TestEnv::new("adb-disconnect");
    let (adb, phone) = phone_with(&dir, &[]);
    let store = dir.join("runs.sqlite");
    let (port, address) = (adb.port(), phone.addr.clone());
    // Another program on the host (or a flaky USB hub) takes the phone
    // away from the adb server once an episode is in, and gives it back
    // 2 s later.
    let watched = store.clone();
    let meddler = std::thread::spawn(move || {
        let adb = |verb: &str| {
            std::process::Command::new("adb")
                .args(["-P", &port.to_string(), verb, &address])
                .output()
                .unwrap()
        };
        after_episodes(&watched, "d", 1);
        let disconnected = adb("disconnect");
        std::thread::sleep(Duration::from_secs(2));
        let connected = adb("connect");
        (disconnected, connected)
    });
    completes_through_the_fault(&dir, &adb, &store, "d");
    let (disconnected, connected) = meddler.join().unwrap();
    assert!(
        disconnected.status.success(),
        "adb disconnect: {}",
        text(&disconnected.stderr)
    );
    assert!(
        connected.status.success(),
        "adb connect: {}",
        text(&connected.stdout)
    );
}

#[test]
fn a_phone_that_drops_every_connection_and_reboots_within_the_wait_finishes_the_run() {
    let dir = TestEnv::new("adb-drop");
    // Command 41 drops every connection; nothing listens for the next 2 s.
    let (adb, _phone) = phone_with(&dir, &["--drop-after", "40", "--refuse-for", "2"]);
    let store = dir.join("runs.sqlite");
    completes_through_the_fault(&dir, &adb, &store, "r");
}

#[test]
fn a_phone_that_stalls_ends_the_run_within_its_deadlines_and_resume_completes_it() {
    let dir = TestEnv::new("adb-stall");
    let listen = format!("127.0.0.1:{}", free_port());
    let adb = PrivateAdbServer::start().unwrap_or_else(|e| panic!("{e}"));
    // After command 40 the phone takes every command and answers none; it
    // stays connected and listed as `device`, which a socket without a
    // deadline never notices.
    let stalled = sim_serve_with(&dir, &listen, &["--stall-after", "40"]);
    adb.connect(&listen, Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{e}"));
    let store = dir.join("runs.sqlite");
    let waits = ["--phone-timeout", "2", "--device-wait", "4"];
    let started = Instant::now();
    // The bound: a command's deadline (2 s, 12 s for a dump) twice (the
    // episode's retry) and the device wait twice, with room.
    let gone = run(
        &dir,
        &adb,
        &store,
        "s",
        false,
        &waits,
        Duration::from_secs(60),
    )
    .code(exit::PHONE_GONE);
    let took = started.elapsed();
    let err = text(&gone.stderr);
    assert!(err.contains("did not answer within"), "{err}");
    assert!(err.contains("not back within 4s"), "{err}");
    eprintln!("stopped after {took:?}: {err}");
    // The run recorded the deadlines it ran with.
    let run_record = Store::open_existing(&store)
        .unwrap()
        .run("s")
        .unwrap()
        .unwrap();
    assert_eq!(
        run_record.config["phone_timeout_s"], 2,
        "{:?}",
        run_record.config
    );
    assert_eq!(run_record.config["device_wait_s"], 4);

    // A healthy phone at the same address; resuming with the default
    // deadlines is allowed (they change how long a run waits, not a verdict).
    drop(stalled);
    let _healthy = sim_serve_with(&dir, &listen, &[]);
    adb.connect(&listen, Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{e}"));
    run(&dir, &adb, &store, "s", true, &[], Duration::from_secs(120)).ok();
    assert_as_clean(&dir, &adb, &store, "s");
}
