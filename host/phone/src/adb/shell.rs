//! Text for the device's shell. adbd runs `sh -c` on the joined command, so
//! any model text that reaches it unquoted is shell injection (DESIGN.md).
//! Everything goes through [`quote`]: POSIX single quotes, inside which no
//! character is special, with each `'` written as `'\''`.

/// One shell word that stands for exactly `arg`, whatever it contains.
pub fn quote(arg: &str) -> String {
    let mut out = String::with_capacity(arg.len() + 2);
    out.push('\'');
    for c in arg.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// Why text cannot be typed with `input text`; recorded on the step, never
/// silently dropped or altered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextRefusal {
    #[error("{0:?} is not ASCII: `input text` reaches only the key map's characters; install ADBKeyBoard to type it")]
    NonAscii(char),
    #[error("the text contains \"%s\", which `input text` types as a space: it cannot type a literal \"%s\"")]
    PercentS,
    #[error("{0:?} is a control character `input text` cannot type")]
    Control(char),
}

/// The shell command that types `text` into the focused field: `input text`
/// with spaces written as `%s` (how `input text` spells a space), quoted.
pub(crate) fn input_text_command(text: &str) -> Result<String, TextRefusal> {
    if text.contains("%s") {
        return Err(TextRefusal::PercentS);
    }
    if let Some(c) = text.chars().find(|c| !c.is_ascii()) {
        return Err(TextRefusal::NonAscii(c));
    }
    if let Some(c) = text.chars().find(|c| c.is_ascii_control()) {
        return Err(TextRefusal::Control(c));
    }
    Ok(format!("input text {}", quote(&text.replace(' ', "%s"))))
}

/// Printed after a command with its exit status; `adb_client` returns no exit code.
pub(crate) const EXIT_MARKER: &str = "__droidscore_exit=";

/// `cmd` followed by a line that reports its exit status.
pub(crate) fn with_exit_marker(cmd: &str) -> String {
    format!("{cmd}; echo \"{EXIT_MARKER}$?\"")
}

/// Split a command's output from the status its marker line reports. `None`
/// when the marker is missing (the connection dropped before it came).
#[cfg(test)]
pub(crate) fn split_exit_marker(output: &str) -> (&str, Option<i32>) {
    match output.rfind(EXIT_MARKER) {
        Some(at) => {
            let status = output[at + EXIT_MARKER.len()..].trim().parse().ok();
            (&output[..at], status)
        }
        None => (output, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::process::Command;

    /// What `sh` makes of `printf %s <quoted>`: must be the original text.
    fn through_sh(text: &str, canary: &std::path::Path) -> String {
        let script = format!("printf %s {}", quote(text));
        let out = Command::new("sh")
            .arg("-c")
            .arg(&script)
            .env("CANARY", canary)
            .output()
            .expect("sh runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A file the injected command would create; one per test, since tests
    /// run in parallel and one of them creates its canary on purpose.
    fn canary(test: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("droidscore-canary-{test}-{}", std::process::id()))
    }

    #[test]
    fn a_hostile_string_runs_nothing_when_quoted_and_would_without() {
        let canary = canary("naive");
        let _ = std::fs::remove_file(&canary);
        let hostile = "'; touch \"$CANARY\"; echo '";
        // Unquoted, as naive code would join it, the shell runs `touch`.
        let naive = format!("printf %s '{hostile}'");
        Command::new("sh")
            .arg("-c")
            .arg(&naive)
            .env("CANARY", &canary)
            .output()
            .unwrap();
        assert!(canary.exists(), "the naive command ran the injected touch");
        std::fs::remove_file(&canary).unwrap();
        // Quoted, the same text is printed back and nothing runs.
        assert_eq!(through_sh(hostile, &canary), hostile);
        assert!(!canary.exists());
    }

    /// 512 cases of quotes, `;`, `$()`, backticks, newlines, `%s`, `&`, `|`,
    /// globs and plain text: `sh` sees exactly the text, and no command runs.
    /// The runner is driven by hand so the number of cases run is checked too.
    #[test]
    fn quoted_text_reaches_sh_unchanged() {
        use proptest::test_runner::{Config, TestRunner};
        let piece = prop_oneof![
            Just("'".to_string()),
            Just("\"".to_string()),
            Just(";".to_string()),
            Just("$(".to_string()),
            Just(")".to_string()),
            Just("`".to_string()),
            Just("\n".to_string()),
            Just("%s".to_string()),
            Just("&".to_string()),
            Just("|".to_string()),
            Just("*".to_string()),
            Just("\\".to_string()),
            Just("touch \"$CANARY\"".to_string()),
            Just(" ".to_string()),
            "[a-z]{1,4}",
        ];
        let strategy = proptest::collection::vec(piece, 0..12).prop_map(|p| p.concat());
        let mut runner = TestRunner::new(Config::with_cases(512));
        let cases = std::sync::atomic::AtomicU32::new(0);
        let canary = canary("prop");
        runner
            .run(&strategy, |text| {
                cases.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let _ = std::fs::remove_file(&canary);
                prop_assert_eq!(through_sh(&text, &canary), text);
                prop_assert!(!canary.exists(), "a command ran");
                Ok(())
            })
            .unwrap();
        let cases = cases.into_inner();
        println!("quoting: {cases} hostile strings through a real sh, none ran a command");
        assert_eq!(cases, 512);
    }

    #[test]
    fn input_text_spells_spaces_and_refuses_what_it_cannot_type() {
        assert_eq!(
            input_text_command("hi there").unwrap(),
            "input text 'hi%sthere'"
        );
        assert_eq!(input_text_command("it's").unwrap(), "input text 'it'\\''s'");
        assert_eq!(
            input_text_command("100%s").unwrap_err(),
            TextRefusal::PercentS
        );
        assert_eq!(
            input_text_command("café").unwrap_err(),
            TextRefusal::NonAscii('é')
        );
        assert_eq!(
            input_text_command("a\nb").unwrap_err(),
            TextRefusal::Control('\n')
        );
    }

    #[test]
    fn the_exit_marker_round_trips_through_sh() {
        let out = Command::new("sh")
            .arg("-c")
            .arg(with_exit_marker("echo hello; false"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(split_exit_marker(&text), ("hello\n", Some(1)));
        assert_eq!(
            split_exit_marker("partial output"),
            ("partial output", None)
        );
    }
}
