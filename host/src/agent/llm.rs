//! The LLM agent: any OpenAI-compatible chat-completions endpoint as the agent.
//!
//! Each step sends the goal, the action history with results, the previous
//! answer's error (when it was invalid), the numbered element list and, unless
//! `no_image`, the screenshot (`prompt`); parses the answer (`action`) and
//! resolves it against the element list. An invalid answer is never guessed
//! into an action: the step becomes `Decision::Idle` (it uses up budget), its
//! reason is logged and fed back to the model next step. A failing endpoint
//! (`transport`) ends the episode with `Decision::Infra` and `infra_error()`.
//!
//! `Agent::next` is synchronous; the agent blocks on the tokio runtime handle
//! it is given, so it must be called off that runtime's worker threads (from
//! `spawn_blocking` or a plain thread).
//!
//! The HTTP client (`http_client`: http, or https with the system's roots and
//! `--ca-cert`) is built at construction, so a bad base URL or CA file is
//! refused before the first step.

use std::time::Instant;

use tokio::runtime::Handle;

use super::action::{parse_action, resolve, screen_size};
use super::dialogue::Dialogue;
use super::format::Session;
use super::llm_config::LlmConfig;
use super::schema::Constrain;
use super::translate::as_action;
use super::transport::{InfraError, Transport};
use super::{Agent, Decision};
use crate::store::StepRecord;
use droidscore_phone::uiautomator::elements;
use droidscore_phone::Observation;

/// Why an agent could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("environment variable {0} (the API key) is not set")]
    MissingKey(String),
    #[error(transparent)]
    Client(#[from] super::http_client::ClientError),
}

#[derive(Debug)]
pub struct LlmAgent {
    config: LlmConfig,
    transport: Transport,
    handle: Handle,
    dialogue: Dialogue,
    /// A vision format's episode (`--agent-format` other than androidworld).
    session: Option<Session>,
    /// Each step's record as far as the agent knows it (see
    /// [`Agent::step_record`]).
    log: Vec<StepRecord>,
    calls: u64,
    retries: u32,
    infra: Option<InfraError>,
    /// The body of the last request sent (`Agent::last_request`).
    last_body: Option<serde_json::Value>,
}

impl LlmAgent {
    pub fn new(config: LlmConfig, handle: Handle) -> Result<Self, LlmError> {
        let api_key = match (&config.api_key, &config.api_key_env) {
            (Some(key), _) => Some(key.expose().to_string()),
            (None, Some(var)) => {
                Some(std::env::var(var).map_err(|_| LlmError::MissingKey(var.clone()))?)
            }
            (None, None) => None,
        };
        let client = super::http_client::client(
            &config.base_url,
            config.ca_cert.as_deref(),
            config.timeout,
        )?;
        let transport = Transport {
            client,
            endpoint: config.endpoint(),
            api_key,
            retries: config.retries,
            backoff: config.backoff,
            seed: config.seed,
            rate_limit_wait: config.rate_limit_wait,
        };
        let session = Session::new(config.format);
        Ok(LlmAgent {
            config,
            session,
            transport,
            handle,
            dialogue: Dialogue::new(),
            log: Vec::new(),
            calls: 0,
            retries: 0,
            infra: None,
            last_body: None,
        })
    }

    /// The steps since the last call, oldest first, as far as the agent
    /// knows them: which episode and step, and what the phone showed, are
    /// the run's to fill in.
    pub fn take_step_log(&mut self) -> Vec<StepRecord> {
        std::mem::take(&mut self.log)
    }

    /// The endpoint failure that ended the episode, if one did.
    pub fn infra_error(&self) -> Option<&InfraError> {
        self.infra.as_ref()
    }

    /// HTTP retries made so far (attempts beyond each call's first).
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// Forget the episode (history, error, log) to start another; the seed
    /// moves on so the next episode's jitter differs.
    pub fn reset(&mut self, seed: u64) {
        self.dialogue.reset();
        if let Some(session) = &mut self.session {
            session.reset();
        }
        self.log.clear();
        self.calls = 0;
        self.infra = None;
        self.last_body = None;
        self.transport.seed = seed;
        self.config.seed = seed;
    }

    fn step(&mut self, goal: &str, obs: &Observation) -> (Decision, StepRecord) {
        let mut log = StepRecord::default();
        let els = elements(&obs.hierarchy);
        let screen = screen_size(&obs.hierarchy);
        let screenshot = if self.config.no_image {
            None
        } else {
            obs.screenshot.as_deref()
        };
        // A vision model points at the screenshot: its size, not the
        // hierarchy's (a dialog's window is smaller than the screen).
        let image = image_size(screenshot.unwrap_or_default(), screen);
        let body = match (&mut self.session, screenshot) {
            (None, _) => {
                self.dialogue
                    .request(&self.config, goal, &obs.xml, &els, screen, screenshot)
            }
            (Some(session), Some(png)) => serde_json::json!({
                "model": self.config.model,
                "messages": session.messages(goal, image, png),
                "temperature": self.config.temperature,
                "max_tokens": self.config.max_tokens,
                "seed": self.config.seed,
            }),
            (Some(session), None) => {
                // The run refuses --no-image with a vision format; a phone
                // that gave no screenshot fails every step alike.
                let why = format!(
                    "--agent-format {} reads the screenshot, and the phone gave none",
                    session.format()
                );
                return (Decision::Fatal(why), log);
            }
        };
        self.calls += 1;
        self.last_body = Some(body.clone());
        let completion = self
            .handle
            .block_on(self.transport.complete(&body, self.calls));
        let completion = match completion {
            Ok(c) => c,
            Err(e) => {
                self.retries += e.attempts().saturating_sub(1);
                self.infra = Some(e.clone());
                // A 4xx means the run is misconfigured (key, model, URL):
                // every episode would fail the same way, so the run stops.
                let decision = match &e {
                    InfraError::Status {
                        status, message, ..
                    } if self.config.constrain == Constrain::Schema
                        && refuses_response_format(*status, message) =>
                    {
                        Decision::Fatal(format!(
                            "{e} (the endpoint refuses response_format with a JSON schema: \
                             run with --constrain off)"
                        ))
                    }
                    InfraError::Status {
                        status, message, ..
                    } if self.session.is_some() && refuses_images(*status, message) => {
                        let (format, n) = (
                            self.config.format,
                            super::format::max_images(self.config.format),
                        );
                        Decision::Fatal(format!(
                            "{e} (--agent-format {format} sends up to {n} screenshots a request: \
                             start vLLM with --limit-mm-per-prompt '{{\"image\": {n}}}')"
                        ))
                    }
                    InfraError::Status { status, .. } if (400..500).contains(status) => {
                        Decision::Fatal(e.to_string())
                    }
                    // An untrusted certificate fails every episode alike.
                    InfraError::Certificate { .. } => Decision::Fatal(e.to_string()),
                    _ => Decision::Infra(e.to_string()),
                };
                return (decision, log);
            }
        };
        self.retries += completion.attempts - 1;
        log.prompt_tokens = completion.prompt_tokens;
        log.cached_tokens = completion.cached_tokens;
        log.completion_tokens = completion.completion_tokens;
        log.raw_output = completion.content;

        if let Some(session) = &mut self.session {
            session.answered(&log.raw_output);
            return match session.parse(&log.raw_output, image) {
                Ok(parsed) => {
                    log.action = parsed.call;
                    (parsed.decision, log)
                }
                Err(e) => {
                    log.invalid_reason = Some(e.to_string());
                    (Decision::Idle, log)
                }
            };
        }
        let resolved = parse_action(&log.raw_output).and_then(|action| {
            log.action = action.to_json();
            resolve(&action, &els, screen).map(|r| (action, r))
        });
        match resolved {
            Ok((action, r)) => {
                let idle = matches!(r.decision, Decision::Idle);
                self.dialogue.acted(&action, &els, idle);
                (r.decision, log)
            }
            Err(e) => {
                let reason = e.to_string();
                // A well-formed action that did not resolve is still invalid.
                log.action = serde_json::Value::Null;
                log.invalid_reason = Some(reason.clone());
                self.dialogue.invalid(reason);
                (Decision::Idle, log)
            }
        }
    }
}

/// The screenshot's size from its header, else the hierarchy's.
fn image_size(png: &[u8], screen: (i32, i32)) -> (i32, i32) {
    match droidscore_phone::png_size(png) {
        Some((w, h)) if w > 0 && h > 0 => (w as i32, h as i32),
        _ => screen,
    }
}

/// Whether an HTTP error is the server refusing a request's images: vLLM
/// takes one image a prompt unless started with `--limit-mm-per-prompt`.
fn refuses_images(status: u16, message: &str) -> bool {
    let message = message.to_ascii_lowercase();
    (400..500).contains(&status) && message.contains("at most") && message.contains("image")
}

/// Whether an HTTP error is the endpoint refusing `response_format` (a
/// server without structured output, or one that cannot compile the schema).
fn refuses_response_format(status: u16, message: &str) -> bool {
    let message = message.to_ascii_lowercase();
    (status == 400 || status == 422)
        && (message.contains("response_format") || message.contains("json_schema"))
}

impl Agent for LlmAgent {
    fn next(&mut self, goal: &str, observation: &Observation) -> Decision {
        let start = Instant::now();
        let (decision, mut log) = self.step(goal, observation);
        log.latency_ms = start.elapsed().as_secs_f64() * 1e3;
        self.log.push(log);
        decision
    }

    fn wants_screenshot(&self) -> bool {
        !self.config.no_image
    }

    fn step_record(&mut self) -> Option<StepRecord> {
        self.log.last().cloned()
    }

    fn refused(&mut self, why: &str) {
        if let Some(log) = self.log.last_mut() {
            log.invalid_reason.get_or_insert_with(|| why.to_string());
        }
        self.dialogue.refused(why);
    }

    /// The reference's action replaces the answer in the history: as
    /// AndroidWorld's JSON action over the screen's elements, or as the
    /// vision format writes that action (`format::render`).
    fn follow(&mut self, reference: &Decision, observation: &Observation) {
        match &mut self.session {
            None => {
                let els = elements(&observation.hierarchy);
                let action = as_action(reference, &els);
                let idle = matches!(reference, Decision::Idle);
                self.dialogue.follow(action.as_ref(), &els, idle);
            }
            Some(session) => {
                let screen = screen_size(&observation.hierarchy);
                let image = image_size(
                    observation.screenshot.as_deref().unwrap_or_default(),
                    screen,
                );
                let target = reference.tap().and_then(|(x, y)| {
                    elements(&observation.hierarchy)
                        .into_iter()
                        .rev()
                        .find(|e| e.bounds.contains(x, y) && !e.label.is_empty())
                        .map(|e| e.label)
                });
                session.follow(reference, image, target.as_deref());
            }
        }
    }

    fn last_request(&self) -> Option<serde_json::Value> {
        self.last_body.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vision_answer_maps_onto_the_screenshot_not_the_hierarchy() {
        // A dialog's dump covers less than the screen; the model saw all of
        // it. A whole PNG: `png_size` reads the header through the image
        // crate, which checks it.
        let mut png = Vec::new();
        image::RgbImage::new(108, 240)
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap();
        assert_eq!(image_size(&png, (90, 70)), (108, 240));
        assert_eq!(image_size(b"not a png", (90, 70)), (90, 70));
    }

    #[test]
    fn a_server_taking_fewer_images_is_told_apart() {
        let vllm = "At most 1 image(s) may be provided in one request.";
        assert!(refuses_images(400, vllm));
        assert!(!refuses_images(500, vllm));
        assert!(!refuses_images(400, "model not found"));
    }
}
