//! The bounds on what one connection can make the device hold (issue 30):
//! streams open at once ([`MAX_STREAMS`]) and answers waiting to be sent
//! ([`MAX_BUFFERED`]), each at the bound and one past it, through a real
//! socket as the wire tests are.

use std::time::Duration;

use super::{
    connection::{MAX_BUFFERED, MAX_STREAMS},
    packet::{Packet, A_CLSE, A_OKAY, A_OPEN, A_WRTE},
    test_support::{serve_fake, TestClient},
};

/// What the peer's window is in these tests: large, so big answers take few packets.
const MAX_DATA: u32 = 256 * 1024;

/// OPEN `service`; the device's id, or None when it answers CLSE.
fn open(client: &mut TestClient, ours: u32, service: &str) -> Option<u32> {
    client.send(&Packet::new(
        A_OPEN,
        ours,
        0,
        format!("{service}\0").into_bytes(),
    ));
    let reply = client.recv();
    match reply.command {
        A_OKAY => Some(reply.arg0),
        A_CLSE => {
            assert_eq!((reply.arg0, reply.arg1), (0, ours), "{reply:?}");
            None
        }
        _ => panic!("expected OKAY or CLSE, got {reply:?}"),
    }
}

fn sync_request(id: &[u8; 4], path: &[u8]) -> Vec<u8> {
    [&id[..], &(path.len() as u32).to_le_bytes(), path].concat()
}

#[test]
fn streams_up_to_the_bound_open_and_one_more_is_refused() {
    let (server, _) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), MAX_DATA);
    let mut open_ids = Vec::new();
    for ours in 1..=MAX_STREAMS as u32 {
        let theirs = open(&mut client, ours, "exec:echo held").expect("under the bound");
        // Its one WRTE, never acknowledged: the stream stays open.
        assert_eq!(client.next_write(ours, theirs).unwrap(), b"held\n");
        open_ids.push((ours, theirs));
    }
    let past = MAX_STREAMS as u32 + 1;
    assert_eq!(open(&mut client, past, "exec:echo past"), None);
    // A stream that ends makes room for another.
    let (ours, theirs) = open_ids[0];
    client.okay(ours, theirs);
    assert_eq!(client.next_write(ours, theirs), None);
    assert_eq!(client.run("exec:echo again"), b"again\n");
}

/// Issue 30: 32 `exec:screencap` streams opened and never acknowledged
/// (1.2 KB sent) held every whole answer, +330 MiB: no bound on what waits.
#[test]
fn answers_waiting_on_a_peer_that_reads_nothing_are_bounded() {
    const BIG: usize = 6 * 1024 * 1024;
    let (server, _) = serve_fake();
    let (mut client, _) = TestClient::connect(server.local_addr(), MAX_DATA);
    let mut accepted = Vec::new();
    for ours in 1..=32 {
        match open(&mut client, ours, &format!("exec:big {BIG}")) {
            Some(theirs) => {
                assert_eq!(
                    client.next_write(ours, theirs).unwrap().len(),
                    MAX_DATA as usize
                );
                accepted.push((ours, theirs));
            }
            None => break,
        }
    }
    // Opened while under MAX_BUFFERED: 0, 6 and 12 MiB wait; 18 is over.
    let waiting = |k: usize| k * (BIG - MAX_DATA as usize);
    assert!(waiting(2) < MAX_BUFFERED && waiting(3) >= MAX_BUFFERED);
    assert_eq!(
        accepted.len(),
        3,
        "streams answered while the peer read nothing"
    );
    // Taking the answers makes room again; they arrive whole.
    for (ours, theirs) in accepted {
        client.okay(ours, theirs);
        let rest = client.read_to_close(ours, theirs).concat();
        assert_eq!(rest.len(), BIG - MAX_DATA as usize);
    }
    let (ours, theirs) = client.open(&format!("exec:big {BIG}")).unwrap();
    assert_eq!(client.read_to_close(ours, theirs).concat().len(), BIG);
}

/// A `sync:` peer that sends many RECVs in one WRTE and reads nothing: the
/// answers stop at the bound and the WRTE goes unacknowledged until the
/// peer has taken them; then the rest are answered, every one whole.
#[test]
fn sync_requests_wait_while_their_answers_are_not_taken() {
    const FILE: usize = 6 * 1024 * 1024;
    const RECVS: usize = 10;
    let (server, device) = serve_fake();
    device.put_file("/sdcard/big", 0o100644, &vec![7u8; FILE]);
    let (mut client, _) = TestClient::connect(server.local_addr(), MAX_DATA);
    let (ours, theirs) = client.open("sync:").unwrap();
    let requests = sync_request(b"RECV", b"/sdcard/big").repeat(RECVS);
    client.send(&Packet::new(A_WRTE, ours, theirs, requests));
    // The first answers' first WRTE, and no OKAY for ours.
    let first = client.recv();
    assert_eq!(first.command, A_WRTE, "{first:?}");
    assert_eq!(client.recv_within(Duration::from_millis(300)), None);
    let mut answers = first.data;
    let mut acknowledged = false;
    // Each RECV: DATA chunks of 64 KiB with 8-byte headers, then DONE.
    let expected = RECVS * (FILE + FILE / (64 * 1024) * 8 + 8);
    while answers.len() < expected || !acknowledged {
        client.okay(ours, theirs);
        loop {
            let packet = client.recv();
            match packet.command {
                A_WRTE => {
                    answers.extend(packet.data);
                    break;
                }
                A_OKAY => acknowledged = true,
                _ => panic!("expected WRTE or OKAY, got {packet:?}"),
            }
            if answers.len() >= expected && acknowledged {
                break;
            }
        }
    }
    assert_eq!(answers.len(), expected);
    assert_eq!(&answers[answers.len() - 8..], b"DONE\0\0\0\0");
}

#[test]
fn a_wrte_sent_before_our_okay_closes_the_stream() {
    const FILE: usize = 6 * 1024 * 1024;
    let (server, device) = serve_fake();
    device.put_file("/sdcard/big", 0o100644, &vec![7u8; FILE]);
    let (mut client, _) = TestClient::connect(server.local_addr(), MAX_DATA);
    let (ours, theirs) = client.open("sync:").unwrap();
    let requests = sync_request(b"RECV", b"/sdcard/big").repeat(5);
    client.send(&Packet::new(A_WRTE, ours, theirs, requests.clone()));
    assert_eq!(client.recv().command, A_WRTE);
    // Ours is not acknowledged: a peer that writes again does not wait.
    client.send(&Packet::new(A_WRTE, ours, theirs, requests));
    let close = client.recv();
    assert_eq!(
        (close.command, close.arg0, close.arg1),
        (A_CLSE, theirs, ours)
    );
    assert_eq!(client.run("exec:echo next"), b"next\n");
}
