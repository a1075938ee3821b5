//! Offline runs (`droidscore steps`) in the store: each episode when it
//! ends, with all its steps, in one transaction, as online episodes are.
//! A step is kept whole as JSON (the reference step, the answer, the raw
//! answer, every matcher's verdict, tokens and time), beside the request
//! the agent sent, gzipped (a vision format's screenshots included), so a
//! run can be re-scored or audited from the store alone. The run itself
//! is an ordinary row of `runs`, its config saying `"mode": "steps"`.

use rusqlite::params;

use super::{gunzip, gzip, Store, StoreError};
use crate::offline::{OfflineEpisode, StepResult};

/// The key of an offline episode in its run: task, variant, instance seed.
pub type OfflineKey = (String, String, u64);

impl Store {
    /// Record a finished offline episode of `run_id` and its steps.
    pub fn record_offline_episode(
        &self,
        run_id: &str,
        episode: &OfflineEpisode,
    ) -> Result<(), StoreError> {
        let doing = "write an offline episode";
        let tx = self.begin_write()?;
        let seed = episode.instance_seed as i64;
        let end = serde_json::to_string(&episode.end).map_err(|e| {
            StoreError::corrupt(self.path(), "an offline episode's end", e.to_string())
        })?;
        tx.execute(
            "INSERT INTO offline_episodes (run_id, task, variant, instance_seed, end_json, wall_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                run_id,
                episode.task,
                episode.variant,
                seed,
                end,
                episode.wall_ms
            ],
        )
        .map_err(self.sql(doing))?;
        for step in &episode.steps {
            let json = serde_json::to_string(step)
                .map_err(|e| StoreError::corrupt(self.path(), "an offline step", e.to_string()))?;
            let request = step.request.as_ref().map(|r| gzip(&r.to_string()));
            tx.execute(
                "INSERT INTO offline_steps (run_id, task, variant, instance_seed, idx, step_json, request_gz)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![run_id, episode.task, episode.variant, seed, step.index, json, request],
            )
            .map_err(self.sql(doing))?;
        }
        tx.commit().map_err(self.sql("commit an offline episode"))
    }

    /// An offline run's episodes, in (task, variant, instance seed) order,
    /// with their steps (requests left in the store: [`Store::offline_requests`]).
    pub fn offline_episodes(&self, run_id: &str) -> Result<Vec<OfflineEpisode>, StoreError> {
        let doing = "read offline episodes";
        let mut stmt = self
            .conn
            .prepare(
                "SELECT task, variant, instance_seed, end_json, wall_ms FROM offline_episodes
                 WHERE run_id = ?1 ORDER BY task, variant, instance_seed",
            )
            .map_err(self.sql(doing))?;
        let rows = stmt
            .query_map([run_id], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, String>(3)?,
                    row.get::<_, f64>(4)?,
                ))
            })
            .map_err(self.sql(doing))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.sql(doing))?;
        let mut out = Vec::with_capacity(rows.len());
        for (task, variant, seed, end, wall_ms) in rows {
            let end = serde_json::from_str(&end).map_err(|e| {
                StoreError::corrupt(self.path(), "an offline episode's end", e.to_string())
            })?;
            let steps = self.offline_steps(run_id, &task, &variant, seed)?;
            out.push(OfflineEpisode {
                task,
                variant,
                instance_seed: seed as u64,
                end,
                steps,
                wall_ms,
            });
        }
        Ok(out)
    }

    fn offline_steps(
        &self,
        run_id: &str,
        task: &str,
        variant: &str,
        seed: i64,
    ) -> Result<Vec<StepResult>, StoreError> {
        let doing = "read offline steps";
        let mut stmt = self
            .conn
            .prepare(
                "SELECT step_json FROM offline_steps
                 WHERE run_id = ?1 AND task = ?2 AND variant = ?3 AND instance_seed = ?4 ORDER BY idx",
            )
            .map_err(self.sql(doing))?;
        let jsons = stmt
            .query_map(params![run_id, task, variant, seed], |row| {
                row.get::<_, String>(0)
            })
            .map_err(self.sql(doing))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.sql(doing))?;
        jsons
            .iter()
            .map(|j| {
                serde_json::from_str(j)
                    .map_err(|e| StoreError::corrupt(self.path(), "an offline step", e.to_string()))
            })
            .collect()
    }

    /// The requests of one offline episode's steps, in order (`None` for a
    /// built-in agent's steps).
    pub fn offline_requests(
        &self,
        run_id: &str,
        key: &OfflineKey,
    ) -> Result<Vec<Option<serde_json::Value>>, StoreError> {
        let doing = "read offline requests";
        let mut stmt = self
            .conn
            .prepare(
                "SELECT request_gz FROM offline_steps
                 WHERE run_id = ?1 AND task = ?2 AND variant = ?3 AND instance_seed = ?4 ORDER BY idx",
            )
            .map_err(self.sql(doing))?;
        let blobs = stmt
            .query_map(params![run_id, key.0, key.1, key.2 as i64], |row| {
                row.get::<_, Option<Vec<u8>>>(0)
            })
            .map_err(self.sql(doing))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.sql(doing))?;
        blobs
            .into_iter()
            .map(|blob| {
                blob.map(|b| {
                    let text = gunzip(&b).map_err(|e| {
                        StoreError::corrupt(self.path(), "an offline request", e.to_string())
                    })?;
                    serde_json::from_str(&text).map_err(|e| {
                        StoreError::corrupt(self.path(), "an offline request", e.to_string())
                    })
                })
                .transpose()
            })
            .collect()
    }

    /// Whether `run_id` is an offline run (its config's `mode` is `steps`).
    pub fn is_offline(&self, run_id: &str) -> Result<bool, StoreError> {
        Ok(self
            .run(run_id)?
            .is_some_and(|r| r.config.get("mode").and_then(|m| m.as_str()) == Some("steps")))
    }
}
