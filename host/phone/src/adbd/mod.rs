//! The device side of adb's wire protocol: a TCP server that speaks adbd's
//! transport, so the real `adb` (`adb connect 127.0.0.1:PORT`) drives whatever
//! phone stands behind a [`Device`] — the "virtual phone" of DESIGN.md.
//!
//! `packet` is the 24-byte header and its payload, `connection` one adb
//! server's connection (handshake, streams, flow control), `service` the
//! `shell:`/`shell,v2,…:`/`exec:` services, `sync` the `sync:` file service,
//! `relay` the `tcp:PORT` service (what `adb forward` opens), `server` the
//! listener and its threads, `faults` a phone told to drop or stall.
//! Everything device-specific is behind [`Device`]; this module only
//! carries bytes. [`FakeDevice`] is the smallest phone behind it, which the
//! wire tests here and the real-adb tests (host/tests/integration/adb/adbd.rs)
//! serve.

#[cfg(test)]
mod bound_tests;
mod connection;
mod fake_device;
pub mod faults;
#[cfg(test)]
pub(crate) mod fuzz_tests;
mod packet;
mod relay;
mod server;
#[cfg(test)]
mod server_tests;
mod service;
mod sync;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod wire_tests;

pub use fake_device::FakeDevice;
pub use server::{raise_open_file_limit, Server, ServerHandle, ACCEPT_BACKOFF, MAX_CONNECTIONS};

/// What a shell command printed and how it exited.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellOutput {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub exit: u8,
}

impl ShellOutput {
    /// Exit status 0 with `stdout`.
    pub fn ok(stdout: impl Into<Vec<u8>>) -> Self {
        Self {
            stdout: stdout.into(),
            stderr: Vec::new(),
            exit: 0,
        }
    }

    /// Exit status `exit` with `stderr` and a newline.
    pub fn fail(exit: u8, stderr: impl std::fmt::Display) -> Self {
        Self {
            stdout: Vec::new(),
            stderr: format!("{stderr}\n").into_bytes(),
            exit,
        }
    }
}

/// A sync request the device refused: the text of the FAIL packet that
/// answers it, as adbd words it ("No such file or directory").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SyncFail(pub String);

impl From<&str> for SyncFail {
    fn from(message: &str) -> Self {
        SyncFail(message.to_string())
    }
}

/// One entry of a sync LIST answer (a DENT): its name within the directory
/// and its lstat's mode, size and mtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    pub name: String,
    pub mode: u32,
    pub size: u32,
    pub mtime: u32,
}

/// What adbd answers `root:` or `unroot:` (AOSP packages/modules/adb
/// daemon/restart_service.cpp, `restart_root_service` and
/// `restart_unroot_service`), and whether adbd then restarts. A restart
/// ends the connection once the answer is out, as adbd's exit ends it: the
/// adb client, having read `restarting`, waits for the device to go away
/// and come back (client/commandline.cpp, `adb_root`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restart {
    pub message: String,
    pub restarts: bool,
}

impl Restart {
    /// adbd answers and goes on as it was.
    pub fn stays(message: &str) -> Restart {
        Restart {
            message: message.to_string(),
            restarts: false,
        }
    }

    /// adbd answers, then restarts.
    pub fn restarts(message: &str) -> Restart {
        Restart {
            message: message.to_string(),
            restarts: true,
        }
    }
}

/// The phone behind the wire: everything device-specific. Called from the
/// connection threads, so Send + Sync; implementors lock their own state.
pub trait Device: Send + Sync {
    /// The CNXN banner's system identity, e.g. "device::ro.product.name=droidscore_sim;ro.product.model=droidscore_sim;ro.product.device=droidscore_sim;features=shell_v2,cmd".
    /// Without `shell_v2` in `features` the adb client falls back to `shell:`
    /// (stdout and stderr merged, no exit status).
    fn banner(&self) -> String;
    /// Run one command line (the text after `shell:` / `shell,v2,...:` / `exec:`).
    fn shell(&self, command: &str) -> ShellOutput;
    /// sync SEND: a file was pushed (path, mode, mtime, bytes). `mode` is as
    /// the client sent it: the local file's `st_mode`, e.g. `0o100644`;
    /// `mtime` is what its DONE carried (seconds since the epoch), which
    /// adbd sets on the file.
    fn push(&self, path: &str, mode: u32, mtime: u32, data: Vec<u8>) -> Result<(), SyncFail>;
    /// sync RECV: the file at path, or why not (e.g. "No such file or directory").
    fn pull(&self, path: &str) -> Result<Vec<u8>, SyncFail>;
    /// sync STAT/LSTAT: (mode, size, mtime) or None when absent. `mode` is a
    /// full `st_mode` with the file type: `0o100644` for a file, `0o040755`
    /// for a directory (`adb push` to a directory appends the file's name).
    fn stat(&self, path: &str) -> Option<(u32, u32, u32)>;
    /// sync LIST: the directory's entries as adbd's `readdir` gives them
    /// (`.` and `..` included), each with its lstat; empty when `path` is
    /// no directory (adbd answers DONE alone then). By default empty.
    fn list(&self, path: &str) -> Vec<DirEntry> {
        let _ = path;
        Vec::new()
    }
    /// The errno a sync STA2/LST2 answers for a path [`Device::stat`] has no
    /// answer for: ENOENT (2, Linux numbering) by default; EACCES (13) for
    /// a path adbd may not look at.
    fn stat_errno(&self, path: &str) -> u32 {
        let _ = path;
        2
    }
    /// `root:` (`root` true) or `unroot:`. By default as adbd answers on a
    /// production (`user`) build, which never runs as root.
    fn restart_adbd(&self, root: bool) -> Restart {
        Restart::stays(if root {
            "adbd cannot run as root in production builds\n"
        } else {
            "adbd not running as root\n"
        })
    }
    /// `tcp:PORT`: a connection to PORT on the device's own loopback, which
    /// `adb forward tcp:LOCAL tcp:PORT` relays. By default refused, as adbd
    /// refuses a port nothing listens on.
    fn connect_tcp(&self, port: u16) -> std::io::Result<std::net::TcpStream> {
        Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            format!("nothing listens on tcp:{port} on this device"),
        ))
    }
}
