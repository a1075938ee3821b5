//! Running a suite: the plan (episodes, seeds, shards, resume), executing it
//! (and stopping early on a signal), and the provenance stamped on every run.

pub mod backend;
mod execute;
mod interrupt;
mod plan;
mod provenance;
mod record;
mod shard;

pub use execute::{execute, AgentFactory, RunError};
pub use interrupt::{signal_name, Interrupt};
pub use plan::{plan, select_variants, with_seeds, Planned, UnknownVariant};
pub use provenance::provenance;
pub use record::{EpisodeKey, Recording};
pub use shard::{from_env as shard_from_env, BadShard, Shard, ShardEnvError, ShardSource};
