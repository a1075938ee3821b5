//! The adb backend: phones driven through the adb server. `transport` reaches
//! a phone (the trait, and `adb_client` behind it), `phone` is the `Phone`
//! trait over it, `deploy` pushes files,
//! forwards ports and runs background processes (`DeployTarget`);
//! `private_server` runs adb's server on a port of its own for tests. `shell` quotes for the phone's `sh -c` and recovers exit codes
//! from an echoed marker; `screencap` parses raw screenshots;
//! `virtual_phone` names what a virtual phone answers to; `appdata` reads
//! and writes the apps' own databases on a rooted phone.

mod access;
mod appdata;
mod deploy;
mod phone;
mod private_server;
mod screencap;
mod shell;
mod transport;
mod virtual_phone;

pub use access::Access;
pub use deploy::Background;
pub use phone::{AdbOptions, AdbPhone};
pub use private_server::{free_port, AdbServerError, PrivateAdbServer, EMULATOR_PORTS};
pub(crate) use screencap::raw_to_png;
pub use screencap::{RawScreencap, ScreencapError};
#[cfg(test)]
pub(crate) use shell::split_exit_marker;
pub(crate) use shell::with_exit_marker;
pub use shell::{quote, TextRefusal};
pub(crate) use transport::take_marker;
pub use transport::{
    devices, server_address, AdbError, Deadlines, Listed, ServerTransport, ShellResult, Transport,
};
pub(crate) use virtual_phone::{APP_DATA_URI, VIRTUAL_PHONE_MANUFACTURER};
