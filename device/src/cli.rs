//! The command line: `serve` (load, answer one warm-up chat, then listen),
//! `speed`, `fetch-model` (a model of the registry into the cache,
//! sha256-checked), `tokenize` (a text's token ids, as the server
//! tokenizes), and the fidelity tools: `logits` writes a reference's base
//! file, `kld` scores a candidate against one, `quantize` writes a
//! re-quantized GGUF file. Every `--model` takes a registry name
//! (`smollm2-135m`, `qwen2.5-coder-0.5b`; fetched if it is not in the
//! cache) or a path.

use std::path::PathBuf;
use std::sync::Arc;

use clap::{Parser, Subcommand};

use crate::engine::{Dtype, Engine, LoadOptions, ModelInfo, PathArgs};
use crate::exit::{self, Failure};
use crate::quantize::{KeepOutput, Target};
use crate::{api, kld, model};

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
    /// Put a model in the cache (default: smollm2-135m); print its path.
    FetchModel(FetchArgs),
    /// Print a text file's token ids, one per line, as the server tokenizes
    /// it: no BOS or other special token added, special tokens in the text
    /// matched (llama-tokenize's `--ids --no-bos`).
    Tokenize(TokenizeArgs),
    /// Save a reference model's log-probabilities over a text as a
    /// llama-perplexity `--kl-divergence-base` file.
    Logits(LogitsArgs),
    /// Score a model against a base file (ours or llama-perplexity's).
    Kld(KldArgs),
    /// Re-quantize a GGUF file: the body to one type, the output head kept.
    Quantize(QuantizeArgs),
}

#[derive(Debug, clap::Args)]
pub struct FetchArgs {
    /// A registry name (default: smollm2-135m).
    pub name: Option<String>,
    /// List the registry instead: name, size, what it is, whether cached.
    #[arg(long, conflicts_with = "name")]
    pub list: bool,
}

#[derive(Debug, clap::Args)]
pub struct TokenizeArgs {
    /// A registry name or a GGUF file (default: the default model).
    #[arg(short = 'm', long)]
    pub model: Option<String>,
    /// The text (UTF-8), tokenized exactly as it is.
    pub file: PathBuf,
    /// GGUF: whose tokenizer (see `serve --tokenizer`).
    #[arg(long, value_enum, default_value = "gguf")]
    pub tokenizer: crate::tokenizer::Source,
    /// Print one JSON array instead of one id per line.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct LogitsArgs {
    /// The reference: a registry name or a GGUF file (default: the default model).
    #[arg(short = 'm', long)]
    pub model: Option<String>,
    #[command(flatten)]
    pub path: PathArgs,
    /// The text, tokenized by the model's own tokenizer (no BOS is added).
    #[arg(short = 'f', long)]
    pub text: PathBuf,
    /// Tokens per chunk; the second half of each is scored.
    #[arg(short = 'c', long = "ctx-size", default_value_t = 512)]
    pub n_ctx: usize,
    /// At most this many chunks (default: as many as the text fills).
    #[arg(long)]
    pub chunks: Option<usize>,
    #[arg(long)]
    pub out: PathBuf,
    #[arg(short = 't', long)]
    pub threads: Option<usize>,
    #[arg(long, value_enum, default_value = "f32")]
    pub dtype: Dtype,
}

#[derive(Debug, clap::Args)]
pub struct QuantizeArgs {
    #[arg(long = "in")]
    pub input: PathBuf,
    #[arg(long = "out")]
    pub output: PathBuf,
    #[arg(long = "type", value_enum)]
    pub target: Target,
    #[arg(long, value_enum, default_value = "same")]
    pub keep_output: KeepOutput,
    /// Print the report (every tensor) as JSON instead of a summary.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KldFormat {
    /// llama-perplexity's closing lines.
    Text,
    /// One JSON object (a `droidscore bench` arm reads the last line).
    Json,
}

#[derive(Debug, clap::Args)]
pub struct KldArgs {
    /// The candidate: a registry name or a GGUF file (default: the default model).
    #[arg(short = 'm', long)]
    pub model: Option<String>,
    #[command(flatten)]
    pub path: PathArgs,
    /// The base file (llama.cpp's format; its tokens are scored as they
    /// are, never re-tokenized).
    #[arg(long)]
    pub base: PathBuf,
    #[arg(short = 't', long)]
    pub threads: Option<usize>,
    #[arg(long, value_enum, default_value = "f32")]
    pub dtype: Dtype,
    /// Score only the first N chunks.
    #[arg(long)]
    pub chunks: Option<usize>,
    #[arg(short = 'o', long = "output", value_enum, default_value = "text")]
    pub output: KldFormat,
}

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// A registry name (fetched into the cache if it is not there), a GGUF
    /// file, or a safetensors directory (multimodal). Default: smollm2-135m.
    #[arg(long)]
    pub model: Option<String>,
    #[command(flatten)]
    pub path: PathArgs,
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
    /// The prefix cache's budget: the KV caches of earlier requests it may
    /// keep for reuse, in MiB; past it the cache is emptied. 0: no prefix
    /// cache.
    #[arg(long, default_value_t = crate::prefix_cache::DEFAULT_BUDGET_MIB)]
    pub prefix_cache_mib: u64,
    /// Exit when standard input closes. The program that started the server
    /// holds the other end of a pipe (`droidscore run` does), so the server
    /// never outlives it, even when it is killed with SIGKILL.
    #[arg(long)]
    pub exit_with_stdin: bool,
    /// Require `Authorization: Bearer TOKEN` on every route, the token read
    /// from this file (`droidscore device deploy` writes one only the shell
    /// user can read). Without it, DROIDSCORE_TOKEN in the environment; with
    /// neither, the server is open to whoever reaches its port.
    #[arg(long)]
    pub token_file: Option<std::path::PathBuf>,
}

/// Run the command line; the process exit code (one of [`crate::exit`]).
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
        Command::FetchModel(args) => fetch_model(args),
        Command::Tokenize(args) => tokenize(args),
        Command::Serve(args) => serve(args),
        Command::Speed(args) => speed(args),
        Command::Kld(args) => kld(args),
        Command::Logits(args) => logits(args),
        Command::Quantize(args) => quantize(args),
    };
    match result {
        Ok(()) => exit::SUCCESS,
        Err(e) => {
            eprintln!("droidscore-device: {e}");
            e.code
        }
    }
}

fn fetch_model(args: FetchArgs) -> Result<(), Failure> {
    let cache = model::cache_dir();
    if args.list {
        for m in model::MODELS {
            let cached = if m.path(&cache).is_file() {
                "cached"
            } else {
                "-"
            };
            println!(
                "{}\t{} MB\t{}\t{}",
                m.name,
                m.size / 1_000_000,
                cached,
                m.about
            );
        }
        return Ok(());
    }
    let name = args.name.as_deref().unwrap_or(model::DEFAULT_NAME);
    let known = model::find(name).ok_or_else(|| {
        format!(
            "{name}: not a model name (known: {}); `fetch-model --list` lists them",
            model::names()
        )
    })?;
    let path = known.fetch(&cache)?;
    println!("{}", path.display());
    Ok(())
}

/// The ids through mistral.rs's own tokenize request on the loaded model:
/// the server's tokenizer by construction, not a copy of it.
fn tokenize(args: TokenizeArgs) -> Result<(), Failure> {
    let text =
        std::fs::read_to_string(&args.file).map_err(|e| format!("{}: {e}", args.file.display()))?;
    let (threads, path, runtime) = prepare(
        Some(1),
        args.model.as_deref(),
        crate::weights::Weights::Packed,
    )?;
    let ids = runtime.block_on(async {
        let engine = Engine::load(&LoadOptions {
            model: path,
            quant: None,
            keep_output: None,
            dtype: Dtype::F32,
            threads,
            prefix_cache: false,
            ignore_eos: false,
            weights: crate::weights::Weights::Packed,
            tokenizer: args.tokenizer,
        })
        .await?;
        engine
            .tokenize(&text)
            .await
            .map_err(|e| Failure::caused(format_args!("{}: tokenizing", args.file.display()), e))
    })?;
    let mut out = String::with_capacity(ids.len() * 6);
    if args.json {
        out = serde_json::to_string(&ids).map_err(|e| e.to_string())?;
        out.push('\n');
    } else {
        for id in ids {
            out.push_str(&id.to_string());
            out.push('\n');
        }
    }
    use std::io::Write;
    Ok(std::io::stdout()
        .write_all(out.as_bytes())
        .map_err(|e| e.to_string())?)
}

/// What `serve` and `speed` set up alike: the thread count (before anything
/// starts rayon's pool: mistral.rs's CPU kernels use it), the weights
/// choice (candle reads it from the environment, once), mistral.rs's file
/// cache (`HF_HOME`, ours, never a hub), the model path and a runtime.
fn prepare(
    threads: Option<usize>,
    model: Option<&str>,
    weights: crate::weights::Weights,
) -> Result<(usize, PathBuf, tokio::runtime::Runtime), Failure> {
    let threads =
        threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    std::env::set_var("RAYON_NUM_THREADS", threads.to_string());
    crate::weights::apply(weights)?;
    if std::env::var_os("HF_HOME").is_none() {
        std::env::set_var("HF_HOME", model::cache_dir().join("hf"));
    }
    let path = model::resolve(model, &model::cache_dir())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    Ok((threads, path, runtime))
}

fn speed(args: crate::speed::SpeedArgs) -> Result<(), Failure> {
    let (threads, path, runtime) = prepare(args.threads, args.model.as_deref(), args.path.weights)?;
    Ok(runtime.block_on(crate::speed::run(&args, path, threads))?)
}

/// A model loaded for teacher-forced logits: no prefix cache (a hit would
/// return logits for the uncached tokens only).
async fn load_for_logits(
    path: PathBuf,
    flags: &PathArgs,
    dtype: Dtype,
    threads: usize,
) -> Result<Engine, crate::engine::LoadError> {
    Engine::load(&LoadOptions {
        model: path,
        quant: flags.quant,
        keep_output: flags.keep_output,
        dtype,
        threads,
        prefix_cache: false,
        ignore_eos: false,
        weights: flags.weights,
        tokenizer: flags.tokenizer,
    })
    .await
}

/// What `kld -o json` prints: the summary's fields at the top level (so a
/// harness spec names them as `kld_mean`, `same_top`, …), the base, and
/// what was loaded.
#[derive(serde::Serialize)]
struct KldResult<'a> {
    #[serde(flatten)]
    summary: &'a kld::Summary,
    base: &'a std::path::Path,
    n_ctx: usize,
    chunks: usize,
    model: &'a ModelInfo,
}

fn kld(args: KldArgs) -> Result<(), Failure> {
    let (threads, path, runtime) = prepare(args.threads, args.model.as_deref(), args.path.weights)?;
    let base_err = |e: std::io::Error| format!("{}: {e}", args.base.display());
    let file = std::fs::File::open(&args.base).map_err(base_err)?;
    let mut reader = std::io::BufReader::new(file);
    let header = kld::BaseHeader::read(&mut reader).map_err(base_err)?;
    let chunks = args.chunks.unwrap_or(header.n_chunk).min(header.n_chunk);
    runtime.block_on(async move {
        let engine = load_for_logits(path, &args.path, args.dtype, threads).await?;
        let n_ctx = header.n_ctx;
        let first = kld::first_scored(n_ctx);
        let mut positions = Vec::new();
        for c in 0..chunks {
            let tokens = header.tokens[c * n_ctx..(c + 1) * n_ctx].to_vec();
            let logits = engine
                .raw_logits(tokens.clone())
                .await
                .map_err(|e| Failure::caused(format_args!("chunk {c}"), e))?;
            for pos in first..n_ctx - 1 {
                let record = kld::read_record(&mut reader, header.n_vocab)
                    .map_err(|e| format!("{}: chunk {c}: {e}", args.base.display()))?;
                let row = logits[pos].get(..header.n_vocab).ok_or_else(|| {
                    format!(
                        "the model's logits have {} entries, the base file's vocabulary {}: \
                         not the same vocabulary",
                        logits[pos].len(),
                        header.n_vocab
                    )
                })?;
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
        if positions.is_empty() {
            return Err(format!("{}: no chunk to score", args.base.display()).into());
        }
        let summary = kld::summarize(&positions);
        match args.output {
            KldFormat::Text => print!("{}", summary.text()),
            KldFormat::Json => {
                let result = KldResult {
                    summary: &summary,
                    base: &args.base,
                    n_ctx,
                    chunks,
                    model: &engine.info,
                };
                println!(
                    "{}",
                    serde_json::to_string(&result).map_err(|e| e.to_string())?
                );
            }
        }
        Ok(())
    })
}

fn logits(args: LogitsArgs) -> Result<(), Failure> {
    let (threads, path, runtime) = prepare(args.threads, args.model.as_deref(), args.path.weights)?;
    let text =
        std::fs::read_to_string(&args.text).map_err(|e| format!("{}: {e}", args.text.display()))?;
    if args.n_ctx < 4 || !args.n_ctx.is_multiple_of(2) {
        return Err(format!(
            "-c {}: a chunk needs an even number of tokens, at least 4",
            args.n_ctx
        )
        .into());
    }
    runtime.block_on(async move {
        let engine = load_for_logits(path, &args.path, args.dtype, threads).await?;
        let tokens = engine
            .tokenize(&text)
            .await
            .map_err(|e| Failure::caused(format_args!("{}: tokenizing", args.text.display()), e))?;
        let fits = tokens.len() / args.n_ctx;
        let n_chunk = args.chunks.unwrap_or(fits).min(fits);
        if n_chunk == 0 {
            return Err(format!(
                "{}: {} tokens, fewer than one chunk of {} (-c)",
                args.text.display(),
                tokens.len(),
                args.n_ctx
            )
            .into());
        }
        let n_ctx = args.n_ctx;
        let first = kld::first_scored(n_ctx);
        let out_err = |e: std::io::Error| format!("{}: {e}", args.out.display());
        let tmp = args.out.with_extension("partial");
        let file = std::fs::File::create(&tmp).map_err(out_err)?;
        let mut w = std::io::BufWriter::new(file);
        let mut header = kld::BaseHeader {
            n_ctx,
            n_vocab: 0,
            n_chunk,
            tokens: tokens[..n_chunk * n_ctx].to_vec(),
        };
        for c in 0..n_chunk {
            let chunk = header.tokens[c * n_ctx..(c + 1) * n_ctx].to_vec();
            let logits = engine
                .raw_logits(chunk)
                .await
                .map_err(|e| Failure::caused(format_args!("chunk {c}"), e))?;
            if c == 0 {
                header.n_vocab = logits[0].len();
                header.write(&mut w).map_err(out_err)?;
            }
            for row in &logits[first..n_ctx - 1] {
                kld::write_record(&mut w, &kld::encode(row)).map_err(out_err)?;
            }
            eprintln!("chunk {}/{n_chunk} saved", c + 1);
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        let file = w.into_inner().map_err(|e| out_err(e.into_error()))?;
        file.sync_all().map_err(out_err)?;
        std::fs::rename(&tmp, &args.out).map_err(out_err)?;
        let summary = serde_json::json!({
            "out": args.out,
            "text": args.text,
            "tokens_in_text": tokens.len(),
            "n_ctx": n_ctx,
            "n_chunk": n_chunk,
            "n_vocab": header.n_vocab,
            "scored_positions": n_chunk * kld::scored_per_chunk(n_ctx),
            "model": engine.info,
        });
        println!("{summary}");
        Ok(())
    })
}

fn quantize(args: QuantizeArgs) -> Result<(), Failure> {
    let report =
        crate::quantize::quantize(&args.input, &args.output, args.target, args.keep_output)?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&report).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", report.summary());
        println!("wrote {}", report.output.display());
    }
    Ok(())
}

fn serve(args: ServeArgs) -> Result<(), Failure> {
    if args.exit_with_stdin {
        // Before the model loads: a parent killed while it loads ends it too.
        std::thread::spawn(|| {
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
            tracing::info!("standard input closed: exiting");
            std::process::exit(exit::SUCCESS);
        });
    }
    // A bad token is refused before the model loads.
    let token = crate::auth::Token::from_file_or_env(args.token_file.as_deref())
        .map_err(|e| e.to_string())?;
    // Prefix-cache resets start engine threads; bound glibc's arenas first.
    crate::runner::one_malloc_arena()?;
    let (threads, path, runtime) = prepare(args.threads, args.model.as_deref(), args.path.weights)?;
    runtime.block_on(async move {
        let engine = Engine::load(&LoadOptions {
            model: path,
            quant: args.path.quant,
            keep_output: args.path.keep_output,
            dtype: args.dtype,
            threads,
            prefix_cache: args.prefix_cache_mib > 0,
            ignore_eos: false,
            weights: args.path.weights,
            tokenizer: args.path.tokenizer,
        })
        .await?;
        engine.set_prefix_cache_budget(args.prefix_cache_mib << 20);
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
            .map_err(|e| {
                Failure::new(
                    exit::LISTEN,
                    format!("failed to listen on {}: {e}", args.listen),
                )
            })?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let info = serde_json::to_string(&engine.info).unwrap_or_default();
        // The base URL on stdout, so a script can wait for it.
        println!("http://{addr}/v1");
        tracing::info!("ready: {info}");
        axum::serve(listener, crate::server::router(Arc::new(engine), token))
            .await
            .map_err(|e| Failure::new(exit::FAILED, e.to_string()))
    })
}
