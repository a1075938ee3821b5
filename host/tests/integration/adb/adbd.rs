//! Our adbd (`droidscore_phone::adbd`) against the real adb client (Debian's
//! `adb`, 1:29.0.6), serving a [`FakeDevice`] so that what is pinned is the
//! wire: `adb connect`, `devices -l`, `shell` (v2: stdout, stderr, exit
//! status), `exec-out`, `push` and `pull`, then unplugging the phone; and
//! the `tcp:PORT` service: `adb forward tcp:LOCAL tcp:PORT`, then
//! connections to LOCAL reach a listener on PORT — both ways, past one WRTE,
//! several at once — and a port nothing listens on closes the connection
//! instead of hanging it. Each test runs a private adb server
//! (`PrivateAdbServer`); without `adb` on PATH it fails saying so.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::Output;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use droidscore_phone::adb::{free_port, PrivateAdbServer, EMULATOR_PORTS};
use droidscore_phone::adbd::{Device, FakeDevice, Server, ShellOutput, SyncFail};

use crate::support::text;

/// Logs for a failing test: `DROIDSCORE_LOG=trace cargo test …`.
fn init_tracing() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("DROIDSCORE_LOG"))
        .with_test_writer()
        .try_init();
}

/// `adb -P PORT ARGS…` on the private server, or a failed test saying why.
fn run(adb: &PrivateAdbServer, args: &[&str]) -> Output {
    adb.adb(args).unwrap_or_else(|e| panic!("{e}"))
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
    let adb = PrivateAdbServer::start().unwrap_or_else(|e| panic!("{e}"));
    let on_device = |args: &[&str]| run(&adb, &[&["-s", serial.as_str()], args].concat());

    let out = run(&adb, &["connect", &serial]);
    assert!(
        text(&out.stdout).contains(&format!("connected to {serial}")),
        "adb connect: {out:?}"
    );
    let out = on_device(&["wait-for-device"]);
    assert!(out.status.success(), "adb wait-for-device: {out:?}");

    let out = run(&adb, &["devices", "-l"]);
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
    assert_eq!(out.stdout, FakeDevice::all_bytes(), "{out:?}");

    // Over one sync DATA chunk (64 KiB) and one WRTE (256 KiB), not a multiple of either.
    let content: Vec<u8> = (0..300_001u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let local = adb.home().join("blob.bin");
    std::fs::write(&local, &content).unwrap();
    let remote = "/data/local/tmp/blob.bin";
    let out = on_device(&["push", local.to_str().unwrap(), remote]);
    assert!(out.status.success(), "adb push: {out:?}");
    let (mode, pushed) = device.file(remote).expect("the device has the pushed file");
    assert_eq!(pushed, content);
    assert_eq!(mode & 0o170000, 0o100000, "a regular file: {mode:o}");

    let back = adb.home().join("back.bin");
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
        let listing = text(&run(&adb, &["devices"]).stdout);
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

/// [`FakeDevice`] whose loopback is this machine's, as the virtual phone's is.
#[derive(Debug, Default)]
struct LoopbackDevice(FakeDevice);

impl Device for LoopbackDevice {
    fn banner(&self) -> String {
        self.0.banner()
    }
    fn shell(&self, command: &str) -> ShellOutput {
        self.0.shell(command)
    }
    fn push(&self, path: &str, mode: u32, mtime: u32, data: Vec<u8>) -> Result<(), SyncFail> {
        self.0.push(path, mode, mtime, data)
    }
    fn pull(&self, path: &str) -> Result<Vec<u8>, SyncFail> {
        self.0.pull(path)
    }
    fn stat(&self, path: &str) -> Option<(u32, u32, u32)> {
        self.0.stat(path)
    }
    fn connect_tcp(&self, port: u16) -> std::io::Result<TcpStream> {
        TcpStream::connect(("127.0.0.1", port))
    }
}

/// A server on `listener` that answers each connection with every byte it
/// reads, each plus one, until the peer stops writing.
fn serve_plus_one(listener: TcpListener) {
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            thread::spawn(move || {
                let mut buf = [0u8; 8192];
                loop {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            let out: Vec<u8> = buf[..n].iter().map(|b| b.wrapping_add(1)).collect();
                            if stream.write_all(&out).is_err() {
                                break;
                            }
                        }
                    }
                }
            });
        }
    });
}

/// Send `data` through the forward and read back as many bytes.
fn round_trip(local: u16, data: &[u8]) -> Vec<u8> {
    let mut stream = TcpStream::connect(("127.0.0.1", local)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let writer = {
        let mut stream = stream.try_clone().unwrap();
        let data = data.to_vec();
        thread::spawn(move || stream.write_all(&data).unwrap())
    };
    let mut back = vec![0u8; data.len()];
    stream.read_exact(&mut back).unwrap();
    writer.join().unwrap();
    let _ = stream.shutdown(Shutdown::Both);
    back
}

#[test]
fn adb_forward_reaches_the_devices_loopback_both_ways() {
    init_tracing();
    let server = bind_outside_emulator_range();
    let serial = server.local_addr().to_string();
    let _server = server.spawn(Arc::new(LoopbackDevice::default()));
    let adb = PrivateAdbServer::start().unwrap_or_else(|e| panic!("{e}"));
    adb.connect(&serial, Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{e}"));

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    serve_plus_one(listener);
    let local = free_port();
    let out = adb
        .adb(&[
            "-s",
            &serial,
            "forward",
            &format!("tcp:{local}"),
            &format!("tcp:{port}"),
        ])
        .unwrap();
    assert!(out.status.success(), "adb forward: {out:?}");

    // Past one WRTE (256 KiB) each way, and several connections at once.
    let data: Vec<u8> = (0..700_001u32).map(|i| (i % 253) as u8).collect();
    let expected: Vec<u8> = data.iter().map(|b| b.wrapping_add(1)).collect();
    let parallel: Vec<_> = (0..3)
        .map(|_| {
            let data = data.clone();
            thread::spawn(move || round_trip(local, &data))
        })
        .collect();
    for handle in parallel {
        assert!(
            handle.join().unwrap() == expected,
            "bytes changed on the way"
        );
    }

    // Nothing listens there: adbd refuses the OPEN and adb closes the connection.
    let dead = free_port();
    let out = adb
        .adb(&[
            "-s",
            &serial,
            "forward",
            &format!("tcp:{}", free_port()),
            &format!("tcp:{dead}"),
        ])
        .unwrap();
    assert!(out.status.success(), "adb forward: {out:?}");
    let listing = adb.text(&["forward", "--list"]).unwrap();
    let dead_local = listing
        .lines()
        .find_map(|l| {
            l.strip_suffix(&format!(" tcp:{dead}"))?
                .rsplit_once(" tcp:")?
                .1
                .parse::<u16>()
                .ok()
        })
        .unwrap_or_else(|| panic!("no forward to tcp:{dead} in {listing}"));
    let mut stream = TcpStream::connect(("127.0.0.1", dead_local)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let _ = stream.write_all(b"GET / HTTP/1.0\r\n\r\n");
    let mut buf = [0u8; 16];
    assert!(
        matches!(stream.read(&mut buf), Ok(0) | Err(_)),
        "a refused tcp: service closes the connection"
    );
}
