//! Running a suite: the plan (episodes, seeds, shards, resume), executing it
//! (and stopping early on a signal), and the provenance stamped on every run.

mod execute;
mod interrupt;
mod plan;
mod provenance;
mod record;

pub use execute::{execute, AgentFactory, RunError};
pub use interrupt::{signal_name, Interrupt};
pub use plan::{plan, select_variants, with_seeds, Planned, Shard, UnknownVariant};
pub use provenance::provenance;
pub use record::{EpisodeKey, Recording};
