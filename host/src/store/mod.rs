//! The run store: runs, episodes and steps in SQLite (WAL), so a run survives a
//! crash or Ctrl-C and `--resume` continues it without redoing or double-counting.

mod records;

pub use records::{EpisodeRecord, EpisodeStatus, Provenance, RunRecord, StepRecord};
