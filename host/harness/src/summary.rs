//! The judgement: per arm and key, every sample with its min, median, max
//! and spread; the best sample in the key's declared direction; and whether
//! the arms' order on the metric is a ranking at all.
//!
//! **NOT A RANKING** when any of these holds:
//! - fewer than 3 passes completed (two samples cannot show their own noise);
//! - fewer than 2 arms;
//! - the top two arms' medians are equal, or their difference is smaller
//!   than the larger of the two arms' spreads (max − min over the passes):
//!   the gap is inside what one arm varies by on its own.
//!
//! Otherwise the arms are ranked by median, best first, and each carries the
//! ratio of the best median to its own (higher-better) or of its own to the
//! best (lower-better), so the ratio reads "the best is r× better".
//!
//! Below the top two, each arm is held to the same test against the arm
//! just above it: when their medians differ by less than the larger of the
//! two spreads (or not at all), it is *not ranked against it* and shares its
//! place (printed `2=`), so no place number claims an order the data do not
//! show.
//!
//! Every summarised key is judged this way, not only the metric: the
//! metric's ranking decides the headline, and each other key gets its own
//! top-two verdict (`rankings` in the JSON).

use std::collections::BTreeMap;

use super::figures;
use super::runner::Pass;
use super::spec::{Direction, Spec};
use super::BenchError;

/// The passes below which no ranking is printed.
pub const MIN_PASSES_TO_RANK: usize = 3;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Sample {
    pub pass: usize,
    pub value: f64,
    pub contended: bool,
    pub forced_past_busy: bool,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct KeyStats {
    pub direction: Direction,
    pub samples: Vec<Sample>,
    pub min: f64,
    pub median: f64,
    pub max: f64,
    /// max − min.
    pub spread: f64,
    /// spread / |median|; `None` when the median is 0.
    pub relative_spread: Option<f64>,
    /// The minimum for lower-better keys, the maximum for higher-better.
    pub best: f64,
}

impl KeyStats {
    pub fn new(direction: Direction, samples: Vec<Sample>) -> KeyStats {
        let values: Vec<f64> = samples.iter().map(|s| s.value).collect();
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let median = median(&values);
        let spread = max - min;
        KeyStats {
            direction,
            best: direction.best(&values),
            relative_spread: (median != 0.0).then(|| spread / median.abs()),
            samples,
            min,
            median,
            max,
            spread,
        }
    }
}

pub use droidscore_contract::stats::median;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ArmSummary {
    pub tag: String,
    pub keys: BTreeMap<String, KeyStats>,
}

/// Every arm's statistics over the complete passes (in which every arm
/// ran), keys in `keys`: an incomplete pass's runs are left out, so every
/// arm has the same number of samples.
pub fn summarize(
    spec: &Spec,
    keys: &[String],
    passes: &[Pass],
) -> Result<Vec<ArmSummary>, BenchError> {
    let passes: Vec<&Pass> = passes.iter().filter(|p| p.complete).collect();
    let mut out = Vec::new();
    for arm in &spec.arms {
        let mut stats = BTreeMap::new();
        for key in keys {
            let direction = spec.direction(key)?;
            let samples: Vec<Sample> = passes
                .iter()
                .flat_map(|p| p.runs.iter().map(move |r| (*p, r)))
                .filter(|(_, r)| r.arm == arm.tag)
                .filter_map(|(p, r)| {
                    Some(Sample {
                        pass: p.pass,
                        value: figures::number(&r.figures, key)?,
                        contended: r.contention.contended,
                        forced_past_busy: p.forced_past_busy,
                    })
                })
                .collect();
            if !samples.is_empty() {
                stats.insert(key.clone(), KeyStats::new(direction, samples));
            }
        }
        out.push(ArmSummary {
            tag: arm.tag.clone(),
            keys: stats,
        });
    }
    Ok(out)
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Ranked {
    pub tag: String,
    pub median: f64,
    pub spread: f64,
    /// How many times better the best arm's median is than this one's (1 for the best).
    pub ratio_to_best: f64,
    /// Place from 1; an arm not ranked against the arm above shares its place.
    pub place: usize,
    /// From the second arm on: whether its median is separated from the
    /// arm's just above it by at least the larger of their spreads.
    pub ranked_against_above: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Ranking {
    pub metric: String,
    pub direction: Direction,
    /// Arms by median on the metric, best first (printed as a ranking only
    /// when `not_a_ranking` is false).
    pub order: Vec<Ranked>,
    pub not_a_ranking: bool,
    /// Why it is, or is not, a ranking, with the figures that decided.
    pub reason: String,
}

/// Judges the arms on `metric`; `passes` is the number of completed passes.
pub fn rank(
    summaries: &[ArmSummary],
    metric: &str,
    direction: Direction,
    passes: usize,
) -> Ranking {
    let mut order: Vec<(String, f64, f64)> = summaries
        .iter()
        .filter_map(|s| {
            let k = s.keys.get(metric)?;
            Some((s.tag.clone(), k.median, k.spread))
        })
        .collect();
    order.sort_by(|a, b| match direction {
        Direction::Higher => b.1.total_cmp(&a.1),
        Direction::Lower => a.1.total_cmp(&b.1),
    });
    let best = order.first().map_or(f64::NAN, |o| o.1);
    let ratio = |m: f64| match direction {
        Direction::Higher => best / m,
        Direction::Lower => m / best,
    };
    let mut ranked: Vec<Ranked> = Vec::new();
    for (i, (tag, median, spread)) in order.iter().enumerate() {
        let (place, ranked_against_above) = match ranked.last() {
            None => (1, None),
            Some(above) => {
                let separated = separated(above.median, above.spread, *median, *spread);
                let place = if separated { i + 1 } else { above.place };
                (place, Some(separated))
            }
        };
        ranked.push(Ranked {
            tag: tag.clone(),
            median: *median,
            spread: *spread,
            ratio_to_best: ratio(*median),
            place,
            ranked_against_above,
        });
    }
    let (not_a_ranking, reason) = judge(&ranked, passes);
    Ranking {
        metric: metric.to_string(),
        direction,
        order: ranked,
        not_a_ranking,
        reason,
    }
}

/// Whether two medians differ by at least the larger of the two spreads
/// (and differ at all).
fn separated(a_median: f64, a_spread: f64, b_median: f64, b_spread: f64) -> bool {
    let difference = (a_median - b_median).abs();
    difference != 0.0 && difference >= a_spread.max(b_spread)
}

/// Every key's ranking, the metric's first (keys in `keys` order); a key no
/// arm has is left out.
pub fn rank_all(
    summaries: &[ArmSummary],
    keys: &[String],
    spec: &Spec,
    passes: usize,
) -> Result<Vec<Ranking>, BenchError> {
    keys.iter()
        .map(|k| Ok(rank(summaries, k, spec.direction(k)?, passes)))
        .collect()
}

fn judge(order: &[Ranked], passes: usize) -> (bool, String) {
    if order.len() < 2 {
        return (true, "fewer than two arms have the metric".into());
    }
    if passes < MIN_PASSES_TO_RANK {
        return (
            true,
            format!("{passes} passes completed; at least {MIN_PASSES_TO_RANK} are needed to see each arm's spread"),
        );
    }
    let (a, b) = (&order[0], &order[1]);
    let difference = (a.median - b.median).abs();
    let noise = a.spread.max(b.spread);
    if difference == 0.0 {
        return (
            true,
            format!(
                "{} and {} have the same median ({})",
                a.tag, b.tag, a.median
            ),
        );
    }
    if difference < noise {
        return (
            true,
            format!(
                "the medians of {} and {} differ by {}, less than the larger of their spreads (max − min), {}",
                a.tag,
                b.tag,
                fmt(difference),
                fmt(noise)
            ),
        );
    }
    (
        false,
        format!(
            "the medians of {} and {} differ by {}, at least the larger of their spreads (max − min), {}; \
             {} is {:.2}× better",
            a.tag,
            b.tag,
            fmt(difference),
            fmt(noise),
            a.tag,
            b.ratio_to_best
        ),
    )
}

/// A figure with four significant digits, no exponent for everyday sizes.
pub fn fmt(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = (4 - 1 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(values: &[f64]) -> Vec<Sample> {
        values
            .iter()
            .enumerate()
            .map(|(i, &value)| Sample {
                pass: i + 1,
                value,
                contended: false,
                forced_past_busy: false,
            })
            .collect()
    }

    fn arm(tag: &str, key: &str, direction: Direction, values: &[f64]) -> ArmSummary {
        ArmSummary {
            tag: tag.into(),
            keys: BTreeMap::from([(key.to_string(), KeyStats::new(direction, samples(values)))]),
        }
    }

    #[test]
    fn best_is_the_minimum_for_memory_and_the_maximum_for_throughput() {
        let mem = KeyStats::new(Direction::Lower, samples(&[300.0, 100.0, 200.0]));
        assert_eq!(mem.best, 100.0);
        let ts = KeyStats::new(Direction::Higher, samples(&[30.0, 10.0, 20.0]));
        assert_eq!(ts.best, 30.0);
        assert_eq!(
            (ts.min, ts.median, ts.max, ts.spread),
            (10.0, 20.0, 30.0, 20.0)
        );
        assert_eq!(ts.relative_spread, Some(1.0));
    }

    #[test]
    fn a_difference_inside_the_spread_is_not_a_ranking() {
        let h = Direction::Higher;
        let a = arm("a", "x_ts", h, &[10.0, 12.0, 14.0]);
        let b = arm("b", "x_ts", h, &[11.0, 13.0, 15.0]);
        let r = rank(&[a, b], "x_ts", h, 3);
        assert!(r.not_a_ranking, "{}", r.reason);
        assert_eq!(r.order[0].tag, "b");
        assert!(r.reason.contains("less than"), "{}", r.reason);
    }

    #[test]
    fn a_clear_difference_is_a_ranking_with_the_ratio_of_medians() {
        let h = Direction::Higher;
        let a = arm("a", "x_ts", h, &[10.0, 11.0, 12.0]);
        let b = arm("b", "x_ts", h, &[20.0, 22.0, 24.0]);
        let r = rank(&[a, b], "x_ts", h, 3);
        assert!(!r.not_a_ranking, "{}", r.reason);
        assert_eq!(r.order[0].tag, "b");
        assert_eq!(r.order[1].ratio_to_best, 2.0);
        // Lower-better: the smaller median wins, the ratio is theirs over ours.
        let l = Direction::Lower;
        let a = arm("a", "t_ms", l, &[10.0, 11.0, 12.0]);
        let b = arm("b", "t_ms", l, &[30.0, 33.0, 36.0]);
        let r = rank(&[a, b], "t_ms", l, 3);
        assert!(!r.not_a_ranking);
        assert_eq!(r.order[0].tag, "a");
        assert_eq!(r.order[1].ratio_to_best, 3.0);
    }

    #[test]
    fn a_gap_exactly_the_spread_is_a_ranking_and_equal_medians_are_not() {
        let h = Direction::Higher;
        let r = rank(
            &[
                arm("a", "k_ts", h, &[10.0, 11.0, 12.0]),
                arm("b", "k_ts", h, &[12.0, 13.0, 14.0]),
            ],
            "k_ts",
            h,
            3,
        );
        assert!(
            !r.not_a_ranking,
            "difference 2 is not smaller than spread 2"
        );
        let r = rank(
            &[
                arm("a", "k_ts", h, &[5.0, 5.0, 5.0]),
                arm("b", "k_ts", h, &[5.0, 5.0, 5.0]),
            ],
            "k_ts",
            h,
            3,
        );
        assert!(r.not_a_ranking);
    }

    #[test]
    fn a_third_arm_inside_the_spread_of_the_second_is_not_ranked_against_it() {
        let h = Direction::Higher;
        let r = rank(
            &[
                arm("a", "k_ts", h, &[40.0, 41.0, 42.0]),
                arm("b", "k_ts", h, &[20.0, 22.0, 24.0]),
                arm("c", "k_ts", h, &[19.0, 21.0, 23.0]),
                arm("d", "k_ts", h, &[5.0, 6.0, 7.0]),
            ],
            "k_ts",
            h,
            3,
        );
        assert!(!r.not_a_ranking, "{}", r.reason);
        let places: Vec<(&str, usize, Option<bool>)> = r
            .order
            .iter()
            .map(|o| (o.tag.as_str(), o.place, o.ranked_against_above))
            .collect();
        assert_eq!(
            places,
            [
                ("a", 1, None),
                ("b", 2, Some(true)),
                ("c", 2, Some(false)),
                ("d", 4, Some(true))
            ]
        );
    }

    #[test]
    fn fewer_than_three_passes_is_never_a_ranking() {
        let h = Direction::Higher;
        let r = rank(
            &[
                arm("a", "k_ts", h, &[1.0, 1.0]),
                arm("b", "k_ts", h, &[100.0, 100.0]),
            ],
            "k_ts",
            h,
            2,
        );
        assert!(r.not_a_ranking);
        assert!(r.reason.contains("2 passes"), "{}", r.reason);
    }

    #[test]
    fn figures_print_with_four_significant_digits() {
        assert_eq!(fmt(39.6123), "39.61");
        assert_eq!(fmt(351234.0), "351234");
        assert_eq!(fmt(0.012345), "0.01235");
    }
}
