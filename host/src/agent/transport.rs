//! The HTTP leg of the LLM agent: one chat-completions POST with bounded
//! retries. Timeouts, connection errors, dropped connections and 5xx are
//! retried with exponential backoff (`backoff · 2^attempt`, plus up to 50 %
//! jitter drawn from the run's seed, so two runs with one seed wait the same);
//! 4xx is never retried and names the endpoint, the status and the body's
//! `error.message`. Every failure here is infrastructure, never the agent's.

use std::time::Duration;

use serde_json::Value;

/// The endpoint failed; the episode cannot be scored as the agent's doing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InfraError {
    #[error("{endpoint}: gave up after {attempts} attempts: {last}")]
    Exhausted {
        endpoint: String,
        attempts: u32,
        last: String,
    },
    #[error("{endpoint}: HTTP {status}: {message}")]
    Status {
        endpoint: String,
        status: u16,
        message: String,
    },
    #[error("{endpoint}: malformed response: {why}")]
    BadResponse { endpoint: String, why: String },
}

/// What a successful call returned.
#[derive(Debug, Clone)]
pub struct Completion {
    /// `choices[0].message.content` (empty when null).
    pub content: String,
    pub prompt_tokens: Option<u64>,
    /// `usage.prompt_tokens_details.cached_tokens`: prompt tokens the
    /// server served from its prefix cache (`None` when it does not say).
    pub cached_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    /// Attempts made, 1 when the first succeeded.
    pub attempts: u32,
}

#[derive(Debug, Clone)]
pub struct Transport {
    pub client: reqwest::Client,
    pub endpoint: String,
    pub api_key: Option<String>,
    /// Retries after the first attempt.
    pub retries: u32,
    pub backoff: Duration,
    pub seed: u64,
}

/// splitmix64 (Steele, Lea, Flood 2014): a fixed, documented stream, so jitter
/// and the random agent do not change with a crate's version.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The delay before retry `attempt` (0-based) of call number `call`.
pub fn backoff_delay(base: Duration, seed: u64, call: u64, attempt: u32) -> Duration {
    let mut state = seed ^ call.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ u64::from(attempt);
    let jitter = (splitmix64(&mut state) >> 11) as f64 / (1u64 << 53) as f64 * 0.5;
    base.mul_f64(2f64.powi(attempt.min(16) as i32) * (1.0 + jitter))
}

enum Failure {
    Retry(String),
    Fatal(InfraError),
}

impl Transport {
    /// POST `body`; `call` numbers the call within the episode (for jitter).
    pub async fn complete(&self, body: &Value, call: u64) -> Result<Completion, InfraError> {
        let mut last = String::new();
        let attempts = self.retries + 1;
        for attempt in 0..attempts {
            if attempt > 0 {
                let delay = backoff_delay(self.backoff, self.seed, call, attempt - 1);
                tracing::debug!(endpoint = %self.endpoint, attempt, ?delay, %last, "retrying");
                tokio::time::sleep(delay).await;
            }
            match self.once(body).await {
                Ok(mut c) => {
                    c.attempts = attempt + 1;
                    return Ok(c);
                }
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Retry(why)) => last = why,
            }
        }
        Err(InfraError::Exhausted {
            endpoint: self.endpoint.clone(),
            attempts,
            last,
        })
    }

    async fn once(&self, body: &Value) -> Result<Completion, Failure> {
        let mut request = self.client.post(&self.endpoint).json_body(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = request
            .send()
            .await
            .map_err(|e| Failure::Retry(describe(&e)))?;
        let status = response.status();
        let text = response
            .text()
            .await
            .map_err(|e| Failure::Retry(describe(&e)))?;
        if status.is_server_error() {
            return Err(Failure::Retry(format!(
                "HTTP {}: {}",
                status.as_u16(),
                error_message(&text)
            )));
        }
        if !status.is_success() {
            return Err(Failure::Fatal(InfraError::Status {
                endpoint: self.endpoint.clone(),
                status: status.as_u16(),
                message: error_message(&text),
            }));
        }
        self.completion(&text).map_err(Failure::Fatal)
    }

    fn completion(&self, text: &str) -> Result<Completion, InfraError> {
        let bad = |why: String| InfraError::BadResponse {
            endpoint: self.endpoint.clone(),
            why,
        };
        let v: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON ({e})")))?;
        let message = v
            .pointer("/choices/0/message")
            .ok_or_else(|| bad("no choices[0].message".into()))?;
        let content = match message.get("content") {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => String::new(),
            Some(other) => return Err(bad(format!("message.content is {other}"))),
        };
        let tokens = |k: &str| v.pointer(&format!("/usage/{k}")).and_then(Value::as_u64);
        Ok(Completion {
            content,
            prompt_tokens: tokens("prompt_tokens"),
            cached_tokens: tokens("prompt_tokens_details/cached_tokens"),
            completion_tokens: tokens("completion_tokens"),
            attempts: 1,
        })
    }
}

/// The body's `error.message` (OpenAI's error shape), else the body itself, clipped.
fn error_message(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("error"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let msg = from_json.unwrap_or_else(|| body.trim().to_owned());
    let msg: String = msg.chars().take(300).collect();
    if msg.is_empty() {
        "(empty body)".into()
    } else {
        msg
    }
}

fn describe(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else {
        "connection failed"
    };
    let mut msg = kind.to_owned();
    let mut source: Option<&dyn std::error::Error> = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    msg
}

/// reqwest's `json` feature would pull serde into its build for one call.
trait JsonBody {
    fn json_body(self, body: &Value) -> Self;
}

impl JsonBody for reqwest::RequestBuilder {
    fn json_body(self, body: &Value) -> Self {
        self.header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_bounded_deterministic_jitter() {
        let base = Duration::from_millis(100);
        for attempt in 0..4 {
            let d = backoff_delay(base, 7, 3, attempt);
            let floor = base * 2u32.pow(attempt);
            assert!(d >= floor && d <= floor.mul_f64(1.5), "{attempt}: {d:?}");
            assert_eq!(
                d,
                backoff_delay(base, 7, 3, attempt),
                "same seed, same delay"
            );
        }
        assert_ne!(backoff_delay(base, 7, 3, 0), backoff_delay(base, 8, 3, 0));
    }

    #[test]
    fn splitmix64_matches_the_reference_stream() {
        // First outputs for seed 0 from the reference C implementation.
        let mut s = 0;
        assert_eq!(splitmix64(&mut s), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(&mut s), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn error_messages_come_from_the_openai_error_body() {
        assert_eq!(
            error_message(
                r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#
            ),
            "Incorrect API key provided"
        );
        assert_eq!(
            error_message(r#"{"error":"model not found"}"#),
            "model not found"
        );
        assert_eq!(error_message("Bad Gateway\n"), "Bad Gateway");
        assert_eq!(error_message(""), "(empty body)");
    }
}
