//! Running a suite: the plan (episodes, seeds, shards, resume) and the
//! provenance stamped on every run.

mod execute;
mod plan;
mod provenance;
mod record;

pub use execute::{execute, AgentFactory, RunError};
pub use plan::{plan, select_variants, Planned, Shard, UnknownVariant};
pub use provenance::provenance;
pub use record::{EpisodeKey, Recording};
