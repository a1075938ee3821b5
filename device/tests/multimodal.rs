//! A multimodal model behind `droidscore-device serve` with nothing to
//! download: each test writes a tiny random-weight Qwen2.5-VL
//! (support/tiny_vlm.rs) and proves the image travels through mistral.rs —
//! the server loads it and answers a chat with a PNG `data:` URL part, the
//! image's tokens show in `usage.prompt_tokens` exactly as the preprocessor
//! config predicts, and the first token's log probabilities move when only
//! the image changes (while the same image gives the same numbers). Qwen2-VL
//! loads too, but mistral.rs 0.8.1 cannot decode past an image with it: a
//! test pins that.

mod support;

use std::path::PathBuf;
use std::time::Instant;

use base64::Engine;
use droidscore_device::exit;
use image::{Rgb, RgbImage};
use serde_json::{json, Value};
use support::env::{text, TestEnv};
use support::http::{chat, http};
use support::tiny_vlm::{self, Arch};

const TEXT: &str = "What is on this screen?";
const TOP_LOGPROBS: usize = 5;

/// A tiny model written into a fresh env, as the directory `name` in it.
fn model_dir(name: &str, arch: Arch) -> (TestEnv, PathBuf) {
    let env = TestEnv::new(name);
    let dir = env.join(name);
    tiny_vlm::write(&dir, arch);
    (env, dir)
}

fn png_url(image: &RgbImage) -> String {
    let mut png = std::io::Cursor::new(Vec::new());
    image.write_to(&mut png, image::ImageFormat::Png).unwrap();
    format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(png.into_inner())
    )
}

/// Smooth colour ramps.
fn gradient(width: u32, height: u32) -> RgbImage {
    RgbImage::from_fn(width, height, |x, y| {
        Rgb([
            (x * 255 / width) as u8,
            (y * 255 / height) as u8,
            ((x + y) * 127 / (width + height)) as u8,
        ])
    })
}

/// Black and white squares the size of a patch: as far from a ramp as an image gets.
fn checkerboard(width: u32, height: u32) -> RgbImage {
    RgbImage::from_fn(width, height, |x, y| {
        if (x / 14 + y / 14) % 2 == 0 {
            Rgb([255, 255, 255])
        } else {
            Rgb([0, 0, 0])
        }
    })
}

/// A greedy chat request: one user message, the text then any images.
fn request(images: &[&RgbImage], extra: Value) -> Value {
    let content: Value = if images.is_empty() {
        json!(TEXT)
    } else {
        let mut parts = vec![json!({"type": "text", "text": TEXT})];
        parts.extend(
            images
                .iter()
                .map(|i| json!({"type": "image_url", "image_url": {"url": png_url(i)}})),
        );
        Value::Array(parts)
    };
    let mut body = json!({
        "messages": [{"role": "user", "content": content}],
        "max_tokens": 3,
        "temperature": 0,
    });
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    body
}

/// An OpenAI chat completion; its usage.prompt_tokens.
fn check_completion(reply: &Value, model: &str) -> u64 {
    assert_eq!(reply["object"], "chat.completion", "{reply}");
    assert!(reply["id"].is_string(), "{reply}");
    assert_eq!(reply["model"], model);
    let choices = reply["choices"].as_array().unwrap();
    assert_eq!(choices.len(), 1, "{reply}");
    assert_eq!(choices[0]["index"], 0);
    assert_eq!(choices[0]["message"]["role"], "assistant");
    assert!(choices[0]["message"]["content"].is_string(), "{reply}");
    let finish = choices[0]["finish_reason"].as_str().unwrap();
    assert!(["stop", "length"].contains(&finish), "{reply}");
    let usage = &reply["usage"];
    let prompt = usage["prompt_tokens"].as_u64().unwrap();
    let completion = usage["completion_tokens"].as_u64().unwrap();
    assert!((1..=3).contains(&completion), "{usage}");
    assert_eq!(usage["total_tokens"].as_u64().unwrap(), prompt + completion);
    prompt
}

/// `choices[0].logprobs.content` checked against OpenAI's shape and greedy
/// decoding; the first token's top log probabilities, most likely first.
fn first_token_top_logprobs(reply: &Value) -> Vec<f64> {
    let content = reply["choices"][0]["logprobs"]["content"]
        .as_array()
        .unwrap_or_else(|| panic!("no logprobs.content: {reply}"));
    assert_eq!(
        content.len() as u64,
        reply["usage"]["completion_tokens"].as_u64().unwrap(),
        "one entry per sampled token"
    );
    for entry in content {
        assert!(entry["token"].is_string(), "{entry}");
        let logprob = entry["logprob"].as_f64().unwrap();
        let top: Vec<f64> = entry["top_logprobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                assert!(t["token"].is_string(), "{t}");
                t["logprob"].as_f64().unwrap()
            })
            .collect();
        assert_eq!(top.len(), TOP_LOGPROBS, "{entry}");
        assert!(top.windows(2).all(|w| w[0] >= w[1]), "{entry}");
        assert!(top.iter().all(|&l| l <= 0.0), "{entry}");
        let mass: f64 = top.iter().map(|l| l.exp()).sum();
        assert!(
            mass <= 1.0 + 1e-4,
            "top probabilities sum to {mass}: {entry}"
        );
        // Greedy: the sampled token is the most likely one.
        assert_eq!(logprob, top[0], "{entry}");
        assert_eq!(entry["token"], entry["top_logprobs"][0]["token"], "{entry}");
    }
    content[0]["top_logprobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["logprob"].as_f64().unwrap())
        .collect()
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// Everything both runs prove, serving a tiny Qwen2.5-VL written as `name`
/// with `args`, which must load it as `quantization` and `dtype`; the
/// figures go to stderr.
fn image_travels_through(name: &str, args: &[&str], quantization: &str, dtype: &str) {
    let (env, dir) = model_dir(name, Arch::Qwen25Vl);
    let dir = dir.as_path();
    let label = format!("{quantization} {dtype}");
    let started = Instant::now();
    let server = env.serve(dir, args);
    let addr = server.addr.as_str();
    let (status, health) = http(addr, "GET", "/health", None);
    assert_eq!(status, 200, "{health}");
    assert_eq!(health["model"]["format"], "safetensors");
    assert_eq!(health["model"]["architecture"], "qwen2_5_vl");
    assert_eq!(health["model"]["quantization"], quantization);
    assert_eq!(health["model"]["dtype"], dtype);
    let model = dir.file_name().unwrap().to_str().unwrap();
    eprintln!(
        "[{label}] loaded and warm in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // Without an image: exactly the rendered chat template's tokens.
    let (status, reply) = chat(addr, &request(&[], json!({})));
    assert_eq!(status, 200, "{reply}");
    let text_only = check_completion(&reply, model);
    let tokenizer = tiny_vlm::tokenizer();
    let rendered = tokenizer
        .encode(tiny_vlm::render_user_prompt(TEXT), false)
        .unwrap()
        .len() as u64;
    assert_eq!(text_only, rendered, "prompt tokens without an image");

    // With an image: <|vision_start|>, one <|image_pad|> per merged patch, <|vision_end|>.
    for (width, height) in [(90, 60), (150, 100), (40, 30)] {
        let image = gradient(width, height);
        let (status, reply) = chat(addr, &request(&[&image], json!({})));
        assert_eq!(status, 200, "{reply}");
        let with_image = check_completion(&reply, model);
        let image_tokens = tiny_vlm::expected_image_tokens(dir, width, height) as u64;
        eprintln!(
            "[{label}] {width}x{height} image: prompt_tokens {with_image} = {text_only} without + {image_tokens} image + 2 vision start/end"
        );
        assert_eq!(with_image, text_only + image_tokens + 2, "{width}x{height}");
    }

    // Same text, temperature 0: the image alone moves the first token's logprobs.
    let logprobs = json!({"logprobs": true, "top_logprobs": TOP_LOGPROBS});
    let (a, b) = (gradient(90, 60), checkerboard(90, 60));
    let mut first = Vec::new();
    for image in [&a, &a, &b] {
        let (status, reply) = chat(addr, &request(&[image], logprobs.clone()));
        assert_eq!(status, 200, "{reply}");
        check_completion(&reply, model);
        first.push(first_token_top_logprobs(&reply));
    }
    let same = max_abs_diff(&first[0], &first[1]);
    let other = max_abs_diff(&first[0], &first[2]);
    eprintln!(
        "[{label}] first token, top {TOP_LOGPROBS} logprobs: gradient {:?}",
        first[0]
    );
    eprintln!(
        "[{label}]   gradient again {:?}: max |diff| {same:e}",
        first[1]
    );
    eprintln!(
        "[{label}]   checkerboard   {:?}: max |diff| {other:e}",
        first[2]
    );
    assert!(
        same <= 1e-6,
        "the same image gave different logprobs: {same}"
    );
    assert!(
        other >= 1e-2,
        "a different image hardly moved the logprobs: {other}"
    );
    eprintln!("[{label}] done in {:.1} s", started.elapsed().as_secs_f64());
}

#[test]
fn tiny_qwen2_5_vl_in_f32_without_isq_counts_image_tokens_and_its_logits_follow_the_image() {
    image_travels_through(
        "tiny-qwen2_5-vl-f32",
        &["--quant", "none", "--dtype", "f32"],
        "none",
        "f32",
    );
}

#[test]
fn tiny_qwen2_5_vl_with_the_default_q4k_isq_counts_image_tokens_and_its_logits_follow_the_image() {
    image_travels_through("tiny-qwen2_5-vl-q4k", &[], "q4k", "f32");
}

#[test]
fn tiny_qwen2_5_vl_in_f16_with_q4_0_isq_counts_image_tokens_and_its_logits_follow_the_image() {
    image_travels_through(
        "tiny-qwen2_5-vl-f16",
        &["--quant", "q4_0", "--dtype", "f16"],
        "q4_0",
        "f16",
    );
}

/// candle 0.10.2's CPU matmul has no bf16 kernel: the text layers ran once
/// quantized, but the vision tower failed on the first image. Now refused
/// before any port opens.
#[test]
fn bf16_is_refused_for_a_multimodal_model_before_any_port_opens() {
    let (env, dir) = model_dir("tiny-qwen2_5-vl-bf16", Arch::Qwen25Vl);
    let out = env
        .device()
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--dtype",
            "bf16",
            "--model",
        ])
        .arg(&dir)
        .code(exit::FAILED);
    assert!(out.stdout.is_empty(), "a port opened");
    let err = text(&out.stderr);
    assert!(
        err.contains(dir.to_str().unwrap()) && err.contains("bf16"),
        "{err}"
    );
}

/// mistral.rs 0.8.1's Qwen2-VL builds its decode-step rope indices from the
/// sequence offset (`offset..offset + len`, qwen2vl/mod.rs) and indexes past
/// the prompt; Qwen2.5-VL (and upstream after 0.8.1) use `0..len`. The prompt
/// step works, so the first token comes out; the second fails.
#[test]
fn qwen2_vl_in_mistralrs_0_8_1_fails_at_the_first_decode_step_after_an_image() {
    let (env, dir) = model_dir("tiny-qwen2-vl", Arch::Qwen2Vl);
    let server = env.serve(&dir, &["--quant", "none", "--dtype", "f32"]);
    let addr = server.addr.as_str();
    let image = gradient(90, 60);
    let (status, reply) = chat(addr, &request(&[&image], json!({"max_tokens": 2})));
    assert_eq!(status, 500, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("index-select invalid index"), "{message}");
    // Text alone decodes, and the server is still up.
    let (status, reply) = chat(addr, &request(&[], json!({"max_tokens": 2})));
    assert_eq!(status, 200, "{reply}");
}
