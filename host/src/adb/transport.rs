//! How the adb backend reaches a phone: one trait, so the phone logic is
//! tested against the virtual phone in-process and runs on real phones through
//! the adb server (`adb_client`). Every call blocks; the runner calls them from
//! its worker threads, never from the async runtime the LLM agent uses.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::time::{Duration, Instant};

use adb_client::server::{ADBServer, DeviceState};
use adb_client::server_device::ADBServerDevice;
use adb_client::ADBDeviceExt;

use super::shell::{with_exit_marker, EXIT_MARKER};

/// What a shell command printed and how it exited.
#[derive(Debug, Clone, Default)]
pub struct ShellResult {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: i32,
}

impl ShellResult {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Stdout then stderr, for messages.
    pub fn all_text(&self) -> String {
        format!(
            "{}{}",
            String::from_utf8_lossy(&self.stdout),
            String::from_utf8_lossy(&self.stderr)
        )
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AdbError {
    /// The device is not there (unplugged, the virtual phone killed, offline).
    #[error("device {serial} lost: {why}")]
    Lost { serial: String, why: String },
    /// The adb server itself could not be reached or refused the request.
    #[error("adb server: {0}")]
    Server(String),
}

/// A phone reached over some adb transport.
pub trait Transport: Send {
    fn serial(&self) -> &str;
    /// Run one command line in the phone's `sh -c`. The status is the
    /// command's own, recovered from an echoed marker.
    fn shell(&mut self, command: &str) -> Result<ShellResult, AdbError>;
    /// `adb push`: write `data` to `remote` on the phone.
    fn push(&mut self, data: &[u8], remote: &str) -> Result<(), AdbError>;
    /// `adb forward LOCAL REMOTE`, e.g. `tcp:8080 tcp:8080`.
    fn forward(&mut self, local: &str, remote: &str) -> Result<(), AdbError>;
    /// Wait for the phone to be back (reconnecting a network device), at most `within`.
    fn wait_for_device(&mut self, within: Duration) -> Result<(), AdbError>;
}

/// Split the marker line off raw output: the bytes before it and the status.
/// Only the tail is searched: the marker is the last thing the command line
/// prints, so a marker-like text earlier in the output (a stream cut short
/// after printing one) never counts.
pub fn split_marker_bytes(output: &[u8]) -> (&[u8], Option<i32>) {
    let marker = EXIT_MARKER.as_bytes();
    let tail_from = output.len().saturating_sub(marker.len() + 16);
    let found = output[tail_from..]
        .windows(marker.len())
        .rposition(|w| w == marker)
        .map(|at| tail_from + at);
    match found {
        Some(at) => {
            let status = std::str::from_utf8(&output[at + marker.len()..])
                .ok()
                .and_then(|s| s.trim().parse().ok());
            (&output[..at], status)
        }
        None => (output, None),
    }
}

/// [`split_marker_bytes`] on an owned buffer, without copying the output.
pub fn take_marker(mut output: Vec<u8>) -> (Vec<u8>, Option<i32>) {
    let (kept, status) = split_marker_bytes(&output);
    let kept = kept.len();
    output.truncate(kept);
    (output, status)
}

/// The adb server's address: `ANDROID_ADB_SERVER_PORT` as the `adb` binary
/// reads it, else 5037, on loopback.
pub fn server_address() -> SocketAddrV4 {
    let port = std::env::var("ANDROID_ADB_SERVER_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(5037);
    SocketAddrV4::new(Ipv4Addr::LOCALHOST, port)
}

/// One device's line in `adb devices`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub serial: String,
    /// `device`, `offline`, `unauthorized`, …
    pub state: String,
}

/// Every device the adb server knows.
pub fn devices(server: SocketAddrV4) -> Result<Vec<Listed>, AdbError> {
    let mut adb = ADBServer::new(server);
    let list = adb
        .devices()
        .map_err(|e| AdbError::Server(format!("{server}: {e}")))?;
    Ok(list
        .into_iter()
        .map(|d| Listed {
            serial: d.identifier,
            state: d.state.to_string(),
        })
        .collect())
}

/// A device through the adb server (`adb -s SERIAL …`).
pub struct ServerTransport {
    server: SocketAddrV4,
    serial: String,
    device: ADBServerDevice,
}

impl std::fmt::Debug for ServerTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerTransport")
            .field("server", &self.server)
            .field("serial", &self.serial)
            .finish()
    }
}

impl ServerTransport {
    pub fn new(server: SocketAddrV4, serial: &str) -> ServerTransport {
        ServerTransport {
            server,
            serial: serial.to_string(),
            device: ADBServerDevice::new(serial.to_string(), Some(server)),
        }
    }

    fn lost(&self, why: impl std::fmt::Display) -> AdbError {
        AdbError::Lost {
            serial: self.serial.clone(),
            why: why.to_string(),
        }
    }
}

impl Transport for ServerTransport {
    fn serial(&self) -> &str {
        &self.serial
    }

    fn shell(&mut self, command: &str) -> Result<ShellResult, AdbError> {
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let marked = with_exit_marker(command);
        self.device
            .shell_command(&marked, Some(&mut stdout), Some(&mut stderr))
            .map_err(|e| self.lost(e))?;
        let (out, status) = take_marker(stdout);
        // No marker: the stream ended before the command finished.
        let status = status.ok_or_else(|| {
            self.lost(format!(
                "no exit status for {command:?}: the stream ended early"
            ))
        })?;
        Ok(ShellResult {
            stdout: out,
            stderr,
            status,
        })
    }

    fn push(&mut self, data: &[u8], remote: &str) -> Result<(), AdbError> {
        let mut reader = data;
        self.device
            .push(&mut reader, remote)
            .map_err(|e| self.lost(format!("push {remote}: {e}")))
    }

    fn forward(&mut self, local: &str, remote: &str) -> Result<(), AdbError> {
        self.device
            .forward(remote.to_string(), local.to_string())
            .map_err(|e| self.lost(format!("forward {local} {remote}: {e}")))
    }

    fn wait_for_device(&mut self, within: Duration) -> Result<(), AdbError> {
        let deadline = Instant::now() + within;
        let network: Option<SocketAddrV4> = self.serial.parse().ok();
        let mut adb = ADBServer::new(self.server);
        loop {
            let state = adb.devices().ok().and_then(|list| {
                list.into_iter()
                    .find(|d| d.identifier == self.serial)
                    .map(|d| d.state)
            });
            if state == Some(DeviceState::Device) {
                self.device = ADBServerDevice::new(self.serial.clone(), Some(self.server));
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(self.lost(format!("not back within {}s", within.as_secs())));
            }
            // A network device the server lost stays listed `offline` while
            // the server retries on its own schedule; ask it to reconnect now.
            if let Some(addr) = network {
                match state {
                    Some(DeviceState::Offline) => {
                        let _ = adb.disconnect_device(addr);
                        let _ = adb.connect_device(addr);
                    }
                    None => {
                        let _ = adb.connect_device(addr);
                    }
                    Some(_) => {}
                }
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_is_found_after_binary_output() {
        let mut raw = vec![0u8, 255, 10, 95];
        raw.extend_from_slice(b"__droidscore_exit=3\n");
        assert_eq!(split_marker_bytes(&raw), (&[0u8, 255, 10, 95][..], Some(3)));
        assert_eq!(split_marker_bytes(b"cut off"), (&b"cut off"[..], None));
        // A marker printed by the command itself, early on, is not the status.
        let mut early = b"__droidscore_exit=0\n".to_vec();
        early.extend(std::iter::repeat_n(b'x', 100));
        assert_eq!(split_marker_bytes(&early).1, None);
        assert_eq!(take_marker(raw.clone()), (vec![0u8, 255, 10, 95], Some(3)));
    }
}
