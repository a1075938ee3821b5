//! The listener: one thread per accepted connection, each running
//! `connection::run` against the shared [`Device`]. [`ServerHandle`] serves in
//! the background and can pull the plug: the listener closes and every open
//! connection is shut down, as when a phone is unplugged mid-episode.

use std::{
    collections::HashMap,
    io::{self, ErrorKind},
    net::{Shutdown, SocketAddr, TcpListener, TcpStream},
    sync::{Arc, Mutex, MutexGuard},
    thread::{self, JoinHandle},
    time::Duration,
};

use super::{connection, Device};

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
    /// Returns only if accepting fails for a reason other than one
    /// connection going wrong (e.g. out of file descriptors).
    pub fn serve(self, device: Arc<dyn Device>) -> io::Result<()> {
        accept_loop(&self.listener, &device, &Arc::new(Connections::default()))
    }

    /// Serve in the background; [`ServerHandle::shutdown`] (or dropping the
    /// handle) stops it.
    pub fn spawn(self, device: Arc<dyn Device>) -> ServerHandle {
        let connections = Arc::new(Connections::default());
        let addr = self.addr;
        let accept_thread = {
            let connections = Arc::clone(&connections);
            thread::spawn(move || {
                if let Err(e) = accept_loop(&self.listener, &device, &connections) {
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

fn accept_loop(
    listener: &TcpListener,
    device: &Arc<dyn Device>,
    connections: &Arc<Connections>,
) -> io::Result<()> {
    loop {
        let (socket, peer) = match listener.accept() {
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
            Err(e) => return Err(e),
        };
        let clone = match socket.try_clone() {
            Ok(clone) => clone,
            Err(e) => {
                tracing::debug!(%peer, error = %e, "adbd: connection dropped");
                continue;
            }
        };
        let Some(registered) = Registered::new(connections, clone) else {
            return Ok(()); // shut down; this was the wake-up call
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

impl Registered {
    /// None once the server is shut down.
    fn new(connections: &Arc<Connections>, socket: TcpStream) -> Option<Registered> {
        let mut registry = connections.lock();
        if registry.closed {
            return None;
        }
        let id = registry.next;
        registry.next += 1;
        registry.sockets.insert(id, socket);
        Some(Registered {
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
