//! How the adb backend reaches a phone: one trait, so the phone logic is
//! tested against the virtual phone in-process and runs on real phones through
//! the adb server (`adb_client`). Every call blocks; the runner calls them from
//! its worker threads, never from the async runtime the LLM agent uses.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::time::{Duration, Instant};

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
    pub(crate) fn all_text(&self) -> String {
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
    /// The phone did not answer within the operation's deadline: the call
    /// is abandoned (a phone that stalls must not hang the run).
    #[error("device {serial}: {op} did not answer within {} s", after.as_secs_f64())]
    Timeout {
        serial: String,
        op: String,
        after: Duration,
    },
}

/// How long each kind of operation may take before the phone counts as
/// stalled. A shell command covers `uiautomator dump`, which itself waits
/// up to 10 s for the screen to go idle; a transfer covers pushing a model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Deadlines {
    pub shell: Duration,
    pub transfer: Duration,
}

impl Default for Deadlines {
    fn default() -> Deadlines {
        Deadlines {
            shell: Duration::from_secs(30),
            transfer: Duration::from_secs(600),
        }
    }
}

/// How long a phone that is listed again may take to answer `echo` before
/// it counts as still gone (at most the command deadline).
const PROBE_WITHIN: Duration = Duration::from_secs(5);

/// A command as an error message names it: its first 60 characters.
fn abbreviated(command: &str) -> String {
    match command.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &command[..at]),
        None => command.to_string(),
    }
}

/// A phone reached over some adb transport.
pub trait Transport: Send {
    fn serial(&self) -> &str;
    /// Run one command line in the phone's `sh -c`. The status is the
    /// command's own, recovered from an echoed marker.
    fn shell(&mut self, command: &str) -> Result<ShellResult, AdbError>;
    /// [`Transport::shell`] for a command that itself waits on the phone up
    /// to `waits` (`uiautomator dump` waits for an idle screen): where the
    /// transport has a deadline, it is that much longer.
    fn shell_waiting(&mut self, command: &str, waits: Duration) -> Result<ShellResult, AdbError> {
        let _ = waits;
        self.shell(command)
    }
    /// `adb push`: write `data` to `remote` on the phone.
    fn push(&mut self, data: &[u8], remote: &str) -> Result<(), AdbError>;
    /// `adb push` from a reader (a large file, without holding it in memory
    /// where the transport can stream).
    fn push_from(
        &mut self,
        mut data: Box<dyn std::io::Read + Send>,
        remote: &str,
    ) -> Result<(), AdbError> {
        let mut bytes = Vec::new();
        data.read_to_end(&mut bytes)
            .map_err(|e| AdbError::Server(format!("push {remote}: reading the local file: {e}")))?;
        self.push(&bytes, remote)
    }
    /// `adb pull`: the bytes of `remote`, a small file (an app's database).
    fn pull(&mut self, remote: &str) -> Result<Vec<u8>, AdbError> {
        Err(AdbError::Server(format!(
            "cannot pull {remote}: this transport has no file service"
        )))
    }
    /// `adb root`: ask adbd to restart as root. A userdebug build (an
    /// emulator's image) does and drops the connection; a production build
    /// answers that it cannot and stays as it was. Either way the caller
    /// asks `whoami` again to know.
    fn root(&mut self) -> Result<(), AdbError> {
        Err(AdbError::Server(
            "cannot ask adbd for root: this transport has no adb server".into(),
        ))
    }
    /// `adb forward LOCAL REMOTE`, e.g. `tcp:8080 tcp:8080`.
    fn forward(&mut self, local: &str, remote: &str) -> Result<(), AdbError>;
    /// `adb forward --remove LOCAL`.
    fn remove_forward(&mut self, local: &str) -> Result<(), AdbError> {
        Err(AdbError::Server(format!(
            "cannot remove the forward {local}: this transport has no adb server"
        )))
    }
    /// `adb forward --list`, this phone's lines: (LOCAL, REMOTE) pairs.
    fn forwards(&mut self) -> Result<Vec<(String, String)>, AdbError> {
        Ok(Vec::new())
    }
    /// Wait for the phone to be back (reconnecting a network device), at most `within`.
    fn wait_for_device(&mut self, within: Duration) -> Result<(), AdbError>;
}

/// Split the marker line off raw output: the bytes before it and the status.
/// Only the tail is searched: the marker is the last thing the command line
/// prints, so a marker-like text earlier in the output (a stream cut short
/// after printing one) never counts.
pub(crate) fn split_marker_bytes(output: &[u8]) -> (&[u8], Option<i32>) {
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
pub(crate) fn take_marker(mut output: Vec<u8>) -> (Vec<u8>, Option<i32>) {
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

/// One request of the adb server's host protocol (`host:devices`,
/// `host:connect:ADDR`, …): a 4-hex-digit length and the request; the answer
/// is `OKAY` and a length-prefixed payload, or `FAIL` and a message.
///
/// Written here rather than through `adb_client::ADBServer`, which runs
/// `adb start-server` before every request without the server's port, and so
/// starts a second server on 5037 when ours is elsewhere.
fn host_request(server: SocketAddrV4, request: &str) -> Result<String, AdbError> {
    use std::io::{Read, Write};
    let io = |e: std::io::Error| AdbError::Server(format!("{server}: {request}: {e}"));
    let mut stream =
        std::net::TcpStream::connect_timeout(&server.into(), Duration::from_secs(5)).map_err(io)?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(io)?;
    stream
        .write_all(format!("{:04x}{request}", request.len()).as_bytes())
        .map_err(io)?;
    let mut status = [0u8; 4];
    stream.read_exact(&mut status).map_err(io)?;
    let mut len = [0u8; 4];
    let payload = match stream.read_exact(&mut len) {
        Ok(()) => {
            let n = usize::from_str_radix(&String::from_utf8_lossy(&len), 16).map_err(|_| {
                AdbError::Server(format!("{server}: {request}: bad length {len:?}"))
            })?;
            let mut body = vec![0u8; n];
            stream.read_exact(&mut body).map_err(io)?;
            String::from_utf8_lossy(&body).into_owned()
        }
        Err(_) => String::new(),
    };
    match &status {
        b"OKAY" => Ok(payload),
        _ => Err(AdbError::Server(format!("{server}: {request}: {payload}"))),
    }
}

/// Start the adb server on `server`'s port if nothing answers there.
fn ensure_server(server: SocketAddrV4) -> Result<(), AdbError> {
    if std::net::TcpStream::connect_timeout(&server.into(), Duration::from_secs(1)).is_ok() {
        return Ok(());
    }
    let out = std::process::Command::new("adb")
        .args(["-P", &server.port().to_string(), "start-server"])
        .output()
        .map_err(|e| {
            AdbError::Server(format!(
                "no adb server on {server}, and `adb start-server` could not run: {e}"
            ))
        })?;
    if !out.status.success() {
        return Err(AdbError::Server(format!(
            "no adb server on {server}, and `adb start-server` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}

/// Every device the adb server knows (starting the server if it is not running).
pub fn devices(server: SocketAddrV4) -> Result<Vec<Listed>, AdbError> {
    ensure_server(server)?;
    let listing = host_request(server, "host:devices")?;
    Ok(parse_devices(&listing))
}

/// `SERIAL\tSTATE` lines, as `host:devices` answers.
fn parse_devices(listing: &str) -> Vec<Listed> {
    listing
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(serial, state)| Listed {
            serial: serial.to_string(),
            state: state.trim().to_string(),
        })
        .collect()
}

/// `SERIAL LOCAL REMOTE` lines, as `host:list-forward` answers: `serial`'s.
fn parse_forwards(listing: &str, serial: &str) -> Vec<(String, String)> {
    listing
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            match (words.next(), words.next(), words.next()) {
                (Some(s), Some(local), Some(remote)) if s == serial => {
                    Some((local.to_string(), remote.to_string()))
                }
                _ => None,
            }
        })
        .collect()
}

/// A device through the adb server (`adb -s SERIAL …`). adb_client sets no
/// timeout on its sockets (cocool97/adb_client#204), so a phone that
/// vanishes mid-command would block the caller forever: every call runs on
/// a thread of its own with a fresh `ADBServerDevice`, and the caller waits
/// at most the operation's deadline. A call past its deadline is abandoned;
/// its thread ends when the adb server closes the dead transport.
pub struct ServerTransport {
    server: SocketAddrV4,
    serial: String,
    deadlines: Deadlines,
}

impl std::fmt::Debug for ServerTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerTransport")
            .field("server", &self.server)
            .field("serial", &self.serial)
            .field("deadlines", &self.deadlines)
            .finish()
    }
}

impl ServerTransport {
    pub fn new(server: SocketAddrV4, serial: &str) -> ServerTransport {
        ServerTransport::with_deadlines(server, serial, Deadlines::default())
    }

    pub fn with_deadlines(
        server: SocketAddrV4,
        serial: &str,
        deadlines: Deadlines,
    ) -> ServerTransport {
        ServerTransport {
            server,
            serial: serial.to_string(),
            deadlines,
        }
    }

    fn lost(&self, why: impl std::fmt::Display) -> AdbError {
        AdbError::Lost {
            serial: self.serial.clone(),
            why: why.to_string(),
        }
    }

    /// Whether the phone runs `echo` within `limit`.
    fn answers(&self, limit: Duration) -> Result<(), AdbError> {
        let echoed = self.within("`echo`", limit, |device| {
            let mut out = Vec::new();
            device
                .shell_command(&"echo droidscore", Some(&mut out), None)
                .map_err(|e| e.to_string())?;
            Ok(out)
        })?;
        if String::from_utf8_lossy(&echoed).contains("droidscore") {
            Ok(())
        } else {
            Err(self.lost("`echo` printed nothing"))
        }
    }

    /// `call` on a device handle of its own, on its own thread; its answer,
    /// or `Timeout` once `limit` has passed without one.
    fn within<R: Send + 'static>(
        &self,
        op: &str,
        limit: Duration,
        call: impl FnOnce(&mut ADBServerDevice) -> Result<R, String> + Send + 'static,
    ) -> Result<R, AdbError> {
        let (send, receive) = std::sync::mpsc::channel();
        let mut device = ADBServerDevice::new(self.serial.clone(), Some(self.server));
        std::thread::Builder::new()
            .name(format!("adb {op}"))
            .spawn(move || {
                let _ = send.send(call(&mut device));
            })
            .map_err(|e| AdbError::Server(format!("{op}: cannot start a thread: {e}")))?;
        match receive.recv_timeout(limit) {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(why)) => Err(self.lost(why)),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(AdbError::Timeout {
                serial: self.serial.clone(),
                op: op.to_string(),
                after: limit,
            }),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                Err(self.lost(format!("{op}: the adb call ended without an answer")))
            }
        }
    }
}

impl Transport for ServerTransport {
    fn serial(&self) -> &str {
        &self.serial
    }

    fn shell(&mut self, command: &str) -> Result<ShellResult, AdbError> {
        self.shell_waiting(command, Duration::ZERO)
    }

    fn shell_waiting(&mut self, command: &str, waits: Duration) -> Result<ShellResult, AdbError> {
        let marked = with_exit_marker(command);
        let op = format!("`{}`", abbreviated(command));
        let limit = self.deadlines.shell + waits;
        let (stdout, stderr) = self.within(&op, limit, move |device| {
            let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
            device
                .shell_command(&marked, Some(&mut stdout), Some(&mut stderr))
                .map_err(|e| e.to_string())?;
            Ok((stdout, stderr))
        })?;
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
        self.push_from(Box::new(std::io::Cursor::new(data.to_vec())), remote)
    }

    fn push_from(
        &mut self,
        mut data: Box<dyn std::io::Read + Send>,
        remote: &str,
    ) -> Result<(), AdbError> {
        let path = remote.to_string();
        self.within("push", self.deadlines.transfer, move |device| {
            device
                .push(&mut data, &path)
                .map_err(|e| format!("push {path}: {e}"))
        })
    }

    /// Under the command deadline, not a transfer's: what is pulled is an
    /// app's database (kilobytes to a few MB), read before and after every
    /// episode, and a stalled phone must not hold a run for a transfer's
    /// 20× (`adb::faults`' stalled phone).
    fn pull(&mut self, remote: &str) -> Result<Vec<u8>, AdbError> {
        let path = remote.to_string();
        self.within("pull", self.deadlines.shell, move |device| {
            let mut bytes = Vec::new();
            device
                .pull(&path, &mut bytes)
                .map_err(|e| format!("pull {path}: {e}"))?;
            Ok(bytes)
        })
    }

    fn root(&mut self) -> Result<(), AdbError> {
        self.within("root", self.deadlines.shell, |device| {
            device.root().map_err(|e| format!("root: {e}"))
        })
    }

    fn forward(&mut self, local: &str, remote: &str) -> Result<(), AdbError> {
        let (local, remote) = (local.to_string(), remote.to_string());
        self.within("forward", self.deadlines.shell, move |device| {
            device
                .forward(remote.clone(), local.clone())
                .map_err(|e| format!("forward {local} {remote}: {e}"))
        })
    }

    fn remove_forward(&mut self, local: &str) -> Result<(), AdbError> {
        let local = local.to_string();
        self.within("forward --remove", self.deadlines.shell, move |device| {
            device
                .forward_remove(local.clone())
                .map_err(|e| format!("forward --remove {local}: {e}"))
        })
    }

    fn forwards(&mut self) -> Result<Vec<(String, String)>, AdbError> {
        let listing = host_request(self.server, "host:list-forward")?;
        Ok(parse_forwards(&listing, &self.serial))
    }

    fn wait_for_device(&mut self, within: Duration) -> Result<(), AdbError> {
        let deadline = Instant::now() + within;
        let network: Option<SocketAddrV4> = self.serial.parse().ok();
        loop {
            let state = devices(self.server).ok().and_then(|list| {
                list.into_iter()
                    .find(|d| d.serial == self.serial)
                    .map(|d| d.state)
            });
            // Listed is not enough: a stalled phone stays listed as
            // `device`. Back means answering a command.
            if state.as_deref() == Some("device") {
                let probe = self.deadlines.shell.min(PROBE_WITHIN);
                match self.answers(probe) {
                    Ok(()) => return Ok(()),
                    Err(why) => {
                        tracing::debug!(serial = %self.serial, %why, "listed, not answering");
                        // Drop the stalled transport; it is connected again below.
                        if let Some(addr) = network {
                            let _ = host_request(self.server, &format!("host:disconnect:{addr}"));
                        }
                    }
                }
            }
            if Instant::now() >= deadline {
                return Err(self.lost(format!("not back within {}s", within.as_secs())));
            }
            // A network device the server lost stays listed `offline` while
            // the server retries on its own schedule; ask it to reconnect now.
            if let Some(addr) = network {
                match state.as_deref() {
                    Some("offline") => {
                        let _ = host_request(self.server, &format!("host:disconnect:{addr}"));
                        let _ = host_request(self.server, &format!("host:connect:{addr}"));
                    }
                    None => {
                        let _ = host_request(self.server, &format!("host:connect:{addr}"));
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

    #[test]
    fn list_forward_lines_are_serial_local_remote_and_only_ours_count() {
        let listing = "127.0.0.1:6520 tcp:8077 tcp:8077\nR58M tcp:9000 tcp:8077\n";
        assert_eq!(
            parse_forwards(listing, "127.0.0.1:6520"),
            [("tcp:8077".to_string(), "tcp:8077".to_string())]
        );
    }

    #[test]
    fn host_devices_lines_are_serial_tab_state() {
        let listed = parse_devices("127.0.0.1:6520\tdevice\nemulator-5554\toffline\n");
        assert_eq!(
            listed,
            [
                Listed {
                    serial: "127.0.0.1:6520".into(),
                    state: "device".into()
                },
                Listed {
                    serial: "emulator-5554".into(),
                    state: "offline".into()
                },
            ]
        );
    }
}
