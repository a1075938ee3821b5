//! `droidscore-device serve` as a client meets it: refusing a missing or
//! corrupt model before any port opens, then — on the default model, fetched
//! by the test command (`droidscore-device fetch-model`) — `/health`,
//! `/v1/models`, a chat completion with usage, and OpenAI-style errors.
//! Without the default model in the cache this test fails, saying so.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_droidscore-device"));
    c.env("RUST_LOG", "warn");
    c
}

/// A server child process, killed when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(model: &std::path::Path) -> Server {
    let mut child = bin()
        .args([
            "serve",
            "--threads",
            "2",
            "--listen",
            "127.0.0.1:0",
            "--model",
        ])
        .arg(model)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("http://")
        .and_then(|s| s.strip_suffix("/v1"))
        .unwrap_or_else(|| panic!("no base URL on stdout: {line:?}"))
        .to_string();
    Server { child, addr }
}

/// One HTTP/1.1 request; (status, JSON body).
fn http(addr: &str, method: &str, path: &str, body: Option<&str>) -> (u16, serde_json::Value) {
    let mut s = TcpStream::connect(addr).unwrap();
    let body = body.unwrap_or("");
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    s.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let json = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b)
        .unwrap_or("");
    (
        status,
        serde_json::from_str(json).unwrap_or(serde_json::Value::Null),
    )
}

#[test]
fn a_missing_or_corrupt_model_is_refused_naming_the_file_before_any_port_opens() {
    let dir = std::env::temp_dir().join(format!("droidscore-device-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("nothing.gguf");
    let out = bin()
        .args(["serve", "--listen", "127.0.0.1:0", "--model"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(out.stdout.is_empty(), "a port opened");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(missing.to_str().unwrap()), "{err}");

    let corrupt = dir.join("corrupt.gguf");
    std::fs::write(&corrupt, b"GGUF\x03\x00\x00\x00\x00\x00").unwrap();
    let out = bin()
        .args(["serve", "--listen", "127.0.0.1:0", "--model"])
        .arg(&corrupt)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(out.stdout.is_empty(), "a port opened");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(corrupt.to_str().unwrap()), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_default_model_serves_chat_completions_with_usage_and_openai_errors() {
    let model = droidscore_device::model::default_path(&droidscore_device::model::cache_dir());
    assert!(
        model.exists(),
        "the default model is not at {}: run `cargo run -p droidscore-device -- fetch-model` (scripts/test.sh does)",
        model.display()
    );
    let server = start(&model);
    let addr = server.addr.as_str();

    let (status, health) = http(addr, "GET", "/health", None);
    assert_eq!(status, 200, "{health}");
    assert_eq!(health["status"], "ok");
    assert_eq!(health["model"]["quantization"], "Q4_1");
    assert_eq!(health["model"]["architecture"], "llama");
    assert_eq!(health["model"]["threads"], 2);
    assert!(health["model"]["memory"]["rss_kib"].as_u64().unwrap() > 0);

    let (status, models) = http(addr, "GET", "/v1/models", None);
    assert_eq!(status, 200);
    let id = models["data"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(id, "SmolLM2-135M-Instruct.Q4_1");

    let request = serde_json::json!({
        "model": id,
        "messages": [{"role": "user", "content": "What is the capital of France?"}],
        "max_tokens": 8,
        "temperature": 0,
    });
    let (status, reply) = http(
        addr,
        "POST",
        "/v1/chat/completions",
        Some(&request.to_string()),
    );
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["object"], "chat.completion");
    let content = reply["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(!content.is_empty());
    let usage = &reply["usage"];
    assert!(usage["prompt_tokens"].as_u64().unwrap() > 5, "{usage}");
    let completion = usage["completion_tokens"].as_u64().unwrap();
    assert!((1..=8).contains(&completion), "{usage}");
    assert_eq!(
        usage["total_tokens"].as_u64().unwrap(),
        usage["prompt_tokens"].as_u64().unwrap() + completion
    );
    // Temperature 0 is deterministic: the same answer twice.
    let (_, again) = http(
        addr,
        "POST",
        "/v1/chat/completions",
        Some(&request.to_string()),
    );
    assert_eq!(again["choices"][0]["message"]["content"], content);

    let (status, err) = http(addr, "POST", "/v1/chat/completions", Some("{not json"));
    assert_eq!(status, 400);
    assert_eq!(err["error"]["type"], "invalid_request_error");
    let (status, err) = http(
        addr,
        "POST",
        "/v1/chat/completions",
        Some(r#"{"model": "gpt-9", "messages": [{"role": "user", "content": "hi"}]}"#),
    );
    assert_eq!(
        (status, err["error"]["param"].as_str()),
        (404, Some("model"))
    );
    let (status, err) = http(addr, "GET", "/v2/nothing", None);
    assert_eq!(status, 404);
    assert!(err["error"]["message"]
        .as_str()
        .unwrap()
        .contains("no such route"));
}
