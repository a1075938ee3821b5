//! Opening a store file: connection settings, recognising our own files, and
//! the schema migrations that bring an older file up to date.
//!
//! The schema version is `PRAGMA user_version`: migration `i` of [`MIGRATIONS`]
//! takes a file from version `i` to `i + 1`, each in its own transaction, so a
//! crash mid-upgrade leaves the file at the last complete version. Only append
//! to the list; never edit a migration that has shipped.
//!
//! A command that only reads a store ([`open_read_only`]: `report`) opens it
//! with `SQLITE_OPEN_READ_ONLY` and never writes it: a store of an older
//! schema is read through a migrated copy in the temp directory.
//!
//! Written here, not with `rusqlite_migration`: no release of it supports
//! rusqlite 0.43 (2.6.0 requires 0.40, and two `libsqlite3-sys` versions
//! cannot link into one build).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

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
    // 3 → 4: the instance of a parameterised task an episode ran (its
    // instance seed and the drawn params, as a JSON object), and the
    // agent's answer; NULL in episodes recorded before.
    r#"
    ALTER TABLE episodes ADD COLUMN param_seed INTEGER;
    ALTER TABLE episodes ADD COLUMN params_json TEXT
        CHECK (params_json IS NULL OR json_valid(params_json));
    ALTER TABLE episodes ADD COLUMN answer TEXT;
    "#,
    // 4 → 5: one vocabulary for seeds. `seed` is the episode seed (the
    // phone's clock, the agent's sampling; repeat r of a run with
    // `--episode-seed S` has S + r), `param_seed` the instance seed (which
    // draw of a parameterised task's params).
    r#"
    ALTER TABLE episodes RENAME COLUMN seed TO episode_seed;
    ALTER TABLE episodes RENAME COLUMN param_seed TO instance_seed;
    "#,
    // 5 → 6: what an episode measured beyond success (`episode::Progress`:
    // milestones reached in order and at all, steps that changed the
    // screen, the reference's step count, side effects), as JSON; NULL in
    // episodes recorded before.
    r#"
    ALTER TABLE episodes ADD COLUMN progress_json TEXT
        CHECK (progress_json IS NULL OR json_valid(progress_json));
    "#,
    // 6 → 7: offline runs (`droidscore steps`): each episode's end, and
    // each step whole as JSON beside the request the agent sent (gzipped,
    // its screenshots replaced by their digests: each PNG is kept once a
    // run in `offline_images`, however many requests carried it).
    r#"
    CREATE TABLE offline_episodes (
        run_id        TEXT NOT NULL REFERENCES runs (id),
        task          TEXT NOT NULL,
        variant       TEXT NOT NULL,
        instance_seed INTEGER NOT NULL,
        end_json      TEXT NOT NULL CHECK (json_valid(end_json)),
        wall_ms       REAL NOT NULL,
        PRIMARY KEY (run_id, task, variant, instance_seed)
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE offline_steps (
        run_id        TEXT NOT NULL,
        task          TEXT NOT NULL,
        variant       TEXT NOT NULL,
        instance_seed INTEGER NOT NULL,
        idx           INTEGER NOT NULL CHECK (idx >= 0),
        step_json     TEXT NOT NULL CHECK (json_valid(step_json)),
        request_gz    BLOB,
        PRIMARY KEY (run_id, task, variant, instance_seed, idx),
        FOREIGN KEY (run_id, task, variant, instance_seed)
            REFERENCES offline_episodes (run_id, task, variant, instance_seed)
    ) STRICT;
    CREATE TABLE offline_images (
        run_id  TEXT NOT NULL,
        sha256  TEXT NOT NULL,
        png     BLOB NOT NULL,
        PRIMARY KEY (run_id, sha256)
    ) STRICT, WITHOUT ROWID;
    "#,
    // 7 → 8: the device condition each episode ran in (`run --conditions`):
    // `base`, `dark`, `font1.3`, … Episodes recorded before ran on the phone
    // as it comes: `base`. Not in the key: a run's repeat numbers continue
    // across its conditions (`run::plan`), so (task, variant, repeat) stays
    // unique and the steps' key and foreign key are unchanged.
    r#"
    ALTER TABLE episodes ADD COLUMN condition TEXT NOT NULL DEFAULT 'base';
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
    let sql = |doing| sql_error(path, doing);
    let conn = Connection::open_with_flags(path, flags).map_err(sql("open the file"))?;
    let version = check(&conn, path)?;
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

/// A failed SQLite call on `path`, while `doing`: a file that is not a
/// database says so; anything else is [`StoreError::sql`].
fn sql_error<'a>(
    path: &'a Path,
    doing: &'static str,
) -> impl Fn(rusqlite::Error) -> StoreError + 'a {
    move |source| {
        if source.sqlite_error_code() == Some(ErrorCode::NotADatabase) {
            StoreError::NotADatabase {
                path: path.to_owned(),
            }
        } else {
            StoreError::sql(path, doing, source)
        }
    }
}

/// Configure a connection just opened on `path` and check the file is a
/// store this code can read: its schema version.
fn check(conn: &Connection, path: &Path) -> Result<i64, StoreError> {
    let sql = |doing| sql_error(path, doing);
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
    Ok(version)
}

/// A migrated copy of an older store, in the temp directory; removed when
/// dropped (after the connection reading it, which is declared before it).
#[derive(Debug)]
pub(super) struct ReadCopy(PathBuf);

impl Drop for ReadCopy {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut path = self.0.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Open the store at `path` to read it, never writing it: a missing file is
/// [`StoreError::Missing`] (not created), and the file is opened with
/// `SQLITE_OPEN_READ_ONLY`, so no byte of it changes. A store of the current
/// schema is read as it is. An older one (an empty file is version 0) is
/// copied with `VACUUM INTO` to the temp directory and the copy migrated
/// and read; `run` migrates the file itself when it next writes to it.
pub(super) fn open_read_only(path: &Path) -> Result<(Connection, Option<ReadCopy>), StoreError> {
    if !path.exists() {
        return Err(StoreError::Missing {
            path: path.to_owned(),
        });
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)
        .map_err(|source| StoreError::sql(path, "open the file", source))?;
    if check(&conn, path)? == known_version() {
        return Ok((conn, None));
    }
    let copy = ReadCopy(std::env::temp_dir().join(format!(
        "droidscore-read-{}-{}.sqlite",
        std::process::id(),
        COPIES.fetch_add(1, Ordering::Relaxed)
    )));
    // A copy left by an earlier process of the same id would make VACUUM INTO fail.
    drop(ReadCopy(copy.0.clone()));
    conn.execute("VACUUM INTO ?1", [copy.0.to_string_lossy()])
        .map_err(|source| StoreError::sql(path, "copy an older store to migrate", source))?;
    drop(conn);
    let conn = open(&copy.0, false)?;
    Ok((conn, Some(copy)))
}

/// Read copies made by this process, for unique names.
static COPIES: AtomicU64 = AtomicU64::new(0);

/// Run the `migrations` the file has not had yet, one transaction each.
fn migrate(conn: &Connection, path: &Path, migrations: &[&str]) -> Result<(), StoreError> {
    let known = migrations.len() as i64;
    let sql = |doing| move |source| StoreError::sql(path, doing, source);
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
#[path = "schema_tests.rs"]
mod tests;
