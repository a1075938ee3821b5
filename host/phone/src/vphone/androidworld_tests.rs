//! What AndroidWorld sends a phone (env/adb_utils.py, utils/file_utils.py,
//! task_evals/utils/sqlite_utils.py), answered as its userdebug emulator
//! answers: `adb root` and who the shell is, the apps' private data closed
//! to `shell` and open to root, the shell script it sends, toybox's long
//! `ls`, `chmod`, `date`, `pm clear|grant`, `sqlite3`, and the apps'
//! databases kept in step with the simulator's records.

use std::collections::BTreeMap;

use super::*;
use crate::adbd::Device;
use crate::appdb::AppDb;
use crate::records::Table;

fn phone() -> VirtualPhone {
    VirtualPhone::new(super::test_support::TestSetups).unwrap()
}

fn rooted() -> VirtualPhone {
    let phone = phone();
    assert!(phone.restart_adbd(true).restarts);
    phone
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Run and require status 0; the stdout.
fn ok(phone: &VirtualPhone, line: &str) -> String {
    let out = phone.run(line);
    assert_eq!(
        out.exit,
        0,
        "{line}: {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// Run; (status, stdout, stderr).
fn run(phone: &VirtualPhone, line: &str) -> (u8, String, String) {
    let out = phone.run(line);
    (out.exit, text(&out.stdout), text(&out.stderr))
}

/// AndroidWorld's `check_file_exists` script for `test` (`-f`, `-d`, `-e`).
fn exists(phone: &VirtualPhone, test: &str, path: &str) -> bool {
    let script = format!(
        "\n  if [ {test} \"{path}\" ]; then\n      echo \"Exists\"\n  else\n      echo \"Does not exist\"\n  fi\n  "
    );
    match ok(phone, &script).as_str() {
        "Exists\n" => true,
        "Does not exist\n" => false,
        other => panic!("{other:?}"),
    }
}

const EXPENSE_DB: &str = "/data/data/com.arduia.expense/databases/accounting.db";

fn expenses(phone: &VirtualPhone) -> Vec<String> {
    phone.with_sim(|sim| {
        sim.state()
            .records()
            .rows(Table::Expenses)
            .iter()
            .map(|r| r.text("name"))
            .collect()
    })
}

#[test]
fn adbd_starts_as_shell_and_root_restarts_it_with_aosps_words() {
    let phone = phone();
    assert_eq!(ok(&phone, "whoami"), "shell\n");
    assert_eq!(
        phone.restart_adbd(false),
        crate::adbd::Restart::stays("adbd not running as root\n")
    );
    assert_eq!(
        phone.restart_adbd(true),
        crate::adbd::Restart::restarts("restarting adbd as root\n")
    );
    assert_eq!(ok(&phone, "whoami"), "root\n");
    assert_eq!(
        phone.restart_adbd(true),
        crate::adbd::Restart::stays("adbd is already running as root\n")
    );
    assert_eq!(
        phone.restart_adbd(false),
        crate::adbd::Restart::restarts("restarting adbd as non root\n")
    );
    assert_eq!(ok(&phone, "whoami"), "shell\n");
}

#[test]
fn id_names_the_user_its_groups_and_its_selinux_domain() {
    let phone = phone();
    assert_eq!(
        ok(&phone, "id"),
        "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) context=u:r:shell:s0\n"
    );
    phone.restart_adbd(true);
    assert_eq!(
        ok(&phone, "id"),
        "uid=0(root) gid=0(root) groups=0(root) context=u:r:su:s0\n"
    );
}

#[test]
fn a_new_task_state_keeps_adbd_as_root() {
    let phone = rooted();
    ok(&phone, "droidscore-sim load wifi_on base 1");
    assert_eq!(ok(&phone, "whoami"), "root\n");
}

#[test]
fn as_shell_data_data_cannot_be_listed_and_what_is_below_cannot_be_reached() {
    let phone = phone();
    assert_eq!(
        run(&phone, "ls /data/data"),
        (
            1,
            String::new(),
            "ls: /data/data: Permission denied\n".into()
        )
    );
    assert_eq!(
        run(&phone, &format!("cat {EXPENSE_DB}")),
        (
            1,
            String::new(),
            format!("cat: {EXPENSE_DB}: Permission denied\n")
        )
    );
    assert!(exists(&phone, "-d", "/data/data"));
    assert!(!exists(
        &phone,
        "-d",
        "/data/data/com.arduia.expense/databases"
    ));
    assert!(!exists(&phone, "-f", EXPENSE_DB));
    let (code, _, err) = run(&phone, "mkdir -p /data/data/com.x/y");
    assert_eq!(
        (code, err.as_str()),
        (1, "mkdir: '/data/data/com.x/y': Permission denied\n")
    );
}

/// adbd as shell: open(2) and stat(2) fail with EACCES (RECV's FAIL is
/// `open failed: Permission denied`), opendir(3) too (LIST answers DONE
/// alone), and a push cannot create the file.
#[test]
fn as_shell_sync_requests_below_data_data_fail_as_adbds_do() {
    let phone = phone();
    assert_eq!(
        phone.pull(EXPENSE_DB),
        Err(crate::adbd::SyncFail("Permission denied".into()))
    );
    assert_eq!(Device::stat(&phone, EXPENSE_DB), None);
    assert_eq!(phone.stat_errno(EXPENSE_DB), 13);
    assert_eq!(phone.stat_errno("/sdcard/nothing"), 2);
    assert!(phone.list("/data/data").is_empty());
    assert!(phone
        .list("/data/data/com.arduia.expense/databases")
        .is_empty());
    assert_eq!(
        phone.push(EXPENSE_DB, 0o100644, 0, b"x".to_vec()),
        Err(crate::adbd::SyncFail(
            "couldn't create file: Permission denied".into()
        ))
    );
}

#[test]
fn as_root_the_apps_databases_are_real_files() {
    let phone = rooted();
    let listing = ok(&phone, "ls /data/data");
    for app in AppDb::ALL {
        assert!(
            listing.contains(&format!("{}\n", app.package())),
            "{listing}"
        );
    }
    assert!(exists(
        &phone,
        "-d",
        "/data/data/com.arduia.expense/databases"
    ));
    assert!(exists(&phone, "-f", EXPENSE_DB));
    let bytes = phone.pull(EXPENSE_DB).unwrap();
    assert!(bytes.starts_with(b"SQLite format 3\0"));
    let (mode, size, _) = Device::stat(&phone, EXPENSE_DB).unwrap();
    assert_eq!((mode, size as usize), (0o100660, bytes.len()));
    let names: Vec<String> = phone
        .list("/data/data/com.arduia.expense/databases")
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(names, [".", "..", "accounting.db"]);
}

#[test]
fn test_and_brackets_answer_files_strings_and_numbers() {
    let phone = phone();
    phone
        .push("/sdcard/a.txt", 0o100644, 0, b"x".to_vec())
        .unwrap();
    assert!(exists(&phone, "-f", "/sdcard/a.txt"));
    assert!(exists(&phone, "-e", "/sdcard/a.txt"));
    assert!(!exists(&phone, "-d", "/sdcard/a.txt"));
    assert!(exists(&phone, "-d", "/sdcard"));
    assert!(!exists(&phone, "-e", "/sdcard/none"));
    assert_eq!(
        ok(&phone, "[ -z '' ] && test 3 -gt 2 && [ a != b ] && echo y"),
        "y\n"
    );
    assert_eq!(run(&phone, "[ ! -e /sdcard ]").0, 1);
    assert_eq!(
        run(&phone, "[ -d /sdcard"),
        (2, String::new(), "/system/bin/sh: [: missing ]\n".into())
    );
}

#[test]
fn if_runs_the_first_true_branch_and_is_0_when_none_runs() {
    let phone = phone();
    assert_eq!(
        ok(
            &phone,
            "if false; then echo a; elif true; then echo b; else echo c; fi; echo $?"
        ),
        "b\n0\n"
    );
    assert_eq!(ok(&phone, "if false; then echo a; fi; echo $?"), "0\n");
    assert_eq!(
        ok(&phone, "if true; then false; fi || echo failed"),
        "failed\n"
    );
}

/// file_utils.py `clear_directory`: `rm -r DIR/*`.
#[test]
fn a_glob_expands_to_the_directorys_entries_sorted() {
    let phone = phone();
    for f in [
        "/sdcard/d/b.txt",
        "/sdcard/d/a.txt",
        "/sdcard/d/sub/c",
        "/sdcard/d/.hidden",
    ] {
        phone.push(f, 0o100644, 0, b"x".to_vec()).unwrap();
    }
    assert_eq!(
        ok(&phone, "echo /sdcard/d/*"),
        "/sdcard/d/a.txt /sdcard/d/b.txt /sdcard/d/sub\n"
    );
    assert_eq!(
        ok(&phone, "echo '/sdcard/d/*' /sdcard/d/?.txt"),
        "/sdcard/d/* /sdcard/d/a.txt /sdcard/d/b.txt\n"
    );
    ok(&phone, "rm -r /sdcard/d/*");
    assert_eq!(ok(&phone, "ls -a /sdcard/d"), ".\n..\n.hidden\n");
    // No match: the word stays as written, and rm says so.
    assert_eq!(
        run(&phone, "rm -r /sdcard/e/*"),
        (
            1,
            String::new(),
            "rm: /sdcard/e/*: No such file or directory\n".into()
        )
    );
}

/// The line AndroidWorld's `get_file_list_with_metadata` parses
/// (`split(None, 8)`: mode, links, owner, group, size, date, time, zone,
/// name), after the `total` it skips.
#[test]
fn ls_ll_au_prints_toyboxs_long_lines_with_nanoseconds() {
    let phone = phone();
    // 2023-11-14 22:13:20 UTC.
    phone
        .push(
            "/sdcard/Download/a b.txt",
            0o100660,
            1_700_000_000,
            b"hello".to_vec(),
        )
        .unwrap();
    phone
        .push(
            "/sdcard/Download/big.bin",
            0o100660,
            1_700_000_000,
            vec![0; 5000],
        )
        .unwrap();
    let listing = ok(&phone, "ls /sdcard/Download -ll -au");
    let lines: Vec<&str> = listing.lines().collect();
    // 4 KiB blocks, in KiB: `.`, `..`, the small file and the 5000 bytes.
    assert_eq!(lines[0], "total 20");
    assert!(
        lines[1].starts_with("drwxrwx--x 2 u0_a158 media_rw 4096 "),
        "{listing}"
    );
    assert!(lines[1].ends_with(" ."), "{listing}");
    assert_eq!(
        lines[3],
        "-rw-rw---- 1 u0_a158 media_rw    5 2023-11-14 22:13:20.000000000 +0000 a b.txt"
    );
    assert_eq!(
        lines[4],
        "-rw-rw---- 1 u0_a158 media_rw 5000 2023-11-14 22:13:20.000000000 +0000 big.bin"
    );
}

#[test]
fn ls_l_gives_minutes_and_a_file_by_its_path() {
    let phone = phone();
    phone
        .push(
            "/data/local/tmp/x",
            0o100755,
            1_700_000_000,
            b"abc".to_vec(),
        )
        .unwrap();
    assert_eq!(
        ok(&phone, "ls -l /data/local/tmp/x"),
        "-rwxr-xr-x 1 shell shell 3 2023-11-14 22:13 /data/local/tmp/x\n"
    );
}

#[test]
fn chmod_takes_octal_symbolic_and_recursive_modes() {
    let phone = phone();
    phone
        .push("/sdcard/d/a", 0o100644, 0, b"x".to_vec())
        .unwrap();
    phone
        .push("/sdcard/d/e/b", 0o100644, 0, b"x".to_vec())
        .unwrap();
    ok(&phone, "chmod 777 /sdcard/d/a");
    assert_eq!(Device::stat(&phone, "/sdcard/d/a").unwrap().0, 0o100777);
    ok(&phone, "chmod go-w,u-x /sdcard/d/a");
    assert_eq!(Device::stat(&phone, "/sdcard/d/a").unwrap().0, 0o100655);
    ok(&phone, "chmod -R 700 /sdcard/d");
    assert_eq!(Device::stat(&phone, "/sdcard/d/e/b").unwrap().0, 0o100700);
    assert_eq!(Device::stat(&phone, "/sdcard/d/e").unwrap().0, 0o040700);
    assert_eq!(
        run(&phone, "chmod 777 /sdcard/none"),
        (
            1,
            String::new(),
            "chmod: /sdcard/none: No such file or directory\n".into()
        )
    );
}

/// sms_validators.py `get_android_time`: `date +%s`, the phone's clock.
#[test]
fn date_prints_the_simulators_clock() {
    let phone = phone();
    let now_ms = phone.with_sim(|sim| sim.state().clock.now_ms);
    assert_eq!(ok(&phone, "date +%s"), format!("{}\n", now_ms / 1000));
    let day = ok(&phone, "date +%F");
    assert_eq!(day.len(), "2024-01-01\n".len(), "{day}");
}

/// file_utils.py `copy_dir`: `cp -a SRC/. DEST/`.
#[test]
fn cp_a_copies_a_directorys_contents() {
    let phone = phone();
    phone
        .push("/sdcard/s/a", 0o100644, 0, b"1".to_vec())
        .unwrap();
    phone
        .push("/sdcard/s/t/b", 0o100644, 0, b"2".to_vec())
        .unwrap();
    ok(&phone, "mkdir -p /sdcard/d && cp -a /sdcard/s/. /sdcard/d/");
    assert_eq!(ok(&phone, "cat /sdcard/d/a /sdcard/d/t/b"), "12");
    assert_eq!(
        run(&phone, "cp /sdcard/s /sdcard/x"),
        (1, String::new(), "cp: Skipped dir 's'\n".into())
    );
}

#[test]
fn pm_clear_empties_the_apps_data_and_says_success() {
    let phone = rooted();
    assert!(!expenses(&phone).is_empty());
    assert_eq!(ok(&phone, "pm clear com.arduia.expense"), "Success\n");
    assert!(expenses(&phone).is_empty());
    assert_eq!(ok(&phone, "ls /data/data/com.arduia.expense"), "");
    // The app makes its database again when it next starts.
    ok(&phone, "monkey -p com.arduia.expense 1");
    assert_eq!(
        ok(
            &phone,
            &format!("sqlite3 {EXPENSE_DB} \"SELECT count(*) FROM expense\"")
        ),
        "0\n"
    );
    assert_eq!(
        run(&phone, "pm clear no.such.app"),
        (1, String::new(), "Failed\n".into())
    );
}

#[test]
fn pm_grant_is_silent() {
    let phone = phone();
    assert_eq!(
        run(
            &phone,
            "pm grant net.cozic.joplin android.permission.ACCESS_FINE_LOCATION"
        ),
        (0, String::new(), String::new())
    );
    assert_eq!(
        run(&phone, "pm grant net.cozic.joplin"),
        (1, String::new(), "Error: no permission specified\n".into())
    );
}

#[test]
fn sqlite3_prints_rows_in_list_mode() {
    let phone = phone();
    let db = "/sdcard/t.db";
    ok(
        &phone,
        &format!(
            "sqlite3 {db} \"CREATE TABLE t(a, b); INSERT INTO t VALUES (1, NULL), (2.0, 'x y')\""
        ),
    );
    assert_eq!(
        ok(&phone, &format!("sqlite3 {db} \"SELECT * FROM t\"")),
        "1|\n2.0|x y\n"
    );
    assert_eq!(
        ok(
            &phone,
            &format!("sqlite3 {db} \"SELECT a FROM t WHERE b IS NULL; SELECT count(*) FROM t\"")
        ),
        "1\n2\n"
    );
}

/// sqlite3 3.40.1's words (Debian's CLI, checked by hand), Android 14's shell.c.
#[test]
fn sqlite3_errors_read_as_the_shell_prints_them() {
    let phone = phone();
    let db = "/sdcard/t.db";
    ok(
        &phone,
        &format!("sqlite3 {db} \"CREATE TABLE a(x UNIQUE); INSERT INTO a VALUES (1)\""),
    );
    assert_eq!(
        run(&phone, &format!("sqlite3 {db} \"SELECT * FROM x\"")),
        (
            1,
            String::new(),
            "Error: in prepare, no such table: x\n".into()
        )
    );
    assert_eq!(
        run(&phone, &format!("sqlite3 {db} \"selec 1\"")),
        (
            1,
            String::new(),
            "Error: in prepare, near \"selec\": syntax error\n  selec 1\n  ^--- error here\n"
                .into()
        )
    );
    assert_eq!(
        run(
            &phone,
            &format!("sqlite3 {db} \"SELECT 1; INSERT INTO a VALUES (1); SELECT 2\"")
        ),
        (
            19,
            "1\n".into(),
            "Error: stepping, UNIQUE constraint failed: a.x (19)\n".into()
        )
    );
}

#[test]
fn sqlite3_as_shell_cannot_open_an_apps_database() {
    let phone = phone();
    assert_eq!(
        run(&phone, &format!("sqlite3 {EXPENSE_DB} \"SELECT 1\"")),
        (
            1,
            String::new(),
            format!(
                "Error: unable to open database \"{EXPENSE_DB}\": unable to open database file\n"
            )
        )
    );
}

/// adb_utils.py `execute_sql_command` (as root), then the app restarts.
#[test]
fn a_sqlite3_write_reaches_the_app_when_it_restarts() {
    let phone = rooted();
    ok(
        &phone,
        &format!("sqlite3 {EXPENSE_DB} \"DELETE FROM expense WHERE name = 'Lunch'\""),
    );
    assert!(
        expenses(&phone).contains(&"Lunch".to_string()),
        "not until it restarts"
    );
    ok(&phone, "am force-stop com.arduia.expense");
    assert!(!expenses(&phone).contains(&"Lunch".to_string()));
}

/// sqlite_utils.py: pull the database, change it, push it back, close the app.
#[test]
fn a_pushed_database_is_read_at_force_stop() {
    let phone = rooted();
    let original = phone.pull(EXPENSE_DB).unwrap();
    ok(
        &phone,
        &format!(
            "sqlite3 {EXPENSE_DB} \"UPDATE expense SET name = 'Dinner' WHERE name = 'Lunch'\""
        ),
    );
    let changed = phone.pull(EXPENSE_DB).unwrap();
    phone.push(EXPENSE_DB, 0o100660, 0, original).unwrap();
    ok(&phone, "am force-stop com.arduia.expense");
    assert!(expenses(&phone).contains(&"Lunch".to_string()));
    phone.push(EXPENSE_DB, 0o100660, 0, changed).unwrap();
    ok(
        &phone,
        "monkey -p com.arduia.expense -c android.intent.category.LAUNCHER 1",
    );
    let names = expenses(&phone);
    assert!(
        names.contains(&"Dinner".to_string()) && !names.contains(&"Lunch".to_string()),
        "{names:?}"
    );
}

/// file_utils.py `clear_directory` on the databases directory.
#[test]
fn an_emptied_databases_directory_is_an_empty_app_rendered_afresh() {
    let phone = rooted();
    ok(&phone, "rm -r /data/data/com.arduia.expense/databases/*");
    assert!(!exists(&phone, "-f", EXPENSE_DB));
    ok(&phone, "am force-stop com.arduia.expense");
    assert!(expenses(&phone).is_empty());
    assert_eq!(
        ok(
            &phone,
            &format!("sqlite3 {EXPENSE_DB} \"SELECT count(*) FROM expense\"")
        ),
        "0\n"
    );
}

#[test]
fn a_database_the_app_cannot_read_leaves_it_empty() {
    let phone = rooted();
    phone
        .push(EXPENSE_DB, 0o100660, 0, b"not a database".to_vec())
        .unwrap();
    // Unread until the app restarts: nothing renders over it meanwhile.
    assert_eq!(ok(&phone, &format!("cat {EXPENSE_DB}")), "not a database");
    ok(&phone, "am force-stop com.arduia.expense");
    assert!(expenses(&phone).is_empty());
    assert!(phone
        .pull(EXPENSE_DB)
        .unwrap()
        .starts_with(b"SQLite format 3\0"));
}

/// An app's tap that saves changes its records; the next read of its file
/// sees the new row.
#[test]
fn a_records_change_is_rendered_at_the_next_read() {
    let phone = rooted();
    phone.with_sim(|sim| {
        let clock = sim.state().clock;
        let fields: BTreeMap<String, String> = [
            ("name", "Taxi"),
            ("amount", "9.00"),
            ("category", "Transportation"),
            ("date", "-1d 10:00"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let fields = sim
            .state()
            .records()
            .complete(Table::Expenses, fields, &clock)
            .unwrap();
        sim.records_mut().insert(Table::Expenses, fields);
    });
    assert_eq!(
        ok(
            &phone,
            &format!("sqlite3 {EXPENSE_DB} \"SELECT amount FROM expense WHERE name = 'Taxi'\"")
        ),
        "900\n"
    );
}

#[test]
fn a_new_task_state_renders_the_databases_afresh() {
    let phone = rooted();
    phone
        .push(EXPENSE_DB, 0o100660, 0, b"junk".to_vec())
        .unwrap();
    let (sim, loaded) = phone.with_sim(|sim| (sim.clone(), Loaded::default()));
    phone.install(sim, loaded);
    assert!(phone
        .pull(EXPENSE_DB)
        .unwrap()
        .starts_with(b"SQLite format 3\0"));
}
