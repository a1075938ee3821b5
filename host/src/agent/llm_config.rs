//! How to reach and ask an OpenAI-compatible endpoint: base URL, model,
//! sampling, timeouts and retries, and what goes in each request. The LLM
//! agent, its dialogue and its prompts all read it.

use std::path::PathBuf;
use std::time::Duration;

use super::format::AgentFormat;
use super::schema::{Constrain, Reason};

/// A bearer token, kept out of `Debug` output and logs.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    /// The key itself, for the `Authorization` header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(…)")
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct LlmConfig {
    /// Up to and including `/v1`, e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: String,
    pub model: String,
    /// The environment variable holding the API key, sent as a bearer token.
    pub api_key_env: Option<String>,
    /// A key given as it is: the token of the server droidscore deployed to
    /// the phone (`model_server::on_phone`). It wins over `api_key_env`.
    pub api_key: Option<ApiKey>,
    pub temperature: f32,
    /// The request's `seed`: the episode seed, so a repeat samples anew and
    /// the same episode samples the same.
    pub seed: u64,
    pub max_tokens: u32,
    /// Per HTTP attempt, connect to last byte.
    pub timeout: Duration,
    /// Retries after the first attempt, for timeouts, connection errors and 5xx.
    pub retries: u32,
    /// The first retry's delay; it doubles per retry, plus up to 50 % jitter.
    pub backoff: Duration,
    /// Send no screenshot (text-only models).
    pub no_image: bool,
    /// Send the step's action schema as `response_format` (`--constrain`).
    pub constrain: Constrain,
    /// How much reason the constrained answer carries (`--reason`); only
    /// `full` without a schema (see `run::endpoint`).
    pub reason: Reason,
    /// PEM certificates trusted beside the system's roots for https (`--ca-cert`).
    pub ca_cert: Option<PathBuf>,
    /// How long a call may wait on HTTP 429 `Retry-After`s, from its first
    /// attempt (`--rate-limit-wait`; see `transport`).
    pub rate_limit_wait: Duration,
    /// The prompt and the answer's grammar (`--agent-format`).
    pub format: AgentFormat,
}

impl LlmConfig {
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        LlmConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: None,
            api_key: None,
            temperature: 0.0,
            seed: 0,
            max_tokens: 256,
            timeout: Duration::from_secs(120),
            retries: 3,
            backoff: Duration::from_millis(500),
            no_image: false,
            constrain: Constrain::Off,
            reason: Reason::Full,
            ca_cert: None,
            rate_limit_wait: Duration::from_secs(300),
            format: AgentFormat::AndroidWorld,
        }
    }

    /// The same endpoint asked in `format`, with that format's default
    /// token budget.
    pub(crate) fn with_format(self, format: AgentFormat) -> Self {
        let max_tokens = if format.is_vision() {
            super::format::VISION_MAX_TOKENS
        } else {
            self.max_tokens
        };
        LlmConfig {
            format,
            max_tokens,
            ..self
        }
    }

    /// `{base_url}/chat/completions`.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}
