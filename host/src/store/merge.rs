//! Combining stores: `droidscore report --merge a.db b.db` after `--shard 1/2`
//! and `--shard 2/2` ran on two machines with the same `--run-id`, or
//! `--merge DIR` over the folder the shards' stores were gathered in
//! ([`expand_sources`]: every `*.sqlite` in it, in name order).
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

use std::path::{Path, PathBuf};

use super::{EpisodeRecord, RunRecord, StepRecord, Store, StoreError};

/// A `--merge DIR` that names no store.
#[derive(Debug, thiserror::Error)]
pub enum SourcesError {
    #[error("--merge {}: could not list it: {source}", dir.display())]
    List {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("--merge {}: the directory holds no *.sqlite store{}", dir.display(),
        if *.skipped_target { " besides the target --store" } else { "" })]
    Empty { dir: PathBuf, skipped_target: bool },
}

/// The stores `--merge` names: each path as given, but a directory stands
/// for every `*.sqlite` file directly in it, sorted by name, less `target`
/// itself (so `--store shards/all.sqlite --merge shards` works).
pub(crate) fn expand_sources(
    paths: &[PathBuf],
    target: &Path,
) -> Result<Vec<PathBuf>, SourcesError> {
    let same = |p: &Path| match (p.canonicalize(), target.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    let mut out = Vec::new();
    for path in paths {
        if !path.is_dir() {
            out.push(path.clone());
            continue;
        }
        let list = |source| SourcesError::List {
            dir: path.clone(),
            source,
        };
        let mut found = Vec::new();
        for entry in std::fs::read_dir(path).map_err(list)? {
            let file = entry.map_err(list)?.path();
            if file.extension().is_some_and(|e| e == "sqlite") && file.is_file() {
                found.push(file);
            }
        }
        found.sort();
        let before = found.len();
        found.retain(|f| !same(f));
        if found.is_empty() {
            return Err(SourcesError::Empty {
                dir: path.clone(),
                skipped_target: before > 0,
            });
        }
        out.extend(found);
    }
    Ok(out)
}

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
    // Open every source before taking the target's write lock; a source is
    // only read, never written (not even migrated).
    let sources = from
        .iter()
        .map(Store::open_read_only)
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
    let mut names: Vec<&str> = a
        .iter()
        .filter(|(name, value)| b.get(*name) != Some(value))
        .map(|(name, _)| name.as_str())
        .collect();
    // In name order whatever serde_json's map keeps (its `preserve_order`
    // feature, which another crate in the build may turn on, keeps field order).
    names.sort_unstable();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{test_support as t, EpisodeStatus};

    /// A shard store at `dir/name` holding run `r1` and the given episodes.
    fn shard(dir: &t::ScratchDir, name: &str, episodes: &[EpisodeRecord]) -> std::path::PathBuf {
        let path = dir.join(name);
        let store = Store::open(&path).unwrap();
        let mut run = t::run("r1", "2026-11-30T04:35:12Z");
        run.provenance.host = name.into();
        store.create_run(&run).unwrap();
        for episode in episodes {
            store
                .record_episode(episode, &t::steps(episode, 2))
                .unwrap();
        }
        path
    }

    fn ep(task: &str, repeat: u32) -> EpisodeRecord {
        t::episode("r1", task, "base", repeat)
    }

    #[test]
    fn disjoint_shards_merge_into_their_union_with_steps() {
        let dir = t::ScratchDir::new("merge-disjoint");
        let a = shard(&dir, "a.db", &[ep("wifi_on", 0), ep("wifi_on", 1)]);
        let b = shard(&dir, "b.db", &[ep("alarm_7am", 0)]);
        let into = Store::open(dir.join("merged.db")).unwrap();
        let summary = merge(&into, &[&a, &b]).unwrap();
        assert_eq!(
            summary,
            MergeSummary {
                runs_added: 1,
                runs_joined: 1,
                episodes_added: 3,
                episodes_already_present: 0
            }
        );
        let expected = vec![ep("alarm_7am", 0), ep("wifi_on", 0), ep("wifi_on", 1)];
        assert_eq!(into.episodes("r1").unwrap(), expected);
        for episode in &expected {
            let steps = into
                .steps("r1", &episode.task, "base", episode.repeat)
                .unwrap();
            assert_eq!(steps, t::steps(episode, 2));
        }
        // The first shard's run row is kept.
        assert_eq!(into.run("r1").unwrap().unwrap().provenance.host, "a.db");
    }

    #[test]
    fn a_directory_stands_for_its_sqlite_files_in_name_order_less_the_target() {
        let dir = t::ScratchDir::new("merge-dir");
        let shards = dir.join("shards");
        std::fs::create_dir_all(shards.join("nested.sqlite")).unwrap();
        let b = shard(&dir, "shards/b.sqlite", &[ep("alarm_7am", 0)]);
        let a = shard(&dir, "shards/a.sqlite", &[ep("wifi_on", 0)]);
        std::fs::write(shards.join("notes.txt"), "not a store").unwrap();
        std::fs::write(shards.join("a.sqlite-wal"), "").unwrap();
        let target = shards.join("all.sqlite");
        let into = Store::open(&target).unwrap();
        let other = dir.join("c.db");
        let sources = expand_sources(&[shards.clone(), other.clone()], &target).unwrap();
        assert_eq!(sources, [a, b, other]);
        drop(into);

        let empty = dir.join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        let e = expand_sources(std::slice::from_ref(&empty), &target).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "--merge {}: the directory holds no *.sqlite store",
                empty.display()
            )
        );
        let only = dir.join("only");
        std::fs::create_dir_all(&only).unwrap();
        let lone = only.join("all.sqlite");
        Store::open(&lone).unwrap();
        let e = expand_sources(std::slice::from_ref(&only), &lone).unwrap_err();
        assert!(e.to_string().ends_with("besides the target --store"), "{e}");
    }

    #[test]
    fn identical_overlap_is_idempotent() {
        let dir = t::ScratchDir::new("merge-identical");
        let a = shard(&dir, "a.db", &[ep("wifi_on", 0), ep("wifi_on", 1)]);
        let b = shard(&dir, "b.db", &[ep("wifi_on", 1), ep("alarm_7am", 0)]);
        let into = Store::open(dir.join("merged.db")).unwrap();
        merge(&into, &[&a, &b]).unwrap();
        let again = merge(&into, &[&b, &a]).unwrap();
        assert_eq!(again.episodes_added, 0);
        assert_eq!(again.episodes_already_present, 4);
        assert_eq!(into.episodes("r1").unwrap().len(), 3);
    }

    #[test]
    fn conflicting_overlap_fails_naming_the_key_and_changes_nothing() {
        let dir = t::ScratchDir::new("merge-conflict");
        let mut failed = ep("wifi_on", 1);
        failed.status = EpisodeStatus::Failure;
        failed.reason = "settings global wifi_on is 0".into();
        let a = shard(&dir, "a.db", &[ep("wifi_on", 0), ep("wifi_on", 1)]);
        let b = shard(&dir, "b.db", &[ep("alarm_7am", 0), failed]);
        let into = Store::open(dir.join("merged.db")).unwrap();
        let err = merge(&into, &[&a, &b]).unwrap_err();
        let message = err.to_string();
        assert!(matches!(err, StoreError::MergeConflict { .. }), "{message}");
        assert!(message.contains("b.db"), "{message}");
        assert!(message.contains("merged.db"), "{message}");
        assert!(
            message.contains("episode wifi_on / base / repeat 1 of run r1"),
            "{message}"
        );
        assert!(
            message.contains("differs: fields reason, status"),
            "{message}"
        );
        // All or nothing: not even shard a went in.
        assert!(into.runs().unwrap().is_empty());
    }

    #[test]
    fn differing_steps_are_a_conflict_too() {
        let dir = t::ScratchDir::new("merge-steps");
        let a = shard(&dir, "a.db", &[ep("wifi_on", 0)]);
        let b_path = dir.join("b.db");
        let b = Store::open(&b_path).unwrap();
        b.create_run(&t::run("r1", "2026-11-30T04:35:12Z")).unwrap();
        let mut steps = t::steps(&ep("wifi_on", 0), 2);
        steps[1].latency_ms = 90.0;
        b.record_episode(&ep("wifi_on", 0), &steps).unwrap();
        let into = Store::open(dir.join("merged.db")).unwrap();
        let err = merge(&into, &[a, b_path]).unwrap_err();
        assert!(
            err.to_string().contains("step 1: fields latency_ms"),
            "{err}"
        );
    }

    #[test]
    fn shards_of_different_suites_are_not_one_run() {
        let dir = t::ScratchDir::new("merge-suite");
        let a = shard(&dir, "a.db", &[ep("wifi_on", 0)]);
        let b_path = dir.join("b.db");
        let b = Store::open(&b_path).unwrap();
        let mut run = t::run("r1", "2026-11-30T04:35:12Z");
        run.provenance.suite_hash = "9999".into();
        b.create_run(&run).unwrap();
        let into = Store::open(dir.join("merged.db")).unwrap();
        let err = merge(&into, &[a, b_path]).unwrap_err();
        assert!(
            err.to_string()
                .contains("task suite hash 5e1f here, 9999 there"),
            "{err}"
        );
    }

    #[test]
    fn distinct_runs_sit_side_by_side_and_a_missing_shard_is_named() {
        let dir = t::ScratchDir::new("merge-distinct");
        let a = shard(&dir, "a.db", &[ep("wifi_on", 0)]);
        let b_path = dir.join("b.db");
        let b = Store::open(&b_path).unwrap();
        b.create_run(&t::run("r2", "2026-11-30T06:00:00Z")).unwrap();
        let e = t::episode("r2", "wifi_on", "base", 0);
        b.record_episode(&e, &t::steps(&e, 1)).unwrap();
        let into = Store::open(dir.join("merged.db")).unwrap();
        merge(&into, &[&a, &b_path]).unwrap();
        assert_eq!(into.finished("r1").unwrap().len(), 1);
        assert_eq!(into.finished("r2").unwrap().len(), 1);
        assert_eq!(into.latest_run().unwrap().unwrap().id, "r2");

        let err = merge(&into, &[dir.join("c.db")]).unwrap_err();
        assert!(matches!(err, StoreError::Missing { .. }), "{err}");
        assert!(err.to_string().contains("c.db"), "{err}");
    }
}
