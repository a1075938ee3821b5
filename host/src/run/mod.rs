//! Running a suite: [`run_suite`] sets a run up from its [`RunOptions`]
//! (the model server, the endpoint, the phones, the run's record) and
//! executes it; the plan (episodes, seeds, shards, resume), executing it
//! (and stopping early on a signal), and the provenance stamped on every
//! run are its parts.

mod adb_phones;
pub mod backend;
mod conditions;
#[cfg(test)]
mod conditions_tests;
mod endpoint;
mod error;
mod execute;
mod interrupt;
mod options;
mod plan;
mod provenance;
mod recording;
mod setup;
mod shard;
mod start;

pub use adb_phones::{AdbDevices, PhonesError};

pub(crate) use adb_phones::one_phone;
pub use conditions::{BadConditions, Conditions};
pub use error::{Kept, RunSuiteError};
pub use execute::{execute, AgentFactory, RunError};
pub(crate) use interrupt::signal_name;
pub use interrupt::Interrupt;
pub use options::{AgentKind, PhoneKind, RunOptions, ServerOptions};
pub(crate) use plan::select_variants;
pub use plan::{plan, plan_in, with_instances, Planned, UnknownVariant};
pub use provenance::provenance;
pub use recording::{EpisodeKey, Recording};
pub(crate) use setup::run_suite;
// `droidscore steps` builds its agents as `run` does.
pub(crate) use endpoint::llm_config;
pub(crate) use setup::{agent_kind, agents, async_runtime, reason_for, start_server};
pub use setup::{Finished, Watch};
pub use shard::{from_env as shard_from_env, BadShard, Shard, ShardEnvError, ShardSource};
pub(crate) use start::{run_config, start_run};
