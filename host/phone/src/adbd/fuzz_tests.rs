//! Fuzzing the wire (issue 30), bounded to a few seconds in `cargo test`
//! (`PROPTEST_CASES=N` runs N cases of each instead): arbitrary bytes into
//! the packet decoder, arbitrary packet sequences into one connection
//! (driven in this thread, so a panic fails the test instead of ending one
//! connection's thread quietly), and arbitrary `sync:` requests in arbitrary
//! pieces under arbitrary answer limits. None may panic; the sync session's
//! answers must not depend on how its input was split or paused.

use std::{
    io::{Read, Write},
    net::{Shutdown, TcpListener, TcpStream},
    time::Duration,
};

use proptest::prelude::*;

use super::{
    connection,
    packet::{Packet, A_AUTH, A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_WRTE},
    sync::{Fed, SyncSession},
    FakeDevice,
};

/// Cases per property: `PROPTEST_CASES` when set, else `default`.
pub(crate) fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// Services an OPEN may name: every kind we serve, some we refuse, some junk.
const SERVICES: &[&str] = &[
    "shell:echo hi",
    "shell,v2,raw:both",
    "shell:",
    "exec:big 300000",
    "exec:bytes",
    "sync:",
    "tcp:1",
    "dev:/f",
    "root:",
    "reverse:list-forward",
    "reverse:forward:tcp:1;tcp:2",
    "reboot:",
    "",
];

/// One packet as a peer might send it: a real command or junk, small stream
/// ids (so they hit open streams), a payload that is a service name, sync
/// requests or random bytes.
fn packet() -> impl Strategy<Value = Vec<u8>> {
    let command = prop_oneof![
        Just(A_CNXN),
        Just(A_OPEN),
        Just(A_OKAY),
        Just(A_WRTE),
        Just(A_CLSE),
        Just(A_AUTH),
        any::<u32>(),
    ];
    let data = prop_oneof![
        prop::sample::select(SERVICES).prop_map(|s| format!("{s}\0").into_bytes()),
        sync_requests().prop_map(|r| r.concat()),
        prop::collection::vec(any::<u8>(), 0..64),
    ];
    (command, 0u32..6, 0u32..6, data, any::<u8>()).prop_map(|(command, a0, a1, data, flaw)| {
        let mut bytes = Packet::new(command, a0, a1, data).to_bytes();
        // Now and then a broken header: a wrong magic, a lying length.
        match flaw {
            0 => bytes[20] ^= 1,
            1 => bytes[12..16].copy_from_slice(&u32::MAX.to_le_bytes()),
            2 => bytes[12] = bytes[12].wrapping_add(3),
            _ => {}
        }
        bytes
    })
}

/// Sync requests, each `[id][u32][body]`, with ids real and not, lengths
/// true and lying.
fn sync_requests() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let id = prop::sample::select(vec![
        *b"SEND", *b"RECV", *b"STAT", *b"STA2", *b"LST2", *b"LIST", *b"DATA", *b"DONE", *b"QUIT",
        *b"NOPE",
    ]);
    let body = prop_oneof![
        prop::sample::select(vec![
            &b"/f"[..],
            b"/f,33188",
            b"/sdcard/x,0644",
            b"/sdcard",
            b"/",
            b"/missing",
            b"hello",
            b"",
        ])
        .prop_map(<[u8]>::to_vec),
        prop::collection::vec(any::<u8>(), 0..40),
    ];
    let request =
        (id, body, prop::option::weighted(0.1, any::<u32>())).prop_map(|(id, body, lie)| {
            let len = lie.unwrap_or(body.len() as u32);
            [&id[..], &len.to_le_bytes(), &body].concat()
        });
    prop::collection::vec(request, 0..8)
}

fn device() -> FakeDevice {
    let device = FakeDevice::default();
    device.put_file("/f", 0o100644, &[1u8; 100_000]);
    device
}

/// A connected pair on loopback: (the peer's end, the device's end).
fn socket_pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let peer = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (device_end, _) = listener.accept().unwrap();
    (peer, device_end)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(40_000)))]

    #[test]
    fn the_packet_decoder_never_panics_on_arbitrary_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..96),
    ) {
        if let Ok(packet) = Packet::read_from(&mut &bytes[..]) {
            prop_assert!(24 + packet.data.len() <= bytes.len());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(1_500)))]

    #[test]
    fn a_connection_survives_any_sequence_of_packets(
        cnxn_first in any::<bool>(),
        packets in prop::collection::vec(packet(), 0..12),
        tail in prop::collection::vec(any::<u8>(), 0..30),
    ) {
        let (mut peer, device_end) = socket_pair();
        let mut input = Vec::new();
        if cnxn_first {
            input.extend(Packet::new(A_CNXN, 0x0100_0001, 4096, b"host::".to_vec()).to_bytes());
        }
        input.extend(packets.concat());
        input.extend(tail);
        // The peer writes everything, then reads whatever comes back until
        // the device hangs up; it never acknowledges, as a hostile peer.
        let writer = std::thread::spawn(move || {
            let _ = peer.write_all(&input);
            let _ = peer.shutdown(Shutdown::Write);
            peer.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut sink = Vec::new();
            let _ = peer.read_to_end(&mut sink);
        });
        let device = device();
        // Ok (the peer left) or Err (it broke the protocol): never a panic.
        let _ = connection::run(device_end, &device);
        writer.join().unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(15_000)))]

    #[test]
    fn sync_answers_do_not_depend_on_pieces_or_pauses(
        requests in sync_requests(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        limit in prop_oneof![Just(0usize), 1usize..64, Just(200_000), Just(usize::MAX)],
    ) {
        let bytes = requests.concat();
        // A fresh phone for each run: a SEND in one would show in the other's LIST.
        let mut whole = SyncSession::default();
        let mut expected = Vec::new();
        let whole_fed = whole.feed(&bytes, &device(), &mut expected, usize::MAX);
        let device = device();
        prop_assert_ne!(whole_fed, Fed::Paused);

        let mut at: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        at.sort_unstable();
        at.push(bytes.len());
        let mut session = SyncSession::default();
        let mut answers = Vec::new();
        let mut start = 0;
        let mut fed = Fed::Done;
        for end in at {
            let mut piece = &bytes[start..end];
            start = end;
            // As the connection does: feed with what room there is, and
            // again, with nothing new, while the session is paused (the
            // answers taken each time, so there is room again: the
            // connection resumes a session only when there is some).
            let mut room = limit;
            loop {
                let mut out = Vec::new();
                fed = session.feed(piece, &device, &mut out, room);
                piece = &[];
                room = limit.max(1);
                answers.extend(out);
                if fed != Fed::Paused {
                    break;
                }
            }
            if fed == Fed::Ended {
                break;
            }
        }
        prop_assert_eq!(fed, whole_fed);
        prop_assert_eq!(answers, expected);
    }
}
