//! The listener's own tests: `accept` failing for want of descriptors and
//! serving on, and [`MAX_CONNECTIONS`] served with one more closed. Apart
//! from server.rs so that it need not import the test client, which imports
//! the server.

use std::{
    io::{self, ErrorKind, Read},
    net::{SocketAddr, TcpListener, TcpStream},
    sync::Arc,
    thread,
    time::Duration,
};

use super::server::{accept_loop, raise_open_file_limit, Connections, MAX_CONNECTIONS};
use super::Device;
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
