//! Offline runs (`droidscore steps`) in the store: each episode when it
//! ends, with all its steps, in one transaction, as online episodes are.
//! A step is kept whole as JSON (the reference step, the answer, the raw
//! answer, every matcher's verdict, tokens and time), beside the request
//! the agent sent, gzipped, so a run can be re-scored or audited from the
//! store alone. A request's screenshots (`data:image/png;base64,` URLs) are
//! kept once a run each, in `offline_images`, and the request holds their
//! digests: a vision format sends each screen again with the next four
//! requests, which would otherwise store it five times. The run itself
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
            let request = match &step.request {
                Some(r) => {
                    let mut r = r.clone();
                    let mut images = Vec::new();
                    keep_images(&mut r, &mut images);
                    for (sha, png) in images {
                        tx.execute(
                            "INSERT OR IGNORE INTO offline_images (run_id, sha256, png) VALUES (?1, ?2, ?3)",
                            params![run_id, sha, png],
                        )
                        .map_err(self.sql(doing))?;
                    }
                    Some(gzip(&r.to_string()))
                }
                None => None,
            };
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
        let corrupt = |e: String| StoreError::corrupt(self.path(), "an offline request", e);
        blobs
            .into_iter()
            .map(|blob| {
                blob.map(|b| {
                    let text = gunzip(&b).map_err(|e| corrupt(e.to_string()))?;
                    let mut body: serde_json::Value =
                        serde_json::from_str(&text).map_err(|e| corrupt(e.to_string()))?;
                    self.restore_images(run_id, &mut body)?;
                    Ok(body)
                })
                .transpose()
            })
            .collect()
    }

    /// Put back the screenshots [`keep_images`] took out of a request.
    fn restore_images(&self, run_id: &str, v: &mut serde_json::Value) -> Result<(), StoreError> {
        match v {
            serde_json::Value::String(s) => {
                if let Some(sha) = s.strip_prefix(IMAGE_REF) {
                    let png: Vec<u8> = self
                        .conn
                        .query_row(
                            "SELECT png FROM offline_images WHERE run_id = ?1 AND sha256 = ?2",
                            params![run_id, sha],
                            |row| row.get(0),
                        )
                        .map_err(self.sql("read an offline request's screenshot"))?;
                    *s = crate::agent::format::data_url(&png);
                }
                Ok(())
            }
            serde_json::Value::Array(items) => items
                .iter_mut()
                .try_for_each(|i| self.restore_images(run_id, i)),
            serde_json::Value::Object(map) => map
                .values_mut()
                .try_for_each(|i| self.restore_images(run_id, i)),
            _ => Ok(()),
        }
    }

    /// Whether `run_id` is an offline run (its config's `mode` is `steps`).
    pub fn is_offline(&self, run_id: &str) -> Result<bool, StoreError> {
        Ok(self
            .run(run_id)?
            .is_some_and(|r| r.config.get("mode").and_then(|m| m.as_str()) == Some("steps")))
    }
}

/// What a stored request holds in place of a screenshot: this, then the
/// PNG's sha256.
const IMAGE_REF: &str = "offline-image:sha256:";

/// Replace every PNG data URL in `v` by [`IMAGE_REF`] and its digest,
/// collecting (digest, PNG bytes). A URL that is not base64 is left as it is.
fn keep_images(v: &mut serde_json::Value, out: &mut Vec<(String, Vec<u8>)>) {
    use base64::Engine as _;
    match v {
        serde_json::Value::String(s) => {
            let Some(b64) = s.strip_prefix("data:image/png;base64,") else {
                return;
            };
            let Ok(png) = base64::engine::general_purpose::STANDARD.decode(b64) else {
                return;
            };
            let sha = super::sha256_hex(&png);
            *s = format!("{IMAGE_REF}{sha}");
            out.push((sha, png));
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|i| keep_images(i, out)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|i| keep_images(i, out)),
        _ => {}
    }
}
