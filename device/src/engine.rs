//! The model behind the API: loaded through mistral.rs from local files only
//! (a GGUF text model, or a safetensors directory for a multimodal model with
//! in-situ 4-bit quantization), on the CPU, with what was loaded — file type,
//! threads, load time and resident memory — kept for `/health`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use mistralrs::core::MistralRs;
use mistralrs::{IsqType, ModelDType, MultimodalModelBuilder, TokenSource};

use crate::gguf;
use crate::prefix_cache::{KvGeometry, PrefixCache};
use crate::quantize::{self, KeepOutput, Layout, Requantized, Target};
use crate::runner::{MistralRsFailed, Runner, RunnerConfig, RunnerError};

/// The 4-bit path: in-situ quantization of a safetensors model's linear
/// layers (ISQ), or a GGUF file re-quantized by `crate::quantize` into the
/// cache before it loads (`none`: the file as it is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Quant {
    Q4k,
    #[value(name = "q4_0")]
    #[serde(rename = "q4_0")]
    Q4_0,
    #[value(name = "q8_0")]
    #[serde(rename = "q8_0")]
    Q8_0,
    None,
}

/// The dtype of unquantized weights and activations — for a safetensors
/// model the whole vision tower, which ISQ never touches; for a GGUF file the
/// activations and the few unquantized tensors (norms).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dtype {
    F32,
    F16,
    /// Refused: candle 0.10.2's CPU matmul has no bf16 kernel, so the
    /// vision tower fails on the first image ("unsupported dtype BF16 for op
    /// matmul"); only ISQ'd text layers would run.
    Bf16,
}

impl Quant {
    pub fn name(self) -> &'static str {
        match self {
            Quant::Q4k => "q4k",
            Quant::Q4_0 => "q4_0",
            Quant::Q8_0 => "q8_0",
            Quant::None => "none",
        }
    }

    /// The quantizer's target for a GGUF file.
    pub fn target(self) -> Option<Target> {
        match self {
            Quant::Q4k => Some(Target::Q4k),
            Quant::Q4_0 => Some(Target::Q4_0),
            Quant::Q8_0 => Some(Target::Q8_0),
            Quant::None => None,
        }
    }

    fn isq(self) -> Option<IsqType> {
        match self {
            Quant::Q4k => Some(IsqType::Q4K),
            Quant::Q4_0 => Some(IsqType::Q4_0),
            Quant::Q8_0 => Some(IsqType::Q8_0),
            Quant::None => None,
        }
    }
}

impl Dtype {
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "f32",
            Dtype::F16 => "f16",
            Dtype::Bf16 => "bf16",
        }
    }

    fn model_dtype(self) -> ModelDType {
        match self {
            Dtype::F32 => ModelDType::F32,
            Dtype::F16 => ModelDType::F16,
            Dtype::Bf16 => ModelDType::BF16,
        }
    }

    /// Bytes an activation (and a KV cache element) takes.
    pub fn bytes(self) -> usize {
        match self {
            Dtype::F32 => 4,
            Dtype::F16 | Dtype::Bf16 => 2,
        }
    }
}

/// The 4-bit path, weights and tokenizer: the same flags on every command
/// that loads a model.
#[derive(Debug, Clone, clap::Args)]
pub struct PathArgs {
    /// GGUF: `packed` (the file's own quantized blocks), or every weight
    /// dequantized at load to dense `f16` / `f32` (process-wide: candle
    /// reads CANDLE_DEQUANTIZE_ALL[_F16] once).
    #[arg(long, value_enum, default_value = "packed")]
    pub weights: crate::weights::Weights,
    /// GGUF: `gguf` (built from the file's own vocabulary and
    /// tokenizer.ggml.pre, as llama.cpp tokenizes) or `mistralrs` (its
    /// built-in conversion, one Qwen2-style pre-tokenizer for every file).
    #[arg(long, value_enum, default_value = "gguf")]
    pub tokenizer: crate::tokenizer::Source,
    /// A GGUF file is re-quantized into the cache first (`none` or absent:
    /// as it is); a safetensors model is quantized in situ (default q4k).
    #[arg(long, value_enum)]
    pub quant: Option<Quant>,
    /// A re-quantized GGUF file's output head: `same` (default: as in the
    /// source), `q8_0`, `f16`, or `no` (with the body).
    #[arg(long, value_enum)]
    pub keep_output: Option<KeepOutput>,
}

#[derive(Debug, Clone)]
pub struct LoadOptions {
    pub model: PathBuf,
    /// The 4-bit path. `None`: a GGUF file as it is, a safetensors model at
    /// q4k.
    pub quant: Option<Quant>,
    /// A re-quantized GGUF file's output head (default `same`: as in the
    /// source); refused without `quant`, and for safetensors models.
    pub keep_output: Option<KeepOutput>,
    pub dtype: Dtype,
    pub threads: usize,
    /// Reuse the KV cache of an earlier request's prefix (the server: yes;
    /// a speed probe: no, every repetition starts from an empty cache),
    /// within [`crate::prefix_cache::DEFAULT_BUDGET_MIB`] unless
    /// [`Engine::set_prefix_cache_budget`] says otherwise.
    pub prefix_cache: bool,
    /// Keep generating past end-of-sequence (a speed probe's tg: exactly n
    /// tokens). GGUF only: `MultimodalModelBuilder` has no such switch, so a
    /// safetensors model still stops at EOS, and `speed` then reports the
    /// token count it got as an error rather than a figure.
    pub ignore_eos: bool,
    /// GGUF: packed, or dequantized at load (`crate::weights`).
    pub weights: crate::weights::Weights,
    /// GGUF: our tokenizer from the file, or mistral.rs's (`crate::tokenizer`).
    pub tokenizer: crate::tokenizer::Source,
}

/// What was loaded, reported at `/health` and with every speed figure.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ModelInfo {
    pub path: PathBuf,
    /// The id clients send as `model`.
    pub id: String,
    pub format: &'static str,
    pub architecture: Option<String>,
    /// GGUF: llama.cpp's file type (`Q4_1`); safetensors: the ISQ type.
    pub quantization: String,
    /// GGUF: the file re-quantized from `path` before loading, if it was.
    pub requantized: Option<Requantized>,
    /// GGUF: the packed layout of the file that was loaded, from its tensors.
    pub layout: Option<Layout>,
    /// The dtype asked for (`--dtype`).
    pub dtype: String,
    /// How the quantized weights are held (`--weights`).
    pub weights: crate::weights::Weights,
    /// GGUF: what tokenizes (`--tokenizer`).
    pub tokenizer: Option<crate::tokenizer::Info>,
    pub context_length: Option<i128>,
    pub threads: usize,
    pub load_ms: f64,
    /// Resident memory once loaded, as the kernel counts it.
    pub memory: Memory,
    /// The x86/aarch64 target features this binary was compiled with.
    pub target_features: Vec<&'static str>,
}

/// The contract's memory figures (what `/health` and `speed` report).
pub use droidscore_contract::health::Memory;

/// This process's memory now, from `/proc/self/status`: pages the kernel
/// says are resident, anonymous and file-backed (a memory-mapped model file
/// counts as file-backed), and the peak.
pub fn memory_now() -> Memory {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    Memory {
        rss_kib: field("VmRSS:"),
        rss_anon_kib: field("RssAnon:"),
        rss_file_kib: field("RssFile:"),
        peak_rss_kib: field("VmHWM:"),
    }
}

/// The compile-time target features that select candle's kernels.
pub fn target_features() -> Vec<&'static str> {
    let mut on = Vec::new();
    macro_rules! probe {
        ($($f:literal),*) => {$(
            if cfg!(target_feature = $f) { on.push($f); }
        )*};
    }
    probe!(
        "sse3", "ssse3", "sse4.1", "sse4.2", "avx", "avx2", "fma", "f16c", "avx512f", "neon",
        "dotprod", "i8mm"
    );
    on
}

/// Why a model did not load; every message names its file or directory.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Gguf(#[from] gguf::GgufError),
    #[error(transparent)]
    Tokenizer(#[from] crate::tokenizer::TokenizerError),
    #[error("{path}: {why}")]
    Model { path: PathBuf, why: String },
    #[error("{path}: {source}")]
    Weights {
        path: PathBuf,
        #[source]
        source: crate::weights::WeightsError,
    },
    #[error("{path}: re-quantizing it: {source}")]
    Requantize {
        path: PathBuf,
        #[source]
        source: quantize::QuantizeError,
    },
    #[error("{path}: {source}")]
    Layout {
        path: PathBuf,
        #[source]
        source: quantize::QuantizeError,
    },
    #[error("{path}: mistral.rs could not load it: {source}")]
    MistralRs {
        path: PathBuf,
        #[source]
        source: MistralRsFailed,
    },
    #[error("{path}: mistral.rs could not start an engine: {source}")]
    Engine {
        path: PathBuf,
        #[source]
        source: RunnerError,
    },
}

/// Why a request to a loaded model failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("the engine could not be restarted after a reset")]
    NoEngine,
    #[error(transparent)]
    MistralRs(#[from] MistralRsFailed),
    #[error("the engine closed the channel")]
    Closed,
    /// mistral.rs refused the request or failed inside; its words.
    #[error("{0}")]
    Refused(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The model failed while running it; mistral.rs's words.
    #[error("{0}")]
    Model(String),
    #[error("an unexpected kind of response")]
    Unexpected,
    #[error("raw logits: no chunk")]
    NoLogits,
    #[error("raw logits: {rows} rows for {tokens} tokens (a prefix cache hit?)")]
    Rows { rows: usize, tokens: usize },
}

/// A loaded model.
pub struct Engine {
    /// The mistral.rs engine over the model; replaced by a fresh one when
    /// the prefix cache is reset. Chats hold it for their whole run, so one
    /// runs at a time (mistral.rs schedules one sequence at a time anyway)
    /// and the prefix-cache bookkeeping sees them in order.
    pub(crate) runner: tokio::sync::Mutex<Option<Runner>>,
    pub(crate) runner_config: RunnerConfig,
    pub(crate) prefix_cache: Mutex<PrefixCache>,
    /// The end-of-sequence tokens llguidance may end a grammar with, added
    /// as stop tokens to a constrained request (see `chat.rs`).
    pub(crate) grammar_stops: Vec<u32>,
    pub info: ModelInfo,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("info", &self.info).finish()
    }
}

/// A GGUF file through mistral.rs's loader directly: its `GgufModelBuilder`
/// fixes the activation dtype to `Auto` and cannot ignore end-of-sequence on
/// request; a speed probe needs both chosen. The engine is built over it
/// separately (`runner.rs`).
fn load_gguf(
    path: &Path,
    options: &LoadOptions,
    tokenizer: Option<&Path>,
) -> Result<RunnerConfig, MistralRsFailed> {
    use mistralrs::core::{GGUFLoaderBuilder, GGUFSpecificConfig};
    use mistralrs::{
        AutoDeviceMapParams, DefaultSchedulerMethod, DeviceMapSetting, SchedulerConfig,
    };
    // A bare file name has an empty parent, which mistral.rs takes for a
    // Hugging Face repository id.
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let file = path
        .file_name()
        .ok_or_else(|| MistralRsFailed::new("no file name"))?
        .to_string_lossy()
        .into_owned();
    // Our tokenizer goes in as a tokenizer model directory (the chat
    // template comes with it, copied from the file).
    let loader = GGUFLoaderBuilder::new(
        None,
        tokenizer.map(|d| d.to_string_lossy().into_owned()),
        dir.to_string_lossy().into_owned(),
        vec![file],
        GGUFSpecificConfig { topology: None },
        false,
        None,
    )
    .build();
    let pipeline = loader
        .load_model_from_hf(
            None,
            TokenSource::None,
            &options.dtype.model_dtype(),
            &mistralrs::Device::Cpu,
            true,
            DeviceMapSetting::Auto(AutoDeviceMapParams::default_text()),
            None,
            None,
        )
        .map_err(MistralRsFailed::new)?;
    let scheduler = SchedulerConfig::DefaultScheduler {
        method: DefaultSchedulerMethod::Fixed(1.try_into().map_err(MistralRsFailed::new)?),
    };
    Ok(RunnerConfig {
        pipeline,
        scheduler,
        prefix_cache: options.prefix_cache,
        ignore_eos: options.ignore_eos,
    })
}

/// Multimodal architectures whose mistral.rs 0.8.1 loader does not override
/// `supports_prefix_cacher` (default false, `multimodal_loaders.rs`): the
/// engine turns the prefix cache off for them whatever it is asked.
fn multimodal_prefix_cache_off(config: &serde_json::Value) -> Option<String> {
    let arch = config["architectures"][0].as_str().unwrap_or("");
    let off = ["Qwen2VL", "Qwen2_5_VL", "Llama4", "MiniCPMO", "Voxtral"];
    off.iter().any(|a| arch.starts_with(a)).then(|| {
        format!(
            "mistral.rs 0.8.1 keeps no prefix cache for {arch} (its loader does not support one)"
        )
    })
}

fn model_id(path: &Path) -> String {
    path.file_stem()
        .or_else(|| path.file_name())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model".into())
}

impl Engine {
    /// Load from local files. Errors name the file and come before any port opens.
    pub async fn load(options: &LoadOptions) -> Result<Engine, LoadError> {
        let path = &options.model;
        let model_err = |why: String| LoadError::Model {
            path: path.clone(),
            why,
        };
        let mut started = Instant::now();
        let mut requantized = None;
        let mut layout = None;
        let mut tokenizer = None;
        let geometry;
        let mut off_because = None;
        let (runner_config, format, architecture, quantization, dtype, context_length) =
            if path.is_file() {
                gguf::read_header(path)?;
                crate::weights::apply(options.weights).map_err(|source| LoadError::Weights {
                    path: path.clone(),
                    source,
                })?;
                // mistral.rs 0.8.1 does not re-quantize a GGUF file in situ
                // ("this will not do anything"): ours does, into the cache.
                let target = options.quant.and_then(Quant::target);
                if target.is_none() && options.keep_output.is_some() {
                    return Err(model_err(
                        "--keep-output chooses a re-quantized file's output head: give --quant \
                     q4_0, q4k or q8_0 with it"
                            .into(),
                    ));
                }
                if let Some(target) = target {
                    let keep = options.keep_output.unwrap_or(KeepOutput::Same);
                    let cache = crate::model::cache_dir().join("quantized");
                    let write = quantize::in_child_process(target, keep);
                    let done =
                        quantize::cached(path, target, keep, &cache, write).map_err(|source| {
                            LoadError::Requantize {
                                path: path.clone(),
                                source,
                            }
                        })?;
                    if done.written_now {
                        tracing::info!("re-quantized into {}", done.file.display());
                    }
                    requantized = Some(done);
                    // load_ms is the load's, not the quantizer's.
                    started = Instant::now();
                }
                let file = requantized
                    .as_ref()
                    .map_or(path.as_path(), |r| r.file.as_path());
                let header = gguf::read_header(file)?;
                layout = Some(quantize::layout(file).map_err(|source| LoadError::Layout {
                    path: path.clone(),
                    source,
                })?);
                geometry = KvGeometry::from_gguf(&header, options.dtype.bytes());
                let used = crate::tokenizer::for_gguf(file, options.tokenizer)?;
                let config = load_gguf(file, options, used.dir.as_deref()).map_err(|source| {
                    LoadError::MistralRs {
                        path: path.clone(),
                        source,
                    }
                })?;
                tokenizer = Some(used);
                (
                    config,
                    "gguf",
                    header.architecture().map(str::to_string),
                    header.file_type().unwrap_or("unknown").to_string(),
                    options.dtype.name().to_string(),
                    header.context_length(),
                )
            } else if path.join("config.json").is_file() {
                if options.keep_output.is_some() {
                    return Err(model_err(
                        "--keep-output applies to a re-quantized GGUF file; a safetensors model's \
                     output head is left to mistral.rs's ISQ"
                            .into(),
                    ));
                }
                crate::weights::check_safetensors(options.weights)
                    .and_then(|()| crate::weights::apply(options.weights))
                    .map_err(|source| LoadError::Weights {
                        path: path.clone(),
                        source,
                    })?;
                if options.dtype == Dtype::Bf16 {
                    return Err(model_err(
                        "--dtype bf16 cannot serve images on the CPU: candle's CPU matmul has no \
                     bf16 kernel and the vision tower is never quantized; use f32 or f16"
                            .into(),
                    ));
                }
                // The builder's own engine is not used (its prefix cache is off
                // unless `with_prefix_cache_n` and unbounded if on): only its
                // pipeline, under our runner, like a GGUF file's.
                let mut builder = MultimodalModelBuilder::new(path.to_string_lossy())
                    .with_token_source(TokenSource::None)
                    .with_force_cpu()
                    .with_max_num_seqs(1)
                    .with_dtype(options.dtype.model_dtype());
                let quant = options.quant.unwrap_or(Quant::Q4k);
                if let Some(isq) = quant.isq() {
                    builder = builder.with_isq(isq);
                }
                let config: serde_json::Value = std::fs::read(path.join("config.json"))
                    .ok()
                    .and_then(|b| serde_json::from_slice(&b).ok())
                    .ok_or_else(|| model_err("config.json does not parse as JSON".into()))?;
                geometry = KvGeometry::from_config(&config, options.dtype.bytes());
                if options.prefix_cache {
                    off_because = multimodal_prefix_cache_off(&config);
                }
                let (pipeline, scheduler, _) =
                    mistralrs::model_builder_trait::build_multimodal_pipeline(builder)
                        .await
                        .map_err(|e| LoadError::MistralRs {
                            path: path.clone(),
                            source: MistralRsFailed::new(e),
                        })?;
                (
                    RunnerConfig {
                        pipeline,
                        scheduler,
                        prefix_cache: options.prefix_cache,
                        ignore_eos: options.ignore_eos,
                    },
                    "safetensors",
                    config["model_type"].as_str().map(str::to_string),
                    quant.name().to_string(),
                    options.dtype.name().to_string(),
                    None,
                )
            } else if path.exists() {
                return Err(model_err(
                    "neither a GGUF file nor a directory with config.json".into(),
                ));
            } else {
                return Err(model_err("no such file or directory".into()));
            };
        if options.prefix_cache && geometry.is_none() && off_because.is_none() {
            off_because = Some(
                "the model's KV cache shape is not in its header or config.json, so no \
                 budget can be kept; the prefix cache is off"
                    .into(),
            );
        }
        let enabled = options.prefix_cache && off_because.is_none();
        let runner_config = RunnerConfig {
            prefix_cache: enabled,
            ..runner_config
        };
        let runner = Runner::build(&runner_config)
            .await
            .map_err(|source| LoadError::Engine {
                path: path.clone(),
                source,
            })?;
        let off_because = off_because
            .or_else(|| (!options.prefix_cache).then(|| "turned off for this command".to_string()));
        let info = ModelInfo {
            path: path.clone(),
            id: model_id(path),
            format,
            architecture,
            quantization,
            requantized,
            layout,
            dtype,
            weights: options.weights,
            tokenizer,
            context_length,
            threads: options.threads,
            load_ms: started.elapsed().as_secs_f64() * 1e3,
            memory: memory_now(),
            target_features: target_features(),
        };
        let budget = crate::prefix_cache::DEFAULT_BUDGET_MIB << 20;
        let engine = Engine {
            runner: tokio::sync::Mutex::new(Some(runner)),
            runner_config,
            prefix_cache: Mutex::new(PrefixCache::new(enabled, off_because, budget, geometry)),
            grammar_stops: Vec::new(),
            info,
        };
        let grammar_stops = engine.find_grammar_stops().await;
        Ok(Engine {
            grammar_stops,
            ..engine
        })
    }

    /// The prefix cache's byte budget (`serve --prefix-cache-mib`).
    pub fn set_prefix_cache_budget(&self, bytes: u64) {
        self.prefix_cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .budget_bytes = bytes;
    }

    /// `/health`'s `prefix_cache`.
    pub fn prefix_cache_report(&self) -> crate::prefix_cache::Report {
        self.prefix_cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .report()
    }

    /// The current mistral.rs runner, for a request that does not touch the
    /// prefix cache.
    pub(crate) async fn mistralrs(&self) -> Result<Arc<MistralRs>, EngineError> {
        self.runner
            .lock()
            .await
            .as_ref()
            .map(|r| r.mistralrs.clone())
            .ok_or(EngineError::NoEngine)
    }

    /// Sends `request` to the current engine.
    async fn send(&self, request: mistralrs::Request) -> Result<(), EngineError> {
        self.mistralrs()
            .await?
            .get_sender(None)
            .map_err(MistralRsFailed::new)?
            .send(request)
            .await
            .map_err(|_| EngineError::Closed)
    }

    /// The end-of-sequence tokens llguidance knows (toktrie_hf_tokenizers
    /// takes the first of these names it finds as EOS), as this model's
    /// tokenizer has them: each must be one token that reads back as itself.
    async fn find_grammar_stops(&self) -> Vec<u32> {
        let Ok(mistralrs) = self.mistralrs().await else {
            return Vec::new();
        };
        let model = mistralrs::Model::new(mistralrs);
        let mut stops = Vec::new();
        for name in [
            "<|endoftext|>",
            "<|im_end|>",
            "</s>",
            "<|end_of_text|>",
            "<|eot_id|>",
            "<|end|>",
            "<eos>",
        ] {
            let Ok(ids) = model
                .tokenize(
                    either::Either::Right(name.to_string()),
                    None,
                    false,
                    false,
                    None,
                )
                .await
            else {
                continue;
            };
            if let [id] = ids[..] {
                if model.detokenize(vec![id], false).await.ok().as_deref() == Some(name) {
                    stops.push(id);
                }
            }
        }
        stops
    }

    /// One request of prompt token ids (no chat template), answered with
    /// `max_tokens` tokens at temperature 0; mistral.rs's usage.
    pub async fn complete_tokens(
        &self,
        tokens: Vec<u32>,
        max_tokens: usize,
    ) -> Result<mistralrs::Usage, EngineError> {
        use mistralrs::{
            Constraint, NormalRequest, Request, RequestMessage, Response, SamplingParams,
        };
        let (tx, mut rx) = tokio::sync::mpsc::channel(1);
        let mut sampling = SamplingParams::deterministic();
        sampling.max_len = Some(max_tokens);
        let request = Request::Normal(Box::new(NormalRequest {
            messages: RequestMessage::CompletionTokens(tokens),
            sampling_params: sampling,
            response: tx,
            return_logprobs: false,
            is_streaming: false,
            id: 0,
            constraint: Constraint::None,
            suffix: None,
            tools: None,
            tool_choice: None,
            logits_processors: None,
            return_raw_logits: false,
            web_search_options: None,
            model_id: None,
            truncate_sequence: false,
        }));
        self.send(request).await?;
        match rx.recv().await {
            Some(Response::CompletionDone(done)) => Ok(done.usage),
            Some(Response::Done(done)) => Ok(done.usage),
            Some(Response::InternalError(e)) | Some(Response::ValidationError(e)) => {
                Err(EngineError::Refused(e))
            }
            Some(Response::CompletionModelError(e, _)) | Some(Response::ModelError(e, _)) => {
                Err(EngineError::Model(e))
            }
            Some(_) => Err(EngineError::Unexpected),
            None => Err(EngineError::Closed),
        }
    }

    /// Full-vocabulary logits at every position of `tokens` (teacher
    /// forcing: the tokens are the prompt, nothing is sampled from them), as
    /// `[position][vocab]`. mistral.rs's raw-logits mode keeps every prompt
    /// position before the output head. The prefix cache must be off, or a
    /// cached prefix's positions would be missing.
    pub async fn raw_logits(&self, tokens: Vec<u32>) -> Result<Vec<Vec<f32>>, EngineError> {
        use mistralrs::{
            Constraint, NormalRequest, Request, RequestMessage, Response, SamplingParams,
        };
        let n = tokens.len();
        let (tx, mut rx) = tokio::sync::mpsc::channel(2);
        let mut sampling = SamplingParams::deterministic();
        sampling.max_len = Some(1);
        let request = Request::Normal(Box::new(NormalRequest {
            messages: RequestMessage::CompletionTokens(tokens),
            sampling_params: sampling,
            response: tx,
            return_logprobs: false,
            is_streaming: false,
            id: 0,
            constraint: Constraint::None,
            suffix: None,
            tools: None,
            tool_choice: None,
            logits_processors: None,
            return_raw_logits: true,
            web_search_options: None,
            model_id: None,
            truncate_sequence: false,
        }));
        self.send(request).await?;
        match rx.recv().await {
            Some(Response::Raw { logits_chunks, .. }) => {
                let first = logits_chunks.first().ok_or(EngineError::NoLogits)?;
                let rows = first
                    .to_dtype(mistralrs::DType::F32)
                    .and_then(|t| t.to_device(&mistralrs::Device::Cpu))
                    .and_then(|t| if t.rank() == 3 { t.squeeze(0) } else { Ok(t) })
                    .and_then(|t| t.to_vec2::<f32>())
                    .map_err(MistralRsFailed::new)?;
                if rows.len() != n {
                    return Err(EngineError::Rows {
                        rows: rows.len(),
                        tokens: n,
                    });
                }
                Ok(rows)
            }
            Some(Response::InternalError(e)) | Some(Response::ValidationError(e)) => {
                Err(EngineError::Refused(e))
            }
            Some(Response::ModelError(e, _)) => Err(EngineError::Model(e)),
            Some(_) => Err(EngineError::Unexpected),
            None => Err(EngineError::Closed),
        }
    }

    /// The model's own tokenization of plain text: no chat template, no
    /// special tokens added (llama-perplexity adds BOS only when the model
    /// asks for it; SmolLM2 does not).
    pub async fn tokenize(&self, text: &str) -> Result<Vec<u32>, EngineError> {
        Ok(mistralrs::Model::new(self.mistralrs().await?)
            .tokenize(
                either::Either::Right(text.to_string()),
                None,
                false,
                false,
                None,
            )
            .await
            .map_err(MistralRsFailed::new)?)
    }
}
