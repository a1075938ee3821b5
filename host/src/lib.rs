//! droidscore: score agents that operate Android phones from the phone's own state.
//!
//! The data path, one module per arrow:
//! task → phone (sim | adb) → observation → agent → action → phone → state → oracle → report.

pub mod phone;
pub mod sim;
pub mod uiautomator;
