//! `/health`: what `droidscore-device serve` answers once its model is
//! loaded and has answered a warm-up request. The server writes a
//! [`Health`]; the host reads one back to decide what to send (a GGUF model
//! gets no screenshots), to name the server's settings in a run's config,
//! and to check that a deployment is up.
//!
//! Other OpenAI-compatible servers have their own `/health` (llama.cpp's
//! `llama-server` answers `{"status":"ok"}`, or a 503 error object while it
//! loads) or none at all. So every top-level field is optional when read:
//! such a document parses, with no [`ModelInfo`] in it. What the device
//! writes inside `model` is required, so a document that claims to be ours
//! and is not is refused, naming the field.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// `status` once the server is ready.
pub const READY: &str = "ok";

/// The `/health` document; the default is an empty one (`{}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Health {
    /// [`READY`] when ready (droidscore-device only listens after that;
    /// llama-server says `ok` too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// What was loaded: droidscore-device's own; other servers have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelInfo>,
    /// Resident memory at the time of the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_now: Option<Memory>,
    /// `Threads:` of the server process now (each prefix-cache reset leaves
    /// one idle mistral.rs logger thread behind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads_now: Option<u64>,
    /// The prefix cache's budget, what it holds and its counters: the
    /// device's detail (`prefix_cache::Report` there), recorded by the host
    /// and read by people, not by code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_cache: Option<serde_json::Value>,
}

/// What was loaded, at `/health` and (in part) beside every speed figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// The file (or safetensors directory) given to `--model`.
    pub path: PathBuf,
    /// The id clients send as `model`.
    pub id: String,
    pub format: Format,
    /// `general.architecture` (`llama`, `qwen2`), when the file says.
    pub architecture: Option<String>,
    /// GGUF: llama.cpp's file type (`Q4_1`); safetensors: the ISQ type.
    pub quantization: String,
    /// GGUF: how the file was re-quantized from `path` before loading, if
    /// it was (the device's `quantize::Requantized`).
    pub requantized: Option<serde_json::Value>,
    /// GGUF: the packed layout of the file that was loaded (the device's
    /// `quantize::Layout`).
    pub layout: Option<serde_json::Value>,
    /// The dtype asked for (`--dtype`: `f32`, `bf16`, …).
    pub dtype: String,
    /// How the quantized weights are held (`--weights`: `packed`, `f16`,
    /// `f32`).
    pub weights: String,
    /// GGUF: what tokenizes (`source`, `pre`, `dir`: the device's
    /// `tokenizer::Info`).
    pub tokenizer: Option<serde_json::Value>,
    pub context_length: Option<u64>,
    pub threads: usize,
    /// Loading, in milliseconds.
    pub load_ms: f64,
    /// Resident memory once loaded.
    pub memory: Memory,
    /// The x86/aarch64 target features the binary was compiled with.
    pub target_features: Vec<String>,
}

/// How the model is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// One GGUF file: text only (mistral.rs 0.8.1 has no GGUF vision models).
    Gguf,
    /// A safetensors directory, quantized in situ.
    Safetensors,
}

/// `/proc/self/status`: pages the kernel says are resident, anonymous and
/// file-backed (a memory-mapped model file counts as file-backed), and the
/// peak (`VmHWM`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    pub rss_kib: u64,
    pub rss_anon_kib: u64,
    pub rss_file_kib: u64,
    pub peak_rss_kib: u64,
}

/// A `/health` document that is JSON but not one [`Health`] reads.
#[derive(Debug, thiserror::Error)]
#[error("/health: {field}: {source}")]
pub struct HealthError {
    /// Where in the document: `model.threads`, or `document` for its root.
    pub field: String,
    #[source]
    pub source: serde_json::Error,
}

impl Health {
    /// Read a document already parsed as JSON, naming the field that is
    /// wrong when it is not one.
    pub fn from_json(document: &serde_json::Value) -> Result<Health, HealthError> {
        crate::located::read(document, "document")
            .map_err(|(field, source)| HealthError { field, source })
    }

    /// Whether the server said it is ready.
    pub fn is_ready(&self) -> bool {
        self.status.as_deref() == Some(READY)
    }

    /// A GGUF model is text only: send it no screenshots. False when the
    /// server does not say (another server's `/health`).
    pub fn text_only(&self) -> bool {
        self.model
            .as_ref()
            .is_some_and(|m| m.format == Format::Gguf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What droidscore-device's `/health` answers, as of this contract.
    fn device_document() -> serde_json::Value {
        json!({
            "status": "ok",
            "model": {
                "path": "/c/models/SmolLM2-135M-Instruct.Q4_1.gguf",
                "id": "SmolLM2-135M-Instruct.Q4_1",
                "format": "gguf",
                "architecture": "llama",
                "quantization": "Q4_1",
                "requantized": null,
                "layout": {"by_type": {"Q4_1": {"tensors": 210}}, "weights": 134515008},
                "dtype": "f32",
                "weights": "packed",
                "tokenizer": {"source": "gguf", "pre": "smollm", "dir": "/c/tok"},
                "context_length": 8192,
                "threads": 2,
                "load_ms": 812.5,
                "memory": {"rss_kib": 400, "rss_anon_kib": 300, "rss_file_kib": 100, "peak_rss_kib": 410},
                "target_features": ["sse3", "avx2"],
            },
            "memory_now": {"rss_kib": 420, "rss_anon_kib": 320, "rss_file_kib": 100, "peak_rss_kib": 430},
            "threads_now": 9,
            "prefix_cache": {"enabled": true, "budget_bytes": 1024, "requests": 1},
        })
    }

    #[test]
    fn the_device_document_round_trips_unchanged() {
        let doc = device_document();
        let health = Health::from_json(&doc).unwrap();
        assert!(health.is_ready());
        assert!(health.text_only());
        let model = health.model.as_ref().unwrap();
        assert_eq!(model.quantization, "Q4_1");
        assert_eq!(model.memory.rss_anon_kib, 300);
        assert_eq!(model.context_length, Some(8192));
        // What the host stores is what the device said, field for field.
        assert_eq!(serde_json::to_value(&health).unwrap(), doc);
        let text = serde_json::to_string(&health).unwrap();
        let back: Health = serde_json::from_str(&text).unwrap();
        assert_eq!(back, health);
    }

    #[test]
    fn llama_server_documents_parse_without_a_model() {
        // Ready, as llama-server says it, and older builds' slot counts.
        for doc in [
            json!({"status": "ok"}),
            json!({"status": "ok", "slots_idle": 1, "slots_processing": 0}),
        ] {
            let health = Health::from_json(&doc).unwrap();
            assert!(health.is_ready(), "{doc}");
            assert_eq!(health.model, None);
            assert!(!health.text_only());
        }
        // Loading: its 503 body is an error object, and an empty document
        // says nothing either; neither is ready, neither fails to parse.
        let loading = json!({"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}});
        assert!(!Health::from_json(&loading).unwrap().is_ready());
        let empty = Health::from_json(&json!({})).unwrap();
        assert!(!empty.is_ready());
        assert_eq!(serde_json::to_value(&empty).unwrap(), json!({}));
        let loading_status = json!({"status": "loading model"});
        assert!(!Health::from_json(&loading_status).unwrap().is_ready());
    }

    #[test]
    fn a_wrong_field_is_named() {
        let mut doc = device_document();
        doc["model"]["threads"] = json!("two");
        let e = Health::from_json(&doc).unwrap_err();
        assert_eq!(e.field, "model.threads");
        assert!(e.to_string().starts_with("/health: model.threads: "), "{e}");

        let mut doc = device_document();
        doc["model"].as_object_mut().unwrap().remove("quantization");
        let e = Health::from_json(&doc).unwrap_err().to_string();
        assert!(e.contains("quantization"), "{e}");

        let mut doc = device_document();
        doc["model"]["format"] = json!("onnx");
        assert_eq!(Health::from_json(&doc).unwrap_err().field, "model.format");

        // A server whose `model` is a name, not our object.
        let e = Health::from_json(&json!({"status": "ok", "model": "m"})).unwrap_err();
        assert_eq!(e.field, "model");
        assert_eq!(
            Health::from_json(&json!("ok")).unwrap_err().field,
            "document"
        );
    }
}
