//! Opening a store file: connection settings, recognising our own files, and
//! the schema migrations that bring an older file up to date.
//!
//! The schema version is `PRAGMA user_version`: migration `i` of [`MIGRATIONS`]
//! takes a file from version `i` to `i + 1`, each in its own transaction, so a
//! crash mid-upgrade leaves the file at the last complete version. Only append
//! to the list; never edit a migration that has shipped.

use std::{path::Path, time::Duration};

use rusqlite::{Connection, ErrorCode, OpenFlags, TransactionBehavior};

use super::StoreError;

/// `PRAGMA application_id` of a droidscore store ("DSRS"), so `file(1)` and we
/// can tell our files from other programs' SQLite databases.
pub(super) const APPLICATION_ID: i32 = 0x4453_5253;

/// How long a write waits for another process's write to finish (e.g. a
/// `report` reading while `run` commits) before giving up with SQLITE_BUSY.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Schema migrations, oldest first. The store's version is how many have run.
const MIGRATIONS: &[&str] = &[
    // 1: runs, episodes, steps.
    r#"
    CREATE TABLE runs (
        id          TEXT PRIMARY KEY NOT NULL,
        started_at  TEXT NOT NULL,
        config      TEXT NOT NULL CHECK (json_valid(config)),
        provenance  TEXT NOT NULL CHECK (json_valid(provenance))
    ) STRICT;
    -- `runs()` and `latest_run()` list newest first.
    CREATE INDEX runs_by_started_at ON runs (started_at);

    -- Reports read a run's episodes in (task, variant, repeat) order: the
    -- primary key is that index, so none other is needed.
    CREATE TABLE episodes (
        run_id        TEXT NOT NULL REFERENCES runs (id),
        task          TEXT NOT NULL,
        variant       TEXT NOT NULL,
        repeat        INTEGER NOT NULL CHECK (repeat >= 0),
        -- u64 stored bit for bit as i64.
        seed          INTEGER NOT NULL,
        status        TEXT NOT NULL
                      CHECK (status IN ('success', 'failure', 'skipped', 'infra')),
        end_json      TEXT NOT NULL CHECK (json_valid(end_json)),
        verdict_json  TEXT NOT NULL CHECK (json_valid(verdict_json)),
        reason        TEXT NOT NULL,
        steps         INTEGER NOT NULL CHECK (steps >= 0),
        invalid_steps INTEGER NOT NULL CHECK (invalid_steps >= 0),
        attempts      INTEGER NOT NULL CHECK (attempts >= 0),
        started_at    TEXT NOT NULL,
        ended_at      TEXT NOT NULL,
        PRIMARY KEY (run_id, task, variant, repeat)
    ) STRICT, WITHOUT ROWID;

    -- The trajectory viewer reads one episode's steps in order: the primary key.
    CREATE TABLE steps (
        run_id             TEXT NOT NULL,
        task               TEXT NOT NULL,
        variant            TEXT NOT NULL,
        repeat             INTEGER NOT NULL,
        idx                INTEGER NOT NULL CHECK (idx >= 0),
        observation_digest TEXT NOT NULL,
        ui_dump_gz         BLOB NOT NULL,
        screenshot         BLOB,
        raw_output         TEXT NOT NULL,
        action_json        TEXT NOT NULL CHECK (json_valid(action_json)),
        invalid_reason     TEXT,
        tap_x              INTEGER,
        tap_y              INTEGER,
        prompt_tokens      INTEGER,
        completion_tokens  INTEGER,
        latency_ms         REAL NOT NULL,
        PRIMARY KEY (run_id, task, variant, repeat, idx),
        FOREIGN KEY (run_id, task, variant, repeat)
            REFERENCES episodes (run_id, task, variant, repeat),
        CHECK ((tap_x IS NULL) = (tap_y IS NULL))
    ) STRICT;
    "#,
    // 1 → 2: where each observation's time went, on phones reached over adb
    // (dump, read-back, screencap, PNG encoding, foreground), as JSON.
    r#"
    ALTER TABLE steps ADD COLUMN observe_json TEXT
        CHECK (observe_json IS NULL OR json_valid(observe_json));
    "#,
    // 2 → 3: prompt tokens the server served from its prefix cache
    // (`usage.prompt_tokens_details.cached_tokens`); NULL when not reported.
    r#"
    ALTER TABLE steps ADD COLUMN cached_tokens INTEGER
        CHECK (cached_tokens IS NULL OR cached_tokens >= 0);
    "#,
];

/// The schema version this code writes and understands.
pub(super) fn known_version() -> i64 {
    MIGRATIONS.len() as i64
}

/// Open (or create, when `create`) the file at `path`, configure the
/// connection and migrate it to [`known_version`].
pub(super) fn open(path: &Path, create: bool) -> Result<Connection, StoreError> {
    if !create && !path.exists() {
        return Err(StoreError::Missing {
            path: path.to_owned(),
        });
    }
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let sql = |doing| {
        move |source: rusqlite::Error| {
            if source.sqlite_error_code() == Some(ErrorCode::NotADatabase) {
                StoreError::NotADatabase {
                    path: path.to_owned(),
                }
            } else {
                StoreError::Sql {
                    path: path.to_owned(),
                    doing,
                    source,
                }
            }
        }
    };
    let conn = Connection::open_with_flags(path, flags).map_err(sql("open the file"))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(sql("set the busy timeout"))?;
    // The first statement that reads the file: a non-SQLite file fails here.
    let (version, app_id, tables): (i64, i32, i64) = conn
        .query_row(
            "SELECT (SELECT user_version FROM pragma_user_version),
                    (SELECT application_id FROM pragma_application_id),
                    (SELECT count(*) FROM sqlite_schema)",
            [],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .map_err(sql("read the schema version"))?;
    // Ours, or brand new (no tag, no tables, no version): anything else is
    // another program's database and must not be "migrated".
    if app_id != APPLICATION_ID && (app_id != 0 || tables > 0 || version != 0) {
        return Err(StoreError::Foreign {
            path: path.to_owned(),
            detail: format!(
                "application_id {app_id:#x}, {tables} schema objects, user_version {version}"
            ),
        });
    }
    if version > known_version() {
        return Err(StoreError::TooNew {
            path: path.to_owned(),
            found: version,
            known: known_version(),
        });
    }
    // WAL: readers (`report`) never block the writer, and a commit is one
    // append to the -wal file. synchronous=NORMAL then fsyncs only at
    // checkpoints, not per commit: a committed transaction is in the OS's
    // page cache before COMMIT returns, so it survives the *process* dying
    // (crash, Ctrl-C, SIGKILL); only an OS crash or power loss can drop the
    // last few commits, never tear one or corrupt the file.
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
        .map_err(sql("switch to WAL"))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::NoWal {
            path: path.to_owned(),
            mode,
        });
    }
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(sql("set synchronous=NORMAL"))?;
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(sql("turn on foreign keys"))?;
    if version < known_version() {
        migrate(&conn, path, MIGRATIONS)?;
    }
    Ok(conn)
}

/// Run the `migrations` the file has not had yet, one transaction each.
fn migrate(conn: &Connection, path: &Path, migrations: &[&str]) -> Result<(), StoreError> {
    let known = migrations.len() as i64;
    let sql = |doing| {
        move |source| StoreError::Sql {
            path: path.to_owned(),
            doing,
            source,
        }
    };
    loop {
        // IMMEDIATE takes the write lock before reading the version, so two
        // processes opening a new file at once cannot both apply migration 1.
        let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
            .map_err(sql("begin a migration"))?;
        let version: i64 = tx
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(sql("read the schema version"))?;
        if version > known {
            return Err(StoreError::TooNew {
                path: path.to_owned(),
                found: version,
                known,
            });
        }
        let Some(migration) = migrations.get(version as usize) else {
            return Ok(());
        };
        tx.execute_batch(migration)
            .map_err(sql("apply a schema migration"))?;
        // Both pragmas live in the file header and commit with the transaction.
        tx.execute_batch(&format!(
            "PRAGMA user_version = {}; PRAGMA application_id = {APPLICATION_ID};",
            version + 1
        ))
        .map_err(sql("record the schema version"))?;
        tx.commit().map_err(sql("commit a schema migration"))?;
        tracing::debug!(path = %path.display(), version = version + 1, "migrated run store");
    }
}

#[cfg(test)]
mod tests {
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
        assert_eq!(tables, ["episodes", "runs", "steps"]);
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
}
