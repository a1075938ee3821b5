//! The real adb client (Debian's `adb`, 1:29.0.6) against our server:
//! `adb connect`, `devices -l`, `shell` (v2: stdout, stderr, exit status),
//! `exec-out`, `push` and `pull`, then unplugging the phone.
//!
//! Needs `adb` on PATH (`apt-get install -y adb`); without it the test fails
//! saying so. It runs a private adb server on a free port with its own HOME,
//! and kills it at the end whatever happens.

use std::{
    io::Read,
    net::TcpListener,
    path::PathBuf,
    process::{Child, Command, Output, Stdio},
    sync::Arc,
    thread,
    time::{Duration, Instant},
};

use super::{
    test_support::{all_bytes, init_tracing, FakeDevice},
    Server,
};

/// The adb server's emulator scan connects to these ports on its own.
const EMULATOR_PORTS: std::ops::RangeInclusive<u16> = 5555..=5585;
/// Longest any one adb command may take before the test gives up on it.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// A private adb server: its own port and HOME (for `~/.android/adbkey`),
/// killed on drop.
struct AdbServer {
    port: String,
    home: PathBuf,
}

impl AdbServer {
    fn start() -> AdbServer {
        match Command::new("adb").arg("version").output() {
            Ok(out) if out.status.success() => {}
            Ok(out) => panic!("`adb version` failed: {out:?}"),
            Err(e) => panic!(
                "this test needs the real adb client on PATH (Debian: `apt-get install -y adb`): \
                 running `adb` failed: {e}"
            ),
        }
        let port = free_port_outside_emulator_range().to_string();
        let home =
            std::env::temp_dir().join(format!("droidscore-adbd-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&home).unwrap();
        let server = AdbServer { port, home };
        let out = server.adb(&["start-server"]);
        assert!(out.status.success(), "adb start-server: {out:?}");
        server
    }

    /// Run `adb -P PORT ARGS…` against this server, giving up after
    /// [`COMMAND_TIMEOUT`].
    fn adb(&self, args: &[&str]) -> Output {
        let mut command = Command::new("adb");
        command
            .arg("-P")
            .arg(&self.port)
            .args(args)
            .env("ANDROID_ADB_SERVER_PORT", &self.port)
            .env("HOME", &self.home)
            .env_remove("ANDROID_SERIAL")
            .stdin(Stdio::null());
        output_within(command, COMMAND_TIMEOUT, args)
    }
}

impl Drop for AdbServer {
    fn drop(&mut self) {
        let _ = self.adb(&["kill-server"]);
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

/// A port nobody listens on now, outside the emulator scan's range.
fn free_port_outside_emulator_range() -> u16 {
    loop {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        if !EMULATOR_PORTS.contains(&port) {
            return port;
        }
    }
}

/// Run `command` to completion, its output captured, or panic after `limit`.
fn output_within(mut command: Command, limit: Duration, what: &[&str]) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("adb {what:?}: {e}"));
    let stdout = drain(&mut child, true);
    let stderr = drain(&mut child, false);
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("adb {what:?} took over {limit:?}");
        }
        thread::sleep(Duration::from_millis(5));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

fn drain(child: &mut Child, stdout: bool) -> thread::JoinHandle<Vec<u8>> {
    let mut pipe: Box<dyn Read + Send> = if stdout {
        Box::new(child.stdout.take().unwrap())
    } else {
        Box::new(child.stderr.take().unwrap())
    };
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Bind our server on loopback outside the emulator range.
fn bind_outside_emulator_range() -> Server {
    let mut held = Vec::new();
    loop {
        let server = Server::bind("127.0.0.1:0").unwrap();
        if !EMULATOR_PORTS.contains(&server.local_addr().port()) {
            return server;
        }
        held.push(server); // keep it bound so the next bind differs
    }
}

#[test]
fn the_real_adb_client_drives_the_server() {
    init_tracing();
    let started = Instant::now();
    let device = Arc::new(FakeDevice::default());
    let server = bind_outside_emulator_range();
    let serial = server.local_addr().to_string();
    let server = server.spawn(device.clone());
    let adb = AdbServer::start();
    let on_device = |args: &[&str]| adb.adb(&[&["-s", serial.as_str()], args].concat());

    let out = adb.adb(&["connect", &serial]);
    assert!(
        text(&out.stdout).contains(&format!("connected to {serial}")),
        "adb connect: {out:?}"
    );
    let out = on_device(&["wait-for-device"]);
    assert!(out.status.success(), "adb wait-for-device: {out:?}");

    let out = adb.adb(&["devices", "-l"]);
    let listing = text(&out.stdout);
    let line = listing
        .lines()
        .find(|line| line.starts_with(&serial))
        .unwrap_or_else(|| panic!("{serial} not in `adb devices -l`:\n{listing}"));
    assert!(
        line.contains("device product:droidscore_sim model:droidscore_sim device:droidscore_sim"),
        "{line}"
    );

    let out = on_device(&["shell", "echo", "hi"]);
    assert_eq!(text(&out.stdout), "hi\n", "{out:?}");
    assert!(out.status.success(), "{out:?}");

    let out = on_device(&["shell", "exit 3"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");

    let out = on_device(&["shell", "both"]);
    assert_eq!(
        (text(&out.stdout), text(&out.stderr)),
        ("out\n".into(), "err\n".into())
    );

    let out = on_device(&["shell", "no-such-command"]);
    assert_eq!(out.status.code(), Some(127), "{out:?}");

    let out = on_device(&["exec-out", "bytes"]);
    assert_eq!(out.stdout, all_bytes(), "{out:?}");

    // Over one sync DATA chunk (64 KiB) and one WRTE (256 KiB), not a multiple of either.
    let content: Vec<u8> = (0..300_001u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let local = adb.home.join("blob.bin");
    std::fs::write(&local, &content).unwrap();
    let remote = "/data/local/tmp/blob.bin";
    let out = on_device(&["push", local.to_str().unwrap(), remote]);
    assert!(out.status.success(), "adb push: {out:?}");
    let (mode, pushed) = device.file(remote).expect("the device has the pushed file");
    assert_eq!(pushed, content);
    assert_eq!(mode & 0o170000, 0o100000, "a regular file: {mode:o}");

    let back = adb.home.join("back.bin");
    let out = on_device(&["pull", remote, back.to_str().unwrap()]);
    assert!(out.status.success(), "adb pull: {out:?}");
    assert_eq!(std::fs::read(&back).unwrap(), content);

    let out = on_device(&["pull", "/data/local/tmp/missing", back.to_str().unwrap()]);
    assert!(!out.status.success(), "{out:?}");
    // adb 29 prints this error on stdout.
    let said = text(&[out.stdout.as_slice(), &out.stderr].concat());
    assert!(
        said.contains("remote object '/data/local/tmp/missing' does not exist"),
        "{out:?}"
    );

    // Unplug: the adb server must see the transport go. adb 29 keeps a
    // connected serial listed as `offline` while it retries.
    server.shutdown();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let listing = text(&adb.adb(&["devices"]).stdout);
        let state = listing
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{serial}\t")));
        if matches!(state, None | Some("offline")) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still online after shutdown:\n{listing}"
        );
        thread::sleep(Duration::from_millis(50));
    }
    let out = on_device(&["shell", "echo", "hi"]);
    assert!(!out.status.success(), "a shell after unplugging: {out:?}");
    tracing::info!(elapsed = ?started.elapsed(), "real adb test");
}
