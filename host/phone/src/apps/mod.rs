//! The apps a phone under test runs, as data every backend reads: the
//! launcher's catalogue (labels and packages), the Settings app's definition
//! (screens, rows, and the state keys with their defaults, which the oracle
//! watches on every phone), the Clock app's alarms, what a task variant
//! changes, the setup one episode starts from, and the apps defined as data
//! over the phone's records (`defs`, `fixtures/sim/apps/`). Nothing here drives a
//! phone; `sim` draws these apps and `adb` writes their starting state.

mod alarm;
mod catalogue;
pub mod defs;
mod settings;
mod setup;
mod variant;
mod world;

pub use crate::records::InitialRecord;
pub use alarm::{Alarm, ALARMS_KEY};
pub use catalogue::{app_labels, APPS};
pub(crate) use catalogue::{CLOCK, LAUNCHER, SETTINGS};
pub use settings::{DefinitionError, RowDef, RowProblem, ScreenDef, SettingsApp, UnknownRow};
pub use setup::{PhoneSetup, SetupError};
pub use variant::{Decoy, Reorder, Variant};
