//! The harness behind `droidscore bench` (its command line is the
//! `droidscore` crate's `cli/bench.rs`): it runs arms (subprocesses) in rotated
//! order over several passes, reads each arm's figures from its stdout, and
//! judges them — the best sample in each key's declared direction, NOT A
//! RANKING where the gap is inside the arms' own spread, passes labelled
//! contended when something else kept the cores busy, and a regression gate
//! against expectations. The probes measure what the arms report: memory at
//! start-up and with a filled context (`probes::init_memory`), and where a
//! process's memory is (`probes::ledger`).
//!
//! One file per concept: `spec` (the arms file, key directions), `cpu`
//! (`/proc/stat`), `process` (process trees), `smaps` (resident memory),
//! `figures` (reading an arm's stdout), `runner` (passes, contention),
//! `summary` (statistics and the ranking rule), `check` (expectations),
//! `cache` (shared-cache warnings), `provenance`, `report` (one comparison
//! end to end), `output` (JSON, Markdown, terminal), `sys` (the unsafe
//! kernel calls).

pub mod cache;
pub mod check;
pub mod cpu;
mod error;
pub mod figures;
pub mod output;
pub mod probes;
pub mod process;
pub mod provenance;
pub mod report;
pub mod runner;
pub mod smaps;
pub mod spec;
pub mod summary;
pub mod sys;

pub use error::BenchError;
pub use report::{compare, BenchReport, Config};
