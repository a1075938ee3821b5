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
pub(super) fn accept_loop(
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
pub(super) struct Connections(Mutex<Registry>);

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

    pub(super) fn close_all(&self) {
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
