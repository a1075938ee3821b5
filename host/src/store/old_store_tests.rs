//! A store written before the step and episode records were typed
//! (`fixtures/stores/before-typed-records.sql`, dumped from a store the old
//! binary wrote) reads as the typed records say, and writing what was read
//! into a new store gives back the old rows column for column: the records'
//! serde keeps the JSON the columns have always held.

use rusqlite::types::Value;
use rusqlite::Connection;

use super::{gunzip, sha256_hex, test_support as t, EpisodeStatus, Store};
use crate::agent::Decision;
use crate::oracle::{CheckResult, Outcome, Verdict};
use droidscore_phone::DeviceAction;

const BEFORE: &str = include_str!("../../../fixtures/stores/before-typed-records.sql");

/// Every row of `table`, every column, in key order.
fn rows(path: &std::path::Path, table: &str, key: &str) -> Vec<Vec<Value>> {
    let conn = Connection::open(path).unwrap();
    let mut statement = conn
        .prepare(&format!("SELECT * FROM {table} ORDER BY {key}"))
        .unwrap();
    let width = statement.column_count();
    statement
        .query_map([], |row| (0..width).map(|i| row.get(i)).collect())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn a_store_written_before_the_records_were_typed_reads_and_writes_the_same() {
    let dir = t::ScratchDir::new("before-typed-records");
    let old_path = dir.join("old.db");
    Connection::open(&old_path)
        .unwrap()
        .execute_batch(BEFORE)
        .unwrap();
    let old = Store::open_existing(&old_path).unwrap();
    let new_path = dir.join("new.db");
    let new = Store::open(&new_path).unwrap();

    let runs = old.runs().unwrap();
    assert_eq!(runs.len(), 2);
    let mut read = Vec::new();
    for run in &runs {
        new.create_run(run).unwrap();
        for episode in old.episodes(&run.id).unwrap() {
            let steps = old
                .steps(&run.id, &episode.task, &episode.variant, episode.repeat)
                .unwrap();
            new.record_episode(&episode, &steps).unwrap();
            read.push((episode, steps));
        }
    }

    // The verdicts, typed: the reference run's, and none for the episode
    // infrastructure ended.
    let of = |status| read.iter().find(|(e, _)| e.status == status).unwrap();
    let ((scored, steps), (infra, no_steps)) =
        (of(EpisodeStatus::Success), of(EpisodeStatus::Infra));
    assert_eq!(
        scored.verdict,
        Some(Verdict {
            outcome: Outcome::Pass,
            checks: vec![CheckResult {
                check: "global/wifi_on in {1, 2}".into(),
                outcome: Outcome::Pass,
                detail: "global/wifi_on is 1".into(),
            }],
        })
    );
    assert_eq!((infra.verdict.as_ref(), no_steps.len()), (None, 0));
    // A built-in agent's actions are its decisions, their taps where they land.
    let decisions: Vec<Decision> = steps
        .iter()
        .map(|s| serde_json::from_value(s.action.clone()).unwrap())
        .collect();
    assert_eq!(
        decisions,
        [
            Decision::Act(DeviceAction::Tap { x: 540, y: 715 }),
            Decision::Complete
        ]
    );
    for (step, decision) in steps.iter().zip(&decisions) {
        assert_eq!(step.tap, decision.tap());
        let dump = gunzip(&step.ui_dump_gz).unwrap();
        assert_eq!(step.observation_digest, sha256_hex(dump.as_bytes()));
    }

    // Written again, every column as the old binary wrote it.
    for (table, key) in [
        ("runs", "id"),
        ("episodes", "run_id, task, variant, repeat"),
        ("steps", "run_id, task, variant, repeat, idx"),
    ] {
        assert_eq!(
            rows(&new_path, table, key),
            rows(&old_path, table, key),
            "{table}"
        );
    }
    // And read again, the same records.
    for (episode, steps) in &read {
        let key = (&episode.task, &episode.variant, episode.repeat);
        assert_eq!(
            new.episode(&episode.run_id, key.0, key.1, key.2)
                .unwrap()
                .as_ref(),
            Some(episode)
        );
        assert_eq!(
            &new.steps(&episode.run_id, key.0, key.1, key.2).unwrap(),
            steps
        );
    }
}
