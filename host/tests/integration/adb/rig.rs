//! A private adb server with `droidscore sim serve` connected to it, and the
//! binary pointed at that server: what the CLI's adb tests start from.

use std::process::Stdio;
use std::time::Duration;

use droidscore_phone::adb::{free_port, PrivateAdbServer};

use crate::support::{Served, TestCommand, TestEnv};

/// `droidscore sim serve` as a child process (killed when dropped), on a
/// free port outside adb's emulator range.
pub fn sim_serve(env: &TestEnv) -> Served {
    sim_serve_with(env, &format!("127.0.0.1:{}", free_port()), &[])
}

/// [`sim_serve`] on `listen`, with more arguments (e.g. faults to inject).
pub fn sim_serve_with(env: &TestEnv, listen: &str, extra: &[&str]) -> Served {
    let served = env
        .droidscore()
        .args(["sim", "serve", "--listen", listen])
        .args(extra)
        .stderr(Stdio::null())
        .spawn_server();
    // It prints the address once it listens.
    assert_eq!(served.addr, listen);
    served
}

/// A private adb server with the virtual phone connected.
pub fn phone(env: &TestEnv) -> (PrivateAdbServer, Served) {
    let adb = PrivateAdbServer::start().unwrap_or_else(|e| panic!("{e}"));
    let phone = sim_serve(env);
    adb.connect(&phone.addr, Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{e}"));
    (adb, phone)
}

/// The binary, reaching phones through `adb`'s server.
pub fn droidscore<'a>(env: &'a TestEnv, adb: &PrivateAdbServer) -> TestCommand<'a> {
    let mut command = env.droidscore();
    command.envs(adb.env());
    command
}
