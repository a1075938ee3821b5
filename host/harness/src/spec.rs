//! The arms file (`arms.json`): which subprocesses to compare, how to read
//! their figures, and which way is better for each key.
//!
//! Direction is declared, never guessed from the data: a key is looked up in
//! the spec's `directions` first, then in the table below by its last
//! dotted segment; a key found in neither is an error naming it.
//!
//! | key (last segment) | better |
//! |---|---|
//! | ends in `_ts`, `_per_s`, `_tps`; `t/s`, `avg_ts`, `tps` | higher |
//! | ends in `_s`, `_ms`, `_us`, `_ns`, `_bytes`, `_kib`, `_mib`, `_kb`, `_mb`; starts with `rss`, `pss` | lower |

use std::collections::BTreeMap;

use super::BenchError;

#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub arms: Vec<Arm>,
    /// Overrides and additions to the key-direction table.
    #[serde(default)]
    pub directions: BTreeMap<String, Direction>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Arm {
    pub tag: String,
    /// Program and arguments; run without a shell.
    pub command: Vec<String>,
    /// Added to (or replacing in) the harness's own environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub output: OutputFormat,
}

/// How an arm's stdout carries its figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutputFormat {
    /// The last line is one JSON object of figures (nested objects become
    /// dotted keys); earlier lines are kept for diagnosis.
    #[default]
    LastLineJson,
    /// llama-bench's `-o json` (and `droidscore-device speed -o json`): a
    /// JSON array, one object per test, flattened into `pp512_ts`,
    /// `tg128_ts`, … (see `figures`).
    LlamaBenchJson,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Higher,
    Lower,
}

impl Direction {
    pub fn better(self, a: f64, b: f64) -> bool {
        match self {
            Direction::Higher => a > b,
            Direction::Lower => a < b,
        }
    }

    /// The best of `values`: the maximum for higher-better, the minimum for lower-better.
    pub fn best(self, values: &[f64]) -> f64 {
        let fold = match self {
            Direction::Higher => f64::max,
            Direction::Lower => f64::min,
        };
        values.iter().copied().reduce(fold).unwrap_or(f64::NAN)
    }
}

/// The table's direction for a key, by its last dotted segment.
///
/// `_s` is a time (lower-better) except where it is a rate: `tok_s`,
/// `tokens_s`, names ending `_t_s` (tokens per second), and any name
/// containing `per_s` are higher-better. Any other `*_s` name containing
/// `tok` (`tok_gen_s`: a rate or a time?) has no direction here and must be
/// declared in the spec.
pub fn known_direction(key: &str) -> Option<Direction> {
    let k = key.rsplit('.').next().unwrap_or(key);
    const HIGHER_EXACT: [&str; 5] = ["t/s", "avg_ts", "tps", "tok_s", "tokens_s"];
    const HIGHER_SUFFIX: [&str; 5] = ["_ts", "_tps", "_t_s", "_tok_s", "_tokens_s"];
    if HIGHER_EXACT.contains(&k)
        || HIGHER_SUFFIX.iter().any(|s| k.ends_with(s))
        || k.contains("per_s")
    {
        return Some(Direction::Higher);
    }
    if k.ends_with("_s") && k.contains("tok") {
        return None;
    }
    const LOWER_SUFFIX: [&str; 9] = [
        "_s", "_ms", "_us", "_ns", "_bytes", "_kib", "_mib", "_kb", "_mb",
    ];
    if LOWER_SUFFIX.iter().any(|s| k.ends_with(s)) || k.starts_with("rss") || k.starts_with("pss") {
        return Some(Direction::Lower);
    }
    None
}

/// A spec that parses but breaks a rule.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpecError {
    #[error("no arms")]
    NoArms,
    #[error("an arm has an empty tag")]
    EmptyTag,
    #[error("two arms are tagged {0:?}")]
    DuplicateTag(String),
    #[error("arm {0:?} has an empty command")]
    EmptyCommand(String),
}

impl Spec {
    /// Reads and validates a spec; also returns the file's bytes (for its hash).
    pub fn load(path: &std::path::Path) -> Result<(Spec, Vec<u8>), BenchError> {
        let bytes = std::fs::read(path).map_err(|e| BenchError::read(path.display(), e))?;
        let de = &mut serde_json::Deserializer::from_slice(&bytes);
        let spec: Spec =
            serde_path_to_error::deserialize(de).map_err(|e| BenchError::invalid(path, e))?;
        spec.validate().map_err(|e| BenchError::invalid(path, e))?;
        Ok((spec, bytes))
    }

    pub fn validate(&self) -> Result<(), SpecError> {
        if self.arms.is_empty() {
            return Err(SpecError::NoArms);
        }
        let mut seen = std::collections::BTreeSet::new();
        for arm in &self.arms {
            if arm.tag.is_empty() {
                return Err(SpecError::EmptyTag);
            }
            if !seen.insert(&arm.tag) {
                return Err(SpecError::DuplicateTag(arm.tag.clone()));
            }
            if arm.command.is_empty() {
                return Err(SpecError::EmptyCommand(arm.tag.clone()));
            }
        }
        Ok(())
    }

    /// The declared direction of `key`: the spec's own first, then the table.
    pub fn direction(&self, key: &str) -> Result<Direction, BenchError> {
        self.directions
            .get(key)
            .copied()
            .or_else(|| known_direction(key))
            .ok_or_else(|| {
                BenchError::BadInput(format!(
                    "key {key:?} has no declared direction: add \"directions\": {{\"{key}\": \"higher\"}} \
                     (or \"lower\") to the spec"
                ))
            })
    }

    pub fn arm(&self, tag: &str) -> Option<&Arm> {
        self.arms.iter().find(|a| a.tag == tag)
    }
}

/// Arm indices in the order pass `pass` runs them: starting at `pass mod n`.
pub fn rotation(n: usize, pass: usize) -> Vec<usize> {
    (0..n).map(|i| (pass + i) % n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throughputs_are_higher_better_and_times_and_memory_lower_better() {
        for k in ["pp512_ts", "avg_ts", "t/s", "tg128_ts", "x.tokens_per_s"] {
            assert_eq!(known_direction(k), Some(Direction::Higher), "{k}");
        }
        for k in [
            "ready_s",
            "t_ms",
            "model_bytes",
            "at_ready.rss_anon_kib",
            "rss",
            "pss_total",
        ] {
            assert_eq!(known_direction(k), Some(Direction::Lower), "{k}");
        }
        assert_eq!(known_direction("score"), None);
    }

    #[test]
    fn token_rates_ending_in_s_are_not_read_as_times() {
        // Regression: every `*_s` was lower-better, so `tok_s` (tokens per
        // second) ranked the slowest arm first.
        for k in [
            "tok_s",
            "tokens_s",
            "gen.tok_s",
            "pp_t_s",
            "prompt_tokens_s",
            "tokens_per_sec",
        ] {
            assert_eq!(known_direction(k), Some(Direction::Higher), "{k}");
        }
        // Ambiguous: a rate or a tokenizer's time? The spec must say.
        for k in ["tok_gen_s", "tokenize_s"] {
            assert_eq!(known_direction(k), None, "{k}");
        }
        assert_eq!(known_direction("load_s"), Some(Direction::Lower));
    }

    #[test]
    fn an_unknown_key_is_an_error_naming_it_unless_declared() {
        let mut spec: Spec =
            serde_json::from_str(r#"{"arms": [{"tag": "a", "command": ["true"]}]}"#).unwrap();
        let e = spec.direction("accuracy").unwrap_err().to_string();
        assert!(e.contains("\"accuracy\""), "{e}");
        spec.directions.insert("accuracy".into(), Direction::Higher);
        assert_eq!(spec.direction("accuracy").unwrap(), Direction::Higher);
        // The spec overrides the table.
        spec.directions.insert("t_ms".into(), Direction::Higher);
        assert_eq!(spec.direction("t_ms").unwrap(), Direction::Higher);
    }

    #[test]
    fn best_is_max_for_higher_and_min_for_lower() {
        assert_eq!(Direction::Higher.best(&[3.0, 9.0, 1.0]), 9.0);
        assert_eq!(Direction::Lower.best(&[3.0, 9.0, 1.0]), 1.0);
    }

    #[test]
    fn each_pass_starts_one_arm_later() {
        assert_eq!(rotation(3, 0), vec![0, 1, 2]);
        assert_eq!(rotation(3, 1), vec![1, 2, 0]);
        assert_eq!(rotation(3, 2), vec![2, 0, 1]);
        assert_eq!(rotation(3, 3), vec![0, 1, 2]);
    }

    #[test]
    fn duplicate_tags_and_empty_commands_are_refused() {
        let dup: Spec = serde_json::from_str(
            r#"{"arms": [{"tag": "a", "command": ["true"]}, {"tag": "a", "command": ["true"]}]}"#,
        )
        .unwrap();
        assert!(dup.validate().unwrap_err().to_string().contains("\"a\""));
        let empty: Spec =
            serde_json::from_str(r#"{"arms": [{"tag": "a", "command": []}]}"#).unwrap();
        assert!(empty.validate().is_err());
        let unknown = serde_json::from_str::<Spec>(
            r#"{"arms": [{"tag": "a", "command": ["x"], "outptu": "x"}]}"#,
        );
        assert!(unknown.is_err(), "a misspelt field is refused");
    }
}
