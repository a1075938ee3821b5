//! One chat completion, from an OpenAI request to an OpenAI response body:
//! the prompt tokenized by the engine's own chat template, the prefix
//! cache's budget kept and its hit replayed (`prefix_cache.rs`), the tokens
//! chosen by our sampler (`sampling.rs`), a `response_format` schema
//! enforced by llguidance, and the engine's answer drained to its end.
//!
//! A client that hangs up (`HungUp`) cancels its generation, and its
//! answer is still drained here: the engine must never find its response
//! channel gone (see `server.rs`).
//!
//! A text-only prompt is tokenized first (a `Tokenize` request runs the
//! same chat-template processor as a chat request, `add_request.rs`) and
//! sent as those tokens, so the prefix cache's key is exactly what the
//! bookkeeping holds. A prompt with images goes as a multimodal chat;
//! mistral.rs expands its images into tokens this side never sees.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use mistralrs::core::MistralRs;
use mistralrs::{
    Constraint, NormalRequest, Request, RequestBuilder, RequestLike, RequestMessage, Response,
    SamplingParams, StopTokens, TextMessageRole, TextMessages,
};

use crate::api::{ApiError, ChatRequest, Content, Part, PromptTokensDetails, Usage, SCHEMA_PARAM};
use crate::engine::Engine;
use crate::logprobs::{self, Recorder};
use crate::prefix_cache::{capacity_for, entry_capacity, Hit};
use crate::request::Checked;
use crate::runner::Runner;
use crate::sampling::Chooser;
use crate::schema::{first_line, unfollowable};

/// How long an answered sequence may keep the engine before it lets go of
/// its response channel (mistral.rs runs a sequence that finished at its
/// prompt step once more, up to its length limit).
const DRAIN_WAIT: Duration = Duration::from_secs(120);

/// What one answer was, whichever kind of response carried it.
struct Answer {
    id: String,
    created: u64,
    content: Option<String>,
    finish_reason: String,
    usage: mistralrs::Usage,
}

fn role(role: &str) -> TextMessageRole {
    match role {
        "system" => TextMessageRole::System,
        "assistant" => TextMessageRole::Assistant,
        _ => TextMessageRole::User,
    }
}

/// Whether the client that asked is still there: the handler holds the
/// other end ([`HungUp::pair`]) and drops it when its connection goes.
#[derive(Debug)]
pub struct HungUp(Option<tokio::sync::oneshot::Receiver<()>>);

/// The handler's end: dropped when it is (its client hung up), or when the
/// answer is back.
#[derive(Debug)]
pub struct StillHere(#[allow(dead_code)] tokio::sync::oneshot::Sender<()>);

impl HungUp {
    pub fn pair() -> (StillHere, HungUp) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        (StillHere(tx), HungUp(Some(rx)))
    }

    /// A caller that never goes (the warm-up chat).
    pub fn never() -> HungUp {
        HungUp(None)
    }

    /// Gone already?
    fn now(&mut self) -> bool {
        use tokio::sync::oneshot::error::TryRecvError;
        self.0
            .as_mut()
            .is_some_and(|rx| matches!(rx.try_recv(), Err(TryRecvError::Closed)))
    }

    /// Resolves when the client hangs up; never, if it does not.
    async fn wait(&mut self) {
        match self.0.as_mut() {
            Some(rx) => {
                let _ = rx.await;
            }
            None => std::future::pending().await,
        }
    }
}

/// What a client that hung up is told, should anyone read it.
fn hung_up() -> ApiError {
    ApiError::refused(499, "the client closed the connection before the answer")
}

/// Cancel the sequence running now. mistral.rs 0.8.1 has no per-request
/// cancel; `TERMINATE_ALL_NEXT_STEP` marks every running sequence
/// `Done(Canceled)` at its next completion step (`scheduler/default_scheduler.rs`),
/// which then answers with `finish_reason: "canceled"` like any finish. The
/// flag is process-wide and cleared only when a running sequence sees it, so
/// [`uncancel`] clears it once this request's sequence is gone: the runner
/// lock is held the whole time, so no other request's sequence runs.
fn cancel() {
    mistralrs::core::TERMINATE_ALL_NEXT_STEP.store(true, std::sync::atomic::Ordering::SeqCst);
}

fn uncancel() {
    mistralrs::core::TERMINATE_ALL_NEXT_STEP.store(false, std::sync::atomic::Ordering::SeqCst);
}

impl Engine {
    /// One chat completion, as an OpenAI response body.
    pub async fn chat(&self, request: &ChatRequest) -> Result<serde_json::Value, ApiError> {
        self.chat_unless_hung_up(request, HungUp::never()).await
    }

    /// One chat completion; when the client hangs up, its generation is
    /// cancelled and the answer drained to its end all the same, so the
    /// engine never sends to a channel that is gone (which kills its thread).
    pub async fn chat_unless_hung_up(
        &self,
        request: &ChatRequest,
        mut client: HungUp,
    ) -> Result<serde_json::Value, ApiError> {
        let Checked {
            turns,
            top_logprobs,
            schema,
        } = crate::request::check(request)?;
        let sampling = request.sampling();
        let has_images = turns.iter().any(|t| !t.images.is_empty());

        let mut slot = self.runner.lock().await;
        if client.now() {
            // It hung up while waiting its turn: nothing to do for it.
            return Err(hung_up());
        }
        let (messages, prompt) = {
            let mistralrs = current(&slot)?;
            if has_images {
                text_only_refuses_images(&mistralrs, request)?;
                let mut builder = RequestBuilder::new();
                for turn in turns {
                    builder = if turn.images.is_empty() {
                        builder.add_message(role(&turn.role), turn.text)
                    } else {
                        builder.add_image_message(role(&turn.role), turn.text, turn.images)
                    };
                }
                if let Ok(config) = mistralrs.config(None) {
                    builder.resolve_pending_prefixes(&config.category);
                }
                (builder.take_messages(), None)
            } else {
                let mut messages = TextMessages::new();
                for turn in turns {
                    messages = messages.add_message(role(&turn.role), turn.text);
                }
                let tokens = mistralrs::Model::new(mistralrs.clone())
                    .tokenize(either::Either::Left(messages), None, true, true, None)
                    .await
                    .map_err(|e| {
                        ApiError::server(format!(
                            "the chat template failed: {}",
                            first_line(&format!("{e:#}"))
                        ))
                    })?;
                (
                    RequestMessage::CompletionTokens(tokens.clone()),
                    Some(tokens),
                )
            }
        };

        // The cache as mistral.rs will search it, and the budget kept.
        let (enabled, mut predicted) = {
            let cache = self.lock_cache();
            let predicted = match &prompt {
                Some(tokens) if cache.enabled => cache.mirror.lookup(tokens),
                _ => Ok(None),
            };
            (cache.enabled, predicted)
        };
        let estimate = match &prompt {
            Some(tokens) => entry_capacity(
                tokens.len(),
                request.max_tokens.unwrap_or(1),
                predicted.ok().flatten(),
            ),
            None => 0,
        };
        if self.lock_cache().must_reset_before(estimate) {
            let lost = predicted.ok().flatten().map_or(0, |h| h.tokens as u64);
            self.reset(&mut slot).await?;
            self.lock_cache().counters.cached_tokens_lost_to_resets += lost;
            predicted = Ok(None);
        }
        let runner = slot
            .as_ref()
            .ok_or_else(|| ApiError::server("the engine could not be restarted after a reset"))?;
        let hits_before = runner.hits();

        let mut params = SamplingParams::neutral();
        params.temperature = (sampling.temperature > 0.0).then_some(sampling.temperature);
        params.top_p = Some(sampling.top_p);
        params.max_len = request.max_tokens;
        let constraint = match &schema {
            Some(schema) => {
                // llguidance ends a finished grammar with the tokenizer's
                // EOS, which need not be the token the engine stops on
                // (`<|endoftext|>` against ChatML's `<|im_end|>`,
                // guidance-ai/llguidance#161): stop on every EOS it knows.
                if !self.grammar_stops.is_empty() {
                    params.stop_toks = Some(StopTokens::Ids(self.grammar_stops.clone()));
                }
                Constraint::JsonSchema(schema.clone())
            }
            None => Constraint::None,
        };
        let recorder = top_logprobs.map(Recorder::new);
        let chooser = Arc::new(Chooser::new(sampling));
        let mut processors: Vec<Arc<dyn mistralrs::CustomLogitsProcessor>> = Vec::new();
        if let Some(recorder) = &recorder {
            processors.push(recorder.clone());
        }
        processors.push(chooser.clone());

        let (tx, mut rx) = tokio::sync::mpsc::channel(4);
        let normal = Request::Normal(Box::new(NormalRequest {
            messages,
            sampling_params: params,
            response: tx,
            return_logprobs: false,
            is_streaming: false,
            id: runner.mistralrs.next_request_id(),
            constraint,
            suffix: None,
            tools: None,
            tool_choice: None,
            logits_processors: Some(processors),
            return_raw_logits: false,
            web_search_options: None,
            model_id: None,
            truncate_sequence: false,
        }));
        runner
            .mistralrs
            .get_sender(None)
            .map_err(|e| ApiError::server(format!("the engine is gone: {e}")))?
            .send(normal)
            .await
            .map_err(|e| ApiError::server(format!("the engine is gone: {e}")))?;
        let mut cancelled = false;
        let first = tokio::select! {
            first = rx.recv() => first,
            () = client.wait() => {
                cancel();
                cancelled = true;
                rx.recv().await
            }
        };
        let answer = match first {
            Some(Response::CompletionDone(done)) => {
                let choice = done.choices.first();
                Answer {
                    id: done.id.clone(),
                    created: done.created,
                    content: choice.map(|c| c.text.clone()),
                    finish_reason: choice.map_or("stop".into(), |c| c.finish_reason.clone()),
                    usage: done.usage,
                }
            }
            Some(Response::Done(done)) => {
                let choice = done.choices.first();
                Answer {
                    id: done.id.clone(),
                    created: done.created,
                    content: choice.and_then(|c| c.message.content.clone()),
                    finish_reason: choice.map_or("stop".into(), |c| c.finish_reason.clone()),
                    usage: done.usage,
                }
            }
            Some(Response::ValidationError(e)) => {
                let message = e.to_string();
                return Err(if message.starts_with("Invalid grammar") {
                    ApiError::invalid(
                        SCHEMA_PARAM,
                        format!("the schema does not compile: {message}"),
                    )
                } else {
                    ApiError::invalid("messages", message)
                });
            }
            other => {
                let drained = drain(&mut rx).await;
                if cancelled {
                    uncancel();
                }
                return Err(failure(other, schema.is_some(), drained));
            }
        };
        // The sequence lets go of the channel once the engine is done with
        // it; only then has every cache entry it makes been added.
        let drained = drain(&mut rx).await;
        if cancelled {
            uncancel();
        }
        let engine_hit = runner.hits() > hits_before;

        let u = &answer.usage;
        let cached = self.record(
            enabled,
            prompt.as_deref(),
            u.prompt_tokens,
            u.completion_tokens,
            &chooser.tokens(),
            predicted,
            engine_hit,
        );
        let logprobs = match &recorder {
            Some(recorder) => {
                logprobs_body(&runner.mistralrs, recorder, u.completion_tokens).await?
            }
            None => serde_json::Value::Null,
        };
        if !drained {
            tracing::warn!(
                "a sequence held the engine {} s after answering; resetting the prefix cache",
                DRAIN_WAIT.as_secs()
            );
        }
        if !drained || self.lock_cache().over_budget() {
            self.reset(&mut slot).await?;
        }

        let usage = Usage {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
            total_tokens: u.total_tokens,
            prompt_tokens_details: PromptTokensDetails {
                cached_tokens: cached,
            },
            prompt_tokens_per_second: u.avg_prompt_tok_per_sec,
            completion_tokens_per_second: u.avg_compl_tok_per_sec,
            prompt_time_ms: f64::from(u.total_prompt_time_sec) * 1e3,
            total_time_ms: f64::from(u.total_time_sec) * 1e3,
        };
        drop(slot);
        if cancelled {
            return Err(hung_up());
        }
        Ok(serde_json::json!({
            "id": answer.id,
            "object": "chat.completion",
            "created": answer.created,
            "model": self.info.id,
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": answer.content},
                "finish_reason": answer.finish_reason,
                "logprobs": logprobs,
            }],
            "usage": usage,
            "system_fingerprint": serde_json::Value::Null,
        }))
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, crate::prefix_cache::PrefixCache> {
        self.prefix_cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Replay what the finished request added to mistral.rs's cache, count
    /// it, and say how many prompt tokens came from the cache. The entry is
    /// keyed on the prompt and every generated token; a sequence run once
    /// more after its answer (it finished at its prompt step) adds a second.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        enabled: bool,
        prompt: Option<&[u32]>,
        prompt_tokens: usize,
        completion_tokens: usize,
        generated: &[u32],
        predicted: Result<Option<Hit>, ()>,
        engine_hit: bool,
    ) -> Option<usize> {
        let mut cache = self.lock_cache();
        let c = &mut cache.counters;
        c.requests += 1;
        c.prompt_tokens += prompt_tokens as u64;
        c.engine_hits += u64::from(engine_hit);
        let cached = if !enabled {
            Some(0)
        } else {
            match predicted {
                Ok(hit) if hit.is_some() == engine_hit => Some(hit.map_or(0, |h| h.tokens)),
                Ok(hit) => {
                    c.mismatches += 1;
                    tracing::warn!(
                        "prefix-cache bookkeeping predicted {:?}, mistral.rs {}",
                        hit,
                        if engine_hit { "hit" } else { "missed" }
                    );
                    (!engine_hit).then_some(0)
                }
                Err(()) if !engine_hit => Some(0),
                Err(()) => {
                    c.unknown += 1;
                    None
                }
            }
        };
        if let Some(cached) = cached {
            c.cached_tokens += cached as u64;
            c.computed_tokens += prompt_tokens.saturating_sub(cached) as u64;
        }
        if !enabled {
            return cached;
        }
        let hit = predicted.ok().flatten().filter(|_| engine_hit);
        let first = completion_tokens.min(generated.len());
        let capacity = entry_capacity(prompt_tokens, completion_tokens, hit);
        match prompt {
            Some(prompt) => {
                let key = |n: usize| [prompt, &generated[..n]].concat();
                cache.mirror.insert(key(first), capacity);
                if generated.len() > first {
                    let fed = prompt.len() + generated.len() - 1;
                    cache
                        .mirror
                        .insert(key(generated.len()), capacity.max(capacity_for(fed)));
                }
            }
            None => {
                cache.mirror.insert_opaque(capacity);
                if generated.len() > first {
                    let fed = prompt_tokens + generated.len() - 1;
                    cache.mirror.insert_opaque(capacity.max(capacity_for(fed)));
                }
            }
        }
        cached
    }

    /// Replace the engine with a fresh one: its prefix cache goes with it.
    async fn reset(&self, slot: &mut Option<Runner>) -> Result<(), ApiError> {
        if let Some(old) = slot.take() {
            old.terminate()
                .await
                .map_err(|e| ApiError::server(format!("resetting the prefix cache: {e:#}")))?;
        }
        let fresh = Runner::build(&self.runner_config)
            .await
            .map_err(|e| ApiError::server(format!("resetting the prefix cache: {e:#}")))?;
        *slot = Some(fresh);
        let mut cache = self.lock_cache();
        cache.mirror.clear();
        cache.counters.resets += 1;
        Ok(())
    }
}

/// Drain the answer's channel until the engine lets go of it (within
/// [`DRAIN_WAIT`]): whether it did.
async fn drain(rx: &mut tokio::sync::mpsc::Receiver<Response>) -> bool {
    tokio::time::timeout(DRAIN_WAIT, async { while rx.recv().await.is_some() {} })
        .await
        .is_ok()
}

/// The error for a response that is no answer. A model error on a
/// constrained request may be llguidance giving up on the schema: the
/// client's 400 (`crate::schema`). A 500 says the first line of
/// mistral.rs's words; the rest (a backtrace) goes to the log.
fn failure(response: Option<Response>, constrained: bool, drained: bool) -> ApiError {
    if !drained {
        tracing::warn!(
            "a failed sequence held the engine {} s",
            DRAIN_WAIT.as_secs()
        );
    }
    let words = match response {
        Some(Response::InternalError(e)) => e.to_string(),
        Some(Response::ModelError(e, _)) | Some(Response::CompletionModelError(e, _)) => e,
        Some(_) => return ApiError::server("an unexpected kind of response"),
        None => return ApiError::server("the engine closed the channel"),
    };
    tracing::error!("the model failed: {words}");
    if let Some(why) = constrained.then(|| unfollowable(&words)).flatten() {
        return ApiError::invalid(SCHEMA_PARAM, why);
    }
    ApiError::server(format!("the model failed: {}", first_line(&words)))
}

/// An image for a model that reads none is the client's error, named by
/// its first image part; the chat template would fail on it with a 500.
fn text_only_refuses_images(
    mistralrs: &Arc<MistralRs>,
    request: &ChatRequest,
) -> Result<(), ApiError> {
    let multimodal = mistralrs.config(None).is_ok_and(|c| {
        matches!(
            c.category,
            mistralrs::core::ModelCategory::Multimodal { .. }
        )
    });
    if multimodal {
        return Ok(());
    }
    let param = request
        .messages
        .iter()
        .enumerate()
        .find_map(|(i, m)| match &m.content {
            Some(Content::Parts(parts)) => parts
                .iter()
                .position(|p| matches!(p, Part::ImageUrl { .. }))
                .map(|j| format!("messages[{i}].content[{j}]")),
            _ => None,
        })
        .unwrap_or_else(|| "messages".into());
    Err(ApiError::invalid(
        param,
        "this model reads text only: send no image_url parts to it",
    ))
}

fn current(slot: &Option<Runner>) -> Result<Arc<MistralRs>, ApiError> {
    slot.as_ref()
        .map(|r| r.mistralrs.clone())
        .ok_or_else(|| ApiError::server("the engine could not be restarted after a reset"))
}

/// The recorded steps in OpenAI's shape, each token's text from the model's tokenizer.
async fn logprobs_body(
    mistralrs: &Arc<MistralRs>,
    recorder: &Recorder,
    tokens: usize,
) -> Result<serde_json::Value, ApiError> {
    let model = mistralrs::Model::new(mistralrs.clone());
    let steps = recorder.finish(tokens);
    let mut text = HashMap::new();
    for id in logprobs::token_ids(&steps) {
        let token = model
            .detokenize(vec![id], false)
            .await
            .map_err(|e| ApiError::server(format!("could not detokenize token {id}: {e:#}")))?;
        text.insert(id, token);
    }
    Ok(logprobs::openai_logprobs(&steps, &text))
}
