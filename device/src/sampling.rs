//! Choosing each token: temperature, `top_p` and a per-request `seed`, done
//! here rather than by mistral.rs's sampler.
//!
//! mistral.rs 0.8.1 draws from one `Isaac64Rng` per engine, seeded with a
//! constant (`engine/mod.rs`, `SEED = 0`) and shared by every request in
//! arrival order, so a request cannot carry its own seed. A [`Chooser`]
//! rides along as a logits processor (the last one): it draws the token
//! itself from the logits it is handed — softmax at the request's
//! temperature, cut to the `top_p` nucleus, with a random number that
//! depends only on the seed and the position — and hands mistral.rs a
//! distribution with all its mass on that token, which mistral.rs's sampler
//! then cannot but pick. Temperature 0 (or none) is the argmax. A grammar
//! constraint still works: when llguidance rejects the token, mistral.rs
//! masks the logits and calls the processors again, and the chooser draws
//! again from what is allowed.
//!
//! The chooser also records every token it chose, so the engine knows the
//! generated token ids (mistral.rs returns only text) — the prefix-cache
//! bookkeeping keys entries on them.

use std::sync::Mutex;

use mistralrs::{CustomLogitsProcessor, DType, Tensor};

/// How the next token is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampling {
    /// 0: the argmax.
    pub temperature: f64,
    /// The nucleus: the most likely tokens whose probabilities add up to
    /// at least this; 1 keeps every token.
    pub top_p: f64,
    pub seed: u64,
}

impl Sampling {
    /// The token for the `step`-th generated position (0 for the first).
    pub fn choose(&self, logits: &[f32], step: usize) -> u32 {
        if self.temperature <= 0.0 {
            return argmax(logits);
        }
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        if !max.is_finite() {
            return argmax(logits);
        }
        let weights: Vec<f64> = logits
            .iter()
            .map(|&l| (f64::from(l - max) / self.temperature).exp())
            .collect();
        let total: f64 = weights.iter().sum();
        let mut order: Vec<usize> = (0..weights.len()).filter(|&i| weights[i] > 0.0).collect();
        if self.top_p < 1.0 {
            // Most likely first; the token that reaches top_p is kept.
            order.sort_by(|&a, &b| weights[b].total_cmp(&weights[a]).then(a.cmp(&b)));
            let mut sum = 0.0;
            let mut keep = 0;
            for &i in &order {
                keep += 1;
                sum += weights[i];
                if sum >= self.top_p * total {
                    break;
                }
            }
            order.truncate(keep.max(1));
        }
        let kept: f64 = order.iter().map(|&i| weights[i]).sum();
        let mut target = uniform(self.seed, step) * kept;
        for &i in &order {
            target -= weights[i];
            if target < 0.0 {
                return i as u32;
            }
        }
        order.last().map_or_else(|| argmax(logits), |&i| i as u32)
    }
}

/// The greedy pick: the last of equal maxima, as mistral.rs's
/// `argmax_f32` (`Iterator::max_by`) and the logprobs recorder take it.
pub fn argmax(values: &[f32]) -> u32 {
    values
        .iter()
        .enumerate()
        .max_by(|(_, a), (_, b)| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal))
        .map_or(0, |(i, _)| i as u32)
}

/// SplitMix64's output function.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A number in [0, 1) that depends on the seed and the step only.
fn uniform(seed: u64, step: usize) -> f64 {
    let bits = mix(mix(seed) ^ step as u64) >> 11;
    bits as f64 / (1u64 << 53) as f64
}

/// The logits processor: chooses, records, and pins mistral.rs's draw.
#[derive(Debug)]
pub struct Chooser {
    sampling: Sampling,
    /// Per call: the context's length, the step, the token chosen. A step
    /// is called twice when a grammar rejected the first pick (same
    /// context); the second pick is the one taken.
    calls: Mutex<Vec<(usize, usize, u32)>>,
}

impl Chooser {
    pub fn new(sampling: Sampling) -> Chooser {
        Chooser {
            sampling,
            calls: Mutex::new(Vec::new()),
        }
    }

    /// The tokens chosen, in order, one per step.
    pub fn tokens(&self) -> Vec<u32> {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        let mut out: Vec<u32> = Vec::new();
        for &(_, step, token) in calls.iter() {
            out.truncate(step);
            out.push(token);
        }
        out
    }
}

impl CustomLogitsProcessor for Chooser {
    /// The context is not a position: on a prefix-cache hit mistral.rs
    /// hands the prompt step only the uncached part of the prompt
    /// (`Sequence::get_toks` returns the prefill tokens), and the whole
    /// sequence afterwards. Steps are counted instead, so a seed draws the
    /// same tokens whatever the cache held.
    fn apply(&self, logits: &Tensor, context: &[u32]) -> mistralrs::Result<Tensor> {
        let values: Vec<f32> = logits.to_dtype(DType::F32)?.to_vec1()?;
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        let step = match calls.last() {
            Some(&(len, step, _)) if len == context.len() => step,
            Some(&(_, step, _)) => step + 1,
            None => 0,
        };
        let token = self.sampling.choose(&values, step);
        calls.push((context.len(), step, token));
        drop(calls);
        let mut pinned = vec![f32::NEG_INFINITY; values.len()];
        if let Some(p) = pinned.get_mut(token as usize) {
            *p = 0.0;
        }
        Tensor::from_vec(pinned, values.len(), logits.device())?.to_dtype(logits.dtype())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(temperature: f64, top_p: f64, seed: u64) -> Sampling {
        Sampling {
            temperature,
            top_p,
            seed,
        }
    }

    #[test]
    fn temperature_zero_is_the_argmax_whatever_the_seed() {
        let logits = [0.1, 3.0, 2.9, -1.0];
        for seed in 0..20 {
            assert_eq!(at(0.0, 1.0, seed).choose(&logits, 7), 1);
        }
        assert_eq!(argmax(&[1.0, 2.0, 2.0]), 2);
    }

    #[test]
    fn a_seed_fixes_the_draw_and_different_seeds_spread() {
        let logits = [1.0f32; 8];
        let s = at(1.0, 1.0, 42);
        assert_eq!(s.choose(&logits, 3), s.choose(&logits, 3));
        let picks: std::collections::HashSet<u32> = (0..64)
            .map(|seed| at(1.0, 1.0, seed).choose(&logits, 3))
            .collect();
        assert!(picks.len() >= 6, "{picks:?}");
        // Masked (-inf) tokens are never drawn.
        let masked = [f32::NEG_INFINITY, 0.0, f32::NEG_INFINITY, 0.0];
        for seed in 0..64 {
            assert!([1, 3].contains(&at(1.0, 1.0, seed).choose(&masked, 0)));
        }
    }

    #[test]
    fn top_p_keeps_the_nucleus_only() {
        // Probabilities about 0.64, 0.24, 0.09, 0.03: top_p 0.5 keeps one.
        let logits = [3.0f32, 2.0, 1.0, 0.0];
        for seed in 0..64 {
            assert_eq!(at(1.0, 0.5, seed).choose(&logits, 0), 0);
            assert!(at(1.0, 0.8, seed).choose(&logits, 0) <= 1);
        }
    }

    #[test]
    fn the_chooser_pins_the_distribution_and_records_tokens() {
        let c = Chooser::new(at(0.0, 1.0, 0));
        let logits = Tensor::new(&[0.5f32, 2.0, 1.0], &mistralrs::Device::Cpu).unwrap();
        let out: Vec<f32> = c.apply(&logits, &[9, 9]).unwrap().to_vec1().unwrap();
        assert_eq!(out, [f32::NEG_INFINITY, 0.0, f32::NEG_INFINITY]);
        c.apply(&logits, &[9, 9, 1]).unwrap();
        // A step called again (after a grammar mask) keeps its last pick.
        let masked =
            Tensor::new(&[0.5f32, f32::NEG_INFINITY, 1.0], &mistralrs::Device::Cpu).unwrap();
        c.apply(&masked, &[9, 9, 1]).unwrap();
        assert_eq!(c.tokens(), vec![1, 2]);
    }
}
