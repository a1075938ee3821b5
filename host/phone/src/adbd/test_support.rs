//! Test helpers: a server with a fresh [`FakeDevice`] and a tiny
//! adb-server-side client that speaks the transport over a real socket.

use std::{
    io::{BufReader, ErrorKind, Write},
    net::{SocketAddr, TcpStream},
    sync::Arc,
    time::Duration,
};

use super::{
    packet::{Packet, PacketError, A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_WRTE},
    FakeDevice, Server, ServerHandle,
};

/// Logs for a failing test: `DROIDSCORE_LOG=trace cargo test …`.
pub(crate) fn init_tracing() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("DROIDSCORE_LOG"))
        .with_test_writer()
        .try_init();
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
