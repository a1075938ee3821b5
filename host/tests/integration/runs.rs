//! `droidscore run` against a model behind an OpenAI-compatible endpoint (the
//! scripted server on loopback): known episodes scored exactly, and the same
//! episodes whether run one at a time, four at a time, or as two shards merged.

use std::path::Path;
use std::process::Output;
use std::sync::Arc;

use droidscore::exit;

use serde_json::Value;

use super::scripted_server::{runtime, Reply, ScriptedServer};
use super::support::{root, text, TestEnv};

/// The text of the last user message (a string, or the text part of an array).
pub(super) fn user_text(body: &Value) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let Some(last) = messages.iter().rev().find(|m| m["role"] == "user") else {
        return String::new();
    };
    match &last["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}

/// The index of the first element line (after `Screen:`) containing `needle`.
pub(super) fn index_of(text: &str, needle: &str) -> Option<u64> {
    let screen = text.split_once("Screen:\n").map_or(text, |(_, s)| s);
    screen
        .lines()
        .find(|l| l.contains(needle))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

pub(super) fn click(i: u64) -> Reply {
    Reply::Content(format!(
        "Reason: the next step.\nAction: {{\"action_type\": \"click\", \"index\": {i}}}"
    ))
}

pub(super) const DONE: &str =
    "Action: {\"action_type\": \"status\", \"goal_status\": \"complete\"}";

/// Turns Wi-Fi on from the element list: open Settings, then Network &
/// internet, Internet and the Wi-Fi row by index; done once the switch is on.
pub(super) fn solve_wifi(text: &str) -> Reply {
    if text.contains("Switch \"Wi-Fi\" on") {
        return Reply::Content(DONE.into());
    }
    for needle in [
        "Switch \"Wi-Fi\" off",
        "\"Internet —",
        "\"Network & internet",
    ] {
        if let Some(i) = index_of(text, needle) {
            return click(i);
        }
    }
    Reply::Content("Action: {\"action_type\": \"open_app\", \"app_name\": \"Settings\"}".into())
}

/// A deterministic "model": solves Wi-Fi from the element list, gives up on
/// Bluetooth at once, and answers airplane mode with broken JSON first.
fn policy(body: &Value) -> Reply {
    let text = user_text(body);
    let goal = text.lines().next().unwrap_or("");
    if goal.contains("Wi-Fi") {
        return solve_wifi(&text);
    }
    if goal.to_lowercase().contains("airplane") && !text.contains("Last answer invalid") {
        return Reply::Content("I would click {\"action_type\": \"click\", \"index\": }".into());
    }
    Reply::Content(DONE.into())
}

fn suite(dir: &Path) -> std::path::PathBuf {
    suite_of(dir, &["wifi_on", "bluetooth_on", "airplane_on"])
}

/// `dir/suite`, holding these tasks' files.
pub(super) fn suite_of(dir: &Path, ids: &[&str]) -> std::path::PathBuf {
    let suite = dir.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    for id in ids {
        std::fs::copy(
            root().join(format!("tasks/{id}.toml")),
            suite.join(format!("{id}.toml")),
        )
        .unwrap();
    }
    suite
}

fn run(
    env: &TestEnv,
    server: &ScriptedServer,
    suite: &Path,
    store: &Path,
    extra: &[&str],
) -> Output {
    env.droidscore()
        // Set but unused: `--base-url` wins over a local server.
        .env("DROIDSCORE_DEVICE_BIN", "/nonexistent/droidscore-device")
        .args([
            "run",
            "--base-url",
            &server.base_url,
            "--model",
            "scripted",
            "--no-image",
        ])
        .args([
            "--variants",
            "base",
            "--repeat",
            "2",
            "--suite",
            suite.to_str().unwrap(),
        ])
        .args(["--store", store.to_str().unwrap()])
        .args(extra)
        .ok()
}

/// The last line a command printed on stdout (a run's success line).
pub(super) fn last_line(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or("")
        .to_string()
}

/// Each episode's key and verdict (task, repeat, status, steps, invalid
/// steps, reason), in key order.
pub(super) type Row = (String, u32, String, u32, u32, String);

pub(super) fn rows(store: &Path, run: &str) -> Vec<Row> {
    let store = droidscore::store::Store::open_existing(store).unwrap();
    let mut rows: Vec<Row> = store
        .episodes(run)
        .unwrap()
        .into_iter()
        .map(|e| {
            (
                e.task,
                e.repeat,
                format!("{:?}", e.status),
                e.steps,
                e.invalid_steps,
                e.reason,
            )
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn a_model_run_is_scored_exactly_and_the_same_through_jobs_and_shards() {
    let rt = runtime();
    let server = ScriptedServer::start_policy(&rt, Arc::new(policy));
    let dir = TestEnv::new("runs");
    let suite = suite(dir.path());

    let one = dir.join("one.sqlite");
    let out = run(&dir, &server, &suite, &one, &["--run-id", "one"]);
    let last = last_line(&out);
    assert!(
        last.starts_with("agent llm: 2/6 episodes succeeded (33.3%)"),
        "{last}"
    );
    let expected = rows(&one, "one");
    let summary: Vec<(&str, &str, u32, u32)> = expected
        .iter()
        .map(|r| (r.0.as_str(), r.2.as_str(), r.3, r.4))
        .collect();
    assert_eq!(
        summary,
        [
            // Broken JSON once (an invalid step that uses budget), then a false "done".
            ("airplane_on", "Failure", 0, 1),
            ("airplane_on", "Failure", 0, 1),
            ("bluetooth_on", "Failure", 0, 0),
            ("bluetooth_on", "Failure", 0, 0),
            // open Settings, Network & internet, Internet, the Wi-Fi row; then done.
            ("wifi_on", "Success", 4, 0),
            ("wifi_on", "Success", 4, 0),
        ]
    );

    // The store keeps what the model said on each step, and why it was invalid.
    let store = droidscore::store::Store::open_existing(&one).unwrap();
    let steps = store.steps("one", "airplane_on", "base", 0).unwrap();
    assert_eq!(steps.len(), 2, "the invalid answer and the false done");
    assert!(
        steps[0].raw_output.starts_with("I would click"),
        "{}",
        steps[0].raw_output
    );
    assert!(steps[0].invalid_reason.is_some());
    assert_eq!(steps[0].prompt_tokens, Some(100), "usage from the response");
    assert_eq!(steps[1].action["action_type"], "status");
    let wifi = store.steps("one", "wifi_on", "base", 1).unwrap();
    assert!(
        wifi.iter().filter(|s| s.tap.is_some()).count() == 3,
        "three taps, each with its point"
    );
    drop(store);

    let four = dir.join("four.sqlite");
    run(
        &dir,
        &server,
        &suite,
        &four,
        &["--run-id", "four", "--jobs", "4"],
    );
    assert_eq!(
        rows(&four, "four"),
        expected,
        "--jobs 4 scores the same episodes"
    );

    let (a, b) = (dir.join("a.sqlite"), dir.join("b.sqlite"));
    run(
        &dir,
        &server,
        &suite,
        &a,
        &["--run-id", "sharded", "--shard", "1/2"],
    );
    run(
        &dir,
        &server,
        &suite,
        &b,
        &["--run-id", "sharded", "--shard", "2/2"],
    );
    let (ra, rb) = (rows(&a, "sharded"), rows(&b, "sharded"));
    assert!(
        !ra.is_empty() && !rb.is_empty() && ra.len() + rb.len() == 6,
        "{} + {}",
        ra.len(),
        rb.len()
    );
    dir.droidscore()
        .args(["report", "--store", a.to_str().unwrap()])
        .args(["--merge", b.to_str().unwrap(), "sharded"])
        .ok();
    assert_eq!(
        rows(&a, "sharded"),
        expected,
        "two shards merged score the same episodes"
    );
}

#[test]
fn a_refusing_endpoint_stops_the_run_and_a_failing_one_is_infra_not_failure() {
    let rt = runtime();
    let dir = TestEnv::new("infra");
    let suite = suite(dir.path());
    let run = |server: &ScriptedServer, store: &str, code: i32| {
        dir.droidscore()
            .args([
                "run",
                "--base-url",
                &server.base_url,
                "--model",
                "m",
                "--no-image",
                "--tasks",
                "wifi_on",
            ])
            .args([
                "--variants",
                "base",
                "--suite",
                suite.to_str().unwrap(),
                "--run-id",
                "r",
            ])
            .args(["--store", dir.join(store).to_str().unwrap()])
            .code(code)
    };
    // 401: a misconfigured run stops with the endpoint's own message.
    let refusing = ScriptedServer::start_policy(
        &rt,
        Arc::new(|_: &Value| Reply::Status(401, r#"{"error":{"message":"bad key"}}"#.into())),
    );
    let o = run(&refusing, "refused.sqlite", exit::ENDPOINT);
    let err = text(&o.stderr);
    assert!(
        err.contains("HTTP 401: bad key") && err.contains("--resume r"),
        "{err}"
    );
    assert_eq!(
        refusing.received().len(),
        1,
        "a 4xx is neither retried nor tried on other episodes"
    );
    // 500 every time: retried, then the episode is retried once, then recorded as infra.
    let failing =
        ScriptedServer::start_policy(&rt, Arc::new(|_: &Value| Reply::Status(500, "{}".into())));
    // Its only episode was not scored: no result, not a 0 % success rate.
    let o = run(&failing, "failing.sqlite", exit::NOTHING_SCORED);
    let out = text(&o.stdout);
    let err = text(&o.stderr);
    assert!(
        out.contains("not scored: 0 skipped, 1 infrastructure failures"),
        "{out}"
    );
    assert_eq!(
        out.lines().last(),
        Some("agent llm: no episode could be scored, so no success rate"),
        "{out}"
    );
    assert!(
        err.contains(
            "run r: no episode could be scored: 1 infrastructure failures, 0 skipped, of 1"
        ),
        "{err}"
    );
    let store = droidscore::store::Store::open_existing(dir.join("failing.sqlite")).unwrap();
    let episodes = store.episodes("r").unwrap();
    assert_eq!(episodes.len(), 1);
    assert_eq!(episodes[0].status, droidscore::store::EpisodeStatus::Infra);
    assert_eq!(episodes[0].attempts, 2);
    assert_eq!(
        failing.received().len(),
        2 * 4,
        "2 attempts × (1 try + 3 retries)"
    );
}

/// Issue 17: a run whose every episode died of infrastructure (here the
/// endpoint refuses connections: nothing listens on its port) exited 0 and
/// printed `0/0 episodes succeeded (0.0%)`, which a script reads as a score.
#[test]
fn a_run_against_an_endpoint_refusing_connections_scores_nothing_and_says_so() {
    let dir = TestEnv::new("refused");
    // A port nothing listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let o = dir
        .droidscore()
        .args(["run", "--base-url", &format!("http://127.0.0.1:{port}/v1")])
        .args(["--model", "m", "--no-image", "--tasks", "wifi_on"])
        .args(["--variants", "base", "--run-id", "refused"])
        .args(["--store", dir.join("runs.sqlite").to_str().unwrap()])
        .code(exit::NOTHING_SCORED);
    let out = text(&o.stdout);
    let err = text(&o.stderr);
    assert!(!out.contains("episodes succeeded"), "{out}");
    assert!(
        out.contains("not scored: 0 skipped, 1 infrastructure failures"),
        "{out}"
    );
    assert!(
        err.contains(
            "run refused: no episode could be scored: 1 infrastructure failures, 0 skipped, of 1"
        ),
        "{err}"
    );
    let store = droidscore::store::Store::open_existing(dir.join("runs.sqlite")).unwrap();
    let episodes = store.episodes("refused").unwrap();
    assert_eq!(episodes.len(), 1);
    assert_eq!(episodes[0].status, droidscore::store::EpisodeStatus::Infra);
}

/// A selection that holds no episode (here the second of two shards of a
/// one-episode suite) is no result either: the same exit code, and why.
#[test]
fn a_run_that_selects_no_episode_scores_nothing_and_says_so() {
    let dir = TestEnv::new("empty-selection");
    let o = dir
        .droidscore()
        .args(["run", "--agent", "noop", "--tasks", "wifi_on"])
        .args(["--variants", "base", "--shard", "2/2", "--run-id", "empty"])
        .args(["--store", dir.join("runs.sqlite").to_str().unwrap()])
        .code(exit::NOTHING_SCORED);
    let err = text(&o.stderr);
    assert!(
        err.contains("run empty: no episode could be scored: the run holds none"),
        "{err}"
    );
    assert!(!text(&o.stdout).contains("episodes succeeded"));
}

/// `--conditions` multiplies the episodes: the dark-theme tasks run in
/// `base` and `font1.3` and are skipped, with the reason, in `dark` (their
/// initial state sets what the condition sets); the report gives success
/// per condition; `--resume` with other conditions is refused.
#[test]
fn conditions_multiply_a_run_skip_conflicts_and_report_per_condition() {
    let dir = TestEnv::new("conditions-run");
    let store = dir.join("runs.sqlite");
    let store = store.to_str().unwrap();
    let o = dir
        .droidscore()
        .args(["run", "--agent", "reference", "--tasks", "dark_theme_o[nf]"])
        .args(["--variants", "base", "--conditions", "base,dark,font1.3"])
        .args(["--run-id", "cond", "--store", store])
        .ok();
    let out = text(&o.stdout);
    assert!(out.matches("skipped").count() >= 2, "{out}");
    assert!(out.contains("conflicts with the task"), "{out}");
    let o = dir
        .droidscore()
        .args(["report", "cond", "--store", store])
        .ok();
    let report = text(&o.stdout);
    assert!(
        report.contains("per device condition: 95 % Wilson intervals"),
        "{report}"
    );
    assert!(report.contains("NOT A RANKING"), "{report}");
    for line in ["font1.3", "dark"] {
        assert!(
            report.lines().any(|l| l.starts_with(line)),
            "{line}: {report}"
        );
    }
    let o = dir
        .droidscore()
        .args(["run", "--agent", "reference", "--tasks", "dark_theme_o[nf]"])
        .args(["--variants", "base", "--resume", "cond", "--store", store])
        .fails();
    let err = text(&o.stderr);
    assert!(
        err.contains("conditions was \"base,dark,font1.3\""),
        "{err}"
    );
}

/// A run records its tasks' slices, so `report` gives success per category,
/// app and tag, and comparing two runs gives a row per slice with its
/// verdict: the reference against the do-nothing agent, apart on every
/// slice big enough to part them, NOT A RANKING on the ones too small to.
#[test]
fn reports_give_success_by_category_app_and_tag_and_compare_them() {
    let dir = TestEnv::new("slices-run");
    let store = dir.join("runs.sqlite");
    let store = store.to_str().unwrap();
    for (agent, id) in [("reference", "ref"), ("noop", "noop")] {
        dir.droidscore()
            .args(["run", "--agent", agent, "--tasks", "note_*"])
            .args(["--variants", "all", "--instances", "2"])
            .args(["--run-id", id, "--store", store])
            .ok();
    }
    let o = dir
        .droidscore()
        .args(["report", "ref", "--store", store, "--format", "json"])
        .ok();
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    let slice = |kind: &str, name: &str| -> (u64, u64) {
        let line = json["slices"][kind]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["name"] == name)
            .unwrap_or_else(|| panic!("no {kind} {name}: {json}"));
        (
            line["rate"]["successes"].as_u64().unwrap(),
            line["rate"]["n"].as_u64().unwrap(),
        )
    };
    // note_answer and note_answer_notebook are answer tasks; note_to_sms,
    // note_from_sms, note_from_event and note_from_todo name a second app.
    let (answer_ok, answer_n) = slice("per_category", "answer");
    let (multi_ok, multi_n) = slice("per_category", "multi-app");
    let (single_ok, single_n) = slice("per_category", "single-app");
    assert!(answer_n > 0 && multi_n > 0 && single_n > 0, "{json}");
    assert_eq!(
        (answer_ok, multi_ok, single_ok),
        (answer_n, multi_n, single_n)
    );
    let overall = json["overall"]["n"].as_u64().unwrap();
    assert_eq!(answer_n + multi_n + single_n, overall);
    // Every task here is a Joplin task; the multi-app ones also count
    // under their other app, so the app slices add up to more episodes.
    assert_eq!(slice("per_app", "Joplin").1, overall);
    assert!(slice("per_app", "Messages").1 > 0, "{json}");
    let table = text(
        &dir.droidscore()
            .args(["report", "ref", "--store", store])
            .ok()
            .stdout,
    );
    assert!(table.contains("by slice: 95 % Wilson intervals"), "{table}");
    assert!(
        table.lines().any(|l| l.starts_with("multi-app ")),
        "{table}"
    );
    let cmp = text(
        &dir.droidscore()
            .args(["report", "ref", "noop", "--store", store])
            .ok()
            .stdout,
    );
    let row = |name: &str| {
        cmp.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row {name}: {cmp}"))
            .to_string()
    };
    assert!(row("(category: single-app)").ends_with(" A"), "{cmp}");
    // The same episodes on both sides: nothing left out, nothing said. A
    // run over one task against them is ranked on that task's episodes
    // alone (3 variants, 2 instances), and a line says what was left out.
    assert!(!cmp.contains("left out:"), "{cmp}");
    dir.droidscore()
        .args(["run", "--agent", "noop", "--tasks", "note_answer"])
        .args(["--instances", "2", "--run-id", "narrow", "--store", store])
        .ok();
    let narrow = text(
        &dir.droidscore()
            .args(["report", "ref", "narrow", "--store", store])
            .ok()
            .stdout,
    );
    let overall = narrow
        .lines()
        .find(|l| l.starts_with("(overall)"))
        .unwrap_or_else(|| panic!("no overall row: {narrow}"));
    assert!(
        overall.contains("(6/6)") && overall.contains("(0/6)"),
        "{narrow}"
    );
    assert!(
        !narrow.lines().any(|l| l.starts_with("note_to_sms ")),
        "a task only A ran is not compared: {narrow}"
    );
    let left = narrow
        .lines()
        .find(|l| l.starts_with("compared on the 6 episodes both runs hold"))
        .unwrap_or_else(|| panic!("no line of what was left out: {narrow}"));
    assert!(left.ends_with(" only in A, 0 only in B"), "{left}");
    assert!(row("(app: Joplin)").ends_with(" A"), "{cmp}");
    // No slice ranks the do-nothing agent above the reference.
    assert!(
        cmp.lines()
            .filter(|l| l.starts_with("(tag: "))
            .all(|l| l.ends_with(" A") || l.ends_with("NOT A RANKING")),
        "{cmp}"
    );
}

/// A run in pieces (`--tasks` per piece) reads as one under a pattern: its
/// report equals the report of one run over the same tasks, task by task,
/// slice by slice (success and Sub-SR). Pieces of different setups, and
/// pieces that share an episode, are refused by name.
#[test]
fn a_pattern_reads_the_pieces_of_a_run_as_one() {
    let dir = TestEnv::new("pieces-run");
    let store = dir.join("runs.sqlite");
    let store = store.to_str().unwrap();
    let run = |agent: &str, tasks: &str, id: &str, max_steps: &str| {
        dir.droidscore()
            .args([
                "run",
                "--agent",
                agent,
                "--tasks",
                tasks,
                "--variants",
                "base",
            ])
            .args(["--max-steps", max_steps, "--run-id", id, "--store", store])
            .ok();
    };
    run("noop", "note_[a-f]*", "whole", "8");
    run("noop", "note_[a-c]*", "piece-1", "8");
    run("noop", "note_[d-f]*", "piece-2", "8");
    run("reference", "note_[d-f]*", "ref-1", "40");
    let json = |id: &str| -> Value {
        let o = dir
            .droidscore()
            .args(["report", id, "--store", store, "--format", "json"])
            .ok();
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let (whole, pieces) = (json("whole"), json("piece-*"));
    assert_eq!(pieces["run_id"], "piece-*");
    for key in ["overall", "per_task", "slices", "progress"] {
        assert_eq!(whole[key], pieces[key], "{key}: {pieces}");
    }
    assert!(whole["overall"]["n"].as_u64().unwrap() >= 4, "{whole}");
    // Sub-SR by slice: the do-nothing agent reaches no milestone of the
    // ones declared, the reference every one.
    let sub_sr = |json: &Value, category: &str| -> (u64, u64) {
        let line = json["slices"]["per_category"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["name"] == category)
            .unwrap_or_else(|| panic!("no category {category}: {json}"))
            .clone();
        let r = &line["sub_sr"];
        (r["successes"].as_u64().unwrap(), r["n"].as_u64().unwrap())
    };
    let (reached, declared) = sub_sr(&pieces, "single-app");
    assert!(reached == 0 && declared > 0, "{pieces}");
    let (reached, declared) = sub_sr(&json("ref-1"), "single-app");
    assert!(reached == declared && declared > 0);
    let o = dir
        .droidscore()
        .args(["report", "piece-*", "--store", store])
        .ok();
    assert!(
        text(&o.stderr).contains("piece-*: 2 runs read as one"),
        "{}",
        text(&o.stderr)
    );
    // The whole run and a piece share episodes; a reference piece has
    // another agent and budget.
    let refused = |pattern: &str| {
        text(
            &dir.droidscore()
                .args(["report", pattern, "--store", store])
                .fails()
                .stderr,
        )
    };
    let err = refused("[pw]*");
    assert!(
        err.contains("both hold episode note_") && err.contains("count it twice"),
        "{err}"
    );
    let err = refused("[pr]*-[12]");
    assert!(err.contains("differ in their config's `agent`"), "{err}");
    assert!(refused("nothing-*").contains("no run matches \"nothing-*\""));
}

/// `report --plan POINTS` sizes a run from one run, or from two runs'
/// pairs, for success and for episodes reaching a milestone; a difference
/// that is no number of points is refused naming the flag.
#[test]
fn report_plan_sizes_a_run_from_one_run_or_two_runs_pairs() {
    let dir = TestEnv::new("plan-run");
    let store = dir.join("runs.sqlite");
    let store = store.to_str().unwrap();
    for (agent, id) in [("reference", "ref"), ("random", "rand")] {
        dir.droidscore()
            .args(["run", "--agent", agent, "--tasks", "note_*"])
            .args(["--variants", "all", "--run-id", id, "--store", store])
            .ok();
    }
    let one = text(
        &dir.droidscore()
            .args(["report", "rand", "--store", store, "--plan", "10"])
            .ok()
            .stdout,
    );
    assert!(
        one.contains(
            "plan for success (units: episodes): a difference of 10.0 points at 80 % power"
        ),
        "{one}"
    );
    assert!(one.contains(" templates × "), "{one}");
    let two = text(
        &dir.droidscore()
            .args(["report", "ref", "rand", "--store", store, "--plan", "10"])
            .ok()
            .stdout,
    );
    assert!(
        two.contains("plan for episodes reaching a milestone, paired (units: episodes)"),
        "{two}"
    );
    let err = text(
        &dir.droidscore()
            .args(["report", "ref", "--store", store, "--plan", "0"])
            .fails()
            .stderr,
    );
    assert!(err.contains("--plan 0: a difference in points"), "{err}");
}
