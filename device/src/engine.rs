//! The model behind the API: loaded through mistral.rs from local files only
//! (a GGUF text model, or a safetensors directory for a multimodal model with
//! in-situ 4-bit quantization), on the CPU, with what was loaded — file type,
//! threads, load time and resident memory — kept for `/health`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use mistralrs::{
    IsqType, ModelDType, MultimodalModelBuilder, RequestBuilder, TextMessageRole, TokenSource,
};

use crate::api::{ApiError, ChatRequest, Usage};
use crate::gguf;
use crate::logprobs::{self, Recorder};
use crate::quantize::{self, KeepOutput, Layout, Requantized, Target};

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
    /// a speed probe: no, every repetition starts from an empty cache).
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

/// `/proc/self/status`: pages the kernel says are resident, anonymous and
/// file-backed (a memory-mapped model file counts as file-backed).
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Memory {
    pub rss_kib: u64,
    pub rss_anon_kib: u64,
    pub rss_file_kib: u64,
    pub peak_rss_kib: u64,
}

impl Memory {
    pub fn now() -> Memory {
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

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Gguf(#[from] gguf::GgufError),
    #[error(transparent)]
    Tokenizer(#[from] crate::tokenizer::TokenizerError),
    #[error("{path}: {why}")]
    Model { path: PathBuf, why: String },
}

/// A loaded model.
pub struct Engine {
    model: mistralrs::Model,
    pub info: ModelInfo,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("info", &self.info).finish()
    }
}

/// A GGUF file through mistral.rs's loader directly: its `GgufModelBuilder`
/// fixes the activation dtype to `Auto` and cannot ignore end-of-sequence on
/// request; a speed probe needs both chosen.
async fn load_gguf(
    path: &Path,
    options: &LoadOptions,
    tokenizer: Option<&Path>,
) -> anyhow::Result<mistralrs::Model> {
    use mistralrs::core::{GGUFLoaderBuilder, GGUFSpecificConfig, MistralRsBuilder};
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
        .ok_or_else(|| anyhow::anyhow!("no file name"))?
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
    let pipeline = loader.load_model_from_hf(
        None,
        TokenSource::None,
        &options.dtype.model_dtype(),
        &mistralrs::Device::Cpu,
        true,
        DeviceMapSetting::Auto(AutoDeviceMapParams::default_text()),
        None,
        None,
    )?;
    let scheduler = SchedulerConfig::DefaultScheduler {
        method: DefaultSchedulerMethod::Fixed(1.try_into()?),
    };
    let runner = MistralRsBuilder::new(pipeline, scheduler, false, None)
        .with_no_prefix_cache(!options.prefix_cache)
        .with_disable_eos_stop(options.ignore_eos)
        .build()
        .await;
    Ok(mistralrs::Model::new(runner))
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
        let (model, format, architecture, quantization, dtype, context_length) = if path.is_file() {
            gguf::read_header(path)?;
            crate::weights::apply(options.weights).map_err(|e| model_err(e.to_string()))?;
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
                let done = quantize::cached(path, target, keep, &cache, write)
                    .map_err(|e| model_err(format!("re-quantizing it: {e}")))?;
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
            layout = Some(quantize::layout(file).map_err(|e| model_err(e.to_string()))?);
            let used = crate::tokenizer::for_gguf(file, options.tokenizer)?;
            let model = load_gguf(file, options, used.dir.as_deref())
                .await
                .map_err(|e| model_err(format!("mistral.rs could not load it: {e:#}")))?;
            tokenizer = Some(used);
            (
                model,
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
                .map_err(|e| model_err(e.to_string()))?;
            if options.dtype == Dtype::Bf16 {
                return Err(model_err(
                    "--dtype bf16 cannot serve images on the CPU: candle's CPU matmul has no \
                     bf16 kernel and the vision tower is never quantized; use f32 or f16"
                        .into(),
                ));
            }
            let mut builder = MultimodalModelBuilder::new(path.to_string_lossy())
                .with_token_source(TokenSource::None)
                .with_force_cpu()
                .with_max_num_seqs(1)
                .with_dtype(options.dtype.model_dtype());
            if !options.prefix_cache {
                builder = builder.with_prefix_cache_n(None);
            }
            let quant = options.quant.unwrap_or(Quant::Q4k);
            if let Some(isq) = quant.isq() {
                builder = builder.with_isq(isq);
            }
            let config: serde_json::Value = std::fs::read(path.join("config.json"))
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok())
                .ok_or_else(|| model_err("config.json does not parse as JSON".into()))?;
            let model = builder
                .build()
                .await
                .map_err(|e| model_err(format!("mistral.rs could not load it: {e:#}")))?;
            (
                model,
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
            memory: Memory::now(),
            target_features: target_features(),
        };
        Ok(Engine { model, info })
    }

    /// One request of prompt token ids (no chat template), answered with
    /// `max_tokens` tokens at temperature 0; mistral.rs's usage.
    pub async fn complete_tokens(
        &self,
        tokens: Vec<u32>,
        max_tokens: usize,
    ) -> anyhow::Result<mistralrs::Usage> {
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
        self.model.inner().get_sender(None)?.send(request).await?;
        match rx.recv().await {
            Some(Response::CompletionDone(done)) => Ok(done.usage),
            Some(Response::Done(done)) => Ok(done.usage),
            Some(Response::InternalError(e)) | Some(Response::ValidationError(e)) => {
                Err(anyhow::anyhow!("{e}"))
            }
            Some(Response::CompletionModelError(e, _)) | Some(Response::ModelError(e, _)) => {
                Err(anyhow::anyhow!("{e}"))
            }
            Some(_) => Err(anyhow::anyhow!("an unexpected kind of response")),
            None => Err(anyhow::anyhow!("the engine closed the channel")),
        }
    }

    /// Full-vocabulary logits at every position of `tokens` (teacher
    /// forcing: the tokens are the prompt, nothing is sampled from them), as
    /// `[position][vocab]`. mistral.rs's raw-logits mode keeps every prompt
    /// position before the output head. The prefix cache must be off, or a
    /// cached prefix's positions would be missing.
    pub async fn raw_logits(&self, tokens: Vec<u32>) -> anyhow::Result<Vec<Vec<f32>>> {
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
        self.model.inner().get_sender(None)?.send(request).await?;
        match rx.recv().await {
            Some(Response::Raw { logits_chunks, .. }) => {
                let first = logits_chunks
                    .first()
                    .ok_or_else(|| anyhow::anyhow!("raw logits: no chunk"))?;
                let rows = first
                    .to_dtype(mistralrs::DType::F32)?
                    .to_device(&mistralrs::Device::Cpu)?;
                let rows = if rows.rank() == 3 {
                    rows.squeeze(0)?
                } else {
                    rows
                };
                let rows: Vec<Vec<f32>> = rows.to_vec2()?;
                anyhow::ensure!(
                    rows.len() == n,
                    "raw logits: {} rows for {n} tokens (a prefix cache hit?)",
                    rows.len()
                );
                Ok(rows)
            }
            Some(Response::InternalError(e)) | Some(Response::ValidationError(e)) => {
                Err(anyhow::anyhow!("{e}"))
            }
            Some(Response::ModelError(e, _)) => Err(anyhow::anyhow!("{e}")),
            Some(_) => Err(anyhow::anyhow!("an unexpected kind of response")),
            None => Err(anyhow::anyhow!("the engine closed the channel")),
        }
    }

    /// The model's own tokenization of plain text: no chat template, no
    /// special tokens added (llama-perplexity adds BOS only when the model
    /// asks for it; SmolLM2 does not).
    pub async fn tokenize(&self, text: &str) -> anyhow::Result<Vec<u32>> {
        Ok(self
            .model
            .tokenize(
                either::Either::Right(text.to_string()),
                None,
                false,
                false,
                None,
            )
            .await?)
    }

    /// One chat completion, as an OpenAI response body.
    pub async fn chat(&self, request: &ChatRequest) -> Result<serde_json::Value, ApiError> {
        let turns = request.turns()?;
        let top_logprobs = request.logprobs()?;
        let mut builder = RequestBuilder::new();
        for turn in turns {
            let role = match turn.role.as_str() {
                "system" => TextMessageRole::System,
                "assistant" => TextMessageRole::Assistant,
                _ => TextMessageRole::User,
            };
            builder = if turn.images.is_empty() {
                builder.add_message(role, turn.text)
            } else {
                builder.add_image_message(role, turn.text, turn.images)
            };
        }
        builder = match request.temperature {
            None | Some(0.0) => builder.set_deterministic_sampler(),
            Some(t) => builder.set_sampler_temperature(t),
        };
        if let Some(p) = request.top_p {
            builder = builder.set_sampler_topp(p);
        }
        if let Some(n) = request.max_tokens {
            builder = builder.set_sampler_max_len(n);
        }
        let recorder = top_logprobs.map(Recorder::new);
        if let Some(recorder) = &recorder {
            builder = builder.add_logits_processor(recorder.clone());
        }
        let response = self
            .model
            .send_chat_request(builder)
            .await
            .map_err(|e| ApiError::server(format!("the model failed: {e:#}")))?;
        let u = &response.usage;
        let usage = Usage {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
            total_tokens: u.total_tokens,
            prompt_tokens_per_second: u.avg_prompt_tok_per_sec,
            completion_tokens_per_second: u.avg_compl_tok_per_sec,
            total_time_ms: f64::from(u.total_time_sec) * 1e3,
        };
        let logprobs = match &recorder {
            Some(recorder) => self.logprobs(recorder, u.completion_tokens).await?,
            None => serde_json::Value::Null,
        };
        let choices: Vec<serde_json::Value> = response
            .choices
            .iter()
            .map(|c| {
                serde_json::json!({
                    "index": c.index,
                    "message": {"role": "assistant", "content": c.message.content},
                    "finish_reason": c.finish_reason,
                    "logprobs": logprobs,
                })
            })
            .collect();
        Ok(serde_json::json!({
            "id": response.id,
            "object": "chat.completion",
            "created": response.created,
            "model": self.info.id,
            "choices": choices,
            "usage": usage,
            "system_fingerprint": serde_json::Value::Null,
        }))
    }

    /// The recorded steps in OpenAI's shape, each token's text from the model's tokenizer.
    async fn logprobs(
        &self,
        recorder: &Recorder,
        tokens: usize,
    ) -> Result<serde_json::Value, ApiError> {
        let steps = recorder.finish(tokens);
        let mut text = HashMap::new();
        for id in logprobs::token_ids(&steps) {
            let token =
                self.model.detokenize(vec![id], false).await.map_err(|e| {
                    ApiError::server(format!("could not detokenize token {id}: {e:#}"))
                })?;
            text.insert(id, token);
        }
        Ok(logprobs::openai_logprobs(&steps, &text))
    }
}
