//! The binary's adb path as a user runs it: `droidscore sim serve` in one
//! process, a private adb server, `adb connect`, then `droidscore run --phone
//! adb` and `droidscore adb latency` through that server. Needs the real
//! `adb` (scripts/test.sh installs it); fails saying so without it.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use droidscore::adb::{free_port, PrivateAdbServer};
use droidscore::store::{EpisodeStatus, Store};

use super::cli::tempdir;
use super::root;

/// `droidscore sim serve` as a child process, killed when dropped.
pub(crate) struct Served {
    child: Child,
    pub(crate) addr: String,
}

impl Served {
    pub(crate) fn start() -> Served {
        let listen = format!("127.0.0.1:{}", free_port());
        let mut child = Command::new(env!("CARGO_BIN_EXE_droidscore"))
            .args(["sim", "serve", "--listen", &listen])
            .current_dir(root())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // It prints the address once it listens.
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), listen);
        Served {
            child,
            addr: listen,
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn droidscore(adb: &PrivateAdbServer, args: &[&str]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_droidscore"))
        .args(args)
        .envs(adb.env())
        .env_remove("ANDROID_SERIAL")
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "droidscore {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

#[test]
fn run_phone_adb_through_sim_serve_scores_as_the_simulator_and_records_observation_times() {
    let adb = PrivateAdbServer::start().unwrap_or_else(|e| panic!("{e}"));
    let phone = Served::start();
    adb.connect(&phone.addr, Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{e}"));
    let dir = tempdir::Dir::new("adb-cli");
    let store = dir.path().join("runs.sqlite");
    let store_arg = store.to_str().unwrap();
    let common = [
        "--agent",
        "reference",
        "--tasks",
        "wifi_*",
        "--store",
        store_arg,
    ];
    droidscore(
        &adb,
        &[&["run", "--phone", "sim", "--run-id", "sim"], &common[..]].concat(),
    );
    // `--serial all`: every device in state `device` (the one virtual phone here).
    droidscore(
        &adb,
        &[
            &[
                "run", "--phone", "adb", "--serial", "all", "--run-id", "adb",
            ],
            &common[..],
        ]
        .concat(),
    );

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
    let o = droidscore(&adb, &["adb", "latency", "-n", "3", "--json"]);
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
