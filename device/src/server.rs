//! The HTTP side: `/v1/chat/completions`, `/v1/models`, `/health` (with the
//! prefix cache's counters), and an
//! OpenAI-style error body for everything refused, including bodies that are
//! not JSON and routes that do not exist.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};

use droidscore_contract::health::{self, Health};

use crate::api::{ApiError, ChatRequest};
use crate::engine::Engine;
use crate::reported;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(self.body())).into_response()
    }
}

async fn chat(
    State(engine): State<Arc<Engine>>,
    body: Bytes,
) -> Result<Json<serde_json::Value>, ApiError> {
    let de = &mut serde_json::Deserializer::from_slice(&body);
    let request: ChatRequest = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        ApiError::invalid(
            if path == "." {
                "body".to_string()
            } else {
                path
            },
            format!(
                "the request body is not a chat completion request: {}",
                e.inner()
            ),
        )
    })?;
    if let Some(model) = &request.model {
        if model != &engine.info.id {
            return Err(ApiError {
                status: 404,
                message: format!(
                    "the model {model:?} does not exist; this server has {:?}",
                    engine.info.id
                ),
                kind: "invalid_request_error",
                param: Some("model".into()),
            });
        }
    }
    engine.chat(&request).await.map(Json)
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
    ApiError {
        status: 404,
        message: "no such route: this server has /v1/chat/completions, /v1/models and /health"
            .into(),
        kind: "invalid_request_error",
        param: None,
    }
}

pub fn router(engine: Arc<Engine>) -> Router {
    Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/models", get(models))
        .route("/health", get(health))
        .fallback(not_found)
        .with_state(engine)
}
