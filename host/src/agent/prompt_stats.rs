//! The size of the prompts an agent sends, measured on request bodies
//! (`droidscore agent prompts`): characters of the system and user text per
//! step, tokens estimated from them ([`estimate_tokens`]), and how much of
//! each step's prompt repeats the previous step's from the start — what a
//! server's prefix cache can serve instead of computing.

use std::path::Path;

use serde_json::Value;

use super::schema::Constrain;

/// Characters per token of SmolLM2-135M's tokenizer on these prompts, and
/// the tokens its chat template adds (`<|im_start|>system\n` … `<|im_end|>\n`
/// twice, then `<|im_start|>assistant\n`: 13). Calibration: the first
/// prompt design (system prompt 1,722 characters; the suite's median step
/// 2,575 characters of system and user text under the reference solver)
/// was a median 836 `usage.prompt_tokens` under the default model (issue
/// 16, a six-task slice) and 823 over the whole suite by the GGUF's own
/// vocabulary (`scripts/prompt-tokens.py`): 3.13–3.15 characters a token
/// once the template's 13 are taken off. The second design counts 3.23.
/// The lower figure is kept, so estimates err high.
pub(crate) const CHARS_PER_TOKEN: f64 = 3.15;
pub(crate) const TEMPLATE_TOKENS: f64 = 13.0;

/// Tokens a prompt of `chars` characters (system and user text) costs.
pub(crate) fn estimate_tokens(chars: usize) -> f64 {
    chars as f64 / CHARS_PER_TOKEN + TEMPLATE_TOKENS
}

/// The system and user text of a chat-completions body, joined.
pub(crate) fn prompt_text(body: &Value) -> String {
    let mut out = String::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        match &message["content"] {
            Value::String(s) => out.push_str(s),
            Value::Array(parts) => {
                for part in parts {
                    if let Some(text) = part["text"].as_str() {
                        out.push_str(text);
                    }
                }
            }
            _ => {}
        }
        out.push('\n');
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
pub struct PromptStats {
    pub episodes: usize,
    pub steps: usize,
    pub system_chars: usize,
    pub median_chars: f64,
    pub p90_chars: f64,
    pub max_chars: usize,
    /// Median over steps after an episode's first of the share of the
    /// prompt's characters that repeat the previous step's from the start.
    pub median_shared: f64,
}

/// 0 for no steps (the figures of an empty run), else the contract's quantile.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    droidscore_contract::stats::quantile(sorted, q)
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

impl PromptStats {
    /// Over episodes, each its request bodies in order.
    pub fn of(episodes: &[Vec<Value>]) -> PromptStats {
        let mut chars = Vec::new();
        let mut shared = Vec::new();
        let mut system_chars = 0;
        for bodies in episodes {
            let mut previous: Option<String> = None;
            for body in bodies {
                if let Some(s) = body["messages"][0]["content"].as_str() {
                    system_chars = s.chars().count();
                }
                let text = prompt_text(body);
                let n = text.chars().count();
                chars.push(n as f64);
                if let Some(prev) = &previous {
                    shared.push(common_prefix(prev, &text) as f64 / n.max(1) as f64);
                }
                previous = Some(text);
            }
        }
        let mut sorted = chars.clone();
        sorted.sort_by(f64::total_cmp);
        shared.sort_by(f64::total_cmp);
        PromptStats {
            episodes: episodes.len(),
            steps: chars.len(),
            system_chars,
            median_chars: quantile(&sorted, 0.5),
            p90_chars: quantile(&sorted, 0.9),
            max_chars: sorted.last().copied().unwrap_or(0.0) as usize,
            median_shared: quantile(&shared, 0.5),
        }
    }

    pub fn lines(&self, constrain: Constrain, path: &Path) -> Vec<String> {
        vec![
            format!(
                "{} steps over {} episodes (--constrain {}), bodies in {}",
                self.steps,
                self.episodes,
                constrain.name(),
                path.display()
            ),
            format!(
                "prompt characters per step (system and user text): median {:.0}, p90 {:.0}, max {}; system prompt {}",
                self.median_chars, self.p90_chars, self.max_chars, self.system_chars
            ),
            format!(
                "estimated prompt tokens per step ({CHARS_PER_TOKEN} characters a token + {TEMPLATE_TOKENS} for the chat template): median {:.0}, p90 {:.0}, max {:.0}",
                estimate_tokens(self.median_chars as usize),
                estimate_tokens(self.p90_chars as usize),
                estimate_tokens(self.max_chars)
            ),
            format!(
                "repeated from the previous step's prompt, from the start: median {:.0}% of the characters",
                100.0 * self.median_shared
            ),
        ]
    }
}
