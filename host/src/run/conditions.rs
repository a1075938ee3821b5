//! `--conditions`: the device conditions a run (or `tasks check`) plays
//! every episode under. `base` alone unless asked; `all` is
//! [`Condition::ALL`]; otherwise a comma-separated list of names, each
//! once, in the order given.

use std::str::FromStr;

use droidscore_phone::Condition;

/// A `--conditions` name that is no condition (clap names the flag).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{why} (or `all`)")]
pub struct BadConditions {
    pub name: String,
    /// The phone crate's own words: the known names.
    pub why: String,
}

/// The conditions a `--conditions` value names, in its order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conditions(pub Vec<Condition>);

impl Default for Conditions {
    fn default() -> Self {
        Conditions(vec![Condition::Base])
    }
}

impl Conditions {
    /// Only `base`: the run as it was before conditions (its config
    /// records no `conditions`, so older runs resume).
    pub fn base_only(&self) -> bool {
        self.0 == [Condition::Base]
    }

    /// Their names, comma-separated, as the flag takes them.
    pub fn names(&self) -> String {
        self.0
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(",")
    }
}

impl FromStr for Conditions {
    type Err = BadConditions;

    /// `all`, or a list of names (repeats dropped, first mention kept). An
    /// empty name is refused.
    fn from_str(spec: &str) -> Result<Conditions, BadConditions> {
        if spec.trim() == "all" {
            return Ok(Conditions(Condition::ALL.to_vec()));
        }
        let mut out: Vec<Condition> = Vec::new();
        for name in spec.split(',').map(str::trim) {
            let c: Condition = name.parse().map_err(|e| BadConditions {
                name: name.to_string(),
                why: droidscore_phone::UnknownCondition::to_string(&e),
            })?;
            if !out.contains(&c) {
                out.push(c);
            }
        }
        Ok(Conditions(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_base_and_lists_parse_and_a_bad_name_lists_the_known_ones() {
        let parse = |s: &str| s.parse::<Conditions>().map(|c| c.0);
        assert_eq!(parse("all").unwrap(), Condition::ALL.to_vec());
        assert_eq!(parse("base").unwrap(), [Condition::Base]);
        assert_eq!(
            parse("dark, font1.3,dark").unwrap(),
            [Condition::Dark, Condition::Font(1300)]
        );
        let err = parse("base,sepia").unwrap_err();
        assert_eq!(err.name, "sepia");
        let text = err.to_string();
        assert!(text.starts_with("unknown condition \"sepia\""), "{text}");
        assert!(
            text.contains("font1.15") && text.contains("large"),
            "{text}"
        );
        assert!(parse("").is_err(), "an empty list names nothing");
        assert_eq!(parse("landscape").unwrap(), [Condition::Landscape]);
        assert_eq!(
            "dark,base".parse::<Conditions>().unwrap().names(),
            "dark,base"
        );
        assert!(Conditions::default().base_only());
    }
}
