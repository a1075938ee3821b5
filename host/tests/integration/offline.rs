//! The offline mode (`droidscore steps`) against the scripted endpoint: the
//! model answers the same wrong action at every step, and the request at
//! step k carries the reference's history, not those answers (teacher
//! forcing), in AndroidWorld's JSON format and in a vision format; the store
//! keeps every request as sent.

use droidscore::agent::{AgentFormat, LlmAgent, LlmConfig};
use droidscore::offline::matchers::all;
use droidscore::offline::{replay, End};
use droidscore::store::{RunRecord, Store};
use droidscore::task::{load_dir, Instance};
use droidscore_phone::sim::SimPhone;
use serde_json::Value;

use crate::scripted_server::{runtime, Reply, ScriptedServer};
use crate::support::TestEnv;

fn instance(task: &str) -> Instance {
    let tasks = load_dir(&crate::support::root().join("tasks")).unwrap();
    let task = tasks.into_iter().find(|t| t.id == task).unwrap();
    task.variant("base").unwrap().clone()
}

/// Every request's text, all messages together.
fn text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_request_at_each_step_carries_the_references_history_not_the_answers() {
    let rt = runtime();
    // Always "go home": wrong at every step of wifi_off but its first.
    let server = ScriptedServer::start_policy(
        &rt,
        std::sync::Arc::new(|_: &Value| {
            Reply::Content("Reason: home.\nAction: {\"action_type\": \"navigate_home\"}".into())
        }),
    );
    let inst = instance("wifi_off");
    let config = LlmConfig::new(server.base_url.clone(), "scripted");
    let mut agent = LlmAgent::new(config, rt.handle().clone()).unwrap();
    let mut phone = SimPhone::new(inst.setup(0)).unwrap();
    let ep = replay(&mut phone, &mut agent, &inst, None, &all()).unwrap();
    assert_eq!(ep.end, End::Done);
    let received = server.received();
    assert_eq!(received.len(), ep.steps.len());
    // The reference opens Settings first: every later request recalls it,
    // and none recalls the model's navigate_home.
    let history = |body: &Value| {
        let t = text(body);
        let from = t.find("Actions so far").unwrap();
        let to = from + t[from..].find("\nScreen:").unwrap();
        t[from..to].to_owned()
    };
    assert_eq!(history(&received[0].body), "Actions so far: none");
    assert_eq!(
        history(&received[1].body),
        "Actions so far:\n1. open_app Settings -> screen changed"
    );
    for (k, r) in received.iter().enumerate().skip(1) {
        let h = history(&r.body);
        assert!(h.contains("1. open_app Settings"), "step {k}: {h}");
        assert!(
            !h.contains("navigate_home"),
            "step {k} recalls the answer: {h}"
        );
        assert_eq!(h.lines().count(), k + 1, "step {k}: {h}");
    }
    // Later steps recall the reference's taps on the rows it tapped.
    let last = history(&received.last().unwrap().body);
    assert!(last.contains("2. click"), "{last}");
    // Each step's request is the one the endpoint received, and the store keeps it.
    for (step, r) in ep.steps.iter().zip(&received) {
        assert_eq!(step.request.as_ref(), Some(&r.body));
        assert_eq!(step.answer.kind, droidscore::offline::step::Kind::Home);
    }
    let dir = TestEnv::new("offline-requests");
    let store = Store::open(dir.join("s.sqlite")).unwrap();
    store
        .create_run(&RunRecord {
            id: "r".into(),
            started_at: "2026-12-03T00:00:00Z".into(),
            config: serde_json::json!({"mode": "steps", "agent": "llm"}),
            provenance: Default::default(),
        })
        .unwrap();
    store.record_offline_episode("r", &ep).unwrap();
    assert!(store.is_offline("r").unwrap());
    let key = (ep.task.clone(), ep.variant.clone(), ep.instance_seed);
    let kept: Vec<Option<Value>> = store.offline_requests("r", &key).unwrap();
    let sent: Vec<Option<Value>> = received.iter().map(|r| Some(r.body.clone())).collect();
    assert_eq!(kept, sent);
    let back = store.offline_episodes("r").unwrap();
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].steps.len(), ep.steps.len());
    assert_eq!(back[0].steps[1].verdicts, ep.steps[1].verdicts);
}

#[test]
fn a_vision_format_recalls_the_references_action_in_its_own_grammar() {
    let rt = runtime();
    let server = ScriptedServer::start_policy(
        &rt,
        std::sync::Arc::new(|_: &Value| {
            Reply::Content("Thought: home.\nAction: press_home()".into())
        }),
    );
    let inst = instance("wifi_off");
    let config = LlmConfig {
        format: AgentFormat::UiTars,
        ..LlmConfig::new(server.base_url.clone(), "scripted")
    };
    let mut agent = LlmAgent::new(config, rt.handle().clone()).unwrap();
    let mut phone = SimPhone::new(inst.setup(0)).unwrap();
    let ep = replay(&mut phone, &mut agent, &inst, None, &all()).unwrap();
    assert_eq!(ep.end, End::Done);
    let received = server.received();
    let last = &received.last().unwrap().body;
    let answers: Vec<&str> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(answers.len(), ep.steps.len() - 1);
    assert!(
        answers[0].ends_with("Action: open_app(app_name='Settings')"),
        "{}",
        answers[0]
    );
    for a in &answers[1..] {
        assert!(
            a.contains("Action: click(start_box='<|box_start|>("),
            "not the reference's tap: {a}"
        );
    }
    assert!(answers.iter().all(|a| !a.contains("press_home")));
}

#[test]
fn steps_runs_from_the_command_line_and_report_compares_two_offline_runs() {
    let env = TestEnv::new("offline-cli");
    let store = env.join("s.sqlite");
    let store = store.to_str().unwrap();
    for (agent, id) in [("reference", "ref"), ("noop", "noop")] {
        let out = env
            .droidscore()
            .args([
                "steps",
                "--agent",
                agent,
                "--tasks",
                "wifi_o*",
                "--variants",
                "base",
            ])
            .args(["--store", store, "--run-id", id])
            .ok();
        let out = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.contains(&format!("offline run {id}: agent {agent}")),
            "{out}"
        );
        assert!(out.contains("droidscore@1"), "{out}");
    }
    let one = env
        .droidscore()
        .args(["report", "ref", "--store", store])
        .ok();
    let one = String::from_utf8_lossy(&one.stdout);
    assert!(one.contains("offline run ref"), "{one}");
    assert!(one.contains("100.0% ["), "{one}");
    let two = env
        .droidscore()
        .args(["report", "ref", "noop", "--store", store])
        .ok();
    let two = String::from_utf8_lossy(&two.stdout);
    assert!(two.contains("step accuracy, A = ref, B = noop"), "{two}");
    assert!(
        two.contains("ref ahead") || two.contains("NOT A RANKING"),
        "{two}"
    );
    assert!(!two.contains("compared on"), "{two}");
    // Against a run over every variant, only the base episodes both hold
    // are compared, and the line says what was left out.
    env.droidscore()
        .args(["steps", "--agent", "noop", "--tasks", "wifi_o*"])
        .args([
            "--variants",
            "all",
            "--store",
            store,
            "--run-id",
            "noop-all",
        ])
        .ok();
    let wide = env
        .droidscore()
        .args(["report", "ref", "noop-all", "--store", store])
        .ok();
    let wide = String::from_utf8_lossy(&wide.stdout);
    let row = |t: &str| {
        t.lines()
            .find(|l| l.starts_with("droidscore@1"))
            .map(str::to_owned)
    };
    assert_eq!(
        row(&two),
        row(&wide),
        "the base episodes of both noop runs score alike:\n{two}\n{wide}"
    );
    assert!(
        wide.contains("episodes both runs hold (task, variant, seed); left out: 0 only in A, "),
        "{wide}"
    );
    let refused = env
        .droidscore()
        .args([
            "steps", "--agent", "noop", "--phone", "adb", "--store", store,
        ])
        .fails();
    let refused = String::from_utf8_lossy(&refused.stderr);
    assert!(refused.contains("not for steps: --phone adb"), "{refused}");
    // As `run` does, a cut reason is refused for an agent without a model.
    let refused = env
        .droidscore()
        .args([
            "steps", "--agent", "noop", "--reason", "off", "--store", store,
        ])
        .fails();
    let refused = String::from_utf8_lossy(&refused.stderr);
    assert!(
        refused.contains("--reason off is for --agent llm"),
        "{refused}"
    );
}

#[test]
fn an_offline_run_resumes_with_the_episodes_it_has_and_asks_only_the_rest() {
    let env = TestEnv::new("offline-resume");
    let path = env.join("s.sqlite");
    let store = path.to_str().unwrap();
    let steps = |how: &[&str]| {
        let mut cmd = env.droidscore();
        cmd.args(["steps", "--agent", "reference", "--tasks", "wifi_o*"])
            .args(["--variants", "base", "--store", store, "--json"])
            .args(how);
        cmd
    };
    let whole: Value = serde_json::from_slice(&steps(&["--run-id", "r"]).ok().stdout).unwrap();
    let tasks = |run: &Value| -> Vec<String> {
        let episodes = run["episodes"].as_array().unwrap().iter();
        episodes
            .map(|e| e["task"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(tasks(&whole).len() > 1 && tasks(&whole).contains(&"wifi_on".into()));
    // As a run killed in its second episode leaves it: the first kept.
    let conn = rusqlite::Connection::open(&path).unwrap();
    for table in ["offline_steps", "offline_episodes"] {
        let gone = conn
            .execute(
                &format!("DELETE FROM {table} WHERE run_id = 'r' AND task = 'wifi_on'"),
                [],
            )
            .unwrap();
        assert!(gone > 0, "{table}");
    }
    drop(conn);
    let resumed: Value = serde_json::from_slice(&steps(&["--resume", "r"]).ok().stdout).unwrap();
    assert_eq!(tasks(&resumed), tasks(&whole));
    for field in ["scores", "episodes", "scored", "steps"] {
        assert_eq!(
            resumed["summary"][field], whole["summary"][field],
            "{field}"
        );
    }
    // Started otherwise, or an episode run: refused by name.
    let other = steps(&["--resume", "r", "--instructions", "steps"]).fails();
    let other = String::from_utf8_lossy(&other.stderr);
    assert!(
        other.contains("the run was started differently: instructions"),
        "{other}"
    );
    let online = env
        .droidscore()
        .args([
            "run",
            "--agent",
            "reference",
            "--tasks",
            "wifi_o*",
            "--variants",
            "base",
        ])
        .args(["--store", store, "--resume", "r"])
        .fails();
    let online = String::from_utf8_lossy(&online.stderr);
    assert!(
        online.contains("it is an offline run (`droidscore steps`)"),
        "{online}"
    );
}

/// Each vision format's "go home" answer, what of it a recall would show,
/// and how the format recalls the reference's first action (open Settings).
fn home_answer(format: AgentFormat) -> (&'static str, &'static str, &'static str) {
    match format {
        AgentFormat::UiTars => (
            "Thought: home.\nAction: press_home()",
            "Thought: home.",
            "open_app(app_name='Settings')",
        ),
        AgentFormat::QwenMobileUse => (
            "<tool_call>\n{\"name\": \"mobile_use\", \"arguments\": {\"action\": \"system_button\", \"button\": \"Home\"}}\n</tool_call>",
            "\"button\": \"Home\"",
            "Step 1: {\"name\":\"mobile_use\",\"arguments\":{\"action\":\"open\",\"text\":\"Settings\"}}",
        ),
        AgentFormat::Qwen3MobileUse => (
            "Thought: home.\nAction: Go home now.\n<tool_call>\n{\"name\": \"mobile_use\", \"arguments\": {\"action\": \"system_button\", \"button\": \"Home\"}}\n</tool_call>",
            "Go home now",
            "Step 1: Open Settings.;",
        ),
        AgentFormat::AgentCpmGui => (
            "{\"thought\":\"home\",\"PRESS\":\"HOME\"}",
            "\"PRESS\":\"HOME\"",
            "{\"thought\":\"Open Settings.\"}",
        ),
        AgentFormat::AndroidWorld => unreachable!(),
    }
}

#[test]
fn every_vision_format_recalls_the_reference_not_its_answers() {
    let rt = runtime();
    let inst = instance("wifi_off");
    for format in AgentFormat::ALL.into_iter().filter(|f| f.is_vision()) {
        let (answer, shown, recalled) = home_answer(format);
        let server = ScriptedServer::start_policy(
            &rt,
            std::sync::Arc::new(move |_: &Value| Reply::Content(answer.into())),
        );
        let config = LlmConfig {
            format,
            ..LlmConfig::new(server.base_url.clone(), "scripted")
        };
        let mut agent = LlmAgent::new(config, rt.handle().clone()).unwrap();
        let mut phone = SimPhone::new(inst.setup(0)).unwrap();
        let ep = replay(&mut phone, &mut agent, &inst, None, &all()).unwrap();
        assert_eq!(ep.end, End::Done, "{format}");
        // Every answer parsed (a home key), and none was right after the first.
        assert!(
            ep.steps.iter().all(|s| s.invalid_reason.is_none()),
            "{format}"
        );
        let received = server.received();
        let last = text(&received.last().unwrap().body);
        assert!(
            last.contains(recalled),
            "{format}: no {recalled:?} in {last}"
        );
        assert!(
            !last.contains(shown),
            "{format} recalls its own answer: {last}"
        );
        // The store gives back each request as sent, screenshots and all,
        // and keeps each screenshot once.
        let env = TestEnv::new("offline-vision-store");
        let path = env.join("s.sqlite");
        let store = Store::open(&path).unwrap();
        store
            .create_run(&RunRecord {
                id: "r".into(),
                started_at: "2026-12-03T00:00:00Z".into(),
                config: serde_json::json!({"mode": "steps"}),
                provenance: Default::default(),
            })
            .unwrap();
        store.record_offline_episode("r", &ep).unwrap();
        let key = (ep.task.clone(), ep.variant.clone(), ep.instance_seed);
        let kept = store.offline_requests("r", &key).unwrap();
        let sent: Vec<Option<Value>> = received.iter().map(|r| Some(r.body.clone())).collect();
        assert!(
            kept == sent,
            "{format}: the stored requests differ from those sent"
        );
        let images: i64 = rusqlite::Connection::open(&path)
            .unwrap()
            .query_row("SELECT count(*) FROM offline_images", [], |r| r.get(0))
            .unwrap();
        assert!(
            images as usize <= ep.steps.len(),
            "{format}: {images} images for {} steps",
            ep.steps.len()
        );
    }
}

/// `steps judge` on the file of the pairs where a port parted from its
/// peer (`fixtures/steps/peer-quirks.jsonl`, the cases of
/// `offline/matchers/peers_tests.rs`): one line per item, in order, with
/// every matcher asked; each peer's current version says what the peer's
/// code says, and its first version does not on the quirks.
#[test]
fn steps_judge_gives_each_peers_verdict_on_the_quirks() {
    let env = TestEnv::new("steps-judge");
    let file = "fixtures/steps/peer-quirks.jsonl";
    let out = env
        .droidscore()
        .args(["steps", "judge", file, "--matchers"])
        .arg("aitw@1,aitw@2,androidcontrol@1,androidcontrol@2,gui-odyssey@1,gui-odyssey@2")
        .ok();
    let items: Vec<Value> = std::fs::read_to_string(crate::support::root().join(file))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), items.len());
    let mut parted = 0;
    for (item, line) in items.iter().zip(&lines) {
        assert_eq!(line["id"], item["id"]);
        assert_eq!(line["verdicts"].as_object().unwrap().len(), 6);
        let peer = item["peer"].as_str().unwrap();
        let says = |v: u8| line["verdicts"][format!("{peer}@{v}")]["correct"].clone();
        assert_eq!(says(2), item["peer_verdict"], "{}", item["id"]);
        parted += usize::from(says(1) != item["peer_verdict"]);
    }
    assert!(
        parted >= 3,
        "the first versions part from the peers somewhere"
    );
    // The same file from standard input, under the default matchers.
    let stdin = std::fs::File::open(crate::support::root().join(file)).unwrap();
    let out = env
        .droidscore()
        .args(["steps", "judge", "-"])
        .stdin(stdin.into())
        .ok();
    let first: Value =
        serde_json::from_slice(out.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
    let names: Vec<&String> = first["verdicts"].as_object().unwrap().keys().collect();
    assert_eq!(
        names,
        [
            "droidscore@1",
            "aitw@2",
            "androidcontrol@2",
            "qwen-box@1",
            "gui-odyssey@2"
        ]
    );
}

/// Bad input to `steps judge` names the file, the item and the field, and
/// nothing is judged.
#[test]
fn steps_judge_names_the_bad_item_and_field() {
    let env = TestEnv::new("steps-judge-bad");
    let good = r#"{"id": 1, "answer": {"kind": "back"}, "reference": {"act": {"kind": "back"}, "screen": [1080, 2400], "solution_step": 0, "search": false}}"#;
    let bad = good
        .replace(r#""id": 1"#, r#""id": 2"#)
        .replace("[1080, 2400]", "[1080]");
    let path = env.write("steps.jsonl", format!("{good}\n{bad}\n"));
    let out = env
        .droidscore()
        .args(["steps", "judge"])
        .arg(&path)
        .code(droidscore::exit::BAD_INPUT);
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("steps.jsonl: 1 of 2 items are bad"),
        "{stderr}"
    );
    assert!(
        stderr.contains("line 2 (id 2): reference.screen: invalid length 1"),
        "{stderr}"
    );
}

/// `report --matchers` judges a run's stored steps again: under the
/// versions it was recorded with it gives the recorded numbers back; under
/// others, their names; a run recorded under earlier versions says so.
#[test]
fn report_judges_the_stored_steps_again_under_any_matcher_version() {
    let env = TestEnv::new("offline-rejudge");
    let path = env.join("s.sqlite");
    let store = path.to_str().unwrap();
    let steps = |id: &str, matchers: &str| {
        env.droidscore()
            .args(["steps", "--agent", "random", "--tasks", "*o*"])
            .args(["--variants", "base", "--matchers", matchers])
            .args(["--store", store, "--run-id", id])
            .ok();
    };
    steps("old", "aitw@1,gui-odyssey@1");
    steps("new", "all");
    let report = |args: &[&str]| {
        let out = env
            .droidscore()
            .arg("report")
            .args(args)
            .args(["--store", store])
            .ok();
        String::from_utf8(out.stdout).unwrap()
    };
    let summary = |args: &[&str]| -> Value {
        let json: Value = serde_json::from_str(&report(args)).unwrap();
        json["summary"]["scores"].clone()
    };
    let recorded = summary(&["old", "--format", "json"]);
    let again = summary(&[
        "old",
        "--format",
        "json",
        "--matchers",
        "aitw@1,gui-odyssey@1",
    ]);
    assert_eq!(recorded, again, "the same rules give the recorded numbers");
    let names = |scores: &Value| -> Vec<String> {
        scores
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["matcher"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(&recorded), ["aitw@1", "gui-odyssey@1"]);
    let current = summary(&["old", "--format", "json", "--matchers", "all"]);
    assert_eq!(
        names(&current),
        [
            "droidscore@1",
            "aitw@2",
            "androidcontrol@2",
            "qwen-box@1",
            "gui-odyssey@2"
        ]
    );
    let rejudged = report(&["old", "--matchers", "aitw@1"]);
    assert!(!rejudged.contains("earlier matcher versions"), "{rejudged}");
    let table = report(&["old"]);
    assert!(
        table.contains(
            "verdicts recorded under earlier matcher versions: aitw@1 (now aitw@2), \
             gui-odyssey@1 (now gui-odyssey@2)"
        ),
        "{table}"
    );
    assert!(!report(&["new"]).contains("earlier matcher versions"));
    // Two runs judged under different rules compare only the rules both
    // have, and say so; `--matchers` puts both under the same ones.
    let two = report(&["old", "new"]);
    assert!(two.contains("not compared: A's steps alone were judged under aitw@1, gui-odyssey@1, B's alone under droidscore@1, aitw@2"), "{two}");
    assert!(
        two.contains("A: verdicts recorded under earlier matcher versions: aitw@1 (now aitw@2)"),
        "{two}"
    );
    let same = report(&["old", "new", "--matchers", "aitw@1,aitw@2"]);
    assert!(!same.contains("not compared"), "{same}");
    assert!(!same.contains("earlier matcher versions"), "{same}");
    assert!(
        same.lines().any(|l| l.starts_with("aitw@1"))
            && same.lines().any(|l| l.starts_with("aitw@2")),
        "{same}"
    );
    // An online run has no steps to judge.
    env.droidscore()
        .args([
            "run",
            "--agent",
            "noop",
            "--tasks",
            "wifi_off",
            "--variants",
            "base",
        ])
        .args(["--store", store, "--run-id", "online"])
        .ok();
    let refused = env
        .droidscore()
        .args(["report", "online", "--matchers", "all", "--store", store])
        .fails();
    let refused = String::from_utf8_lossy(&refused.stderr);
    assert!(
        refused.contains("--matchers judges the steps of offline runs"),
        "{refused}"
    );
}
