//! Small statistics for success rates: the Wilson score interval, pass^k and
//! pass@k over repeats. Formulas only; no sampling.
//!
//! Wilson: E. B. Wilson, "Probable inference, the law of succession, and
//! statistical inference", JASA 22 (1927). It stays inside [0, 1] and behaves
//! at 0 and n successes, where the normal approximation does not.
//! pass^k (all k tries succeed) and pass@k (at least one of k succeeds) use the
//! unbiased estimators over n ≥ k repeats: C(c, k)/C(n, k) and
//! 1 − C(n−c, k)/C(n, k), as τ-bench (Yao et al. 2024) and HumanEval (Chen et
//! al. 2021) define them.

use crate::store::{EpisodeRecord, EpisodeStatus};
use droidscore_contract::stats;

/// z for a two-sided 95 % interval.
pub(crate) const Z95: f64 = 1.959_963_984_540_054;

/// A proportion with its Wilson 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Rate {
    pub successes: u64,
    pub n: u64,
    pub rate: f64,
    pub low: f64,
    pub high: f64,
}

impl Rate {
    pub fn new(successes: u64, n: u64) -> Rate {
        let (low, high) = wilson(successes, n, Z95);
        let rate = if n == 0 {
            0.0
        } else {
            successes as f64 / n as f64
        };
        Rate {
            successes,
            n,
            rate,
            low,
            high,
        }
    }

    /// Whether the two 95 % intervals overlap: then the difference is not a ranking.
    pub(crate) fn overlaps(&self, other: &Rate) -> bool {
        self.low <= other.high && other.low <= self.high
    }

    /// `62.5% [40.9, 80.0] (10/16)`.
    pub fn display(&self) -> String {
        if self.n == 0 {
            return "n/a (0 scored)".into();
        }
        format!(
            "{:.1}% [{:.1}, {:.1}] ({}/{})",
            100.0 * self.rate,
            100.0 * self.low,
            100.0 * self.high,
            self.successes,
            self.n
        )
    }
}

/// Wilson score interval for `successes` of `n`; (0, 1) when `n` is 0.
pub(crate) fn wilson(successes: u64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    wilson_p(successes as f64 / n as f64, n as f64, z)
}

/// The 95 % interval of a proportion pooled over clusters whose trials are
/// not independent — the steps of one episode, the milestones of one
/// episode: Wilson's interval on the effective sample size, the trials
/// divided by the design effect (Kish): the cluster-robust variance of
/// the ratio Σ right / Σ trials over the binomial variance, never below 1.
/// Where the binomial variance is 0 (none right, or all) the design effect
/// cannot be estimated and is taken as the mean cluster size, as if each
/// cluster were one trial: the widest it can be. `groups` is (right,
/// trials) per cluster; clusters without trials are left out.
pub fn clustered_wilson(groups: &[(u64, u64)]) -> (f64, f64) {
    let groups: Vec<(f64, f64)> = groups
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|&(r, n)| (r as f64, n as f64))
        .collect();
    let k = groups.len() as f64;
    let trials: f64 = groups.iter().map(|(_, n)| n).sum();
    if trials == 0.0 {
        return (0.0, 1.0);
    }
    let p = groups.iter().map(|(r, _)| r).sum::<f64>() / trials;
    let binomial = p * (1.0 - p) / trials;
    let deff = if k < 2.0 {
        trials
    } else if binomial > 0.0 {
        let spread: f64 = groups.iter().map(|(r, n)| (r - p * n).powi(2)).sum();
        let robust = k / (k - 1.0) * spread / (trials * trials);
        (robust / binomial).max(1.0)
    } else {
        trials / k
    };
    wilson_p(p, trials / deff, Z95)
}

/// Success's 95 % interval with the episodes of one task template as one
/// cluster: its variants, instances, device conditions and repeats share
/// the template's screens and steps, so a model that cannot do one
/// usually cannot do the others (`clustered_wilson` over templates).
pub(crate) fn by_template<'a>(episodes: impl Iterator<Item = &'a EpisodeRecord>) -> (f64, f64) {
    let mut groups: std::collections::BTreeMap<&str, (u64, u64)> = Default::default();
    for e in
        episodes.filter(|e| matches!(e.status, EpisodeStatus::Success | EpisodeStatus::Failure))
    {
        let g = groups.entry(e.task.as_str()).or_default();
        g.0 += u64::from(e.status == EpisodeStatus::Success);
        g.1 += 1;
    }
    clustered_wilson(&groups.into_values().collect::<Vec<_>>())
}

/// What repeats say about a rate's variance (Miller 2024, §3): the
/// variance of the mean over keys, Var(x̄ᵢ)/n, of which the sampling
/// component — a key's outcomes differing between its repeats, what a
/// temperature above 0 adds — is E[sᵢ²]/(n·k).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Sampling {
    /// Keys with at least two scored repeats.
    pub keys: usize,
    /// Mean repeats per key.
    pub repeats: f64,
    /// Mean within-key sample variance of the outcome, E[sᵢ²].
    pub within: f64,
    /// The sampling component's share of the variance of the mean.
    pub share: f64,
}

/// The sampling component of `outcomes` (each key's repeats, 0 or 1 each);
/// `None` with fewer than two keys of two repeats, or no variance at all.
pub fn sampling(outcomes: &[Vec<f64>]) -> Option<Sampling> {
    let keys: Vec<&Vec<f64>> = outcomes.iter().filter(|o| o.len() >= 2).collect();
    let n = keys.len() as f64;
    if n < 2.0 {
        return None;
    }
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    let var = |xs: &[f64]| {
        let m = mean(xs);
        xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() as f64 - 1.0)
    };
    let within = keys.iter().map(|o| var(o)).sum::<f64>() / n;
    let repeats = keys.iter().map(|o| o.len() as f64).sum::<f64>() / n;
    let means: Vec<f64> = keys.iter().map(|o| mean(o)).collect();
    let between = var(&means);
    (between > 0.0).then(|| Sampling {
        keys: keys.len(),
        repeats,
        within,
        share: (within / repeats / between).min(1.0),
    })
}

/// Wilson's interval for a proportion `p` over `n` trials (`n` may be an
/// effective, fractional size).
fn wilson_p(p: f64, n: f64, z: f64) -> (f64, f64) {
    let z2 = z * z;
    let centre = p + z2 / (2.0 * n);
    let margin = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let denominator = 1.0 + z2 / n;
    // At 0 and n successes the bounds are exactly 0 and 1; say so rather than
    // leave 0.9999999999999999 from rounding.
    let low = if p == 0.0 {
        0.0
    } else {
        ((centre - margin) / denominator).max(0.0)
    };
    let high = if p == 1.0 {
        1.0
    } else {
        ((centre + margin) / denominator).min(1.0)
    };
    (low, high)
}

/// C(n, k) as f64 (exact for the small n of repeats).
fn choose(n: u64, k: u64) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// Estimated probability that k tries all succeed, from c successes in n ≥ k tries.
pub(crate) fn pass_hat_k(c: u64, n: u64, k: u64) -> Option<f64> {
    (k >= 1 && n >= k).then(|| choose(c, k) / choose(n, k))
}

/// A named success rate: a task, a variant, a slice.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Line {
    pub name: String,
    pub rate: Rate,
}

/// Success over the scored episodes (success or failure) of `episodes`.
pub(crate) fn rate<'a>(episodes: impl Iterator<Item = &'a EpisodeRecord>) -> Rate {
    let (mut ok, mut n) = (0, 0);
    for e in
        episodes.filter(|e| matches!(e.status, EpisodeStatus::Success | EpisodeStatus::Failure))
    {
        n += 1;
        ok += u64::from(e.status == EpisodeStatus::Success);
    }
    Rate::new(ok, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-4
    }

    #[test]
    fn a_clustered_interval_is_wilsons_when_clusters_are_independent_trials() {
        // One trial a cluster: the design effect is 1 (the robust variance
        // is the binomial one, times k/(k-1), floored at 1 only if below).
        let singles: Vec<(u64, u64)> = (0..40).map(|i| (u64::from(i < 10), 1)).collect();
        let (low, high) = clustered_wilson(&singles);
        let (wl, wh) = wilson(10, 40, Z95);
        assert!(low <= wl + 1e-12 && high >= wh - 1e-12);
        assert!((low - wl).abs() < 0.01 && (high - wh).abs() < 0.01);
    }

    #[test]
    fn a_clustered_interval_widens_when_episodes_are_all_or_nothing() {
        // 20 episodes of 10 steps: 5 all right, 15 all wrong. Pooled, 50 of
        // 200 steps; but there are 20 independent units, not 200.
        let groups: Vec<(u64, u64)> = (0..20).map(|i| (if i < 5 { 10 } else { 0 }, 10)).collect();
        let (cl, ch) = clustered_wilson(&groups);
        let (wl, wh) = wilson(50, 200, Z95);
        assert!(ch - cl > 2.0 * (wh - wl), "[{cl}, {ch}] vs [{wl}, {wh}]");
        // As wide as Wilson's on the 20 episodes themselves, near enough.
        let (el, eh) = wilson(5, 20, Z95);
        assert!((cl - el).abs() < 0.03 && (ch - eh).abs() < 0.03);
    }

    #[test]
    fn sampling_variance_is_the_share_repeats_disagree_on() {
        // Four keys of four repeats: two always right, two right half the
        // time. Within: mean of (0, 0, 1/3, 1/3) = 1/6; key means 1, 1,
        // ½, ½ have variance 1/12; share (1/6)/4 ÷ 1/12 = ½.
        let keys = vec![
            vec![1.0; 4],
            vec![1.0; 4],
            vec![1.0, 0.0, 1.0, 0.0],
            vec![0.0, 1.0, 0.0, 1.0],
        ];
        let s = sampling(&keys).unwrap();
        assert!(
            (s.within - 1.0 / 6.0).abs() < 1e-12 && (s.share - 0.5).abs() < 1e-12,
            "{s:?}"
        );
        // Repeats that never differ: no sampling component.
        let stable = vec![vec![1.0; 3], vec![0.0; 3]];
        assert_eq!(sampling(&stable).unwrap().share, 0.0);
        assert_eq!(sampling(&[vec![1.0]]), None);
    }

    #[test]
    fn a_clustered_interval_at_zero_counts_each_cluster_once() {
        let groups = vec![(0, 5); 30];
        assert_eq!(clustered_wilson(&groups), wilson(0, 30, Z95));
        assert_eq!(clustered_wilson(&[]), (0.0, 1.0));
    }

    #[test]
    fn wilson_matches_published_values() {
        // 8 of 10 at 95 %: [0.490, 0.943] (Newcombe 1998, Table I, row 8/10 method 3).
        let (lo, hi) = wilson(8, 10, Z95);
        assert!(close(lo, 0.4902) && close(hi, 0.9433), "{lo} {hi}");
        // The edges stay inside [0, 1] and are not degenerate.
        let (lo, hi) = wilson(0, 10, Z95);
        assert!(lo == 0.0 && close(hi, 0.2775), "{lo} {hi}");
        let (lo, hi) = wilson(10, 10, Z95);
        assert!(close(lo, 0.7225) && hi == 1.0, "{lo} {hi}");
        assert_eq!(wilson(0, 0, Z95), (0.0, 1.0));
    }

    #[test]
    fn pass_k_estimators() {
        assert_eq!(pass_hat_k(3, 3, 3), Some(1.0));
        assert_eq!(pass_hat_k(2, 3, 3), Some(0.0));
        assert!(close(pass_hat_k(2, 4, 2).unwrap(), 1.0 / 6.0));
        assert_eq!(pass_hat_k(1, 1, 2), None, "k above n is not estimable");
    }

    #[test]
    fn overlapping_intervals_are_not_a_ranking() {
        assert!(Rate::new(6, 10).overlaps(&Rate::new(8, 10)));
        assert!(!Rate::new(1, 20).overlaps(&Rate::new(19, 20)));
    }
}

/// Median, median absolute deviation and range of a sample: the spread we
/// quote with every timing.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Spread {
    pub n: usize,
    pub median: f64,
    /// Median absolute deviation from the median (unscaled).
    pub mad: f64,
    pub min: f64,
    pub max: f64,
}

/// The spread of `samples` (NaN figures for an empty sample); its medians
/// are the contract's, the ones the device's `speed` figures use.
pub fn spread(samples: &[f64]) -> Spread {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = stats::median(&sorted);
    let deviations: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
    Spread {
        n: sorted.len(),
        median,
        mad: stats::median(&deviations),
        min: sorted.first().copied().unwrap_or(f64::NAN),
        max: sorted.last().copied().unwrap_or(f64::NAN),
    }
}

#[cfg(test)]
mod spread_tests {
    use super::spread;

    #[test]
    fn median_mad_and_range_of_a_small_sample() {
        let s = spread(&[5.0, 1.0, 3.0, 100.0]);
        assert_eq!((s.n, s.median, s.min, s.max), (4, 4.0, 1.0, 100.0));
        // Deviations from 4: 1, 3, 1, 96 → sorted 1, 1, 3, 96 → median 2.
        assert_eq!(s.mad, 2.0);
        assert!(spread(&[]).median.is_nan());
    }
}
