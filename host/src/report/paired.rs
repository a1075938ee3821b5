//! Two runs compared on the keys both hold, keeping the pairing: the
//! difference of two rates with a 95 % interval clustered by task template,
//! McNemar's exact test on the discordant pairs of a yes/no outcome, Holm's
//! correction across a family of rows, and the smallest difference the
//! shared keys could detect. Formulas only; no sampling, so no seed.
//!
//! The method is E. Miller, "Adding Error Bars to Evals" (arXiv 2411.00640,
//! 2024): paired differences when two models answer the same questions, and
//! cluster-robust standard errors when the questions come in groups. Here a
//! unit is one key both runs scored (a step, an episode), its outcome a
//! numerator over a trial count (1 for a step or an episode, the milestones
//! for Sub-SR); a rate is Σ numerators ÷ Σ trials, and the difference of the
//! two runs' rates is linearised unit by unit,
//!
//!   zᵢ = (aᵢ − R_A·mᵢ) − (bᵢ − R_B·mᵢ),
//!
//! summed per cluster (Sᵍ); its variance is G/(G−1)·Σ Sᵍ² / (Σ m)², the
//! cluster-robust (CR1) variance that statsmodels computes for a constant
//! regressed on the paired differences (`OLS(d, 1).fit(cov_type="cluster")`,
//! WLS with weights m for ratios), and the interval uses Student's t with
//! G − 1 degrees of freedom, as statsmodels does with `use_t=True`.
//!
//! Why the analytic variance and not a cluster bootstrap: it is
//! deterministic (no seed, no resample count to report), exact to print on
//! 15,000 steps in microseconds, and what Miller recommends; the tests hold
//! it against statsmodels and a numpy cluster bootstrap on tables recorded
//! from real stores (`tests/stats/`). Its weakness is a rare outcome: with
//! few discordant pairs the t interval is too narrow. So a yes/no row ranks
//! only when McNemar's exact test agrees (an intersection-union test, R. L.
//! Berger, Technometrics 24, 1982: the larger of the two p-values is a valid
//! p-value): the interval guards against correlated pairs, which McNemar
//! counts as independent, and the exact test guards small counts. A row of
//! other outcomes (Sub-SR: milestones over milestones) has the sign test on
//! its templates as its exact test, the same binomial on the templates
//! where A's rate is higher and those where B's is.

use serde::Serialize;
use statrs::distribution::{Binomial, ContinuousCDF, DiscreteCDF, StudentsT};

/// Two-sided level of every interval and test.
pub const ALPHA: f64 = 0.05;
/// Power of the "detectable" difference.
pub const POWER: f64 = 0.80;
/// Φ⁻¹(0.80) and Φ⁻¹(0.975).
const Z_POWER: f64 = 0.841_621_233_572_914_3;
const Z_975: f64 = 1.959_963_984_540_054;

/// One key both runs scored: A's and B's numerators over its trials, and
/// the cluster it belongs to (its task template, or its key within one
/// template's row).
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    pub cluster: String,
    pub a: f64,
    pub b: f64,
    pub trials: f64,
}

impl Unit {
    /// A yes/no outcome of one trial.
    pub fn yes_no(cluster: impl Into<String>, a: bool, b: bool) -> Unit {
        Unit {
            cluster: cluster.into(),
            a: f64::from(u8::from(a)),
            b: f64::from(u8::from(b)),
            trials: 1.0,
        }
    }
}

/// McNemar's exact test: the pairs where only A was right, only B, and the
/// two-sided binomial p-value, min(1, 2·P(X ≤ min) for X ~ Bin(n, ½)), as
/// statsmodels' `mcnemar(table, exact=True)` computes it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Discordant {
    pub a_only: u64,
    pub b_only: u64,
    pub p: f64,
}

/// Which run a comparison ranks ahead, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verdict {
    #[serde(rename = "A")]
    A,
    #[serde(rename = "B")]
    B,
    #[serde(rename = "NOT A RANKING")]
    NotARanking,
    #[serde(rename = "NOT SCORED IN BOTH")]
    NotScoredInBoth,
}

/// A paired comparison of one measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Paired {
    /// Units both runs scored.
    pub pairs: usize,
    pub clusters: usize,
    /// A's and B's rates over those units.
    pub a: f64,
    pub b: f64,
    /// A − B.
    pub difference: f64,
    /// Its cluster-robust standard error; NaN with fewer than 2 clusters.
    pub se: f64,
    pub low: f64,
    pub high: f64,
    /// Degrees of freedom of the t quantile: clusters − 1.
    pub df: f64,
    /// Two-sided p-value of the clustered difference (t, `df`).
    pub p_interval: f64,
    /// Yes/no outcomes only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discordant: Option<Discordant>,
    /// Other outcomes (Sub-SR, progress): the sign test on templates, the
    /// templates where A's rate is higher and where B's is, with the same
    /// exact binomial p-value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub templates: Option<Discordant>,
    /// The row's p-value: the larger of the interval's and the exact
    /// test's (McNemar's, or the sign test on templates).
    pub p: f64,
    /// After Holm's correction across the row's family.
    pub p_holm: f64,
    /// How many rows the family holds (1: no correction).
    pub family: usize,
    /// The smallest difference these units could detect at 80 % power:
    /// (t₀.₉₇₅ + z₀.₈₀)·SE; `None` without a spread to estimate it from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detectable: Option<f64>,
    pub verdict: Verdict,
}

fn t_quantile(df: f64) -> f64 {
    // statrs refuses df ≤ 0; callers need df ≥ 1.
    StudentsT::new(0.0, 1.0, df).map_or(f64::NAN, |t| t.inverse_cdf(1.0 - ALPHA / 2.0))
}

fn t_two_sided(t: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df).map_or(f64::NAN, |d| (2.0 * d.sf(t.abs())).min(1.0))
}

/// McNemar's exact two-sided p-value for `a_only` and `b_only` discordant pairs.
pub fn mcnemar_exact(a_only: u64, b_only: u64) -> f64 {
    let n = a_only + b_only;
    if n == 0 {
        return 1.0;
    }
    let low = a_only.min(b_only);
    Binomial::new(0.5, n).map_or(1.0, |d| (2.0 * d.cdf(low)).min(1.0))
}

/// Units grouped by cluster: (Σ a, Σ b, Σ trials) each, in cluster order.
fn by_cluster<'a>(units: impl IntoIterator<Item = &'a Unit>) -> Vec<(f64, f64, f64)> {
    let mut groups: std::collections::BTreeMap<&str, (f64, f64, f64)> = Default::default();
    for u in units {
        let g = groups.entry(u.cluster.as_str()).or_default();
        g.0 += u.a;
        g.1 += u.b;
        g.2 += u.trials;
    }
    groups.into_values().collect()
}

/// The paired comparison of `units` (`yes_no`: every unit one trial with a
/// 0/1 outcome, which adds McNemar's test). The verdict is set here for a
/// family of one; [`holm`] sets it for a larger family.
pub fn compare(units: &[Unit], yes_no: bool) -> Paired {
    let units: Vec<&Unit> = units.iter().filter(|u| u.trials > 0.0).collect();
    let trials: f64 = units.iter().map(|u| u.trials).sum();
    let groups = by_cluster(units.iter().copied());
    let g = groups.len() as f64;
    let (ra, rb) = match trials > 0.0 {
        true => (
            units.iter().map(|u| u.a).sum::<f64>() / trials,
            units.iter().map(|u| u.b).sum::<f64>() / trials,
        ),
        false => (0.0, 0.0),
    };
    let difference = ra - rb;
    let discordant = yes_no.then(|| {
        let a_only = units.iter().filter(|u| u.a > u.b).count() as u64;
        let b_only = units.iter().filter(|u| u.b > u.a).count() as u64;
        Discordant {
            a_only,
            b_only,
            p: mcnemar_exact(a_only, b_only),
        }
    });
    // The sign test on templates, where pairs are not yes/no.
    let templates = (!yes_no).then(|| {
        let a_only = groups.iter().filter(|(a, b, _)| a > b).count() as u64;
        let b_only = groups.iter().filter(|(a, b, _)| b > a).count() as u64;
        Discordant {
            a_only,
            b_only,
            p: mcnemar_exact(a_only, b_only),
        }
    });
    let df = g - 1.0;
    let (se, low, high, p_interval, detectable) = if g < 2.0 {
        (f64::NAN, f64::NAN, f64::NAN, 1.0, None)
    } else {
        let spread: f64 = groups
            .iter()
            .map(|(a, b, m)| ((a - ra * m) - (b - rb * m)).powi(2))
            .sum();
        let se = (g / (g - 1.0) * spread).sqrt() / trials;
        let q = t_quantile(df);
        let p = match (se > 0.0, difference != 0.0) {
            (true, _) => t_two_sided(difference / se, df),
            // Every cluster differs by the same amount: no spread at all.
            (false, true) => 0.0,
            (false, false) => 1.0,
        };
        let detectable = (se > 0.0).then_some((q + Z_POWER) * se);
        // A difference of two rates lies in [−1, 1]; so does its interval.
        let (low, high) = (
            (difference - q * se).max(-1.0),
            (difference + q * se).min(1.0),
        );
        (se, low, high, p, detectable)
    };
    let exact = discordant.or(templates).map_or(1.0, |d| d.p);
    let p = p_interval.max(exact);
    let mut paired = Paired {
        pairs: units.len(),
        clusters: groups.len(),
        a: ra,
        b: rb,
        difference,
        se,
        low,
        high,
        df,
        p_interval,
        discordant,
        templates,
        p,
        p_holm: p,
        family: 1,
        detectable,
        verdict: Verdict::NotARanking,
    };
    paired.verdict = verdict(&paired);
    paired
}

fn verdict(p: &Paired) -> Verdict {
    if p.pairs == 0 {
        Verdict::NotScoredInBoth
    } else if p.p_holm >= ALPHA || p.clusters < 2 || p.difference == 0.0 {
        Verdict::NotARanking
    } else if p.difference > 0.0 {
        Verdict::A
    } else {
        Verdict::B
    }
}

/// Holm's step-down correction across one family of comparisons: sets
/// each one's `p_holm`, `family` and verdict. Rows with no pairs are not
/// members (nothing was tested).
pub fn holm(family: &mut [&mut Paired]) {
    let mut members: Vec<usize> = (0..family.len()).filter(|&i| family[i].pairs > 0).collect();
    members.sort_by(|&i, &j| family[i].p.total_cmp(&family[j].p));
    let k = members.len();
    let mut running: f64 = 0.0;
    for (rank, &i) in members.iter().enumerate() {
        running = running.max(((k - rank) as f64 * family[i].p).min(1.0));
        family[i].p_holm = running;
        family[i].family = k;
    }
    for p in family.iter_mut() {
        p.verdict = verdict(p);
    }
}

/// What the verdict says, with the run names where one is ahead.
pub fn verdict_text(v: Verdict, a: &str, b: &str) -> String {
    match v {
        Verdict::A => format!("{a} ahead"),
        Verdict::B => format!("{b} ahead"),
        Verdict::NotARanking => "NOT A RANKING".into(),
        Verdict::NotScoredInBoth => "NOT SCORED IN BOTH".into(),
    }
}

/// The headers of a paired comparison's four columns ([`Paired::cells`]).
pub const COLUMNS: [&str; 4] = [
    "A − B, points [95 %]",
    "A only / B only",
    "p",
    "detectable (80 %)",
];

impl Paired {
    /// Its four cells, under [`COLUMNS`]; `-` each for none.
    pub fn cells(paired: Option<&Paired>) -> [String; 4] {
        match paired {
            Some(p) => [
                p.interval(),
                p.discordant_cell(),
                p.p_cell(),
                p.detectable_cell(),
            ],
            None => std::array::from_fn(|_| "-".to_string()),
        }
    }

    /// `+2.2 [+0.6, +3.8]` points; `n/a (one cluster)` below two.
    pub fn interval(&self) -> String {
        if self.pairs == 0 {
            return "n/a".into();
        }
        if self.clusters < 2 {
            return format!("{:+.1} (n/a: one cluster)", 100.0 * self.difference);
        }
        format!(
            "{:+.1} [{:+.1}, {:+.1}]",
            100.0 * self.difference,
            100.0 * self.low,
            100.0 * self.high
        )
    }

    /// `41 / 7` for a yes/no row, `3 / 0 templates` for another.
    pub fn discordant_cell(&self) -> String {
        match (self.discordant, self.templates) {
            (Some(d), _) => format!("{} / {}", d.a_only, d.b_only),
            (None, Some(t)) => format!("{} / {} templates", t.a_only, t.b_only),
            (None, None) => "-".into(),
        }
    }

    /// `0.004 (Holm 0.012)`, the Holm value only in a family of more than one.
    pub fn p_cell(&self) -> String {
        if self.pairs == 0 {
            return "-".into();
        }
        let p = format_p(self.p);
        match self.family {
            0 | 1 => p,
            _ => format!("{p} (Holm {})", format_p(self.p_holm)),
        }
    }

    /// `4.1 points`, or `-`.
    pub fn detectable_cell(&self) -> String {
        match self.detectable {
            None => "-".into(),
            Some(d) if d > 1.0 => "none (over 100 points)".into(),
            Some(d) => format!("{:.1} points", 100.0 * d),
        }
    }
}

/// A p-value to three decimals, `<0.001` below.
pub fn format_p(p: f64) -> String {
    if p < 0.001 {
        "<0.001".into()
    } else {
        format!("{p:.3}")
    }
}

/// How many templates, and units per template, a difference needs: the
/// sample size of a two-sided test at [`ALPHA`] and [`POWER`] (normal
/// quantiles) on a paired difference whose per-unit variance is `variance`
/// and whose units share a template with intra-template correlation `icc`
/// (design effect 1 + (m − 1)·ρ for m units per template).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Plan {
    /// The difference to detect, as a fraction.
    pub difference: f64,
    pub variance: f64,
    pub icc: f64,
    pub templates: usize,
    pub per_template: f64,
    /// Templates needed at `per_template` units each.
    pub templates_needed: u64,
    /// Units per template needed with `templates` templates; `None` when
    /// no number reaches it (the correlation inside a template bounds what
    /// more units of the same templates can buy).
    pub per_template_needed: Option<u64>,
    /// With `templates` templates and unboundedly many units each, the
    /// smallest detectable difference.
    pub floor: f64,
}

/// The plan for detecting `difference` (a fraction) with the run's shape:
/// `templates` templates of `per_template` units.
pub fn plan(difference: f64, variance: f64, icc: f64, templates: usize, per_template: f64) -> Plan {
    let z = Z_975 + Z_POWER;
    let target = (difference / z).powi(2);
    let icc = icc.clamp(0.0, 1.0);
    let m = per_template.max(1.0);
    let g = templates.max(1) as f64;
    let templates_needed = (variance * (1.0 + (m - 1.0) * icc) / (m * target)).ceil() as u64;
    let room = g * target / variance - icc;
    let per_template_needed = (room > 0.0).then(|| ((1.0 - icc) / room).ceil().max(1.0) as u64);
    Plan {
        difference,
        variance,
        icc,
        templates,
        per_template,
        templates_needed,
        per_template_needed,
        floor: z * (variance * icc / g).sqrt(),
    }
}

/// The intra-template correlation of units with per-unit variance
/// `variance`, from the design effect: the clustered variance of the mean
/// over the variance as if independent, ρ = (deff − 1)/(m̄ − 1), m̄ the
/// mean units per template; 0 when every template holds one unit.
pub fn icc(units: &[Unit], variance: f64) -> f64 {
    let n = units.len() as f64;
    let groups = by_cluster(units);
    let g = groups.len() as f64;
    let m = n / g.max(1.0);
    if m <= 1.0 || g < 2.0 || variance <= 0.0 {
        return 0.0;
    }
    let c = compare(units, false);
    let deff = c.se.powi(2) / (variance / n);
    ((deff - 1.0) / (m - 1.0)).clamp(0.0, 1.0)
}

/// The sample variance of the paired differences, unit by unit (one-trial units).
pub fn difference_variance(units: &[Unit]) -> f64 {
    let n = units.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let mean = units.iter().map(|u| u.a - u.b).sum::<f64>() / n;
    units
        .iter()
        .map(|u| (u.a - u.b - mean).powi(2))
        .sum::<f64>()
        / (n - 1.0)
}

/// The plan for a difference of `points` on the measure of `units`, as
/// text: from two runs' pairs (`paired`: the observed variance of the
/// differences and their correlation within a template), or from one run
/// (`b` unused: a second agent `points` higher whose outcomes are
/// independent of this one's on a key, the most a plan can need).
pub fn plan_text(points: f64, what: &str, units: &[Unit], paired: bool) -> String {
    let n = units.len();
    let g = by_cluster(units).len();
    if n < 2 || g < 2 {
        return format!("plan for {what}: fewer than two templates scored, nothing to plan from\n");
    }
    let d = points / 100.0;
    let (variance, icc) = if paired {
        let v = difference_variance(units);
        (v, icc(units, v))
    } else {
        let p = units.iter().map(|u| u.a).sum::<f64>() / n as f64;
        let q = (p + d).clamp(0.0, 1.0);
        let alone: Vec<Unit> = units
            .iter()
            .map(|u| Unit {
                b: 0.0,
                ..u.clone()
            })
            .collect();
        (p * (1.0 - p) + q * (1.0 - q), icc(&alone, p * (1.0 - p)))
    };
    if variance <= 0.0 {
        return format!("plan for {what}: the outcomes do not vary, nothing to plan from\n");
    }
    let m = n as f64 / g as f64;
    let pl = plan(d, variance, icc, g, m);
    // With one unit a template ρ cannot be read: 0 is the fewest a plan can need.
    let unread = if m <= 1.0 {
        "; ρ cannot be read from one unit a template and is taken as 0, so more units of \
         the same templates may need more than this says"
    } else {
        ""
    };
    let mut out = format!(
        "plan for {what}: a difference of {points:.1} points at {:.0} % power (two-sided {:.0} %) \
         needs, with per-unit variance {variance:.4} and intra-template correlation ρ = {icc:.3} \
         ({}; this run: {g} templates × {m:.1} units{unread}):\n",
        100.0 * POWER,
        100.0 * ALPHA,
        if paired {
            "both from the paired differences"
        } else {
            "a second agent this much higher and independent of this one on a key, the most a \
             plan can need; ρ from this run"
        },
    );
    out += &format!(
        "  at {m:.1} units per template: {} templates ({:.0} units)\n",
        pl.templates_needed,
        pl.templates_needed as f64 * m
    );
    out += &match pl.per_template_needed {
        Some(k) if pl.floor >= 0.0005 => format!(
            "  with these {g} templates: {k} units per template ({} units); however many units, \
             these templates cannot detect less than {:.1} points\n",
            k * g as u64,
            100.0 * pl.floor
        ),
        Some(k) => format!(
            "  with these {g} templates: {k} units per template ({} units)\n",
            k * g as u64
        ),
        None => format!(
            "  with these {g} templates: no number of units per template; the correlation within \
             a template floors what they can detect at {:.1} points\n",
            100.0 * pl.floor
        ),
    };
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() < tol
    }

    /// The table docs/scores.md counts by hand: 167 templates, one episode
    /// each; A reached a milestone in 9 where B reached none.
    fn nine_of_167() -> Vec<Unit> {
        (0..167)
            .map(|i| Unit::yes_no(format!("t{i:03}"), i < 9, false))
            .collect()
    }

    #[test]
    fn nine_discordant_templates_all_one_way_rank_a() {
        let c = compare(&nine_of_167(), true);
        let d = c.discordant.unwrap();
        assert_eq!((d.a_only, d.b_only), (9, 0));
        // Sign test on the nine: 2/2⁹.
        assert!(close(d.p, 2.0 / 512.0, 1e-12), "{}", d.p);
        assert!(close(c.difference, 9.0 / 167.0, 1e-12));
        // SE by hand: sqrt(167/166 · (9·(1−D)² + 158·D²)) / 167.
        let dd: f64 = 9.0 / 167.0;
        let se = (167.0 / 166.0 * (9.0 * (1.0 - dd).powi(2) + 158.0 * dd * dd)).sqrt() / 167.0;
        assert!(close(c.se, se, 1e-12));
        assert_eq!(c.verdict, Verdict::A);
    }

    #[test]
    fn few_discordant_pairs_do_not_rank_though_the_interval_parts() {
        // 5 of 167 one way: the t interval excludes 0 but the exact test
        // gives 2/32 = 0.0625.
        let units: Vec<Unit> = (0..167)
            .map(|i| Unit::yes_no(format!("t{i:03}"), i < 5, false))
            .collect();
        let c = compare(&units, true);
        assert!(c.low > 0.0, "{c:?}");
        assert!(close(c.discordant.unwrap().p, 0.0625, 1e-12));
        assert_eq!(c.verdict, Verdict::NotARanking);
    }

    #[test]
    fn pairs_in_few_templates_are_not_many_trials() {
        // 40 discordant pairs, all in two templates of 20 steps, every
        // other template of 20 steps concordant: McNemar (40 / 0) rejects,
        // the clustered interval, on 10 templates, does not.
        let mut units = Vec::new();
        for t in 0..10 {
            for s in 0..20 {
                let a = t < 2 || s < 10;
                let b = t >= 2 && s < 10;
                units.push(Unit::yes_no(format!("t{t}"), a, b));
            }
        }
        let c = compare(&units, true);
        assert!(c.discordant.unwrap().p < 1e-6);
        assert!(c.p_interval > ALPHA && c.low < 0.0, "{c:?}");
        assert_eq!(c.verdict, Verdict::NotARanking);
    }

    #[test]
    fn a_ratio_row_needs_the_sign_test_on_templates() {
        // Three templates, A reaching all 4 milestones of each, B none:
        // no spread between templates (SE 0), but three templates one way
        // are 2/2³ = 0.25 by the sign test.
        let units: Vec<Unit> = (0..3)
            .map(|t| Unit {
                cluster: format!("t{t}"),
                a: 4.0,
                b: 0.0,
                trials: 4.0,
            })
            .collect();
        let c = compare(&units, false);
        assert_eq!(c.se, 0.0);
        let t = c.templates.unwrap();
        assert_eq!((t.a_only, t.b_only), (3, 0));
        assert!(close(c.p, 0.25, 1e-12));
        assert_eq!(c.verdict, Verdict::NotARanking);
        assert_eq!(c.discordant_cell(), "3 / 0 templates");
    }

    #[test]
    fn one_cluster_is_no_interval() {
        let units = vec![Unit::yes_no("t", true, false); 5];
        let c = compare(&units, true);
        assert!(c.se.is_nan());
        assert_eq!(c.verdict, Verdict::NotARanking);
        assert_eq!(c.interval(), "+100.0 (n/a: one cluster)");
        let none = compare(&[], true);
        assert_eq!(none.verdict, Verdict::NotScoredInBoth);
    }

    #[test]
    fn holm_steps_down_and_keeps_order() {
        let mk = |p: f64| {
            let mut c = compare(&nine_of_167(), true);
            c.p = p;
            c
        };
        let (mut a, mut b, mut c) = (mk(0.01), mk(0.04), mk(0.03));
        holm(&mut [&mut a, &mut b, &mut c]);
        // Sorted 0.01, 0.03, 0.04 → 0.03, 0.06, 0.06 (monotone).
        assert!(close(a.p_holm, 0.03, 1e-12) && close(c.p_holm, 0.06, 1e-12));
        assert!(close(b.p_holm, 0.06, 1e-12));
        assert_eq!(
            (a.verdict, b.verdict, c.verdict),
            (Verdict::A, Verdict::NotARanking, Verdict::NotARanking)
        );
        assert_eq!(a.family, 3);
    }

    #[test]
    fn a_plan_needs_more_templates_when_templates_correlate() {
        let v = 0.06;
        let independent = plan(0.03, v, 0.0, 167, 5.0);
        let correlated = plan(0.03, v, 0.2, 167, 5.0);
        assert!(correlated.templates_needed > independent.templates_needed);
        // n = (1.96 + 0.84)² v / d² units when independent.
        let n = ((Z_975 + Z_POWER) / 0.03).powi(2) * v;
        assert_eq!(independent.templates_needed, (n / 5.0).ceil() as u64);
        // With ρ = 0.2 and 167 templates the floor is 2.8·sqrt(v·ρ/167).
        assert!(close(
            correlated.floor,
            2.8016 * (v * 0.2 / 167.0).sqrt(),
            1e-3
        ));
        let impossible = plan(0.001, v, 0.2, 167, 5.0);
        assert_eq!(impossible.per_template_needed, None);
    }
}
