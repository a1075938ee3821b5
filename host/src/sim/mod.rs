//! The simulator phone: Settings and Clock on a 1080×2400 screen, emitting real
//! uiautomator XML and PNG screenshots, deterministic for a task, variant and seed.
//!
//! `app` holds the Settings app as data, `layout` turns state into a view tree,
//! `phone` runs it behind the `Phone` trait, `render` draws it, `variant`
//! describes what a variant changes.

mod app;
pub mod brightness;
mod cmd;
pub mod layout;
mod phone;
pub mod render;
mod state;
mod variant;
mod view;

pub use app::SettingsApp;
pub use cmd::{ClockTab, Cmd, Dialog, Field, Screen};
pub use phone::{SimConfig, SimPhone, ALARMS_KEY};
pub use state::{Alarm, State};
pub use variant::{Decoy, Reorder, Variant};
pub use view::{Style, TextSize, View};

/// Errors building a simulated phone.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("variant {0:?}: {1}")]
    Variant(String, String),
    #[error("initial state names {0:?}, which the simulator does not have (see fixtures/sim/settings.toml [defaults])")]
    UnknownKey(String),
}
