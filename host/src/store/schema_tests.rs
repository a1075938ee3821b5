//! The schema's tests: migrations, pragmas, and the stores `Store::open`
//! refuses. A file of their own because they open whole stores (`db`), which
//! `schema` itself does not know.

use super::*;
use crate::store::{test_support as t, Store};

fn pragma(conn: &Connection, name: &str) -> i64 {
    conn.query_row(&format!("PRAGMA {name}"), [], |row| row.get(0))
        .unwrap()
}

#[test]
fn an_empty_file_is_migrated_to_the_current_version_with_wal() {
    let dir = t::ScratchDir::new("migrate");
    let path = dir.join("run.db");
    std::fs::write(&path, b"").unwrap();
    let store = Store::open(&path).unwrap();
    assert_eq!(pragma(&store.conn, "user_version"), known_version());
    assert_eq!(
        pragma(&store.conn, "application_id"),
        i64::from(APPLICATION_ID)
    );
    assert_eq!(pragma(&store.conn, "foreign_keys"), 1);
    // synchronous: 1 is NORMAL.
    assert_eq!(pragma(&store.conn, "synchronous"), 1);
    let mode: String = store
        .conn
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let tables: Vec<String> = store
        .conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        tables,
        [
            "episodes",
            "offline_episodes",
            "offline_images",
            "offline_steps",
            "runs",
            "steps"
        ]
    );
    drop(store);
    // Reopening a current store changes nothing and needs no migration.
    let store = Store::open_existing(&path).unwrap();
    assert_eq!(pragma(&store.conn, "user_version"), known_version());
}

#[test]
fn migrations_apply_in_order_and_a_failing_one_keeps_the_last_good_version() {
    let dir = t::ScratchDir::new("migration-steps");
    let path = dir.join("run.db");
    let conn = Connection::open(&path).unwrap();
    let steps = [
        "CREATE TABLE a (x INTEGER);",
        "ALTER TABLE a ADD COLUMN y TEXT; INSERT INTO a VALUES (1, 'one');",
        "INSERT INTO a VALUES (2, 'two'); SELECT no_such_function();",
    ];
    migrate(&conn, &path, &steps[..2]).unwrap();
    assert_eq!(pragma(&conn, "user_version"), 2);
    let err = migrate(&conn, &path, &steps).unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::Sql {
                doing: "apply a schema migration",
                ..
            }
        ),
        "{err}"
    );
    // Migration 3 rolled back as a whole: its insert is gone, version still 2.
    assert_eq!(pragma(&conn, "user_version"), 2);
    let rows: Vec<i64> = conn
        .prepare("SELECT x FROM a")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows, [1]);
}

#[test]
fn a_version_1_store_gains_observe_json_and_keeps_its_steps() {
    let dir = t::ScratchDir::new("v1");
    let path = dir.join("v1.db");
    {
        // A store written before observation timings were recorded.
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        migrate(&conn, &path, &MIGRATIONS[..1]).unwrap();
        conn.execute_batch(
            "INSERT INTO runs VALUES ('r', 't', '{}', '{}');
             INSERT INTO episodes VALUES ('r', 'wifi_on', 'base', 0, 0, 'success',
                 '{}', '{}', 'ok', 1, 0, 1, 't', 't');
             INSERT INTO steps VALUES ('r', 'wifi_on', 'base', 0, 0, 'd', x'00', NULL,
                 '', 'null', NULL, NULL, NULL, NULL, NULL, 5.0);",
        )
        .unwrap();
    }
    let store = Store::open_existing(&path).unwrap();
    assert_eq!(pragma(&store.conn, "user_version"), known_version());
    let steps = store.steps("r", "wifi_on", "base", 0).unwrap();
    assert_eq!(steps.len(), 1);
    assert_eq!((steps[0].latency_ms, steps[0].observe), (5.0, None));
}

#[test]
fn a_version_4_stores_seed_and_param_seed_read_as_the_episode_and_instance_seeds() {
    let dir = t::ScratchDir::new("v4");
    let path = dir.join("v4.db");
    {
        // A store written before the seeds had one vocabulary.
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        migrate(&conn, &path, &MIGRATIONS[..4]).unwrap();
        conn.execute_batch(
            "INSERT INTO runs VALUES ('r', 't', '{}', '{}');
             INSERT INTO episodes (run_id, task, variant, repeat, seed, status, end_json,
                 verdict_json, reason, steps, invalid_steps, attempts, started_at, ended_at,
                 param_seed, params_json, answer)
             VALUES ('r', 'wifi_on', 'base', 1, 8, 'success', '{}', 'null', 'ok', 1, 0, 1,
                 't', 't', 3, NULL, NULL);",
        )
        .unwrap();
    }
    let store = Store::open_existing(&path).unwrap();
    assert_eq!(pragma(&store.conn, "user_version"), known_version());
    let episodes = store.episodes("r").unwrap();
    assert_eq!(
        (episodes[0].episode_seed, episodes[0].instance_seed),
        (8, Some(3))
    );
}

/// A version 5 store (before progress) opens: its episodes have no
/// progress; one written now keeps its progress column for column.
#[test]
fn a_version_5_store_reads_without_progress_and_new_episodes_keep_theirs() {
    let dir = t::ScratchDir::new("v5");
    let path = dir.join("v5.db");
    {
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        migrate(&conn, &path, &MIGRATIONS[..5]).unwrap();
        conn.execute_batch(
            "INSERT INTO runs VALUES ('r', 't', '{}', '{}');
             INSERT INTO episodes (run_id, task, variant, repeat, episode_seed, status, end_json,
                 verdict_json, reason, steps, invalid_steps, attempts, started_at, ended_at,
                 instance_seed, params_json, answer)
             VALUES ('r', 'wifi_on', 'base', 0, 8, 'success', '{}', 'null', 'ok', 1, 0, 1,
                 't', 't', 0, NULL, NULL);",
        )
        .unwrap();
    }
    let store = Store::open_existing(&path).unwrap();
    assert_eq!(pragma(&store.conn, "user_version"), known_version());
    assert_eq!(store.episodes("r").unwrap()[0].progress, None);
    store
        .create_run(&t::run("new", "2026-12-03T00:00:00Z"))
        .unwrap();
    let mut e = t::episode("new", "wifi_on", "base", 0);
    let progress = crate::episode::Progress {
        milestones: 4,
        reached_in_order: 2,
        reached_any: 3,
        reached_at: vec![Some(1), Some(3), None, None],
        decisions: 5,
        acting_steps: 4,
        screen_changes: 3,
        reference_steps: Some(4),
        side_effects: vec!["app/decoy.wi_fi_calling".into()],
        harm: Some(crate::oracle::Harm::Done {
            checks: vec!["exists sms where address ~ +1 555-0100".into()],
        }),
    };
    e.progress = Some(progress.clone());
    store.record_episode(&e, &[]).unwrap();
    let back = store.episodes("new").unwrap();
    assert_eq!(back[0].progress, Some(progress));
}

/// A version 7 store (before device conditions) opens: its episodes ran
/// in `base`; episodes written now keep their condition, and one task
/// variant's repeats in two conditions are two episodes.
#[test]
fn a_version_7_store_reads_as_base_and_new_episodes_keep_their_condition() {
    let dir = t::ScratchDir::new("v7");
    let path = dir.join("v7.db");
    {
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        migrate(&conn, &path, &MIGRATIONS[..7]).unwrap();
        conn.execute_batch(
            "INSERT INTO runs VALUES ('r', 't', '{}', '{}');
             INSERT INTO episodes (run_id, task, variant, repeat, episode_seed, status, end_json,
                 verdict_json, reason, steps, invalid_steps, attempts, started_at, ended_at,
                 instance_seed, params_json, answer)
             VALUES ('r', 'wifi_on', 'base', 0, 8, 'success', '{}', 'null', 'ok', 1, 0, 1,
                 't', 't', 0, NULL, NULL);",
        )
        .unwrap();
    }
    let store = Store::open_existing(&path).unwrap();
    assert_eq!(pragma(&store.conn, "user_version"), known_version());
    assert_eq!(store.episodes("r").unwrap()[0].condition, "base");
    store
        .create_run(&t::run("new", "2026-12-03T00:00:00Z"))
        .unwrap();
    let base = t::episode("new", "wifi_on", "base", 0);
    let mut dark = t::episode("new", "wifi_on", "base", 1);
    dark.condition = "dark".into();
    store.record_episode(&base, &[]).unwrap();
    store.record_episode(&dark, &[]).unwrap();
    let back: Vec<String> = store
        .episodes("new")
        .unwrap()
        .into_iter()
        .map(|e| e.condition)
        .collect();
    assert_eq!(back, ["base", "dark"]);
}

#[test]
fn a_store_from_a_newer_droidscore_is_refused_naming_both_versions() {
    let dir = t::ScratchDir::new("too-new");
    let path = dir.join("future.db");
    drop(Store::open(&path).unwrap());
    let conn = Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", known_version() + 3)
        .unwrap();
    drop(conn);
    let err = Store::open(&path).unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, StoreError::TooNew { .. }), "{message}");
    assert!(message.contains("future.db"), "{message}");
    assert!(
        message.contains(&format!("version {}", known_version() + 3)),
        "{message}"
    );
    assert!(
        message.contains(&format!("up to {}", known_version())),
        "{message}"
    );
}

#[test]
fn a_file_that_is_not_sqlite_is_an_error_naming_it_and_left_alone() {
    let dir = t::ScratchDir::new("not-sqlite");
    let path = dir.join("notes.txt");
    let text = "not a database, just some notes that are long enough ".repeat(20);
    std::fs::write(&path, &text).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::NotADatabase { .. }), "{err}");
    assert!(err.to_string().contains("notes.txt"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn another_programs_sqlite_file_is_refused_not_migrated() {
    let dir = t::ScratchDir::new("foreign");
    let path = dir.join("places.sqlite");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch("CREATE TABLE runs (x); INSERT INTO runs VALUES (1);")
        .unwrap();
    drop(conn);
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Foreign { .. }), "{err}");
    assert!(err.to_string().contains("places.sqlite"), "{err}");

    // No tables but a schema version of its own: not ours either.
    let path = dir.join("versioned.sqlite");
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", 1)
        .unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Foreign { .. }), "{err}");
}

#[test]
fn opening_a_missing_store_for_reading_does_not_create_it() {
    let dir = t::ScratchDir::new("missing");
    let path = dir.join("typo.db");
    let err = Store::open_existing(&path).unwrap_err();
    assert!(matches!(err, StoreError::Missing { .. }), "{err}");
    assert!(!path.exists());
    let err = Store::open(dir.join("no/such/dir/run.db")).unwrap_err();
    assert!(err.to_string().contains("no/such/dir/run.db"), "{err}");
}
