//! `--check expectations.json`: bench as a regression gate.
//!
//! ```json
//! {"provenance": {"cpu_model": "AMD EPYC 7B13", "cpu_count": 2},
//!  "bounds": [{"arm": "a", "key": "pp512_ts", "min": 30},
//!             {"arm": "a", "key": "t_ms", "max": 50},
//!             {"arm": "a", "key": "pp512_ts", "relative_to": "b", "min_ratio": 0.9}]}
//! ```
//!
//! A bound is judged against the arm's whole spread, not its median:
//! - **pass**: every sample satisfies it (for `min`, the arm's minimum is at
//!   least the bound; for `max`, its maximum is at most the bound);
//! - **regressed**: no sample does (the arm's maximum is below `min`, or its
//!   minimum above `max`);
//! - **inconclusive**: the bound lies inside the arm's min..max, so the run
//!   neither clearly passes nor clearly fails.
//!
//! A relative bound compares the ratio arm / `relative_to` over the widest
//! it could be from the two spreads: [min_a / max_b, max_a / min_b] (values
//! must be positive), judged the same way.
//!
//! A bound that would be regressed in a run where any pass was contended or
//! started under `--force` is reported inconclusive instead, with the
//! reason: the machine was not quiet, so a slow sample is not evidence of a
//! regression.
//!
//! The expectations are validated against the spec and the keys before any
//! pass runs (`Expectations::validate`), with an error naming the file and
//! the field.
//!
//! The outcome, worst first: provenance mismatch (the run is on another CPU
//! than the expectations were written for, so its figures cannot be held to
//! them), regressed, inconclusive, pass.

use super::provenance::Provenance;
use super::summary::{fmt, ArmSummary};
use super::BenchError;

#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Expectations {
    /// The file it was read from, for error messages.
    #[serde(skip)]
    pub source: std::path::PathBuf,
    #[serde(default)]
    pub provenance: Option<ExpectedProvenance>,
    pub bounds: Vec<Bound>,
}

#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedProvenance {
    pub cpu_model: Option<String>,
    pub cpu_count: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Bound {
    pub arm: String,
    pub key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ratio: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ratio: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Inconclusive,
    Regressed,
}

/// The check's outcome, in the order the exit code picks it (worst last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Pass,
    Inconclusive,
    Regressed,
    ProvenanceMismatch,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Judged {
    pub bound: Bound,
    pub verdict: Verdict,
    /// The interval the bound was held against (the arm's min..max, or the ratio's).
    pub observed: [f64; 2],
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Report {
    pub outcome: Outcome,
    pub provenance_mismatches: Vec<String>,
    pub bounds: Vec<Judged>,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Regressed => "regressed",
        }
    }
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Inconclusive => "inconclusive",
            Outcome::Regressed => "regressed",
            Outcome::ProvenanceMismatch => "provenance mismatch",
        }
    }
}

impl Expectations {
    pub fn load(path: &std::path::Path) -> Result<Expectations, BenchError> {
        let bytes = std::fs::read(path).map_err(|e| BenchError::read(path.display(), e))?;
        let de = &mut serde_json::Deserializer::from_slice(&bytes);
        let mut e: Expectations =
            serde_path_to_error::deserialize(de).map_err(|e| BenchError::invalid(path, e))?;
        e.source = path.to_path_buf();
        for b in &e.bounds {
            let absolute = b.min.is_some() || b.max.is_some();
            let relative = b.min_ratio.is_some() || b.max_ratio.is_some();
            let ok = match &b.relative_to {
                None => absolute && !relative,
                Some(_) => relative && !absolute,
            };
            if !ok {
                return Err(BenchError::BadInput(format!(
                    "{}: the bound on {:?} {:?} needs min and/or max, or relative_to with \
                     min_ratio and/or max_ratio (not both kinds)",
                    path.display(),
                    b.arm,
                    b.key
                )));
            }
        }
        Ok(e)
    }

    /// Every bound names an arm of the spec and a key the run summarises,
    /// and its bounds are finite and in order (`min ≤ max`, ratios > 0):
    /// checked before any pass runs, so a typo does not cost a whole run.
    pub fn validate(&self, arms: &[&str], keys: &[String]) -> Result<(), BenchError> {
        let file = self.source.display();
        let bad = |i: usize, field: &str, why: String| {
            BenchError::BadInput(format!("{file}: bounds[{i}].{field}: {why}"))
        };
        for (i, b) in self.bounds.iter().enumerate() {
            for (field, arm) in [
                ("arm", Some(&b.arm)),
                ("relative_to", b.relative_to.as_ref()),
            ] {
                if let Some(arm) = arm {
                    if !arms.contains(&arm.as_str()) {
                        return Err(bad(
                            i,
                            field,
                            format!("arm {arm:?} is not in the spec (arms: {})", arms.join(", ")),
                        ));
                    }
                }
            }
            if !keys.contains(&b.key) {
                return Err(bad(
                    i,
                    "key",
                    format!(
                        "key {:?} is not summarised by this run (--metric and --keys give: {}); add it to --keys",
                        b.key,
                        keys.join(", ")
                    ),
                ));
            }
            let pairs = [
                ("min", "max", b.min, b.max, false),
                ("min_ratio", "max_ratio", b.min_ratio, b.max_ratio, true),
            ];
            for (lo_name, hi_name, lo, hi, ratio) in pairs {
                for (name, v) in [(lo_name, lo), (hi_name, hi)] {
                    if let Some(v) = v {
                        if !v.is_finite() || (ratio && v <= 0.0) {
                            return Err(bad(
                                i,
                                name,
                                format!(
                                    "{v} is not {}",
                                    if ratio {
                                        "a positive finite ratio"
                                    } else {
                                        "finite"
                                    }
                                ),
                            ));
                        }
                    }
                }
                if let (Some(lo), Some(hi)) = (lo, hi) {
                    if lo > hi {
                        return Err(bad(i, lo_name, format!("{lo} is above {hi_name} {hi}")));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Holds `[lo, hi]` to `min`/`max`.
fn judge_interval(lo: f64, hi: f64, min: Option<f64>, max: Option<f64>) -> (Verdict, String) {
    let mut verdict = Verdict::Pass;
    let mut why = Vec::new();
    if let Some(m) = min {
        let v = if lo >= m {
            Verdict::Pass
        } else if hi < m {
            Verdict::Regressed
        } else {
            Verdict::Inconclusive
        };
        why.push(format!("min {m}: {}", v.name()));
        verdict = verdict.max(v);
    }
    if let Some(m) = max {
        let v = if hi <= m {
            Verdict::Pass
        } else if lo > m {
            Verdict::Regressed
        } else {
            Verdict::Inconclusive
        };
        why.push(format!("max {m}: {}", v.name()));
        verdict = verdict.max(v);
    }
    (
        verdict,
        format!("observed [{}, {}]; {}", fmt(lo), fmt(hi), why.join(", ")),
    )
}

fn range(summaries: &[ArmSummary], arm: &str, key: &str) -> Result<(f64, f64), BenchError> {
    let s = summaries.iter().find(|s| s.tag == arm).ok_or_else(|| {
        BenchError::BadInput(format!(
            "the expectations name arm {arm:?}, which the spec does not have"
        ))
    })?;
    let k = s.keys.get(key).ok_or_else(|| {
        BenchError::BadInput(format!(
            "the expectations bound key {key:?} of arm {arm:?}, which the run has no samples of (is it in --keys?)"
        ))
    })?;
    Ok((k.min, k.max))
}

/// `not_quiet`: why the machine was not quiet during the run (contended or
/// forced passes), if it was not; a bound that would be regressed is then
/// inconclusive.
pub fn check(
    expectations: &Expectations,
    summaries: &[ArmSummary],
    provenance: &Provenance,
    not_quiet: Option<&str>,
) -> Result<Report, BenchError> {
    let mut mismatches = Vec::new();
    if let Some(p) = &expectations.provenance {
        if let Some(model) = &p.cpu_model {
            if model != &provenance.cpu_model {
                mismatches.push(format!(
                    "cpu_model: expected {model:?}, this run has {:?}",
                    provenance.cpu_model
                ));
            }
        }
        if let Some(n) = p.cpu_count {
            if n != provenance.cpu_count {
                mismatches.push(format!(
                    "cpu_count: expected {n}, this run has {}",
                    provenance.cpu_count
                ));
            }
        }
    }
    let mut judged = Vec::new();
    for b in &expectations.bounds {
        let (lo, hi) = range(summaries, &b.arm, &b.key)?;
        let (observed, (verdict, why)) = match &b.relative_to {
            None => ([lo, hi], judge_interval(lo, hi, b.min, b.max)),
            Some(other) => {
                let (olo, ohi) = range(summaries, other, &b.key)?;
                if lo <= 0.0 || olo <= 0.0 {
                    return Err(BenchError::BadInput(format!(
                        "a ratio bound needs positive values: {:?} {:?} has {lo}, {other:?} has {olo}",
                        b.arm, b.key
                    )));
                }
                let (rlo, rhi) = (lo / ohi, hi / olo);
                (
                    [rlo, rhi],
                    judge_interval(rlo, rhi, b.min_ratio, b.max_ratio),
                )
            }
        };
        let (verdict, why) = match (verdict, not_quiet) {
            (Verdict::Regressed, Some(reason)) => (
                Verdict::Inconclusive,
                format!("{why}; would be regressed, but {reason}: the machine was not quiet"),
            ),
            _ => (verdict, why),
        };
        judged.push(Judged {
            bound: b.clone(),
            verdict,
            observed,
            why,
        });
    }
    let worst = judged
        .iter()
        .map(|j| j.verdict)
        .max()
        .unwrap_or(Verdict::Pass);
    let outcome = if !mismatches.is_empty() {
        Outcome::ProvenanceMismatch
    } else {
        match worst {
            Verdict::Pass => Outcome::Pass,
            Verdict::Inconclusive => Outcome::Inconclusive,
            Verdict::Regressed => Outcome::Regressed,
        }
    };
    Ok(Report {
        outcome,
        provenance_mismatches: mismatches,
        bounds: judged,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_min_bound_passes_above_the_spread_regresses_below_and_is_inconclusive_inside() {
        assert_eq!(
            judge_interval(31.0, 35.0, Some(30.0), None).0,
            Verdict::Pass
        );
        assert_eq!(
            judge_interval(20.0, 29.0, Some(30.0), None).0,
            Verdict::Regressed
        );
        assert_eq!(
            judge_interval(25.0, 35.0, Some(30.0), None).0,
            Verdict::Inconclusive
        );
    }

    #[test]
    fn a_max_bound_mirrors_it() {
        assert_eq!(
            judge_interval(10.0, 40.0, None, Some(50.0)).0,
            Verdict::Pass
        );
        assert_eq!(
            judge_interval(60.0, 70.0, None, Some(50.0)).0,
            Verdict::Regressed
        );
        assert_eq!(
            judge_interval(40.0, 60.0, None, Some(50.0)).0,
            Verdict::Inconclusive
        );
        // Both bounds: the worse verdict holds.
        assert_eq!(
            judge_interval(40.0, 60.0, Some(0.0), Some(50.0)).0,
            Verdict::Inconclusive
        );
    }

    fn expectations(bounds: serde_json::Value) -> Expectations {
        let mut e: Expectations =
            serde_json::from_value(serde_json::json!({ "bounds": bounds })).unwrap();
        e.source = "expect.json".into();
        e
    }

    #[test]
    fn expectations_are_validated_naming_the_file_and_the_field() {
        let keys = vec!["gen_ts".to_string()];
        let arms = ["a", "b"];
        let err = |b| {
            expectations(b)
                .validate(&arms, &keys)
                .unwrap_err()
                .to_string()
        };
        let e = err(serde_json::json!([{"arm": "c", "key": "gen_ts", "min": 1}]));
        assert!(
            e.starts_with("expect.json: bounds[0].arm: arm \"c\""),
            "{e}"
        );
        let e = err(
            serde_json::json!([{"arm": "a", "key": "gen_ts", "relative_to": "z", "min_ratio": 1}]),
        );
        assert!(e.contains("bounds[0].relative_to"), "{e}");
        let e = err(serde_json::json!([{"arm": "a", "key": "pp_ts", "min": 1}]));
        assert!(e.contains("bounds[0].key") && e.contains("--keys"), "{e}");
        let e = err(serde_json::json!([{"arm": "a", "key": "gen_ts", "min": 5, "max": 1}]));
        assert!(e.contains("bounds[0].min: 5 is above max 1"), "{e}");
        let e = err(
            serde_json::json!([{"arm": "a", "key": "gen_ts", "relative_to": "b", "min_ratio": 0}]),
        );
        assert!(e.contains("bounds[0].min_ratio"), "{e}");
        assert!(
            expectations(serde_json::json!([{"arm": "a", "key": "gen_ts", "min": 1}]))
                .validate(&arms, &keys)
                .is_ok()
        );
    }

    #[test]
    fn a_regression_on_a_machine_that_was_not_quiet_is_inconclusive() {
        use crate::spec::Direction;
        use crate::summary::{ArmSummary, KeyStats, Sample};
        let samples = [20.0, 21.0, 22.0]
            .iter()
            .enumerate()
            .map(|(i, &value)| Sample {
                pass: i + 1,
                value,
                contended: i == 1,
                forced_past_busy: false,
            })
            .collect();
        let arms = vec![ArmSummary {
            tag: "a".into(),
            keys: [(
                "gen_ts".to_string(),
                KeyStats::new(Direction::Higher, samples),
            )]
            .into(),
        }];
        let e = expectations(serde_json::json!([{"arm": "a", "key": "gen_ts", "min": 30}]));
        let p = crate::provenance::at_start(
            "arms.json".as_ref(),
            b"{}",
            &[],
            "0".into(),
            "not pinned".into(),
        );
        let quiet = check(&e, &arms, &p, None).unwrap();
        assert_eq!(quiet.outcome, Outcome::Regressed);
        let busy = check(&e, &arms, &p, Some("passes 2 were contended")).unwrap();
        assert_eq!(busy.outcome, Outcome::Inconclusive);
        assert!(busy.bounds[0]
            .why
            .contains("would be regressed, but passes 2 were contended"));
    }

    #[test]
    fn provenance_mismatch_outranks_regressed_outranks_inconclusive() {
        assert!(Outcome::ProvenanceMismatch > Outcome::Regressed);
        assert!(Outcome::Regressed > Outcome::Inconclusive);
        assert!(Outcome::Inconclusive > Outcome::Pass);
    }
}
