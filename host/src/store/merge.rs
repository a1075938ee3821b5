//! Combining stores: `droidscore report --merge a.db b.db` after `--shard 1/2`
//! and `--shard 2/2` ran on two machines with the same `--run-id`.
//!
//! Merging is a union of rows by key, in one transaction on the target:
//! - A run id new to the target is copied. A run id already there is the same
//!   run split across shards: it must agree on what makes numbers comparable
//!   (`suite_hash` and `model`); the target keeps its own run row (started_at,
//!   config, provenance), so the shards' other hosts are not recorded.
//!   Distinct run ids simply sit side by side, as in any store.
//! - An episode new to the target is copied with all its steps. One already
//!   there must be identical, steps included (merging the same shard twice is
//!   a no-op); if it differs the merge fails naming the key and the fields,
//!   and the target is left as it was.

use std::path::Path;

use super::{EpisodeRecord, RunRecord, StepRecord, Store, StoreError};

/// What a merge did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeSummary {
    /// Runs copied because the target did not have them.
    pub runs_added: usize,
    /// Runs the target already had (shards of the same run).
    pub runs_joined: usize,
    /// Episodes copied, with their steps.
    pub episodes_added: usize,
    /// Episodes the target already had, identical.
    pub episodes_already_present: usize,
}

/// Merge the stores at `from` into `into` (see the module docs). All or nothing:
/// on error `into` is unchanged.
pub fn merge<P: AsRef<Path>>(into: &Store, from: &[P]) -> Result<MergeSummary, StoreError> {
    // Open every source before taking the target's write lock.
    let sources = from
        .iter()
        .map(Store::open_existing)
        .collect::<Result<Vec<_>, _>>()?;
    let tx = into.begin_write()?;
    let mut summary = MergeSummary::default();
    for source in &sources {
        merge_one(into, source, &mut summary)?;
    }
    tx.commit().map_err(into.sql("commit the merge"))?;
    Ok(summary)
}

fn merge_one(into: &Store, from: &Store, summary: &mut MergeSummary) -> Result<(), StoreError> {
    for run in from.runs()? {
        match into.run(&run.id)? {
            None => {
                into.insert_run(&run)?;
                summary.runs_added += 1;
            }
            Some(existing) => {
                check_same_run(into, from, &existing, &run)?;
                summary.runs_joined += 1;
            }
        }
        for episode in from.episodes(&run.id)? {
            let steps = from.steps(&run.id, &episode.task, &episode.variant, episode.repeat)?;
            let existing =
                into.episode(&run.id, &episode.task, &episode.variant, episode.repeat)?;
            match existing {
                None => {
                    into.insert_episode(&episode, &steps)?;
                    summary.episodes_added += 1;
                }
                Some(existing) => {
                    let existing_steps =
                        into.steps(&run.id, &episode.task, &episode.variant, episode.repeat)?;
                    check_same_episode(
                        into,
                        from,
                        (&existing, &existing_steps),
                        (&episode, &steps),
                    )?;
                    summary.episodes_already_present += 1;
                }
            }
        }
    }
    Ok(())
}

fn check_same_run(
    into: &Store,
    from: &Store,
    ours: &RunRecord,
    theirs: &RunRecord,
) -> Result<(), StoreError> {
    let (a, b) = (&ours.provenance, &theirs.provenance);
    let detail = if a.suite_hash != b.suite_hash {
        format!(
            "task suite hash {} here, {} there",
            a.suite_hash, b.suite_hash
        )
    } else if a.model != b.model {
        format!("model {:?} here, {:?} there", a.model, b.model)
    } else {
        return Ok(());
    };
    Err(conflict(into, from, format!("run {}", ours.id), detail))
}

fn check_same_episode(
    into: &Store,
    from: &Store,
    (ours, our_steps): (&EpisodeRecord, &[StepRecord]),
    (theirs, their_steps): (&EpisodeRecord, &[StepRecord]),
) -> Result<(), StoreError> {
    let what = || {
        format!(
            "episode {} / {} / repeat {} of run {}",
            ours.task, ours.variant, ours.repeat, ours.run_id
        )
    };
    if ours != theirs {
        let fields = differing_fields(ours, theirs);
        return Err(conflict(into, from, what(), format!("fields {fields}")));
    }
    if our_steps.len() != their_steps.len() {
        let detail = format!(
            "{} steps here, {} there",
            our_steps.len(),
            their_steps.len()
        );
        return Err(conflict(into, from, what(), detail));
    }
    for (a, b) in our_steps.iter().zip(their_steps) {
        if a != b {
            let fields = differing_fields(a, b);
            let detail = format!("step {}: fields {fields}", a.index);
            return Err(conflict(into, from, what(), detail));
        }
    }
    Ok(())
}

/// The names of the top-level fields that differ, comma-separated.
fn differing_fields<T: serde::Serialize>(a: &T, b: &T) -> String {
    let (a, b) = (serde_json::to_value(a), serde_json::to_value(b));
    let (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) = (a, b) else {
        return "(not comparable)".into();
    };
    let names: Vec<&str> = a
        .iter()
        .filter(|(name, value)| b.get(*name) != Some(value))
        .map(|(name, _)| name.as_str())
        .collect();
    names.join(", ")
}

fn conflict(into: &Store, from: &Store, what: String, detail: String) -> StoreError {
    StoreError::MergeConflict {
        into: into.path().to_owned(),
        from: from.path().to_owned(),
        what,
        detail,
    }
}
