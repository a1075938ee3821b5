//! The listener: one thread per accepted connection, each running
//! `connection::run` against the shared [`Device`]. [`ServerHandle`] serves in
//! the background and can pull the plug: the listener closes and every open
//! connection is shut down, as when a phone is unplugged mid-episode.
//!
//! The listener outlives what it cannot help: at most [`MAX_CONNECTIONS`]
//! are served at once (one more is closed as soon as it is accepted), and
//! running out of descriptors (EMFILE, ENFILE) or memory for a socket makes
//! it wait [`ACCEPT_BACKOFF`] and accept again, where it used to return the
//! error and end `sim serve` (issue 30: some 450 idle connections did it).
//! [`raise_open_file_limit`] lifts the process's soft descriptor limit to its
//! hard one, as a server that expects many sockets does at start.

use std::{
    collections::HashMap,
    io::{self, ErrorKind},
    net::{Shutdown, SocketAddr, TcpListener, TcpStream},
    sync::{Arc, Mutex, MutexGuard},
    thread::{self, JoinHandle},
    time::Duration,
};

use super::{connection, Device};

/// The most connections served at once. One adb server holds one connection
/// per device; clients that speak the protocol themselves (adb_client, a
/// script) hold a few. Past it a new connection is accepted and closed at
/// once, so the peer sees it end instead of waiting; each one costs three
/// descriptors and a thread, so 256 stays under the usual soft limit of 1024.
pub const MAX_CONNECTIONS: usize = 256;

/// How long the listener waits after `accept` fails for want of a
/// descriptor or of memory, before it tries again: enough for a connection
/// to end and give one back, short enough that nobody notices.
pub const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Raise this process's soft limit of open descriptors (RLIMIT_NOFILE) to
/// its hard limit, and return the soft limit now in force (None when there
/// is none). The default soft limit (1024) is for programs that open a few
/// files; a server's connections each hold descriptors.
pub fn raise_open_file_limit() -> Option<u64> {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current != limit.maximum {
        limit.current = limit.maximum;
        if let Err(e) = setrlimit(Resource::Nofile, limit) {
            tracing::debug!(error = %e, "adbd: RLIMIT_NOFILE not raised");
        }
    }
    getrlimit(Resource::Nofile).current
}

/// Whether a failed `accept` is the system short of something a finished
/// connection gives back (descriptors, buffers, memory): wait and retry.
fn is_exhaustion(e: &io::Error) -> bool {
    use rustix::io::Errno;
    [Errno::MFILE, Errno::NFILE, Errno::NOBUFS, Errno::NOMEM]
        .iter()
        .any(|errno| e.raw_os_error() == Some(errno.raw_os_error()))
}

/// A bound listener, not yet serving.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    addr: SocketAddr,
}

impl Server {
    /// Bind `addr`, e.g. "127.0.0.1:0". Keep clear of ports 5555–5585: the
    /// adb server's emulator scan connects there on its own (DESIGN.md).
    pub fn bind(addr: &str) -> io::Result<Server> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        Ok(Server { listener, addr })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serve connections until the process ends (one thread per connection).
    /// Returns only if accepting fails for a reason that waiting does not
    /// mend (not a connection gone wrong, nor descriptors run out).
    pub fn serve(self, device: Arc<dyn Device>) -> io::Result<()> {
        let connections = Arc::new(Connections::default());
        accept_loop(|| self.listener.accept(), &device, &connections)
    }

    /// Serve in the background; [`ServerHandle::shutdown`] (or dropping the
    /// handle) stops it.
    pub fn spawn(self, device: Arc<dyn Device>) -> ServerHandle {
        let connections = Arc::new(Connections::default());
        let addr = self.addr;
        let accept_thread = {
            let connections = Arc::clone(&connections);
            thread::spawn(move || {
                if let Err(e) = accept_loop(|| self.listener.accept(), &device, &connections) {
                    tracing::warn!(%addr, error = %e, "adbd: listener failed");
                }
            })
        };
        ServerHandle {
            addr,
            connections,
            accept_thread: Some(accept_thread),
        }
    }
}

/// A server running in the background.
#[derive(Debug)]
pub struct ServerHandle {
    addr: SocketAddr,
    connections: Arc<Connections>,
    accept_thread: Option<JoinHandle<()>>,
}

impl ServerHandle {
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Close the listener and drop every open connection: the peer sees the
    /// transport go away at once. Returns once the listener is closed.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        let Some(accept_thread) = self.accept_thread.take() else {
            return;
        };
        self.connections.close_all();
        // accept() blocks; a connection of our own wakes it to see the flag.
        let mut wake = self.addr;
        if wake.ip().is_unspecified() {
            wake.set_ip(match wake {
                SocketAddr::V4(_) => [127, 0, 0, 1].into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        match TcpStream::connect_timeout(&wake, Duration::from_secs(2)) {
            Ok(_) => {
                let _ = accept_thread.join();
            }
            // Not joined: the thread exits on whatever it accepts next.
            Err(e) => {
                tracing::warn!(addr = %self.addr, error = %e, "adbd: could not wake the listener")
            }
        }
        tracing::debug!(addr = %self.addr, "adbd: shut down");
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Accept with `accept` (the listener's, or a test's) and serve each
/// connection on a thread of its own, until shut down or `accept` fails in a
/// way waiting does not mend.
fn accept_loop(
    mut accept: impl FnMut() -> io::Result<(TcpStream, SocketAddr)>,
    device: &Arc<dyn Device>,
    connections: &Arc<Connections>,
) -> io::Result<()> {
    loop {
        let (socket, peer) = match accept() {
            Ok(accepted) => accepted,
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::ConnectionAborted
                        | ErrorKind::ConnectionReset
                        | ErrorKind::Interrupted
                ) =>
            {
                continue
            }
            Err(e) if is_exhaustion(&e) => {
                tracing::warn!(error = %e, backoff = ?ACCEPT_BACKOFF, "adbd: accept failed; waiting");
                thread::sleep(ACCEPT_BACKOFF);
                continue;
            }
            Err(e) => return Err(e),
        };
        let clone = match socket.try_clone() {
            Ok(clone) => clone,
            Err(e) => {
                tracing::debug!(%peer, error = %e, "adbd: connection dropped");
                continue;
            }
        };
        let registered = match Registered::admit(connections, clone) {
            Admission::Served(registered) => registered,
            Admission::Full => {
                tracing::warn!(%peer, MAX_CONNECTIONS, "adbd: too many connections; closed");
                let _ = socket.shutdown(Shutdown::Both);
                continue;
            }
            Admission::Closed => return Ok(()), // shut down; this was the wake-up call
        };
        tracing::debug!(%peer, "adbd: connection");
        if let Err(e) = socket.set_nodelay(true) {
            tracing::debug!(%peer, error = %e, "adbd: TCP_NODELAY not set");
        }
        let device = Arc::clone(device);
        thread::spawn(move || {
            let _registered = registered;
            match connection::run(socket, &*device) {
                Ok(()) => tracing::debug!(%peer, "adbd: connection ended"),
                Err(e) => tracing::debug!(%peer, error = %e, "adbd: connection closed"),
            }
        });
    }
}

/// The open connections, so shutdown can reach them.
#[derive(Debug, Default)]
struct Connections(Mutex<Registry>);

#[derive(Debug, Default)]
struct Registry {
    closed: bool,
    next: u64,
    sockets: HashMap<u64, TcpStream>,
}

impl Connections {
    fn lock(&self) -> MutexGuard<'_, Registry> {
        // A panic elsewhere cannot leave the map half-updated; carry on.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn close_all(&self) {
        let mut registry = self.lock();
        registry.closed = true;
        for (_, socket) in registry.sockets.drain() {
            let _ = socket.shutdown(Shutdown::Both);
        }
    }
}

/// A connection's place in [`Connections`], given up when its thread ends
/// (even by a panic in the device), so a dead connection is never kept open.
struct Registered {
    connections: Arc<Connections>,
    id: u64,
}

/// Whether a new connection is served.
enum Admission {
    Served(Registered),
    /// [`MAX_CONNECTIONS`] are open.
    Full,
    /// The server is shut down.
    Closed,
}

impl Registered {
    fn admit(connections: &Arc<Connections>, socket: TcpStream) -> Admission {
        let mut registry = connections.lock();
        if registry.closed {
            return Admission::Closed;
        }
        if registry.sockets.len() >= MAX_CONNECTIONS {
            return Admission::Full;
        }
        let id = registry.next;
        registry.next += 1;
        registry.sockets.insert(id, socket);
        Admission::Served(Registered {
            connections: Arc::clone(connections),
            id,
        })
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.connections.lock().sockets.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;
    use crate::adbd::{
        test_support::{init_tracing, TestClient},
        FakeDevice,
    };

    /// A server whose `accept` fails with `errno` `failures` times first.
    fn serve_failing(errno: rustix::io::Errno, failures: usize) -> (SocketAddr, Arc<Connections>) {
        init_tracing();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let connections = Arc::new(Connections::default());
        let device: Arc<dyn Device> = Arc::new(FakeDevice::default());
        let mut left = failures;
        let serving = Arc::clone(&connections);
        thread::spawn(move || {
            let accept = || match left.checked_sub(1) {
                Some(n) => {
                    left = n;
                    Err(io::Error::from_raw_os_error(errno.raw_os_error()))
                }
                None => listener.accept(),
            };
            accept_loop(accept, &device, &serving)
        });
        (addr, connections)
    }

    /// Issue 30: `accept` failing with EMFILE ended the listener and `sim
    /// serve` exited 5, with some 450 idle connections holding descriptors.
    #[test]
    fn running_out_of_descriptors_waits_and_serves_on() {
        use rustix::io::Errno;
        for errno in [Errno::MFILE, Errno::NFILE] {
            let (addr, connections) = serve_failing(errno, 3);
            let (mut client, _) = TestClient::connect(addr, 4096);
            assert_eq!(client.run("shell:echo hi"), b"hi\n");
            connections.close_all();
        }
    }

    #[test]
    fn other_accept_errors_still_end_the_listener() {
        let device: Arc<dyn Device> = Arc::new(FakeDevice::default());
        let result = accept_loop(
            || {
                Err(io::Error::from_raw_os_error(
                    rustix::io::Errno::BADF.raw_os_error(),
                ))
            },
            &device,
            &Arc::new(Connections::default()),
        );
        assert!(result.is_err());
    }

    #[test]
    fn connections_up_to_the_bound_are_served_and_one_more_is_closed() {
        // The server's three descriptors and the test's one, per connection.
        assert!(raise_open_file_limit().is_none_or(|n| n >= 4 * MAX_CONNECTIONS as u64 + 64));
        let (handle, _) = crate::adbd::test_support::serve_fake();
        let addr = handle.local_addr();
        let mut held: Vec<TestClient> = (0..MAX_CONNECTIONS - 1)
            .map(|_| TestClient::connect(addr, 4096).0)
            .collect();
        // The last one the bound admits is served in full.
        let (mut last, _) = TestClient::connect(addr, 4096);
        assert_eq!(last.run("shell:echo last"), b"last\n");
        // One past it is accepted and closed at once.
        let mut over = TcpStream::connect(addr).unwrap();
        over.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut byte = [0u8; 1];
        let closed = over.read(&mut byte);
        assert!(
            matches!(&closed, Ok(0))
                || closed
                    .as_ref()
                    .is_err_and(|e| e.kind() == ErrorKind::ConnectionReset),
            "one connection past the bound was not closed: {closed:?}"
        );
        // A connection that ends makes room for another.
        drop(last);
        let mut room = None;
        for _ in 0..100 {
            let mut probe = TcpStream::connect(addr).unwrap();
            probe
                .set_read_timeout(Some(Duration::from_millis(200)))
                .unwrap();
            match probe.read(&mut byte) {
                // Still full: closed at once.
                Ok(0) => thread::sleep(Duration::from_millis(20)),
                // Served: waiting for our CNXN.
                _ => {
                    room = Some(probe);
                    break;
                }
            }
        }
        assert!(
            room.is_some(),
            "a freed place was never given to a new connection"
        );
        assert_eq!(held[0].run("shell:echo first"), b"first\n");
        held.clear();
    }
}
