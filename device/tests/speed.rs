//! `droidscore-device speed` on the default model (fetched by the test
//! command): llama-bench's JSON fields, one sample per repetition, exactly the
//! asked-for token counts (generation runs past end-of-sequence), and the
//! build's target features recorded. No speed is asserted: speeds are
//! measured by the bench harness, not by tests.

use std::process::Command;

use droidscore_device::exit;

#[test]
fn speed_reports_llama_bench_fields_per_test_with_every_sample() {
    let model = droidscore_device::model::default_path(&droidscore_device::model::cache_dir());
    assert!(
        model.is_file(),
        "the default model is not at {}: run `droidscore-device fetch-model` (the test command does)",
        model.display()
    );
    let out = Command::new(env!("CARGO_BIN_EXE_droidscore-device"))
        .env("RUST_LOG", "warn")
        .args([
            "speed", "-p", "24", "-n", "12", "-r", "3", "-t", "2", "-o", "json", "-m",
        ])
        .arg(&model)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "speed failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // What the bench reads: the contract's figures, every field there.
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let typed = droidscore_contract::speed::from_str(&stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(typed.len(), 2);
    for t in &typed {
        assert!(
            t.memory_at_ready.is_some() && t.memory_after.is_some(),
            "{t:?}"
        );
        assert_eq!(t.samples_ts.as_ref().map(Vec::len), Some(3));
    }
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
    let out = Command::new(env!("CARGO_BIN_EXE_droidscore-device"))
        .args(["speed", "-r", "0", "-m", "/nonexistent/model.gguf"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(exit::FAILED));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("-r must be at least 1"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_droidscore-device"))
        .args(["speed", "-m", "/nonexistent/model.gguf"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(exit::FAILED));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/model.gguf"), "{err}");
}

#[test]
fn quant_on_a_gguf_file_runs_the_requantized_file_and_records_the_path() {
    let model = droidscore_device::model::default_path(&droidscore_device::model::cache_dir());
    assert!(
        model.is_file(),
        "the default model is not at {}",
        model.display()
    );
    let cache = std::env::temp_dir().join(format!("droidscore-speed-quant-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let out = Command::new(env!("CARGO_BIN_EXE_droidscore-device"))
        .env("RUST_LOG", "warn")
        .env("DROIDSCORE_CACHE", &cache)
        .args([
            "speed", "-p", "8", "-n", "4", "-r", "1", "-t", "2", "-o", "json",
        ])
        .args(["--quant", "q4_0", "--keep-output", "same", "-m"])
        .arg(&model)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "speed --quant q4_0 failed: {err}");
    // What the bench reads: the contract's figures, every field there.
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let typed = droidscore_contract::speed::from_str(&stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(typed.len(), 2);
    for t in &typed {
        assert!(
            t.memory_at_ready.is_some() && t.memory_after.is_some(),
            "{t:?}"
        );
        assert_eq!(t.samples_ts.as_ref().map(Vec::len), Some(3));
    }
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
        let out = Command::new(env!("CARGO_BIN_EXE_droidscore-device"))
            .env("DROIDSCORE_CACHE", &cache)
            .args([command, "--keep-output", "q8_0", "--model"])
            .arg(&model)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(exit::FAILED), "{command}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&*model.to_string_lossy()), "{command}: {err}");
        assert!(err.contains("give --quant"), "{command}: {err}");
        assert!(out.stdout.is_empty(), "{command}: no base URL, no figures");
    }
    std::fs::remove_dir_all(&cache).unwrap();
}

/// One `speed -p 8 -n 0 -r 1 -o json` run of the default model with these flags.
fn speed_once(model: &std::path::Path, flags: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_droidscore-device"))
        .env("RUST_LOG", "warn")
        .args([
            "speed", "-p", "8", "-n", "0", "-r", "1", "-t", "2", "-o", "json",
        ])
        .args(flags)
        .arg("-m")
        .arg(model)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "speed {flags:?} failed: {err}");
    // What the bench reads: the contract's figures, every field there.
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let typed = droidscore_contract::speed::from_str(&stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(typed.len(), 2);
    for t in &typed {
        assert!(
            t.memory_at_ready.is_some() && t.memory_after.is_some(),
            "{t:?}"
        );
        assert_eq!(t.samples_ts.as_ref().map(Vec::len), Some(3));
    }
    let results: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    results[0].clone()
}

#[test]
fn weights_f32_dequantizes_at_load_and_says_so() {
    let model = droidscore_device::model::default_path(&droidscore_device::model::cache_dir());
    assert!(
        model.is_file(),
        "the default model is not at {}",
        model.display()
    );
    let packed = speed_once(&model, &[]);
    let dense = speed_once(&model, &["--weights", "f32"]);
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
