//! The run store: runs, episodes and steps in SQLite (WAL), so a run survives a
//! crash or Ctrl-C and `--resume` continues it without redoing or double-counting.
//!
//! `records` is the shape of what is stored, `db` the [`Store`] and its writes,
//! `read` its queries, `schema` opening a file and migrating it, `rows` the mapping
//! between records and rows, `merge` combining shard stores, `codec` the gzip
//! and sha256 helpers steps need.

mod codec;
#[cfg(test)]
mod crash_tests;
mod db;
mod error;
mod merge;
mod offline;
#[cfg(test)]
mod old_store_tests;
mod read;
#[cfg(test)]
mod read_only_tests;
mod records;
mod rows;
mod schema;
#[cfg(test)]
pub(crate) mod test_support;

pub use codec::sha256_hex;

pub(crate) use codec::{gunzip, gzip};
pub use db::{EpisodeKey, Store};
pub use error::{Refusal, StoreError};
pub(crate) use merge::expand_sources;
pub use merge::{merge, MergeSummary, SourcesError};
pub use offline::OfflineKey;
pub use read::StepUsage;
pub use records::{EpisodeRecord, EpisodeStatus, Progress, Provenance, RunRecord, StepRecord};
