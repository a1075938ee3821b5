//! The integration-test harness of host and device, after ripgrep's
//! `tests/util.rs` and jj's `TestEnvironment`: a [`TestEnv`] is a hermetic
//! temp dir (HOME, the XDG directories and `DROIDSCORE_CACHE` inside it, so
//! no test touches the user's cache unless it says so), removed when the
//! test passes and kept, with its path printed, when it fails. Its
//! [`TestEnv::command`] builds a command for a binary under test; when an
//! expectation on it fails ([`TestCommand::ok`], [`TestCommand::code`]), the
//! panic shows the command line, its cwd, the files in the temp dir, and
//! stdout and stderr. A failing test of any other kind still prints every
//! command the env ran, as the env is dropped.
//!
//! Each crate's tests wrap it in their own `support` module, which knows
//! its binary (its path, what to call it, which variables to clear).

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// At most this much of each of stdout and stderr is shown (its end).
const SHOWN: usize = 8 * 1024;

/// A temp dir for one test, with a home and a cache of its own.
#[derive(Debug)]
pub struct TestEnv {
    dir: PathBuf,
    /// What each command run in this env did, shown if the test fails.
    ran: Mutex<Vec<String>>,
}

impl TestEnv {
    /// A fresh, empty dir named after the test (`name`) under the system temp dir.
    pub fn new(name: &str) -> TestEnv {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("droidscore-test-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["home/.config", "home/.cache", "home/.local/share", "cache"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        TestEnv {
            dir,
            ran: Mutex::new(Vec::new()),
        }
    }

    /// The temp dir.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// `path` inside the temp dir.
    pub fn join(&self, path: impl AsRef<Path>) -> PathBuf {
        self.dir.join(path)
    }

    /// What `DROIDSCORE_CACHE` is for every command of this env.
    pub fn cache(&self) -> PathBuf {
        self.dir.join("cache")
    }

    /// Writes `contents` to `path` inside the temp dir (creating its parents).
    pub fn write(&self, path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, contents).unwrap();
        path
    }

    /// The empty dir `path` inside the temp dir (created with its parents).
    pub fn mkdir(&self, path: impl AsRef<Path>) -> PathBuf {
        let path = self.dir.join(path);
        std::fs::create_dir_all(&path).unwrap();
        path
    }

    /// `program`, shown as `shown_as` in reports, with this env's home and
    /// cache, stdin closed, run in the temp dir (see
    /// [`TestCommand::current_dir`]).
    pub fn command(&self, program: impl AsRef<OsStr>, shown_as: &str) -> TestCommand<'_> {
        let mut command = Command::new(program);
        let home = self.dir.join("home");
        command
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("DROIDSCORE_CACHE", self.cache())
            .stdin(Stdio::null());
        let mut test = TestCommand {
            env: self,
            command,
            shown_as: shown_as.to_string(),
            cwd: PathBuf::new(),
            limit: None,
        };
        test.in_temp_dir();
        test
    }

    /// Every file under the temp dir, one a line with its size.
    pub fn files(&self) -> String {
        fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            let mut entries: Vec<_> = entries.flatten().collect();
            entries.sort_by_key(|e| e.file_name());
            for entry in entries {
                let path = entry.path();
                let rel = path.strip_prefix(base).unwrap_or(&path).display();
                match entry.metadata() {
                    Ok(m) if m.is_dir() => walk(&path, base, out),
                    Ok(m) => out.push(format!("  {rel} ({} bytes)", m.len())),
                    Err(e) => out.push(format!("  {rel} ({e})")),
                }
            }
        }
        let mut lines = Vec::new();
        walk(&self.dir, &self.dir, &mut lines);
        if lines.is_empty() {
            return "  (none)\n".into();
        }
        lines.join("\n") + "\n"
    }

    fn record(&self, report: String) {
        self.ran
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(report);
    }
}

impl Drop for TestEnv {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
            return;
        }
        let ran = self.ran.lock().unwrap_or_else(|e| e.into_inner());
        eprintln!(
            "\n--- test failed; its temp dir is kept: {}\nfiles:\n{}",
            self.dir.display(),
            self.files()
        );
        for report in ran.iter() {
            eprintln!("{report}");
        }
    }
}

/// A command for a binary under test, in a [`TestEnv`].
#[derive(Debug)]
pub struct TestCommand<'a> {
    env: &'a TestEnv,
    command: Command,
    shown_as: String,
    cwd: PathBuf,
    /// Killed, and the test failed, if it runs longer (see [`TestCommand::within`]).
    limit: Option<Duration>,
}

impl TestCommand<'_> {
    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Self {
        self.command.arg(arg);
        self
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command.args(args);
        self
    }

    pub fn env(&mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> &mut Self {
        self.command.env(key, value);
        self
    }

    pub fn env_remove(&mut self, key: impl AsRef<OsStr>) -> &mut Self {
        self.command.env_remove(key);
        self
    }

    pub fn envs<I, K, V>(&mut self, vars: I) -> &mut Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.command.envs(vars);
        self
    }

    /// Runs it in the env's temp dir (the default).
    pub fn in_temp_dir(&mut self) -> &mut Self {
        let dir = self.env.path().to_path_buf();
        self.current_dir(dir)
    }

    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.cwd = dir.as_ref().to_path_buf();
        self.command.current_dir(&self.cwd);
        self
    }

    /// The command as built so far (for a test of a crate's own settings).
    pub fn as_std(&self) -> &Command {
        &self.command
    }

    /// The variables set on it (`Some`) or removed from it (`None`), as text.
    pub fn vars(&self) -> Vec<(String, Option<String>)> {
        let text = |s: &OsStr| s.to_string_lossy().into_owned();
        self.command
            .get_envs()
            .map(|(k, v)| (text(k), v.map(text)))
            .collect()
    }

    /// A bound on its wall time: a run that is still going after `limit`
    /// is killed and the test fails, showing what it printed so far (a
    /// hang fails a test rather than blocking the suite).
    pub fn within(&mut self, limit: Duration) -> &mut Self {
        self.limit = Some(limit);
        self
    }

    /// Runs it to the end, expecting nothing of it.
    pub fn output(&mut self) -> Output {
        let output = match self.limit {
            None => self
                .command
                .output()
                .unwrap_or_else(|e| panic!("{}: {e}", self.line())),
            Some(limit) => self.output_within(limit),
        };
        self.env.record(self.report(&output));
        output
    }

    fn output_within(&mut self, limit: Duration) -> Output {
        let mut child = self
            .command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", self.line()));
        let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                if let Some(mut pipe) = pipe {
                    let _ = pipe.read_to_end(&mut bytes);
                }
                bytes
            })
        };
        let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
        let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
        let started = Instant::now();
        let (status, late) = loop {
            match child.try_wait() {
                Ok(Some(status)) => break (status, false),
                Ok(None) if started.elapsed() < limit => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                Ok(None) => {
                    let _ = child.kill();
                    break (child.wait().unwrap(), true);
                }
                Err(e) => panic!("{}: {e}", self.line()),
            }
        };
        let output = Output {
            status,
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
        };
        if late {
            self.fail(
                &format!("expected it to end within {limit:?}; killed"),
                &output,
            );
        }
        output
    }

    /// Runs it, expecting it to succeed.
    pub fn ok(&mut self) -> Output {
        let output = self.output();
        if !output.status.success() {
            self.fail("expected success", &output);
        }
        output
    }

    /// Runs it, expecting it to exit with `code` (one of the binary's `exit` codes).
    pub fn code(&mut self, code: i32) -> Output {
        let output = self.output();
        if output.status.code() != Some(code) {
            self.fail(&format!("expected exit code {code}"), &output);
        }
        output
    }

    /// Runs it, expecting it to fail with any code.
    pub fn fails(&mut self) -> Output {
        let output = self.output();
        if output.status.success() {
            self.fail("expected failure", &output);
        }
        output
    }

    pub fn stdin(&mut self, stdin: Stdio) -> &mut Self {
        self.command.stdin(stdin);
        self
    }

    pub fn stdout(&mut self, stdout: Stdio) -> &mut Self {
        self.command.stdout(stdout);
        self
    }

    pub fn stderr(&mut self, stderr: Stdio) -> &mut Self {
        self.command.stderr(stderr);
        self
    }

    /// Starts it (for a test that signals it or reads it as it runs); its
    /// stdout and stderr are inherited unless set.
    pub fn spawn(&mut self) -> Child {
        self.env.record(format!(
            "spawned: {}\n  cwd: {}",
            self.line(),
            self.cwd.display()
        ));
        self.command
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", self.line()))
    }

    /// Starts a server that prints the address it listens on as its first
    /// line (`droidscore sim serve`, `droidscore-device serve`), and returns
    /// it with that line.
    pub fn spawn_server(&mut self) -> Served {
        let mut child = self.stdout(Stdio::piped()).spawn();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap_or_else(|e| panic!("{}: {e}", self.line()));
        Served {
            child,
            addr: line.trim().to_string(),
        }
    }

    fn fail(&self, expected: &str, output: &Output) -> ! {
        panic!(
            "{expected}\n{}\nfiles in {}:\n{}",
            self.report(output),
            self.env.path().display(),
            self.env.files()
        );
    }

    /// The command line as a shell would take it (roughly: quoted where needed).
    fn line(&self) -> String {
        let quote = |s: &OsStr| {
            let s = s.to_string_lossy();
            if !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./:=,@+%".contains(c))
            {
                s.into_owned()
            } else {
                format!("'{}'", s.replace('\'', r"'\''"))
            }
        };
        let mut line = String::new();
        for (key, value) in self.command.get_envs() {
            if let Some(value) = value {
                if key != "HOME" && !key.to_string_lossy().starts_with("XDG_") {
                    let _ = write!(line, "{}={} ", key.to_string_lossy(), quote(value));
                }
            }
        }
        line.push_str(&quote(OsStr::new(&self.shown_as)));
        for arg in self.command.get_args() {
            line.push(' ');
            line.push_str(&quote(arg));
        }
        line
    }

    fn report(&self, output: &Output) -> String {
        format!(
            "command: {}\n  cwd: {}\n  exit: {}\n--- stdout\n{}--- stderr\n{}---",
            self.line(),
            self.cwd.display(),
            output.status,
            tail(&output.stdout),
            tail(&output.stderr)
        )
    }
}

/// The end of `bytes` as text, at most [`SHOWN`] bytes of it, ending in a newline.
fn tail(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "(empty)\n".into();
    }
    let text = String::from_utf8_lossy(bytes);
    let mut start = text.len().saturating_sub(SHOWN);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let mut shown = if start > 0 {
        format!("[… {start} bytes before this]\n{}", &text[start..])
    } else {
        text.into_owned()
    };
    if !shown.ends_with('\n') {
        shown.push('\n');
    }
    shown
}

/// A server started by [`TestCommand::spawn_server`], killed when dropped.
#[derive(Debug)]
pub struct Served {
    pub child: Child,
    /// The first line it printed: the address it listens on.
    pub addr: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Stdout or stderr as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use std::panic::{catch_unwind, AssertUnwindSafe};

    use super::{tail, TestEnv, SHOWN};

    #[test]
    fn a_failed_expectation_shows_the_command_its_cwd_the_files_and_the_output() {
        let env = TestEnv::new("testenv-expectation");
        env.write("in/note.txt", "twelve bytes");
        let caught = catch_unwind(AssertUnwindSafe(|| {
            env.command("sh", "sh")
                .args(["-c", "echo out; echo err >&2; exit 3"])
                .env("WHICH", "one two")
                .ok();
        }));
        let message = *caught.unwrap_err().downcast::<String>().unwrap();
        for part in [
            "expected success\n".to_string(),
            "command: ".to_string(),
            "WHICH='one two' ".to_string(),
            " sh -c 'echo out; echo err >&2; exit 3'\n".to_string(),
            format!("  cwd: {}\n", env.path().display()),
            "  exit: exit status: 3\n".to_string(),
            "--- stdout\nout\n--- stderr\nerr\n---".to_string(),
            format!("files in {}:\n", env.path().display()),
            "  in/note.txt (12 bytes)\n".to_string(),
        ] {
            assert!(message.contains(&part), "no {part:?} in:\n{message}");
        }
    }

    #[test]
    fn the_temp_dir_is_removed_when_a_test_passes_and_kept_when_it_fails() {
        let passed = TestEnv::new("testenv-passed");
        let path = passed.path().to_path_buf();
        assert!(path.is_dir());
        drop(passed);
        assert!(!path.exists(), "{} left behind", path.display());

        let failed = TestEnv::new("testenv-failed");
        let path = failed.path().to_path_buf();
        let _ = catch_unwind(AssertUnwindSafe(move || {
            let _env = failed;
            panic!("a failing test (on purpose)");
        }));
        assert!(path.is_dir(), "{} was removed", path.display());
        std::fs::remove_dir_all(&path).unwrap();
    }

    #[test]
    fn long_output_is_cut_to_its_end_on_a_char_boundary() {
        let long = "é".repeat(SHOWN);
        let shown = tail(long.as_bytes());
        assert!(shown.starts_with("[… "), "{}", &shown[..40]);
        assert!(shown.ends_with("é\n"));
        assert!(shown.len() < SHOWN + 64, "{} bytes shown", shown.len());
        assert_eq!(tail(b""), "(empty)\n");
    }
}
