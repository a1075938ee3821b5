//! The command line: `serve` (load, answer one warm-up chat, then listen) and
//! `fetch-model` (the default model into the cache, sha256-checked).

use std::path::PathBuf;
use std::sync::Arc;

use clap::{Parser, Subcommand};

use crate::engine::{Dtype, Engine, LoadOptions, Quant};
use crate::{api, model};

#[derive(Debug, Parser)]
#[command(
    name = "droidscore-device",
    version,
    about = "The agent's model on the CPU, behind an OpenAI-compatible API"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load a model from local files and serve it.
    Serve(ServeArgs),
    /// Prompt-processing and generation speed, with llama-bench's semantics.
    Speed(crate::speed::SpeedArgs),
    /// Put the default model (SmolLM2-135M-Instruct Q4_1) in the cache; print its path.
    FetchModel,
    /// Score a model against a llama-perplexity `--kl-divergence-base` file.
    Kld(KldArgs),
}

#[derive(Debug, clap::Args)]
pub struct KldArgs {
    /// The candidate: a GGUF file (default: the default model).
    #[arg(short = 'm', long)]
    pub model: Option<PathBuf>,
    /// The base file (llama.cpp's format; its tokens are scored as they are).
    #[arg(long)]
    pub base: PathBuf,
    #[arg(short = 't', long)]
    pub threads: Option<usize>,
    #[arg(long, value_enum, default_value = "f32")]
    pub dtype: Dtype,
    /// Score only the first N chunks.
    #[arg(long)]
    pub chunks: Option<usize>,
}

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// A GGUF file, or a safetensors directory (multimodal). Default: the
    /// default model, fetched into the cache if it is not there.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// In-situ quantization of a safetensors model's linear layers (default
    /// q4k); a GGUF file is served as it is (mistral.rs 0.8.1 does not
    /// re-quantize one), so `--quant` with it is refused.
    #[arg(long, value_enum)]
    pub quant: Option<Quant>,
    /// The dtype of unquantized weights (a safetensors model's vision tower)
    /// and activations. bf16 is refused for safetensors models: candle has
    /// no CPU matmul kernel for it.
    #[arg(long, value_enum, default_value = "f32")]
    pub dtype: Dtype,
    /// CPU threads (RAYON_NUM_THREADS); default: every core.
    #[arg(long)]
    pub threads: Option<usize>,
    #[arg(long, default_value = "127.0.0.1:8077")]
    pub listen: String,
}

/// Run the command line; the process exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "warn,droidscore_device=info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let result = match cli.command {
        Command::FetchModel => model::fetch_default(&model::cache_dir())
            .map(|path| println!("{}", path.display()))
            .map_err(|e| e.to_string()),
        Command::Serve(args) => serve(args),
        Command::Speed(args) => speed(args),
        Command::Kld(args) => kld(args),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("droidscore-device: {e}");
            3
        }
    }
}

/// What `serve` and `speed` set up alike: the thread count (before anything
/// starts rayon's pool: mistral.rs's CPU kernels use it), mistral.rs's file
/// cache (`HF_HOME`, ours, never a hub), the model path and a runtime.
fn prepare(
    threads: Option<usize>,
    model: Option<PathBuf>,
) -> Result<(usize, PathBuf, tokio::runtime::Runtime), String> {
    let threads =
        threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    std::env::set_var("RAYON_NUM_THREADS", threads.to_string());
    if std::env::var_os("HF_HOME").is_none() {
        std::env::set_var("HF_HOME", model::cache_dir().join("hf"));
    }
    let path = match model {
        Some(p) => p,
        None => model::fetch_default(&model::cache_dir()).map_err(|e| e.to_string())?,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    Ok((threads, path, runtime))
}

fn speed(args: crate::speed::SpeedArgs) -> Result<(), String> {
    let (threads, path, runtime) = prepare(args.threads, args.model.clone())?;
    runtime.block_on(crate::speed::run(&args, path, threads))
}

fn kld(args: KldArgs) -> Result<(), String> {
    use crate::kld;
    let (threads, path, runtime) = prepare(args.threads, args.model)?;
    let file =
        std::fs::File::open(&args.base).map_err(|e| format!("{}: {e}", args.base.display()))?;
    let mut reader = std::io::BufReader::new(file);
    let header =
        kld::BaseHeader::read(&mut reader).map_err(|e| format!("{}: {e}", args.base.display()))?;
    let chunks = args.chunks.unwrap_or(header.n_chunk).min(header.n_chunk);
    runtime.block_on(async move {
        let engine = Engine::load(&LoadOptions {
            model: path,
            quant: None,
            dtype: args.dtype,
            threads,
            prefix_cache: false,
            ignore_eos: false,
        })
        .await
        .map_err(|e| e.to_string())?;
        let n_ctx = header.n_ctx;
        let first = kld::first_scored(n_ctx);
        let mut positions = Vec::new();
        for c in 0..chunks {
            let tokens = header.tokens[c * n_ctx..(c + 1) * n_ctx].to_vec();
            let logits = engine
                .raw_logits(tokens.clone())
                .await
                .map_err(|e| format!("chunk {c}: {e}"))?;
            for pos in first..n_ctx - 1 {
                let record = kld::read_record(&mut reader, header.n_vocab)
                    .map_err(|e| format!("{}: chunk {c}: {e}", args.base.display()))?;
                let row = &logits[pos][..header.n_vocab];
                positions.push(kld::score(&record, row, tokens[pos + 1] as usize));
            }
            let s = kld::summarize(&positions);
            eprintln!(
                "chunk {}/{chunks}: KLD {:.6} ± {:.6}, same top {:.2} %",
                c + 1,
                s.kld_mean,
                s.kld_uncertainty,
                100.0 * s.same_top
            );
            // mistral.rs 0.8.1 runs a finished sequence once more: let it.
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        let summary = kld::summarize(&positions);
        println!(
            "{}",
            serde_json::to_string(&summary).map_err(|e| e.to_string())?
        );
        Ok(())
    })
}

fn serve(args: ServeArgs) -> Result<(), String> {
    let (threads, path, runtime) = prepare(args.threads, args.model)?;
    runtime.block_on(async move {
        let engine = Engine::load(&LoadOptions {
            model: path,
            quant: args.quant,
            dtype: args.dtype,
            threads,
            prefix_cache: true,
            ignore_eos: false,
        })
        .await
        .map_err(|e| e.to_string())?;
        // Ready means the model answers: one short chat before the port opens.
        let warm: api::ChatRequest = serde_json::from_value(serde_json::json!({
            "messages": [{"role": "user", "content": "Hi"}],
            // Two, not one: in mistral.rs 0.8.1 a sequence that finishes at
            // its prompt step is set running once more after it has answered.
            "max_tokens": 2,
        }))
        .map_err(|e| e.to_string())?;
        engine
            .chat(&warm)
            .await
            .map_err(|e| format!("the model loaded but did not answer: {}", e.message))?;
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .map_err(|e| format!("failed to listen on {}: {e}", args.listen))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let info = serde_json::to_string(&engine.info).unwrap_or_default();
        // The base URL on stdout, so a script can wait for it.
        println!("http://{addr}/v1");
        tracing::info!("ready: {info}");
        axum::serve(listener, crate::server::router(Arc::new(engine)))
            .await
            .map_err(|e| e.to_string())
    })
}
