//! Backends: where episodes run. A backend hands one worker a phone in a task
//! instance's initial state for each episode — the simulator builds a fresh
//! phone, adb resets the worker's own phone — or says plainly why this
//! instance cannot run there. The runner holds backends only through this
//! trait, so a new kind of phone needs no change there. `sim` is the
//! simulator's, `adb` a phone's over adb (the virtual phone's too).

mod adb;
mod sim;
mod virtual_phone;

pub use adb::{prepare_adb_phone, AdbBackend, ServingBackend};
pub use sim::SimBackend;
pub use virtual_phone::VirtualBackend;

use droidscore_phone::{Condition, Phone, PhoneError};

use crate::task::Instance;

/// Whether an episode can run on the phone a backend prepared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prepared {
    /// [`Backend::phone`] is in the instance's initial state.
    Ready,
    /// The episode is skipped; the reason is recorded with it.
    Skip(String),
}

/// One worker's source of phones. Errors are infrastructure failures: the
/// episode is retried once after [`Backend::recover`].
pub trait Backend: Send {
    /// Put a phone in `instance`'s initial state (its variant, initial
    /// values and alarms, with `episode_seed`) and on the home screen.
    fn prepare(&mut self, instance: &Instance, episode_seed: u64) -> Result<Prepared, PhoneError>;
    /// The phone the last [`Prepared::Ready`] prepared, for the episode.
    fn phone(&mut self) -> &mut dyn Phone;
    /// After an infrastructure failure: wait (bounded) until the phone can
    /// be used again, or say why it cannot.
    fn recover(&mut self) -> Result<(), PhoneError> {
        Ok(())
    }
    /// The device condition the next episodes run in (`run --conditions`),
    /// said before each episode's [`Backend::prepare`]. A backend that
    /// cannot change its phone's condition ignores it (the test doubles).
    fn set_condition(&mut self, condition: Condition) -> Result<(), PhoneError> {
        let _ = condition;
        Ok(())
    }
    /// Put the phone back as it came, after the worker's last episode —
    /// also when the run stopped early.
    fn restore_condition(&mut self) -> Result<(), PhoneError> {
        Ok(())
    }
    /// `--agent-cmd`: how a program reaches the prepared phone over adb;
    /// none when this backend's phone cannot be handed to one.
    fn handoff(&mut self) -> Option<Handoff> {
        None
    }
    /// After the program ended: make [`Backend::phone`] read the state it
    /// left (a virtual phone's simulator is copied back for scoring).
    fn take_back(&mut self) -> Result<(), PhoneError> {
        Ok(())
    }
}

/// A phone handed to a program that drives it over adb.
#[derive(Debug, Clone)]
pub struct Handoff {
    /// `ANDROID_SERIAL`.
    pub serial: String,
    /// `ANDROID_ADB_SERVER_PORT`, when the phone sits behind a server of
    /// its own (the virtual phone's); none: the caller's server.
    pub adb_server_port: Option<u16>,
    /// The virtual phone, which records the program's commands and bounds
    /// its actions; none for a real phone, whose commands cannot be seen.
    pub virtual_phone: Option<std::sync::Arc<droidscore_phone::vphone::VirtualPhone>>,
}
