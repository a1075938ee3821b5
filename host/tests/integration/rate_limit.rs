//! HTTP 429 from the model endpoint: a `Retry-After` (seconds or an
//! HTTP-date) is waited for and the episode is scored; one that would end
//! past `--rate-limit-wait` is not waited for and the episode is
//! infrastructure; a 429 without one backs off and uses up retries as a 5xx.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use droidscore::agent::{InfraError, LlmAgent, LlmConfig};
use droidscore::episode::{self, End, Episode};
use droidscore::exit;
use droidscore::task::{load_dir, Instance};
use droidscore_phone::sim::SimPhone;
use serde_json::Value;
use tokio::runtime::Runtime;

use super::runs::{solve_wifi, user_text};
use super::scripted_server::{runtime, Reply, ScriptedServer};
use super::support::{text, TestEnv};

const COMPLETE: &str = r#"Action: {"action_type": "status", "goal_status": "complete"}"#;
const SLOW_DOWN: &str = r#"{"error":{"message":"Rate limit reached for requests"}}"#;

fn too_many(retry_after: Option<&str>) -> Reply {
    let headers = retry_after
        .map(|v| vec![("Retry-After".to_string(), v.to_string())])
        .unwrap_or_default();
    Reply::Headers(429, headers, SLOW_DOWN.into())
}

fn instance() -> Instance {
    let tasks = load_dir(&crate::support::root().join("tasks")).unwrap();
    let task = tasks.into_iter().find(|t| t.id == "bluetooth_on").unwrap();
    task.variant("base").unwrap().clone()
}

fn run(server: &ScriptedServer, rt: &Runtime, budget: Duration) -> (Episode, LlmAgent) {
    let config = LlmConfig {
        timeout: Duration::from_secs(5),
        backoff: Duration::from_millis(10),
        retries: 2,
        rate_limit_wait: budget,
        no_image: true,
        ..LlmConfig::new(server.base_url.clone(), "scripted")
    };
    let inst = instance();
    let mut phone = SimPhone::new(inst.setup(0)).unwrap();
    let mut agent = LlmAgent::new(config, rt.handle().clone()).unwrap();
    let ep = episode::run(&mut phone, &mut agent, &inst).unwrap();
    (ep, agent)
}

#[test]
fn a_429_with_retry_after_1_is_waited_for_and_the_episode_scored() {
    let rt = runtime();
    let server = ScriptedServer::start(
        &rt,
        vec![too_many(Some("1")), Reply::Content(COMPLETE.into())],
    );
    let (ep, mut agent) = run(&server, &rt, Duration::from_secs(300));
    assert_eq!(ep.end, End::Complete, "{}", ep.reason);
    assert_eq!(agent.retries(), 1);
    let latency_ms = agent.take_step_log()[0].latency_ms;
    assert!(
        latency_ms >= 1000.0,
        "Retry-After: 1 was waited for: {latency_ms} ms"
    );
    assert_eq!(server.received().len(), 2);
}

#[test]
fn a_429_with_an_http_date_is_waited_for_until_then() {
    let rt = runtime();
    let asked = Arc::new(std::sync::Mutex::new(Vec::new()));
    let dates = asked.clone();
    // Two seconds from when the request came; the date's whole seconds
    // leave at least one to wait.
    let server = ScriptedServer::start_policy(
        &rt,
        Arc::new(move |_: &Value| {
            let mut dates = dates.lock().unwrap();
            if dates.is_empty() {
                let at = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(2));
                dates.push(at.clone());
                return too_many(Some(&at));
            }
            Reply::Content(COMPLETE.into())
        }),
    );
    let (ep, mut agent) = run(&server, &rt, Duration::from_secs(300));
    assert_eq!(ep.end, End::Complete, "{}", ep.reason);
    let latency_ms = agent.take_step_log()[0].latency_ms;
    let at = asked.lock().unwrap().clone();
    assert!(latency_ms >= 1000.0, "{at:?}: {latency_ms} ms");
    assert_eq!(server.received().len(), 2);
}

#[test]
fn a_retry_after_past_the_budget_is_not_waited_for_and_the_episode_is_infra() {
    let rt = runtime();
    let server = ScriptedServer::start(
        &rt,
        vec![too_many(Some("30")), Reply::Content(COMPLETE.into())],
    );
    let (ep, mut agent) = run(&server, &rt, Duration::from_secs(1));
    let want = format!(
        "{}/chat/completions: HTTP 429 (rate limited) on attempt 1: Rate limit reached for \
         requests; its Retry-After of 30s would end past the --rate-limit-wait budget of 1s",
        server.base_url
    );
    assert_eq!(ep.end, End::Infra(want));
    assert!(matches!(
        agent.infra_error(),
        Some(InfraError::RateLimited { attempts: 1, .. })
    ));
    assert_eq!(server.received().len(), 1);
    let latency_ms = agent.take_step_log()[0].latency_ms;
    assert!(latency_ms < 10_000.0, "not waited: {latency_ms} ms");
}

#[test]
fn a_429_without_retry_after_backs_off_and_uses_up_retries_as_a_5xx() {
    let rt = runtime();
    let server = ScriptedServer::start(&rt, vec![too_many(None), Reply::Content(COMPLETE.into())]);
    let (ep, agent) = run(&server, &rt, Duration::from_secs(300));
    assert_eq!(ep.end, End::Complete);
    assert_eq!(agent.retries(), 1);

    // An unreadable Retry-After is as none.
    let server = ScriptedServer::start(&rt, vec![too_many(Some("soon")); 3]);
    let (ep, _) = run(&server, &rt, Duration::from_secs(300));
    let want = format!(
        "{}/chat/completions: gave up after 3 attempts: HTTP 429: Rate limit reached for requests",
        server.base_url
    );
    assert_eq!(ep.end, End::Infra(want));
    assert_eq!(server.received().len(), 3);
}

/// Through the binary: the first request of each episode is answered 429
/// `Retry-After: 1`, and the run is scored as without it.
#[test]
fn a_rate_limited_run_waits_and_is_scored() {
    let rt = runtime();
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    let server = ScriptedServer::start_policy(
        &rt,
        Arc::new(move |body: &Value| {
            if counter.fetch_add(1, Ordering::SeqCst) == 0 {
                return too_many(Some("1"));
            }
            solve_wifi(&user_text(body))
        }),
    );
    let dir = TestEnv::new("rate-limited");
    let store = dir.join("runs.sqlite");
    let o = dir
        .droidscore()
        .args(["run", "--base-url", &server.base_url, "--model", "scripted"])
        .args(["--no-image", "--tasks", "wifi_on", "--variants", "base"])
        .args(["--run-id", "limited", "--store", store.to_str().unwrap()])
        .args(["--rate-limit-wait", "60"])
        .ok();
    let out = text(&o.stdout);
    assert!(
        out.lines()
            .last()
            .unwrap_or("")
            .starts_with("agent llm: 1/1 episodes succeeded (100.0%)"),
        "{out}"
    );
    let store = droidscore::store::Store::open_existing(&store).unwrap();
    let steps = store.steps("limited", "wifi_on", "base", 0).unwrap();
    assert!(
        steps[0].latency_ms >= 1000.0,
        "the first step waited: {} ms",
        steps[0].latency_ms
    );
    let run = store.run("limited").unwrap().unwrap();
    assert_eq!(run.config["rate_limit_wait_s"], 60);

    // Past the budget: the episode is infrastructure, so nothing is scored.
    let limited = ScriptedServer::start_policy(&rt, Arc::new(|_: &Value| too_many(Some("120"))));
    let over = dir.join("over.sqlite");
    let o = dir
        .droidscore()
        .args([
            "run",
            "--base-url",
            &limited.base_url,
            "--model",
            "scripted",
        ])
        .args(["--no-image", "--tasks", "wifi_on", "--variants", "base"])
        .args(["--run-id", "over", "--store", over.to_str().unwrap()])
        .args(["--rate-limit-wait", "5"])
        .code(exit::NOTHING_SCORED);
    let err = text(&o.stderr);
    assert!(
        err.contains("run over: no episode could be scored: 1 infrastructure failures"),
        "{err}"
    );
    // Each of the episode's two tries stopped at its first 429.
    assert_eq!(limited.received().len(), 2);
}
