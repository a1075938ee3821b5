//! `droidscore device deploy|stop` and `run --on-device` against the virtual
//! phone through a private adb server (real Debian `adb`; fails saying so
//! without it). The phone records the background server and runs nothing;
//! the test plays that server itself, listening on 127.0.0.1:PORT, which
//! the virtual phone's `tcp:` service reaches as a real phone's loopback
//! (its loopback is this machine's). The stand-in binary is an aarch64 ELF
//! header and some bytes; the stand-in model is bytes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use droidscore::exit;
use droidscore::store::Store;
use droidscore_phone::adb::{free_port, PrivateAdbServer};

use super::rig::{droidscore, phone};
use crate::support::{TestCommand, TestEnv};

/// A file that looks like an aarch64 executable to `deploy`'s check.
fn stand_in_binary(dir: &Path) -> PathBuf {
    let mut bytes = vec![0u8; 64];
    bytes[..4].copy_from_slice(b"\x7fELF");
    bytes[4] = 2; // 64-bit
    bytes[5] = 1; // little-endian
    bytes[18..20].copy_from_slice(&183u16.to_le_bytes()); // EM_AARCH64
    bytes.extend((0..50_000u32).map(|i| (i * 7 % 251) as u8));
    let path = dir.join("droidscore-device-aarch64");
    std::fs::write(&path, bytes).unwrap();
    path
}

fn stand_in_model(dir: &Path) -> PathBuf {
    let bytes: Vec<u8> = (0..300_001u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
        .collect();
    let path = dir.join("stand-in.Q4_1.gguf");
    std::fs::write(&path, bytes).unwrap();
    path
}

/// What `/health` of the stand-in server says.
fn health() -> serde_json::Value {
    serde_json::json!({
        "status": "ok",
        "model": {
            "id": "stand-in.Q4_1",
            "path": "/data/local/tmp/stand-in.Q4_1.gguf",
            "format": "gguf",
            "architecture": "llama",
            "quantization": "Q4_1",
            "requantized": null,
            "layout": null,
            "dtype": "f32",
            "weights": "packed",
            "tokenizer": null,
            "context_length": 8192,
            "threads": 8,
            "target_features": ["neon"],
            "load_ms": 1234,
            "memory": {"rss_kib": 4, "rss_anon_kib": 3, "rss_file_kib": 1, "peak_rss_kib": 4},
        },
        "memory_now": {"rss_kib": 4, "rss_anon_kib": 3, "rss_file_kib": 1, "peak_rss_kib": 4},
    })
}

/// The phone's server, played by the test: minimal HTTP/1.1, one request
/// per connection. `/health` answers 503 `loading` until `ready`.
struct PhoneServer {
    port: u16,
    ready: Arc<AtomicBool>,
    /// (path, whether it was answered as ready, when).
    seen: Arc<Mutex<Vec<(String, bool, Instant)>>>,
    /// The process died: every connection is closed unanswered.
    down: Arc<AtomicBool>,
    /// It dies (once) when this many chat completions have been answered.
    dies_after: Arc<AtomicUsize>,
    /// Each request's bearer token (`Authorization: Bearer T`), if any; a
    /// request without one is answered 401, as the real server does.
    bearers: Arc<Mutex<Vec<Option<String>>>>,
}

impl PhoneServer {
    fn start() -> PhoneServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let ready = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let down = Arc::new(AtomicBool::new(false));
        let dies_after = Arc::new(AtomicUsize::new(usize::MAX));
        let bearers = Arc::new(Mutex::new(Vec::new()));
        let server = PhoneServer {
            port,
            ready,
            seen,
            down,
            dies_after,
            bearers,
        };
        let shared = server.shared();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let shared = shared.shared();
                std::thread::spawn(move || answer(stream, &shared));
            }
        });
        server
    }

    /// Another handle on the same state (for the serving threads).
    fn shared(&self) -> PhoneServer {
        PhoneServer {
            port: self.port,
            ready: Arc::clone(&self.ready),
            seen: Arc::clone(&self.seen),
            down: Arc::clone(&self.down),
            dies_after: Arc::clone(&self.dies_after),
            bearers: Arc::clone(&self.bearers),
        }
    }

    fn bearers(&self) -> Vec<Option<String>> {
        self.bearers.lock().unwrap().clone()
    }

    fn completions(&self) -> usize {
        self.seen()
            .iter()
            .filter(|(p, _, _)| p == "/v1/chat/completions")
            .count()
    }

    fn seen(&self) -> Vec<(String, bool, Instant)> {
        self.seen.lock().unwrap().clone()
    }
}

fn answer(stream: TcpStream, server: &PhoneServer) {
    let (ready, seen) = (&*server.ready, &*server.seen);
    if server.down.load(Ordering::SeqCst) {
        return; // closed unanswered, as by a process that is gone
    }
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .to_string();
    let mut length = 0usize;
    let mut bearer = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("authorization") {
                bearer = value.trim().strip_prefix("Bearer ").map(str::to_string);
            }
        }
    }
    server.bearers.lock().unwrap().push(bearer.clone());
    let mut body = vec![0u8; length];
    let _ = reader.read_exact(&mut body);
    let is_ready = ready.load(Ordering::SeqCst);
    if path == "/v1/chat/completions"
        && server.completions() >= server.dies_after.load(Ordering::SeqCst)
    {
        // Once: the server started again lives.
        server.dies_after.store(usize::MAX, Ordering::SeqCst);
        server.down.store(true, Ordering::SeqCst);
        return;
    }
    seen.lock()
        .unwrap()
        .push((path.clone(), is_ready, Instant::now()));
    let (status, body) = match (path.as_str(), is_ready) {
        _ if bearer.is_none() => (
            "401 Unauthorized",
            r#"{"error":{"message":"no token","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#.to_string(),
        ),
        ("/health", true) => ("200 OK", health().to_string()),
        ("/health", false) => (
            "503 Service Unavailable",
            r#"{"status":"loading"}"#.to_string(),
        ),
        ("/v1/models", _) => (
            "200 OK",
            serde_json::json!({"object": "list", "data": [{"id": "stand-in.Q4_1", "object": "model"}]})
                .to_string(),
        ),
        ("/v1/chat/completions", _) => (
            "200 OK",
            serde_json::json!({
                "id": "c", "object": "chat.completion", "created": 0, "model": "stand-in.Q4_1",
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
                    "content": "Reason: done.\nAction: {\"action_type\": \"status\", \"goal_status\": \"complete\"}"}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            })
            .to_string(),
        ),
        _ => ("404 Not Found", "{}".to_string()),
    };
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// `adb -s SERIAL ARGS…`, required to succeed; its stdout.
fn adb_ok(adb: &PrivateAdbServer, serial: &str, args: &[&str]) -> String {
    let out = adb.adb(&[&["-s", serial], args].concat()).unwrap();
    assert!(out.status.success(), "adb {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn jobs(adb: &PrivateAdbServer, serial: &str) -> serde_json::Value {
    serde_json::from_str(&adb_ok(adb, serial, &["shell", "droidscore-sim jobs"])).unwrap()
}

/// Wait (up to 20 s) for the first background job on the phone.
fn wait_for_job(adb: &PrivateAdbServer, serial: &str) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let jobs = jobs(adb, serial);
        if let Some(job) = jobs.as_array().and_then(|j| j.last()) {
            return job.clone();
        }
        assert!(Instant::now() < deadline, "no background job started");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A child killed if the test fails before waiting for it.
struct Running(Option<Child>);

impl Running {
    fn spawn(command: &mut TestCommand) -> Running {
        Running(Some(
            command
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn(),
        ))
    }

    fn child(&mut self) -> &mut Child {
        self.0.as_mut().unwrap()
    }

    fn wait(mut self) -> Output {
        self.0.take().unwrap().wait_with_output().unwrap()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(child) = self.0.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `droidscore run --on-device` on the phone `serial` with the stand-in
/// server's port, binary and model; the caller adds the rest.
fn run_on_device<'a>(
    dir: &'a TestEnv,
    adb: &PrivateAdbServer,
    serial: &str,
    port: &str,
    binary: &Path,
    model: &Path,
) -> TestCommand<'a> {
    let mut command = droidscore(dir, adb);
    command
        .args(["run", "--phone", "adb", "--serial", serial, "--on-device"])
        .args(["--device-port", port])
        .arg("--device-bin")
        .arg(binary)
        .arg("--device-model")
        .arg(model);
    command
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Deploy pushes both files byte for byte, starts exactly the serve line,
/// forwards a host port to the phone's, and prints the base URL only once
/// `/health` answered ok — through the forward, to the server the test plays.
/// Then `run --on-device` reuses the healthy deployment and records it.
#[test]
fn deploy_pushes_starts_forwards_and_prints_the_url_once_health_answers_through_the_forward() {
    let started = Instant::now();
    let dir = TestEnv::new("device-deploy");
    let (adb, phone) = phone(&dir);
    let (binary, model) = (stand_in_binary(dir.path()), stand_in_model(dir.path()));
    let server = PhoneServer::start();
    let port = server.port.to_string();

    let mut deploy = Running::spawn(
        droidscore(&dir, &adb)
            .args(["device", "deploy", "--serial", &phone.addr, "--port", &port])
            .args(["--wait", "30", "--threads", "2"])
            .arg("--binary")
            .arg(&binary)
            .arg("--model")
            .arg(&model),
    );
    let stdout = deploy.child().stdout.take().unwrap();
    let printed = std::thread::spawn(move || {
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        (line, Instant::now())
    });

    let job = wait_for_job(&adb, &phone.addr);
    // Let deploy poll a `loading` server for a while before it is ready.
    let polled_early = Instant::now() + Duration::from_secs(10);
    while !server.seen().iter().any(|(p, _, _)| p == "/health") {
        assert!(Instant::now() < polled_early, "deploy never asked /health");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(600));
    assert!(!printed.is_finished(), "printed before /health was ok");
    let ready_at = Instant::now();
    server.ready.store(true, Ordering::SeqCst);
    let (line, printed_at) = printed.join().unwrap();
    let out = deploy.wait();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "deploy: {stderr}");
    assert!(printed_at >= ready_at);

    // The serve line, exactly, in /data/local/tmp, with its log.
    assert_eq!(
        job,
        serde_json::json!({
            "pid": job["pid"],
            "argv": ["nohup", "./droidscore-device", "serve",
                     "--model", "/data/local/tmp/stand-in.Q4_1.gguf",
                     "--listen", format!("127.0.0.1:{port}"),
                     "--token-file", "/data/local/tmp/droidscore-device.token",
                     "--threads", "2"],
            "cwd": "/data/local/tmp",
            "stdin": "/dev/null",
            "stdout": "/data/local/tmp/droidscore-device.log",
            "stderr": "/data/local/tmp/droidscore-device.log",
            "running": true,
        })
    );
    // Both files arrived byte for byte (read back with `adb pull`).
    for (local, remote) in [
        (&binary, "/data/local/tmp/droidscore-device"),
        (&model, "/data/local/tmp/stand-in.Q4_1.gguf"),
    ] {
        let back = dir.path().join("pulled");
        adb_ok(&adb, &phone.addr, &["pull", remote, back.to_str().unwrap()]);
        assert!(
            std::fs::read(&back).unwrap() == std::fs::read(local).unwrap(),
            "{remote} differs"
        );
    }

    // The URL is the host's end of an adb forward to the phone's port, not
    // the port the test's server listens on: every request the server saw
    // came through adb.
    let base_url = line.trim();
    let local: u16 = base_url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|r| r.strip_suffix("/v1"))
        .unwrap_or_else(|| panic!("stdout: {line:?}"))
        .parse()
        .unwrap();
    assert_ne!(local, server.port);
    let forwards = adb.text(&["forward", "--list"]).unwrap();
    assert!(
        forwards
            .lines()
            .any(|l| l == format!("{} tcp:{local} tcp:{port}", phone.addr)),
        "{forwards}"
    );
    let seen = server.seen();
    assert!(seen.iter().any(|(p, ready, _)| p == "/health" && !ready));
    assert!(seen.iter().any(|(p, ready, _)| p == "/health" && *ready));
    assert!(seen.iter().any(|(p, _, _)| p == "/v1/models"));
    assert!(stderr.contains("model stand-in.Q4_1 (Q4_1)"), "{stderr}");

    // run --on-device: the same files, the deployment answers: reused, not restarted.
    let store = dir.path().join("runs.sqlite");
    let out = run_on_device(&dir, &adb, &phone.addr, &port, &binary, &model)
        .args(["--device-threads", "2"])
        .args([
            "--tasks",
            "wifi_on",
            "--variants",
            "base",
            "--run-id",
            "phone",
        ])
        .arg("--store")
        .arg(&store)
        .ok();
    assert!(text(&out).contains("reused"), "{}", text(&out));
    assert_eq!(jobs(&adb, &phone.addr).as_array().unwrap().len(), 1);
    let run = Store::open_existing(&store)
        .unwrap()
        .run("phone")
        .unwrap()
        .unwrap();
    assert_eq!(run.config["base_url"], "on-device");
    assert_eq!(run.config["model"], "stand-in.Q4_1");
    assert_eq!(run.config["no_image"], true);
    assert_eq!(
        run.config["device_server"],
        serde_json::json!({
            "id": "stand-in.Q4_1",
            "path": "/data/local/tmp/stand-in.Q4_1.gguf",
            "format": "gguf",
            "architecture": "llama",
            "quantization": "Q4_1",
            "dtype": "f32",
            "threads": 8,
            "target_features": ["neon"],
        })
    );
    assert!(server
        .seen()
        .iter()
        .any(|(p, _, _)| p == "/v1/chat/completions"));
    // Every request, deploy's and the run's agent's, carried the token the
    // phone holds, readable by the shell user only.
    let token = adb_ok(
        &adb,
        &phone.addr,
        &["shell", "cat", "/data/local/tmp/droidscore-device.token"],
    );
    let token = token.trim();
    assert_eq!(token.len(), 64, "{token:?}");
    let bearers = server.bearers();
    assert!(
        bearers.iter().all(|b| b.as_deref() == Some(token)),
        "{bearers:?}"
    );
    eprintln!("deploy test took {:?}", started.elapsed());
}

/// Nothing answers: deploy gives up after `--wait` naming the phone's log
/// and showing its tail; `device stop` kills the job and removes the
/// forward; a missing default model is named.
#[test]
fn deploy_times_out_naming_the_log_and_stop_kills_the_job_and_removes_the_forward() {
    let started = Instant::now();
    let dir = TestEnv::new("device-deploy-timeout");
    let (adb, phone) = phone(&dir);
    let binary = stand_in_binary(dir.path());

    // No --model, and no default model in the cache: named, before any push.
    let out = droidscore(&dir, &adb)
        .args(["device", "deploy", "--serial", &phone.addr])
        .arg("--binary")
        .arg(&binary)
        .code(exit::BAD_INPUT);
    let missing = dir.cache().join("models/SmolLM2-135M-Instruct.Q4_1.gguf");
    assert!(
        text(&out).contains(&format!("{}: no such file", missing.display())),
        "{}",
        text(&out)
    );

    let model = stand_in_model(dir.path());
    let port = free_port().to_string();
    let deploy = Running::spawn(
        droidscore(&dir, &adb)
            .args(["device", "deploy", "--serial", &phone.addr, "--port", &port])
            .args(["--wait", "3"])
            .arg("--binary")
            .arg(&binary)
            .arg("--model")
            .arg(&model),
    );
    // What the server would have written before failing.
    let job = wait_for_job(&adb, &phone.addr);
    let log = dir.path().join("log");
    std::fs::write(&log, "loading stand-in.Q4_1.gguf\nerror: out of memory\n").unwrap();
    adb_ok(
        &adb,
        &phone.addr,
        &[
            "push",
            log.to_str().unwrap(),
            "/data/local/tmp/droidscore-device.log",
        ],
    );
    let out = deploy.wait();
    assert_eq!(out.status.code(), Some(exit::PHONE), "{}", text(&out));
    assert!(out.stdout.is_empty(), "no URL on a failure: {}", text(&out));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("did not answer /health"), "{said}");
    assert!(said.contains("within 3 s"), "{said}");
    assert!(
        said.contains("/data/local/tmp/droidscore-device.log on the phone:\nloading stand-in.Q4_1.gguf\nerror: out of memory"),
        "{said}"
    );
    let forwards = adb.text(&["forward", "--list"]).unwrap();
    assert!(forwards.contains(&format!("tcp:{port}")), "{forwards}");

    let out = droidscore(&dir, &adb)
        .args(["device", "stop", "--serial", &phone.addr])
        .ok();
    let pid = job["pid"].as_u64().unwrap();
    assert!(
        text(&out).contains(&format!("stopped droidscore-device (pid {pid}")),
        "{}",
        text(&out)
    );
    assert_eq!(jobs(&adb, &phone.addr)[0]["running"], false);
    let forwards = adb.text(&["forward", "--list"]).unwrap();
    assert!(!forwards.contains(&format!("tcp:{port}")), "{forwards}");
    // Stopping again finds nothing to stop.
    let out = droidscore(&dir, &adb)
        .args(["device", "stop", "--serial", &phone.addr])
        .ok();
    assert!(
        text(&out).contains("no droidscore-device deployed"),
        "{}",
        text(&out)
    );
    eprintln!("timeout test took {:?}", started.elapsed());
}

/// The model server on the phone dies mid-run (after 3 answers): the failed
/// attempt's recovery finds `/health` unanswered, deploys the server again
/// (once per run), and the episode in flight runs again; the run completes
/// with every episode once and none lost.
#[test]
fn an_on_device_server_that_dies_mid_run_is_started_again_once_and_the_run_completes() {
    let dir = TestEnv::new("device-restart");
    let (adb, phone) = phone(&dir);
    let (binary, model) = (stand_in_binary(dir.path()), stand_in_model(dir.path()));
    let server = PhoneServer::start();
    server.ready.store(true, Ordering::SeqCst);
    server.dies_after.store(3, Ordering::SeqCst);
    let port = server.port.to_string();
    // The phone starting the server again (a second background job) brings
    // the test's server back.
    let restarted = {
        let (serial, back) = (phone.addr.clone(), server.shared());
        let port = adb.port();
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(120);
            while Instant::now() < deadline {
                let listed = std::process::Command::new("adb")
                    .args([
                        "-P",
                        &port.to_string(),
                        "-s",
                        &serial,
                        "shell",
                        "droidscore-sim jobs",
                    ])
                    .output()
                    .unwrap();
                let jobs: serde_json::Value =
                    serde_json::from_slice(&listed.stdout).unwrap_or_default();
                if jobs.as_array().is_some_and(|j| j.len() >= 2) {
                    back.down.store(false, Ordering::SeqCst);
                    return true;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            false
        })
    };
    let store = dir.path().join("runs.sqlite");
    let out = run_on_device(&dir, &adb, &phone.addr, &port, &binary, &model)
        .args(["--tasks", "wifi_*", "--run-id", "restart", "--store"])
        .arg(&store)
        .within(Duration::from_secs(180))
        .ok();
    let said = text(&out);
    assert!(
        restarted.join().unwrap(),
        "the server was never started again: {said}"
    );
    assert!(said.contains("starting it again (once per run)"), "{said}");
    assert!(said.contains("answers again"), "{said}");
    let episodes = Store::open_existing(&store)
        .unwrap()
        .episodes("restart")
        .unwrap();
    // wifi_*: 17 variants, each once; none lost to the server's death.
    let mut keys: Vec<_> = episodes.iter().map(|e| (&e.task, &e.variant)).collect();
    keys.dedup();
    assert_eq!(keys.len(), episodes.len(), "each episode once");
    assert_eq!(episodes.len(), 17, "{said}");
    assert!(
        episodes
            .iter()
            .all(|e| e.status != droidscore::store::EpisodeStatus::Infra),
        "{said}"
    );
    assert!(
        episodes.iter().any(|e| e.attempts == 2),
        "the episode in flight ran again"
    );
    assert_eq!(
        jobs(&adb, &phone.addr).as_array().unwrap().len(),
        2,
        "one restart"
    );
}
