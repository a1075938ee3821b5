//! `droidscore-device serve` as a client meets it: refusing a missing or
//! corrupt model before any port opens, then — on the default model, fetched
//! by the test command (`droidscore-device fetch-model`) — `/health`,
//! `/v1/models`, a chat completion with usage, and OpenAI-style errors.
//! Without the default model in the cache this test fails, saying so.

mod support {
    pub mod server;
}

use support::server::{bin, chat, http, start};

#[test]
fn a_missing_corrupt_or_misnamed_model_or_contradictory_flags_are_refused_before_any_port_opens() {
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

    // A mistyped model name lists the names; dense weights for a
    // safetensors model are refused (its dense arm is --quant none).
    let out = bin()
        .args(["serve", "--listen", "127.0.0.1:0", "--model", "qwen-coder"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("qwen2.5-coder-0.5b"), "{err}");
    let vlm = dir.join("vlm");
    std::fs::create_dir_all(&vlm).unwrap();
    std::fs::write(vlm.join("config.json"), "{}").unwrap();
    let out = bin()
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--weights",
            "f32",
            "--model",
        ])
        .arg(&vlm)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(out.stdout.is_empty(), "a port opened");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--quant none"), "{err}");
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
    let server = start(&model, &[]);
    let addr = server.addr.as_str();

    let (status, health) = http(addr, "GET", "/health", None);
    assert_eq!(status, 200, "{health}");
    assert_eq!(health["status"], "ok");
    assert_eq!(health["model"]["quantization"], "Q4_1");
    assert_eq!(health["model"]["architecture"], "llama");
    assert_eq!(health["model"]["threads"], 2);
    // Recorded choices: the file's packed weights, our tokenizer from its
    // own vocabulary and pre-tokenizer type.
    assert_eq!(health["model"]["weights"], "packed");
    assert_eq!(health["model"]["tokenizer"]["source"], "gguf");
    assert_eq!(health["model"]["tokenizer"]["pre"], "smollm");
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
    let (status, reply) = chat(addr, &request);
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
    let (_, again) = chat(addr, &request);
    assert_eq!(again["choices"][0]["message"]["content"], content);

    // logprobs: one entry per sampled token, natural-log, the greedy pick on
    // top; its tokens spell the answer.
    let mut with_logprobs = request.clone();
    with_logprobs["logprobs"] = true.into();
    with_logprobs["top_logprobs"] = 3.into();
    let (status, reply) = chat(addr, &with_logprobs);
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["choices"][0]["message"]["content"], content);
    let entries = reply["choices"][0]["logprobs"]["content"]
        .as_array()
        .unwrap();
    assert_eq!(entries.len() as u64, completion, "{reply}");
    let mut spelled = String::new();
    for e in entries {
        let top = e["top_logprobs"].as_array().unwrap();
        assert_eq!(top.len(), 3, "{e}");
        assert_eq!(e["token"], top[0]["token"], "{e}");
        let logprob = e["logprob"].as_f64().unwrap();
        assert!((-30.0..=0.0).contains(&logprob), "{e}");
        spelled.push_str(e["token"].as_str().unwrap());
    }
    assert_eq!(spelled.trim(), content.trim(), "{reply}");
    let (status, err) = chat(
        addr,
        &serde_json::json!({
            "messages": [{"role": "user", "content": "hi"}],
            "logprobs": true,
            "temperature": 0.7,
        }),
    );
    assert_eq!(
        (status, err["error"]["param"].as_str()),
        (400, Some("logprobs"))
    );

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
