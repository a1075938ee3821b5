//! An app's database files as bytes: a fresh database of the app's schema,
//! a pulled `databases/` directory opened (its `-wal` read in), and a
//! database written back out as one file.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::{Connection, MAIN_DB};

use super::{AppDb, AppDbError};

/// A new in-memory database holding the app's schema, as the app creates
/// it on first launch.
pub(super) fn fresh(app: AppDb) -> Result<Connection, AppDbError> {
    let conn = Connection::open_in_memory().map_err(|e| sql_error(app, e))?;
    conn.execute_batch(schema(app))
        .map_err(|e| sql_error(app, e))?;
    Ok(conn)
}

/// The app's schema: its tables, indices and the version it checks.
fn schema(app: AppDb) -> &'static str {
    match app {
        AppDb::ProExpense => super::expense::SCHEMA,
        AppDb::Joplin => super::joplin::SCHEMA,
        AppDb::TasksOrg => super::tasks_org::SCHEMA,
        AppDb::SimpleCalendar => super::simple_calendar::SCHEMA,
    }
}

/// The database in `files` (file name → bytes) with its `-wal` applied,
/// held in memory; `None` when the directory has no database.
pub(super) fn open(
    app: AppDb,
    files: &BTreeMap<String, Vec<u8>>,
) -> Result<Option<Connection>, AppDbError> {
    let Some(main) = files.get(app.file()) else {
        return Ok(None);
    };
    let wal = files
        .get(&format!("{}-wal", app.file()))
        .filter(|w| !w.is_empty());
    let bytes = match wal {
        None => main.clone(),
        Some(wal) => with_wal(app, main, wal)?,
    };
    let mut conn = Connection::open_in_memory().map_err(|e| sql_error(app, e))?;
    conn.deserialize_read_exact(
        MAIN_DB,
        &mut std::io::Cursor::new(legacy_header(bytes.clone())),
        bytes.len(),
        false,
    )
    .map_err(|e| sql_error(app, e))?;
    // A file that is not a database fails here, not at the first read.
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))
        .map_err(|e| sql_error(app, e))?;
    Ok(Some(conn))
}

/// The database's bytes, one file.
pub(super) fn bytes(app: AppDb, conn: &mut Connection) -> Result<Vec<u8>, AppDbError> {
    let data = conn.serialize(MAIN_DB).map_err(|e| sql_error(app, e))?;
    Ok(data.to_vec())
}

pub(super) fn sql_error(app: AppDb, e: rusqlite::Error) -> AppDbError {
    AppDbError::File {
        file: app.path(),
        why: e.to_string(),
    }
}

/// Bytes 18 and 19 of the header say 2 for a database in WAL mode; an
/// in-memory copy cannot keep a WAL, so it reads the same pages as a
/// rollback-journal database (1). Anything else is left for SQLite to judge.
fn legacy_header(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.len() >= 100 && bytes.starts_with(b"SQLite format 3\0") {
        for at in [18, 19] {
            if bytes[at] == 2 {
                bytes[at] = 1;
            }
        }
    }
    bytes
}

/// A database and its write-ahead log as SQLite reads them together: both
/// written to a private directory, opened, and the pages as they stand
/// copied out (the log's committed frames included).
fn with_wal(app: AppDb, main: &[u8], wal: &[u8]) -> Result<Vec<u8>, AppDbError> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "droidscore-appdb-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let io = |e: std::io::Error| AppDbError::File {
        file: app.path(),
        why: format!("reading it with its -wal in {}: {e}", dir.display()),
    };
    std::fs::create_dir_all(&dir).map_err(io)?;
    let read = (|| {
        let path = dir.join(app.file());
        std::fs::write(&path, main).map_err(io)?;
        std::fs::write(dir.join(format!("{}-wal", app.file())), wal).map_err(io)?;
        let mut conn = Connection::open(&path).map_err(|e| sql_error(app, e))?;
        bytes(app, &mut conn)
    })();
    let _ = std::fs::remove_dir_all(&dir);
    read
}
