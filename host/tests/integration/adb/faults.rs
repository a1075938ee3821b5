//! A phone that goes away mid-run, through the real adb server: the run
//! ends with its own exit code within a bound (never hangs), keeps what it
//! finished, and `--resume` against the phone once it is back completes the
//! run with every episode exactly once and the verdicts of a clean run.

use std::time::{Duration, Instant};

use droidscore::exit;
use droidscore::store::Store;

use super::rig::{droidscore, phone};
use crate::support::{text, TestEnv};

#[test]
fn a_phone_that_never_comes_back_ends_the_run_and_resume_completes_it() {
    let dir = TestEnv::new("adb-gone");
    let (adb, first) = phone(&dir);
    let address = first.addr.clone();
    let store = dir.join("runs.sqlite");
    let run = |id: &str, resume: bool| {
        let mut cmd = droidscore(&dir, &adb);
        cmd.args(["run", "--phone", "adb", "--serial", "all"])
            .args(["--agent", "reference", "--tasks", "wifi_*"])
            .args(["--device-wait", "3", "--store"])
            .arg(&store)
            .args([if resume { "--resume" } else { "--run-id" }, id]);
        cmd
    };
    // The phone dies 1.2 s in (dropping it kills `sim serve`), as one does
    // when its cable comes loose.
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(1200));
        drop(first);
    });
    let started = Instant::now();
    let gone = run("g", false).code(exit::PHONE_GONE);
    let took = started.elapsed();
    killer.join().unwrap();
    // The bound: one shell deadline (30 s) and the device wait (3 s), with room.
    assert!(took < Duration::from_secs(60), "the run took {took:?}");
    let err = text(&gone.stderr);
    assert!(err.contains("not back within 3s"), "{err}");
    assert!(err.contains("--resume g"), "{err}");
    let kept = Store::open_existing(&store).unwrap().episodes("g").unwrap();
    assert!(
        kept.iter()
            .all(|e| e.status != droidscore::store::EpisodeStatus::Infra),
        "the episode in flight is not recorded: {kept:?}"
    );

    // The phone is back at its address (the serial a run records), as a
    // real phone comes back with its own serial.
    let second = dir
        .droidscore()
        .args(["sim", "serve", "--listen", &address])
        .stderr(std::process::Stdio::null())
        .spawn_server();
    adb.connect(&second.addr, Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{e}"));
    run("g", true).ok();
    run("clean", false).ok();
    let store = Store::open_existing(&store).unwrap();
    let verdicts = |id: &str| {
        let mut v: Vec<_> = store
            .episodes(id)
            .unwrap()
            .into_iter()
            .map(|e| (e.task, e.variant, e.repeat, e.status))
            .collect();
        v.sort_by(|a, b| (&a.0, &a.1, a.2).cmp(&(&b.0, &b.1, b.2)));
        v
    };
    let (resumed, clean) = (verdicts("g"), verdicts("clean"));
    assert!(
        kept.len() < clean.len(),
        "the phone died mid-run: {} of {}",
        kept.len(),
        clean.len()
    );
    assert_eq!(
        resumed, clean,
        "every episode exactly once, as a clean run scores it"
    );
}
