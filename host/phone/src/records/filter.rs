//! Which records a check means: column = match, all must hold. The same
//! filter runs over the simulator's store and over rows parsed from a
//! phone's `content query`, so the two backends cannot disagree on meaning.
//!
//! In a task file: `where = { address = { digits = "{number}" }, type = "2" }`.
//! A plain string must equal the value exactly; `digits` compares only the
//! digits (phone numbers: `+1 650-555-0142` = `16505550142`) and accepts a
//! trailing match of at least 7 digits, as Android's `PhoneNumberUtils.compare`
//! loosely does; `text` compares case-folded with whitespace collapsed;
//! `contains` is a case-folded substring; `any_of` lists exact values;
//! `null = true` wants no value; `at = "tomorrow 14:00"` is a time column
//! equal to that time on the simulated phone's day (day-based forms and
//! absolute times only: `-2h` would depend on the episode's clock).

use std::collections::BTreeMap;

use super::Record;

/// How one column must match.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Match {
    Equals(String),
    Digits { digits: String },
    Text { text: String },
    Contains { contains: String },
    AnyOf { any_of: Vec<String> },
    Null { null: bool },
    At { at: String },
}

/// Columns and how each must match; an empty filter accepts every record.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(transparent)]
pub struct Filter(pub BTreeMap<String, Match>);

/// A filter that can never be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    #[error("where.{column}: the table has no such column (its columns: {known})")]
    Column { column: String, known: String },
    #[error("where.{0}: digits must hold at least one digit")]
    NoDigits(String),
    #[error("where.{column}: at = {at:?}: {why}")]
    At {
        column: String,
        at: String,
        why: String,
    },
}

/// A day-based or absolute time in ms; `None` for a relative one, whose
/// value depends on the episode's clock.
fn at_ms(text: &str) -> Option<i64> {
    if text.trim().starts_with(['+', '-']) && !text.trim().contains(' ') || text.trim() == "now" {
        return None;
    }
    super::parse_when(text, &super::Clock::default()).ok()
}

/// The digits of `text`, in order.
pub fn digits(text: &str) -> String {
    text.chars().filter(char::is_ascii_digit).collect()
}

/// Case-folded, whitespace collapsed, trimmed.
pub fn fold(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Two phone numbers are the same when their digits are, or when the
/// shorter has at least 7 digits and ends the longer (`5550142` and
/// `+1 650-555-0142`: a number dialled without its country or area code).
pub fn same_number(a: &str, b: &str) -> bool {
    let (a, b) = (digits(a), digits(b));
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    short == long || (short.len() >= 7 && long.ends_with(short.as_str()))
}

impl Match {
    pub fn holds(&self, value: Option<&str>) -> bool {
        match (self, value) {
            (Match::Null { null }, v) => *null == v.is_none(),
            (_, None) => false,
            (Match::Equals(want), Some(v)) => v == want,
            (Match::Digits { digits }, Some(v)) => same_number(v, digits),
            (Match::Text { text }, Some(v)) => fold(v) == fold(text),
            (Match::Contains { contains }, Some(v)) => fold(v).contains(&fold(contains)),
            (Match::AnyOf { any_of }, Some(v)) => any_of.iter().any(|w| w == v),
            (Match::At { at }, Some(v)) => {
                at_ms(at).is_some_and(|ms| v.trim().parse::<i64>() == Ok(ms))
            }
        }
    }
}

impl std::fmt::Display for Match {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Match::Equals(v) => write!(f, "= {v:?}"),
            Match::Digits { digits } => write!(f, "is number {digits}"),
            Match::Text { text } => write!(f, "~ {text:?}"),
            Match::Contains { contains } => write!(f, "contains {contains:?}"),
            Match::AnyOf { any_of } => write!(f, "in {any_of:?}"),
            Match::Null { null: true } => f.write_str("is NULL"),
            Match::Null { null: false } => f.write_str("is not NULL"),
            Match::At { at } => write!(f, "at {at}"),
        }
    }
}

impl Filter {
    /// The same filter with every wanted value passed through `f` (the
    /// apps fill templates such as `{address}` in).
    pub(crate) fn map_values(&self, f: impl Fn(&String) -> String) -> Filter {
        Filter(
            self.0
                .iter()
                .map(|(column, m)| {
                    let m = match m {
                        Match::Equals(v) => Match::Equals(f(v)),
                        Match::Digits { digits } => Match::Digits { digits: f(digits) },
                        Match::Text { text } => Match::Text { text: f(text) },
                        Match::Contains { contains } => Match::Contains {
                            contains: f(contains),
                        },
                        Match::AnyOf { any_of } => Match::AnyOf {
                            any_of: any_of.iter().map(&f).collect(),
                        },
                        Match::Null { null } => Match::Null { null: *null },
                        Match::At { at } => Match::At { at: f(at) },
                    };
                    (column.clone(), m)
                })
                .collect(),
        )
    }

    pub fn accepts(&self, record: &Record) -> bool {
        self.0
            .iter()
            .all(|(column, m)| m.holds(record.get(column).as_deref()))
    }

    /// Every column must be one of `columns`.
    pub fn check(&self, columns: &[&str]) -> Result<(), FilterError> {
        for (column, m) in &self.0 {
            if !columns.contains(&column.as_str()) {
                return Err(FilterError::Column {
                    column: column.clone(),
                    known: columns.join(", "),
                });
            }
            if let Match::Digits { digits: d } = m {
                if digits(d).is_empty() {
                    return Err(FilterError::NoDigits(column.clone()));
                }
            }
            if let Match::At { at } = m {
                if at_ms(at).is_none() {
                    return Err(FilterError::At {
                        column: column.clone(),
                        at: at.clone(),
                        why: "give a day and time (`tomorrow 14:00`, `+2d 09:30`) or RFC 3339; a relative offset depends on the episode's clock".into(),
                    });
                }
            }
        }
        Ok(())
    }
}

impl std::fmt::Display for Filter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|(c, m)| format!("{c} {m}")).collect();
        f.write_str(&parts.join(" and "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(pairs: &[(&str, &str)]) -> Record {
        Record {
            id: 7,
            fields: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn numbers_match_by_their_digits_and_a_long_enough_tail() {
        assert!(same_number("+1 650-555-0142", "16505550142"));
        assert!(same_number("+1 650-555-0142", "555-0142"));
        assert!(
            !same_number("+1 650-555-0142", "0142"),
            "too short to be a number"
        );
        assert!(!same_number("+1 650-555-0142", "+1 650-555-0143"));
    }

    #[test]
    fn a_filter_from_a_task_file_reads_every_form() {
        let f: Filter = toml::from_str(
            r#"address = { digits = "555 0142" }
               type = "2"
               body = { contains = "running LATE" }"#,
        )
        .unwrap();
        let sent = record(&[
            ("address", "+16505550142"),
            ("type", "2"),
            ("body", "Sorry, I'm running late"),
        ]);
        assert!(f.accepts(&sent));
        let inbox = record(&[
            ("address", "+16505550142"),
            ("type", "1"),
            ("body", "running late"),
        ]);
        assert!(!f.accepts(&inbox));
        let at: Filter = toml::from_str(r#"dtstart = { at = "tomorrow 14:00" }"#).unwrap();
        let event = record(&[(
            "dtstart",
            &(super::super::time::NOW_MS + 38 * 3_600_000).to_string(),
        )]);
        assert!(
            at.accepts(&event),
            "tomorrow 14:00 is 38 h after the day's midnight"
        );
        assert!(at.check(&["dtstart"]).is_ok());
        let relative: Filter = toml::from_str(r#"dtstart = { at = "-2h" }"#).unwrap();
        assert!(relative
            .check(&["dtstart"])
            .unwrap_err()
            .to_string()
            .contains("relative"));
        let null: Filter = toml::from_str("name = { null = true }").unwrap();
        assert!(null.accepts(&record(&[])));
        assert!(!null.accepts(&record(&[("name", "")])), "empty is not NULL");
        assert!(f
            .check(&["address", "type"])
            .unwrap_err()
            .to_string()
            .contains("where.body"));
    }
}
