//! The binary's adb path as a user runs it: `droidscore sim serve` in one
//! process, a private adb server, `adb connect`, then `droidscore run --phone
//! adb` and `droidscore adb latency` through that server. Needs the real
//! `adb` (scripts/test.sh installs it); fails saying so without it.

use droidscore::store::{EpisodeStatus, Store};

use super::rig::{droidscore, phone};
use crate::support::TestEnv;

#[test]
fn run_phone_adb_through_sim_serve_scores_as_the_simulator_and_records_observation_times() {
    let dir = TestEnv::new("adb-cli");
    let (adb, phone) = phone(&dir);
    let store = dir.join("runs.sqlite");
    let store_arg = store.to_str().unwrap();
    let common = [
        "--agent",
        "reference",
        "--tasks",
        "wifi_*",
        "--store",
        store_arg,
    ];
    droidscore(&dir, &adb)
        .args(["run", "--phone", "sim", "--run-id", "sim"])
        .args(common)
        .ok();
    // `--serial all`: every device in state `device` (the one virtual phone here).
    droidscore(&dir, &adb)
        .args([
            "run", "--phone", "adb", "--serial", "all", "--run-id", "adb",
        ])
        .args(common)
        .ok();

    let store = Store::open_existing(&store).unwrap();
    // The run names the phone it ran on.
    let run = store.run("adb").unwrap().unwrap();
    let device = &run.config["devices"][0];
    assert_eq!(device["serial"], phone.addr.as_str());
    assert_eq!(device["model"], "droidscore_sim");
    assert_eq!(device["screen"], "1080x2400");
    let (sim, over_adb) = (
        store.episodes("sim").unwrap(),
        store.episodes("adb").unwrap(),
    );
    assert_eq!(sim.len(), over_adb.len());
    let mut skipped = 0;
    for (s, a) in sim.iter().zip(&over_adb) {
        assert_eq!((&s.task, &s.variant), (&a.task, &a.variant));
        assert_eq!(s.status, EpisodeStatus::Success, "{}/{}", s.task, s.variant);
        if a.status == EpisodeStatus::Skipped {
            assert_eq!(a.task, "wifi_off_no_flips");
            assert!(a.reason.contains("flip history"), "{}", a.reason);
            skipped += 1;
        } else {
            assert_eq!(
                a.status,
                EpisodeStatus::Success,
                "{}/{}: {}",
                a.task,
                a.variant,
                a.reason
            );
        }
    }
    assert!(skipped >= 4, "the flip-history task's variants are skipped");
    // Every adb observation carries its timing; the simulator's do not.
    let steps = store.steps("adb", "wifi_on", "base", 0).unwrap();
    assert!(!steps.is_empty());
    for step in &steps {
        let t = step
            .observe
            .expect("an adb step records its observation time");
        assert!(t.total_ms >= t.dump_ms + t.read_ms + t.foreground_ms);
        assert_eq!(t.dump_attempts, 1);
    }
    let steps = store.steps("sim", "wifi_on", "base", 0).unwrap();
    assert!(steps.iter().all(|s| s.observe.is_none()));

    // `adb latency` without --serial picks the only device, as adb does.
    let o = droidscore(&dir, &adb)
        .args(["adb", "latency", "-n", "3", "--json"])
        .ok();
    let latency: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(latency["serial"], phone.addr.as_str());
    assert_eq!(latency["virtual_phone"], true);
    let parts = latency["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 7);
    for p in parts {
        assert_eq!(p["ms"]["n"], 3, "{p}");
        assert!(p["ms"]["median"].as_f64().unwrap() >= 0.0, "{p}");
    }
}
