//! `droidscore-device speed` on the default model (fetched by the test
//! command): llama-bench's JSON fields, one sample per repetition, exactly the
//! asked-for token counts (generation runs past end-of-sequence), and the
//! build's target features recorded. No speed is asserted: speeds are
//! measured by the bench harness, not by tests.

mod support;

use droidscore_device::exit;
use support::env::{default_model, text, TestEnv};

#[test]
fn speed_reports_llama_bench_fields_per_test_with_every_sample() {
    let env = TestEnv::new("speed-fields");
    let out = env
        .device()
        .args([
            "speed", "-p", "24", "-n", "12", "-r", "3", "-t", "2", "-o", "json", "-m",
        ])
        .arg(default_model())
        .ok();
    figures_read_as_the_contract_types(&out.stdout);
    let results: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tests = results
        .as_array()
        .expect("a JSON array, as llama-bench -o json");
    assert_eq!(tests.len(), 2, "pp and tg: {results:#}");
    for (t, (n_prompt, n_gen)) in tests.iter().zip([(24, 0), (0, 12)]) {
        assert_eq!(t["n_prompt"], n_prompt, "{t:#}");
        assert_eq!(t["n_gen"], n_gen, "{t:#}");
        assert_eq!(t["n_threads"], 2);
        assert_eq!(t["samples_ns"].as_array().unwrap().len(), 3, "{t:#}");
        let ts: Vec<f64> = t["samples_ts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(ts.len(), 3);
        assert!(ts.iter().all(|&x| x > 0.0 && x.is_finite()), "{ts:?}");
        // avg_ts is the mean of the samples (llama-bench), the median is ours.
        let mean = ts.iter().sum::<f64>() / 3.0;
        assert!((t["avg_ts"].as_f64().unwrap() - mean).abs() < 1e-6 * mean);
        assert!(t["stddev_ts"].as_f64().unwrap() >= 0.0);
        for key in [
            "avg_ns",
            "stddev_ns",
            "median_ts",
            "test_time",
            "model_size",
        ] {
            assert!(!t[key].is_null(), "{key} missing: {t:#}");
        }
        assert_eq!(t["model_type"], "llama Q4_1");
        assert_eq!(t["dtype"], "f32");
        assert!(t["target_features"].is_array(), "{t:#}");
        assert!(t["memory_at_ready"]["rss_anon_kib"].as_u64().unwrap() > 0);
    }
}

#[test]
fn speed_refuses_zero_repetitions_and_a_missing_model() {
    let env = TestEnv::new("speed-refused");
    let out = env
        .device()
        .args(["speed", "-r", "0", "-m", "/nonexistent/model.gguf"])
        .code(exit::FAILED);
    let err = text(&out.stderr);
    assert!(err.contains("-r must be at least 1"), "{err}");
    let out = env
        .device()
        .args(["speed", "-m", "/nonexistent/model.gguf"])
        .code(exit::FAILED);
    let err = text(&out.stderr);
    assert!(err.contains("/nonexistent/model.gguf"), "{err}");
}

#[test]
fn quant_on_a_gguf_file_runs_the_requantized_file_and_records_the_path() {
    let model = default_model();
    let env = TestEnv::new("speed-quant");
    let cache = env.cache();
    let out = env
        .device()
        .args([
            "speed", "-p", "8", "-n", "4", "-r", "1", "-t", "2", "-o", "json",
        ])
        .args(["--quant", "q4_0", "--keep-output", "same", "-m"])
        .arg(&model)
        .ok();
    let results: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for t in results.as_array().unwrap() {
        let r = &t["requantized"];
        assert_eq!(r["target"], "q4_0", "{t:#}");
        assert_eq!(r["keep_output"], "same", "{t:#}");
        assert_eq!(r["source"], model.to_string_lossy().as_ref(), "{t:#}");
        let file = r["file"].as_str().unwrap();
        assert!(
            file.starts_with(cache.join("quantized").to_str().unwrap()),
            "{file}"
        );
        // What ran is what the layout says: every matrix Q4_0, the head
        // kept at the source's Q8_0; and the size is the file that ran.
        assert_eq!(t["layout"]["by_type"]["Q4_0"]["tensors"], 210, "{t:#}");
        assert_eq!(t["layout"]["output_head_type"], "Q8_0", "{t:#}");
        assert_eq!(t["quantization"], "Q4_0", "{t:#}");
        assert_eq!(
            t["model_size"],
            std::fs::metadata(file).unwrap().len(),
            "{t:#}"
        );
    }

    // --keep-output without --quant would change nothing: refused, naming
    // the file, before any port opens or figure is printed.
    for command in ["speed", "serve"] {
        let out = env
            .device()
            .args([command, "--keep-output", "q8_0", "--model"])
            .arg(&model)
            .code(exit::FAILED);
        let err = text(&out.stderr);
        assert!(err.contains(&*model.to_string_lossy()), "{command}: {err}");
        assert!(err.contains("give --quant"), "{command}: {err}");
        assert!(out.stdout.is_empty(), "{command}: no base URL, no figures");
    }
}

/// One `speed -p 8 -n 0 -r 1 -o json` run of the default model with these flags.
fn speed_once(env: &TestEnv, model: &std::path::Path, flags: &[&str]) -> serde_json::Value {
    let out = env
        .device()
        .args([
            "speed", "-p", "8", "-n", "0", "-r", "1", "-t", "2", "-o", "json",
        ])
        .args(flags)
        .arg("-m")
        .arg(model)
        .ok();
    let results: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    results[0].clone()
}

#[test]
fn weights_f32_dequantizes_at_load_and_says_so() {
    let model = default_model();
    let env = TestEnv::new("speed-weights");
    let packed = speed_once(&env, &model, &[]);
    let dense = speed_once(&env, &model, &["--weights", "f32"]);
    assert_eq!(packed["weights"], "packed", "{packed:#}");
    assert_eq!(dense["weights"], "f32", "{dense:#}");
    // The file type is still the file's: the choice is recorded beside it.
    assert_eq!(dense["quantization"], "Q4_1", "{dense:#}");
    // 135 M weights at 4 bytes against ~0.7: hundreds of MiB more, anonymous.
    let anon = |t: &serde_json::Value| t["memory_at_ready"]["rss_anon_kib"].as_u64().unwrap();
    assert!(
        anon(&dense) > anon(&packed) + 200 * 1024,
        "RssAnon: f32 {} KiB, packed {} KiB",
        anon(&dense),
        anon(&packed)
    );
    assert_eq!(packed["tokenizer"]["source"], "gguf", "{packed:#}");
    assert_eq!(packed["tokenizer"]["pre"], "smollm", "{packed:#}");
}

/// What the bench reads: `speed -o json` parses into the contract's
/// figures, pp and tg, each with its memory and every repetition's sample.
fn figures_read_as_the_contract_types(stdout: &[u8]) {
    let typed =
        droidscore_contract::speed::from_str(&text(stdout)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(typed.len(), 2);
    for t in &typed {
        assert!(
            t.memory_at_ready.is_some() && t.memory_after.is_some(),
            "{t:?}"
        );
        assert_eq!(t.samples_ts.as_ref().map(Vec::len), Some(3));
    }
}
