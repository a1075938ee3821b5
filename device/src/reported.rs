//! The engine's facts in the contract's types: what `/health` and every
//! `speed` result say about the loaded model ([`droidscore_contract::health`]),
//! so the host reads back exactly the types the device wrote.
//!
//! The device's own detail (the re-quantization record, the packed layout,
//! the tokenizer) goes through as JSON: the host records it and people read
//! it, but no host code decides anything on it, so the contract does not
//! fix its shape.

use droidscore_contract::health::{Format, ModelInfo};
use serde::Serialize;

use crate::engine;

/// The loaded model as `/health` reports it.
pub fn model_info(info: &engine::ModelInfo) -> ModelInfo {
    ModelInfo {
        path: info.path.clone(),
        id: info.id.clone(),
        format: format(info.format),
        architecture: info.architecture.clone(),
        quantization: info.quantization.clone(),
        requantized: detail(&info.requantized),
        layout: detail(&info.layout),
        dtype: info.dtype.clone(),
        weights: info.weights.name().to_string(),
        tokenizer: detail(&info.tokenizer),
        context_length: info.context_length.and_then(|n| u64::try_from(n).ok()),
        threads: info.threads,
        load_ms: info.load_ms,
        memory: info.memory,
        target_features: target_features(&info.target_features),
    }
}

/// The engine's `format` (`gguf` or `safetensors`, the two it loads).
pub fn format(format: &str) -> Format {
    match format {
        "safetensors" => Format::Safetensors,
        _ => Format::Gguf,
    }
}

pub fn target_features(features: &[&str]) -> Vec<String> {
    features.iter().map(|f| f.to_string()).collect()
}

/// Device detail as JSON. Only a path that is not UTF-8 fails to convert;
/// the detail is then left out rather than the answer refused.
pub fn detail<T: Serialize>(value: &Option<T>) -> Option<serde_json::Value> {
    value.as_ref().and_then(|v| serde_json::to_value(v).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_formats_the_engine_loads_are_named_as_the_contract_spells_them() {
        for (engine_says, contract) in
            [("gguf", Format::Gguf), ("safetensors", Format::Safetensors)]
        {
            assert_eq!(format(engine_says), contract);
            assert_eq!(serde_json::to_value(contract).unwrap(), engine_says);
        }
    }
}
