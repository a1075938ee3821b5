//! droidscore: score agents that operate Android phones from the phone's own state.
//!
//! The data path of one episode:
//! task → phone (sim | adb) → observation → agent → action → phone → state → oracle → store → report.
//! The phones are the `droidscore-phone` crate (`host/phone/`), which knows
//! nothing of tasks or agents; this crate holds everything that does:
//! `task` loads task files, `run` sets a run up from its options, plans it
//! and prepares a phone per episode (`run::backend`), `episode` runs one
//! task instance, `agent` decides actions, `model_server` starts the model
//! server an agent asks when no endpoint is given (here or on the phone),
//! `oracle` scores the phone's state, `check` proves oracles honest,
//! `store` keeps runs in SQLite, `report` prints them, `cli` is the command
//! line (one file per subcommand) and `exit` its exit codes. `cli::bench`
//! is `droidscore bench`, a front for the harness crate
//! `droidscore-harness` (`host/harness/`), which runs and judges memory and
//! speed comparisons (arms as subprocesses).

pub mod agent;
pub mod agent_cmd;
pub mod check;
pub mod cli;
pub mod episode;
pub mod exit;
pub mod model_server;
pub mod offline;
pub mod oracle;
pub mod report;
pub mod run;
pub mod store;
pub mod task;
#[cfg(test)]
mod test_support;
