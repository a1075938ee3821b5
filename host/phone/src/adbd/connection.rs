//! One adb server's connection, as adbd sees it (AOSP adb/protocol.txt).
//!
//! CNXN is answered at once with our own (no AUTH). Each OPEN(remote-id, 0,
//! "service") gets a stream: OKAY(local-id, remote-id) to accept it, or
//! CLSE(0, remote-id) to refuse it. A stream's answer goes out as WRTE packets
//! of at most the peer's maxdata, one at a time: the next waits for the peer's
//! OKAY. Every WRTE the peer sends is acknowledged with OKAY at once (but a
//! `sync:` stream's, while answers wait: see below). When the
//! answer is flushed the stream ends with CLSE; a CLSE from the peer drops it
//! and is answered with ours, as adbd answers it (AOSP packages/modules/adb
//! sockets.cpp, `local_socket_close` → `remote_socket_shutdown`; read at
//! LineageOS/android_packages_modules_adb 0679858).
//!
//! Streams interleave freely on the connection: the state below is per
//! stream, and the one thread reading the socket drives them all. A service
//! runs to completion when opened (the device answers at once), so a slow
//! command holds up the connection's other streams, not other connections.
//! The exception is `tcp:PORT` (see `relay`): a TCP connection the device
//! opens, read by a thread of its own that writes through the same writer.
//!
//! What a peer that never acknowledges can make us hold is bounded (issue
//! 30: 32 `exec:screencap` streams never acknowledged held 330 MiB). adbd
//! stops reading a service's output while its WRTE is unacknowledged, so the
//! service blocks (AOSP packages/modules/adb docs/dev/delayed_ack.md, read
//! at LineageOS/android_packages_modules_adb 7025155). Our services answer
//! whole, so the bound is on what waits to be sent: at most
//! [`MAX_STREAMS`] streams are open, and while [`MAX_BUFFERED`] bytes wait
//! on the connection a new one-shot OPEN is refused (CLSE) and a `sync:`
//! stream answers no further request, nor acknowledges the WRTE that
//! carried it, until the peer has taken what waits.

use std::{
    collections::{HashMap, VecDeque},
    io::{BufReader, ErrorKind},
    net::TcpStream,
    sync::{Arc, Mutex},
};

use super::{
    packet::{
        command_name, Packet, PacketError, A_AUTH, A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_WRTE,
        MAX_DATA, MAX_DATA_V1, VERSION,
    },
    relay::{self, Relay, Writer},
    service::{run_one_shot, Service},
    sync::{Fed, SyncSession},
    Device,
};

/// The most streams one connection may have open at once; an OPEN past it
/// is refused with CLSE. The adb server opens a stream per command and a
/// few run at once; adbd itself is bounded only by its descriptors.
pub(crate) const MAX_STREAMS: usize = 64;

/// The most bytes of answers a connection holds unsent before it answers
/// nothing new: a one-shot OPEN is refused with CLSE, a `sync:` stream's
/// requests wait. A peer that reads takes them at once; one that does not
/// costs this plus one answer (a 1080x2400 screencap is 10 MiB).
pub(crate) const MAX_BUFFERED: usize = 16 * 1024 * 1024;

/// Serve one connection until the peer leaves or breaks the protocol.
/// A peer that hangs up is Ok; a malformed packet or a failed write is Err.
pub(crate) fn run(socket: TcpStream, device: &dyn Device) -> Result<(), PacketError> {
    let mut reader = BufReader::new(socket.try_clone()?);
    let mut connection = Connection {
        device,
        writer: Arc::new(Mutex::new(socket)),
        max_payload: None,
        next_id: 1,
        streams: HashMap::new(),
        restarted: false,
    };
    loop {
        let packet = match Packet::read_from(&mut reader) {
            Ok(packet) => packet,
            Err(PacketError::Io(e)) if e.kind() == ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        };
        trace(&packet, "adbd <-");
        connection.handle(packet)?;
        if connection.restarted {
            // adbd restarted (`root:`, `unroot:`): its connections end with
            // it, and the adb server connects again.
            tracing::info!("adbd: restarting; connection closed");
            let _ = reader.get_ref().shutdown(std::net::Shutdown::Both);
            return Ok(());
        }
    }
}

struct Connection<'d> {
    device: &'d dyn Device,
    writer: Writer,
    /// The largest WRTE payload to send; None until the peer's CNXN.
    max_payload: Option<usize>,
    next_id: u32,
    /// Open streams by our (local) id.
    streams: HashMap<u32, Stream>,
    /// A `root:`/`unroot:` answer that restarts adbd has gone out.
    restarted: bool,
}

/// One open stream.
struct Stream {
    remote_id: u32,
    /// `sync:` talks back and forth; the other services answer once.
    sync: Option<SyncSession>,
    /// `tcp:PORT`: relayed both ways until either side ends.
    relay: Option<Relay>,
    /// Bytes not yet sent.
    outbox: VecDeque<u8>,
    /// A WRTE is out and its OKAY has not come back.
    awaiting_okay: bool,
    /// Nothing more will be added: CLSE once the outbox is empty.
    finished: bool,
    /// adbd restarts once this stream's answer is out.
    restarts: bool,
    /// The peer's last WRTE is not acknowledged yet: its `sync:` requests
    /// wait for the connection's unsent answers to go out (see
    /// [`MAX_BUFFERED`]).
    okay_owed: bool,
}

impl Stream {
    fn new(remote_id: u32) -> Stream {
        Stream {
            remote_id,
            sync: None,
            relay: None,
            outbox: VecDeque::new(),
            awaiting_okay: false,
            finished: false,
            restarts: false,
            okay_owed: false,
        }
    }
}

impl Connection<'_> {
    fn handle(&mut self, packet: Packet) -> Result<(), PacketError> {
        let Packet {
            command,
            arg0,
            arg1,
            data,
        } = packet;
        if command == A_CNXN {
            return self.connect(arg1, &data);
        }
        let Some(max_payload) = self.max_payload else {
            // adbd drops everything but CNXN and AUTH until the transport is online.
            tracing::debug!(command = %command_name(command), "adbd: ignored before CNXN");
            return Ok(());
        };
        // Relays whose TCP connection ended have sent their CLSE.
        self.streams
            .retain(|_, s| s.relay.as_ref().is_none_or(|r| !r.closed()));
        match command {
            A_OPEN => self.open(arg0, &data, max_payload),
            A_OKAY => {
                match self.stream_mut(arg1, arg0) {
                    Some(Stream {
                        relay: Some(relay), ..
                    }) => {
                        relay.okay();
                        return Ok(());
                    }
                    Some(stream) => stream.awaiting_okay = false,
                    None => return Ok(()),
                }
                self.pump(arg1)?;
                self.resume_sync()
            }
            A_WRTE => {
                let Some(stream) = self.streams.get_mut(&arg1) else {
                    tracing::debug!(local_id = arg1, "adbd: WRTE to no stream");
                    return Ok(());
                };
                let remote_id = stream.remote_id;
                if let Some(relay) = stream.relay.as_mut() {
                    if relay.write(&data).is_err() {
                        // The device's side is gone: end the stream.
                        self.streams.remove(&arg1);
                        return self.send(Packet::new(A_CLSE, arg1, remote_id, Vec::new()));
                    }
                }
                if stream.okay_owed {
                    // A WRTE before we acknowledged the last: the peer does
                    // not wait, so nothing it sends can be held back.
                    tracing::debug!(local_id = arg1, "adbd: WRTE before OKAY; stream closed");
                    self.streams.remove(&arg1);
                    return self.send(Packet::new(A_CLSE, arg1, remote_id, Vec::new()));
                }
                if stream.sync.is_some() {
                    return self.feed_sync(arg1, &data);
                }
                // Shell stdin (v2 ids 0, 4, 5) and exec input have nowhere to go.
                self.send(Packet::new(A_OKAY, arg1, remote_id, Vec::new()))?;
                self.pump(arg1)
            }
            A_CLSE => {
                // adbd answers a peer's CLSE with its own (sockets.cpp:
                // local_socket_close shuts its remote socket down, and
                // remote_socket_shutdown sends CLSE): a client that closes
                // first, as adb-shell does after every sync, waits for it. The
                // adb server ignores a CLSE for a stream it has dropped.
                let Some(stream) = self.stream_mut(arg1, arg0) else {
                    return Ok(());
                };
                let remote_id = stream.remote_id;
                // adbd restarts whether or not its answer was read.
                self.restarted |= stream.restarts;
                tracing::debug!(local_id = arg1, "adbd: peer closed stream");
                self.streams.remove(&arg1);
                self.send(Packet::new(A_CLSE, arg1, remote_id, Vec::new()))
            }
            A_AUTH => {
                tracing::debug!("adbd: AUTH ignored: we never ask for it");
                Ok(())
            }
            other => {
                tracing::debug!(command = %command_name(other), "adbd: ignored packet");
                Ok(())
            }
        }
    }

    /// The peer's CNXN: answer with ours. A second CNXN starts over, as a
    /// reconnecting peer means it.
    fn connect(&mut self, max_data: u32, banner: &[u8]) -> Result<(), PacketError> {
        tracing::debug!(
            max_data,
            banner = %String::from_utf8_lossy(banner).trim_end_matches('\0'),
            "adbd: CNXN"
        );
        let max_payload = match max_data as usize {
            0 => MAX_DATA_V1,
            n => n.min(MAX_DATA),
        };
        self.max_payload = Some(max_payload);
        self.streams.clear();
        let ours = self.device.banner().into_bytes();
        self.send(Packet::new(A_CNXN, VERSION, MAX_DATA as u32, ours))
    }

    fn open(&mut self, remote_id: u32, name: &[u8], max_payload: usize) -> Result<(), PacketError> {
        let name_text = String::from_utf8_lossy(name);
        let name_text = name_text.trim_end_matches('\0');
        if remote_id == 0 {
            tracing::debug!(service = name_text, "adbd: OPEN without an id, ignored");
            return Ok(());
        }
        let Some(service) = Service::parse(name) else {
            tracing::debug!(service = name_text, "adbd: OPEN refused");
            return self.send(Packet::new(A_CLSE, 0, remote_id, Vec::new()));
        };
        if self.streams.len() >= MAX_STREAMS {
            tracing::debug!(
                service = name_text,
                MAX_STREAMS,
                "adbd: OPEN refused: too many streams"
            );
            return self.send(Packet::new(A_CLSE, 0, remote_id, Vec::new()));
        }
        let one_shot = !matches!(service, Service::Sync | Service::Tcp(_));
        if one_shot && self.buffered() >= MAX_BUFFERED {
            tracing::debug!(
                service = name_text,
                MAX_BUFFERED,
                "adbd: OPEN refused: the peer has not taken earlier answers"
            );
            return self.send(Packet::new(A_CLSE, 0, remote_id, Vec::new()));
        }
        if let Service::Tcp(port) = service {
            return self.open_tcp(remote_id, port, max_payload);
        }
        // adbd opens the file first and refuses the OPEN when it cannot.
        if let Service::Dev(path) = &service {
            if self
                .device
                .stat(path)
                .is_none_or(|(mode, _, _)| mode & 0o170000 != 0o100000)
            {
                tracing::debug!(path, "adbd: dev: no such file");
                return self.send(Packet::new(A_CLSE, 0, remote_id, Vec::new()));
            }
        }
        let local_id = self.allocate_id();
        tracing::debug!(service = name_text, local_id, remote_id, "adbd: OPEN");
        self.send(Packet::new(A_OKAY, local_id, remote_id, Vec::new()))?;
        // A shell packet's header rides in the same WRTE as its data.
        let answer = run_one_shot(&service, self.device, max_payload.saturating_sub(5));
        let (answer, restarts) = match answer {
            Some((bytes, restarts)) => (Some(bytes), restarts),
            None => (None, false),
        };
        let stream = Stream {
            sync: answer.is_none().then(SyncSession::default),
            finished: answer.is_some(),
            outbox: answer.unwrap_or_default().into(),
            restarts,
            ..Stream::new(remote_id)
        };
        self.streams.insert(local_id, stream);
        self.pump(local_id)
    }

    /// `tcp:PORT`: connect on the device's side, or refuse as adbd refuses a
    /// port nothing listens on (CLSE).
    fn open_tcp(
        &mut self,
        remote_id: u32,
        port: u16,
        max_payload: usize,
    ) -> Result<(), PacketError> {
        let upstream = match self.device.connect_tcp(port) {
            Ok(upstream) => upstream,
            Err(e) => {
                tracing::debug!(port, error = %e, "adbd: tcp: refused");
                return self.send(Packet::new(A_CLSE, 0, remote_id, Vec::new()));
            }
        };
        let local_id = self.allocate_id();
        tracing::debug!(port, local_id, remote_id, "adbd: OPEN tcp");
        self.send(Packet::new(A_OKAY, local_id, remote_id, Vec::new()))?;
        let relay = Relay::start(
            upstream,
            Arc::clone(&self.writer),
            local_id,
            remote_id,
            max_payload,
        )?;
        self.streams.insert(
            local_id,
            Stream {
                relay: Some(relay),
                ..Stream::new(remote_id)
            },
        );
        Ok(())
    }

    /// Bytes of answers waiting to be sent, on every stream.
    fn buffered(&self) -> usize {
        self.streams.values().map(|s| s.outbox.len()).sum()
    }

    /// The peer wrote `data` on the `sync:` stream `local_id`: answer what
    /// the connection has room for, and acknowledge the WRTE once every
    /// whole request in it is answered.
    fn feed_sync(&mut self, local_id: u32, data: &[u8]) -> Result<(), PacketError> {
        let room = MAX_BUFFERED.saturating_sub(self.buffered());
        let Some(stream) = self.streams.get_mut(&local_id) else {
            return Ok(());
        };
        let Some(session) = stream.sync.as_mut() else {
            return Ok(());
        };
        let mut answers = Vec::new();
        let fed = session.feed(data, self.device, &mut answers, room);
        stream.outbox.extend(answers);
        let remote_id = stream.remote_id;
        match fed {
            Fed::Ended => stream.finished = true,
            Fed::Paused => stream.okay_owed = true,
            Fed::Done => stream.okay_owed = false,
        }
        if !stream.okay_owed {
            self.send(Packet::new(A_OKAY, local_id, remote_id, Vec::new()))?;
        }
        self.pump(local_id)
    }

    /// Answers went out: let `sync:` streams whose requests wait go on,
    /// while there is room.
    fn resume_sync(&mut self) -> Result<(), PacketError> {
        let mut waiting: Vec<u32> = self
            .streams
            .iter()
            .filter(|(_, s)| s.okay_owed)
            .map(|(&id, _)| id)
            .collect();
        waiting.sort_unstable();
        for local_id in waiting {
            if self.buffered() >= MAX_BUFFERED {
                break;
            }
            self.feed_sync(local_id, &[])?;
        }
        Ok(())
    }

    /// Send what the stream may send now: the next WRTE if none is out, or
    /// CLSE if it is finished and flushed.
    fn pump(&mut self, local_id: u32) -> Result<(), PacketError> {
        let max_payload = self.max_payload.unwrap_or(MAX_DATA_V1);
        let Some(stream) = self.streams.get_mut(&local_id) else {
            return Ok(());
        };
        if stream.awaiting_okay {
            return Ok(());
        }
        let remote_id = stream.remote_id;
        if !stream.outbox.is_empty() {
            let n = stream.outbox.len().min(max_payload);
            let data: Vec<u8> = stream.outbox.drain(..n).collect();
            stream.awaiting_okay = true;
            self.send(Packet::new(A_WRTE, local_id, remote_id, data))
        } else if stream.finished {
            self.restarted |= stream.restarts;
            self.streams.remove(&local_id);
            tracing::debug!(local_id, remote_id, "adbd: stream done");
            self.send(Packet::new(A_CLSE, local_id, remote_id, Vec::new()))
        } else {
            Ok(())
        }
    }

    /// The stream `local_id`, if the peer's `remote_id` matches it (0 matches
    /// any: a CLSE for a stream the peer never learnt our id for).
    fn stream_mut(&mut self, local_id: u32, remote_id: u32) -> Option<&mut Stream> {
        let stream = self.streams.get_mut(&local_id)?;
        (remote_id == 0 || stream.remote_id == remote_id).then_some(stream)
    }

    fn allocate_id(&mut self) -> u32 {
        loop {
            let id = self.next_id;
            self.next_id = self.next_id.checked_add(1).unwrap_or(1);
            if !self.streams.contains_key(&id) {
                return id;
            }
        }
    }

    fn send(&mut self, packet: Packet) -> Result<(), PacketError> {
        trace(&packet, "adbd ->");
        relay::send(&self.writer, &packet)?;
        Ok(())
    }
}

/// One packet in the trace log, each way.
fn trace(packet: &Packet, direction: &'static str) {
    tracing::trace!(
        command = %command_name(packet.command),
        arg0 = packet.arg0,
        arg1 = packet.arg1,
        len = packet.data.len(),
        "{direction}"
    );
}
