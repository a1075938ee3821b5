//! How a GGUF file's quantized weights are held once loaded: `packed` (the
//! file's own blocks, multiplied by candle's quantized kernels) or
//! dequantized at load to dense `f16` / `f32` (multiplied by the `gemm`
//! crate). A recorded choice: it is in `ModelInfo` (so `/health` and every
//! result show it) and in `speed`'s JSON.
//!
//! candle 0.10.2 decides this in `QMatMul::from_arc` (quantized/mod.rs) from
//! two environment variables, `CANDLE_DEQUANTIZE_ALL` (f32) and
//! `CANDLE_DEQUANTIZE_ALL_F16`, each read into a `thread_local!` the first
//! time a thread builds a `QMatMul` and never again in that thread. So the
//! choice must be in the environment before the first load, and it is
//! process-wide: `apply` sets (or clears) both variables once and refuses a
//! later, different choice in the same process rather than record one that
//! some threads would not follow.
//!
//! Combinations: with `--quant` (a GGUF file re-quantized first) dense
//! weights are allowed on purpose — the re-quantized values multiplied
//! densely, without candle's 8-bit activation quantization in its quantized
//! dot products, tell the format's loss from the kernels'; both choices are
//! recorded. A safetensors model is refused anything but `packed`: its dense
//! arm is `--quant none`, and ISQ'd layers would be quantized only to be
//! dequantized again.

use std::sync::Mutex;

#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Weights {
    /// The file's own quantized blocks.
    #[default]
    Packed,
    /// Every quantized weight dequantized to f16 at load.
    F16,
    /// Every quantized weight dequantized to f32 at load.
    F32,
}

impl Weights {
    pub fn name(self) -> &'static str {
        match self {
            Weights::Packed => "packed",
            Weights::F16 => "f16",
            Weights::F32 => "f32",
        }
    }
}

const F32_VAR: &str = "CANDLE_DEQUANTIZE_ALL";
const F16_VAR: &str = "CANDLE_DEQUANTIZE_ALL_F16";

/// The choice this process made, once made.
static CHOSEN: Mutex<Option<Weights>> = Mutex::new(None);

#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    #[error(
        "--weights {asked}: this process already loaded with --weights {chosen}, and candle \
         reads the choice once per thread (CANDLE_DEQUANTIZE_ALL): one choice per process"
    )]
    Changed { chosen: Weights, asked: Weights },
    #[error(
        "--weights {0}: a safetensors model's weights are dense unless quantized; for dense \
         weights give --quant none (ISQ'd layers would be quantized only to be dequantized)"
    )]
    Safetensors(Weights),
}

/// Put `weights` in the environment for candle, before any model loads. The
/// first call decides for the process; a later call with the same choice
/// does nothing, a different one is an error. A variable the caller's
/// environment already had is overridden (with a warning), so that what is
/// recorded is what runs.
pub fn apply(weights: Weights) -> Result<(), WeightsError> {
    let mut chosen = CHOSEN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(chosen) = *chosen {
        return if chosen == weights {
            Ok(())
        } else {
            Err(WeightsError::Changed {
                chosen,
                asked: weights,
            })
        };
    }
    let wanted = match weights {
        Weights::Packed => None,
        Weights::F16 => Some(F16_VAR),
        Weights::F32 => Some(F32_VAR),
    };
    for var in [F32_VAR, F16_VAR] {
        let was = std::env::var(var)
            .ok()
            .filter(|v| !v.is_empty() && v != "0");
        if Some(var) == wanted {
            std::env::set_var(var, "1");
        } else {
            if let Some(value) = was {
                tracing::warn!(
                    "{var}={value} was in the environment: --weights {} clears it",
                    weights.name()
                );
            }
            std::env::remove_var(var);
        }
    }
    *chosen = Some(weights);
    Ok(())
}

/// A safetensors model takes `packed` only (see the module notes).
pub fn check_safetensors(weights: Weights) -> Result<(), WeightsError> {
    match weights {
        Weights::Packed => Ok(()),
        other => Err(WeightsError::Safetensors(other)),
    }
}

impl std::fmt::Display for Weights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test touches the process's environment and choice: the rest of
    // the unit tests load no model.
    #[test]
    fn the_choice_is_made_once_per_process_and_reaches_candles_variables() {
        std::env::set_var(F16_VAR, "1");
        apply(Weights::F32).unwrap();
        assert_eq!(std::env::var(F32_VAR).as_deref(), Ok("1"));
        assert!(
            std::env::var(F16_VAR).is_err(),
            "the other variable stays set"
        );
        apply(Weights::F32).unwrap();
        let err = apply(Weights::Packed).unwrap_err().to_string();
        assert!(err.contains("one choice per process"), "{err}");
    }

    #[test]
    fn safetensors_models_take_packed_only() {
        assert!(check_safetensors(Weights::Packed).is_ok());
        let err = check_safetensors(Weights::F32).unwrap_err().to_string();
        assert!(err.contains("--quant none"), "{err}");
    }
}
