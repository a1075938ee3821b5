//! Faults the virtual phone can be told to have, so the runner's handling of
//! a phone that goes away is tested through the real adb server rather than
//! assumed: a cable pulled after N commands (every connection dropped, new
//! ones refused for a while, then the phone is back, as after a reboot), and
//! an adbd that stops answering after N commands (connections stay open and
//! nothing comes back, the case a socket without a deadline never notices).
//!
//! A "command" is one request the phone answers: a shell or exec command, a
//! file pushed or pulled. The (N+1)th is the one that fails.

use std::{
    io,
    net::SocketAddr,
    sync::{
        atomic::{AtomicU64, Ordering},
        mpsc, Arc, Condvar, Mutex,
    },
    time::Duration,
};

use super::{Device, Server, ShellOutput, SyncFail};

/// Which faults to inject; `Faults::default()` is a healthy phone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Faults {
    /// Drop every connection when command N+1 arrives (once).
    pub drop_after: Option<u64>,
    /// After a drop, refuse new connections this long before listening again.
    pub refuse_for: Duration,
    /// From command N+1 on, accept each command and never answer it.
    pub stall_after: Option<u64>,
}

impl Faults {
    pub fn any(&self) -> bool {
        self.drop_after.is_some() || self.stall_after.is_some()
    }
}

/// Serve `device` on `server` with `faults`, until the process ends. A drop
/// closes the listener and every connection ([`super::ServerHandle::shutdown`]),
/// waits `refuse_for` (connections are refused: nothing listens), then binds
/// the same address again.
pub fn serve(server: Server, device: Arc<dyn Device>, faults: Faults) -> io::Result<()> {
    let addr = server.local_addr();
    let (dropped, drops) = mpsc::channel();
    let faulty: Arc<dyn Device> = Arc::new(Faulty::new(device, faults, dropped));
    let mut handle = server.spawn(Arc::clone(&faulty));
    // Each message is one drop the device asked for.
    while let Ok(done) = drops.recv() {
        handle.shutdown();
        done.signal();
        tracing::info!(%addr, refuse_for = ?faults.refuse_for, "virtual phone: every connection dropped");
        std::thread::sleep(faults.refuse_for);
        handle = rebind(addr)?.spawn(Arc::clone(&faulty));
        tracing::info!(%addr, "virtual phone: listening again");
    }
    // A drop happens once: its sender is gone, and the phone serves on
    // until the process ends, as `Server::serve` does.
    let _serving = handle;
    loop {
        std::thread::park();
    }
}

/// The same address again; the old listener's port may take a moment to free.
fn rebind(addr: SocketAddr) -> io::Result<Server> {
    let mut tries = 0;
    loop {
        match Server::bind(&addr.to_string()) {
            Ok(server) => return Ok(server),
            Err(e) if e.kind() == io::ErrorKind::AddrInUse && tries < 50 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Set once the connections are gone, so the command that caused the drop
/// is not answered on a connection that is still open.
#[derive(Debug, Default)]
struct Done {
    gone: Mutex<bool>,
    signalled: Condvar,
}

impl Done {
    fn signal(&self) {
        *self.gone.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.signalled.notify_all();
    }

    fn wait(&self, at_most: Duration) {
        let gone = self.gone.lock().unwrap_or_else(|p| p.into_inner());
        let _ = self
            .signalled
            .wait_timeout_while(gone, at_most, |gone| !*gone);
    }
}

/// A [`Device`] that counts the commands it answers and fails as told.
struct Faulty {
    inner: Arc<dyn Device>,
    faults: Faults,
    commands: AtomicU64,
    drop: Mutex<Option<mpsc::Sender<Arc<Done>>>>,
}

impl Faulty {
    fn new(inner: Arc<dyn Device>, faults: Faults, drop: mpsc::Sender<Arc<Done>>) -> Faulty {
        Faulty {
            inner,
            faults,
            commands: AtomicU64::new(0),
            drop: Mutex::new(Some(drop)),
        }
    }

    /// Count one command and fail it if its number says so; returns only if
    /// it is to be answered (true) or the connection it came on is gone (false).
    fn admit(&self) -> bool {
        let n = self.commands.fetch_add(1, Ordering::SeqCst) + 1;
        if self.faults.stall_after.is_some_and(|after| n > after) {
            tracing::info!(command = n, "virtual phone: stalled (never answers)");
            loop {
                std::thread::park();
            }
        }
        if self.faults.drop_after.is_some_and(|after| n > after) {
            // Only the first such command drops; the sender goes with it.
            let sender = self.drop.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some(sender) = sender {
                tracing::info!(command = n, "virtual phone: dropping every connection");
                let done = Arc::new(Done::default());
                if sender.send(Arc::clone(&done)).is_ok() {
                    done.wait(Duration::from_secs(10));
                    return false;
                }
            }
        }
        true
    }
}

impl Device for Faulty {
    fn banner(&self) -> String {
        self.inner.banner()
    }

    fn shell(&self, command: &str) -> ShellOutput {
        if !self.admit() {
            return ShellOutput::fail(255, "the virtual phone dropped this connection");
        }
        self.inner.shell(command)
    }

    fn push(&self, path: &str, mode: u32, mtime: u32, data: Vec<u8>) -> Result<(), SyncFail> {
        if !self.admit() {
            return Err(SyncFail::from("the virtual phone dropped this connection"));
        }
        self.inner.push(path, mode, mtime, data)
    }

    fn pull(&self, path: &str) -> Result<Vec<u8>, SyncFail> {
        if !self.admit() {
            return Err(SyncFail::from("the virtual phone dropped this connection"));
        }
        self.inner.pull(path)
    }

    fn stat(&self, path: &str) -> Option<(u32, u32, u32)> {
        self.inner.stat(path)
    }

    fn list(&self, path: &str) -> Vec<crate::adbd::DirEntry> {
        self.inner.list(path)
    }

    fn stat_errno(&self, path: &str) -> u32 {
        self.inner.stat_errno(path)
    }

    /// Not counted as a command; a stalled adbd does not answer it either.
    fn restart_adbd(&self, root: bool) -> crate::adbd::Restart {
        let answered = self.commands.load(Ordering::SeqCst);
        if self
            .faults
            .stall_after
            .is_some_and(|after| answered >= after)
        {
            tracing::info!("virtual phone: stalled (never answers root:)");
            loop {
                std::thread::park();
            }
        }
        self.inner.restart_adbd(root)
    }

    fn connect_tcp(&self, port: u16) -> io::Result<std::net::TcpStream> {
        self.inner.connect_tcp(port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adbd::FakeDevice;

    fn faulty(faults: Faults) -> (Faulty, mpsc::Receiver<Arc<Done>>) {
        let (send, receive) = mpsc::channel();
        let inner: Arc<dyn Device> = Arc::new(FakeDevice::default());
        (Faulty::new(inner, faults, send), receive)
    }

    #[test]
    fn a_healthy_phone_answers_every_command() {
        let (phone, drops) = faulty(Faults::default());
        for _ in 0..100 {
            assert!(phone.admit());
        }
        assert!(drops.try_recv().is_err());
    }

    #[test]
    fn the_command_after_the_nth_asks_for_one_drop_and_goes_unanswered() {
        let (phone, drops) = faulty(Faults {
            drop_after: Some(3),
            ..Faults::default()
        });
        for _ in 0..3 {
            assert!(phone.admit());
        }
        // The server side: receive the drop, then say the connections are gone.
        let server = std::thread::spawn(move || {
            let done = drops.recv().unwrap();
            done.signal();
            drops
        });
        assert!(!phone.admit(), "command 4 is dropped");
        let drops = server.join().unwrap();
        // Later commands (on new connections) are answered; no second drop.
        assert!(phone.admit());
        assert!(drops.try_recv().is_err());
    }

    #[test]
    fn a_stalled_phone_never_answers() {
        let (phone, _drops) = faulty(Faults {
            stall_after: Some(1),
            ..Faults::default()
        });
        let phone = Arc::new(phone);
        assert!(phone.admit());
        let (answered, answers) = mpsc::channel();
        let stalled = Arc::clone(&phone);
        std::thread::spawn(move || {
            let _ = answered.send(stalled.admit());
        });
        assert!(
            answers.recv_timeout(Duration::from_millis(300)).is_err(),
            "command 2 must never be answered"
        );
    }
}
