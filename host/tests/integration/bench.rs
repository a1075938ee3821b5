//! `droidscore bench run` as a user runs it, against small fake probes
//! (`sh` scripts) whose figures the test chooses, so every judgement the
//! harness makes is pinned: rotation, best, NOT A RANKING, the busy refusal
//! and contended labels, the check's exit codes, provenance, failing arms.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use droidscore::exit;

use serde_json::{json, Value};

use super::support::{text, TestEnv};

/// An arm running `sh probe.sh` with `env`.
fn arm(tag: &str, env: Value) -> Value {
    json!({"tag": tag, "command": ["sh", "probe.sh"], "env": env})
}

/// Writes `probe.sh` and `arms.json` into `dir`.
fn setup(dir: &Path, probe: &str, arms: Vec<Value>) {
    std::fs::write(dir.join("probe.sh"), probe).unwrap();
    std::fs::write(
        dir.join("arms.json"),
        serde_json::to_string_pretty(&json!({ "arms": arms })).unwrap(),
    )
    .unwrap();
}

/// `bench run` on `arms.json`, never refused for busy cores nor labelled
/// contended (a threshold of 1000 cores), so the judgement under test is
/// the only one in play.
fn run_quiet(env: &TestEnv, extra: &[&str]) -> (Output, Value) {
    let mut args = vec![
        "bench",
        "run",
        "--spec",
        "arms.json",
        "--out",
        "summary.json",
        // The tests run side by side: neither refuse a busy core nor call a
        // run contended unless 1000 cores' worth of other work ran.
        "--busy-threshold",
        "1000",
        "--busy-window-ms",
        "100",
    ];
    args.extend_from_slice(extra);
    let o = env.droidscore().in_temp_dir().args(&args).output();
    let summary = std::fs::read(env.join("summary.json"))
        .map(|b| serde_json::from_slice(&b).unwrap())
        .unwrap_or(Value::Null);
    (o, summary)
}

fn key<'a>(summary: &'a Value, arm: &str, key: &str) -> &'a Value {
    let arms = summary["arms"].as_array().unwrap();
    &arms.iter().find(|a| a["tag"] == arm).unwrap()["keys"][key]
}

/// Prints `{"gen_ts": V, "rss_kib": R}` from the environment; with `C` set,
/// V and R are taken in turn from the space-separated `VS`/`RS` lists, one
/// per call (a counter file `C` remembers where it is).
const PROBE: &str = r#"
if [ -n "$C" ]; then
  n=$(cat "$C" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$C"
  V=$(echo $VS | cut -d' ' -f$n); R=$(echo ${RS:-0 0 0 0 0} | cut -d' ' -f$n)
fi
[ -n "$LOG" ] && echo "$TAG" >> "$LOG"
echo "diagnostic line from $TAG"
echo "{\"gen_ts\": $V, \"rss_kib\": ${R:-0}}"
"#;

#[test]
fn arm_order_rotates_every_pass() {
    let dir = TestEnv::new("bench-rotate");
    let log = dir.path().join("order.log");
    let log = log.to_str().unwrap();
    let arms = ["a", "b", "c"]
        .iter()
        .map(|t| arm(t, json!({"TAG": t, "LOG": log, "V": "1"})))
        .collect();
    setup(dir.path(), PROBE, arms);
    let (o, summary) = run_quiet(&dir, &["--passes", "3", "--metric", "gen_ts"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let order: Vec<String> = std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(order, ["a", "b", "c", "b", "c", "a", "c", "a", "b"]);
    let recorded: Vec<Value> = summary["passes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["order"].clone())
        .collect();
    assert_eq!(
        recorded,
        [
            json!(["a", "b", "c"]),
            json!(["b", "c", "a"]),
            json!(["c", "a", "b"])
        ]
    );
    // The diagnostic line is kept beside the figures.
    assert_eq!(
        summary["passes"][0]["runs"][0]["stdout_lines"],
        json!(["diagnostic line from a"])
    );
}

#[test]
fn best_is_the_minimum_for_memory_and_the_maximum_for_throughput() {
    let dir = TestEnv::new("bench-best");
    let c = dir.path().join("count");
    let arms = vec![arm(
        "a",
        json!({"TAG": "a", "C": c.to_str().unwrap(), "VS": "20 30 10", "RS": "300 100 200"}),
    )];
    setup(dir.path(), PROBE, arms);
    let (o, summary) = run_quiet(
        &dir,
        &["--passes", "3", "--metric", "gen_ts", "--keys", "rss_kib"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let ts = key(&summary, "a", "gen_ts");
    assert_eq!(ts["best"], 30.0);
    assert_eq!(ts["direction"], "higher");
    let values: Vec<f64> = ts["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["value"].as_f64().unwrap())
        .collect();
    assert_eq!(values, [20.0, 30.0, 10.0]);
    assert_eq!(
        (
            ts["min"].as_f64(),
            ts["median"].as_f64(),
            ts["max"].as_f64()
        ),
        (Some(10.0), Some(20.0), Some(30.0))
    );
    assert_eq!(ts["spread"], 20.0);
    let rss = key(&summary, "a", "rss_kib");
    assert_eq!(rss["best"], 100.0);
    assert_eq!(rss["direction"], "lower");
}

fn two_arms(dir: &Path, a: &str, b: &str) {
    let (ca, cb) = (dir.join("ca"), dir.join("cb"));
    setup(
        dir,
        PROBE,
        vec![
            arm(
                "a",
                json!({"TAG": "a", "C": ca.to_str().unwrap(), "VS": a, "THREADS": "1"}),
            ),
            arm(
                "b",
                json!({"TAG": "b", "C": cb.to_str().unwrap(), "VS": b, "THREADS": "2"}),
            ),
        ],
    );
}

#[test]
fn a_difference_inside_the_noise_prints_not_a_ranking() {
    let dir = TestEnv::new("bench-noise");
    // Medians 12 and 13, spreads 4: the gap is inside either arm's own spread.
    two_arms(dir.path(), "10 14 12", "15 11 13");
    let (o, summary) = run_quiet(&dir, &["--passes", "3", "--metric", "gen_ts"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("NOT A RANKING"), "{out}");
    assert_eq!(summary["not_a_ranking"], true);
    assert!(
        summary["ranking_reason"]
            .as_str()
            .unwrap()
            .contains("less than the larger of their spreads"),
        "{}",
        summary["ranking_reason"]
    );
}

#[test]
fn a_clear_difference_is_ranked_with_the_ratio_of_medians() {
    let dir = TestEnv::new("bench-clear");
    two_arms(dir.path(), "10 11 12", "22 20 24");
    let (o, summary) = run_quiet(&dir, &["--passes", "3", "--metric", "gen_ts"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(!out.contains("NOT A RANKING"), "{out}");
    assert!(out.contains("2.00× worse than b"), "{out}");
    assert_eq!(summary["not_a_ranking"], false);
    assert_eq!(summary["ranking"]["order"][0]["tag"], "b");
    assert_eq!(summary["ranking"]["order"][1]["ratio_to_best"], 2.0);
}

#[test]
fn two_passes_are_not_a_ranking_however_far_apart() {
    let dir = TestEnv::new("bench-two-passes");
    two_arms(dir.path(), "10 10", "100 100");
    let (o, summary) = run_quiet(&dir, &["--passes", "2", "--metric", "gen_ts"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("NOT A RANKING"));
    assert_eq!(summary["not_a_ranking"], true);
}

/// A process spinning on one core until dropped.
struct Spinner(Child);

impl Spinner {
    fn on(core: &str) -> Spinner {
        Spinner(
            Command::new("taskset")
                .args(["-c", core, "sh", "-c", "while :; do :; done"])
                .spawn()
                .expect("these tests need taskset (Debian: util-linux)"),
        )
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The first CPU this process may run on (`Cpus_allowed_list` in
/// `/proc/self/status`): cpu0 may be outside a container's or CI job's set.
fn first_allowed_cpu() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .expect("Cpus_allowed_list in /proc/self/status");
    droidscore_harness::cpu::parse_core_list(list.trim()).unwrap()[0]
}

#[test]
fn a_busy_core_refuses_the_run_and_under_force_every_pass_is_contended() {
    let dir = TestEnv::new("bench-busy");
    setup(
        dir.path(),
        PROBE,
        vec![arm("a", json!({"TAG": "a", "V": "1"}))],
    );
    let cpu = first_allowed_cpu();
    let core = cpu.to_string();
    let _spin = Spinner::on(&core);
    let common = [
        "bench",
        "run",
        "--spec",
        "arms.json",
        "--metric",
        "gen_ts",
        "--passes",
        "2",
        "--cores",
        &core,
        "--busy-threshold",
        "0.5",
        "--out",
        "summary.json",
    ];
    let o = dir.droidscore().in_temp_dir().args(common).output();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(exit::CORES_BUSY), "{err}");
    assert!(
        err.contains(&format!("cpu{cpu} is")) && err.contains("% busy"),
        "{err}"
    );
    assert!(!dir.path().join("summary.json").exists(), "nothing ran");

    let mut forced = common.to_vec();
    forced.push("--force");
    let o = dir.droidscore().in_temp_dir().args(&forced).output();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let summary: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["forced_past_busy"], true);
    assert_eq!(summary["busy_check"]["force_flag"], true);
    assert_eq!(
        summary["provenance"]["pinning"],
        format!("taskset -c {cpu}")
    );
    for pass in summary["passes"].as_array().unwrap() {
        assert_eq!(pass["forced_past_busy"], true);
        assert_eq!(pass["contended"], true, "{pass}");
        let c = &pass["runs"][0]["contention"];
        assert!(
            c["core_busy"][format!("cpu{cpu}")].as_f64().unwrap() > 0.5,
            "{c}"
        );
        assert!(c["excess_cores"].as_f64().unwrap() > 0.5, "{c}");
        assert_eq!(c["threshold"], 0.5);
        assert!(c["own_cores"].as_f64().is_some(), "{c}");
    }
    assert_eq!(summary["contended_passes"], json!([1, 2]));
    let out = text(&o.stdout);
    assert!(out.contains("contended passes: 1, 2"), "{out}");
}

fn check(env: &TestEnv, expectations: Value) -> (Output, Value) {
    env.write("expect.json", serde_json::to_string(&expectations).unwrap());
    let _ = std::fs::remove_file(env.join("ca"));
    let _ = std::fs::remove_file(env.join("cb"));
    let _ = std::fs::remove_file(env.join("summary.json"));
    run_quiet(
        env,
        &[
            "--passes",
            "3",
            "--metric",
            "gen_ts",
            "--check",
            "expect.json",
        ],
    )
}

#[test]
fn check_exits_regressed_when_an_arm_is_slower_than_its_bound() {
    let dir = TestEnv::new("bench-check-regressed");
    let bound = json!({"bounds": [{"arm": "a", "key": "gen_ts", "min": 30}]});
    two_arms(dir.path(), "40 41 42", "40 40 40");
    let (o, s) = check(&dir, bound.clone());
    assert_eq!(o.status.code(), Some(exit::SUCCESS), "{}", text(&o.stderr));
    assert_eq!(s["check"]["outcome"], "pass");

    // The same arm made slower: every sample below the bound.
    two_arms(dir.path(), "20 21 22", "40 40 40");
    let (o, s) = check(&dir, bound);
    assert_eq!(
        o.status.code(),
        Some(exit::REGRESSED),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(s["check"]["outcome"], "regressed");
    assert_eq!(s["check"]["bounds"][0]["verdict"], "regressed");

    // Relative to the other arm: a/b is 0.5–0.55, below 0.9.
    let (o, _) = check(
        &dir,
        json!({"bounds": [{"arm": "a", "key": "gen_ts", "relative_to": "b", "min_ratio": 0.9}]}),
    );
    assert_eq!(
        o.status.code(),
        Some(exit::REGRESSED),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn check_is_inconclusive_when_the_bound_lies_inside_the_spread() {
    let dir = TestEnv::new("bench-check-inconclusive");
    two_arms(dir.path(), "20 40 30", "40 40 40");
    let (o, s) = check(
        &dir,
        json!({"bounds": [{"arm": "a", "key": "gen_ts", "min": 30}]}),
    );
    assert_eq!(
        o.status.code(),
        Some(exit::INCONCLUSIVE),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(s["check"]["outcome"], "inconclusive");
    assert_eq!(s["check"]["bounds"][0]["observed"], json!([20.0, 40.0]));
}

#[test]
fn check_reports_a_provenance_mismatch_when_the_cpu_differs() {
    let dir = TestEnv::new("bench-check-provenance");
    two_arms(dir.path(), "40 40 40", "40 40 40");
    let (o, s) = check(
        &dir,
        json!({"provenance": {"cpu_model": "Not This CPU 9000"},
               "bounds": [{"arm": "a", "key": "gen_ts", "min": 30}]}),
    );
    assert_eq!(
        o.status.code(),
        Some(exit::PROVENANCE_MISMATCH),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(s["check"]["outcome"], "provenance_mismatch");
    let m = s["check"]["provenance_mismatches"][0].as_str().unwrap();
    assert!(m.contains("Not This CPU 9000"), "{m}");
    // The same expectations with this machine's own model pass.
    let model = s["provenance"]["cpu_model"].as_str().unwrap().to_string();
    let count = s["provenance"]["cpu_count"].as_u64().unwrap();
    let (o, _) = check(
        &dir,
        json!({"provenance": {"cpu_model": model, "cpu_count": count},
               "bounds": [{"arm": "a", "key": "gen_ts", "min": 30}]}),
    );
    assert_eq!(o.status.code(), Some(exit::SUCCESS), "{}", text(&o.stderr));
}

#[test]
fn a_provenance_mismatch_outranks_a_regressed_bound() {
    // Both at once: every sample below the bound, on another CPU. The
    // figures cannot be held to expectations written elsewhere, so the exit
    // code is the mismatch's (9), not the regression's (7).
    let dir = TestEnv::new("bench-check-provenance-over-regressed");
    two_arms(dir.path(), "20 21 22", "40 40 40");
    let (o, s) = check(
        &dir,
        json!({"provenance": {"cpu_count": 100000},
               "bounds": [{"arm": "a", "key": "gen_ts", "min": 30}]}),
    );
    assert_eq!(
        o.status.code(),
        Some(exit::PROVENANCE_MISMATCH),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(s["check"]["outcome"], "provenance_mismatch");
    assert_eq!(s["check"]["bounds"][0]["verdict"], "regressed");
}

#[test]
fn bad_expectations_are_refused_before_any_pass_runs() {
    let dir = TestEnv::new("bench-check-validate");
    two_arms(dir.path(), "40 40 40", "40 40 40");
    for (bound, field) in [
        (
            json!({"arm": "nope", "key": "gen_ts", "min": 1}),
            "bounds[0].arm",
        ),
        (
            json!({"arm": "a", "key": "pp_ts", "min": 1}),
            "bounds[0].key",
        ),
        (
            json!({"arm": "a", "key": "gen_ts", "min": 9, "max": 1}),
            "bounds[0].min",
        ),
    ] {
        let (o, s) = check(&dir, json!({ "bounds": [bound] }));
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(exit::BAD_INPUT), "{err}");
        assert!(err.contains("expect.json") && err.contains(field), "{err}");
        // No arm ran: neither its counter file nor a summary exists.
        assert!(!dir.path().join("ca").exists(), "{err}");
        assert_eq!(s, Value::Null);
    }
}

#[test]
fn a_check_that_cannot_be_made_still_writes_the_summary_and_markdown() {
    let dir = TestEnv::new("bench-check-error-writes");
    let _ = std::fs::remove_file(dir.path().join("s.md"));
    two_arms(dir.path(), "0 0 0", "40 40 40");
    std::fs::write(
        dir.path().join("expect.json"),
        r#"{"bounds": [{"arm": "a", "key": "gen_ts", "relative_to": "b", "min_ratio": 0.5}]}"#,
    )
    .unwrap();
    let (o, s) = run_quiet(
        &dir,
        &[
            "--passes",
            "3",
            "--metric",
            "gen_ts",
            "--check",
            "expect.json",
            "--md",
            "s.md",
        ],
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(exit::BAD_INPUT), "{err}");
    assert!(err.contains("positive values"), "{err}");
    assert!(
        s["check_error"].as_str().unwrap().contains("positive"),
        "{s}"
    );
    assert_eq!(s["passes_completed"], 3);
    assert!(dir.path().join("s.md").exists());
}

#[test]
fn provenance_is_stamped_into_the_summary() {
    let dir = TestEnv::new("bench-provenance");
    two_arms(dir.path(), "1 1 1", "1 1 1");
    let (o, s) = run_quiet(
        &dir,
        &["--passes", "1", "--metric", "gen_ts", "--md", "s.md"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let p = &s["provenance"];
    for field in [
        "git_rev",
        "git_dirty",
        "hostname",
        "kernel",
        "cpu_model",
        "cpu_count",
        "governors",
        "spec_sha256",
        "arms",
        "started_at",
        "ended_at",
        "loadavg_start",
        "loadavg_end",
        "droidscore_version",
        "command_line",
        "cores",
        "pinning",
    ] {
        assert!(p.get(field).is_some(), "no {field} in {p}");
        // Outside a repository there is no dirty state to report.
        if field != "git_dirty" {
            assert!(!p[field].is_null(), "{field} is null in {p}");
        }
    }
    for field in ["hostname", "kernel", "cpu_model", "cores", "pinning"] {
        assert!(
            !p[field].as_str().unwrap().trim().is_empty(),
            "{field} empty in {p}"
        );
    }
    let sha = p["spec_sha256"].as_str().unwrap();
    assert!(
        sha.len() == 64 && sha.chars().all(|c| c.is_ascii_hexdigit()),
        "{sha}"
    );
    // Both stamps are the same RFC 3339 UTC format, so they order as text.
    let (start, end) = (
        p["started_at"].as_str().unwrap(),
        p["ended_at"].as_str().unwrap(),
    );
    assert!(start <= end, "started {start}, ended {end}");
    // Outside a repository (a temp dir) the revision is "unknown".
    assert_eq!(p["git_rev"], "unknown");
    let spec = std::fs::read(dir.path().join("arms.json")).unwrap();
    assert_eq!(
        p["spec_sha256"],
        droidscore_harness::provenance::sha256_hex(&spec)
    );
    assert!(p["cpu_count"].as_u64().unwrap() >= 1);
    assert!(p["kernel"].as_str().unwrap().contains('.'));
    assert_eq!(p["arms"][1]["env"]["THREADS"], "2");
    assert_eq!(p["command_line"][1], "bench");
    assert!(p["started_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(p["loadavg_start"].as_array().unwrap().len(), 3);
    let md = std::fs::read_to_string(dir.path().join("s.md")).unwrap();
    assert!(md.contains(p["spec_sha256"].as_str().unwrap()), "{md}");
    // Two arms that differ with no cache directory of their own are warned about.
    let warnings = s["warnings"].to_string();
    assert!(
        warnings.contains("DROIDSCORE_CACHE (unset in both)"),
        "{warnings}"
    );
}

#[test]
fn a_failing_arm_names_arm_pass_and_line_and_earlier_passes_are_kept() {
    let dir = TestEnv::new("bench-fail");
    let c = dir.path().join("count");
    let probe = r#"
n=$(cat "$C" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$C"
if [ $n -eq "${FAIL_AT:-0}" ]; then echo "half a line"; echo "model file missing" >&2; exit 3; fi
echo '{"gen_ts": 5}'
"#;
    let cb = dir.path().join("count-b");
    setup(
        dir.path(),
        probe,
        vec![
            arm("a", json!({"C": c.to_str().unwrap(), "FAIL_AT": "2"})),
            arm("b", json!({"C": cb.to_str().unwrap()})),
        ],
    );
    let (o, s) = run_quiet(&dir, &["--passes", "3", "--metric", "gen_ts"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(exit::ARM_FAILED), "{err}");
    assert!(err.contains("arm \"a\", pass 2"), "{err}");
    assert!(err.contains("half a line"), "{err}");
    assert!(err.contains("model file missing"), "{err}");
    assert_eq!(s["passes"][0]["runs"][0]["figures"]["gen_ts"], 5);
    assert_eq!(s["error"]["pass"], 2);
    assert_eq!(s["error"]["exit_code"], 3);
    assert_eq!(s["passes_completed"], 1);
    // Pass 2 ran b (it starts the rotated order) before a failed: b's run is
    // recorded but not counted, so both arms have one sample.
    assert_eq!(s["incomplete_passes"], json!([2]));
    assert_eq!(s["passes"][1]["complete"], false);
    assert_eq!(s["passes"][1]["runs"][0]["arm"], "b");
    for a in 0..2 {
        let n = s["arms"][a]["keys"]["gen_ts"]["samples"]
            .as_array()
            .unwrap()
            .len();
        assert_eq!(n, 1, "{}", s["arms"][a]);
    }

    // A last line that is not a JSON object is named the same way.
    setup(
        dir.path(),
        "echo '{\"gen_ts\": 5}'; echo done\n",
        vec![arm("b", json!({}))],
    );
    let (o, _) = run_quiet(&dir, &["--passes", "1", "--metric", "gen_ts"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(exit::ARM_FAILED), "{err}");
    assert!(
        err.contains("arm \"b\", pass 1") && err.contains("\"done\""),
        "{err}"
    );
}

#[test]
fn a_key_with_no_declared_direction_is_refused_by_name() {
    let dir = TestEnv::new("bench-direction");
    setup(
        dir.path(),
        "echo '{\"score\": 1}'\n",
        vec![arm("a", json!({}))],
    );
    let (o, _) = run_quiet(&dir, &["--metric", "score"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(exit::BAD_INPUT), "{err}");
    assert!(
        err.contains("\"score\"") && err.contains("directions"),
        "{err}"
    );
}

#[test]
fn llama_bench_json_arms_are_read_as_pp_and_tg_keys() {
    let dir = TestEnv::new("bench-llama");
    // What `droidscore-device speed -o json` prints: one pretty array.
    let speed = json!([
        {"n_prompt": 512, "n_gen": 0, "avg_ts": 39.6, "samples_ts": [39.0, 40.2],
         "memory_at_ready": {"rss_kib": 395000, "rss_anon_kib": 359000,
                             "rss_file_kib": 36000, "peak_rss_kib": 396000},
         "load_ms": 800.0},
        {"n_prompt": 0, "n_gen": 128, "avg_ts": 28.6, "samples_ts": [28.0, 29.2]}
    ]);
    std::fs::write(
        dir.path().join("speed.json"),
        serde_json::to_string_pretty(&speed).unwrap(),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("arms.json"),
        json!({"arms": [{"tag": "speed", "command": ["cat", "speed.json"], "output": "llama-bench-json"}]})
            .to_string(),
    )
    .unwrap();
    let (o, s) = run_quiet(
        &dir,
        &[
            "--passes",
            "1",
            "--metric",
            "pp512_ts",
            "--keys",
            "tg128_ts,memory_at_ready.rss_anon_kib",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(key(&s, "speed", "pp512_ts")["median"], 39.6);
    assert_eq!(key(&s, "speed", "tg128_ts")["median"], 28.6);
    assert_eq!(
        key(&s, "speed", "memory_at_ready.rss_anon_kib")["direction"],
        "lower"
    );
}

#[test]
fn a_background_grandchild_holding_stdout_does_not_hang_the_harness() {
    // Regression: the runner read the arm's pipes to end of file, so a
    // grandchild left running in the background kept it waiting for 60 s.
    let dir = TestEnv::new("bench-grandchild");
    setup(
        dir.path(),
        "sleep 60 &\necho '{\"gen_ts\": 5}'\n",
        vec![arm("a", json!({}))],
    );
    let started = std::time::Instant::now();
    let (o, s) = run_quiet(&dir, &["--passes", "1", "--metric", "gen_ts"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    assert_eq!(s["passes"][0]["runs"][0]["figures"]["gen_ts"], 5);
}

#[test]
fn ctrl_c_kills_the_running_arms_process_group() {
    // The arm leads its own process group, out of reach of a terminal's
    // Ctrl-C: bench run's SIGINT handler must kill it before exiting.
    let dir = TestEnv::new("bench-sigint");
    let pid_file = dir.path().join("arm.pid");
    let _ = std::fs::remove_file(&pid_file);
    setup(
        dir.path(),
        "echo $$ > \"$P.tmp\"; mv \"$P.tmp\" \"$P\"; sleep 60\necho '{\"gen_ts\": 5}'\n",
        vec![arm("a", json!({"P": pid_file.to_str().unwrap()}))],
    );
    let mut child: Child = dir
        .droidscore()
        .in_temp_dir()
        .args([
            "bench",
            "run",
            "--spec",
            "arms.json",
            "--busy-threshold",
            "1000",
            "--busy-window-ms",
            "100",
            "--passes",
            "1",
            "--metric",
            "gen_ts",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !pid_file.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the arm never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let arm_pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    // SIGINT is signal 2 on every Linux architecture (`kill -l`).
    assert_eq!(status.code(), Some(exit::SIGNALLED + 2));
    // The arm's shell is gone (or a zombie awaiting its new parent's reaping).
    let gone = || match std::fs::read_to_string(format!("/proc/{arm_pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
    };
    while !gone() {
        assert!(
            std::time::Instant::now() < deadline,
            "arm {arm_pid} still running after bench run was interrupted"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
