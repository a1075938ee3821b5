//! The HTTP leg of the LLM agent: one chat-completions POST with bounded
//! retries. Timeouts, connection errors, dropped connections and 5xx are
//! retried with exponential backoff (`backoff · 2^attempt`, plus up to 50 %
//! jitter drawn from the run's seed, so two runs with one seed wait the same);
//! 4xx is never retried and names the endpoint, the status and the body's
//! `error.message`. Every failure here is infrastructure, never the agent's.
//!
//! HTTP 429 (rate limited) is the one 4xx retried. With a `Retry-After`
//! (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) the call waits that
//! long, without using up a retry, as long as the wait ends within
//! `rate_limit_wait` (`--rate-limit-wait`) of the call's first attempt; a
//! `Retry-After` that would end later is not waited for, and the call fails
//! at once as [`InfraError::RateLimited`] (the episode is infrastructure, as
//! with exhausted retries). A 429 without a readable `Retry-After` backs off
//! and uses up a retry as a 5xx does. The budget changes how long a run
//! waits, never a verdict.
//!
//! A server certificate that does not verify (an unknown CA, another host's
//! name) is not retried either: every attempt would fail the same way, so it
//! is [`InfraError::Certificate`], which stops the run as a 4xx does.

use std::time::{Duration, Instant, SystemTime};

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
    #[error(
        "{endpoint}: HTTP 429 (rate limited) on attempt {attempts}: {message}; its Retry-After \
         of {}s would end past the --rate-limit-wait budget of {}s",
        retry_after.as_secs(),
        budget.as_secs()
    )]
    RateLimited {
        endpoint: String,
        attempts: u32,
        message: String,
        retry_after: Duration,
        budget: Duration,
    },
    #[error(
        "{endpoint}: the server's TLS certificate is not trusted: {why} (give the CA that \
         signed it with --ca-cert FILE)"
    )]
    Certificate { endpoint: String, why: String },
}

impl InfraError {
    /// HTTP attempts the failed call made.
    pub fn attempts(&self) -> u32 {
        match self {
            InfraError::Exhausted { attempts, .. } | InfraError::RateLimited { attempts, .. } => {
                *attempts
            }
            _ => 1,
        }
    }
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
    /// How long after its first attempt one call may still be waiting on a
    /// 429's `Retry-After` (see the module docs).
    pub rate_limit_wait: Duration,
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
pub(crate) fn backoff_delay(base: Duration, seed: u64, call: u64, attempt: u32) -> Duration {
    let mut state = seed ^ call.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ u64::from(attempt);
    let jitter = (splitmix64(&mut state) >> 11) as f64 / (1u64 << 53) as f64 * 0.5;
    base.mul_f64(2f64.powi(attempt.min(16) as i32) * (1.0 + jitter))
}

enum Failure {
    Retry(String),
    /// HTTP 429, with its `Retry-After` when it had a readable one.
    RateLimited {
        retry_after: Option<Duration>,
        message: String,
    },
    Fatal(InfraError),
}

/// A `Retry-After` value (RFC 9110 §10.2.3): delay-seconds, or an
/// HTTP-date (any of the three forms recipients must accept), which is
/// the time until then (zero when it has passed). `None` when it is neither.
pub fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

impl Transport {
    /// POST `body`; `call` numbers the call within the episode (for jitter).
    pub async fn complete(&self, body: &Value, call: u64) -> Result<Completion, InfraError> {
        let started = Instant::now();
        // Backoffs taken (each uses up a retry), and attempts made.
        let (mut backoffs, mut attempts) = (0u32, 0u32);
        loop {
            attempts += 1;
            let last = match self.once(body).await {
                Ok(mut c) => {
                    c.attempts = attempts;
                    return Ok(c);
                }
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::RateLimited {
                    retry_after: Some(wait),
                    message,
                }) => {
                    if started.elapsed() + wait > self.rate_limit_wait {
                        return Err(InfraError::RateLimited {
                            endpoint: self.endpoint.clone(),
                            attempts,
                            message,
                            retry_after: wait,
                            budget: self.rate_limit_wait,
                        });
                    }
                    tracing::debug!(endpoint = %self.endpoint, attempts, ?wait, "HTTP 429: waiting as Retry-After says");
                    tokio::time::sleep(wait).await;
                    continue;
                }
                Err(Failure::RateLimited {
                    retry_after: None,
                    message,
                }) => format!("HTTP 429: {message}"),
                Err(Failure::Retry(why)) => why,
            };
            if backoffs == self.retries {
                return Err(InfraError::Exhausted {
                    endpoint: self.endpoint.clone(),
                    attempts,
                    last,
                });
            }
            let delay = backoff_delay(self.backoff, self.seed, call, backoffs);
            backoffs += 1;
            tracing::debug!(endpoint = %self.endpoint, attempts, ?delay, %last, "retrying");
            tokio::time::sleep(delay).await;
        }
    }

    async fn once(&self, body: &Value) -> Result<Completion, Failure> {
        let mut request = self.client.post(&self.endpoint).json_body(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(|e| match untrusted(&e) {
            Some(why) => Failure::Fatal(InfraError::Certificate {
                endpoint: self.endpoint.clone(),
                why,
            }),
            None => Failure::Retry(describe(&e)),
        })?;
        let status = response.status();
        let wait = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let text = response
            .text()
            .await
            .map_err(|e| Failure::Retry(describe(&e)))?;
        if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
            let retry_after = wait
                .as_deref()
                .and_then(|v| retry_after(v, SystemTime::now()));
            if retry_after.is_none() {
                tracing::debug!(retry_after = ?wait, "HTTP 429 without a readable Retry-After: backing off");
            }
            return Err(Failure::RateLimited {
                retry_after,
                message: error_message(&text),
            });
        }
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

/// The verifier's reason when `e` is a server certificate that did not
/// verify (rustls's `InvalidCertificate`), wherever in the error's sources.
fn untrusted(e: &reqwest::Error) -> Option<String> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(e);
    while let Some(s) = source {
        // An io::Error's `source` skips the error it wraps (here an
        // io::Error around an io::Error around rustls's): look inside.
        let mut candidate = Some(s);
        while let Some(c) = candidate {
            if let Some(rustls::Error::InvalidCertificate(why)) = c.downcast_ref::<rustls::Error>()
            {
                return Some(format!("{why:?}"));
            }
            candidate = c
                .downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
                .map(|inner| inner as &(dyn std::error::Error + 'static));
        }
        source = s.source();
    }
    None
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
    fn retry_after_reads_seconds_and_all_three_http_date_forms() {
        use std::time::UNIX_EPOCH;
        // Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example date.
        let date = UNIX_EPOCH + Duration::from_secs(784_111_777);
        let before = date - Duration::from_secs(90);
        assert_eq!(retry_after("1", before), Some(Duration::from_secs(1)));
        assert_eq!(retry_after(" 120 ", before), Some(Duration::from_secs(120)));
        for form in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            assert_eq!(
                retry_after(form, before),
                Some(Duration::from_secs(90)),
                "{form}"
            );
        }
        let after = date + Duration::from_secs(5);
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:49:37 GMT", after),
            Some(Duration::ZERO),
            "a date that has passed is no wait"
        );
        assert_eq!(retry_after("-1", before), None);
        assert_eq!(retry_after("soon", before), None);
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
