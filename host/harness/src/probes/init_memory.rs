//! `droidscore bench init-memory -- CMD…`: what a server costs to start and
//! to hold, measured from outside.
//!
//! - `ready_s`: from spawning CMD to ready — `--ready-url` answering 200, or
//!   a stdout line matching `--ready-pattern`, looked for once per
//!   `--period-ms` (`ready_resolution_ms`) (whose group 1, if any, is the
//!   server's URL, substituted for `{url}` in `--health-url` and
//!   `--chat-url`).
//! - `init_s`: the load time the server reports about itself, if it does: a
//!   `load_ms`, `load_s` or `init_s` field anywhere in the health JSON (the
//!   device server's `/health` has `model.load_ms`) or in a JSON line on its
//!   stdout before ready.
//! - `peak_rss_anon_kib`: RssAnon summed over the process tree, sampled
//!   every `--period-ms` from spawn to ready (a peak between two samples is
//!   missed; the period is in the output), with the root's own `VmHWM`, the
//!   kernel's exact peak of its whole RSS.
//! - `at_ready`: Rss and Pss over the tree (every descendant by ppid), split
//!   anon/file/shmem, from `status` and `smaps_rollup`; `root_at_ready` the
//!   root process alone.
//! - with `--context-len N`: one chat request whose prompt is N repetitions
//!   of a short word, answered with one token, then the same figures again
//!   (`context.*`), with the `usage.prompt_tokens` the server says it saw.
//!
//! The tree is killed at the end. The child stays in the probe's process
//! group, so whoever kills that group takes the server with it: `bench
//! run`, after each arm and on SIGINT/SIGTERM (the arm leads its own group,
//! so a terminal's Ctrl-C does not reach it directly; `bench run`'s handler
//! kills the group), or a terminal's Ctrl-C when the probe runs by itself
//! in the foreground. The child's stdout is
//! passed to our stderr so that our stdout carries only the one JSON line.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::ProbeError;
use crate::process;
use crate::smaps::{self, Resident};

/// What says the server is ready.
#[derive(Debug, Clone)]
pub enum Ready {
    /// GET answers 200.
    Url(String),
    /// A stdout line matches; group 1, if present, is `{url}`.
    Pattern(regex::Regex),
}

#[derive(Debug, Clone)]
pub struct Options {
    pub command: Vec<String>,
    pub ready: Ready,
    pub health_url: Option<String>,
    pub period: Duration,
    pub context_len: Option<usize>,
    pub chat_url: Option<String>,
    /// Sent as `model` with the chat request (some servers require it).
    pub model: Option<String>,
    pub timeout: Duration,
}

pub const NOTE_UNTOUCHED: &str = "no --context-len: the KV cache (or any buffer sized for the full context) is allocated but never touched, so untouched pages are not resident and these figures say nothing about cache sizing; a bigger context will look free here. Rerun with --context-len N to fill N tokens.";

pub const NOTE_RSS_PSS: &str = "Rss summed over the tree counts a page shared by two processes twice; Pss divides it among them and sums to what the tree holds.";

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ContextFill {
    /// N, the tokens asked for (N repetitions of the word).
    pub asked_tokens: usize,
    /// What the server's `usage.prompt_tokens` said it saw (chat template included).
    pub prompt_tokens: Option<u64>,
    /// prompt_tokens ≥ asked_tokens.
    pub reached: Option<bool>,
    pub request_s: f64,
    pub peak_rss_anon_kib: u64,
    pub tree: Resident,
    pub root: Resident,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct InitMemory {
    pub ready_s: f64,
    /// `ready_s`'s resolution: readiness is looked for once per sampling
    /// period, so ready may have come up to this much earlier.
    pub ready_resolution_ms: u64,
    pub init_s: Option<f64>,
    /// Where `init_s` came from (`health`, `stdout`), if anywhere.
    pub init_source: Option<String>,
    pub period_ms: u64,
    /// Samples taken from spawn to ready.
    pub samples: u64,
    pub peak_rss_anon_kib: u64,
    /// The root process's VmHWM (peak Rss, all kinds) at ready.
    pub root_vm_hwm_kib: u64,
    pub at_ready: Resident,
    pub root_at_ready: Resident,
    pub context: Option<ContextFill>,
    /// The URL the ready pattern captured, if it did.
    pub url: Option<String>,
    pub note: String,
}

/// The first `load_ms` (as seconds), `load_s` or `init_s` in a JSON value,
/// depth first.
pub fn load_time_s(v: &Value) -> Option<f64> {
    match v {
        Value::Object(m) => {
            if let Some(ms) = m.get("load_ms").and_then(Value::as_f64) {
                return Some(ms / 1000.0);
            }
            for k in ["load_s", "init_s"] {
                if let Some(s) = m.get(k).and_then(Value::as_f64) {
                    return Some(s);
                }
            }
            m.values().find_map(load_time_s)
        }
        Value::Array(a) => a.iter().find_map(load_time_s),
        _ => None,
    }
}

/// `scheme://host:port` of a URL (what `{url}` means with `--ready-url`).
pub fn origin(url: &str) -> String {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(i) => url[..after_scheme + i].to_string(),
        None => url.to_string(),
    }
}

/// The prompt for `n` tokens: `n` repetitions of a word most tokenizers
/// keep as one token with its leading space.
pub fn filler_prompt(n: usize) -> String {
    " hello".repeat(n).trim_start().to_string()
}

struct Tree(Child);

impl Drop for Tree {
    fn drop(&mut self) {
        process::kill_tree(&mut self.0);
    }
}

enum Line {
    Ready(Option<String>),
    Closed,
}

fn runtime() -> Result<tokio::runtime::Runtime, ProbeError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ProbeError::because("failed to start the async runtime", e))
}

fn http_client(timeout: Duration) -> Result<reqwest::Client, ProbeError> {
    reqwest::Client::builder()
        .timeout(timeout)
        .no_proxy()
        .build()
        .map_err(ProbeError::Client)
}

/// GET `url`; `Some(body)` on 200, `None` otherwise (not up yet).
fn get_200(rt: &tokio::runtime::Runtime, client: &reqwest::Client, url: &str) -> Option<String> {
    rt.block_on(async {
        let r = client.get(url).send().await.ok()?;
        if r.status() != reqwest::StatusCode::OK {
            return None;
        }
        r.text().await.ok()
    })
}

pub fn measure(options: &Options) -> Result<InitMemory, ProbeError> {
    let Some((program, args)) = options.command.split_first() else {
        return Err("no command to start (give it after `--`)".into());
    };
    let rt = runtime()?;
    let client = http_client(Duration::from_secs(2))?;
    let started = Instant::now();
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut tree = Tree(
        command
            .spawn()
            .map_err(|e| ProbeError::because(format!("failed to start {program:?}"), e))?,
    );
    let pid = tree.0.id();
    let stdout = tree.0.stdout.take().ok_or("no stdout from the child")?;
    let (tx, rx) = mpsc::channel();
    let stdout_load: Arc<Mutex<Option<f64>>> = Arc::default();
    let pattern = match &options.ready {
        Ready::Pattern(p) => Some(p.clone()),
        Ready::Url(_) => None,
    };
    {
        let stdout_load = Arc::clone(&stdout_load);
        std::thread::spawn(move || {
            let mut matched = false;
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                eprintln!("{line}");
                if matched {
                    continue;
                }
                if let Ok(v) = serde_json::from_str::<Value>(&line) {
                    if let Some(s) = load_time_s(&v) {
                        *stdout_load.lock().unwrap() = Some(s);
                    }
                }
                if let Some(caps) = pattern.as_ref().and_then(|p| p.captures(&line)) {
                    matched = true;
                    let _ = tx.send(Line::Ready(caps.get(1).map(|m| m.as_str().to_string())));
                }
            }
            let _ = tx.send(Line::Closed);
        });
    }
    let mut peak = 0u64;
    let mut samples = 0u64;
    let mut ready_body = None;
    let url = loop {
        peak = peak.max(smaps::tree_rss_anon_kib(pid));
        samples += 1;
        match &options.ready {
            Ready::Pattern(_) => match rx.try_recv() {
                Ok(Line::Ready(url)) => break url,
                Ok(Line::Closed) | Err(mpsc::TryRecvError::Disconnected) => {
                    let status = tree
                        .0
                        .wait()
                        .map_or_else(|e| e.to_string(), |s| s.to_string());
                    return Err(ProbeError::Failed(format!(
                        "the command closed its stdout ({status}) before printing a line matching the ready pattern"
                    )));
                }
                Err(mpsc::TryRecvError::Empty) => {}
            },
            Ready::Url(u) => {
                if let Some(body) = get_200(&rt, &client, u) {
                    ready_body = Some(body);
                    break Some(origin(u));
                }
            }
        }
        if let Ok(Some(status)) = tree.0.try_wait() {
            return Err(ProbeError::Failed(format!(
                "the command exited before it was ready ({status})"
            )));
        }
        if started.elapsed() > options.timeout {
            return Err(ProbeError::Failed(format!(
                "the command was not ready within {} s",
                options.timeout.as_secs()
            )));
        }
        std::thread::sleep(options.period);
    };
    let ready_s = started.elapsed().as_secs_f64();
    peak = peak.max(smaps::tree_rss_anon_kib(pid));
    let at_ready = smaps::tree_resident(pid);
    let root_at_ready = smaps::process_resident(pid).unwrap_or_default();
    let root_vm_hwm_kib = smaps::status(pid)
        .ok()
        .and_then(|s| s.get("VmHWM").copied())
        .unwrap_or(0);
    let fill = |template: &str| match &url {
        Some(u) => template.replace("{url}", u),
        None => template.to_string(),
    };
    let health_body = match (&ready_body, &options.health_url) {
        (_, Some(h)) => get_200(&rt, &client, &fill(h)),
        (Some(b), None) => Some(b.clone()),
        (None, None) => None,
    };
    let from_health = health_body
        .as_deref()
        .and_then(|b| serde_json::from_str::<Value>(b).ok())
        .and_then(|v| load_time_s(&v));
    let from_stdout = *stdout_load.lock().unwrap();
    let (init_s, init_source) = match (from_health, from_stdout) {
        (Some(s), _) => (Some(s), Some("health".to_string())),
        (None, Some(s)) => (Some(s), Some("stdout".to_string())),
        (None, None) => (None, None),
    };
    let context = match options.context_len {
        None => None,
        Some(n) => {
            let chat = options
                .chat_url
                .as_deref()
                .ok_or("--context-len needs --chat-url")?;
            Some(fill_context(&rt, &fill(chat), n, options, pid)?)
        }
    };
    drop(tree);
    let mut note = String::new();
    if context.is_none() {
        note.push_str(NOTE_UNTOUCHED);
        note.push(' ');
    }
    note.push_str(NOTE_RSS_PSS);
    Ok(InitMemory {
        ready_s,
        ready_resolution_ms: options.period.as_millis() as u64,
        init_s,
        init_source,
        period_ms: options.period.as_millis() as u64,
        samples,
        peak_rss_anon_kib: peak,
        root_vm_hwm_kib,
        at_ready,
        root_at_ready,
        context,
        url,
        note,
    })
}

fn fill_context(
    rt: &tokio::runtime::Runtime,
    chat_url: &str,
    n: usize,
    options: &Options,
    pid: u32,
) -> Result<ContextFill, ProbeError> {
    let mut body = serde_json::json!({
        "messages": [{"role": "user", "content": filler_prompt(n)}],
        "max_tokens": 1,
        "temperature": 0,
    });
    if let Some(m) = &options.model {
        body["model"] = Value::from(m.clone());
    }
    let client = http_client(options.timeout)?;
    let started = Instant::now();
    // Sample the tree while the request runs: the fill's peak is its own.
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let done = Arc::clone(&done);
        let period = options.period;
        std::thread::spawn(move || {
            let mut peak = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                peak = smaps::tree_rss_anon_kib(pid).max(peak);
                std::thread::sleep(period);
            }
            peak
        })
    };
    let response = rt.block_on(async {
        let r = client
            .post(chat_url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string())
            .send()
            .await
            .map_err(|e| ProbeError::because(format!("POST {chat_url}"), e))?;
        let status = r.status();
        let text = r
            .text()
            .await
            .map_err(|e| ProbeError::because(format!("POST {chat_url}"), e))?;
        if !status.is_success() {
            return Err(ProbeError::Failed(format!(
                "POST {chat_url}: HTTP {status}: {text}"
            )));
        }
        serde_json::from_str::<Value>(&text)
            .map_err(|e| ProbeError::because(format!("POST {chat_url}: not JSON"), e))
    });
    let request_s = started.elapsed().as_secs_f64();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let sampled_peak = sampler.join().unwrap_or(0);
    let response = response?;
    let prompt_tokens = response["usage"]["prompt_tokens"].as_u64();
    Ok(ContextFill {
        asked_tokens: n,
        prompt_tokens,
        reached: prompt_tokens.map(|p| p >= n as u64),
        request_s,
        peak_rss_anon_kib: sampled_peak.max(smaps::tree_rss_anon_kib(pid)),
        tree: smaps::tree_resident(pid),
        root: smaps::process_resident(pid).unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_device_servers_load_ms_is_found_under_model() {
        let health = serde_json::json!({"status": "ok", "model": {"id": "m", "load_ms": 812.5}});
        assert_eq!(load_time_s(&health), Some(0.8125));
        assert_eq!(load_time_s(&serde_json::json!({"status": "ok"})), None);
    }

    #[test]
    fn origin_keeps_scheme_host_and_port() {
        assert_eq!(
            origin("http://127.0.0.1:8080/health"),
            "http://127.0.0.1:8080"
        );
        assert_eq!(origin("http://h:1"), "http://h:1");
    }

    #[test]
    fn the_filler_prompt_has_n_words() {
        assert_eq!(filler_prompt(3), "hello hello hello");
        assert_eq!(filler_prompt(2048).split(' ').count(), 2048);
    }
}
