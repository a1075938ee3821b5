//! A private adb server: the real `adb` binary's server on a free port of its
//! own, with its own HOME (for `~/.android/adbkey`), killed when dropped. The
//! tests and measurements that drive the virtual phone through real adb use
//! one, so they never touch — or depend on — the user's server on 5037.

use std::io::Read;
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// The adb server's emulator scan connects to these ports on its own.
pub const EMULATOR_PORTS: std::ops::RangeInclusive<u16> = 5555..=5585;
/// Longest any one adb command may take.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// A port nobody listens on now, outside the emulator scan's range.
pub fn free_port() -> u16 {
    loop {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap_or(0);
        if port != 0 && !EMULATOR_PORTS.contains(&port) {
            return port;
        }
    }
}

/// What went wrong starting or driving a private adb server.
#[derive(Debug, thiserror::Error)]
pub enum AdbServerError {
    #[error(
        "the real adb client is needed on PATH (Debian: `apt-get install -y adb`; scripts/test.sh installs it): running `adb` failed: {0}"
    )]
    NotInstalled(#[source] std::io::Error),
    #[error("`adb version` failed: {0:?}")]
    Version(Output),
    #[error("{}: {source}", home.display())]
    Home {
        home: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("adb start-server: {0:?}")]
    StartServer(Output),
    #[error("adb {args:?}: {source}")]
    Spawn {
        args: Vec<String>,
        #[source]
        source: std::io::Error,
    },
    /// Waiting for the `adb` child failed.
    #[error("{0}")]
    Wait(#[source] std::io::Error),
    #[error("adb {args:?} took over {limit:?}")]
    Timeout { args: Vec<String>, limit: Duration },
    #[error("{serial} never came up: {said} / {listed}")]
    NeverCameUp {
        serial: String,
        said: String,
        listed: String,
    },
}

/// A running private adb server.
#[derive(Debug)]
pub struct PrivateAdbServer {
    port: u16,
    home: PathBuf,
}

impl PrivateAdbServer {
    /// Start one; the error says plainly when `adb` is not installed.
    pub fn start() -> Result<PrivateAdbServer, AdbServerError> {
        match Command::new("adb").arg("version").output() {
            Ok(out) if out.status.success() => {}
            Ok(out) => return Err(AdbServerError::Version(out)),
            Err(e) => return Err(AdbServerError::NotInstalled(e)),
        }
        let port = free_port();
        let home =
            std::env::temp_dir().join(format!("droidscore-adb-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&home).map_err(|source| AdbServerError::Home {
            home: home.clone(),
            source,
        })?;
        let server = PrivateAdbServer { port, home };
        let out = server.adb(&["start-server"])?;
        if !out.status.success() {
            return Err(AdbServerError::StartServer(out));
        }
        Ok(server)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Where the adb backend reaches this server.
    pub fn address(&self) -> SocketAddrV4 {
        SocketAddrV4::new(Ipv4Addr::LOCALHOST, self.port)
    }

    /// A scratch directory that goes when the server does.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The environment a child `droidscore` or `adb` needs to use this server.
    pub fn env(&self) -> [(&'static str, String); 2] {
        [
            ("ANDROID_ADB_SERVER_PORT", self.port.to_string()),
            ("HOME", self.home.display().to_string()),
        ]
    }

    /// `adb -P PORT ARGS…` against this server, given up after 30 s.
    pub fn adb(&self, args: &[&str]) -> Result<Output, AdbServerError> {
        let mut command = Command::new("adb");
        command
            .arg("-P")
            .arg(self.port.to_string())
            .args(args)
            .envs(self.env())
            .env_remove("ANDROID_SERIAL")
            .stdin(Stdio::null());
        output_within(command, COMMAND_TIMEOUT, args)
    }

    /// Stdout and stderr of `adb ARGS…`, as one text.
    pub fn text(&self, args: &[&str]) -> Result<String, AdbServerError> {
        let out = self.adb(args)?;
        Ok(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }

    /// `adb connect SERIAL`, then wait (up to `within`) until it is listed as `device`.
    pub fn connect(&self, serial: &str, within: Duration) -> Result<(), AdbServerError> {
        let deadline = Instant::now() + within;
        loop {
            let said = self.text(&["connect", serial])?;
            let listed = self.text(&["devices"])?;
            if listed
                .lines()
                .any(|l| l.strip_prefix(serial) == Some("\tdevice"))
            {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(AdbServerError::NeverCameUp {
                    serial: serial.to_string(),
                    said,
                    listed,
                });
            }
            thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for PrivateAdbServer {
    fn drop(&mut self) {
        let _ = self.adb(&["kill-server"]);
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

/// Run `command` to completion, its output captured, or kill it after `limit`.
fn output_within(
    mut command: Command,
    limit: Duration,
    what: &[&str],
) -> Result<Output, AdbServerError> {
    let args = || what.iter().map(|a| a.to_string()).collect();
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| AdbServerError::Spawn {
            args: args(),
            source,
        })?;
    let stdout = drain(&mut child, true);
    let stderr = drain(&mut child, false);
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(AdbServerError::Wait)? {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(AdbServerError::Timeout {
                args: args(),
                limit,
            });
        }
        thread::sleep(Duration::from_millis(5));
    };
    Ok(Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

fn drain(child: &mut Child, stdout: bool) -> thread::JoinHandle<Vec<u8>> {
    let pipe: Option<Box<dyn Read + Send>> = if stdout {
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>)
    } else {
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>)
    };
    thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}
