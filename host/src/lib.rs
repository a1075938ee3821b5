//! droidscore: score agents that operate Android phones from the phone's own state.
//!
//! The data path, one module per arrow:
//! task → phone (sim | adb) → observation → agent → action → phone → state → oracle → report.
//! `task` loads task files, `phone` is the boundary trait, `sim` the simulator
//! behind it, `uiautomator` the dump format, `agent` decides actions, `episode`
//! runs one task instance, `oracle` scores it, `check` proves oracles honest,
//! `report` prints tables, `cli` is the command line, `exit` its exit codes.
//! `adbd` serves a phone over adb's own wire protocol, so the real `adb` can
//! drive the simulator.
//! `bench` runs and judges memory and speed comparisons (arms as subprocesses).

pub mod adb;
pub mod adbd;
pub mod agent;
pub mod bench;
pub mod check;
pub mod cli;
pub mod episode;
pub mod exit;
pub mod oracle;
pub mod phone;
pub mod report;
pub mod run;
pub mod sim;
pub mod store;
pub mod task;
pub mod uiautomator;
pub mod vphone;
