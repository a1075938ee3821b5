//! The `tcp:PORT` service: a stream relayed to a TCP connection the device
//! opens to PORT on its own loopback — what `adb forward tcp:LOCAL tcp:PORT`
//! reaches on a phone. Bytes the peer writes go to the connection (each WRTE
//! acknowledged once written); bytes the connection sends come back as WRTE
//! packets, one at a time, the next after the peer's OKAY. Either side
//! ending ends the stream: the connection's end sends CLSE, the peer's CLSE
//! shuts the connection down.
//!
//! The connection's thread owns the socket for reading; this relay's own
//! thread reads the TCP connection and writes through the shared writer, so
//! the two never interleave a packet.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use super::packet::{Packet, A_CLSE, A_WRTE};

/// The adb socket's write side, shared by the connection and its relays.
pub(crate) type Writer = Arc<Mutex<TcpStream>>;

/// Write one whole packet.
pub(crate) fn send(writer: &Writer, packet: &Packet) -> std::io::Result<()> {
    let bytes = packet.to_bytes();
    writer
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .write_all(&bytes)
}

/// One open `tcp:` stream.
pub(crate) struct Relay {
    upstream: TcpStream,
    /// One message per OKAY the peer sends for our WRTE.
    okays: mpsc::Sender<()>,
    /// CLSE has gone out, or the peer's has come in: nothing more to relay.
    closed: Arc<AtomicBool>,
}

impl Relay {
    /// Start relaying `upstream` on the stream (`local_id`, `remote_id`),
    /// after the OPEN's OKAY has gone out.
    pub(crate) fn start(
        upstream: TcpStream,
        writer: Writer,
        local_id: u32,
        remote_id: u32,
        max_payload: usize,
    ) -> std::io::Result<Relay> {
        let mut reader = upstream.try_clone()?;
        let (okays, okay_rx) = mpsc::channel();
        let closed = Arc::new(AtomicBool::new(false));
        let thread_closed = Arc::clone(&closed);
        std::thread::spawn(move || {
            let mut buf = vec![0u8; max_payload.max(1)];
            loop {
                let n = match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let wrte = Packet::new(A_WRTE, local_id, remote_id, buf[..n].to_vec());
                // The next WRTE waits for the peer's OKAY; a closed stream
                // (or connection) drops the sender and ends the wait.
                if send(&writer, &wrte).is_err() || okay_rx.recv().is_err() {
                    return;
                }
            }
            if !thread_closed.swap(true, Ordering::SeqCst) {
                let _ = send(
                    &writer,
                    &Packet::new(A_CLSE, local_id, remote_id, Vec::new()),
                );
            }
        });
        Ok(Relay {
            upstream,
            okays,
            closed,
        })
    }

    /// The peer wrote: pass it on. An error means the connection is gone.
    pub(crate) fn write(&mut self, data: &[u8]) -> std::io::Result<()> {
        self.upstream.write_all(data)
    }

    /// The peer acknowledged our last WRTE.
    pub(crate) fn okay(&self) {
        let _ = self.okays.send(());
    }

    /// Whether the stream has ended (its CLSE sent, or the peer's received).
    pub(crate) fn closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }
}

impl Drop for Relay {
    /// The peer closed the stream, or the adb connection ended: close the
    /// TCP connection, which ends the relay's thread.
    fn drop(&mut self) {
        self.closed.store(true, Ordering::SeqCst);
        let _ = self.upstream.shutdown(Shutdown::Both);
    }
}
