//! `droidscore-device speed` on the default model (fetched by the test
//! command): llama-bench's JSON fields, one sample per repetition, exactly the
//! asked-for token counts (generation runs past end-of-sequence), and the
//! build's target features recorded. No speed is asserted: speeds are
//! measured by the bench harness, not by tests.

use std::process::Command;

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
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("-r must be at least 1"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_droidscore-device"))
        .args(["speed", "-m", "/nonexistent/model.gguf"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/model.gguf"), "{err}");
}

#[test]
fn in_situ_quantization_of_a_gguf_file_is_refused_naming_it() {
    let model = droidscore_device::model::default_path(&droidscore_device::model::cache_dir());
    assert!(
        model.is_file(),
        "the default model is not at {}",
        model.display()
    );
    for command in ["speed", "serve"] {
        let out = Command::new(env!("CARGO_BIN_EXE_droidscore-device"))
            .args([command, "--quant", "q4_0", "--model"])
            .arg(&model)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{command}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&*model.to_string_lossy()), "{command}: {err}");
        assert!(
            err.contains("does not re-quantize a GGUF file"),
            "{command}: {err}"
        );
        assert!(out.stdout.is_empty(), "{command}: no base URL, no figures");
    }
}
