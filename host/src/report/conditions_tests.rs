//! Success per device condition: the summary's lines and their rendering
//! in each format. A file of its own because it reads both `summary` and
//! `format`, which `summary` itself does not know.

use super::stats::Rate;
use super::summary::{counts, summarize, CONDITIONS_HEADING};
use crate::store::EpisodeStatus;

/// More than one condition: a line each in Condition::ALL order, with
/// its Wilson interval, its skipped episodes, and against the first
/// condition the paired verdict; rendered in the
/// text, Markdown and HTML summaries under that heading. One condition:
/// no lines, and the JSON has no `per_condition`.
#[test]
fn success_per_condition_with_wilson_intervals_and_not_a_ranking() {
    let mut episodes = Vec::new();
    let mut add = |condition: &str, ok: u32, failed: u32, skipped: u32| {
        let statuses = std::iter::repeat_n(EpisodeStatus::Success, ok as usize)
            .chain(std::iter::repeat_n(EpisodeStatus::Failure, failed as usize))
            .chain(std::iter::repeat_n(
                EpisodeStatus::Skipped,
                skipped as usize,
            ));
        // One episode per template: ten templates.
        for (r, status) in statuses.enumerate() {
            let mut e = crate::store::test_support::episode("r", &format!("t{r:02}"), "base", 0);
            e.status = status;
            e.condition = condition.into();
            if status == EpisodeStatus::Skipped {
                e.reason = format!("skipped: condition {condition} sets \"secure/ui_night_mode\"");
            }
            episodes.push(e);
        }
    };
    add("font1.3", 5, 5, 0);
    add("dark", 0, 10, 2);
    add("base", 10, 0, 0);
    let single = summarize("r", &episodes[..10]);
    assert!(single.per_condition.is_empty());
    let json = serde_json::to_value(&single).unwrap();
    assert!(json.get("per_condition").is_none());
    let s = summarize("r", &episodes);
    let got: Vec<(&str, u64, u64, u64, &str)> = s
        .per_condition
        .iter()
        .map(|l| {
            (
                l.name.as_str(),
                l.rate.successes,
                l.rate.n,
                l.skipped,
                l.versus_first.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("base", 10, 10, 0, "-"),
            ("dark", 0, 10, 2, "lower"),
            ("font1.3", 5, 10, 0, "NOT A RANKING"),
        ]
    );
    assert_eq!(s.per_condition[1].rate, Rate::new(0, 10));
    assert_eq!(s.per_condition[1].conflicts, 2);
    assert!(
        counts(&s).contains("2 skipped (2 where the device condition conflicts"),
        "{}",
        counts(&s)
    );
    // Paired with base template by template: dark fails the ten base
    // succeeds on (10 / 0 discordant), font1.3 five of them (5 / 0: the
    // exact test's p is 2/2⁵ = 0.0625, so no ranking).
    assert!(s.flips.is_empty());
    use super::format::{summary as render, Format};
    for format in [Format::Table, Format::Md, Format::Html] {
        let text = render(&s, format);
        assert!(text.contains(CONDITIONS_HEADING), "{format:?}: {text}");
        assert!(
            text.contains("font1.3") && text.contains("NOT A RANKING"),
            "{format:?}"
        );
        assert!(
            !render(&single, format).contains(CONDITIONS_HEADING),
            "{format:?}"
        );
    }
}
