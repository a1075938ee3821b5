//! `droidscore-device speed`: prompt processing and generation speed with
//! llama-bench's semantics, so the two tools' figures read the same way.
//!
//! - pp*p*: a prompt of *p* pseudo-random token ids, answered with one token;
//!   t/s = p / wall time of the request.
//! - tg*n*: a one-token prompt, then *n* generated tokens with end-of-sequence
//!   ignored (exactly *n* single-token forward passes); t/s = n / wall time.
//! - One warm-up run of each test first, not counted; an untimed 200 ms pause
//!   after every request (see `run`).
//! - Every repetition is a new sequence with the prefix cache off, so each
//!   starts from an empty KV cache.
//! - avg_ts is the mean of the per-repetition t/s, stddev_ts its sample
//!   standard deviation (llama-bench's definitions); the median and the
//!   min–max are printed beside them.
//!
//! Times are wall-clock around each request, so they include mistral.rs's
//! scheduling and its one sampled token per pp request, which llama-bench's
//! bare decode calls do not; the difference is a fixed cost per request.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::engine::{Dtype, Engine, LoadOptions, Memory, ModelInfo};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Json,
    Md,
}

#[derive(Debug, clap::Args)]
pub struct SpeedArgs {
    /// A registry name, a GGUF file or a safetensors directory; default:
    /// the default model.
    #[arg(short = 'm', long)]
    pub model: Option<String>,
    /// Prompt tokens of the pp test (0 skips it).
    #[arg(short = 'p', long = "n-prompt", default_value_t = 512)]
    pub n_prompt: usize,
    /// Generated tokens of the tg test (0 skips it).
    #[arg(short = 'n', long = "n-gen", default_value_t = 128)]
    pub n_gen: usize,
    /// Repetitions of each test.
    #[arg(short = 'r', long = "repetitions", default_value_t = 5)]
    pub repetitions: usize,
    /// CPU threads (RAYON_NUM_THREADS); default: every core.
    #[arg(short = 't', long)]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub path: crate::engine::PathArgs,
    /// Activations and unquantized weights (bf16: GGUF only, see `serve`).
    #[arg(long, value_enum, default_value = "f32")]
    pub dtype: Dtype,
    #[arg(short = 'o', long = "output", value_enum, default_value = "md")]
    pub output: Format,
    /// Seed of the pseudo-random prompt token ids.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// One test's result, with llama-bench's JSON field names where it has one.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TestResult {
    pub model_filename: String,
    pub model_type: String,
    pub model_size: u64,
    pub n_threads: usize,
    pub n_prompt: usize,
    pub n_gen: usize,
    pub test_time: String,
    pub avg_ns: u64,
    pub stddev_ns: u64,
    pub avg_ts: f64,
    pub stddev_ts: f64,
    pub samples_ns: Vec<u64>,
    pub samples_ts: Vec<f64>,
    // Ours: the median and range beside llama-bench's mean, and what was loaded.
    pub median_ts: f64,
    pub min_ts: f64,
    pub max_ts: f64,
    pub quantization: String,
    /// The 4-bit path: how the file was re-quantized, if it was, and the
    /// packed layout of the file that ran.
    pub requantized: Option<crate::quantize::Requantized>,
    pub layout: Option<crate::quantize::Layout>,
    pub dtype: String,
    /// `packed`, or dequantized at load (`f16`, `f32`).
    pub weights: crate::weights::Weights,
    /// What tokenized (pp and tg send token ids: recorded, not used).
    pub tokenizer: Option<crate::tokenizer::Info>,
    pub target_features: Vec<&'static str>,
    /// Resident memory once loaded and warmed up, before the first repetition.
    pub memory_at_ready: Memory,
    /// Resident memory after this test's repetitions; its `peak_rss_kib`
    /// (VmHWM) is the peak of the whole process so far.
    pub memory_after: Memory,
    pub load_ms: f64,
    pub backend: &'static str,
}

pub use droidscore_contract::stats::{mean_stddev, median};

/// Token ids in `[0, vocab)` from a fixed-seed generator (splitmix64), so a
/// repeated run sends the same prompt.
pub fn prompt_tokens(n: usize, vocab: u32, seed: u64) -> Vec<u32> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            (z % u64::from(vocab)) as u32
        })
        .collect()
}

/// Builds one test's result from its per-repetition wall times.
pub fn summarize(
    info: &ModelInfo,
    model_size: u64,
    n_prompt: usize,
    n_gen: usize,
    memory_at_ready: Memory,
    samples: &[Duration],
) -> TestResult {
    let tokens = (n_prompt + n_gen) as f64;
    let samples_ns: Vec<u64> = samples.iter().map(|d| d.as_nanos() as u64).collect();
    let samples_ts: Vec<f64> = samples_ns
        .iter()
        .map(|&ns| tokens * 1e9 / ns as f64)
        .collect();
    let ns_f: Vec<f64> = samples_ns.iter().map(|&ns| ns as f64).collect();
    let (avg_ns, stddev_ns) = mean_stddev(&ns_f);
    let (avg_ts, stddev_ts) = mean_stddev(&samples_ts);
    TestResult {
        model_filename: info.path.display().to_string(),
        model_type: format!(
            "{} {}",
            info.architecture.as_deref().unwrap_or("?"),
            info.quantization
        ),
        model_size,
        n_threads: info.threads,
        n_prompt,
        n_gen,
        test_time: now_rfc3339(),
        avg_ns: avg_ns.round() as u64,
        stddev_ns: stddev_ns.round() as u64,
        avg_ts,
        stddev_ts,
        median_ts: median(&samples_ts),
        min_ts: samples_ts.iter().copied().fold(f64::INFINITY, f64::min),
        max_ts: samples_ts.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        samples_ns,
        samples_ts,
        quantization: info.quantization.clone(),
        requantized: info.requantized.clone(),
        layout: info.layout.clone(),
        dtype: info.dtype.clone(),
        weights: info.weights,
        tokenizer: info.tokenizer.clone(),
        target_features: info.target_features.clone(),
        memory_at_ready,
        memory_after: Memory::default(),
        load_ms: info.load_ms,
        backend: "mistral.rs 0.8.1 CPU",
    }
}

fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// The vocabulary size: a GGUF file's token list, or a config.json's `vocab_size`.
fn vocab_size(path: &std::path::Path) -> Result<u32, String> {
    if path.is_file() {
        let header = crate::gguf::read_header(path).map_err(|e| e.to_string())?;
        match header.get("tokenizer.ggml.tokens") {
            Some(crate::gguf::Value::Array(n)) if *n > 0 => Ok(*n as u32),
            _ => Err(format!(
                "{}: no tokenizer.ggml.tokens array to size the vocabulary",
                path.display()
            )),
        }
    } else {
        let config = path.join("config.json");
        let text =
            std::fs::read_to_string(&config).map_err(|e| format!("{}: {e}", config.display()))?;
        let v: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", config.display()))?;
        v["vocab_size"]
            .as_u64()
            .or_else(|| v["text_config"]["vocab_size"].as_u64())
            .map(|n| n as u32)
            .ok_or_else(|| format!("{}: no vocab_size", config.display()))
    }
}

fn model_size(path: &std::path::Path) -> u64 {
    if path.is_file() {
        return std::fs::metadata(path).map_or(0, |m| m.len());
    }
    std::fs::read_dir(path)
        .map(|dir| {
            dir.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "safetensors"))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Runs the tests and prints them; the process's error text on failure.
pub async fn run(args: &SpeedArgs, model: PathBuf, threads: usize) -> Result<(), String> {
    if args.repetitions == 0 {
        return Err("-r must be at least 1".into());
    }
    let vocab = vocab_size(&model)?;
    let engine = Engine::load(&LoadOptions {
        model,
        quant: args.path.quant,
        keep_output: args.path.keep_output,
        dtype: args.dtype,
        threads,
        prefix_cache: false,
        ignore_eos: true,
        weights: args.path.weights,
        tokenizer: args.path.tokenizer,
    })
    .await
    .map_err(|e| e.to_string())?;
    // The size of the file that ran (the re-quantized one, if it was).
    let size = model_size(
        engine
            .info
            .requantized
            .as_ref()
            .map_or(&engine.info.path, |r| &r.file),
    );
    let mut results = Vec::new();
    let tests = [(args.n_prompt, 0), (0, args.n_gen)];
    let mut memory_at_ready = None;
    for (n_prompt, n_gen) in tests {
        if n_prompt + n_gen == 0 {
            continue;
        }
        // pp: p prompt tokens, one answered; tg: one prompt token, n answered.
        let (prompt_len, max_tokens) = if n_prompt > 0 {
            (n_prompt, 1)
        } else {
            (1, n_gen)
        };
        let time_one = |rep: u64| {
            let tokens = prompt_tokens(prompt_len, vocab, args.seed.wrapping_add(rep));
            let engine = &engine;
            async move {
                let started = Instant::now();
                let usage = engine
                    .complete_tokens(tokens, max_tokens)
                    .await
                    .map_err(|e| format!("the model failed: {e:#}"))?;
                let wall = started.elapsed();
                if usage.prompt_tokens != prompt_len || usage.completion_tokens != max_tokens {
                    return Err(format!(
                        "asked for {prompt_len} prompt and {max_tokens} generated tokens, \
                         mistral.rs reports {} and {}",
                        usage.prompt_tokens, usage.completion_tokens
                    ));
                }
                Ok::<Duration, String>(wall)
            }
        };
        // mistral.rs 0.8.1 runs a sequence that finished at its prompt step
        // (pp: one token asked for) once more after answering; a pause,
        // untimed, lets that step finish before the next repetition starts.
        let settle = || tokio::time::sleep(Duration::from_millis(200));
        time_one(u64::MAX).await?; // warm-up, not counted
        settle().await;
        let ready = *memory_at_ready.get_or_insert_with(Memory::now);
        let mut samples = Vec::with_capacity(args.repetitions);
        for rep in 0..args.repetitions as u64 {
            samples.push(time_one(rep).await?);
            settle().await;
        }
        let mut result = summarize(&engine.info, size, n_prompt, n_gen, ready, &samples);
        result.memory_after = Memory::now();
        results.push(result);
    }
    match args.output {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?
        ),
        Format::Md => print!("{}", markdown(&results)),
    }
    Ok(())
}

/// llama-bench's markdown table, with the median and range beside the mean.
pub fn markdown(results: &[TestResult]) -> String {
    let mut out = String::from(
        "| model | size | threads | dtype | weights | test | t/s (mean ± sd) | median [min–max] | RssAnon at ready | target features |\n\
         | --- | ---: | ---: | --- | --- | --- | ---: | ---: | ---: | --- |\n",
    );
    for r in results {
        let test = if r.n_prompt > 0 {
            format!("pp{}", r.n_prompt)
        } else {
            format!("tg{}", r.n_gen)
        };
        out.push_str(&format!(
            "| {} | {:.2} MiB | {} | {} | {} | {} | {:.2} ± {:.2} | {:.2} [{:.2}–{:.2}] | {:.1} MiB | {} |\n",
            r.model_type,
            r.model_size as f64 / 1_048_576.0,
            r.n_threads,
            r.dtype,
            r.weights,
            test,
            r.avg_ts,
            r.stddev_ts,
            r.median_ts,
            r.min_ts,
            r.max_ts,
            r.memory_at_ready.rss_anon_kib as f64 / 1024.0,
            if r.target_features.is_empty() {
                "(none)".to_string()
            } else {
                r.target_features.join(",")
            },
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_sample_stddev_follow_llama_bench() {
        let (m, sd) = mean_stddev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(m, 5.0);
        // Sample (n − 1) deviation: sqrt(32 / 7), not the population sqrt(32 / 8) = 2.
        assert!((sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-12, "{sd}");
        assert_eq!(mean_stddev(&[3.0]), (3.0, 0.0));
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[5.0, 1.0, 3.0]), 3.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn prompt_tokens_are_in_range_repeatable_and_seeded() {
        let a = prompt_tokens(512, 49_152, 1);
        assert_eq!(a.len(), 512);
        assert!(a.iter().all(|&t| t < 49_152));
        assert_eq!(a, prompt_tokens(512, 49_152, 1));
        assert_ne!(a, prompt_tokens(512, 49_152, 2));
        // Not a constant or a short cycle: most ids are distinct.
        let distinct: std::collections::HashSet<_> = a.iter().collect();
        assert!(distinct.len() > 480, "{}", distinct.len());
    }

    #[test]
    fn throughput_is_tokens_over_each_sample_then_averaged() {
        let info = ModelInfo {
            path: "m.gguf".into(),
            id: "m".into(),
            format: "gguf",
            architecture: Some("llama".into()),
            quantization: "Q4_1".into(),
            requantized: None,
            layout: None,
            dtype: "bf16".into(),
            weights: crate::weights::Weights::Packed,
            tokenizer: None,
            context_length: None,
            threads: 2,
            load_ms: 1.0,
            memory: Memory::default(),
            target_features: vec![],
        };
        let r = summarize(
            &info,
            10,
            512,
            0,
            Memory::default(),
            &[Duration::from_secs(1), Duration::from_secs(2)],
        );
        assert_eq!(r.samples_ts, vec![512.0, 256.0]);
        // The mean of the rates (384), not tokens over the mean time (341.3).
        assert_eq!(r.avg_ts, 384.0);
        assert_eq!(r.avg_ns, 1_500_000_000);
        assert_eq!(r.median_ts, 384.0);
        assert_eq!((r.min_ts, r.max_ts), (256.0, 512.0));
    }

    #[test]
    fn the_date_is_utc_calendar_time() {
        let t = now_rfc3339();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'), "{t}");
    }
}
