//! The `tcp:PORT` service through the real adb client: `adb forward
//! tcp:LOCAL tcp:PORT`, then connections to LOCAL reach a listener on PORT —
//! both ways, past one WRTE, several at once — and a port nothing listens on
//! closes the connection instead of hanging it. Needs `adb` on PATH.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crate::adb::{free_port, PrivateAdbServer, EMULATOR_PORTS};

use super::test_support::{init_tracing, FakeDevice};
use super::{Device, Server, ShellOutput, SyncFail};

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
    fn push(&self, path: &str, mode: u32, data: Vec<u8>) -> Result<(), SyncFail> {
        self.0.push(path, mode, data)
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
    let server = loop {
        let server = Server::bind("127.0.0.1:0").unwrap();
        if !EMULATOR_PORTS.contains(&server.local_addr().port()) {
            break server;
        }
    };
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
