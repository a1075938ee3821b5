//! What can go wrong with a run store. Every message names the store file, so
//! "failed to …: <message>" tells the user which of several `.db` files to look at.
//!
//! A write the file system refuses (read-only, full, not ours to write) is
//! its own variant, [`StoreError::Refused`], saying so in words: SQLite's
//! SQLITE_FULL is "no space left on device", and for SQLITE_READONLY and
//! SQLITE_CANTOPEN, which do not say why, the OS is asked by opening the
//! file for writing.

use std::fs::OpenOptions;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use rusqlite::ErrorCode;

/// Why the file system refused a write to the store, in its own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("read-only file system")]
    ReadOnly,
    #[error("no space left on device")]
    Full,
    #[error("permission denied")]
    PermissionDenied,
}

/// An error from the run store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// `report`/`--resume`/`merge` pointed at a file that is not there.
    #[error("run store {} does not exist", path.display())]
    Missing { path: PathBuf },

    /// The file exists but is not an SQLite database at all.
    #[error("{} is not an SQLite database (not a droidscore run store)", path.display())]
    NotADatabase { path: PathBuf },

    /// An SQLite database, but some other program's.
    #[error("{} is not a droidscore run store: {detail}", path.display())]
    Foreign { path: PathBuf, detail: String },

    /// Written by a newer droidscore; we refuse rather than misread it.
    #[error(
        "run store {} has schema version {found}, newer than this droidscore knows \
         (up to {known}); use a newer droidscore",
        path.display()
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },

    /// SQLite would not switch the file to WAL (e.g. some network filesystems).
    #[error(
        "run store {} cannot use WAL: SQLite kept journal_mode={mode} \
         (is it on a network filesystem?)",
        path.display()
    )]
    NoWal { path: PathBuf, mode: String },

    /// The file system refused a write (or the file's opening for one):
    /// what we were doing, and why in words; beneath, SQLite's error.
    #[error("cannot {doing} in run store {}: {refusal}", path.display())]
    Refused {
        path: PathBuf,
        doing: &'static str,
        refusal: Refusal,
        #[source]
        source: rusqlite::Error,
    },

    /// Any other SQLite failure, with what we were doing at the time.
    #[error("cannot {doing} in run store {}: {source}", path.display())]
    Sql {
        path: PathBuf,
        doing: &'static str,
        #[source]
        source: rusqlite::Error,
    },

    /// A row whose JSON or values do not decode: the file was edited or damaged.
    #[error("run store {} holds a damaged row ({what}): {detail}", path.display())]
    Corrupt {
        path: PathBuf,
        what: String,
        detail: String,
    },

    /// `create_run` with an id that is already taken.
    #[error("run {run_id} already exists in {}", path.display())]
    DuplicateRun { path: PathBuf, run_id: String },

    /// An episode for a run that `create_run` never wrote.
    #[error("run {run_id} does not exist in {}", path.display())]
    UnknownRun { path: PathBuf, run_id: String },

    /// The episode is already recorded: writing it again would count it twice.
    #[error(
        "episode {task} / {variant} / repeat {repeat} of run {run_id} is already in {}",
        path.display()
    )]
    Duplicate {
        path: PathBuf,
        run_id: String,
        task: String,
        variant: String,
        repeat: u32,
    },

    /// A step handed to `record_episode` that belongs to another episode.
    #[error(
        "step {index} is for {step_key} but was recorded with episode {episode_key} (store {})",
        path.display()
    )]
    ForeignStep {
        path: PathBuf,
        index: u32,
        step_key: String,
        episode_key: String,
    },

    /// Two shard stores disagree about the same thing.
    #[error("cannot merge {} into {}: {what} differs: {detail}", from.display(), into.display())]
    MergeConflict {
        into: PathBuf,
        from: PathBuf,
        what: String,
        detail: String,
    },
}

impl StoreError {
    /// An SQLite failure of the store at `path` while `doing`: [`StoreError::Refused`]
    /// when the file system refused it, else [`StoreError::Sql`].
    pub(super) fn sql(path: &Path, doing: &'static str, source: rusqlite::Error) -> Self {
        let refusal = match source.sqlite_error_code() {
            Some(ErrorCode::DiskFull) => Some(Refusal::Full),
            Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen) => os_refusal(path),
            _ => None,
        };
        match refusal {
            Some(refusal) => StoreError::Refused {
                path: path.to_owned(),
                doing,
                refusal,
                source,
            },
            None => StoreError::Sql {
                path: path.to_owned(),
                doing,
                source,
            },
        }
    }

    /// A row or column of the store at `path` that cannot be read back.
    pub(super) fn corrupt(path: &Path, what: impl Into<String>, detail: impl Into<String>) -> Self {
        StoreError::Corrupt {
            path: path.to_owned(),
            what: what.into(),
            detail: detail.into(),
        }
    }
}

/// What the OS says to opening `path` for writing, when that is a refusal.
/// A missing file is created to ask (in a read-only or full directory that
/// fails, which is the answer) and removed again.
fn os_refusal(path: &Path) -> Option<Refusal> {
    let created = !path.exists();
    let error = match OpenOptions::new().write(true).create(created).open(path) {
        Ok(_) => {
            if created {
                let _ = std::fs::remove_file(path);
            }
            return None;
        }
        Err(error) => error,
    };
    match error.kind() {
        ErrorKind::ReadOnlyFilesystem => Some(Refusal::ReadOnly),
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded => Some(Refusal::Full),
        ErrorKind::PermissionDenied => Some(Refusal::PermissionDenied),
        _ => None,
    }
}
