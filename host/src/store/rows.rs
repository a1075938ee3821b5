//! Records to rows and back: the column lists, the inserts, and the decoding
//! of JSON columns (a decoding failure names the row, not just "bad JSON").

use rusqlite::{params, CachedStatement, Connection, Row};

use std::path::Path;

use super::{EpisodeRecord, EpisodeStatus, RunRecord, StepRecord, StoreError};

pub(super) const RUN_COLUMNS: &str = "id, started_at, config, provenance";

pub(super) const EPISODE_COLUMNS: &str = "run_id, task, variant, repeat, episode_seed, status, \
     end_json, verdict_json, reason, steps, invalid_steps, attempts, started_at, ended_at, \
     instance_seed, params_json, answer, progress_json, condition";

pub(super) const STEP_COLUMNS: &str = "run_id, task, variant, repeat, idx, observation_digest, \
     ui_dump_gz, screenshot, raw_output, action_json, invalid_reason, tap_x, tap_y, \
     prompt_tokens, completion_tokens, latency_ms, observe_json, cached_tokens";

pub(super) const INSERT_STEP: &str = "INSERT INTO steps (run_id, task, variant, repeat, idx, \
     observation_digest, ui_dump_gz, screenshot, raw_output, action_json, invalid_reason, \
     tap_x, tap_y, prompt_tokens, completion_tokens, latency_ms, observe_json, cached_tokens) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)";

fn status_name(status: EpisodeStatus) -> &'static str {
    match status {
        EpisodeStatus::Success => "success",
        EpisodeStatus::Failure => "failure",
        EpisodeStatus::Skipped => "skipped",
        EpisodeStatus::Infra => "infra",
    }
}

fn status_from_name(name: &str) -> Option<EpisodeStatus> {
    Some(match name {
        "success" => EpisodeStatus::Success,
        "failure" => EpisodeStatus::Failure,
        "skipped" => EpisodeStatus::Skipped,
        "infra" => EpisodeStatus::Infra,
        _ => return None,
    })
}

pub(super) fn insert_episode(conn: &Connection, e: &EpisodeRecord) -> rusqlite::Result<()> {
    conn.execute(
        &format!(
            "INSERT INTO episodes ({EPISODE_COLUMNS}) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)"
        ),
        params![
            e.run_id,
            e.task,
            e.variant,
            e.repeat,
            // Bit for bit: seeds use all 64 bits, SQLite integers are signed.
            e.episode_seed as i64,
            status_name(e.status),
            e.end.to_string(),
            serde_json::to_string(&e.verdict).unwrap_or_default(),
            e.reason,
            e.steps,
            e.invalid_steps,
            e.attempts,
            e.started_at,
            e.ended_at,
            e.instance_seed.map(|s| s as i64),
            e.params
                .as_ref()
                .map(|p| serde_json::to_string(p).unwrap_or_default()),
            e.answer,
            e.progress
                .as_ref()
                .map(|p| serde_json::to_string(p).unwrap_or_default()),
            e.condition,
        ],
    )?;
    Ok(())
}

pub(super) fn insert_step(
    insert: &mut CachedStatement<'_>,
    s: &StepRecord,
) -> rusqlite::Result<()> {
    insert.execute(params![
        s.run_id,
        s.task,
        s.variant,
        s.repeat,
        s.index,
        s.observation_digest,
        s.ui_dump_gz,
        s.screenshot,
        s.raw_output,
        s.action.to_string(),
        s.invalid_reason,
        s.tap.map(|(x, _)| x),
        s.tap.map(|(_, y)| y),
        s.prompt_tokens,
        s.completion_tokens,
        s.latency_ms,
        s.observe
            .as_ref()
            .map(|t| serde_json::to_string(t).unwrap_or_default()),
        s.cached_tokens,
    ])?;
    Ok(())
}

/// Decode a JSON column; `what` names the column and row for the error.
fn json<T: serde::de::DeserializeOwned>(
    store: &Path,
    what: impl FnOnce() -> String,
    text: &str,
) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|err| StoreError::corrupt(store, what(), err.to_string()))
}

/// A `runs` row before its JSON columns are decoded.
pub(super) struct RawRun {
    id: String,
    started_at: String,
    config: String,
    provenance: String,
}

impl RawRun {
    pub(super) fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(RawRun {
            id: row.get(0)?,
            started_at: row.get(1)?,
            config: row.get(2)?,
            provenance: row.get(3)?,
        })
    }

    pub(super) fn decode(self, store: &Path) -> Result<RunRecord, StoreError> {
        let config = json(store, || format!("config of run {}", self.id), &self.config)?;
        let provenance = json(
            store,
            || format!("provenance of run {}", self.id),
            &self.provenance,
        )?;
        Ok(RunRecord {
            id: self.id,
            started_at: self.started_at,
            config,
            provenance,
        })
    }
}

/// An `episodes` row before its JSON columns are decoded.
pub(super) struct RawEpisode {
    record: EpisodeRecord,
    status: String,
    end: String,
    verdict: String,
    params: Option<String>,
    progress: Option<String>,
}

impl RawEpisode {
    pub(super) fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(RawEpisode {
            record: EpisodeRecord {
                run_id: row.get(0)?,
                task: row.get(1)?,
                variant: row.get(2)?,
                repeat: row.get(3)?,
                condition: row.get(18)?,
                episode_seed: row.get::<_, i64>(4)? as u64,
                status: EpisodeStatus::Failure,
                end: serde_json::Value::Null,
                verdict: None,
                reason: row.get(8)?,
                steps: row.get(9)?,
                invalid_steps: row.get(10)?,
                attempts: row.get(11)?,
                started_at: row.get(12)?,
                ended_at: row.get(13)?,
                instance_seed: row.get::<_, Option<i64>>(14)?.map(|s| s as u64),
                params: None,
                answer: row.get(16)?,
                progress: None,
            },
            status: row.get(5)?,
            end: row.get(6)?,
            verdict: row.get(7)?,
            params: row.get(15)?,
            progress: row.get(17)?,
        })
    }

    pub(super) fn decode(self, store: &Path) -> Result<EpisodeRecord, StoreError> {
        let r = &self.record;
        let what = |column: &str| {
            format!(
                "{column} of episode {} / {} / repeat {} of run {}",
                r.task, r.variant, r.repeat, r.run_id
            )
        };
        let status = status_from_name(&self.status).ok_or_else(|| {
            StoreError::corrupt(
                store,
                what("status"),
                format!("unknown status {:?}", self.status),
            )
        })?;
        let end = json(store, || what("end_json"), &self.end)?;
        let verdict = json(store, || what("verdict_json"), &self.verdict)?;
        let params = match &self.params {
            Some(text) => Some(json(store, || what("params_json"), text)?),
            None => None,
        };
        let progress = match &self.progress {
            Some(text) => Some(json(store, || what("progress_json"), text)?),
            None => None,
        };
        Ok(EpisodeRecord {
            status,
            end,
            verdict,
            params,
            progress,
            ..self.record
        })
    }
}

/// A `steps` row before its JSON column is decoded.
pub(super) struct RawStep {
    record: StepRecord,
    action: String,
    observe: Option<String>,
}

impl RawStep {
    pub(super) fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        let tap_x: Option<i32> = row.get(11)?;
        let tap_y: Option<i32> = row.get(12)?;
        Ok(RawStep {
            record: StepRecord {
                run_id: row.get(0)?,
                task: row.get(1)?,
                variant: row.get(2)?,
                repeat: row.get(3)?,
                index: row.get(4)?,
                observation_digest: row.get(5)?,
                ui_dump_gz: row.get(6)?,
                screenshot: row.get(7)?,
                raw_output: row.get(8)?,
                action: serde_json::Value::Null,
                invalid_reason: row.get(10)?,
                tap: tap_x.zip(tap_y),
                prompt_tokens: row.get(13)?,
                cached_tokens: row.get(17)?,
                completion_tokens: row.get(14)?,
                latency_ms: row.get(15)?,
                observe: None,
            },
            action: row.get(9)?,
            observe: row.get(16)?,
        })
    }

    pub(super) fn decode(self, store: &Path) -> Result<StepRecord, StoreError> {
        let r = &self.record;
        let what = || {
            format!(
                "action_json of step {} of episode {} / {} / repeat {} of run {}",
                r.index, r.task, r.variant, r.repeat, r.run_id
            )
        };
        let action = json(store, what, &self.action)?;
        let observe = match &self.observe {
            Some(text) => Some(json(
                store,
                || {
                    format!(
                        "observe_json of step {} of episode {} / {} / repeat {} of run {}",
                        r.index, r.task, r.variant, r.repeat, r.run_id
                    )
                },
                text,
            )?),
            None => None,
        };
        Ok(StepRecord {
            action,
            observe,
            ..self.record
        })
    }
}
