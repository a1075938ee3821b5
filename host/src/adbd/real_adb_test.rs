//! The real adb client (Debian's `adb`, 1:29.0.6) against our server:
//! `adb connect`, `devices -l`, `shell` (v2: stdout, stderr, exit status),
//! `exec-out`, `push` and `pull`, then unplugging the phone.
//!
//! Needs `adb` on PATH (`apt-get install -y adb`); without it the test fails
//! saying so. It runs a private adb server (`PrivateAdbServer`).

use std::{
    process::Output,
    sync::Arc,
    thread,
    time::{Duration, Instant},
};

use crate::adb::{PrivateAdbServer, EMULATOR_PORTS};

use super::{
    test_support::{all_bytes, init_tracing, FakeDevice},
    Server,
};

/// `adb -P PORT ARGS…` on the private server, or a failed test saying why.
fn run(adb: &PrivateAdbServer, args: &[&str]) -> Output {
    adb.adb(args).unwrap_or_else(|e| panic!("{e}"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Bind our server on loopback outside the emulator range.
fn bind_outside_emulator_range() -> Server {
    let mut held = Vec::new();
    loop {
        let server = Server::bind("127.0.0.1:0").unwrap();
        if !EMULATOR_PORTS.contains(&server.local_addr().port()) {
            return server;
        }
        held.push(server); // keep it bound so the next bind differs
    }
}

#[test]
fn the_real_adb_client_drives_the_server() {
    init_tracing();
    let started = Instant::now();
    let device = Arc::new(FakeDevice::default());
    let server = bind_outside_emulator_range();
    let serial = server.local_addr().to_string();
    let server = server.spawn(device.clone());
    let adb = PrivateAdbServer::start().unwrap_or_else(|e| panic!("{e}"));
    let on_device = |args: &[&str]| run(&adb, &[&["-s", serial.as_str()], args].concat());

    let out = run(&adb, &["connect", &serial]);
    assert!(
        text(&out.stdout).contains(&format!("connected to {serial}")),
        "adb connect: {out:?}"
    );
    let out = on_device(&["wait-for-device"]);
    assert!(out.status.success(), "adb wait-for-device: {out:?}");

    let out = run(&adb, &["devices", "-l"]);
    let listing = text(&out.stdout);
    let line = listing
        .lines()
        .find(|line| line.starts_with(&serial))
        .unwrap_or_else(|| panic!("{serial} not in `adb devices -l`:\n{listing}"));
    assert!(
        line.contains("device product:droidscore_sim model:droidscore_sim device:droidscore_sim"),
        "{line}"
    );

    let out = on_device(&["shell", "echo", "hi"]);
    assert_eq!(text(&out.stdout), "hi\n", "{out:?}");
    assert!(out.status.success(), "{out:?}");

    let out = on_device(&["shell", "exit 3"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");

    let out = on_device(&["shell", "both"]);
    assert_eq!(
        (text(&out.stdout), text(&out.stderr)),
        ("out\n".into(), "err\n".into())
    );

    let out = on_device(&["shell", "no-such-command"]);
    assert_eq!(out.status.code(), Some(127), "{out:?}");

    let out = on_device(&["exec-out", "bytes"]);
    assert_eq!(out.stdout, all_bytes(), "{out:?}");

    // Over one sync DATA chunk (64 KiB) and one WRTE (256 KiB), not a multiple of either.
    let content: Vec<u8> = (0..300_001u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let local = adb.home().join("blob.bin");
    std::fs::write(&local, &content).unwrap();
    let remote = "/data/local/tmp/blob.bin";
    let out = on_device(&["push", local.to_str().unwrap(), remote]);
    assert!(out.status.success(), "adb push: {out:?}");
    let (mode, pushed) = device.file(remote).expect("the device has the pushed file");
    assert_eq!(pushed, content);
    assert_eq!(mode & 0o170000, 0o100000, "a regular file: {mode:o}");

    let back = adb.home().join("back.bin");
    let out = on_device(&["pull", remote, back.to_str().unwrap()]);
    assert!(out.status.success(), "adb pull: {out:?}");
    assert_eq!(std::fs::read(&back).unwrap(), content);

    let out = on_device(&["pull", "/data/local/tmp/missing", back.to_str().unwrap()]);
    assert!(!out.status.success(), "{out:?}");
    // adb 29 prints this error on stdout.
    let said = text(&[out.stdout.as_slice(), &out.stderr].concat());
    assert!(
        said.contains("remote object '/data/local/tmp/missing' does not exist"),
        "{out:?}"
    );

    // Unplug: the adb server must see the transport go. adb 29 keeps a
    // connected serial listed as `offline` while it retries.
    server.shutdown();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let listing = text(&run(&adb, &["devices"]).stdout);
        let state = listing
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{serial}\t")));
        if matches!(state, None | Some("offline")) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still online after shutdown:\n{listing}"
        );
        thread::sleep(Duration::from_millis(50));
    }
    let out = on_device(&["shell", "echo", "hi"]);
    assert!(!out.status.success(), "a shell after unplugging: {out:?}");
    tracing::info!(elapsed = ?started.elapsed(), "real adb test");
}
