//! Fuzzing the virtual phone's shell (issue 30), bounded to a few seconds in
//! `cargo test` (`PROPTEST_CASES=N` runs N cases of each instead): any text
//! into the parser, and lines built from the shell's own tokens and the
//! phone's commands run on one phone across all cases, so each case starts
//! where the last left it. None may panic; a line that does not parse is
//! the shell's error with status 2.

use std::sync::OnceLock;

use proptest::prelude::*;

use super::{script, test_support::TestSetups, VirtualPhone};
use crate::adbd::fuzz_tests::cases;

/// Commands as the adb backend and people send them; `sleep` and
/// `screencap` left out only because they are slow, not because they break.
const COMMANDS: &[&str] = &[
    "echo a b",
    "echo -n x",
    "cat /sdcard/f",
    "cat",
    "grep -E 'a|b'",
    "grep (",
    "settings put global wifi_on 1",
    "settings get global wifi_on",
    "settings list system",
    "getprop ro.build.version.sdk",
    "input tap 10 20",
    "input text 'a b'",
    "input keyevent 4",
    "input swipe 1 2 3 4 100",
    "am start -a android.settings.WIFI_SETTINGS",
    "am force-stop com.android.settings",
    "monkey -p com.android.settings 1",
    "dumpsys window",
    "dumpsys battery",
    "pm list packages",
    "content query --uri content://com.android.deskclock/alarms",
    "uiautomator dump",
    "uiautomator dump /sdcard/d.xml",
    "droidscore-sim state",
    "droidscore-sim fail-dumps 1 null",
    "droidscore-sim load wifi_on base 3",
    "droidscore-sim jobs",
    "kill -0 4000",
    "kill 4000",
    "rm -f /sdcard/f",
    "cd /sdcard",
    "cd",
    "exit 3",
    "wm size",
    "tail -n 1 /sdcard/f",
    "sha256sum /sdcard/f",
    "chmod 755 /data/local/tmp/a",
    "nohup ./a",
    "find /sdcard -type f",
    "logcat -c",
    "svc wifi enable",
    "ime list -s",
    "true",
    "false",
    "no-such-command",
];

/// What a line is built from: commands, the shell's operators and quotes,
/// and random words.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(COMMANDS).prop_map(str::to_owned),
        3 => prop::sample::select(vec![
            ";", "&&", "||", "|", "&", ">", ">>", "<", "2>&1", ">&", "'", "\"", "$?", "$!",
            "$(", ")", "`", "\\", "\n", " ", "#", "=", "/dev/null", "/sdcard/f",
        ])
        .prop_map(str::to_owned),
        2 => "[a-z0-9./-]{0,6}",
        1 => any::<String>().prop_map(|s| s.chars().take(6).collect()),
    ]
}

fn phone() -> &'static VirtualPhone {
    static PHONE: OnceLock<VirtualPhone> = OnceLock::new();
    PHONE.get_or_init(|| VirtualPhone::new(TestSetups).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(15_000)))]

    #[test]
    fn the_shell_parser_never_panics_on_any_text(line in any::<String>()) {
        let _ = script::parse(&line);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(8_000)))]

    #[test]
    fn the_phone_answers_any_line_of_shell_tokens(
        tokens in prop::collection::vec((token(), any::<bool>()), 0..10),
    ) {
        let line: String = tokens
            .iter()
            .map(|(t, space)| if *space { format!("{t} ") } else { t.clone() })
            .collect();
        let parsed = script::parse(&line);
        let out = phone().run(&line);
        if parsed.is_err() {
            prop_assert_eq!(out.exit, 2);
            prop_assert!(out.stderr.starts_with(b"/system/bin/sh: "));
        }
    }
}
