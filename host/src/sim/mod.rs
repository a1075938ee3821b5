//! The simulator phone: Settings and Clock on a 1080×2400 screen, emitting real
//! uiautomator XML and PNG screenshots, deterministic for a task, variant and seed.

mod cmd;
pub mod render;
mod view;

pub use cmd::Cmd;
pub use view::{Style, TextSize, View};
