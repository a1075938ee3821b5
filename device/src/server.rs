//! The HTTP side: `/v1/chat/completions`, `/v1/models`, `/health` (with the
//! prefix cache's counters), a bearer token when one was given, and an
//! OpenAI-style error body for everything refused, including bodies that are
//! not JSON or too large, routes that do not exist and wrong methods.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};

use droidscore_contract::health::{self, Health};

use crate::api::ApiError;
use crate::auth::Token;
use crate::chat::HungUp;
use crate::engine::Engine;
use crate::reported;
use crate::request::{self, MAX_BODY_BYTES};

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(self.body())).into_response()
    }
}

/// A body axum would not read: too large (a plain-text 413 before), or cut off.
fn unread_body(rejection: BytesRejection) -> ApiError {
    let status = rejection.status();
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::refused(
            413,
            format!("the request body is over {MAX_BODY_BYTES} bytes, the most this server reads"),
        )
    } else {
        ApiError::refused(
            status.as_u16(),
            format!(
                "the request body could not be read: {}",
                rejection.body_text()
            ),
        )
    }
}

/// One chat completion. It runs in a task of its own, so that a client
/// that hangs up drops only this handler, never the engine's response
/// channel: mistral.rs 0.8.1 unwraps its send on that channel when a step
/// fails (`handle_pipeline_forward_error!`, engine/mod.rs:412) and its
/// engine thread dies. The task is told of the hang-up and cancels the
/// generation (`chat.rs`).
async fn chat(
    State(engine): State<Arc<Engine>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let body = body.map_err(unread_body)?;
    let request = request::parse(&body)?;
    if let Some(model) = &request.model {
        if model != &engine.info.id {
            return Err(ApiError {
                status: 404,
                code: Some("model_not_found"),
                ..ApiError::invalid(
                    "model",
                    format!(
                        "the model {model:?} does not exist; this server has {:?}",
                        engine.info.id
                    ),
                )
            });
        }
    }
    let (still_here, hung_up) = HungUp::pair();
    let task = tokio::spawn(async move { engine.chat_unless_hung_up(&request, hung_up).await });
    let answer = task
        .await
        .map_err(|e| ApiError::server(format!("the request's task failed: {e}")))?;
    drop(still_here);
    answer.map(Json)
}

async fn models(State(engine): State<Arc<Engine>>) -> Json<serde_json::Value> {
    Json(serde_json::json!({
        "object": "list",
        "data": [{
            "id": engine.info.id,
            "object": "model",
            "created": 0,
            "owned_by": "droidscore-device",
        }],
    }))
}

/// Ready: the model is loaded and has answered (the server only listens
/// after that). With the memory now, the threads now (each prefix-cache
/// reset leaves one idle mistral.rs logger thread), and the prefix cache's
/// budget, what it holds and its counters: the contract's [`Health`], which
/// the host reads back.
async fn health(State(engine): State<Arc<Engine>>) -> Json<Health> {
    Json(Health {
        status: Some(health::READY.into()),
        model: Some(reported::model_info(&engine.info)),
        memory_now: Some(crate::engine::memory_now()),
        threads_now: threads_now(),
        prefix_cache: serde_json::to_value(engine.prefix_cache_report()).ok(),
    })
}

/// `Threads:` in /proc/self/status.
fn threads_now() -> Option<u64> {
    std::fs::read_to_string("/proc/self/status")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|v| v.trim().parse().ok())
}

async fn not_found() -> ApiError {
    ApiError::refused(
        404,
        "no such route: this server has /v1/chat/completions, /v1/models and /health",
    )
}

/// A known route asked with the wrong method (an empty 405 before).
async fn wrong_method(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    let allowed = if uri.path() == "/v1/chat/completions" {
        "POST"
    } else {
        "GET"
    };
    ApiError::refused(405, format!("{} takes {allowed}, not {method}", uri.path()))
}

/// The routes, with `token` required on every one when given
/// ([`crate::auth`]), and every refusal an OpenAI error body.
pub fn router(engine: Arc<Engine>, token: Option<Token>) -> Router {
    Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/models", get(models))
        .route("/health", get(health))
        .fallback(not_found)
        .method_not_allowed_fallback(wrong_method)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(
            token,
            crate::auth::require,
        ))
        .with_state(engine)
}
