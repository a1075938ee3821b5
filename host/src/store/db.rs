//! [`Store`]: one SQLite file holding runs, their finished episodes and every
//! step of those episodes.
//!
//! An episode is written once, when it ends, together with all its steps in
//! one transaction: after any crash an episode is either fully there or absent,
//! and [`Store::finished`] is exactly what `--resume` may skip. Writing the same
//! episode twice is an error, never a second count.
//!
//! A `Store` is one connection: `Send` but not `Sync`. With `--jobs N`, the
//! episodes' results go to one writer (a channel or a mutex) rather than N
//! connections contending for the write lock.

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, TransactionBehavior};

use super::{rows, schema, EpisodeRecord, RunRecord, StepRecord, StoreError};

/// An episode's key within a run: (task, variant, repeat).
pub type EpisodeKey = (String, String, u32);

/// What [`Store::check_room`] writes: an episode with screenshots takes tens
/// of KiB to a few MiB, so a store that cannot take 1 MiB would fail on the
/// first episodes.
pub(crate) const PROBE_BYTES: usize = 1 << 20;

/// SQLite's page cache while the probe is written, in pages: small, so the
/// probe's pages are spilled to the WAL file instead of staying in memory
/// until the rollback.
const PROBE_CACHE_PAGES: i64 = 8;

/// A droidscore run store (see the module docs).
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
    pub(super) conn: Connection,
    /// What `conn` reads when an older store is opened to read: dropped
    /// (removed) after `conn` is closed.
    _copy: Option<schema::ReadCopy>,
}

impl Store {
    /// Open the store at `path`, creating the file if it does not exist, and
    /// migrate it to the current schema.
    pub fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let path = path.as_ref().to_owned();
        let conn = schema::open(&path, true)?;
        Ok(Store {
            path,
            conn,
            _copy: None,
        })
    }

    /// Like [`Store::open`] but a missing file is an error: a typo must not
    /// quietly create an empty store. A command that only reads uses
    /// [`Store::open_read_only`].
    pub fn open_existing(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let path = path.as_ref().to_owned();
        let conn = schema::open(&path, false)?;
        Ok(Store {
            path,
            conn,
            _copy: None,
        })
    }

    /// Open the store at `path` only to read it (`report`): a missing file
    /// is [`StoreError::Missing`], and the file is never written, not even
    /// migrated (an older schema is read through a migrated copy; see
    /// [`schema::open_read_only`]). Writes through it fail.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let path = path.as_ref().to_owned();
        let (conn, copy) = schema::open_read_only(&path)?;
        Ok(Store {
            path,
            conn,
            _copy: copy,
        })
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Check that the file system takes a write of an episode's size
    /// ([`PROBE_BYTES`] of random bytes, in a transaction that is rolled
    /// back), so a read-only or full one is refused ([`StoreError::Refused`])
    /// before a run starts rather than at its first episode. A new store file
    /// can be created on a full disk; its first megabyte cannot.
    ///
    /// Random bytes, not zeros, so a compressing file system cannot shrink them.
    pub(crate) fn check_room(&self) -> Result<(), StoreError> {
        let cache: i64 = self
            .conn
            .pragma_query_value(None, "cache_size", |row| row.get(0))
            .map_err(self.sql("read the page cache size"))?;
        self.conn
            .pragma_update(None, "cache_size", PROBE_CACHE_PAGES)
            .map_err(self.sql("shrink the page cache"))?;
        let probe = self.write_probe();
        let restored = self
            .conn
            .pragma_update(None, "cache_size", cache)
            .map_err(self.sql("restore the page cache size"));
        probe.and(restored)
    }

    fn write_probe(&self) -> Result<(), StoreError> {
        let doing = "write a 1 MiB test record";
        let tx = self.begin_write()?;
        tx.execute_batch("CREATE TABLE droidscore_probe (bytes BLOB NOT NULL)")
            .map_err(self.sql(doing))?;
        tx.execute(
            "INSERT INTO droidscore_probe VALUES (randomblob(?1))",
            [PROBE_BYTES as i64],
        )
        .map_err(self.sql(doing))?;
        tx.rollback().map_err(self.sql("roll back the test record"))
    }

    /// Record a new run. Its id must not be taken.
    pub fn create_run(&self, run: &RunRecord) -> Result<(), StoreError> {
        let tx = self.begin_write()?;
        self.insert_run(run)?;
        tx.commit().map_err(self.sql("commit the run"))
    }

    /// Insert a run row; the caller holds a write transaction.
    pub(super) fn insert_run(&self, run: &RunRecord) -> Result<(), StoreError> {
        if self.run(&run.id)?.is_some() {
            return Err(StoreError::DuplicateRun {
                path: self.path.clone(),
                run_id: run.id.clone(),
            });
        }
        let provenance = serde_json::to_string(&run.provenance).map_err(|err| {
            StoreError::corrupt(
                &self.path,
                format!("provenance of run {}", run.id),
                err.to_string(),
            )
        })?;
        self.conn
            .execute(
                "INSERT INTO runs (id, started_at, config, provenance) VALUES (?1, ?2, ?3, ?4)",
                params![run.id, run.started_at, run.config.to_string(), provenance],
            )
            .map_err(self.sql("insert the run"))?;
        Ok(())
    }

    /// Record a finished episode and all its steps in one transaction.
    ///
    /// Fails, writing nothing, when the run does not exist, when the episode
    /// is already recorded ([`StoreError::Duplicate`]) or when a step belongs
    /// to another episode.
    pub(crate) fn record_episode(
        &self,
        episode: &EpisodeRecord,
        steps: &[StepRecord],
    ) -> Result<(), StoreError> {
        let tx = self.begin_write()?;
        self.insert_episode(episode, steps)?;
        tx.commit().map_err(self.sql("commit the episode"))
    }

    /// Insert an episode and its steps; the caller holds a write transaction.
    pub(super) fn insert_episode(
        &self,
        episode: &EpisodeRecord,
        steps: &[StepRecord],
    ) -> Result<(), StoreError> {
        if self.run(&episode.run_id)?.is_none() {
            return Err(StoreError::UnknownRun {
                path: self.path.clone(),
                run_id: episode.run_id.clone(),
            });
        }
        let EpisodeRecord {
            run_id,
            task,
            variant,
            repeat,
            ..
        } = episode;
        if self.episode(run_id, task, variant, *repeat)?.is_some() {
            return Err(StoreError::Duplicate {
                path: self.path.clone(),
                run_id: run_id.clone(),
                task: task.clone(),
                variant: variant.clone(),
                repeat: *repeat,
            });
        }
        for step in steps {
            if (&step.run_id, &step.task, &step.variant, step.repeat)
                != (run_id, task, variant, *repeat)
            {
                return Err(StoreError::ForeignStep {
                    path: self.path.clone(),
                    index: step.index,
                    step_key: format!(
                        "{} / {} / repeat {} of run {}",
                        step.task, step.variant, step.repeat, step.run_id
                    ),
                    episode_key: format!("{task} / {variant} / repeat {repeat} of run {run_id}"),
                });
            }
        }
        rows::insert_episode(&self.conn, episode).map_err(self.sql("insert the episode"))?;
        let mut insert = self
            .conn
            .prepare_cached(rows::INSERT_STEP)
            .map_err(self.sql("insert a step"))?;
        for step in steps {
            rows::insert_step(&mut insert, step).map_err(self.sql("insert a step"))?;
        }
        Ok(())
    }

    /// Begin a transaction that takes the write lock at once, so it waits
    /// (busy timeout) at BEGIN instead of failing mid-way on lock upgrade.
    pub(super) fn begin_write(&self) -> Result<rusqlite::Transaction<'_>, StoreError> {
        rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(self.sql("begin a write"))
    }

    /// Map an SQLite error to one naming this store and what we were doing.
    pub(super) fn sql(&self, doing: &'static str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        move |source| StoreError::sql(&self.path, doing, source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{test_support as t, EpisodeStatus};

    fn store(dir: &t::ScratchDir) -> Store {
        Store::open(dir.join("run.db")).unwrap()
    }

    #[test]
    fn a_second_write_of_an_episode_is_refused_and_changes_nothing() {
        let dir = t::ScratchDir::new("duplicate");
        let store = store(&dir);
        store
            .create_run(&t::run("r1", "2026-11-30T04:35:12Z"))
            .unwrap();
        let first = t::episode("r1", "wifi_on", "base", 0);
        store.record_episode(&first, &t::steps(&first, 2)).unwrap();

        let mut again = first.clone();
        again.status = EpisodeStatus::Failure;
        let err = store
            .record_episode(&again, &t::steps(&again, 5))
            .unwrap_err();
        assert!(
            matches!(err, StoreError::Duplicate { repeat: 0, .. }),
            "{err}"
        );
        let message = err.to_string();
        assert!(
            message.contains("wifi_on / base / repeat 0 of run r1"),
            "{message}"
        );
        assert!(message.contains("run.db"), "{message}");

        assert_eq!(store.episodes("r1").unwrap(), vec![first.clone()]);
        assert_eq!(
            store.steps("r1", "wifi_on", "base", 0).unwrap(),
            t::steps(&first, 2)
        );
    }

    #[test]
    fn the_room_check_writes_a_megabyte_and_leaves_nothing_behind() {
        let dir = t::ScratchDir::new("room");
        let store = store(&dir);
        store.check_room().unwrap();
        // The probe went through the file system (the WAL), not just memory.
        let wal = std::fs::metadata(dir.join("run.db-wal")).unwrap().len();
        assert!(wal >= PROBE_BYTES as u64, "WAL of {wal} bytes");
        let tables: i64 = store
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE name = 'droidscore_probe'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(tables, 0, "the probe's table was rolled back");
        let cache: i64 = store
            .conn
            .pragma_query_value(None, "cache_size", |row| row.get(0))
            .unwrap();
        assert_ne!(cache, PROBE_CACHE_PAGES, "the page cache is restored");
    }

    #[test]
    fn sqlite_full_is_no_space_left_on_device_naming_the_store() {
        let full = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
            None,
        );
        let err = StoreError::sql(Path::new("/srv/runs.sqlite"), "commit the episode", full);
        assert!(
            matches!(
                err,
                StoreError::Refused {
                    refusal: crate::store::Refusal::Full,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "cannot commit the episode in run store /srv/runs.sqlite: no space left on device"
        );
    }

    #[test]
    fn an_episode_with_a_bad_step_is_not_written_at_all() {
        let dir = t::ScratchDir::new("bad-step");
        let store = store(&dir);
        store
            .create_run(&t::run("r1", "2026-11-30T04:35:12Z"))
            .unwrap();
        let episode = t::episode("r1", "wifi_on", "base", 0);

        // Step 1 twice: the second insert fails after the episode row and step 0 went in.
        let mut steps = t::steps(&episode, 2);
        steps.push(steps[1].clone());
        let err = store.record_episode(&episode, &steps).unwrap_err();
        assert!(
            matches!(
                err,
                StoreError::Sql {
                    doing: "insert a step",
                    ..
                }
            ),
            "{err}"
        );

        let mut foreign = t::steps(&episode, 1);
        foreign[0].task = "bluetooth_off".into();
        let err = store.record_episode(&episode, &foreign).unwrap_err();
        assert!(matches!(err, StoreError::ForeignStep { .. }), "{err}");

        let orphan = t::episode("nope", "wifi_on", "base", 0);
        let err = store.record_episode(&orphan, &[]).unwrap_err();
        assert!(matches!(err, StoreError::UnknownRun { .. }), "{err}");

        assert!(store.finished("r1").unwrap().is_empty());
        assert!(store.steps("r1", "wifi_on", "base", 0).unwrap().is_empty());
        // And the episode can still be written properly afterwards.
        store
            .record_episode(&episode, &t::steps(&episode, 2))
            .unwrap();
        assert_eq!(store.finished("r1").unwrap().len(), 1);
    }
}
