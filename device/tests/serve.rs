//! `droidscore-device serve` as a client meets it: refusing a missing or
//! corrupt model before any port opens, then — on the default model, fetched
//! by the test command (`droidscore-device fetch-model`) — `/health`,
//! `/v1/models`, a chat completion with usage, and OpenAI-style errors;
//! `hardening` pins issue 30's defects (hang-ups, refusals, the token) and
//! `soak` abandons 40 requests at random points. The soaks (the prefix
//! cache over 12 requests and its control over 6, 200 abandoned requests)
//! are `#[ignore]`d here, each beside a bounded test of the same property:
//! scripts/serve-soaks.sh runs them.
//! Without the default model in the cache this test fails, saying so.

mod support;

#[path = "serve/hardening.rs"]
mod hardening;
#[path = "serve/soak.rs"]
mod soak;

use droidscore_device::exit;
use support::env::{default_model, text, TestEnv};
use support::http::{chat, http};

#[test]
fn a_missing_corrupt_or_misnamed_model_or_contradictory_flags_are_refused_before_any_port_opens() {
    let env = TestEnv::new("serve-refused");
    let serve = || {
        let mut command = env.device();
        command.args(["serve", "--listen", "127.0.0.1:0"]);
        command
    };
    let missing = env.join("nothing.gguf");
    let out = serve().arg("--model").arg(&missing).code(exit::FAILED);
    assert!(out.stdout.is_empty(), "a port opened");
    let err = text(&out.stderr);
    assert!(err.contains(missing.to_str().unwrap()), "{err}");

    let corrupt = env.write("corrupt.gguf", b"GGUF\x03\x00\x00\x00\x00\x00");
    let out = serve().arg("--model").arg(&corrupt).code(exit::FAILED);
    assert!(out.stdout.is_empty(), "a port opened");
    let err = text(&out.stderr);
    assert!(err.contains(corrupt.to_str().unwrap()), "{err}");

    // A mistyped model name lists the names; dense weights for a
    // safetensors model are refused (its dense arm is --quant none).
    let out = serve().args(["--model", "qwen-coder"]).code(exit::FAILED);
    let err = text(&out.stderr);
    assert!(err.contains("qwen2.5-coder-0.5b"), "{err}");
    env.write("vlm/config.json", "{}");
    let out = serve()
        .args(["--weights", "f32", "--model"])
        .arg(env.join("vlm"))
        .code(exit::FAILED);
    assert!(out.stdout.is_empty(), "a port opened");
    let err = text(&out.stderr);
    assert!(err.contains("--quant none"), "{err}");
}

/// The harness itself: the binary runs in the temp dir, with a home and a
/// cache inside it, a log filter, and nothing the binary reads inherited.
#[test]
fn the_binary_gets_a_home_and_cache_inside_the_temp_dir_and_a_log_filter() {
    let env = TestEnv::new("device-harness-hermetic");
    let command = env.device();
    let vars = command.vars();
    let value = |name: &str| {
        vars.iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("{name} unset: {vars:?}"))
    };
    for name in ["HOME", "XDG_CACHE_HOME", "DROIDSCORE_CACHE"] {
        let value = value(name);
        assert!(
            value.starts_with(env.path().to_str().unwrap()),
            "{name}={value}"
        );
    }
    assert_eq!(value("RUST_LOG"), "warn");
    for name in support::env::CLEARED {
        assert!(vars.contains(&(name.to_string(), None)), "{name}: {vars:?}");
    }
    assert_eq!(command.as_std().get_current_dir(), Some(env.path()));
}

#[test]
fn the_default_model_serves_chat_completions_with_usage_and_openai_errors() {
    let env = TestEnv::new("serve-chat");
    let server = env.serve(&default_model(), &[]);
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
    // The host reads this document as the contract's type: every field the
    // server wrote is in it, and it writes back unchanged (what a run stores).
    let typed = droidscore_contract::health::Health::from_json(&health)
        .unwrap_or_else(|e| panic!("{e}: {health:#}"));
    assert!(typed.is_ready() && typed.text_only());
    let model = typed.model.as_ref().unwrap();
    assert_eq!(model.quantization, "Q4_1");
    assert_eq!(model.threads, 2);
    assert!(typed.memory_now.unwrap().rss_anon_kib > 0);
    assert_eq!(serde_json::to_value(&typed).unwrap(), health);

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

// ---------------------------------------------------------------------------
// The prefix cache's budget, its counters, sampling, structured outputs.

const WORDS: &[&str] = &[
    "screen",
    "button",
    "settings",
    "network",
    "battery",
    "display",
    "sound",
    "window",
    "phone",
    "message",
    "contact",
    "camera",
    "gallery",
    "music",
    "clock",
    "alarm",
    "calendar",
    "weather",
    "browser",
    "search",
    "account",
    "privacy",
    "security",
    "location",
    "storage",
    "memory",
    "update",
    "system",
    "language",
    "keyboard",
    "wireless",
    "bluetooth",
    "airplane",
    "mode",
    "brightness",
    "volume",
    "ringtone",
    "vibrate",
    "notification",
    "history",
    "folder",
    "file",
    "download",
    "upload",
    "share",
    "delete",
    "open",
    "close",
    "back",
    "home",
];

/// A user message of about `words` words (one token each, roughly), that
/// differs from every other `i` from its first word on.
fn distinct_text(i: usize, words: usize) -> String {
    let body: Vec<&str> = (0..words)
        .map(|k| WORDS[(i * 7 + k * 13 + k * k) % WORDS.len()])
        .collect();
    format!("{} {i}: {}", WORDS[i % WORDS.len()], body.join(" "))
}

fn rss_anon_mib(health: &serde_json::Value) -> f64 {
    health["memory_now"]["rss_anon_kib"].as_u64().unwrap() as f64 / 1024.0
}

const MIB: f64 = 1024.0 * 1024.0;

/// `n` distinct ~500-token chats with 4 tokens each; each reply and /health after it.
fn distinct_requests(addr: &str, n: usize) -> Vec<(serde_json::Value, serde_json::Value)> {
    (0..n)
        .map(|i| {
            let request = serde_json::json!({
                "messages": [{"role": "user", "content": distinct_text(i, 440)}],
                "max_tokens": 4,
            });
            let (status, reply) = chat(addr, &request);
            assert_eq!(status, 200, "{reply}");
            let (_, health) = http(addr, "GET", "/health", None);
            eprintln!(
                "request {i}: prompt_tokens {}, cached {}, RssAnon {:.0} MiB, entries {}, held {:.1} MiB, resets {}",
                reply["usage"]["prompt_tokens"],
                reply["usage"]["prompt_tokens_details"]["cached_tokens"],
                rss_anon_mib(&health),
                health["prefix_cache"]["entries"],
                health["prefix_cache"]["bytes_held"].as_f64().unwrap() / MIB,
                health["prefix_cache"]["resets"],
            );
            (reply, health)
        })
        .collect()
}

/// Tokens of KV capacity an entry of `prompt` + 4 generated tokens holds
/// (mistral.rs allocates in blocks of 512).
fn entry_tokens(reply: &serde_json::Value) -> f64 {
    let fed = reply["usage"]["prompt_tokens"].as_u64().unwrap()
        + reply["usage"]["completion_tokens"].as_u64().unwrap()
        - 1;
    (fed.div_ceil(512) * 512) as f64
}

/// mistral.rs 0.8.1 kept a KV cache copy of every finished request and
/// never freed one on the CPU: +47 MiB a ~750-token request, without end.
/// With a 64 MiB budget the cache is emptied whenever the next entry would
/// not fit (every second ~500-token request, the warm-up's entry counted),
/// and RssAnon stays within the budget (plus the one sequence being run and
/// the allocator's slack) above the ready figure. 4 requests: the cache
/// fills and is emptied twice. On dense weights (see [`DENSE`]).
#[test]
fn the_prefix_cache_stays_within_its_budget_over_4_distinct_requests() {
    prefix_cache_stays_within_budget("serve-prefix-budget", DENSE, 4, 2);
}

/// The same over 12 requests and at least 4 resets, for memory that grows
/// slowly from one fresh engine to the next (glibc's arenas did: +548 MiB
/// over 24 requests), on the default (packed) weights. Minutes:
/// scripts/serve-soaks.sh runs it.
#[test]
#[ignore = "soak: run scripts/serve-soaks.sh"]
fn the_prefix_cache_stays_within_its_budget_over_12_distinct_requests() {
    prefix_cache_stays_within_budget("serve-prefix-budget-soak", "packed", 12, 4);
}

/// `--weights` for the bounded prefix cache tests: the entries and the
/// budget are the same as on the default packed weights (the KV cache is
/// f32 either way), and a ~500-token prompt takes ~4 s instead of ~29
/// (candle multiplies Q4_1 blocks with a scalar kernel: 16 prompt tokens/s
/// at 2 threads, 113 dense).
const DENSE: &str = "f32";

/// `n` distinct ~500-token requests on a server with a 64 MiB prefix
/// cache and `weights`: what is held never passes the budget, the cache is
/// emptied at least `min_resets` times, and RssAnon stays within the bound.
fn prefix_cache_stays_within_budget(name: &str, weights: &str, n: usize, min_resets: u64) {
    let env = TestEnv::new(name);
    let server = env.serve(
        &default_model(),
        &["--prefix-cache-mib", "64", "--weights", weights],
    );
    let addr = server.addr.as_str();
    let (_, ready) = http(addr, "GET", "/health", None);
    assert_eq!(ready["model"]["weights"], weights);
    let cache = &ready["prefix_cache"];
    assert_eq!(cache["enabled"], true, "{cache}");
    assert_eq!(cache["budget_bytes"], 64 << 20);
    // SmolLM2-135M: 30 layers, 3 KV heads of 64, f32.
    assert_eq!(cache["bytes_per_token"], 46_080, "{cache}");
    let runs = distinct_requests(addr, n);
    let per_entry = runs
        .iter()
        .map(|(r, _)| entry_tokens(r))
        .fold(0.0, f64::max)
        * 46_080.0
        / MIB;
    let healths: Vec<serde_json::Value> = runs.into_iter().map(|(_, h)| h).collect();
    let ready_mib = rss_anon_mib(&ready);
    let peak = healths.iter().map(rss_anon_mib).fold(0.0, f64::max);
    let last = healths.last().unwrap();
    // Held: never past the budget; the working cache of the last sequence
    // run and one preallocated cache may come on top; 32 MiB of slack.
    let bound = 64.0 + 2.0 * per_entry + 32.0;
    eprintln!(
        "{n} requests: RssAnon ready {ready_mib:.0} MiB, peak {peak:.0} MiB (+{:.0}), last {:.0} MiB; bound +{bound:.0} MiB; {} resets",
        peak - ready_mib,
        rss_anon_mib(last),
        last["prefix_cache"]["resets"]
    );
    for h in &healths {
        assert!(
            h["prefix_cache"]["bytes_held"].as_u64().unwrap() <= 64 << 20,
            "{}",
            h["prefix_cache"]
        );
    }
    assert!(
        last["prefix_cache"]["resets"].as_u64().unwrap() >= min_resets,
        "fewer than {min_resets} resets: {last}"
    );
    assert!(
        peak - ready_mib <= bound,
        "RssAnon grew {:.0} MiB over {n} requests, past the bound of {bound:.0}",
        peak - ready_mib
    );
    assert_eq!(last["prefix_cache"]["mismatches"], 0, "{last}");
}

/// The bound is not vacuous: with a budget too large to be reached, every
/// request leaves an entry (22.5 MiB for 512 tokens of capacity) and
/// RssAnon grows by what the bookkeeping counts; 3 requests keep 67.5 MiB.
/// On dense weights (see [`DENSE`]).
#[test]
fn without_a_reachable_budget_every_request_keeps_an_entry_and_memory_grows() {
    without_a_reachable_budget("serve-prefix-unbounded", DENSE, 3);
}

/// The same over 6 requests (135 MiB of entries) on the default weights,
/// the control that scripts/serve-soaks.sh runs beside the 12-request
/// budget soak.
#[test]
#[ignore = "soak: run scripts/serve-soaks.sh"]
fn without_a_reachable_budget_every_one_of_6_requests_keeps_an_entry_and_memory_grows() {
    without_a_reachable_budget("serve-prefix-unbounded-soak", "packed", 6);
}

/// `n` distinct ~500-token requests on a server with `weights` whose prefix
/// cache is never full: `n` entries kept, and RssAnon grown by at least 0.8
/// of them.
fn without_a_reachable_budget(name: &str, weights: &str, n: usize) {
    let env = TestEnv::new(name);
    let server = env.serve(
        &default_model(),
        &["--prefix-cache-mib", "100000", "--weights", weights],
    );
    let addr = server.addr.as_str();
    let (_, ready) = http(addr, "GET", "/health", None);
    assert_eq!(ready["model"]["weights"], weights);
    let entries_at_ready = ready["prefix_cache"]["entries"].as_u64().unwrap();
    let held_at_ready = ready["prefix_cache"]["bytes_held"].as_f64().unwrap();
    let runs = distinct_requests(addr, n);
    let expected: f64 = runs.iter().map(|(r, _)| entry_tokens(r)).sum::<f64>() * 46_080.0 / MIB;
    let last = &runs.last().unwrap().1;
    let cache = &last["prefix_cache"];
    assert_eq!(cache["resets"], 0, "{cache}");
    assert_eq!(
        cache["entries"].as_u64().unwrap(),
        entries_at_ready + n as u64,
        "{cache}"
    );
    let held = (cache["bytes_held"].as_f64().unwrap() - held_at_ready) / MIB;
    let grown = rss_anon_mib(last) - rss_anon_mib(&ready);
    eprintln!("{n} requests: {held:.0} MiB of entries kept, RssAnon +{grown:.0} MiB");
    assert!(
        (held - expected).abs() < 0.5,
        "{held} MiB held, {expected} expected: {cache}"
    );
    assert!(
        grown >= 0.8 * held,
        "RssAnon grew {grown:.0} MiB, less than the {held:.0} MiB of entries the bookkeeping counts"
    );
}

fn cached(reply: &serde_json::Value) -> u64 {
    reply["usage"]["prompt_tokens_details"]["cached_tokens"]
        .as_u64()
        .unwrap_or_else(|| panic!("no cached_tokens: {reply}"))
}

/// `usage.prompt_tokens_details.cached_tokens` is the prefix mistral.rs
/// reused, as its own cache search finds it. On dense weights (see
/// [`DENSE`]): its ~330-token prompts are computed twice.
#[test]
fn cached_tokens_report_the_prefix_the_cache_gave() {
    let env = TestEnv::new("serve-cached-tokens");
    let server = env.serve(&default_model(), &["--weights", DENSE]);
    let addr = server.addr.as_str();
    let system = format!("You operate a phone. {}", distinct_text(1, 300));
    let ask = |system: &str, user: &str| {
        let request = serde_json::json!({
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "max_tokens": 4,
        });
        let (status, reply) = chat(addr, &request);
        assert_eq!(status, 200, "{reply}");
        reply
    };
    let a = ask(&system, "Open the settings.");
    let b = ask(&system, "Turn on the wifi.");
    let (pa, pb) = (
        a["usage"]["prompt_tokens"].as_u64().unwrap(),
        b["usage"]["prompt_tokens"].as_u64().unwrap(),
    );
    eprintln!(
        "a: {pa} prompt tokens, {} cached, prompt {} ms; b: {pb}, {} cached, prompt {} ms",
        cached(&a),
        a["usage"]["prompt_time_ms"],
        cached(&b),
        b["usage"]["prompt_time_ms"]
    );
    // b shares the system prompt and the user turn's header with a: all of
    // it but the user's words came from the cache.
    assert!(
        cached(&b) > 300 && cached(&b) < pb && cached(&b) <= pa,
        "{b}"
    );
    assert!(
        b["usage"]["prompt_time_ms"].as_f64().unwrap()
            < a["usage"]["prompt_time_ms"].as_f64().unwrap(),
        "a cached prompt took no less time: {a} {b}"
    );
    // The same prompt again matches a cached key whole: mistral.rs 0.8.1
    // then reuses nothing (it would have no token left to compute).
    let again = ask(&system, "Turn on the wifi.");
    assert_eq!(cached(&again), 0, "{again}");
    // A different system prompt shares only the template's first tokens.
    let other = ask("Be brief.", "Hello there.");
    assert!(cached(&other) < 8, "{other}");
    let (_, health) = http(addr, "GET", "/health", None);
    let c = &health["prefix_cache"];
    eprintln!("{c}");
    assert_eq!(c["mismatches"], 0, "{c}");
    assert_eq!(
        c["computed_tokens"].as_u64().unwrap() + c["cached_tokens"].as_u64().unwrap(),
        c["prompt_tokens"].as_u64().unwrap(),
        "{c}"
    );
    assert!(c["cached_tokens"].as_u64().unwrap() >= cached(&b) + cached(&other));
}

/// mistral.rs's `RequestBuilder` samples with top_k = 1 whatever the
/// temperature, and its engine has one RNG for every request; ours honours
/// temperature, and a seed gives the same tokens again.
#[test]
fn temperature_is_honoured_and_a_seed_repeats_its_tokens() {
    let env = TestEnv::new("serve-temperature");
    let server = env.serve(&default_model(), &[]);
    let addr = server.addr.as_str();
    let ask = |extra: serde_json::Value| {
        let mut request = serde_json::json!({
            "messages": [{"role": "user", "content": "Write a short poem about the sea."}],
            "max_tokens": 16,
        });
        request
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let (status, reply) = chat(addr, &request);
        assert_eq!(status, 200, "{reply}");
        reply["choices"][0]["message"]["content"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let greedy = ask(serde_json::json!({"temperature": 0}));
    assert_eq!(ask(serde_json::json!({"temperature": 0})), greedy);
    let one = ask(serde_json::json!({"temperature": 1, "seed": 1}));
    let two = ask(serde_json::json!({"temperature": 1, "seed": 2}));
    eprintln!("greedy {greedy:?}\nseed 1 {one:?}\nseed 2 {two:?}");
    assert_ne!(one, two);
    assert_ne!(one, greedy);
    assert_eq!(ask(serde_json::json!({"temperature": 1, "seed": 1})), one);
}

/// `response_format` constrains the answer through llguidance; it stops
/// where the JSON ends (the grammar's EOS is a stop token) instead of
/// running on to max_tokens, and it is laid out on one line.
#[test]
fn a_json_schema_response_format_gives_json_that_follows_it_and_stops() {
    let env = TestEnv::new("serve-json-schema");
    let server = env.serve(&default_model(), &[]);
    let addr = server.addr.as_str();
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "action_type": {"enum": ["click", "navigate_back"]},
            "index": {"type": "integer", "minimum": 0, "maximum": 7},
        },
        "required": ["action_type"],
        "additionalProperties": false,
    });
    let request = serde_json::json!({
        "messages": [
            {"role": "system", "content": "You control a phone. Answer with one action as JSON."},
            {"role": "user", "content": "The screen shows: [0] Wi-Fi [1] Bluetooth [2] Back. Goal: turn on Wi-Fi."},
        ],
        "max_tokens": 64,
        "response_format": {"type": "json_schema", "json_schema": {"name": "action", "schema": schema, "strict": true}},
    });
    let (status, reply) = chat(addr, &request);
    assert_eq!(status, 200, "{reply}");
    let choice = &reply["choices"][0];
    let content = choice["message"]["content"].as_str().unwrap();
    eprintln!("constrained: {content:?} ({})", reply["usage"]);
    assert_eq!(choice["finish_reason"], "stop", "{reply}");
    let action: serde_json::Value = serde_json::from_str(content)
        .unwrap_or_else(|e| panic!("not JSON, or junk after it ({e}): {content:?}"));
    let object = action.as_object().unwrap();
    assert!(["click", "navigate_back"].contains(&object["action_type"].as_str().unwrap()));
    if let Some(index) = object.get("index") {
        assert!((0..=7).contains(&index.as_i64().unwrap()), "{action}");
    }
    assert!(
        object.keys().all(|k| k == "action_type" || k == "index"),
        "{action}"
    );
    // One line, laid out as the server asks llguidance to (api::compact_layout):
    // no whitespace but the separators, so a model cannot pad to max_tokens.
    assert!(
        !content.contains('\n') && !content.contains("  ") && !content.starts_with(' '),
        "{content:?}"
    );
    assert!(
        reply["usage"]["completion_tokens"].as_u64().unwrap() < 40,
        "{reply}"
    );

    // Any object: a key is a free string, so ask for a short one (greedy
    // SmolLM2-135M otherwise writes one key until max_tokens).
    let mut object_request = request.clone();
    object_request["messages"] = serde_json::json!([
        {"role": "system", "content": "Answer with a JSON object."},
        {"role": "user", "content": "Reply with exactly this: {\"ok\": true}"},
    ]);
    object_request["response_format"] = serde_json::json!({"type": "json_object"});
    let (status, reply) = chat(addr, &object_request);
    assert_eq!(status, 200, "{reply}");
    let content = reply["choices"][0]["message"]["content"].as_str().unwrap();
    eprintln!("json_object: {content:?}");
    assert!(serde_json::from_str::<serde_json::Value>(content)
        .unwrap()
        .is_object());

    let mut bad = request.clone();
    bad["response_format"]["json_schema"]["schema"] = serde_json::json!({"type": "objekt"});
    let (status, err) = chat(addr, &bad);
    eprintln!("bad schema: {err}");
    assert_eq!(
        (status, err["error"]["param"].as_str()),
        (400, Some("response_format.json_schema.schema")),
        "{err}"
    );
    // The server still answers.
    let (status, _) = chat(addr, &request);
    assert_eq!(status, 200);
}

/// `--exit-with-stdin`: the server ends when the pipe its parent holds
/// closes, as it does when the parent (`droidscore run`, a test) is killed,
/// so no server outlives the program that started it.
#[test]
fn a_server_started_with_exit_with_stdin_ends_when_its_parent_lets_go() {
    let env = TestEnv::new("serve-stdin");
    let mut served = env
        .device()
        .args(["serve", "--threads", "2", "--listen", "127.0.0.1:0"])
        .arg("--model")
        .arg(default_model())
        .arg("--exit-with-stdin")
        .stdin(std::process::Stdio::piped())
        .spawn_server();
    assert!(served.addr.starts_with("http://"), "{:?}", served.addr);
    let still = served.child.try_wait().unwrap();
    assert!(
        still.is_none(),
        "it serves while the pipe is open: {still:?}"
    );
    drop(served.child.stdin.take());
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = served.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "still running 30 s after its stdin closed"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
}
