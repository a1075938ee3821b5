//! Tokens and agent latency per step, from the run store's step rows
//! ([`StepUsage`]): the share of answers that were not a valid action (with
//! its Wilson interval), the median and total of prompt tokens sent, of
//! prompt tokens computed (sent less those the server's prefix cache
//! served, over the steps whose endpoint reported `cached_tokens`) and of
//! completion tokens (over the steps whose endpoint reported them), and the
//! median, p10–p90 and min–max of the agent's latency per step.

use droidscore_contract::stats::quantile;

use super::stats::Rate;
use crate::store::StepUsage;

/// Per-step cost of a run. Token fields are `None` when no step reported them
/// (built-in agents, endpoints without `usage`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct UsageStats {
    pub steps: u64,
    /// Recorded steps whose answer was not a valid action; `None` without steps.
    pub invalid_answers: Option<Rate>,
    /// Prompt tokens sent.
    pub prompt_tokens: Option<Tokens>,
    /// Prompt tokens the server computed: sent − cached, over the steps
    /// that reported both (`None` when none reported `cached_tokens`).
    pub computed_tokens: Option<Tokens>,
    pub completion_tokens: Option<Tokens>,
    pub latency_ms: Option<Spread>,
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Tokens {
    /// Steps that reported this count (the median is over these).
    pub steps: u64,
    pub median: f64,
    pub total: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Spread {
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
    pub min: f64,
    pub max: f64,
}

fn tokens(counts: impl Iterator<Item = Option<u64>>) -> Option<Tokens> {
    let mut v: Vec<u64> = counts.flatten().collect();
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    let sorted: Vec<f64> = v.iter().map(|&c| c as f64).collect();
    Some(Tokens {
        steps: v.len() as u64,
        median: quantile(&sorted, 0.5),
        total: v.iter().sum(),
    })
}

impl UsageStats {
    pub fn of(steps: &[StepUsage]) -> UsageStats {
        let mut latency: Vec<f64> = steps.iter().map(|s| s.latency_ms).collect();
        latency.sort_by(f64::total_cmp);
        UsageStats {
            steps: steps.len() as u64,
            invalid_answers: (!steps.is_empty()).then(|| {
                Rate::new(
                    steps.iter().filter(|s| s.invalid).count() as u64,
                    steps.len() as u64,
                )
            }),
            prompt_tokens: tokens(steps.iter().map(|s| s.prompt_tokens)),
            computed_tokens: tokens(steps.iter().map(|s| {
                s.prompt_tokens
                    .zip(s.cached_tokens)
                    .map(|(sent, cached)| sent.saturating_sub(cached))
            })),
            completion_tokens: tokens(steps.iter().map(|s| s.completion_tokens)),
            latency_ms: (!latency.is_empty()).then(|| Spread {
                median: quantile(&latency, 0.5),
                p10: quantile(&latency, 0.1),
                p90: quantile(&latency, 0.9),
                min: latency[0],
                max: latency[latency.len() - 1],
            }),
        }
    }

    /// Lines for the text reports; empty when the run recorded no steps.
    pub fn lines(&self) -> Vec<String> {
        if self.steps == 0 {
            return Vec::new();
        }
        let tok = |name: &str, t: &Option<Tokens>, absent: &str| match t {
            Some(t) => format!(
                "{name} per step: median {:.0}, total {} (reported by {} of {} recorded steps)",
                t.median, t.total, t.steps, self.steps
            ),
            None => format!("{name} per step: not reported{absent}"),
        };
        let mut out = Vec::new();
        if let Some(rate) = &self.invalid_answers {
            out.push(format!(
                "invalid answers per recorded step: {}",
                rate.display()
            ));
        }
        out.push(tok("prompt tokens sent", &self.prompt_tokens, ""));
        out.push(tok(
            "prompt tokens computed (sent − cached)",
            &self.computed_tokens,
            " (no cached_tokens from the endpoint)",
        ));
        out.push(tok("completion tokens", &self.completion_tokens, ""));
        if let Some(l) = &self.latency_ms {
            out.push(format!(
                "agent latency per step: median {:.1} ms, p10–p90 {:.1}–{:.1} ms, min–max {:.1}–{:.1} ms",
                l.median, l.p10, l.p90, l.min, l.max
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(prompt: Option<u64>, completion: Option<u64>, latency_ms: f64) -> StepUsage {
        StepUsage {
            task: "t".into(),
            variant: "base".into(),
            repeat: 0,
            index: 0,
            invalid: false,
            prompt_tokens: prompt,
            cached_tokens: None,
            completion_tokens: completion,
            latency_ms,
        }
    }

    #[test]
    fn medians_totals_and_spread_over_hand_made_steps() {
        let steps = [
            step(Some(100), Some(10), 40.0),
            step(Some(300), Some(30), 10.0),
            step(Some(200), None, 30.0),
            step(Some(400), Some(20), 20.0),
            step(None, None, 100.0),
        ];
        let u = UsageStats::of(&steps);
        assert_eq!(u.steps, 5);
        assert_eq!(
            u.prompt_tokens,
            Some(Tokens {
                steps: 4,
                median: 250.0,
                total: 1000
            })
        );
        assert_eq!(
            u.completion_tokens,
            Some(Tokens {
                steps: 3,
                median: 20.0,
                total: 60
            })
        );
        let l = u.latency_ms.unwrap();
        // Sorted 10, 20, 30, 40, 100: p10 at rank 0.4, p90 at rank 3.6.
        assert_eq!((l.min, l.median, l.max), (10.0, 30.0, 100.0));
        assert!((l.p10 - 14.0).abs() < 1e-9, "{}", l.p10);
        assert!((l.p90 - 76.0).abs() < 1e-9, "{}", l.p90);
    }

    #[test]
    fn no_steps_and_no_token_counts_say_so() {
        assert_eq!(UsageStats::of(&[]), UsageStats::default());
        assert!(UsageStats::default().lines().is_empty());
        let u = UsageStats::of(&[step(None, None, 5.0)]);
        assert_eq!(u.prompt_tokens, None);
        assert_eq!(
            u.lines(),
            [
                "invalid answers per recorded step: 0.0% [0.0, 79.3] (0/1)",
                "prompt tokens sent per step: not reported",
                "prompt tokens computed (sent − cached) per step: not reported (no cached_tokens from the endpoint)",
                "completion tokens per step: not reported",
                "agent latency per step: median 5.0 ms, p10–p90 5.0–5.0 ms, min–max 5.0–5.0 ms"
            ]
        );
    }

    #[test]
    fn computed_tokens_are_sent_less_cached_and_absent_cached_is_not_zero() {
        let mut steps = [
            step(Some(400), Some(30), 10.0),
            step(Some(420), Some(30), 10.0),
            step(Some(440), Some(30), 10.0),
            step(Some(460), Some(30), 10.0),
        ];
        steps[1].cached_tokens = Some(380);
        steps[2].cached_tokens = Some(400);
        steps[3].invalid = true;
        let u = UsageStats::of(&steps);
        // Only the two steps that reported cached tokens count: 40 and 40.
        assert_eq!(
            u.computed_tokens,
            Some(Tokens {
                steps: 2,
                median: 40.0,
                total: 80
            })
        );
        assert_eq!(u.invalid_answers.map(|r| (r.successes, r.n)), Some((1, 4)));
        insta::assert_snapshot!(u.lines().join("\n"));
    }
}
