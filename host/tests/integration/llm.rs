//! The LLM agent on the simulator against the scripted endpoint: valid and
//! invalid answers, retries, infrastructure failures, and what the requests
//! carried. Timeouts are 300 ms and backoff 10 ms so the suite stays fast.

use std::time::Duration;

use droidscore::agent::element_lines;
use droidscore::agent::{Constrain, InfraError, LlmAgent, LlmConfig};
use droidscore::episode::{self, End, Episode};
use droidscore::task::{load_dir, Instance};
use droidscore_phone::sim::SimPhone;
use droidscore_phone::uiautomator::elements;
use droidscore_phone::Phone;
use serde_json::Value;
use tokio::runtime::Runtime;

use crate::scripted_server::{runtime, Reply, ScriptedServer};

fn instance(task: &str) -> Instance {
    let tasks = load_dir(&crate::support::root().join("tasks")).unwrap();
    let task = tasks.into_iter().find(|t| t.id == task).unwrap();
    task.variant("base").unwrap().clone()
}

fn config(server: &ScriptedServer) -> LlmConfig {
    LlmConfig {
        timeout: Duration::from_millis(300),
        backoff: Duration::from_millis(10),
        retries: 2,
        ..LlmConfig::new(server.base_url.clone(), "scripted")
    }
}

fn content(reply: &str) -> Reply {
    Reply::Content(reply.into())
}

fn run(config: LlmConfig, rt: &Runtime, inst: &Instance) -> (Episode, LlmAgent) {
    let mut phone = SimPhone::new(inst.setup(0)).unwrap();
    let mut agent = LlmAgent::new(config, rt.handle().clone()).unwrap();
    let ep = episode::run(&mut phone, &mut agent, inst).unwrap();
    (ep, agent)
}

/// The user message's text part (the whole content when it is a string).
fn user_text(body: &Value) -> String {
    let content = &body["messages"][1]["content"];
    match content {
        Value::String(s) => s.clone(),
        _ => content[0]["text"].as_str().unwrap().to_owned(),
    }
}

/// The index of the first element whose label starts with `label` or whose
/// resource id is `label`, on the shadow phone's current screen.
fn index_of(phone: &mut SimPhone, label: &str) -> usize {
    let obs = phone.observe(false).unwrap();
    elements(&obs.hierarchy)
        .iter()
        .position(|e| e.label.starts_with(label) || e.resource_id == label)
        .unwrap_or_else(|| panic!("no element {label:?} on screen"))
}

fn click(phone: &mut SimPhone, label: &str) -> String {
    let i = index_of(phone, label);
    let obs = phone.observe(false).unwrap();
    let (x, y) = elements(&obs.hierarchy)[i].center;
    phone
        .act(&droidscore_phone::DeviceAction::Tap { x, y })
        .unwrap();
    format!("Action: {{\"action_type\": \"click\", \"index\": {i}}}")
}

const OPEN_SETTINGS: &str = r#"{"action_type": "open_app", "app_name": "Settings"}"#;
const COMPLETE: &str = r#"Reason: done.
Action: {"action_type": "status", "goal_status": "complete"}"#;

#[test]
fn scripted_answers_turn_bluetooth_on_and_the_requests_carry_the_screen() {
    let inst = instance("bluetooth_on");
    // Find the indexes the model would name by walking a shadow phone.
    let mut shadow = SimPhone::new(inst.setup(0)).unwrap();
    let first_screen = element_lines(&elements(&shadow.observe(false).unwrap().hierarchy));
    shadow
        .act(&droidscore_phone::DeviceAction::Launch {
            package: "com.android.settings".into(),
        })
        .unwrap();
    let mut script = vec![content(OPEN_SETTINGS)];
    for label in [
        "Connected devices",
        "Connection preferences",
        "Bluetooth",
        "settingslib_main_switch_bar",
    ] {
        script.push(Reply::Content(click(&mut shadow, label)));
    }
    script.push(content(COMPLETE));
    let rt = runtime();
    let server = ScriptedServer::start(&rt, script);
    let (ep, mut agent) = run(config(&server), &rt, &inst);

    assert_eq!(ep.end, End::Complete);
    assert!(ep.success, "{}", ep.reason);
    assert_eq!(ep.steps, 5);
    let log = agent.take_step_log();
    assert_eq!(log.len(), 6);
    assert!(log.iter().all(|s| s.invalid_reason.is_none()));
    assert_eq!(agent.retries(), 0);
    assert_eq!(log[0].action["app_name"], "Settings");
    assert_eq!(log[1].action["action_type"], "click");
    assert_eq!(
        (log[0].prompt_tokens, log[0].completion_tokens),
        (Some(100), Some(10))
    );

    let received = server.received();
    assert_eq!(received.len(), 6);
    assert_eq!(received[0].path, "/v1/chat/completions");
    assert_eq!(received[0].authorization, None);
    let body = &received[0].body;
    assert_eq!(body["model"], "scripted");
    assert_eq!(body["messages"][0]["role"], "system");
    let text = user_text(body);
    assert!(text.starts_with("Goal: Turn on Bluetooth.\n"), "{text}");
    assert!(
        text.contains(&first_screen),
        "the element list is sent verbatim"
    );
    assert!(text.contains("Actions so far: none\n"), "{text}");
    let image = body["messages"][1]["content"][1]["image_url"]["url"]
        .as_str()
        .expect("an image part by default");
    assert!(image.starts_with("data:image/png;base64,iVBORw0KGgo"));
    let later = user_text(&received[2].body);
    assert!(
        later.contains("1. open_app Settings -> screen changed\n2. click "),
        "{later}"
    );
}

#[test]
fn invalid_answers_are_recorded_fed_back_and_use_budget() {
    let inst = instance("bluetooth_on");
    let rt = runtime();
    let server = ScriptedServer::start(
        &rt,
        vec![
            content("I would open the Settings app first."),
            content(r#"Action: {"action_type": "open_app" "app_name": "Settings"}"#),
            content("Sure! Here you go:\n```json\n{\"action_type\": \"open_app\", \"app_name\": \"Settings\"}\n```\nThat opens Settings."),
            content(r#"{"action_type": "click", "index": 99}"#),
            content(COMPLETE),
        ],
    );
    let (ep, mut agent) = run(config(&server), &rt, &inst);
    assert_eq!(ep.end, End::Complete);
    assert_eq!(ep.steps, 1, "only the prose-wrapped open_app acted");
    assert!(!ep.success);
    let log = agent.take_step_log();
    let reasons: Vec<Option<&str>> = log.iter().map(|s| s.invalid_reason.as_deref()).collect();
    assert!(reasons[0]
        .unwrap()
        .starts_with("no JSON object in the answer"));
    assert!(
        reasons[1].unwrap().contains("is not valid JSON"),
        "{reasons:?}"
    );
    assert_eq!(reasons[2], None);
    let out_of_range = reasons[3].unwrap();
    assert!(
        out_of_range.starts_with("index 99 is out of range: the element list has "),
        "{out_of_range}"
    );
    assert_eq!(reasons[4], None);
    assert!(log[0].action.is_null() && log[3].action.is_null());
    assert_eq!(
        log[1].raw_output,
        r#"Action: {"action_type": "open_app" "app_name": "Settings"}"#
    );

    let received = server.received();
    assert_eq!(received.len(), 5);
    assert!(!user_text(&received[0].body).contains("Last answer invalid"));
    let second = user_text(&received[1].body);
    assert!(
        second.contains("Last answer invalid, not performed: no JSON object"),
        "{second}"
    );
    assert!(second.contains("1. invalid answer\n"), "{second}");
    assert!(
        !user_text(&received[3].body).contains("Last answer invalid"),
        "a valid answer clears the error"
    );
    assert!(user_text(&received[4].body).contains(out_of_range));
}

#[test]
fn invalid_answers_alone_run_out_of_steps() {
    let mut inst = instance("bluetooth_on");
    inst.max_steps = 3;
    let rt = runtime();
    let server = ScriptedServer::start(&rt, vec![content("hmm"); 5]);
    let (ep, mut agent) = run(config(&server), &rt, &inst);
    assert_eq!(ep.end, End::OutOfSteps);
    assert_eq!(ep.steps, 0);
    assert_eq!(
        server.received().len(),
        3,
        "each invalid answer used one step"
    );
    assert!(agent
        .take_step_log()
        .iter()
        .all(|s| s.invalid_reason.is_some()));
}

fn retried_then_complete(first: Reply) -> (Episode, LlmAgent, usize) {
    let inst = instance("bluetooth_on");
    let rt = runtime();
    let server = ScriptedServer::start(&rt, vec![first, content(COMPLETE)]);
    let (ep, agent) = run(config(&server), &rt, &inst);
    (ep, agent, server.received().len())
}

#[test]
fn a_500_is_retried_then_succeeds() {
    let (ep, agent, requests) = retried_then_complete(Reply::Status(
        500,
        r#"{"error":{"message":"overloaded"}}"#.into(),
    ));
    assert_eq!(ep.end, End::Complete);
    assert_eq!(requests, 2);
    assert_eq!(agent.retries(), 1);
    assert!(agent.infra_error().is_none());
}

#[test]
fn a_hang_past_the_timeout_is_retried() {
    let (ep, mut agent, requests) = retried_then_complete(Reply::Hang(Duration::from_secs(30)));
    assert_eq!(ep.end, End::Complete);
    assert_eq!((requests, agent.retries()), (2, 1));
    // The step's own time, not the episode's (debug-build screenshots on a
    // loaded machine): the 300 ms timeout cut the 30 s hang.
    let latency_ms = agent.take_step_log()[0].latency_ms;
    assert!(latency_ms < 10_000.0, "{latency_ms} ms");
}

#[test]
fn a_dropped_connection_is_retried() {
    let (ep, agent, requests) = retried_then_complete(Reply::Drop);
    assert_eq!(ep.end, End::Complete);
    assert_eq!((requests, agent.retries()), (2, 1));
}

#[test]
fn exhausted_retries_end_the_episode_as_infrastructure() {
    let inst = instance("bluetooth_on");
    let rt = runtime();
    let server = ScriptedServer::start(
        &rt,
        vec![
            Reply::Status(502, "Bad Gateway".into()),
            Reply::Drop,
            Reply::Status(503, "".into()),
        ],
    );
    let (ep, mut agent) = run(config(&server), &rt, &inst);
    let endpoint = format!("{}/chat/completions", server.base_url);
    let want = format!("{endpoint}: gave up after 3 attempts: HTTP 503: (empty body)");
    assert_eq!(ep.end, End::Infra(want.clone()));
    assert!(!ep.success);
    assert_eq!(ep.reason, format!("infrastructure: {want}"));
    assert!(matches!(
        agent.infra_error(),
        Some(InfraError::Exhausted { attempts: 3, .. })
    ));
    assert_eq!(server.received().len(), 3);
    let log = agent.take_step_log();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].invalid_reason, None, "not the agent's fault");
}

#[test]
fn a_401_is_not_retried_and_names_endpoint_status_and_message() {
    let inst = instance("bluetooth_on");
    let rt = runtime();
    let body = r#"{"error":{"message":"Incorrect API key provided: sk-bad","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#;
    let server = ScriptedServer::start(
        &rt,
        vec![Reply::Status(401, body.into()), content(COMPLETE)],
    );
    let (ep, agent) = run(config(&server), &rt, &inst);
    let want = format!(
        "{}/chat/completions: HTTP 401: Incorrect API key provided: sk-bad",
        server.base_url
    );
    // A 4xx is not an infrastructure hiccup: the run stops (see `runs.rs`).
    assert_eq!(ep.end, End::Fatal(want.clone()));
    assert_eq!(agent.infra_error().unwrap().to_string(), want);
    assert_eq!((server.received().len(), agent.retries()), (1, 0));
}

#[test]
fn no_image_sends_text_only_with_the_key_from_the_environment() {
    let inst = instance("bluetooth_on");
    let rt = runtime();
    let server = ScriptedServer::start(&rt, vec![content(COMPLETE)]);
    std::env::set_var("DROIDSCORE_TEST_LLM_KEY", "sk-test");
    let config = LlmConfig {
        no_image: true,
        api_key_env: Some("DROIDSCORE_TEST_LLM_KEY".into()),
        ..config(&server)
    };
    let (ep, _) = run(config, &rt, &inst);
    assert_eq!(ep.end, End::Complete);
    let received = server.received();
    assert_eq!(received[0].authorization.as_deref(), Some("Bearer sk-test"));
    let content = &received[0].body["messages"][1]["content"];
    assert!(content.is_string(), "no image part: {content}");
}

#[test]
fn another_scheme_and_a_missing_key_are_refused_up_front() {
    let rt = runtime();
    let e = LlmAgent::new(
        LlmConfig::new("ftp://api.example/v1", "m"),
        rt.handle().clone(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "base URL \"ftp://api.example/v1\" must start with http:// or https://"
    );
    let config = LlmConfig {
        api_key_env: Some("DROIDSCORE_TEST_UNSET_KEY".into()),
        ..LlmConfig::new("http://127.0.0.1:9/v1", "m")
    };
    let e = LlmAgent::new(config, rt.handle().clone()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "environment variable DROIDSCORE_TEST_UNSET_KEY (the API key) is not set"
    );
}

/// The element lines of a user message: those after `Screen:`.
fn element_count(text: &str) -> usize {
    text.split_once("Screen:\n").map_or(0, |(_, s)| {
        s.lines()
            .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
            .count()
    })
}

#[test]
fn under_a_schema_each_request_bounds_its_index_by_its_screen_and_json_answers_act() {
    let inst = instance("bluetooth_on");
    let rt = runtime();
    let server = ScriptedServer::start(
        &rt,
        vec![
            content(
                r#"{"reason": "Bluetooth is in Settings.", "action_type": "open_app", "app_name": "Settings"}"#,
            ),
            // "action:" inside the reason does not split the object.
            content(
                r#"{"reason": "next action: none, it is done", "action_type": "status", "goal_status": "complete"}"#,
            ),
        ],
    );
    let config = LlmConfig {
        constrain: Constrain::Schema,
        no_image: true,
        ..config(&server)
    };
    let (ep, mut agent) = run(config, &rt, &inst);
    assert_eq!(ep.end, End::Complete);
    assert_eq!(ep.steps, 1);
    assert!(agent
        .take_step_log()
        .iter()
        .all(|s| s.invalid_reason.is_none()));
    let received = server.received();
    assert_eq!(received.len(), 2);
    for r in &received {
        let format = &r.body["response_format"];
        assert_eq!(format["type"], "json_schema", "{format}");
        assert_eq!(format["json_schema"]["strict"], true);
        let n = element_count(&user_text(&r.body));
        let first = &format["json_schema"]["schema"]["anyOf"][0];
        assert_eq!(first["properties"]["action_type"]["const"], "click");
        assert_eq!(first["properties"]["index"]["maximum"], n as u64 - 1);
        assert_eq!(first["required"][0], "reason");
    }
    let system = received[0].body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("\"reason\" first"), "{system}");
    assert!(!user_text(&received[0].body).contains("Reason: …"));
}

#[test]
fn an_endpoint_refusing_response_format_stops_the_run_naming_the_constrain_flag() {
    let inst = instance("bluetooth_on");
    let rt = runtime();
    let server = ScriptedServer::start(
        &rt,
        vec![Reply::Status(
            400,
            r#"{"error":{"message":"Unrecognized request argument supplied: response_format"}}"#
                .into(),
        )],
    );
    let config = LlmConfig {
        constrain: Constrain::Schema,
        ..config(&server)
    };
    let (ep, _) = run(config, &rt, &inst);
    match &ep.end {
        End::Fatal(why) => {
            assert!(why.contains("HTTP 400"), "{why}");
            assert!(why.contains("run with --constrain off"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.received().len(), 1, "a refusal is not retried");
}

#[test]
fn cached_tokens_are_kept_when_reported_and_none_when_not() {
    let inst = instance("bluetooth_on");
    let rt = runtime();
    let with_cache = serde_json::json!({
        "id": "c", "object": "chat.completion", "created": 0, "model": "scripted",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
            "content": OPEN_SETTINGS}}],
        "usage": {"prompt_tokens": 380, "completion_tokens": 20, "total_tokens": 400,
            "prompt_tokens_details": {"cached_tokens": 300}},
    });
    let server = ScriptedServer::start(
        &rt,
        vec![
            Reply::Status(200, with_cache.to_string()),
            content(COMPLETE),
        ],
    );
    let (_, mut agent) = run(config(&server), &rt, &inst);
    let log = agent.take_step_log();
    assert_eq!(
        (log[0].prompt_tokens, log[0].cached_tokens),
        (Some(380), Some(300))
    );
    assert_eq!(
        (log[1].prompt_tokens, log[1].cached_tokens),
        (Some(100), None)
    );
}
