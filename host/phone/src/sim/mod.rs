//! The simulator phone: Settings, Clock and the apps defined as data
//! (Contacts, Phone, Messages, Calendar, Files) on a 1080×2400 screen at 420
//! dpi by default, or the display a device condition or `wm size`/`wm
//! density`/rotation/font scale give it, emitting real uiautomator XML and
//! PNG screenshots, deterministic for a task, variant, condition and seed.
//!
//! The apps it runs are data in `crate::apps`; `layout` turns state into a view tree,
//! `query` reads what a data-defined screen shows from the records, `engine`
//! runs its actions,
//! `phone` runs it behind the `Phone` trait, `render` draws it, `row`
//! says what a Settings row does.

pub mod brightness;
mod cmd;
#[cfg(test)]
mod conditions_tests;
mod display;
mod edit;
mod engine;
#[cfg(test)]
mod flows;
pub mod layout;
mod phone;
mod query;
pub mod render;
mod row;
mod state;
mod view;

pub use cmd::{AppDialog, AppScreen, ClockTab, Cmd, Dialog, Field, Screen};
pub use display::{Display, Theme};
pub use phone::SimPhone;
pub use state::State;
pub use view::{Style, TextSize, View};
