//! The speed figures: one [`TestResult`] per test, as
//! `droidscore-device speed -o json` prints them (a JSON array, llama.cpp's
//! `llama-bench -o json` shape and field names) and as `droidscore bench`
//! reads an arm whose output is `llama-bench-json`.
//!
//! The bench reads real llama-bench too, whose tests lack what the device
//! adds and, in older builds, the per-repetition samples. So only what the
//! bench cannot do without is required — `n_prompt`, `n_gen`, `avg_ts` —
//! and the rest is optional when read; the device writes every field.

use serde::{Deserialize, Serialize};

use crate::health::Memory;

/// One test's result. The first block is llama-bench's, the second ours.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    pub model_filename: Option<String>,
    /// `{architecture} {quantization}`: `llama Q4_1`.
    pub model_type: Option<String>,
    /// Bytes of the file that ran.
    pub model_size: Option<u64>,
    pub n_threads: Option<usize>,
    /// Prompt tokens: *p* of pp*p* (0 for a tg test).
    pub n_prompt: u64,
    /// Generated tokens: *n* of tg*n* (0 for a pp test).
    pub n_gen: u64,
    /// The mean of the per-repetition tokens a second (llama-bench's).
    pub avg_ts: f64,
    /// When the test ran, RFC 3339.
    pub test_time: Option<String>,
    pub avg_ns: Option<u64>,
    pub stddev_ns: Option<u64>,
    /// The sample (n − 1) standard deviation of the per-repetition t/s.
    pub stddev_ts: Option<f64>,
    pub samples_ns: Option<Vec<u64>>,
    pub samples_ts: Option<Vec<f64>>,

    /// The median and range beside llama-bench's mean.
    pub median_ts: Option<f64>,
    pub min_ts: Option<f64>,
    pub max_ts: Option<f64>,
    pub quantization: Option<String>,
    /// The 4-bit path: how the file was re-quantized, if it was, and the
    /// packed layout of the file that ran (as in [`crate::health::ModelInfo`]).
    pub requantized: Option<serde_json::Value>,
    pub layout: Option<serde_json::Value>,
    pub dtype: Option<String>,
    /// `packed`, or dequantized at load (`f16`, `f32`).
    pub weights: Option<String>,
    /// What tokenized (pp and tg send token ids: recorded, not used).
    pub tokenizer: Option<serde_json::Value>,
    pub target_features: Option<Vec<String>>,
    /// Resident memory once loaded and warmed up, before the first
    /// repetition of the first test.
    pub memory_at_ready: Option<Memory>,
    /// Resident memory after this test's repetitions; its `peak_rss_kib`
    /// (VmHWM) is the peak of the whole process so far.
    pub memory_after: Option<Memory>,
    pub load_ms: Option<f64>,
    /// What ran the model: `mistral.rs 0.8.1 CPU`.
    pub backend: Option<String>,
}

impl TestResult {
    /// llama-bench's name for the test: `pp512`, `tg128`, or `pp512+tg128`.
    pub fn name(&self) -> String {
        test_name(self.n_prompt, self.n_gen)
    }
}

/// llama-bench's name for a test of `n_prompt` prompt and `n_gen`
/// generated tokens.
pub fn test_name(n_prompt: u64, n_gen: u64) -> String {
    match (n_prompt, n_gen) {
        (p, 0) => format!("pp{p}"),
        (0, n) => format!("tg{n}"),
        (p, n) => format!("pp{p}+tg{n}"),
    }
}

/// Why a speed array could not be read, naming where.
#[derive(Debug, thiserror::Error)]
#[error("{field}: {source}")]
pub struct FiguresError {
    /// Where in the array: `[1].avg_ts`, `[0]` for a test missing a field,
    /// `array` for its root.
    pub field: String,
    #[source]
    pub source: serde_json::Error,
}

/// Read a speed array (the JSON text `speed -o json` prints, or
/// llama-bench's).
pub fn from_str(text: &str) -> Result<Vec<TestResult>, FiguresError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    crate::located::read(de, "array").map_err(|(field, source)| FiguresError { field, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One test as llama-bench b4000 prints it (trimmed of build and
    /// hardware fields, which are ignored).
    const LLAMA_BENCH: &str = r#"[{
        "build_commit": "abc", "cpu_info": "x", "n_batch": 2048,
        "model_filename": "m.gguf", "model_type": "llama 1B Q4_0", "model_size": 10,
        "n_threads": 4, "n_prompt": 512, "n_gen": 0, "test_time": "2025-01-01T00:00:00Z",
        "avg_ns": 1000, "stddev_ns": 10, "avg_ts": 39.6, "stddev_ts": 0.4,
        "samples_ns": [990, 1010], "samples_ts": [40.0, 39.2]
    }]"#;

    #[test]
    fn llama_bench_output_reads_without_our_fields() {
        let tests = from_str(LLAMA_BENCH).unwrap();
        assert_eq!(tests.len(), 1);
        let t = &tests[0];
        assert_eq!(t.name(), "pp512");
        assert_eq!(t.avg_ts, 39.6);
        assert_eq!(t.samples_ts, Some(vec![40.0, 39.2]));
        assert_eq!(t.memory_at_ready, None);
        assert_eq!(t.load_ms, None);
    }

    #[test]
    fn a_missing_or_wrong_field_is_named() {
        let e = from_str(r#"[{"n_prompt": 1, "n_gen": 0}]"#).unwrap_err();
        assert_eq!(e.field, "[0]");
        assert!(e.to_string().contains("missing field `avg_ts`"), "{e}");
        let e = from_str(r#"[{"n_prompt": 1, "n_gen": 0, "avg_ts": 1}, {"n_prompt": -1}]"#)
            .unwrap_err();
        assert_eq!(e.field, "[1].n_prompt");
        let e = from_str(
            r#"[{"n_prompt": 1, "n_gen": 0, "avg_ts": 1, "memory_at_ready": {"rss_kib": 1}}]"#,
        )
        .unwrap_err();
        assert_eq!(e.field, "[0].memory_at_ready");
        assert!(e.to_string().contains("rss_anon_kib"), "{e}");
        assert_eq!(from_str("{}").unwrap_err().field, "array");
    }

    #[test]
    fn names_follow_llama_bench() {
        assert_eq!(test_name(512, 0), "pp512");
        assert_eq!(test_name(0, 128), "tg128");
        assert_eq!(test_name(512, 128), "pp512+tg128");
    }
}
