//! The virtual phone as AndroidWorld's userdebug emulator, through Debian's
//! real `adb` (1:29.0.6): `adb root` restarts adbd (the connection drops
//! and the adb server connects again), `adb shell whoami` then says root,
//! an app's database is pulled from `/data/data`, changed with `sqlite3`,
//! pushed back, and read by the app at `am force-stop`; `adb unroot` closes
//! `/data/data` again. Without `adb` on PATH it fails saying so.

use std::process::Output;
use std::sync::Arc;
use std::time::Duration;

use droidscore_phone::adb::PrivateAdbServer;
use droidscore_phone::adbd::{Server, ServerHandle};
use droidscore_phone::apps::PhoneSetup;
use droidscore_phone::records::Table;
use droidscore_phone::vphone::{LoadError, Setups, VirtualPhone};

use crate::support::{text, TestEnv};

const DB: &str = "/data/data/com.arduia.expense/databases/accounting.db";

/// The phone in the simulator's default state; no task to load.
#[derive(Debug)]
struct NoTasks;

impl Setups for NoTasks {
    fn setup(&self, task: &str, _: &str, _: u64, _: u64) -> Result<PhoneSetup, LoadError> {
        Err(LoadError::NoTask(task.into()))
    }
}

/// A virtual phone served on loopback behind a private adb server.
struct Rig {
    adb: PrivateAdbServer,
    phone: Arc<VirtualPhone>,
    serial: String,
    _handle: ServerHandle,
}

impl Rig {
    fn new() -> Rig {
        let adb = PrivateAdbServer::start().unwrap_or_else(|e| panic!("{e}"));
        let phone = Arc::new(VirtualPhone::new(NoTasks).unwrap());
        let mut held = Vec::new();
        let server = loop {
            let server = Server::bind("127.0.0.1:0").unwrap();
            if !(5555..=5585).contains(&server.local_addr().port()) {
                break server;
            }
            held.push(server);
        };
        let serial = server.local_addr().to_string();
        let handle = server.spawn(phone.clone());
        adb.connect(&serial, Duration::from_secs(20))
            .unwrap_or_else(|e| panic!("{e}"));
        Rig {
            adb,
            phone,
            serial,
            _handle: handle,
        }
    }

    /// `adb -s SERIAL ARGS…`.
    fn adb(&self, args: &[&str]) -> Output {
        let args = [&["-s", self.serial.as_str()], args].concat();
        self.adb.adb(&args).unwrap_or_else(|e| panic!("{e}"))
    }

    /// `adb -s SERIAL ARGS…`, which must succeed; its stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.adb(args);
        assert!(out.status.success(), "adb {args:?}: {out:?}");
        text(&out.stdout)
    }

    fn expense_names(&self) -> Vec<String> {
        self.phone.with_sim(|sim| {
            sim.state()
                .records()
                .rows(Table::Expenses)
                .iter()
                .map(|r| r.text("name"))
                .collect()
        })
    }
}

#[test]
fn adb_root_opens_the_apps_databases_and_unroot_closes_them() {
    let rig = Rig::new();
    let env = TestEnv::new("adb_root");
    assert_eq!(rig.ok(&["shell", "whoami"]), "shell\n");

    // adb_root (client/commandline.cpp) prints the daemon's words, waits for
    // the device to go and come back.
    assert_eq!(rig.ok(&["root"]), "restarting adbd as root\n");
    assert_eq!(rig.ok(&["shell", "whoami"]), "root\n");
    assert_eq!(rig.ok(&["root"]), "adbd is already running as root\n");

    // sqlite_utils.py's round trip: pull, change, push, close the app.
    let local = env.join("databases");
    let local = local.to_str().unwrap();
    rig.ok(&["pull", "/data/data/com.arduia.expense/databases/", local]);
    let pulled = env.join("databases/accounting.db");
    assert!(std::fs::read(&pulled)
        .unwrap()
        .starts_with(b"SQLite format 3\0"));
    rig.ok(&[
        "shell",
        &format!("sqlite3 {DB} \"DELETE FROM expense WHERE name = 'Lunch'\""),
    ]);
    rig.ok(&["shell", "am", "force-stop", "com.arduia.expense"]);
    assert!(!rig.expense_names().contains(&"Lunch".to_string()));
    rig.ok(&["push", pulled.to_str().unwrap(), DB]);
    rig.ok(&["shell", "am", "force-stop", "com.arduia.expense"]);
    assert!(rig.expense_names().contains(&"Lunch".to_string()));

    assert_eq!(rig.ok(&["unroot"]), "restarting adbd as non root\n");
    assert_eq!(rig.ok(&["shell", "whoami"]), "shell\n");
    let out = rig.adb(&["shell", "ls", "/data/data"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(text(&out.stderr), "ls: /data/data: Permission denied\n");
    let out = rig.adb(&["pull", DB, env.join("again.db").to_str().unwrap()]);
    assert!(!out.status.success(), "{out:?}");
}
