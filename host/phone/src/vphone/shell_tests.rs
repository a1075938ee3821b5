use super::*;
use crate::adb::{split_exit_marker, with_exit_marker, RawScreencap};

fn phone() -> VirtualPhone {
    VirtualPhone::new(super::test_support::TestSetups).unwrap()
}

fn stdout(out: &ShellOutput) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Run and require status 0; the stdout.
fn ok(phone: &VirtualPhone, line: &str) -> String {
    let out = phone.run(line);
    assert_eq!(
        out.exit,
        0,
        "{line}: {}{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

#[test]
fn unknown_commands_get_the_phone_shells_error_and_nothing_runs_on_the_host() {
    let phone = phone();
    let out = phone.run("touch /tmp/x");
    assert_eq!(out.exit, 127);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "/system/bin/sh: touch: inaccessible or not found\n"
    );
    let out = phone.run("echo $(id)");
    assert_eq!(out.exit, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("command substitution"));
}

#[test]
fn the_exit_marker_reports_the_status_of_the_command_before_it() {
    let phone = phone();
    let out = phone.run(&with_exit_marker("settings get nosuch key"));
    assert_eq!(split_exit_marker(&stdout(&out)).1, Some(1));
    let out = phone.run(&with_exit_marker("echo 'a; b'"));
    assert_eq!(split_exit_marker(&stdout(&out)), ("a; b\n", Some(0)));
}

#[test]
fn a_dump_goes_to_a_file_that_cat_reads_back_as_the_simulators_own_xml() {
    let phone = phone();
    assert_eq!(
        ok(&phone, "uiautomator dump /sdcard/d.xml"),
        "UI hierchary dumped to: /sdcard/d.xml\n"
    );
    let xml = ok(&phone, "cat /sdcard/d.xml");
    let expected = crate::uiautomator::to_xml(&phone.lock().sim.hierarchy());
    assert_eq!(xml, expected);
    assert!(matches!(
        crate::uiautomator::parse(xml.as_bytes()),
        Ok(crate::uiautomator::Dump::Hierarchy { .. })
    ));
}

#[test]
fn in_fail_dumps_mode_uiautomator_fails_as_it_does_with_status_0_then_recovers() {
    let phone = phone();
    ok(&phone, "droidscore-sim fail-dumps 2");
    for _ in 0..2 {
        assert_eq!(
            ok(&phone, "uiautomator dump /sdcard/d.xml"),
            "ERROR: could not get idle state.\n"
        );
    }
    assert!(ok(&phone, "uiautomator dump /sdcard/d.xml").starts_with("UI hierchary dumped to"));
    ok(&phone, "droidscore-sim fail-dumps 1 null");
    assert_eq!(
        ok(&phone, "uiautomator dump"),
        "ERROR: null root node returned by UiTestAutomationBridge.\n"
    );
}

#[test]
fn settings_svc_and_cmd_write_state_without_recording_flips() {
    let phone = phone();
    ok(&phone, "droidscore-sim load wifi_on base 1");
    assert_eq!(ok(&phone, "settings get global wifi_on"), "0\n");
    ok(&phone, "svc wifi enable");
    assert_eq!(ok(&phone, "settings get global wifi_on"), "1\n");
    ok(&phone, "settings put system screen_brightness 40");
    assert_eq!(ok(&phone, "settings get system screen_brightness"), "40\n");
    ok(&phone, "cmd connectivity airplane-mode enable");
    assert_eq!(ok(&phone, "settings get global airplane_mode_on"), "1\n");
    assert_eq!(ok(&phone, "settings get global no_such_key"), "null\n");
    assert_eq!(ok(&phone, "droidscore-sim flips"), "[]\n");
}

#[test]
fn a_variant_loads_and_ui_actions_record_flips() {
    let phone = phone();
    let loaded = ok(&phone, "droidscore-sim load bluetooth_on renamed 3");
    assert_eq!(
        loaded,
        "loaded bluetooth_on/renamed episode seed 3 instance seed 0\n"
    );
    ok(
        &phone,
        "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1",
    );
    assert!(ok(&phone, "dumpsys window").contains(
        "mCurrentFocus=Window{5e1a9c0 u0 com.android.settings/com.android.settings.Settings}"
    ));
    let xml = ok(
        &phone,
        "uiautomator dump /sdcard/d.xml && cat /sdcard/d.xml",
    );
    assert!(
        xml.contains("text=\"Connections\""),
        "the renamed variant shows"
    );
    let out = phone.run("droidscore-sim load bluetooth_on nosuch 3");
    assert_eq!(out.exit, 1);
}

#[test]
fn screencap_raw_has_the_16_byte_header_and_p_is_png() {
    let phone = phone();
    let raw = phone.run("screencap");
    let shot = RawScreencap::parse(&raw.stdout).unwrap();
    assert_eq!(
        (shot.width, shot.height, shot.format, shot.header_len),
        (1080, 2400, 1, 16)
    );
    let png = phone.run("screencap -p");
    assert!(png.stdout.starts_with(b"\x89PNG\r\n\x1a\n"));
    // The same pixels either way.
    let decoded = image::load_from_memory(&png.stdout).unwrap().to_rgb8();
    assert_eq!(decoded, shot.image);
}

#[test]
fn input_types_quoted_text_literally_and_refuses_non_ascii() {
    let phone = phone();
    ok(&phone, "droidscore-sim load alarm_add_labeled base 1");
    let out = phone.run("input text 'caf\u{e9}'");
    assert_eq!(out.exit, 1);
    let out = phone.run("input tap 540 oops");
    assert_eq!(out.exit, 1);
    ok(&phone, "input keyevent KEYCODE_HOME");
    ok(&phone, "input swipe 540 1800 540 600 300");
}

#[test]
fn am_start_opens_known_intents_and_refuses_others_as_a_phone_does() {
    let phone = phone();
    let out = ok(&phone, "am start -W -a android.intent.action.SHOW_ALARMS");
    assert!(out.contains("Status: ok"));
    assert!(ok(&phone, "dumpsys window").contains("com.google.android.deskclock"));
    // Android 14 says so on stderr and exits 0 (Android 15 exits 1).
    let out = phone.run("am start -a android.intent.action.NO_SUCH");
    assert_eq!(out.exit, 0);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unable to resolve Intent"));
    ok(&phone, "am force-stop com.google.android.deskclock");
    assert!(ok(&phone, "dumpsys window").contains("nexuslauncher"));
}

#[test]
fn app_data_is_a_content_provider_and_other_providers_do_not_exist() {
    let phone = phone();
    ok(&phone, "droidscore-sim load bluetooth_on decoy 1");
    let out = ok(
        &phone,
        "content query --uri content://droidscore.sim/app --projection value --where \"name='app/decoy.bluetooth_scanning'\"",
    );
    assert_eq!(out, "Row: 0 value=0\n");
    ok(
        &phone,
        "content insert --uri content://droidscore.sim/app --bind name:s:app/decoy.bluetooth_scanning --bind value:s:1",
    );
    let out = ok(
        &phone,
        "content query --uri content://droidscore.sim/app --projection name",
    );
    assert!(out.contains("name=app/decoy.bluetooth_scanning"), "{out}");
    assert!(out.contains("name=app/alarms"), "{out}");
    // DeskClock's provider is not exported: `content` finds none, says so
    // on stderr and exits 0.
    let out = phone.run("content query --uri content://com.android.deskclock/alarms");
    assert_eq!(out.exit, 0);
    assert!(String::from_utf8_lossy(&out.stderr).starts_with(
        "Error while accessing provider:com.android.deskclock\njava.lang.IllegalStateException: Could not find provider: com.android.deskclock\n"
    ));
}

#[test]
fn adbkeyboard_types_non_ascii_only_when_installed() {
    let phone = phone();
    assert!(!ok(&phone, "ime list -s").contains("adbkeyboard"));
    ok(&phone, "droidscore-sim adbkeyboard on");
    assert!(ok(&phone, "ime list -s").contains("com.android.adbkeyboard/.AdbIME"));
    let out = ok(&phone, "am broadcast -a ADB_INPUT_B64 --es msg Y2Fmw6k=");
    assert!(out.contains("Broadcast completed"));
}

/// The deploy helpers' start line: recorded as a job (nothing runs), its
/// log created, `$!` its pid; `kill -0`, `/proc/PID/cmdline` and `kill` act
/// on the record.
#[test]
fn a_background_command_is_recorded_not_run_and_kill_acts_on_the_record() {
    let phone = phone();
    Device::push(
        &phone,
        "/data/local/tmp/server",
        0o644,
        0,
        b"\x7fELF".to_vec(),
    )
    .unwrap();
    // Not executable yet: it exits at once, saying why in its log.
    let line =
        "cd /data/local/tmp; nohup ./server serve --port 1 > s.log 2>&1 < /dev/null & echo $!";
    let pid: u32 = ok(&phone, line).trim().parse().unwrap();
    assert_eq!(phone.run(&format!("kill -0 {pid}")).exit, 1);
    assert_eq!(
        ok(&phone, "cat /data/local/tmp/s.log"),
        "nohup: ./server: Permission denied\n"
    );

    ok(&phone, "chmod 755 /data/local/tmp/server");
    let pid: u32 = ok(&phone, line).trim().parse().unwrap();
    assert_eq!(
        ok(&phone, "cat /data/local/tmp/s.log"),
        "",
        "truncated by `>`"
    );
    ok(&phone, &format!("kill -0 {pid}"));
    assert_eq!(
        ok(&phone, &format!("cat /proc/{pid}/cmdline")),
        "./server\0serve\0--port\x001\0"
    );
    let jobs: serde_json::Value = serde_json::from_str(&ok(&phone, "droidscore-sim jobs")).unwrap();
    assert_eq!(
        jobs[1],
        serde_json::json!({
            "pid": pid,
            "argv": ["nohup", "./server", "serve", "--port", "1"],
            "cwd": "/data/local/tmp",
            "stdin": "/dev/null",
            "stdout": "/data/local/tmp/s.log",
            "stderr": "/data/local/tmp/s.log",
            "running": true,
        })
    );
    ok(&phone, &format!("kill {pid}"));
    let out = phone.run(&format!("kill -0 {pid}"));
    assert_eq!(
        (out.exit, stdout_err(&out)),
        (1, format!("kill: {pid}: No such process\n"))
    );
    assert_eq!(phone.run(&format!("cat /proc/{pid}/cmdline")).exit, 1);
    // The and-or form would background a subshell, whose pid is not the server's.
    let out = phone.run("cd /data/local/tmp && nohup ./server &");
    assert_eq!(out.exit, 2);
    assert_eq!(phone.run("cd /nonexistent").exit, 2);
}

#[test]
fn sha256sum_and_tail_answer_from_the_phones_files() {
    let phone = phone();
    Device::push(&phone, "/data/local/tmp/f", 0o644, 0, b"a\nb\nc\n".to_vec()).unwrap();
    assert_eq!(
        ok(&phone, "sha256sum /data/local/tmp/f"),
        format!(
            "{:x}  /data/local/tmp/f\n",
            <sha2::Sha256 as sha2::Digest>::digest(b"a\nb\nc\n")
        )
    );
    assert_eq!(phone.run("sha256sum /data/local/tmp/g").exit, 1);
    assert_eq!(ok(&phone, "tail -n 2 /data/local/tmp/f"), "b\nc\n");
}

fn stdout_err(out: &ShellOutput) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn content_query_answers_from_the_simulators_records_as_a_phone_prints_them() {
    let phone = phone();
    let out = ok(
        &phone,
        "content query --uri content://sms/inbox --projection _id:address:body --where \"address='+1 650-555-0106'\"",
    );
    assert_eq!(
        out,
        "Row: 0 _id=3, address=+1 650-555-0106, body=Call me when you land\n"
    );
    let sent = ok(
        &phone,
        "content query --uri content://sms/sent --projection body:type",
    );
    assert!(
        sent.starts_with("Row: 0 body=No worries, see you there, type=2\n"),
        "{sent}"
    );
    assert!(sent.lines().all(|l| l.ends_with(", type=2")), "{sent}");
    // The legacy URI AndroidWorld reads; NULL for a call with no name.
    let phones = ok(
        &phone,
        "content query --uri content://contacts/phones --projection display_name:number --sort \"display_name DESC\"",
    );
    assert!(
        phones.starts_with("Row: 0 display_name=Tomás Silva, number=+1 650-555-0108\n"),
        "{phones}"
    );
    let calls = ok(
        &phone,
        "content query --uri content://call_log/calls --projection number:name --where \"number='+1 800-555-0199'\"",
    );
    assert_eq!(calls, "Row: 0 number=+1 800-555-0199, name=NULL\n");
    assert_eq!(
        ok(
            &phone,
            "content query --uri content://sms --where \"address='nobody'\""
        ),
        "No result found.\n"
    );
}

/// Joplin's notes, Tasks.org's to-dos and Pro Expense's expenses live in
/// each app's own database, as on a phone: no provider serves them (the
/// URIs the virtual phone once had are an unknown authority now, answered
/// as Content.java answers one), and root reads them with `sqlite3`.
#[test]
fn the_app_private_tables_have_no_provider_and_root_reads_their_databases() {
    let phone = phone();
    for table in ["notes", "tasks", "expenses"] {
        let out = phone.run(&format!(
            "content query --uri content://droidscore.sim/records/{table}"
        ));
        assert_eq!(out.exit, 0);
        assert!(out.stdout.is_empty());
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "Error while accessing provider:droidscore.sim\n\
             java.lang.IllegalStateException: Could not find provider: droidscore.sim\n\
             \tat com.android.commands.content.Content$Command.execute(Content.java)\n\
             \tat com.android.commands.content.Content.main(Content.java)\n"
        );
    }
    phone.lock().root = true;
    let lunch = ok(
        &phone,
        "sqlite3 /data/data/com.arduia.expense/databases/accounting.db \"SELECT amount, category FROM expense WHERE name = 'Lunch'\"",
    );
    assert_eq!(lunch, "1250|3\n");
}

#[test]
fn a_provider_error_goes_to_stderr_with_status_0_and_sms_inserts_are_ignored() {
    let phone = phone();
    let out = phone.run("content query --uri content://sms --projection nosuch");
    assert_eq!(out.exit, 0);
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Error while accessing provider:sms\njava.lang.IllegalArgumentException: Invalid column nosuch\n"
    );
    let before = ok(&phone, "content query --uri content://sms --projection _id");
    ok(
        &phone,
        "content insert --uri content://sms --bind address:s:5550100 --bind body:s:hi",
    );
    assert_eq!(
        ok(&phone, "content query --uri content://sms --projection _id"),
        before
    );
    // Calls and events can be written, and deleted.
    ok(
        &phone,
        "content insert --uri content://call_log/calls --bind number:s:5550123 --bind type:i:2",
    );
    assert_eq!(
        ok(&phone, "content query --uri content://call_log/calls --projection number:duration --where number='5550123'"),
        "Row: 0 number=5550123, duration=0\n"
    );
    ok(
        &phone,
        "content delete --uri content://call_log/calls --where number='5550123'",
    );
    assert_eq!(
        ok(
            &phone,
            "content query --uri content://call_log/calls --where number='5550123'"
        ),
        "No result found.\n"
    );
    assert!(
        phone.lock().sim.state().flips().is_empty(),
        "no control was operated"
    );
}

#[test]
fn find_lists_shared_storage_with_stat_as_the_files_check_reads_it() {
    let phone = phone();
    let out = ok(&phone, &crate::records::list_command());
    let files = crate::records::files_from_stat(&out);
    // `find` lists directory by directory, in the order given.
    let mut held = phone
        .lock()
        .sim
        .state()
        .records()
        .rows(crate::records::Table::Files)
        .to_vec();
    held.sort_by_key(|f| {
        let path = f.text("path");
        crate::records::DIRS
            .iter()
            .position(|d| path.starts_with(&format!("{d}/")))
    });
    assert_eq!(files.len(), held.len());
    for (listed, held) in files.iter().zip(&held) {
        assert_eq!(listed.text("path"), held.text("path"));
        assert_eq!(listed.text("size"), held.text("size"));
        assert_eq!(
            listed.text("mtime"),
            held.text("mtime"),
            "whole seconds survive"
        );
    }
    let out = phone.run("find /storage/emulated/0/Nowhere -type f");
    assert_eq!(out.exit, 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("No such file or directory"));
}

#[test]
fn pm_lists_each_package_once_and_filters_as_runlistpackages_does() {
    let phone = phone();
    let all = ok(&phone, "pm list packages");
    let lines: Vec<&str> = all.lines().collect();
    let unique: std::collections::BTreeSet<&str> = lines.iter().copied().collect();
    assert_eq!(lines.len(), unique.len(), "{all}");
    assert_eq!(all.matches("package:com.android.settings\n").count(), 1);
    assert_eq!(ok(&phone, "pm list packages -3"), "");
    ok(&phone, "droidscore-sim adbkeyboard on");
    assert_eq!(
        ok(&phone, "pm list packages -3"),
        "package:com.android.adbkeyboard\n"
    );
    assert!(!ok(&phone, "pm list packages -s").contains("adbkeyboard"));
    assert_eq!(
        ok(&phone, "pm list packages -f settings"),
        "package:/product/app/Settings/Settings.apk=com.android.settings\n"
    );
    let bad = phone.run("pm list packages -z");
    assert_eq!(
        (bad.exit, bad.stderr),
        (255, b"Error: Unknown option: -z\n".to_vec())
    );
}

#[test]
fn dumpsys_display_and_input_give_the_rotation_where_clients_read_it() {
    let phone = phone();
    let display = ok(&phone, "dumpsys display");
    assert!(
        display.contains("DisplayViewport{type=INTERNAL, valid=true, isActive=true, displayId=0")
    );
    assert!(display.contains(", orientation=0, "));
    assert!(display.contains("deviceWidth=1080, deviceHeight=2400}"));
    assert!(ok(&phone, "dumpsys input").contains("      SurfaceOrientation: 0\n"));
    let top = ok(&phone, "dumpsys activity top");
    assert!(
        top.contains(
            "ACTIVITY com.google.android.apps.nexuslauncher/.NexusLauncherActivity 8b3f2d1 pid="
        ),
        "{top}"
    );
}

#[test]
fn sync_list_and_stat_see_pushed_files_with_their_mtimes() {
    let phone = phone();
    Device::push(
        &phone,
        "/sdcard/d/a.txt",
        0o100644,
        1_700_000_123,
        b"abc".to_vec(),
    )
    .unwrap();
    assert_eq!(
        Device::stat(&phone, "/sdcard/d/a.txt"),
        Some((0o100644, 3, 1_700_000_123))
    );
    let names: Vec<String> = Device::list(&phone, "/sdcard")
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(names, [".", "..", "d"]);
    let d = Device::list(&phone, "/sdcard/d");
    assert_eq!(d[2].name, "a.txt");
    assert_eq!((d[2].size, d[2].mtime), (3, 1_700_000_123));
    assert!(Device::list(&phone, "/nowhere").is_empty());
    assert!(Device::push(&phone, "/sdcard", 0o100644, 0, Vec::new()).is_err());
    ok(&phone, "rm -r /sdcard/d");
    assert_eq!(Device::stat(&phone, "/sdcard/d/a.txt"), None);
}

/// Issue 30: the phone's lock was held for a whole command line, so `echo ok`
/// on a second connection waited behind another's `sleep 4; sleep 4`.
#[test]
fn a_sleep_on_one_connection_does_not_hold_the_phone_for_another() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let phone = Arc::new(phone());
    let slept = Arc::new(AtomicBool::new(false));
    let sleeper = {
        let (phone, slept) = (Arc::clone(&phone), Arc::clone(&slept));
        std::thread::spawn(move || {
            phone.run("sleep 1; sleep 1");
            slept.store(true, Ordering::SeqCst);
        })
    };
    // Let the sleeper start; the margin is the rest of its two seconds.
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(ok(&phone, "echo ok"), "ok\n");
    assert_eq!(
        ok(&phone, "settings get global wifi_on; echo ok"),
        "1\nok\n"
    );
    assert!(
        !slept.load(Ordering::SeqCst),
        "a second command waited for the sleeper to finish"
    );
    sleeper.join().unwrap();
}
