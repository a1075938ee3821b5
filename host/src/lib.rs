//! droidscore: score agents that operate Android phones from the phone's own state.
//!
//! The data path, one module per arrow:
//! task → phone (sim | adb) → observation → agent → action → phone → state → oracle → report.
//! `task` loads task files, `apps` describes the apps a phone runs (catalogue,
//! Settings keys, variants, alarms) for every backend, `phone` is the boundary
//! trait and the `Backend` that prepares a phone per episode, `sim` the simulator
//! behind it, `uiautomator` the dump format, `agent` decides actions, `episode`
//! runs one task instance, `oracle` scores it, `check` proves oracles honest,
//! `report` prints tables, `cli` is the command line, `exit` its exit codes. `adbd` serves a phone
//! over adb's own wire protocol, so the real `adb` can drive the simulator.
//! `cli::bench` is `droidscore bench`, a front for the harness crate
//! `droidscore-bench` (`host/bench/`), which runs and judges memory and speed
//! comparisons (arms as subprocesses).

pub mod adb;
pub mod adbd;
pub mod agent;
pub mod apps;
pub mod check;
pub mod cli;
pub mod episode;
pub mod exit;
pub mod oracle;
pub mod phone;
pub mod records;
pub mod report;
pub mod run;
pub mod sim;
pub mod store;
pub mod task;
#[cfg(test)]
mod test_phone;
pub mod uiautomator;
pub mod vphone;
