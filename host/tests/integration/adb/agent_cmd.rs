//! `run --agent-cmd`: a program that drives the phone itself, through the
//! real adb server, against the virtual phone the run serves. The shell
//! agent (scripts/agents/tap-texts.sh) plays the reference's taps and must
//! score as the reference does; programs that crash, hang, overrun their
//! step budget or kill the adb server each end their episode within a
//! bound, with the right status, and the next episode runs.

use droidscore::store::{EpisodeRecord, EpisodeStatus, Store};
use serde_json::Value;

use crate::support::{root, TestEnv};

/// The main job's slice (`[ab]*_on`, base variants) into `store`.
fn main_slice(store: &str) -> [&str; 6] {
    [
        "--tasks",
        "[ab]*_on",
        "--variants",
        "base",
        "--store",
        store,
    ]
}

fn episodes(store: &std::path::Path, run: &str) -> Vec<EpisodeRecord> {
    Store::open_existing(store).unwrap().episodes(run).unwrap()
}

#[test]
fn the_shell_agent_drives_the_virtual_phone_over_adb_and_scores_as_the_reference() {
    let env = TestEnv::new("agent-cmd-shell");
    let store = env.join("runs.sqlite");
    let store_arg = store.to_str().unwrap();
    let agents = root().join("scripts/agents");
    let cmd = format!(
        "sh {} {}",
        agents.join("tap-texts.sh").display(),
        agents.join("settings.policy").display()
    );
    let slice = main_slice(store_arg);
    let out = env
        .droidscore()
        .args(["run", "--agent-cmd", &cmd, "--run-id", "shell"])
        .args(slice)
        .ok();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("agent command: 6/6 episodes succeeded"),
        "{table}"
    );
    env.droidscore()
        .args(["run", "--agent", "reference", "--run-id", "ref"])
        .args(slice)
        .ok();
    let (shell, reference) = (episodes(&store, "shell"), episodes(&store, "ref"));
    assert_eq!(shell.len(), 6);
    let open = Store::open_existing(&store).unwrap();
    for (s, r) in shell.iter().zip(&reference) {
        let name = format!("{}/{}", s.task, s.variant);
        assert_eq!((&s.task, s.status), (&r.task, r.status), "{name}");
        // The same taps: the app opened, then each of the reference's.
        assert_eq!(s.steps, r.steps, "{name}");
        let program = &s.end["program"];
        assert_eq!(program["exit_code"], 0, "{name}: {program}");
        assert_eq!(program["trajectory"], "phone");
        assert_eq!(program["actions"], s.steps);
        // It read the screen before each tap: a dump for each.
        let log = s.end["phone_log"].as_array().unwrap();
        let taps = log.iter().filter(|e| e["argv"][1] == "tap").count() as u64;
        assert!(taps > 0 && program["observations"].as_u64().unwrap() >= taps);
        assert_eq!(log[0]["argv"][0], "monkey", "{name}: {}", log[0]);
        assert!(log.iter().any(|e| e["argv"][0] == "uiautomator"));
        // Each action is a step record with the screen before it.
        let steps = open
            .steps(&s.run_id, &s.task, &s.variant, s.repeat)
            .unwrap();
        assert_eq!(steps.len() as u32, s.steps, "{name}");
        // It reads dumps, never a screenshot: its steps keep no picture.
        assert!(steps
            .iter()
            .all(|st| st.screenshot.is_none() && !st.ui_dump_gz.is_empty()));
        // Each tap placed where it landed, for the viewer to mark.
        for st in &steps[1..] {
            let tap = st.raw_output.starts_with("input tap ");
            assert_eq!(st.tap.is_some(), tap, "{name}: {}", st.raw_output);
            assert!(tap || st.raw_output == "input keyevent KEYCODE_BACK");
        }
        let progress = s.progress.as_ref().unwrap();
        assert_eq!(progress.reached_in_order, progress.milestones, "{name}");
    }
    let run = open.run("shell").unwrap().unwrap();
    assert_eq!(run.config["agent"], "command");
    assert_eq!(run.config["agent_cmd"], Value::from(cmd));
}

/// What each task's program does (dispatched on `DROIDSCORE_TASK`).
const MISBEHAVING: &str = r#"#!/bin/sh
case $DROIDSCORE_TASK in
  wifi_off) sleep 1000 ;;
  wifi_off_bluetooth_on) adb kill-server; exit 0 ;;
  wifi_off_no_flips) while :; do adb shell input keyevent KEYCODE_HOME </dev/null; done ;;
  wifi_on) echo "about to crash"; echo "boom" >&2; sleep 1000 & exit 3 ;;
esac
"#;

#[test]
fn a_program_that_hangs_kills_adb_overruns_or_crashes_ends_its_episode_within_bounds() {
    let env = TestEnv::new("agent-cmd-faults");
    env.write("agent.sh", MISBEHAVING);
    let store = env.join("runs.sqlite");
    let cmd = format!("sh {}", env.join("agent.sh").display());
    env.droidscore()
        .args(["run", "--agent-cmd", &cmd, "--agent-timeout", "3"])
        .args([
            "--tasks",
            "wifi_*",
            "--variants",
            "base",
            "--max-steps",
            "3",
        ])
        .args(["--store", store.to_str().unwrap(), "--run-id", "bad"])
        .ok();
    let all = episodes(&store, "bad");
    let by = |task: &str| all.iter().find(|e| e.task == task).unwrap();
    // Every episode ran and was scored: none is an infrastructure failure.
    assert_eq!(all.len(), 4);
    assert!(
        all.iter().all(|e| e.status == EpisodeStatus::Failure),
        "{all:?}"
    );

    let hung = by("wifi_off");
    assert_eq!(hung.end["end"], "timed_out");
    let program = &hung.end["program"];
    assert_eq!(program["killed_for"], "timeout");
    let wall = program["wall_ms"].as_f64().unwrap();
    assert!((3000.0..60_000.0).contains(&wall), "{wall}");

    // It killed the run's adb server; the next episode still reached the phone.
    let killer = by("wifi_off_bluetooth_on");
    assert_eq!(killer.end["end"], "complete");

    let overrun = by("wifi_off_no_flips");
    assert_eq!(overrun.end["end"], "out_of_steps");
    assert_eq!(overrun.steps, 3);
    let log = overrun.end["phone_log"].as_array().unwrap();
    let refused: Vec<&Value> = log.iter().filter(|e| e["refused"] == true).collect();
    assert!(!refused.is_empty(), "the 4th action was refused");
    assert_eq!(overrun.end["program"]["killed_for"], "step budget");

    let crashed = by("wifi_on");
    assert_eq!(crashed.end["end"], "exited");
    assert_eq!(crashed.end["reason"], "exited with status 3");
    let program = &crashed.end["program"];
    assert_eq!(program["exit_code"], 3);
    assert_eq!(program["stdout"]["text"], "about to crash\n");
    assert_eq!(program["stderr"]["text"], "boom\n");
    // Its background child died with its group: the run did not wait on it.
    assert!(program["wall_ms"].as_f64().unwrap() < 60_000.0);
}

#[test]
fn a_program_that_cannot_start_is_refused_naming_the_flag_before_any_run() {
    let env = TestEnv::new("agent-cmd-missing");
    let store = env.join("runs.sqlite");
    let out = env
        .droidscore()
        .args(["run", "--agent-cmd", "no-such-agent-program --go"])
        .args(["--tasks", "wifi_on", "--store", store.to_str().unwrap()])
        .fails();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--agent-cmd: \"no-such-agent-program\" is not on PATH"),
        "{err}"
    );
    assert!(!store.exists(), "no run was recorded");
}

/// Each framework recipe's own calls, as the phone saw them.
fn phone_saw(record: &EpisodeRecord) -> Vec<String> {
    let log = record.end["phone_log"].as_array().unwrap();
    log.iter()
        .map(|e| {
            let words = e["argv"].as_array().unwrap().iter();
            let words: Vec<&str> = words.map(|w| w.as_str().unwrap()).collect();
            words.join(" ")
        })
        .collect()
}

#[test]
fn the_appagent_and_mobile_agent_recipes_score_as_the_reference_over_real_adb() {
    let env = TestEnv::new("agent-cmd-recipes");
    let python = crate::support::python3();
    let pillow = std::process::Command::new(python)
        .args(["-c", "import PIL"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        pillow,
        "the Mobile-Agent recipe needs Pillow: run scripts/install-pyclients.sh"
    );
    let store = env.join("runs.sqlite");
    let store_arg = store.to_str().unwrap();
    let agents = root().join("scripts/agents");
    let policy = agents.join("settings.policy");
    let slice = main_slice(store_arg);
    for (id, script) in [
        ("appagent", "appagent_calls.py"),
        ("mobileagent", "mobileagent_calls.py"),
    ] {
        let cmd = format!(
            "{python} {} {}",
            agents.join(script).display(),
            policy.display()
        );
        env.droidscore()
            .args(["run", "--agent-cmd", &cmd, "--run-id", id])
            .args(slice)
            .ok();
    }
    env.droidscore()
        .args(["run", "--agent", "reference", "--run-id", "ref"])
        .args(slice)
        .ok();
    let reference = episodes(&store, "ref");
    for id in ["appagent", "mobileagent"] {
        let run = episodes(&store, id);
        assert_eq!(run.len(), reference.len());
        for (a, r) in run.iter().zip(&reference) {
            let name = format!("{id} {}/{}", a.task, a.variant);
            assert_eq!(
                (&a.task, a.status),
                (&r.task, r.status),
                "{name}: {}",
                a.reason
            );
            assert_eq!(a.end["program"]["exit_code"], 0, "{name}");
        }
    }
    // What each framework's adb layer sends, seen from the phone's side.
    let appagent = phone_saw(&episodes(&store, "appagent")[0]);
    assert!(appagent.contains(&"wm size".to_string()), "{appagent:?}");
    assert!(appagent
        .iter()
        .any(|c| c.starts_with("screencap -p /sdcard/task_")));
    assert!(appagent
        .iter()
        .any(|c| c.starts_with("am start com.android.settings")));
    // Both take a screenshot before acting: their steps keep it.
    let open = Store::open_existing(&store).unwrap();
    for id in ["appagent", "mobileagent"] {
        let e = &episodes(&store, id)[0];
        let steps = open.steps(id, &e.task, &e.variant, e.repeat).unwrap();
        let shots = steps.iter().filter(|st| st.screenshot.is_some()).count();
        assert!(shots > 0, "{id}: no step kept its screenshot");
    }
    let mobile = phone_saw(&episodes(&store, "mobileagent")[0]);
    for call in [
        "rm /sdcard/screenshot.png",
        "screencap -p /sdcard/screenshot.png",
        "am start -a android.intent.action.MAIN -c android.intent.category.HOME",
    ] {
        assert!(mobile.contains(&call.to_string()), "{call}: {mobile:?}");
    }
}
