//! Running a suite: the plan (episodes, seeds, shards, resume) and the
//! provenance stamped on every run.

mod plan;
mod provenance;

pub use plan::{plan, select_variants, Planned, Shard};
pub use provenance::{provenance, suite_hash};
