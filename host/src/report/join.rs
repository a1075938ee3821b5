//! Several runs read as one: `droidscore report 'q05-*'`.
//!
//! A long suite is often run in pieces (a category at a time, a task per
//! run, so that a session cut off loses one episode and not a queue). Read
//! together they are one run only if nothing but the task selection
//! differs: the same agent, model, weights, budget and variants, over the
//! same task files. [`join`] checks that and gives the record a report
//! reads the pieces under; [`check_disjoint`] refuses an episode two pieces
//! both hold, which would count twice.

use std::collections::BTreeMap;

use crate::store::{EpisodeRecord, RunRecord};

/// The config keys that name a piece of a run rather than its setup.
const PER_PIECE: [&str; 3] = ["tasks", "slices", "shard"];

/// True where `spec` is a pattern over run ids rather than one id.
pub(crate) fn is_pattern(spec: &str) -> bool {
    spec.contains(['*', '?', '['])
}

/// One record for `runs` (matched by `pattern`, none empty): the first
/// run's setup, `tasks` set to the pattern, the slices of every piece, the
/// earliest start. An error names the two runs and the first key they
/// differ in.
pub(crate) fn join(pattern: &str, runs: &[RunRecord]) -> Result<RunRecord, String> {
    let Some(first) = runs.first() else {
        return Err(format!("no run matches {pattern:?}"));
    };
    let setup = |run: &RunRecord| -> BTreeMap<String, serde_json::Value> {
        let mut keys: BTreeMap<String, serde_json::Value> = run
            .config
            .as_object()
            .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        keys.retain(|k, _| !PER_PIECE.contains(&k.as_str()));
        keys
    };
    let ours = setup(first);
    let mut slices = serde_json::Map::new();
    let mut started_at = first.started_at.clone();
    for run in runs {
        if run.provenance.suite_hash != first.provenance.suite_hash {
            return Err(format!(
                "runs {} and {} ran different task files (suite hash {} and {}); \
                 only runs of one suite are read as one",
                first.id, run.id, first.provenance.suite_hash, run.provenance.suite_hash
            ));
        }
        let theirs = setup(run);
        let keys = ours.keys().chain(theirs.keys());
        if let Some(key) = keys.into_iter().find(|k| ours.get(*k) != theirs.get(*k)) {
            let show = |v: Option<&serde_json::Value>| {
                v.map_or_else(|| "unset".to_string(), |v| v.to_string())
            };
            return Err(format!(
                "runs {} and {} differ in their config's `{key}` ({} and {}); \
                 only the tasks a run selected may differ between runs read as one",
                first.id,
                run.id,
                show(ours.get(key)),
                show(theirs.get(key)),
            ));
        }
        if let Some(theirs) = run.config.get("slices").and_then(|s| s.as_object()) {
            for (task, s) in theirs {
                slices.entry(task.clone()).or_insert_with(|| s.clone());
            }
        }
        started_at = started_at.min(run.started_at.clone());
    }
    let mut config = first.config.clone();
    if let Some(o) = config.as_object_mut() {
        o.insert("tasks".into(), pattern.into());
        o.remove("shard");
        if !slices.is_empty() {
            o.insert("slices".into(), slices.into());
        }
    }
    Ok(RunRecord {
        id: pattern.to_string(),
        started_at,
        config,
        provenance: first.provenance.clone(),
    })
}

/// Refuses an episode (task, variant, seed, condition, repeat) that two of
/// the pieces both hold, naming it and the two runs.
pub(crate) fn check_disjoint(episodes: &[EpisodeRecord]) -> Result<(), String> {
    let mut seen: BTreeMap<(&str, &str, Option<u64>, &str, u32), &str> = BTreeMap::new();
    for e in episodes {
        let key = (
            e.task.as_str(),
            e.variant.as_str(),
            e.instance_seed,
            e.condition.as_str(),
            e.repeat,
        );
        if let Some(other) = seen.insert(key, &e.run_id) {
            if other != e.run_id {
                return Err(format!(
                    "runs {other} and {} both hold episode {} / {} / repeat {}: \
                     read as one they would count it twice",
                    e.run_id, e.task, e.variant, e.repeat
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, tasks: &str, max_steps: u32) -> RunRecord {
        RunRecord {
            id: id.into(),
            started_at: format!("2026-12-04T10:00:0{}Z", id.len() % 10),
            config: serde_json::json!({
                "agent": "llm", "max_steps": max_steps, "tasks": tasks,
                "slices": { tasks: { "category": "single-app", "apps": ["Settings"], "tags": [] } },
            }),
            provenance: crate::store::Provenance {
                suite_hash: "abc".into(),
                ..Default::default()
            },
        }
    }

    #[test]
    fn pieces_of_one_setup_join_with_every_piece_s_slices() {
        let joined = join(
            "p-*",
            &[run("p-a", "wifi_on", 8), run("p-bb", "nfc_off", 8)],
        )
        .unwrap();
        assert_eq!(joined.id, "p-*");
        assert_eq!(joined.config["tasks"], "p-*");
        assert_eq!(joined.started_at, "2026-12-04T10:00:03Z");
        let slices = joined.config["slices"].as_object().unwrap();
        assert_eq!(slices.keys().collect::<Vec<_>>(), ["wifi_on", "nfc_off"]);
    }

    #[test]
    fn a_different_budget_or_suite_is_refused_by_name() {
        let err = join(
            "p-*",
            &[run("p-a", "wifi_on", 8), run("p-b", "nfc_off", 10)],
        )
        .unwrap_err();
        assert!(
            err.contains("runs p-a and p-b differ in their config's `max_steps` (8 and 10)"),
            "{err}"
        );
        let mut other = run("p-b", "nfc_off", 8);
        other.provenance.suite_hash = "def".into();
        let err = join("p-*", &[run("p-a", "wifi_on", 8), other]).unwrap_err();
        assert!(
            err.contains("ran different task files (suite hash abc and def)"),
            "{err}"
        );
        let mut unset = run("p-b", "nfc_off", 8);
        unset
            .config
            .as_object_mut()
            .unwrap()
            .insert("constrain".into(), "schema".into());
        let err = join("p-*", &[run("p-a", "wifi_on", 8), unset]).unwrap_err();
        assert!(err.contains("`constrain` (unset and \"schema\")"), "{err}");
        assert!(join("p-*", &[])
            .unwrap_err()
            .contains("no run matches \"p-*\""));
    }

    #[test]
    fn an_episode_two_pieces_hold_is_refused() {
        let a = crate::store::test_support::episode("p-a", "wifi_on", "base", 0);
        let b = crate::store::test_support::episode("p-b", "nfc_off", "base", 0);
        assert_eq!(check_disjoint(&[a.clone(), b]), Ok(()));
        let twice = crate::store::test_support::episode("p-b", "wifi_on", "base", 0);
        let err = check_disjoint(&[a, twice]).unwrap_err();
        assert!(
            err.contains("runs p-a and p-b both hold episode wifi_on / base / repeat 0"),
            "{err}"
        );
    }

    #[test]
    fn only_glob_characters_make_a_pattern() {
        assert!(is_pattern("q05-*") && is_pattern("run-?") && is_pattern("r[12]"));
        assert!(!is_pattern("20261204T101010Z-7f3a"));
    }
}
