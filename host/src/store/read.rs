//! Reading a [`Store`]: runs, the episodes of a run, the steps of an
//! episode (or just their numbers), what `--resume` may skip, and a
//! consistency check.

use std::collections::BTreeSet;

use rusqlite::{params, OptionalExtension};

use super::{rows, EpisodeKey, EpisodeRecord, RunRecord, StepRecord, Store, StoreError};

/// The numbers of one step, for statistics (see [`Store::step_usage`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StepUsage {
    pub task: String,
    pub variant: String,
    pub repeat: u32,
    pub index: u32,
    /// The answer did not parse to a valid action.
    pub invalid: bool,
    pub prompt_tokens: Option<u64>,
    /// Of `prompt_tokens`, those served from the prefix cache; `None` when
    /// the endpoint did not report it.
    pub cached_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    pub latency_ms: f64,
}

impl Store {
    /// The run with this id, if there is one.
    pub fn run(&self, id: &str) -> Result<Option<RunRecord>, StoreError> {
        let raw = self
            .conn
            .query_row(
                &format!("SELECT {} FROM runs WHERE id = ?1", rows::RUN_COLUMNS),
                [id],
                rows::RawRun::from_row,
            )
            .optional()
            .map_err(self.sql("read a run"))?;
        raw.map(|raw| raw.decode(self.path())).transpose()
    }

    /// Every run, newest first.
    pub fn runs(&self) -> Result<Vec<RunRecord>, StoreError> {
        self.query_runs(&format!(
            "SELECT {} FROM runs ORDER BY started_at DESC, id DESC",
            rows::RUN_COLUMNS
        ))
    }

    /// The newest run (`droidscore report` without a run id).
    pub fn latest_run(&self) -> Result<Option<RunRecord>, StoreError> {
        Ok(self
            .query_runs(&format!(
                "SELECT {} FROM runs ORDER BY started_at DESC, id DESC LIMIT 1",
                rows::RUN_COLUMNS
            ))?
            .pop())
    }

    fn query_runs(&self, sql: &str) -> Result<Vec<RunRecord>, StoreError> {
        let mut statement = self.conn.prepare(sql).map_err(self.sql("list runs"))?;
        let raws = statement
            .query_map([], rows::RawRun::from_row)
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(self.sql("list runs"))?;
        raws.into_iter()
            .map(|raw| raw.decode(self.path()))
            .collect()
    }

    /// The episodes of `run_id` already recorded: what `--resume` skips.
    pub fn finished(&self, run_id: &str) -> Result<BTreeSet<EpisodeKey>, StoreError> {
        let mut statement = self
            .conn
            .prepare("SELECT task, variant, repeat FROM episodes WHERE run_id = ?1")
            .map_err(self.sql("list finished episodes"))?;
        let keys = statement
            .query_map([run_id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .and_then(|rows| rows.collect())
            .map_err(self.sql("list finished episodes"))?;
        Ok(keys)
    }

    /// One episode, if recorded.
    pub fn episode(
        &self,
        run_id: &str,
        task: &str,
        variant: &str,
        repeat: u32,
    ) -> Result<Option<EpisodeRecord>, StoreError> {
        let raw = self
            .conn
            .query_row(
                &format!(
                    "SELECT {} FROM episodes
                     WHERE run_id = ?1 AND task = ?2 AND variant = ?3 AND repeat = ?4",
                    rows::EPISODE_COLUMNS
                ),
                params![run_id, task, variant, repeat],
                rows::RawEpisode::from_row,
            )
            .optional()
            .map_err(self.sql("read an episode"))?;
        raw.map(|raw| raw.decode(self.path())).transpose()
    }

    /// The episodes of a run, ordered by task, variant and repeat.
    pub fn episodes(&self, run_id: &str) -> Result<Vec<EpisodeRecord>, StoreError> {
        let mut statement = self
            .conn
            .prepare(&format!(
                "SELECT {} FROM episodes WHERE run_id = ?1 ORDER BY task, variant, repeat",
                rows::EPISODE_COLUMNS
            ))
            .map_err(self.sql("list episodes"))?;
        let raws = statement
            .query_map([run_id], rows::RawEpisode::from_row)
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(self.sql("list episodes"))?;
        raws.into_iter()
            .map(|raw| raw.decode(self.path()))
            .collect()
    }

    /// The steps of one episode, in order.
    pub fn steps(
        &self,
        run_id: &str,
        task: &str,
        variant: &str,
        repeat: u32,
    ) -> Result<Vec<StepRecord>, StoreError> {
        let mut statement = self
            .conn
            .prepare_cached(&format!(
                "SELECT {} FROM steps
                 WHERE run_id = ?1 AND task = ?2 AND variant = ?3 AND repeat = ?4
                 ORDER BY idx",
                rows::STEP_COLUMNS
            ))
            .map_err(self.sql("list steps"))?;
        let raws = statement
            .query_map(
                params![run_id, task, variant, repeat],
                rows::RawStep::from_row,
            )
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(self.sql("list steps"))?;
        raws.into_iter()
            .map(|raw| raw.decode(self.path()))
            .collect()
    }

    /// Tokens, latency and validity of every step of a run, ordered by task,
    /// variant, repeat and index, without the UI dumps and screenshots that
    /// [`Store::steps`] loads: what per-step report statistics need.
    pub(crate) fn step_usage(&self, run_id: &str) -> Result<Vec<StepUsage>, StoreError> {
        let mut statement = self
            .conn
            .prepare(
                "SELECT task, variant, repeat, idx, invalid_reason IS NOT NULL,
                        prompt_tokens, completion_tokens, latency_ms, cached_tokens
                 FROM steps WHERE run_id = ?1 ORDER BY task, variant, repeat, idx",
            )
            .map_err(self.sql("list step usage"))?;
        let usage = statement
            .query_map([run_id], |row| {
                Ok(StepUsage {
                    task: row.get(0)?,
                    variant: row.get(1)?,
                    repeat: row.get(2)?,
                    index: row.get(3)?,
                    invalid: row.get(4)?,
                    prompt_tokens: row.get(5)?,
                    cached_tokens: row.get(8)?,
                    completion_tokens: row.get(6)?,
                    latency_ms: row.get(7)?,
                })
            })
            .and_then(|rows| rows.collect())
            .map_err(self.sql("list step usage"))?;
        Ok(usage)
    }

    /// SQLite's own consistency check (`PRAGMA integrity_check`) plus a
    /// foreign-key check: the problems found, empty when the file is sound.
    #[cfg(test)]
    pub(crate) fn integrity_problems(&self) -> Result<Vec<String>, StoreError> {
        let mut problems: Vec<String> = {
            let mut statement = self
                .conn
                .prepare("PRAGMA integrity_check")
                .map_err(self.sql("check integrity"))?;
            let rows = statement
                .query_map([], |row| row.get::<_, String>(0))
                .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
                .map_err(self.sql("check integrity"))?;
            rows.into_iter().filter(|line| line != "ok").collect()
        };
        let mut statement = self
            .conn
            .prepare("PRAGMA foreign_key_check")
            .map_err(self.sql("check foreign keys"))?;
        let orphans = statement
            .query_map([], |row| {
                Ok(format!(
                    "row {} of {} has no parent in {}",
                    row.get::<_, Option<i64>>(1)?.unwrap_or(-1),
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(2)?
                ))
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(self.sql("check foreign keys"))?;
        problems.extend(orphans);
        Ok(problems)
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
    fn runs_episodes_and_steps_round_trip() {
        let dir = t::ScratchDir::new("round-trip");
        let store = store(&dir);
        let run = t::run("r1", "2026-11-30T04:35:12Z");
        store.create_run(&run).unwrap();
        let mut infra = t::episode("r1", "wifi_on", "base", 1);
        infra.status = EpisodeStatus::Infra;
        infra.attempts = 2;
        let success = t::episode("r1", "wifi_on", "base", 0);
        let steps = t::steps(&success, 3);
        store.record_episode(&infra, &[]).unwrap();
        store.record_episode(&success, &steps).unwrap();
        drop(store);

        let store = Store::open_existing(dir.join("run.db")).unwrap();
        assert_eq!(store.run("r1").unwrap(), Some(run));
        assert_eq!(store.run("r2").unwrap(), None);
        assert_eq!(store.episodes("r1").unwrap(), vec![success.clone(), infra]);
        assert_eq!(store.steps("r1", "wifi_on", "base", 0).unwrap(), steps);
        assert_eq!(store.steps("r1", "wifi_on", "base", 1).unwrap(), vec![]);
        let usage = store.step_usage("r1").unwrap();
        let expected: Vec<StepUsage> = steps
            .iter()
            .map(|step| StepUsage {
                task: step.task.clone(),
                variant: step.variant.clone(),
                repeat: step.repeat,
                index: step.index,
                invalid: step.invalid_reason.is_some(),
                prompt_tokens: step.prompt_tokens,
                cached_tokens: step.cached_tokens,
                completion_tokens: step.completion_tokens,
                latency_ms: step.latency_ms,
            })
            .collect();
        assert_eq!(usage, expected);
        assert!(usage[0].invalid && !usage[1].invalid);
        assert!(store.episodes("r2").unwrap().is_empty());
    }

    #[test]
    fn runs_are_listed_newest_first() {
        let dir = t::ScratchDir::new("runs");
        let store = store(&dir);
        assert_eq!(store.latest_run().unwrap(), None);
        for (id, at) in [
            ("b", "2026-11-29T10:00:00Z"),
            ("c", "2026-11-30T09:00:00Z"),
            ("a", "2026-11-28T23:59:59Z"),
        ] {
            store.create_run(&t::run(id, at)).unwrap();
        }
        let ids: Vec<String> = store
            .runs()
            .unwrap()
            .into_iter()
            .map(|run| run.id)
            .collect();
        assert_eq!(ids, ["c", "b", "a"]);
        assert_eq!(store.latest_run().unwrap().unwrap().id, "c");
        let err = store
            .create_run(&t::run("b", "2026-12-01T00:00:00Z"))
            .unwrap_err();
        assert!(matches!(err, StoreError::DuplicateRun { .. }), "{err}");
    }

    #[test]
    fn finished_lists_exactly_the_recorded_episodes_of_that_run() {
        let dir = t::ScratchDir::new("finished");
        let store = store(&dir);
        store
            .create_run(&t::run("r1", "2026-11-30T04:35:12Z"))
            .unwrap();
        store
            .create_run(&t::run("r2", "2026-11-30T05:00:00Z"))
            .unwrap();
        for (run, task, repeat) in [
            ("r1", "wifi_on", 0),
            ("r1", "alarm_7am", 2),
            ("r2", "wifi_on", 1),
        ] {
            let episode = t::episode(run, task, "base", repeat);
            store
                .record_episode(&episode, &t::steps(&episode, 1))
                .unwrap();
        }
        let key = |task: &str, repeat| (task.to_string(), "base".to_string(), repeat);
        assert_eq!(
            store.finished("r1").unwrap(),
            BTreeSet::from([key("alarm_7am", 2), key("wifi_on", 0)])
        );
        assert_eq!(
            store.finished("r2").unwrap(),
            BTreeSet::from([key("wifi_on", 1)])
        );
        assert!(store.finished("r3").unwrap().is_empty());
        assert_eq!(store.integrity_problems().unwrap(), Vec::<String>::new());
    }

    #[test]
    fn a_damaged_json_column_is_an_error_naming_the_row() {
        let dir = t::ScratchDir::new("damaged");
        let store = store(&dir);
        store
            .create_run(&t::run("r1", "2026-11-30T04:35:12Z"))
            .unwrap();
        let episode = t::episode("r1", "wifi_on", "base", 0);
        store.record_episode(&episode, &[]).unwrap();
        // json_valid() guards the column; bypass it as a hand edit would.
        store
            .conn
            .execute_batch(
                "PRAGMA ignore_check_constraints = ON;
                 UPDATE episodes SET status = 'won';",
            )
            .unwrap();
        let err = store.episodes("r1").unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("status of episode wifi_on / base / repeat 0"),
            "{message}"
        );
        assert!(message.contains("\"won\""), "{message}");

        // Valid JSON of the wrong shape passes json_valid() but not decoding.
        store
            .conn
            .execute_batch("UPDATE runs SET provenance = '{\"host\": 7}'")
            .unwrap();
        let message = store.run("r1").unwrap_err().to_string();
        assert!(message.contains("provenance of run r1"), "{message}");
        assert!(message.contains("run.db"), "{message}");
    }
}
