//! The offline mode, `droidscore steps` (AndroidControl and AITW style):
//! the reference solution is replayed and the agent is asked at each of its
//! steps what it would do, on the screen and with the history it would have
//! online had it followed the reference so far; its answer is scored against
//! the reference's step by named, versioned matchers. Credit short of
//! success, so that agents which all fail every task online can still be
//! told apart.
//!
//! `step` reduces answers and reference steps to what matchers compare,
//! `matchers` holds the rules (one file each), `replay` runs one episode,
//! `metrics` sums a run up per matcher, `judge` scores steps read from a
//! file (`steps judge`), `run` sets a run up from `run`'s own
//! options (the same agents and model server) and records it in the store.

pub mod judge;
pub mod matchers;
pub mod metrics;
pub mod replay;
#[cfg(test)]
mod replay_tests;
mod run;
pub mod step;

pub use metrics::{matcher_names, summarize, MatcherScore, OfflineSummary};
pub use replay::{goal_with, rejudge, replay, End, OfflineEpisode, StepResult};
pub use run::{run_offline, OfflineError, OfflineOptions, OfflineRun};
