//! Issue 30's model-server defects, each pinned on the default model: a
//! client that hangs up mid-generation, schemas the grammar engine cannot
//! follow and images for a text-only model, the smaller refusals (bytes
//! after the body, `max_tokens: 0`, a body too large, a wrong method), all
//! as OpenAI's JSON error, and the bearer token a deployed server requires.

use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::support::env::{default_model, TestEnv};
use crate::support::http::{chat, http, http_with};

/// A chat long enough to be cut off: up to `max_tokens` tokens of a story.
pub fn long_chat(max_tokens: u32) -> String {
    serde_json::json!({
        "messages": [{"role": "user", "content": "Write a long story about a cat who sails the sea."}],
        "max_tokens": max_tokens,
    })
    .to_string()
}

/// Send `body` as a chat completion and hang up after `after`, reading nothing.
pub fn hang_up_after(addr: &str, body: &str, after: Duration) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST /v1/chat/completions HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    std::thread::sleep(after);
    drop(s);
}

/// The engine's thread panicked on its response channel when a client hung
/// up mid-generation (mistral.rs's `SendError` unwrapped), and the next
/// request got `500 the engine closed the channel` after 16–65 s.
#[test]
fn a_client_that_hangs_up_mid_generation_costs_only_its_own_request() {
    let env = TestEnv::new("serve-hang-up");
    let server = env.serve(&default_model(), &[]);
    let addr = server.addr.as_str();
    let short = serde_json::json!({
        "messages": [{"role": "user", "content": "Say hi"}],
        "max_tokens": 4,
    });
    let started = Instant::now();
    let (status, reply) = chat(addr, &short);
    assert_eq!(status, 200, "{reply}");
    let normal = started.elapsed();
    for after in [300, 800, 1500, 3000] {
        hang_up_after(addr, &long_chat(2000), Duration::from_millis(after));
        let started = Instant::now();
        let (status, reply) = chat(addr, &short);
        let took = started.elapsed();
        eprintln!("after a hang-up at {after} ms: {status} in {took:?} (normally {normal:?})");
        assert_eq!(status, 200, "after a hang-up at {after} ms: {reply}");
        // The abandoned generation is cancelled, not run to its 2,000
        // tokens (minutes): what is left is its prompt step at most.
        assert!(
            took < normal * 4 + Duration::from_secs(15),
            "the next request took {took:?} (normally {normal:?})"
        );
    }
}

fn constrained(schema: serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 8,
        "response_format": {"type": "json_schema", "json_schema": {"name": "s", "schema": schema}},
    })
}

/// `{"$ref": "#"}` and a required property that recurses were 500s with
/// llguidance's parser state; an image for a text-only model a 500 from the
/// chat template. Each is the client's error: 400 naming the field.
#[test]
fn schemas_that_cannot_be_followed_and_images_for_a_text_model_are_400s_naming_the_field() {
    let env = TestEnv::new("serve-client-errors");
    let server = env.serve(&default_model(), &[]);
    let addr = server.addr.as_str();
    let schema_param = Some("response_format.json_schema.schema");
    let itself = constrained(serde_json::json!({"$ref": "#"}));
    let recursive = constrained(serde_json::json!({
        "$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}, "required": ["next"]}},
        "$ref": "#/$defs/n",
    }));
    for request in [itself, recursive] {
        let (status, err) = chat(addr, &request);
        assert_eq!(status, 400, "{err}");
        assert_eq!(err["error"]["param"].as_str(), schema_param, "{err}");
        let message = err["error"]["message"].as_str().unwrap();
        assert!(
            !message.contains("<state>") && !message.contains("candle_core"),
            "{message}"
        );
    }
    // 1x1 PNG.
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYGAAAAAEAAH2FzhVAAAAAElFTkSuQmCC";
    let (status, err) = chat(
        addr,
        &serde_json::json!({"messages": [{"role": "user", "content": [
            {"type": "text", "text": "what is this?"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{png}")}},
        ]}], "max_tokens": 4}),
    );
    assert_eq!(
        (status, err["error"]["param"].as_str()),
        (400, Some("messages[0].content[1]")),
        "{err}"
    );
    // The server still answers.
    let (status, reply) = chat(
        addr,
        &serde_json::json!({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}),
    );
    assert_eq!(status, 200, "{reply}");
}

fn is_openai_error(err: &serde_json::Value) -> bool {
    let e = &err["error"];
    e["message"].is_string()
        && e["type"].is_string()
        && e.get("param").is_some()
        && e.get("code").is_some()
}

/// Bytes after the JSON body were ignored, `max_tokens: 0` answered one
/// token, a 20 MB body got a plain-text 413 and a wrong method an empty
/// 405: every refusal is now OpenAI's JSON error.
#[test]
fn every_refusal_is_an_openai_json_error() {
    let env = TestEnv::new("serve-refusals");
    let server = env.serve(&default_model(), &[]);
    let addr = server.addr.as_str();
    let path = "/v1/chat/completions";
    let hi = r#"{"messages":[{"role":"user","content":"hi"}],"max_tokens":2}"#;
    let (status, err) = http(addr, "POST", path, Some(&format!("{hi} trailing garbage")));
    assert_eq!(
        (status, err["error"]["param"].as_str()),
        (400, Some("body")),
        "{err}"
    );
    let zero = r#"{"messages":[{"role":"user","content":"hi"}],"max_tokens":0}"#;
    let (status, err) = http(addr, "POST", path, Some(zero));
    assert_eq!(
        (status, err["error"]["param"].as_str()),
        (400, Some("max_tokens")),
        "{err}"
    );
    let big = vec![b' '; 20 << 20];
    let (status, headers, err) = http_with(addr, "POST", path, &[], &big);
    assert_eq!(status, 413, "{headers}");
    assert!(
        headers.to_ascii_lowercase().contains("application/json"),
        "{headers}"
    );
    assert!(is_openai_error(&err), "{err}");
    for (method, route) in [("GET", path), ("DELETE", "/health"), ("POST", "/v1/models")] {
        let (status, headers, err) = http_with(addr, method, route, &[], b"");
        assert_eq!(status, 405, "{method} {route}: {headers}");
        assert!(is_openai_error(&err), "{method} {route}: {err}");
    }
    let (status, reply) = http(addr, "POST", path, Some(hi));
    assert_eq!(status, 200, "{reply}");
}

/// The server listened without a credential and `/health` told any caller
/// the model's path and the server's memory; with a token (as `device
/// deploy` starts it) every route needs `Authorization: Bearer TOKEN`.
#[test]
fn with_a_token_file_every_route_needs_the_bearer_token() {
    let env = TestEnv::new("serve-token");
    let token = "3f9c2a7d1e6b48c0a5d4e3f2b1c0d9e8";
    let file = env.write("token", format!("{token}\n").as_bytes());
    let server = env.serve(&default_model(), &["--token-file", file.to_str().unwrap()]);
    let addr = server.addr.as_str();
    let bearer = format!("Authorization: Bearer {token}");
    for (method, route) in [
        ("GET", "/health"),
        ("GET", "/v1/models"),
        ("POST", "/v1/chat/completions"),
    ] {
        for headers in [
            &[][..],
            &["Authorization: Bearer 3f9c2a7d1e6b48c0a5d4e3f2b1c0d9e9"][..],
        ] {
            let (status, _, err) = http_with(addr, method, route, headers, b"{}");
            assert_eq!(status, 401, "{method} {route} {headers:?}: {err}");
            assert_eq!(err["error"]["code"], "invalid_api_key", "{err}");
            assert!(!err.to_string().contains(".gguf"), "{err}");
        }
    }
    let (status, _, health) = http_with(addr, "GET", "/health", &[&bearer], b"");
    assert_eq!(status, 200, "{health}");
    assert!(health["model"]["path"].is_string(), "{health}");
    let body = r#"{"messages":[{"role":"user","content":"hi"}],"max_tokens":2}"#;
    let (status, _, reply) = http_with(
        addr,
        "POST",
        "/v1/chat/completions",
        &[&bearer],
        body.as_bytes(),
    );
    assert_eq!(status, 200, "{reply}");
    // A token too short to be one is refused before the model loads.
    let short = env.write("short", b"abc");
    let out = env
        .device()
        .args(["serve", "--listen", "127.0.0.1:0", "--token-file"])
        .arg(&short)
        .code(droidscore_device::exit::FAILED);
    assert!(out.stdout.is_empty(), "a port opened");
}
