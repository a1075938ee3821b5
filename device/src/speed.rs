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
use crate::reported;

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

/// One test's result: the contract's, which `droidscore bench` reads back.
pub use droidscore_contract::speed::TestResult;

/// Why `speed` measured nothing, or stopped part way.
#[derive(Debug, thiserror::Error)]
pub enum SpeedError {
    #[error("-r must be at least 1")]
    NoRepetitions,
    /// The GGUF header, read to size the vocabulary.
    #[error(transparent)]
    Gguf(#[from] crate::gguf::GgufError),
    #[error("{}: no tokenizer.ggml.tokens array to size the vocabulary", .0.display())]
    NoTokenList(PathBuf),
    #[error("{}: {source}", path.display())]
    ReadConfig {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: {source}", path.display())]
    ParseConfig {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{}: no vocab_size (nor text_config.vocab_size)", .0.display())]
    NoVocabSize(PathBuf),
    #[error(transparent)]
    Load(#[from] crate::engine::LoadError),
    /// A request to the loaded model failed.
    #[error("the model failed: {source:#}")]
    Model {
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// mistral.rs ran other token counts than asked: the figure would not
    /// be the test's.
    #[error(
        "asked for {prompt_asked} prompt and {generated_asked} generated tokens, mistral.rs \
         reports {prompt_got} and {generated_got}"
    )]
    TokenCounts {
        prompt_asked: usize,
        generated_asked: usize,
        prompt_got: usize,
        generated_got: usize,
    },
    #[error("the results would not print as JSON: {0}")]
    Print(#[source] serde_json::Error),
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

/// Builds one test's result from its per-repetition wall times (every
/// field but `memory_after`, which the caller measures after the test).
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
        model_filename: Some(info.path.display().to_string()),
        model_type: Some(format!(
            "{} {}",
            info.architecture.as_deref().unwrap_or("?"),
            info.quantization
        )),
        model_size: Some(model_size),
        n_threads: Some(info.threads),
        n_prompt: n_prompt as u64,
        n_gen: n_gen as u64,
        avg_ts,
        test_time: Some(now_rfc3339()),
        avg_ns: Some(avg_ns.round() as u64),
        stddev_ns: Some(stddev_ns.round() as u64),
        stddev_ts: Some(stddev_ts),
        median_ts: Some(median(&samples_ts)),
        min_ts: Some(samples_ts.iter().copied().fold(f64::INFINITY, f64::min)),
        max_ts: Some(samples_ts.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        samples_ns: Some(samples_ns),
        samples_ts: Some(samples_ts),
        quantization: Some(info.quantization.clone()),
        requantized: reported::detail(&info.requantized),
        layout: reported::detail(&info.layout),
        dtype: Some(info.dtype.clone()),
        weights: Some(info.weights.name().to_string()),
        tokenizer: reported::detail(&info.tokenizer),
        target_features: Some(reported::target_features(&info.target_features)),
        memory_at_ready: Some(memory_at_ready),
        memory_after: None,
        load_ms: Some(info.load_ms),
        backend: Some("mistral.rs 0.8.1 CPU".into()),
    }
}

fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// The vocabulary size: a GGUF file's token list, or a config.json's `vocab_size`.
fn vocab_size(path: &std::path::Path) -> Result<u32, SpeedError> {
    if path.is_file() {
        let header = crate::gguf::read_header(path)?;
        match header.get("tokenizer.ggml.tokens") {
            Some(crate::gguf::Value::Array(n)) if *n > 0 => Ok(*n as u32),
            _ => Err(SpeedError::NoTokenList(path.to_owned())),
        }
    } else {
        let config = path.join("config.json");
        let text = std::fs::read_to_string(&config).map_err(|source| SpeedError::ReadConfig {
            path: config.clone(),
            source,
        })?;
        let v: serde_json::Value =
            serde_json::from_str(&text).map_err(|source| SpeedError::ParseConfig {
                path: config.clone(),
                source,
            })?;
        v["vocab_size"]
            .as_u64()
            .or_else(|| v["text_config"]["vocab_size"].as_u64())
            .map(|n| n as u32)
            .ok_or(SpeedError::NoVocabSize(config))
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

/// Runs the tests and prints them.
pub async fn run(args: &SpeedArgs, model: PathBuf, threads: usize) -> Result<(), SpeedError> {
    if args.repetitions == 0 {
        return Err(SpeedError::NoRepetitions);
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
    .await?;
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
                    .map_err(|e| SpeedError::Model { source: e.into() })?;
                let wall = started.elapsed();
                if usage.prompt_tokens != prompt_len || usage.completion_tokens != max_tokens {
                    return Err(SpeedError::TokenCounts {
                        prompt_asked: prompt_len,
                        generated_asked: max_tokens,
                        prompt_got: usage.prompt_tokens,
                        generated_got: usage.completion_tokens,
                    });
                }
                Ok::<Duration, SpeedError>(wall)
            }
        };
        // mistral.rs 0.8.1 runs a sequence that finished at its prompt step
        // (pp: one token asked for) once more after answering; a pause,
        // untimed, lets that step finish before the next repetition starts.
        let settle = || tokio::time::sleep(Duration::from_millis(200));
        time_one(u64::MAX).await?; // warm-up, not counted
        settle().await;
        let ready = *memory_at_ready.get_or_insert_with(crate::engine::memory_now);
        let mut samples = Vec::with_capacity(args.repetitions);
        for rep in 0..args.repetitions as u64 {
            samples.push(time_one(rep).await?);
            settle().await;
        }
        let mut result = summarize(&engine.info, size, n_prompt, n_gen, ready, &samples);
        result.memory_after = Some(crate::engine::memory_now());
        results.push(result);
    }
    match args.output {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&results).map_err(SpeedError::Print)?
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
    // Every field is there in a result `summarize` built; one read from
    // elsewhere shows `?` for what it lacks.
    let text = |v: &Option<String>| v.clone().unwrap_or_else(|| "?".into());
    let number = |v: Option<f64>| v.unwrap_or(f64::NAN);
    for r in results {
        let features = match &r.target_features {
            Some(f) if !f.is_empty() => f.join(","),
            Some(_) => "(none)".to_string(),
            None => "?".to_string(),
        };
        out.push_str(&format!(
            "| {} | {:.2} MiB | {} | {} | {} | {} | {:.2} ± {:.2} | {:.2} [{:.2}–{:.2}] | {:.1} MiB | {} |\n",
            text(&r.model_type),
            number(r.model_size.map(|b| b as f64)) / 1_048_576.0,
            r.n_threads.map_or_else(|| "?".to_string(), |n| n.to_string()),
            text(&r.dtype),
            text(&r.weights),
            r.name(),
            r.avg_ts,
            number(r.stddev_ts),
            number(r.median_ts),
            number(r.min_ts),
            number(r.max_ts),
            number(r.memory_at_ready.map(|m| m.rss_anon_kib as f64)) / 1024.0,
            features,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loaded model as the engine describes it, for the figures' tests.
    fn model_info() -> ModelInfo {
        ModelInfo {
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
        }
    }

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
        let info = model_info();
        let r = summarize(
            &info,
            10,
            512,
            0,
            Memory::default(),
            &[Duration::from_secs(1), Duration::from_secs(2)],
        );
        assert_eq!(r.samples_ts, Some(vec![512.0, 256.0]));
        // The mean of the rates (384), not tokens over the mean time (341.3).
        assert_eq!(r.avg_ts, 384.0);
        assert_eq!(r.avg_ns, Some(1_500_000_000));
        assert_eq!(r.median_ts, Some(384.0));
        assert_eq!((r.min_ts, r.max_ts), (Some(256.0), Some(512.0)));
        assert!(markdown(&[r]).contains("| pp512 | 384.00 ± 181.02 | 384.00 [256.00–512.00] |"));
    }

    #[test]
    fn what_speed_prints_reads_back_as_the_contracts_figures() {
        let info = ModelInfo {
            dtype: "f32".into(),
            load_ms: 812.5,
            target_features: vec!["avx2"],
            ..model_info()
        };
        let ready = Memory {
            rss_anon_kib: 300,
            ..Memory::default()
        };
        let mut r = summarize(&info, 10, 0, 128, ready, &[Duration::from_secs(4)]);
        r.memory_after = Some(crate::engine::memory_now());
        let text = serde_json::to_string_pretty(&[&r]).unwrap();
        let back = droidscore_contract::speed::from_str(&text).unwrap();
        assert_eq!(back, vec![r]);
        assert_eq!(back[0].name(), "tg128");
        assert_eq!(back[0].memory_at_ready.unwrap().rss_anon_kib, 300);
        assert_eq!(back[0].weights.as_deref(), Some("packed"));
    }

    #[test]
    fn a_missing_vocabulary_names_the_file() {
        let env = droidscore_testenv::TestEnv::new("vocab");
        let dir = env.path();
        let e = vocab_size(dir).unwrap_err();
        assert!(matches!(e, SpeedError::ReadConfig { .. }), "{e:?}");
        assert!(std::error::Error::source(&e).is_some());
        std::fs::write(dir.join("config.json"), r#"{"hidden_size": 8}"#).unwrap();
        let e = vocab_size(dir).unwrap_err().to_string();
        assert!(
            e.ends_with("config.json: no vocab_size (nor text_config.vocab_size)"),
            "{e}"
        );
        std::fs::write(
            dir.join("config.json"),
            r#"{"text_config": {"vocab_size": 7}}"#,
        )
        .unwrap();
        assert_eq!(vocab_size(dir).unwrap(), 7);
    }

    #[test]
    fn the_date_is_utc_calendar_time() {
        let t = now_rfc3339();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'), "{t}");
    }
}
