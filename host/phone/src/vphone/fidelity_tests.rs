//! The calls four public agent frameworks' adb layers make, answered as an
//! Android 14 phone answers them (issue 33's list), each against the AOSP
//! source that prints it: ActivityManagerShellCommand (`am start`, `am
//! broadcast`), Intent.parseCommandArgs, InputMethodManagerService's shell
//! commands (`ime`), Monkey.java and monkey.sh, InputShellCommand,
//! cmds/screencap, uiautomator's DumpCommand, RootWindowContainer and
//! DisplayContent dumps, build/make's user-build properties, toybox, and
//! senzhk/ADBKeyBoard's AdbIME.
use super::VirtualPhone;

fn phone() -> VirtualPhone {
    let phone = VirtualPhone::new(super::test_support::TestSetups).unwrap();
    phone.load("alarm_add_labeled", "base", 0).unwrap();
    phone
}

fn out(phone: &VirtualPhone, line: &str) -> (u8, String, String) {
    let o = phone.run(line);
    (
        o.exit,
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn focus(phone: &VirtualPhone) -> String {
    out(phone, "dumpsys window windows").1
}

/// Contacts' new-contact form, its first field focused, ready for text.
fn label_field(phone: &VirtualPhone) -> String {
    out(phone, "am start com.google.android.contacts");
    let h = phone.lock().sim.hierarchy();
    let (x, y) = crate::uiautomator::Selector::desc("Create contact")
        .find_first(&h)
        .unwrap()
        .bounds
        .center();
    out(phone, &format!("input tap {x} {y}"));
    out(phone, "uiautomator dump /dev/tty").1
}

#[test]
fn adbkeyboard_types_adb_input_text_only_while_it_is_the_current_input_method() {
    let phone = phone();
    let before = label_field(&phone);
    // Not installed: the broadcast goes nowhere, as on a phone, and says so
    // no differently.
    let (code, said, _) = out(&phone, "am broadcast -a ADB_INPUT_TEXT --es msg '+1 408'");
    assert_eq!(code, 0);
    assert_eq!(
        said,
        "Broadcasting: Intent { act=ADB_INPUT_TEXT flg=0x400000 (has extras) }\nBroadcast completed: result=0\n"
    );
    let (code, _, err) = out(&phone, "ime set com.android.adbkeyboard/.AdbIME");
    assert_eq!(code, 255);
    assert_eq!(
        err,
        "Unknown input method com.android.adbkeyboard/.AdbIME cannot be selected for user #0\n"
    );
    // Installed and chosen: it types the text as given, "+" and all.
    out(&phone, "droidscore-sim adbkeyboard on");
    out(&phone, "ime set com.android.inputmethod.latin/.LatinIME");
    out(&phone, "am broadcast -a ADB_INPUT_TEXT --es msg '+1 408'");
    assert_eq!(
        out(&phone, "uiautomator dump /dev/tty").1,
        before,
        "not the current IME"
    );
    let (code, said, _) = out(&phone, "ime set com.android.adbkeyboard/.AdbIME");
    assert_eq!(
        (code, said.as_str()),
        (
            0,
            "Input method com.android.adbkeyboard/.AdbIME selected for user #0\n"
        )
    );
    out(&phone, "am broadcast -a ADB_INPUT_TEXT --es msg '+1 408'");
    let typed = out(&phone, "uiautomator dump /dev/tty").1;
    assert!(typed.contains("text=\"+1 408\""), "{typed}");
    out(&phone, "am broadcast -a ADB_CLEAR_TEXT");
    assert!(!out(&phone, "uiautomator dump /dev/tty")
        .1
        .contains("+1 408"));
}

#[test]
fn am_start_takes_a_bare_package_and_the_component_dumpsys_names_and_exits_0_on_errors() {
    let phone = phone();
    let (code, said, _) = out(&phone, "am start com.google.android.deskclock");
    assert_eq!(code, 0);
    assert_eq!(said, "Starting: Intent { act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] pkg=com.google.android.deskclock }\n");
    let clock = focus(&phone);
    assert!(
        clock.contains("com.google.android.deskclock/com.android.deskclock.DeskClock"),
        "{clock}"
    );
    out(&phone, "input keyevent HOME");
    // The component `dumpsys window` names, as clients start it again.
    let (code, said, _) = out(
        &phone,
        "am start -n com.google.android.deskclock/com.android.deskclock.DeskClock",
    );
    assert_eq!(code, 0);
    assert!(said.contains("Status: ok"), "{said}");
    assert_eq!(focus(&phone), clock);
    let (code, _, err) = out(&phone, "am start -n com.google.android.deskclock/.Nope");
    assert_eq!(code, 0);
    assert_eq!(err, "Error type 3\nError: Activity class {com.google.android.deskclock/com.google.android.deskclock.Nope} does not exist.\n");
    let (code, _, err) = out(&phone, "am start com.example.not.installed");
    assert_eq!(code, 0);
    assert!(
        err.starts_with("Error: Activity not started, unable to resolve Intent"),
        "{err}"
    );
}

#[test]
fn monkey_wants_its_event_count_and_echoes_its_arguments() {
    let phone = phone();
    let (code, said, err) = out(&phone, "monkey -p com.google.android.deskclock");
    assert_eq!((code, said.as_str()), (255, ""));
    assert!(
        err.starts_with("** Error: Count not specified\nusage: monkey"),
        "{err}"
    );
    assert!(!focus(&phone).contains("deskclock"), "nothing launched");
    let (code, _, err) = out(&phone, "monkey -p com.google.android.deskclock x");
    assert_eq!(code, 255);
    assert!(
        err.starts_with("** Error: Count is not a number: \"x\""),
        "{err}"
    );
    let (code, said, _) = out(
        &phone,
        "monkey -p com.google.android.deskclock -c android.intent.category.LAUNCHER 1",
    );
    assert_eq!(code, 0);
    assert!(
        said.starts_with("  bash arg: -p\n  bash arg: com.google.android.deskclock\n"),
        "{said}"
    );
    assert!(said.contains("Events injected: 1\n"), "{said}");
    assert!(focus(&phone).contains("deskclock"));
}

#[test]
fn getprop_answers_a_userdebug_builds_security_properties_and_the_panels_density() {
    let phone = phone();
    assert_eq!(out(&phone, "getprop ro.secure").1, "1\n");
    assert_eq!(out(&phone, "getprop ro.debuggable").1, "1\n");
    assert_eq!(out(&phone, "getprop ro.build.type").1, "userdebug\n");
    let physical = out(&phone, "wm density").1;
    let density = out(&phone, "getprop ro.sf.lcd_density").1;
    assert_eq!(physical, format!("Physical density: {density}"));
    // An override changes `wm density`, never the build property.
    out(&phone, "wm density 320");
    assert_eq!(out(&phone, "getprop ro.sf.lcd_density").1, density);
}

#[test]
fn dumpsys_activity_and_window_print_the_android_14_lines_clients_grep() {
    let phone = phone();
    out(&phone, "am start com.google.android.deskclock");
    let activities = out(&phone, "dumpsys activity activities").1;
    let record = "ActivityRecord{8b3f2d1 u0 com.google.android.deskclock/com.android.deskclock.DeskClock t12}";
    for line in [
        "  * Task{4f1a2b3 #12 type=standard A=".to_string(),
        format!("    topResumedActivity={record}\n"),
        format!("    * Hist  #0: {record}\n"),
        format!("  ResumedActivity: {record}\n"),
    ] {
        assert!(activities.contains(&line), "no {line:?} in\n{activities}");
    }
    assert!(
        !activities.contains("mResumedActivity"),
        "Android 14 prints none"
    );
    let services = out(&phone, "dumpsys activity services").1;
    assert_eq!(
        services,
        "ACTIVITY MANAGER SERVICES (dumpsys activity services)\n  (nothing)\n"
    );
    let displays = out(&phone, "dumpsys window displays").1;
    assert!(displays.contains("    init=1080x2400 "), "{displays}");
    assert!(
        displays.contains(" cur=1080x2400 app=1080x2400 "),
        "{displays}"
    );
    assert!(!displays.contains("base="));
    out(&phone, "wm size 720x1600");
    let overridden = out(&phone, "dumpsys window displays").1;
    assert!(overridden.contains(" base=720x1600 "), "{overridden}");
    assert!(overridden.contains(" cur=720x1600 "), "{overridden}");
    // Both sections without a section named.
    let all = out(&phone, "dumpsys window").1;
    assert!(all.contains("mCurrentFocus=") && all.contains("init="));
}

#[test]
fn screencap_into_a_missing_directory_fails_and_uiautomator_writes_nothing_there() {
    let phone = phone();
    let (code, _, err) = out(&phone, "screencap -p /sdcard/nodir/x.png");
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "Error opening file: /sdcard/nodir/x.png (No such file or directory)\n"
    );
    // DumpCommand says it dumped: the IOException is only logged.
    let (code, said, _) = out(&phone, "uiautomator dump /sdcard/nodir/x.xml");
    assert_eq!(
        (code, said.as_str()),
        (0, "UI hierchary dumped to: /sdcard/nodir/x.xml\n")
    );
    let (code, _, err) = out(&phone, "ls /sdcard/nodir/x.xml /sdcard/nodir/x.png");
    assert_eq!(code, 1);
    assert!(
        err.contains("ls: /sdcard/nodir/x.xml: No such file or directory"),
        "{err}"
    );
    // Once made, the directory takes both.
    assert_eq!(out(&phone, "mkdir /sdcard/nodir").0, 0);
    assert_eq!(out(&phone, "screencap -p /sdcard/nodir/x.png").0, 0);
    out(&phone, "uiautomator dump /sdcard/nodir/x.xml");
    assert_eq!(out(&phone, "ls /sdcard/nodir").1, "x.png\nx.xml\n");
    let (code, _, err) = out(&phone, "mkdir /sdcard/a/b");
    assert_eq!(code, 1);
    assert_eq!(err, "mkdir: '/sdcard/a/b': No such file or directory\n");
    assert_eq!(out(&phone, "mkdir -p /sdcard/a/b").0, 0);
}

#[test]
fn head_and_pkill_answer_as_toybox_does() {
    let phone = phone();
    out(&phone, "uiautomator dump /sdcard/w.xml");
    let first = out(&phone, "head -n 1 /sdcard/w.xml").1;
    assert!(first.starts_with("<?xml"), "{first}");
    assert_eq!(
        out(&phone, "cat /sdcard/w.xml | head -2").1.lines().next(),
        first.lines().next()
    );
    let (code, _, err) = out(&phone, "head /sdcard/none.xml");
    assert_eq!(
        (code, err.as_str()),
        (1, "head: /sdcard/none.xml: No such file or directory\n")
    );
    crate::adbd::Device::push(&phone, "/data/local/tmp/server", 0o755, 0, b"ELF".to_vec()).unwrap();
    out(
        &phone,
        "nohup /data/local/tmp/server --port 1 > /data/local/tmp/log 2>&1 &",
    );
    assert!(out(&phone, "droidscore-sim jobs")
        .1
        .contains("\"running\":true"));
    assert_eq!(out(&phone, "pkill -f nomatch").0, 1);
    assert_eq!(out(&phone, "pkill server").0, 0);
    assert_eq!(out(&phone, "pkill server").0, 1, "it is gone");
}

#[test]
fn app_switch_opens_overview_with_the_recent_tasks_and_a_card_brings_its_app_back() {
    let phone = phone();
    out(&phone, "am start com.android.settings");
    out(&phone, "am start com.google.android.deskclock");
    let (code, said, err) = out(&phone, "input keyevent KEYCODE_APP_SWITCH");
    assert_eq!((code, said.as_str(), err.as_str()), (0, "", ""));
    let dump = out(&phone, "uiautomator dump /dev/tty").1;
    // The launcher draws it: the task left last in the middle, then Settings.
    assert!(dump.contains("package=\"com.google.android.apps.nexuslauncher\""));
    let clock = dump.find("content-desc=\"Clock\"").expect("a Clock card");
    let settings = dump
        .find("content-desc=\"Settings\"")
        .expect("a Settings card");
    assert!(clock < settings, "the latest first");
    assert!(dump.contains("resource-id=\"com.google.android.apps.nexuslauncher:id/clear_all\""));
    assert!(focus(&phone).contains("nexuslauncher"), "{}", focus(&phone));
    // The key again (or Back) returns to the app in front.
    out(&phone, "input keyevent 187");
    assert!(focus(&phone).contains("deskclock"));
    out(&phone, "input keyevent KEYCODE_APP_SWITCH");
    out(&phone, "input keyevent KEYCODE_BACK");
    assert!(focus(&phone).contains("deskclock"));
    // A card's tap brings its app to the front, where it was.
    out(&phone, "input keyevent KEYCODE_APP_SWITCH");
    let h = phone.lock().sim.hierarchy();
    let (x, y) = crate::uiautomator::Selector::desc("Clock")
        .find_first(&h)
        .unwrap()
        .bounds
        .center();
    out(&phone, &format!("input tap {x} {y}"));
    assert!(focus(&phone).contains("deskclock"));
    // "Clear all" ends every task: the launcher, and no recent items.
    out(&phone, "input keyevent KEYCODE_APP_SWITCH");
    let h = phone.lock().sim.hierarchy();
    let (x, y) = crate::uiautomator::Selector::text("Clear all")
        .find_first(&h)
        .unwrap()
        .bounds
        .center();
    out(&phone, &format!("input tap {x} {y}"));
    assert!(focus(&phone).contains("nexuslauncher"));
    out(&phone, "input keyevent KEYCODE_APP_SWITCH");
    assert!(out(&phone, "uiautomator dump /dev/tty")
        .1
        .contains("text=\"No recent items\""));
}
