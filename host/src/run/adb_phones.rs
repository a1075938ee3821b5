//! The adb phones a run drives (`run --phone adb`), and the one phone `adb
//! latency` times or `device deploy|stop` and `run --on-device` put the
//! model server on: choosing devices (a serial, `all`, or the only one
//! attached) and connecting to each through the adb server with the run's
//! deadlines.

use std::time::Duration;

use droidscore_phone::adb::{self, AdbOptions, AdbPhone, Deadlines, ServerTransport};
use droidscore_phone::PhoneError;

/// Which adb phones to use (`--serial`), and how long to wait on them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdbDevices {
    /// A serial as `adb devices` lists it, `all` for every device in state
    /// `device`, or none: the only device attached.
    pub serial: Option<String>,
    /// Seconds to wait for a lost phone to come back before giving it up.
    pub device_wait: u64,
    /// Seconds any one phone command may take before the phone counts as lost.
    pub phone_timeout: u64,
}

/// Why no phone could be chosen.
#[derive(Debug, thiserror::Error)]
pub enum PhonesError {
    /// The choice asked is not one that can be made (said in words).
    #[error("{0}")]
    BadInput(String),
    #[error(transparent)]
    Phone(#[from] PhoneError),
}

impl AdbDevices {
    /// How long a worker waits for its lost phone.
    pub fn device_wait(&self) -> Duration {
        Duration::from_secs(self.device_wait)
    }

    /// The serials to drive: the one named, every attached device for
    /// `all`, or the only one attached.
    pub(crate) fn serials(&self) -> Result<Vec<String>, PhonesError> {
        if let Some(serial) = self.serial.as_deref().filter(|s| *s != "all") {
            return Ok(vec![serial.to_string()]);
        }
        let server = adb::server_address();
        let listed = adb::devices(server).map_err(|e| {
            PhoneError::Device(format!(
                "{e} (is the adb server running? `adb start-server`)"
            ))
        })?;
        let ready: Vec<String> = listed
            .iter()
            .filter(|d| d.state == "device")
            .map(|d| d.serial.clone())
            .collect();
        let described = || {
            listed
                .iter()
                .map(|d| format!("{} ({})", d.serial, d.state))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match (self.serial.as_deref(), ready.len()) {
            (_, 0) => Err(PhonesError::Phone(PhoneError::Device(format!(
                "no adb device in state `device`{}",
                if listed.is_empty() {
                    String::new()
                } else {
                    format!(": {}", described())
                }
            )))),
            (Some("all"), _) | (None, 1) => Ok(ready),
            (None, _) => Err(PhonesError::BadInput(format!(
                "more than one adb device ({}): pass --serial SERIAL, --serial all, or set ANDROID_SERIAL",
                described()
            ))),
            (Some(_), _) => unreachable!("a named serial returned above"),
        }
    }

    /// Connect to each chosen phone through the adb server.
    pub fn phones(&self) -> Result<Vec<AdbPhone>, PhonesError> {
        let server = adb::server_address();
        self.serials()?
            .into_iter()
            .map(|serial| {
                AdbPhone::new(
                    Box::new(ServerTransport::with_deadlines(
                        server,
                        &serial,
                        self.deadlines(),
                    )),
                    AdbOptions::default(),
                )
                .map_err(|e| PhonesError::Phone(PhoneError::Device(format!("{serial}: {e}"))))
            })
            .collect()
    }

    /// `--phone-timeout`: every command, and transfers 20 times as long.
    pub fn deadlines(&self) -> Deadlines {
        let command = Duration::from_secs(self.phone_timeout);
        Deadlines {
            shell: command,
            transfer: command * 20,
        }
    }
}

/// The one phone named (or the only one attached) that the model server
/// goes to, with the default waits.
pub(crate) fn one_phone(serial: Option<String>) -> Result<AdbPhone, PhonesError> {
    if serial.as_deref() == Some("all") {
        return Err(PhonesError::BadInput(
            "the model server goes to one phone: pass its serial, not `all`".into(),
        ));
    }
    let mut phones = AdbDevices {
        serial,
        device_wait: 60,
        phone_timeout: 30,
    }
    .phones()?;
    Ok(phones.remove(0))
}
