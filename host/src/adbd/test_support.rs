//! Test helpers: a minimal [`Device`] and a tiny adb-server-side client that
//! speaks the transport over a real socket.

use std::{
    collections::HashMap,
    io::{BufReader, ErrorKind, Write},
    net::{SocketAddr, TcpStream},
    sync::{Arc, Mutex},
    time::Duration,
};

use super::{
    packet::{Packet, PacketError, A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_WRTE},
    Device, Server, ServerHandle, ShellOutput, SyncFail,
};

pub(crate) const BANNER: &str = "device::ro.product.name=droidscore_sim;ro.product.model=droidscore_sim;ro.product.device=droidscore_sim;features=shell_v2,cmd";

/// Logs for a failing test: `DROIDSCORE_LOG=trace cargo test …`.
pub(crate) fn init_tracing() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("DROIDSCORE_LOG"))
        .with_test_writer()
        .try_init();
}

/// A phone with a handful of commands and a flat file table.
#[derive(Debug, Default)]
pub(crate) struct FakeDevice {
    files: Mutex<HashMap<String, (u32, Vec<u8>)>>,
}

impl FakeDevice {
    pub(crate) fn put_file(&self, path: &str, mode: u32, data: &[u8]) {
        let mut files = self.files.lock().unwrap();
        files.insert(path.to_owned(), (mode, data.to_vec()));
    }

    pub(crate) fn file(&self, path: &str) -> Option<(u32, Vec<u8>)> {
        self.files.lock().unwrap().get(path).cloned()
    }
}

/// Every byte value once, in order: what `bytes` prints.
pub(crate) fn all_bytes() -> Vec<u8> {
    (0..=255).collect()
}

impl Device for FakeDevice {
    fn banner(&self) -> String {
        BANNER.to_owned()
    }

    /// `echo ARGS`, `exit N`, `both` (a line on each stream), `bytes` (all 256
    /// byte values), `big N` (N bytes); anything else is "not found", 127.
    fn shell(&self, command: &str) -> ShellOutput {
        let out = |stdout: &[u8], stderr: &[u8], exit| ShellOutput {
            stdout: stdout.to_vec(),
            stderr: stderr.to_vec(),
            exit,
        };
        let (program, args) = command.split_once(' ').unwrap_or((command, ""));
        match program {
            "echo" => out(format!("{args}\n").as_bytes(), b"", 0),
            "exit" => out(b"", b"", args.parse().unwrap_or(2)),
            "both" => out(b"out\n", b"err\n", 0),
            "bytes" => out(&all_bytes(), b"", 0),
            "big" => {
                let n: usize = args.parse().unwrap_or(0);
                let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
                out(&data, b"", 0)
            }
            _ => out(b"", format!("sh: {program}: not found\n").as_bytes(), 127),
        }
    }

    fn push(&self, path: &str, mode: u32, data: Vec<u8>) -> Result<(), SyncFail> {
        if path.starts_with("/system/") {
            return Err("couldn't create file: Read-only file system".into());
        }
        self.files
            .lock()
            .unwrap()
            .insert(path.to_owned(), (mode, data));
        Ok(())
    }

    fn pull(&self, path: &str) -> Result<Vec<u8>, SyncFail> {
        self.file(path)
            .map(|(_, data)| data)
            .ok_or_else(|| "No such file or directory".into())
    }

    fn stat(&self, path: &str) -> Option<(u32, u32, u32)> {
        if path == "/" || path.ends_with('/') || path == "/data/local/tmp" {
            return Some((0o040771, 4096, 0));
        }
        let (mode, data) = self.file(path)?;
        Some((mode, data.len() as u32, 1_700_000_000))
    }
}

/// A server on an ephemeral loopback port with a fresh [`FakeDevice`].
pub(crate) fn serve_fake() -> (ServerHandle, Arc<FakeDevice>) {
    init_tracing();
    let device = Arc::new(FakeDevice::default());
    let server = Server::bind("127.0.0.1:0").unwrap();
    (server.spawn(device.clone()), device)
}

/// The adb server's side of one connection, reduced to what tests need.
#[derive(Debug)]
pub(crate) struct TestClient {
    socket: TcpStream,
    reader: BufReader<TcpStream>,
    next_id: u32,
}

impl TestClient {
    /// Connect and say CNXN with `max_data`; returns the client and the
    /// device's CNXN.
    pub(crate) fn connect(addr: SocketAddr, max_data: u32) -> (TestClient, Packet) {
        let socket = TcpStream::connect(addr).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let reader = BufReader::new(socket.try_clone().unwrap());
        let mut client = TestClient {
            socket,
            reader,
            next_id: 100,
        };
        let banner = b"host::features=shell_v2,cmd,stat_v2".to_vec();
        client.send(&Packet::new(A_CNXN, 0x0100_0001, max_data, banner));
        let cnxn = client.recv();
        assert_eq!(cnxn.command, A_CNXN, "{cnxn:?}");
        (client, cnxn)
    }

    pub(crate) fn send(&mut self, packet: &Packet) {
        self.send_raw(&packet.to_bytes());
    }

    pub(crate) fn send_raw(&mut self, bytes: &[u8]) {
        self.socket.write_all(bytes).unwrap();
    }

    pub(crate) fn recv(&mut self) -> Packet {
        Packet::read_from(&mut self.reader).unwrap()
    }

    /// The next packet, or None if none comes within `wait`.
    pub(crate) fn recv_within(&mut self, wait: Duration) -> Option<Packet> {
        self.socket.set_read_timeout(Some(wait)).unwrap();
        let packet = match Packet::read_from(&mut self.reader) {
            Ok(packet) => Some(packet),
            Err(PacketError::Io(e))
                if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) =>
            {
                None
            }
            Err(e) => panic!("{e}"),
        };
        self.socket
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        packet
    }

    /// True once the device has closed the connection.
    pub(crate) fn is_closed(&mut self) -> bool {
        match Packet::read_from(&mut self.reader) {
            Err(PacketError::Io(e)) => matches!(
                e.kind(),
                ErrorKind::UnexpectedEof | ErrorKind::ConnectionReset
            ),
            other => panic!("expected the connection to close, got {other:?}"),
        }
    }

    /// OPEN `service`; Ok((ours, theirs)) on OKAY, Err(packet) otherwise.
    pub(crate) fn open(&mut self, service: &str) -> Result<(u32, u32), Packet> {
        let ours = self.next_id;
        self.next_id += 1;
        let name = format!("{service}\0").into_bytes();
        self.send(&Packet::new(A_OPEN, ours, 0, name));
        let reply = self.recv();
        if reply.command == A_OKAY && reply.arg1 == ours && reply.arg0 != 0 {
            Ok((ours, reply.arg0))
        } else {
            Err(reply)
        }
    }

    /// The next WRTE on (ours, theirs), without acknowledging it; None on CLSE.
    pub(crate) fn next_write(&mut self, ours: u32, theirs: u32) -> Option<Vec<u8>> {
        let packet = self.recv();
        assert_eq!((packet.arg0, packet.arg1), (theirs, ours), "{packet:?}");
        match packet.command {
            A_WRTE => Some(packet.data),
            A_CLSE => None,
            _ => panic!("expected WRTE or CLSE, got {packet:?}"),
        }
    }

    pub(crate) fn okay(&mut self, ours: u32, theirs: u32) {
        self.send(&Packet::new(A_OKAY, ours, theirs, Vec::new()));
    }

    /// Every WRTE payload on the stream until its CLSE, acknowledging each.
    pub(crate) fn read_to_close(&mut self, ours: u32, theirs: u32) -> Vec<Vec<u8>> {
        let mut writes = Vec::new();
        while let Some(data) = self.next_write(ours, theirs) {
            writes.push(data);
            self.okay(ours, theirs);
        }
        writes
    }

    /// OPEN `service` and read the whole answer.
    pub(crate) fn run(&mut self, service: &str) -> Vec<u8> {
        let (ours, theirs) = self.open(service).unwrap();
        self.read_to_close(ours, theirs).concat()
    }

    /// WRTE `data` on the stream and expect the device's OKAY for it.
    pub(crate) fn write(&mut self, ours: u32, theirs: u32, data: &[u8]) {
        self.send(&Packet::new(A_WRTE, ours, theirs, data.to_vec()));
        let okay = self.recv();
        assert_eq!(
            (okay.command, okay.arg0, okay.arg1),
            (A_OKAY, theirs, ours),
            "{okay:?}"
        );
    }
}
