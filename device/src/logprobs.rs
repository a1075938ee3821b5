//! OpenAI `logprobs` for chat completions, computed here from the logits
//! mistral.rs samples from, not taken from mistral.rs's own: in 0.8.1 those are
//! log10, taken after top-k/top-p, and on the greedy path the log10 of the raw
//! logit (NaN for a negative one).
//!
//! A [`Recorder`] rides along with the request as a mistral.rs logits
//! processor: every sampling step hands it the logits (after any penalties)
//! and the context so far. It keeps the step's natural-log softmax top N, and
//! reads the token the previous step chose off the end of the context. The
//! last step has no successor; its token is the argmax, which is why logprobs
//! are offered for greedy decoding only. One entry per sampled token, a stop
//! token included.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mistralrs::{CustomLogitsProcessor, DType, Tensor};

/// A token and its natural-log probability.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenLogprob {
    pub id: u32,
    pub logprob: f32,
}

/// One sampling step: the token chosen and the N most likely.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub chosen: TokenLogprob,
    pub top: Vec<TokenLogprob>,
}

#[derive(Debug, Default)]
struct Pending {
    done: Vec<Step>,
    /// The latest step: its top N, its argmax, and its whole log-softmax,
    /// kept until the next step (or the end) says which token it chose.
    last: Option<(Vec<TokenLogprob>, u32, Vec<f32>)>,
}

/// Records every sampling step of one request.
#[derive(Debug)]
pub struct Recorder {
    top_n: usize,
    pending: Mutex<Pending>,
}

impl Recorder {
    pub fn new(top_n: usize) -> Arc<Recorder> {
        Arc::new(Recorder {
            top_n,
            pending: Mutex::new(Pending::default()),
        })
    }

    /// The first `tokens` steps of a finished greedy request, `tokens`
    /// being the completion tokens mistral.rs reported. It can run one step
    /// more: in 0.8.1 a sequence that finishes at its prompt step (one token
    /// asked for) is set running again after its answer has gone, and that
    /// step may land here before this is called.
    pub fn finish(&self, tokens: usize) -> Vec<Step> {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let mut steps = std::mem::take(&mut pending.done);
        if let Some((top, argmax, logp)) = pending.last.take() {
            steps.push(step(top, argmax, &logp));
        }
        steps.truncate(tokens);
        steps
    }
}

fn step(top: Vec<TokenLogprob>, id: u32, logp: &[f32]) -> Step {
    Step {
        chosen: TokenLogprob {
            id,
            logprob: logp.get(id as usize).copied().unwrap_or(f32::NEG_INFINITY),
        },
        top,
    }
}

/// Natural-log softmax, in f64 for the normalizer.
pub fn log_softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f64 = logits.iter().map(|&x| f64::from(x - max).exp()).sum();
    let log_z = f64::from(max) + sum.ln();
    logits
        .iter()
        .map(|&x| (f64::from(x) - log_z) as f32)
        .collect()
}

/// The index mistral.rs's greedy sampler picks: the last of equal maxima
/// (`Iterator::max_by`, as its `argmax_f32`).
fn argmax(values: &[f32]) -> u32 {
    values
        .iter()
        .enumerate()
        .max_by(|(_, a), (_, b)| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal))
        .map_or(0, |(i, _)| i as u32)
}

fn top_n(logp: &[f32], n: usize) -> Vec<TokenLogprob> {
    let mut all: Vec<TokenLogprob> = logp
        .iter()
        .enumerate()
        .map(|(id, &logprob)| TokenLogprob {
            id: id as u32,
            logprob,
        })
        .collect();
    let by_logprob = |a: &TokenLogprob, b: &TokenLogprob| {
        b.logprob
            .partial_cmp(&a.logprob)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.id.cmp(&b.id))
    };
    if n < all.len() {
        all.select_nth_unstable_by(n, by_logprob);
        all.truncate(n);
    }
    all.sort_by(by_logprob);
    all
}

impl CustomLogitsProcessor for Recorder {
    fn apply(&self, logits: &Tensor, context: &[u32]) -> mistralrs::Result<Tensor> {
        let values: Vec<f32> = logits.to_dtype(DType::F32)?.flatten_all()?.to_vec1()?;
        let logp = log_softmax(&values);
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((top, argmax, previous)) = pending.last.take() {
            // The previous step's token is the newest in the context.
            let chosen = context.last().copied().unwrap_or(argmax);
            if chosen != argmax {
                tracing::debug!("logprobs: step chose {chosen}, not its argmax {argmax}");
            }
            pending.done.push(step(top, chosen, &previous));
        }
        pending.last = Some((top_n(&logp, self.top_n), argmax(&values), logp));
        Ok(logits.clone())
    }
}

/// The ids whose text the response needs, each once.
pub fn token_ids(steps: &[Step]) -> Vec<u32> {
    let mut ids: Vec<u32> = steps
        .iter()
        .flat_map(|s| std::iter::once(s.chosen.id).chain(s.top.iter().map(|t| t.id)))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// `choices[].logprobs` as OpenAI shapes it, given each token's text.
/// `bytes` is the text's UTF-8 when the token decodes whole, else null (a
/// byte-level token that is part of a character decodes to U+FFFD).
/// Log probabilities that are not finite are reported as -9999, as OpenAI does.
pub fn openai_logprobs(steps: &[Step], text: &HashMap<u32, String>) -> serde_json::Value {
    let entry = |t: &TokenLogprob| {
        let token = text.get(&t.id).cloned().unwrap_or_default();
        let bytes = (!token.contains('\u{fffd}')).then(|| token.as_bytes().to_vec());
        let logprob = if t.logprob.is_finite() {
            f64::from(t.logprob)
        } else {
            -9999.0
        };
        (token, logprob, bytes)
    };
    let content: Vec<serde_json::Value> = steps
        .iter()
        .map(|s| {
            let (token, logprob, bytes) = entry(&s.chosen);
            let top: Vec<serde_json::Value> = s
                .top
                .iter()
                .map(|t| {
                    let (token, logprob, bytes) = entry(t);
                    serde_json::json!({"token": token, "logprob": logprob, "bytes": bytes})
                })
                .collect();
            serde_json::json!({
                "token": token,
                "logprob": logprob,
                "bytes": bytes,
                "top_logprobs": top,
            })
        })
        .collect();
    serde_json::json!({"content": content, "refusal": null})
}

#[cfg(test)]
mod tests {
    use super::*;
    use mistralrs::Device;

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-5
    }

    #[test]
    fn log_softmax_normalizes_in_natural_log() {
        let logp = log_softmax(&[1.0, 2.0, 3.0, -1000.0]);
        let total: f32 = logp.iter().map(|x| x.exp()).sum();
        assert!(close(total, 1.0), "{total}");
        assert!(close(logp[2] - logp[1], 1.0));
        assert!(close(
            logp[2],
            -(1.0f32 + (-1.0f32).exp() + (-2.0f32).exp()).ln()
        ));
    }

    #[test]
    fn each_step_takes_its_token_from_the_next_context_and_the_last_its_argmax() {
        let recorder = Recorder::new(2);
        let prompt = [7u32, 8, 9];
        let step0 = Tensor::new(&[0.0f32, 3.0, 1.0, 2.0], &Device::Cpu).unwrap();
        let out = recorder.apply(&step0, &prompt).unwrap();
        assert_eq!(out.to_vec1::<f32>().unwrap(), [0.0, 3.0, 1.0, 2.0]);
        // The sampler took token 3, not the argmax 1.
        let step1 = Tensor::new(&[5.0f32, 0.0, 0.0, 5.0], &Device::Cpu).unwrap();
        recorder.apply(&step1, &[7, 8, 9, 3]).unwrap();
        let steps = recorder.finish(usize::MAX);
        assert_eq!(steps.len(), 2);
        let logp0 = log_softmax(&[0.0, 3.0, 1.0, 2.0]);
        assert_eq!(steps[0].chosen.id, 3);
        assert!(close(steps[0].chosen.logprob, logp0[3]));
        assert_eq!(
            steps[0].top.iter().map(|t| t.id).collect::<Vec<_>>(),
            [1, 3]
        );
        assert!(close(steps[0].top[0].logprob, logp0[1]));
        // Equal maxima: the last, as mistral.rs's greedy sampler.
        assert_eq!(steps[1].chosen.id, 3);
        assert!(close(
            steps[1].chosen.logprob,
            (1.0f32 / (2.0 + 2.0 * (-5.0f32).exp())).ln()
        ));
        assert_eq!(
            steps[1].top.iter().map(|t| t.id).collect::<Vec<_>>(),
            [0, 3]
        );
    }

    #[test]
    fn a_step_run_after_the_answer_is_dropped() {
        let recorder = Recorder::new(1);
        let logits = Tensor::new(&[1.0f32, 2.0], &Device::Cpu).unwrap();
        recorder.apply(&logits, &[7]).unwrap();
        recorder.apply(&logits, &[7, 1]).unwrap();
        let steps = recorder.finish(1);
        assert_eq!(steps.len(), 1);
        assert_eq!(steps[0].chosen.id, 1);
    }

    #[test]
    fn the_openai_shape_has_token_logprob_bytes_and_top_logprobs() {
        let steps = vec![Step {
            chosen: TokenLogprob {
                id: 5,
                logprob: -0.25,
            },
            top: vec![
                TokenLogprob {
                    id: 5,
                    logprob: -0.25,
                },
                TokenLogprob {
                    id: 9,
                    logprob: f32::NEG_INFINITY,
                },
            ],
        }];
        assert_eq!(token_ids(&steps), [5, 9]);
        let text = HashMap::from([(5, "Hi".to_string()), (9, "\u{fffd}".into())]);
        let json = openai_logprobs(&steps, &text);
        assert_eq!(
            json,
            serde_json::json!({"content": [{
                "token": "Hi", "logprob": -0.25, "bytes": [72, 105],
                "top_logprobs": [
                    {"token": "Hi", "logprob": -0.25, "bytes": [72, 105]},
                    {"token": "\u{fffd}", "logprob": -9999.0, "bytes": null},
                ],
            }], "refusal": null})
        );
    }
}
