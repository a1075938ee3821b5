//! The server against a tiny client over a real socket: handshake, each
//! service, flow control, multiplexing, refusals, and malformed input.

use std::{net::TcpStream, sync::Arc, time::Duration};

use super::{
    packet::{Packet, A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_WRTE, MAX_DATA},
    test_support::{serve_fake, TestClient},
    FakeDevice, Server,
};

/// A shell protocol stream as (id, data) packets.
fn v2_packets(mut bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut packets = Vec::new();
    while !bytes.is_empty() {
        let len = u32::from_le_bytes(bytes[1..5].try_into().unwrap()) as usize;
        packets.push((bytes[0], bytes[5..5 + len].to_vec()));
        bytes = &bytes[5 + len..];
    }
    packets
}

/// What a v2 stream said on `id`, all packets joined.
fn v2_channel(packets: &[(u8, Vec<u8>)], id: u8) -> Vec<u8> {
    packets
        .iter()
        .filter(|(i, _)| *i == id)
        .flat_map(|(_, data)| data.clone())
        .collect()
}

#[test]
fn cnxn_is_answered_at_once_with_the_banner() {
    let (server, _) = serve_fake();
    let (_, cnxn) = TestClient::connect(server.local_addr(), 1024 * 1024);
    assert_eq!(cnxn.arg0, 0x0100_0001);
    assert_eq!(cnxn.arg1, MAX_DATA as u32);
    assert_eq!(cnxn.data, FakeDevice::BANNER.as_bytes());
}

#[test]
fn shell_v1_merges_stdout_and_stderr() {
    let (server, _) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    assert_eq!(client.run("shell:echo hi"), b"hi\n");
    assert_eq!(client.run("shell:both"), b"out\nerr\n");
}

#[test]
fn shell_v2_frames_stdout_stderr_and_exit() {
    let (server, _) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    let packets = v2_packets(&client.run("shell,v2,TERM=xterm-256color,raw:both"));
    assert_eq!(
        packets,
        [(1, b"out\n".to_vec()), (2, b"err\n".to_vec()), (3, vec![0])]
    );
    let packets = v2_packets(&client.run("shell,v2,raw:exit 3"));
    assert_eq!(packets, [(3, vec![3])]);
}

#[test]
fn exec_is_binary_safe() {
    let (server, _) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    assert_eq!(client.run("exec:bytes"), FakeDevice::all_bytes());
    // exec carries stdout only.
    assert_eq!(client.run("exec:both"), b"out\n");
}

#[test]
fn output_over_the_peers_maxdata_is_split() {
    let (server, _) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    let (ours, theirs) = client.open("exec:big 10000").unwrap();
    let writes = client.read_to_close(ours, theirs);
    let lengths: Vec<usize> = writes.iter().map(Vec::len).collect();
    assert_eq!(lengths, [4096, 4096, 1808]);
    let expected: Vec<u8> = (0..10000).map(|i| (i % 251) as u8).collect();
    assert_eq!(writes.concat(), expected);

    let (ours, theirs) = client.open("shell,v2,raw:big 10000").unwrap();
    let writes = client.read_to_close(ours, theirs);
    assert!(writes.iter().all(|w| w.len() <= 4096));
    assert_eq!(v2_channel(&v2_packets(&writes.concat()), 1), expected);
}

#[test]
fn one_write_is_outstanding_until_okay() {
    let (server, _) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    let (ours, theirs) = client.open("exec:big 9000").unwrap();
    assert_eq!(client.next_write(ours, theirs).unwrap().len(), 4096);
    assert_eq!(client.recv_within(Duration::from_millis(200)), None);
    client.okay(ours, theirs);
    assert_eq!(client.next_write(ours, theirs).unwrap().len(), 4096);
    client.okay(ours, theirs);
    assert_eq!(client.next_write(ours, theirs).unwrap().len(), 808);
    client.okay(ours, theirs);
    assert_eq!(client.next_write(ours, theirs), None);
}

#[test]
fn streams_interleave_on_one_connection() {
    let (server, _) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    let (a, a_dev) = client.open("exec:big 5000").unwrap();
    assert_eq!(client.next_write(a, a_dev).unwrap().len(), 4096);
    let (b, b_dev) = client.open("exec:echo second").unwrap();
    assert_ne!(a_dev, b_dev);
    assert_eq!(client.next_write(b, b_dev).unwrap(), b"second\n");
    client.okay(a, a_dev);
    assert_eq!(client.next_write(a, a_dev).unwrap().len(), 904);
    client.okay(b, b_dev);
    assert_eq!(client.next_write(b, b_dev), None);
    client.okay(a, a_dev);
    assert_eq!(client.next_write(a, a_dev), None);
}

#[test]
fn a_peer_clse_drops_the_stream() {
    let (server, _) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    let (ours, theirs) = client.open("exec:big 100000").unwrap();
    client.next_write(ours, theirs).unwrap();
    client.send(&Packet::new(A_CLSE, ours, theirs, Vec::new()));
    // Answered with the device's own CLSE, as adbd answers it.
    let echo = client.recv();
    assert_eq!(
        (echo.command, echo.arg0, echo.arg1),
        (A_CLSE, theirs, ours),
        "{echo:?}"
    );
    // A late OKAY, or a second CLSE, for the dropped stream sends nothing.
    client.okay(ours, theirs);
    client.send(&Packet::new(A_CLSE, ours, theirs, Vec::new()));
    assert_eq!(client.recv_within(Duration::from_millis(200)), None);
    assert_eq!(client.run("exec:echo next"), b"next\n");
}

/// adb-shell's way: a sync request answered, then the client closes first
/// and waits for the device's CLSE before it opens the next stream.
#[test]
fn a_sync_stream_closed_by_the_client_is_closed_back() {
    let (server, device) = serve_fake();
    device.put_file("/sdcard/f", 0o100644, b"abc");
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    let (ours, theirs) = client.open("sync:").unwrap();
    let stat = [&b"STAT"[..], &9u32.to_le_bytes(), b"/sdcard/f"].concat();
    client.write(ours, theirs, &stat);
    let answer = client.next_write(ours, theirs).unwrap();
    assert_eq!(&answer[..4], b"STAT");
    client.okay(ours, theirs);
    client.send(&Packet::new(A_CLSE, ours, theirs, Vec::new()));
    assert_eq!(client.next_write(ours, theirs), None, "the device's CLSE");
}

#[test]
fn root_unroot_dev_and_reverse_answer_as_adbd_does_on_a_user_build() {
    let (server, device) = serve_fake();
    device.put_file("/data/local/tmp/hello.txt", 0o100644, b"hello");
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    assert_eq!(
        client.run("root:"),
        b"adbd cannot run as root in production builds\n"
    );
    assert_eq!(client.run("unroot:"), b"adbd not running as root\n");
    assert_eq!(client.run("dev:/data/local/tmp/hello.txt"), b"hello");
    let refused = client.open("dev:/data/local/tmp/missing").unwrap_err();
    assert_eq!((refused.command, refused.arg0), (A_CLSE, 0));
    assert_eq!(client.run("reverse:list-forward"), b"0000");
    assert_eq!(client.run("reverse:killforward-all"), b"OKAY");
    let fail = client.run("reverse:forward:tcp:1;tcp:2");
    assert!(fail.starts_with(b"FAIL0029the virtual phone"), "{fail:?}");
}

/// A phone on a userdebug build: adbd can restart as root and back.
#[derive(Debug, Default)]
struct Rootable {
    root: std::sync::Mutex<bool>,
    inner: FakeDevice,
}

impl super::Device for Rootable {
    fn banner(&self) -> String {
        self.inner.banner()
    }
    fn shell(&self, command: &str) -> super::ShellOutput {
        self.inner.shell(command)
    }
    fn push(
        &self,
        path: &str,
        mode: u32,
        mtime: u32,
        data: Vec<u8>,
    ) -> Result<(), super::SyncFail> {
        self.inner.push(path, mode, mtime, data)
    }
    fn pull(&self, path: &str) -> Result<Vec<u8>, super::SyncFail> {
        self.inner.pull(path)
    }
    fn stat(&self, path: &str) -> Option<(u32, u32, u32)> {
        self.inner.stat(path)
    }
    fn stat_errno(&self, _path: &str) -> u32 {
        13
    }
    fn restart_adbd(&self, root: bool) -> super::Restart {
        let mut now = self.root.lock().unwrap();
        if *now == root {
            return super::Restart::stays(if root {
                "adbd is already running as root\n"
            } else {
                "adbd not running as root\n"
            });
        }
        *now = root;
        super::Restart::restarts(if root {
            "restarting adbd as root\n"
        } else {
            "restarting adbd as non root\n"
        })
    }
}

/// adbd restarts after `restarting adbd as root`: its answer goes out in
/// full, the stream closes, then the connection (the adb client waits for
/// the device to go away and come back). Asked again, it stays.
#[test]
fn root_restarts_adbd_and_ends_the_connection_once_the_answer_is_out() {
    let device = Arc::new(Rootable::default());
    let server = Server::bind("127.0.0.1:0").unwrap().spawn(device.clone());
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    assert_eq!(client.run("root:"), b"restarting adbd as root\n");
    assert!(client.is_closed());
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    assert_eq!(client.run("root:"), b"adbd is already running as root\n");
    assert_eq!(client.run("shell:echo hi"), b"hi\n", "the connection stays");
    assert_eq!(client.run("unroot:"), b"restarting adbd as non root\n");
    assert!(client.is_closed());
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    assert_eq!(client.run("unroot:"), b"adbd not running as root\n");
}

/// A sync STA2 of a path the device may not look at carries its errno
/// (EACCES), not ENOENT.
#[test]
fn sta2_carries_the_devices_errno() {
    let device = Arc::new(Rootable::default());
    let server = Server::bind("127.0.0.1:0").unwrap().spawn(device);
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    let (ours, theirs) = client.open("sync:").unwrap();
    let path = b"/data/data/x";
    let request = [&b"STA2"[..], &(path.len() as u32).to_le_bytes(), path].concat();
    client.write(ours, theirs, &request);
    let answer = client.next_write(ours, theirs).unwrap();
    assert_eq!(&answer[..4], b"STA2");
    assert_eq!(&answer[4..8], &13u32.to_le_bytes());
}

#[test]
fn unknown_services_get_clse() {
    let (server, _) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    for service in ["reboot:", "tcpip:5555", "framebuffer:", "exec:", "jdwp:1"] {
        let reply = client.open(service).unwrap_err();
        assert_eq!(reply.command, A_CLSE, "{service}: {reply:?}");
        assert_eq!(reply.arg0, 0, "{service}");
    }
    // The connection carries on.
    assert_eq!(client.run("shell:echo still here"), b"still here\n");
}

#[test]
fn an_interactive_shell_is_refused_with_a_message() {
    let (server, _) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    let v1 = client.run("shell:");
    assert!(
        v1.starts_with(b"droidscore: no interactive shell"),
        "{v1:?}"
    );
    let packets = v2_packets(&client.run("shell,v2,TERM=xterm,pty:"));
    assert!(v2_channel(&packets, 2).starts_with(b"droidscore: no interactive shell"));
    assert_eq!(packets.last(), Some(&(3, vec![1])));
}

#[test]
fn shell_stdin_is_acknowledged_and_dropped() {
    let (server, _) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    let (ours, theirs) = client.open("exec:big 5000").unwrap();
    client.next_write(ours, theirs).unwrap();
    // v2 close-stdin, then stdin the command never reads.
    client.write(ours, theirs, &[4, 0, 0, 0, 0]);
    client.write(ours, theirs, b"ignored");
    client.okay(ours, theirs);
    assert_eq!(client.next_write(ours, theirs).unwrap().len(), 904);
}

#[test]
fn sync_requests_may_straddle_writes() {
    let (server, device) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    let (ours, theirs) = client.open("sync:").unwrap();
    let content: Vec<u8> = (0..70_000u32).map(|i| (i * 7) as u8).collect();
    let mut upload = b"SEND\x17\0\0\0/data/local/tmp/f,33188".to_vec();
    for chunk in content.chunks(64 * 1024) {
        upload.extend_from_slice(b"DATA");
        upload.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
        upload.extend_from_slice(chunk);
    }
    upload.extend_from_slice(b"DONE\x01\0\0\0");
    for piece in upload.chunks(4093) {
        client.write(ours, theirs, piece);
    }
    assert_eq!(client.next_write(ours, theirs).unwrap(), b"OKAY\0\0\0\0");
    client.okay(ours, theirs);
    assert_eq!(
        device.file("/data/local/tmp/f"),
        Some((0o100644, content.clone()))
    );

    // Two requests in one WRTE; the answers come back in order.
    let request = b"STAT\x11\0\0\0/data/local/tmp/fRECV\x11\0\0\0/data/local/tmp/f";
    client.write(ours, theirs, request);
    let mut answers = Vec::new();
    while answers.len() < 16 + content.len() + 16 + 8 {
        answers.extend(client.next_write(ours, theirs).unwrap());
        client.okay(ours, theirs);
    }
    assert_eq!(&answers[..4], b"STAT");
    assert_eq!(&answers[4..8], &0o100644u32.to_le_bytes());
    assert_eq!(&answers[8..12], &70_000u32.to_le_bytes());
    let mut received = Vec::new();
    let mut rest = &answers[16..];
    while &rest[..4] == b"DATA" {
        let len = u32::from_le_bytes(rest[4..8].try_into().unwrap()) as usize;
        received.extend_from_slice(&rest[8..8 + len]);
        rest = &rest[8 + len..];
    }
    assert_eq!(rest, b"DONE\0\0\0\0");
    assert_eq!(received, content);

    client.write(ours, theirs, b"QUIT\0\0\0\0");
    assert_eq!(client.next_write(ours, theirs), None);
}

#[test]
fn a_failed_push_answers_fail_then_closes() {
    let (server, _) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    let (ours, theirs) = client.open("sync:").unwrap();
    client.write(
        ours,
        theirs,
        b"SEND\x0f\0\0\0/system/x,33188DATA\x01\0\0\0zDONE\0\0\0\0",
    );
    let message = b"couldn't create file: Read-only file system";
    let expected = [&b"FAIL"[..], &(message.len() as u32).to_le_bytes(), message].concat();
    assert_eq!(client.next_write(ours, theirs).unwrap(), expected);
    client.okay(ours, theirs);
    assert_eq!(client.next_write(ours, theirs), None);
}

#[test]
fn packets_before_cnxn_are_ignored() {
    let (server, _) = serve_fake();
    let mut socket = TcpStream::connect(server.local_addr()).unwrap();
    use std::io::Write;
    let open = Packet::new(A_OPEN, 1, 0, b"shell:echo early\0".to_vec());
    socket.write_all(&open.to_bytes()).unwrap();
    drop(socket);
    // A fresh client's first answer is still the CNXN.
    let (mut client, cnxn) = TestClient::connect(server.local_addr(), 4096);
    assert_eq!(cnxn.command, A_CNXN);
    client.send(&open);
    assert_eq!(client.recv().command, A_OKAY);
}

#[test]
fn bad_magic_closes_the_connection() {
    let (server, _) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    let mut bytes = Packet::new(A_OPEN, 1, 0, b"shell:echo hi\0".to_vec()).to_bytes();
    bytes[20..24].copy_from_slice(&A_OPEN.to_le_bytes());
    client.send_raw(&bytes);
    assert!(client.is_closed());
}

#[test]
fn an_oversize_length_closes_the_connection() {
    let (server, _) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    let mut bytes = Packet::new(A_WRTE, 1, 1, Vec::new()).to_bytes();
    bytes[12..16].copy_from_slice(&(64u32 << 20).to_le_bytes());
    client.send_raw(&bytes);
    assert!(client.is_closed());
}

#[test]
fn garbage_closes_one_connection_not_the_server() {
    let (server, _) = serve_fake();
    for garbage in [
        &b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"[..],
        &[0; 24],
        &[0xff; 100],
        b"CNXN",
    ] {
        let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
        client.send_raw(garbage);
        if garbage.len() >= 24 {
            assert!(client.is_closed(), "{garbage:?}");
        }
    }
    let (mut client, _) = TestClient::connect(server.local_addr(), 4096);
    assert_eq!(client.run("exec:echo ok"), b"ok\n");
}

/// Unplugging the phone: the listener closes and open connections drop.
#[test]
fn shutdown_drops_open_connections() {
    // Its own loopback address: every other test listens on 127.0.0.1, so
    // once this listener closes no other test's listener can take over its
    // port and answer the connect below (which made this test flaky).
    let device = Arc::new(FakeDevice::default());
    let server = Server::bind("127.0.83.1:0").unwrap().spawn(device);
    let addr = server.local_addr();
    let (mut client, _) = TestClient::connect(addr, 4096);
    let (ours, theirs) = client.open("exec:big 100000").unwrap();
    client.next_write(ours, theirs).unwrap();
    server.shutdown();
    assert!(client.is_closed());
    // The listener's socket closes when its last descriptor does. A test
    // thread spawning a process copies every descriptor into the child until
    // that child's exec closes them (close-on-exec), so under load the socket
    // may outlive our close by that window and still take a connection:
    // refused within a few seconds is the claim, not refused at once.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while TcpStream::connect(addr).is_ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "{addr} still takes connections 10 s after shutdown"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
