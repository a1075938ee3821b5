//! The simulator phone: Settings and Clock on a 1080×2400 screen, emitting real
//! uiautomator XML and PNG screenshots, deterministic for a task, variant and seed.
//!
//! The apps it runs are data in `crate::apps`; `layout` turns state into a view tree,
//! `phone` runs it behind the `Phone` trait, `backend` gives a run a fresh
//! phone per episode, `render` draws it, `row`
//! says what a Settings row does.

mod backend;
pub mod brightness;
mod cmd;
pub mod layout;
mod phone;
pub mod render;
mod row;
mod state;
mod view;

pub use backend::SimBackend;
pub use cmd::{ClockTab, Cmd, Dialog, Field, Screen};
pub use phone::SimPhone;
pub use state::State;
pub use view::{Style, TextSize, View};
