//! The OpenAI chat-completions wire format, as far as droidscore's agent and
//! the stock `openai` client use it: messages with text and image parts
//! (base64 `data:` URLs only — the server fetches nothing), sampling
//! settings (`temperature`, `top_p`, `seed`), `logprobs`/`top_logprobs`,
//! structured outputs (`response_format`), usage with
//! `prompt_tokens_details.cached_tokens`, and OpenAI-style error bodies.

use base64::Engine;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize)]
pub struct ChatRequest {
    #[serde(default)]
    pub model: Option<String>,
    pub messages: Vec<Message>,
    #[serde(default)]
    pub temperature: Option<f64>,
    #[serde(default)]
    pub top_p: Option<f64>,
    #[serde(default, alias = "max_completion_tokens")]
    pub max_tokens: Option<usize>,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub stream: Option<bool>,
    #[serde(default)]
    pub n: Option<usize>,
    /// Natural-log probabilities of the sampled tokens (greedy decoding only).
    #[serde(default)]
    pub logprobs: Option<bool>,
    /// How many of the most likely tokens to list at each step, 0–20.
    #[serde(default)]
    pub top_logprobs: Option<usize>,
    /// `{"type": "text" | "json_object" | "json_schema", "json_schema":
    /// {"name", "schema", "strict"}}`; checked by [`ChatRequest::json_schema`].
    #[serde(default)]
    pub response_format: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Message {
    pub role: String,
    #[serde(default)]
    pub content: Option<Content>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Content {
    Text(String),
    Parts(Vec<Part>),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    Text { text: String },
    ImageUrl { image_url: ImageUrl },
}

#[derive(Debug, Clone, Deserialize)]
pub struct ImageUrl {
    pub url: String,
}

/// A message flattened for the model: its role, text and decoded images.
#[derive(Debug, Clone)]
pub struct Turn {
    pub role: String,
    pub text: String,
    pub images: Vec<image::DynamicImage>,
}

/// A request the server refuses, with the OpenAI error fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: u16,
    pub message: String,
    pub kind: &'static str,
    pub param: Option<String>,
    /// OpenAI's machine-readable `code` (`invalid_api_key`), if it has one.
    pub code: Option<&'static str>,
}

impl ApiError {
    pub fn invalid(param: impl Into<String>, message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            message: message.into(),
            kind: "invalid_request_error",
            param: Some(param.into()),
            code: None,
        }
    }

    pub fn server(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 500,
            message: message.into(),
            kind: "server_error",
            param: None,
            code: None,
        }
    }

    /// A refusal that no one field of the request caused (a route, a
    /// method, a body too large), with its HTTP status.
    pub fn refused(status: u16, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            kind: "invalid_request_error",
            param: None,
            code: None,
        }
    }

    /// `{"error": {"message", "type", "param", "code"}}`, as OpenAI answers.
    pub fn body(&self) -> serde_json::Value {
        serde_json::json!({
            "error": {
                "message": self.message,
                "type": self.kind,
                "param": self.param,
                "code": self.code,
            }
        })
    }
}

/// Decode a `data:image/…;base64,…` URL; any other URL is refused.
pub fn decode_image(url: &str, param: &str) -> Result<image::DynamicImage, ApiError> {
    let Some(rest) = url.strip_prefix("data:") else {
        return Err(ApiError::invalid(
            param,
            "only data: URLs are accepted (data:image/png;base64,…); the server fetches nothing",
        ));
    };
    let Some((_, b64)) = rest.split_once(";base64,") else {
        return Err(ApiError::invalid(param, "the data: URL is not base64"));
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .map_err(|e| ApiError::invalid(param, format!("bad base64: {e}")))?;
    image::load_from_memory(&bytes)
        .map_err(|e| ApiError::invalid(param, format!("not an image this server can decode: {e}")))
}

/// The most tokens one answer may ask for (`max_tokens`). OpenAI refuses
/// 0; above this a request would hold the one engine for minutes on a
/// phone's CPU, and every model this server runs has a context shorter than it.
pub const MAX_TOKENS: usize = 32_768;

/// OpenAI's limit on `top_logprobs`.
pub const MAX_TOP_LOGPROBS: usize = 20;

impl ChatRequest {
    /// `Some(top_logprobs)` when log probabilities were asked for.
    pub fn logprobs(&self) -> Result<Option<usize>, ApiError> {
        if self.logprobs != Some(true) {
            return match self.top_logprobs {
                Some(n) if n > 0 => Err(ApiError::invalid(
                    "top_logprobs",
                    "top_logprobs needs logprobs: true",
                )),
                _ => Ok(None),
            };
        }
        let n = self.top_logprobs.unwrap_or(0);
        if n > MAX_TOP_LOGPROBS {
            return Err(ApiError::invalid(
                "top_logprobs",
                format!("must be between 0 and {MAX_TOP_LOGPROBS}"),
            ));
        }
        if self.temperature.is_some_and(|t| t != 0.0) {
            return Err(ApiError::invalid(
                "logprobs",
                "logprobs are reported for greedy decoding only: leave temperature out or set it to 0",
            ));
        }
        Ok(Some(n))
    }

    /// The JSON schema `response_format` asks the answer to follow, if any:
    /// `json_object` is any object, `text` (or none) nothing. A schema that
    /// llguidance cannot compile is refused later, by the engine, with the
    /// same `param`.
    ///
    /// Every object schema leaves with [`compact_layout`] unless it says
    /// its own layout.
    pub fn json_schema(&self) -> Result<Option<serde_json::Value>, ApiError> {
        Ok(self.json_schema_as_sent()?.map(compact_layout))
    }

    fn json_schema_as_sent(&self) -> Result<Option<serde_json::Value>, ApiError> {
        let Some(format) = &self.response_format else {
            return Ok(None);
        };
        let Some(kind) = format.get("type").and_then(|t| t.as_str()) else {
            return Err(ApiError::invalid(
                "response_format.type",
                "response_format needs a type: text, json_object or json_schema",
            ));
        };
        match kind {
            "text" => Ok(None),
            "json_object" => Ok(Some(serde_json::json!({"type": "object"}))),
            "json_schema" => {
                let Some(spec) = format.get("json_schema").filter(|s| s.is_object()) else {
                    return Err(ApiError::invalid(
                        "response_format.json_schema",
                        "a json_schema response format needs a json_schema object: {\"name\", \"schema\"}",
                    ));
                };
                if !spec.get("name").is_some_and(|n| n.is_string()) {
                    return Err(ApiError::invalid(
                        "response_format.json_schema.name",
                        "the schema needs a name (a string)",
                    ));
                }
                if spec.get("strict").is_some_and(|s| !s.is_boolean()) {
                    return Err(ApiError::invalid(
                        "response_format.json_schema.strict",
                        "strict must be true or false",
                    ));
                }
                match spec.get("schema") {
                    // OpenAI makes the schema optional: any JSON object.
                    None => Ok(Some(serde_json::json!({"type": "object"}))),
                    Some(schema) if schema.is_object() || schema.is_boolean() => {
                        crate::schema::check_bounds(schema)
                            .map_err(|why| ApiError::invalid(SCHEMA_PARAM, why))?;
                        Ok(Some(schema.clone()))
                    }
                    Some(_) => Err(ApiError::invalid(
                        SCHEMA_PARAM,
                        "the schema must be a JSON Schema object",
                    )),
                }
            }
            other => Err(ApiError::invalid(
                "response_format.type",
                format!("response format {other:?} is not text, json_object or json_schema"),
            )),
        }
    }

    /// `temperature` (absent: 0, greedy, as this server has always
    /// answered), `top_p` and `seed`; a request without a seed gets one.
    pub fn sampling(&self) -> crate::sampling::Sampling {
        crate::sampling::Sampling {
            temperature: self.temperature.unwrap_or(0.0),
            top_p: self.top_p.unwrap_or(1.0),
            seed: self.seed.unwrap_or_else(fresh_seed),
        }
    }

    /// Check the request and flatten its messages; errors name the field.
    pub fn turns(&self) -> Result<Vec<Turn>, ApiError> {
        if self.messages.is_empty() {
            return Err(ApiError::invalid(
                "messages",
                "at least one message is needed",
            ));
        }
        if self.stream == Some(true) {
            return Err(ApiError::invalid("stream", "streaming is not supported"));
        }
        if self.n.is_some_and(|n| n != 1) {
            return Err(ApiError::invalid("n", "only n = 1 is supported"));
        }
        if let Some(n) = self.max_tokens {
            if !(1..=MAX_TOKENS).contains(&n) {
                return Err(ApiError::invalid(
                    "max_tokens",
                    format!("must be between 1 and {MAX_TOKENS}"),
                ));
            }
        }
        if let Some(t) = self.temperature {
            if !(0.0..=2.0).contains(&t) {
                return Err(ApiError::invalid("temperature", "must be between 0 and 2"));
            }
        }
        if let Some(p) = self.top_p {
            if p.is_nan() || p <= 0.0 || p > 1.0 {
                return Err(ApiError::invalid("top_p", "must be above 0 and at most 1"));
            }
        }
        self.messages
            .iter()
            .enumerate()
            .map(|(i, m)| {
                if !["system", "user", "assistant"].contains(&m.role.as_str()) {
                    return Err(ApiError::invalid(
                        format!("messages[{i}].role"),
                        format!("role {:?} is not system, user or assistant", m.role),
                    ));
                }
                let mut turn = Turn {
                    role: m.role.clone(),
                    text: String::new(),
                    images: Vec::new(),
                };
                match &m.content {
                    None => {}
                    Some(Content::Text(t)) => turn.text = t.clone(),
                    Some(Content::Parts(parts)) => {
                        for (j, part) in parts.iter().enumerate() {
                            match part {
                                Part::Text { text } => {
                                    if !turn.text.is_empty() {
                                        turn.text.push('\n');
                                    }
                                    turn.text.push_str(text);
                                }
                                Part::ImageUrl { image_url } => turn.images.push(decode_image(
                                    &image_url.url,
                                    &format!("messages[{i}].content[{j}].image_url.url"),
                                )?),
                            }
                        }
                    }
                }
                Ok(turn)
            })
            .collect()
    }
}

/// Where a schema that does not compile is reported.
pub const SCHEMA_PARAM: &str = "response_format.json_schema.schema";

/// A seed for a request that brought none: different every time.
fn fresh_seed() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    now ^ COUNTER
        .fetch_add(1, Ordering::Relaxed)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// OpenAI's `usage.prompt_tokens_details`.
#[derive(Debug, Clone, Serialize)]
pub struct PromptTokensDetails {
    /// Prompt tokens whose keys and values came from the prefix cache; the
    /// rest (`prompt_tokens − cached_tokens`) went through the model. Null
    /// when it cannot be known (a cache holding sequences with images).
    pub cached_tokens: Option<usize>,
}

/// Usage as OpenAI names it, plus the server's timings.
#[derive(Debug, Clone, Serialize)]
pub struct Usage {
    pub prompt_tokens: usize,
    pub completion_tokens: usize,
    pub total_tokens: usize,
    pub prompt_tokens_details: PromptTokensDetails,
    /// Prompt processing, tokens per second (mistral.rs's own timing).
    pub prompt_tokens_per_second: f32,
    /// Generation, tokens per second.
    pub completion_tokens_per_second: f32,
    /// The prompt step (the uncached part of the prompt), mistral.rs's timing.
    pub prompt_time_ms: f64,
    pub total_time_ms: f64,
}

/// llguidance's key in a JSON schema for how it lays the JSON out.
const LAYOUT_KEY: &str = "x-guidance";

/// The layout this server decodes a JSON schema in: one line, `", "`
/// between items, `": "` after keys, and no other whitespace. llguidance's
/// default (guidance-ai/llguidance 1.9.1, `JsonCompileOptions`) allows any
/// run of whitespace between any two tokens, and a model that has nothing
/// left to say inside the grammar fills it with spaces: Qwen2.5-Coder-0.5B's
/// first constrained agent step closed its `reason` at the schema's length
/// limit and wrote blanks until `max_tokens` (issue 16). A schema that
/// carries its own `x-guidance` options keeps them; a boolean schema has
/// nowhere to carry them and is left as it is.
pub fn compact_layout(mut schema: serde_json::Value) -> serde_json::Value {
    if let Some(object) = schema.as_object_mut() {
        object.entry(LAYOUT_KEY).or_insert_with(|| {
            serde_json::json!({
                "whitespace_flexible": false,
                "item_separator": ", ",
                "key_separator": ": ",
            })
        });
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(json: serde_json::Value) -> ChatRequest {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn text_and_image_parts_flatten_into_turns() {
        let mut png = std::io::Cursor::new(Vec::new());
        image::RgbImage::new(2, 2)
            .write_to(&mut png, image::ImageFormat::Png)
            .unwrap();
        let url = format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(png.into_inner())
        );
        let r = request(serde_json::json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": [
                    {"type": "text", "text": "what is this?"},
                    {"type": "image_url", "image_url": {"url": url}},
                ]},
            ],
        }));
        let turns = r.turns().unwrap();
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[1].text, "what is this?");
        assert_eq!(turns[1].images.len(), 1);
    }

    #[test]
    fn bad_requests_name_the_field() {
        let r = request(serde_json::json!({"messages": [
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}
        ]}));
        let e = r.turns().unwrap_err();
        assert_eq!(
            e.param.as_deref(),
            Some("messages[0].content[0].image_url.url")
        );
        assert_eq!(e.body()["error"]["type"], "invalid_request_error");
        let r = request(serde_json::json!({"messages": [{"role": "robot", "content": "hi"}]}));
        assert_eq!(
            r.turns().unwrap_err().param.as_deref(),
            Some("messages[0].role")
        );
        let r = request(serde_json::json!({"messages": []}));
        assert_eq!(r.turns().unwrap_err().param.as_deref(), Some("messages"));
    }

    #[test]
    fn response_format_becomes_a_schema_or_names_the_bad_field() {
        let with = |format: serde_json::Value| {
            request(serde_json::json!({
                "messages": [{"role": "user", "content": "hi"}],
                "response_format": format,
            }))
            .json_schema()
        };
        assert_eq!(with(serde_json::json!({"type": "text"})), Ok(None));
        assert_eq!(
            with(serde_json::json!({"type": "json_object"})),
            Ok(Some(compact_layout(serde_json::json!({"type": "object"}))))
        );
        let schema =
            serde_json::json!({"type": "object", "properties": {"a": {"type": "integer"}}});
        assert_eq!(
            with(serde_json::json!({"type": "json_schema",
                "json_schema": {"name": "s", "schema": schema, "strict": true}})),
            Ok(Some(compact_layout(schema.clone())))
        );
        assert_eq!(
            compact_layout(schema.clone())["x-guidance"]["whitespace_flexible"],
            false
        );
        // A schema's own layout is kept.
        let own =
            serde_json::json!({"type": "object", "x-guidance": {"whitespace_flexible": true}});
        assert_eq!(
            with(
                serde_json::json!({"type": "json_schema", "json_schema": {"name": "s", "schema": own}})
            ),
            Ok(Some(own.clone()))
        );
        let param = |r: Result<Option<serde_json::Value>, ApiError>| r.unwrap_err().param;
        assert_eq!(
            param(with(serde_json::json!({"type": "yaml"}))).as_deref(),
            Some("response_format.type")
        );
        assert_eq!(
            param(with(
                serde_json::json!({"type": "json_schema", "json_schema": {"schema": {}}})
            ))
            .as_deref(),
            Some("response_format.json_schema.name")
        );
        assert_eq!(
            param(with(
                serde_json::json!({"type": "json_schema", "json_schema": {"name": "s", "schema": 3}})
            ))
            .as_deref(),
            Some(SCHEMA_PARAM)
        );
    }

    #[test]
    fn sampling_defaults_to_greedy_and_keeps_a_given_seed() {
        let r = request(serde_json::json!({"messages": [{"role": "user", "content": "hi"}]}));
        assert_eq!(r.sampling().temperature, 0.0);
        assert_eq!(r.sampling().top_p, 1.0);
        let r = request(
            serde_json::json!({"messages": [{"role": "user", "content": "hi"}],
            "temperature": 1, "top_p": 0.9, "seed": 7}),
        );
        let s = r.sampling();
        assert_eq!((s.temperature, s.top_p, s.seed), (1.0, 0.9, 7));
        let r = request(
            serde_json::json!({"messages": [{"role": "user", "content": "hi"}],
            "top_p": 0}),
        );
        assert_eq!(r.turns().unwrap_err().param.as_deref(), Some("top_p"));
    }

    #[test]
    fn logprobs_are_checked_like_openai_and_greedy_only() {
        let with = |extra: serde_json::Value| {
            let mut json = serde_json::json!({"messages": [{"role": "user", "content": "hi"}]});
            json.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            request(json).logprobs()
        };
        assert_eq!(with(serde_json::json!({})), Ok(None));
        assert_eq!(with(serde_json::json!({"logprobs": true})), Ok(Some(0)));
        assert_eq!(
            with(serde_json::json!({"logprobs": true, "top_logprobs": 5, "temperature": 0})),
            Ok(Some(5))
        );
        let param = |r: Result<Option<usize>, ApiError>| r.unwrap_err().param;
        assert_eq!(
            param(with(serde_json::json!({"top_logprobs": 5}))).as_deref(),
            Some("top_logprobs")
        );
        assert_eq!(
            param(with(
                serde_json::json!({"logprobs": true, "top_logprobs": 21})
            ))
            .as_deref(),
            Some("top_logprobs")
        );
        assert_eq!(
            param(with(
                serde_json::json!({"logprobs": true, "temperature": 0.7})
            ))
            .as_deref(),
            Some("logprobs")
        );
    }
}
