//! The run store under faults, through `droidscore run` on the simulator:
//! SIGTERM or SIGINT mid-run keeps the finished episodes and nothing else,
//! and `--resume` completes the run with every episode once; a store on a
//! read-only or full file system is refused, naming it, before any episode;
//! a disk that fills mid-run stops the run with the committed episodes kept.
//!
//! The file systems are small tmpfs mounts, so these tests need root and
//! mount(8); without them they fail saying so (CI runs as root). Every
//! command has a wall-time bound and is killed past it.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use droidscore::exit;
use droidscore::store::{EpisodeStatus, Store};

use super::support::{text, TestCommand, TestEnv};

/// Every `droidscore run` here ends well within this, or is killed.
const WALL: Duration = Duration::from_secs(120);

/// A tmpfs mounted on a dir of the test's env, unmounted when dropped
/// (declare it after the env, so it is dropped first).
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: PathBuf, options: &str) -> Tmpfs {
        std::fs::create_dir_all(&dir).unwrap();
        let done = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(&dir)
            .output();
        let failed = match &done {
            Ok(out) if out.status.success() => None,
            Ok(out) => Some(format!("{}: {}", out.status, text(&out.stderr).trim())),
            Err(e) => Some(e.to_string()),
        };
        if let Some(why) = failed {
            panic!(
                "these tests need root and mount(8) (CI runs them as root): \
                 `mount -t tmpfs -o {options} tmpfs {}` failed: {why}",
                dir.display()
            );
        }
        Tmpfs(dir)
    }

    fn remount(&self, options: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,{options}")])
            .arg(&self.0)
            .status()
            .unwrap();
        assert!(status.success(), "remount,{options} {}", self.0.display());
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Waits for `child` (stdout and stderr piped) at most `limit`; past it,
/// kills it and fails.
fn wait_within(mut child: Child, limit: Duration) -> Output {
    let pid = child.id();
    let (send, receive) = std::sync::mpsc::channel();
    let mut stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        // stderr on its own thread so neither pipe can fill and block the child.
        let mut err = Vec::new();
        let read = std::thread::spawn(move || {
            let _ = stderr.read_to_end(&mut err);
            err
        });
        let output = child.wait_with_output();
        let _ = send.send(output.map(|mut o| {
            o.stderr = read.join().unwrap_or_default();
            o
        }));
    });
    match receive.recv_timeout(limit) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            panic!("droidscore (pid {pid}) did not end within {limit:?}; killed");
        }
    }
}

/// Runs `command` to its end within [`WALL`].
fn output(command: &mut TestCommand) -> Output {
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    wait_within(child, WALL)
}

/// Fails, showing stderr, unless `output` exited with `code`.
fn expect_code(output: &Output, code: i32) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "exit {:?}; stderr:\n{}",
        output.status,
        text(&output.stderr)
    );
}

/// The only line of stderr.
fn one_line(output: &Output) -> String {
    let err = text(&output.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "one line on stderr, not:\n{err}");
    lines[0].to_string()
}

const RUN: [&str; 6] = [
    "run",
    "--agent",
    "reference",
    "--tasks",
    "wifi_on",
    "--repeat",
];

/// `droidscore run --agent reference --tasks wifi_on --repeat N --store S`.
fn run<'a>(env: &'a TestEnv, repeat: u32, store: &Path) -> TestCommand<'a> {
    let mut command = env.droidscore();
    command
        .args(RUN)
        .arg(repeat.to_string())
        .arg("--store")
        .arg(store);
    command
}

/// The (task, variant, seed) of every episode of `run` in `store`, once
/// each; fails if one appears twice.
fn episode_keys(store: &Path, run: &str) -> BTreeSet<(String, String, u64)> {
    let episodes = Store::open_existing(store).unwrap().episodes(run).unwrap();
    let keys: BTreeSet<_> = episodes
        .iter()
        .map(|e| (e.task.clone(), e.variant.clone(), e.episode_seed))
        .collect();
    assert_eq!(keys.len(), episodes.len(), "an episode appears twice");
    keys
}

/// The store at `path` passes SQLite's integrity check, and every episode
/// of `run` in it is a finished one: the reference solution's success,
/// with its steps.
fn assert_whole(path: &Path, run: &str) -> usize {
    let conn = rusqlite::Connection::open(path).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let store = Store::open_existing(path).unwrap();
    let episodes = store.episodes(run).unwrap();
    for e in &episodes {
        assert_eq!(e.status, EpisodeStatus::Success, "{e:?}");
        let steps = store.steps(run, &e.task, &e.variant, e.repeat).unwrap();
        assert!(!steps.is_empty() && e.steps > 0, "{e:?}");
    }
    episodes.len()
}

/// The number after `before` in `line`.
fn number_after(line: &str, before: &str) -> usize {
    let (_, rest) = line
        .split_once(before)
        .unwrap_or_else(|| panic!("no {before:?} in {line:?}"));
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {before:?} in {line:?}"))
}

/// Starts a run of `repeat` × wifi_on's variants as run `t`, sends it
/// `signal` (`TERM`, `INT`) once its first episode is in the store, and
/// returns how it ended and its one stderr line, having checked the exit
/// code (128 + `number`) and that the store holds only whole episodes.
fn interrupt(env: &TestEnv, store: &Path, signal: &str, number: i32) -> String {
    let child = run(env, 40, store)
        .args(["--run-id", "t"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let started = Instant::now();
    loop {
        let finished = Store::open_existing(store)
            .ok()
            .and_then(|s| s.finished("t").ok())
            .map_or(0, |f| f.len());
        if finished >= 1 {
            break;
        }
        assert!(
            started.elapsed() < WALL,
            "no episode in the store within {WALL:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let sent = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -{signal}");
    let ended = wait_within(child, WALL);
    expect_code(&ended, exit::SIGNALLED + number);
    let line = one_line(&ended);
    let kept = assert_whole(store, "t");
    assert!((1..160).contains(&kept), "{kept} of 160 episodes kept");
    let name = if number == 2 { "SIGINT" } else { "SIGTERM" };
    assert_eq!(
        line,
        format!(
            "error: interrupted by {name}: {} keeps the {kept} of 160 episodes that finished; \
             `droidscore run --resume t` with the same options runs the other {}",
            store.display(),
            160 - kept
        )
    );
    // Closed cleanly: the WAL was checkpointed into the file and removed.
    let wal = PathBuf::from(format!("{}-wal", store.display()));
    assert!(!wal.exists(), "{} left behind", wal.display());
    line
}

#[test]
fn sigterm_mid_run_keeps_the_finished_episodes_and_resume_runs_each_other_one_once() {
    let env = TestEnv::new("store-sigterm");
    let (store, whole) = (env.join("t.sqlite"), env.join("whole.sqlite"));
    let line = interrupt(&env, &store, "TERM", 15);
    println!("{line}");
    let resumed = output(run(&env, 40, &store).args(["--resume", "t"]));
    expect_code(&resumed, exit::SUCCESS);
    let ran = output(run(&env, 40, &whole).args(["--run-id", "w"]));
    expect_code(&ran, exit::SUCCESS);
    let (a, b) = (episode_keys(&store, "t"), episode_keys(&whole, "w"));
    assert_eq!(a.len(), 160, "every episode once");
    assert_eq!(
        a, b,
        "the resumed run holds the uninterrupted run's episodes"
    );
    assert_eq!(assert_whole(&store, "t"), 160);
}

#[test]
fn sigint_mid_run_exits_130_keeping_the_finished_episodes() {
    let env = TestEnv::new("store-sigint");
    let line = interrupt(&env, &env.join("i.sqlite"), "INT", 2);
    println!("{line}");
}

#[test]
fn a_store_on_a_read_only_file_system_is_refused_naming_it_before_any_phone_or_model() {
    let env = TestEnv::new("store-read-only");
    let ro = Tmpfs::mount(env.join("ro"), "ro,size=256k");
    let store = ro.join("runs.sqlite");
    // An adb phone that is not there and a model server that cannot start:
    // either would be the error, were the store not checked first.
    let refused = output(
        env.droidscore()
            .env("DROIDSCORE_DEVICE_BIN", "/nonexistent/droidscore-device")
            .args([
                "run", "--phone", "adb", "--serial", "nowhere", "--agent", "llm",
            ])
            .args(["--tasks", "wifi_on", "--store"])
            .arg(&store),
    );
    expect_code(&refused, exit::IO);
    let line = one_line(&refused);
    println!("{line}");
    assert_eq!(
        line,
        format!(
            "error: cannot open the file in run store {}: read-only file system",
            store.display()
        )
    );
}

#[test]
fn a_store_on_a_full_file_system_is_refused_naming_it_before_any_episode() {
    let env = TestEnv::new("store-full");
    // Full to the last block: SQLite cannot even start the file.
    let full = Tmpfs::mount(env.join("full"), "size=256k");
    let fill = std::fs::File::create(full.join("fill")).unwrap();
    let mut fill = std::io::BufWriter::new(fill);
    let block = [0u8; 4096];
    while std::io::Write::write_all(&mut fill, &block).is_ok() {}
    drop(fill);
    let store = full.join("runs.sqlite");
    let refused = output(run(&env, 1, &store).args(["--run-id", "f"]));
    expect_code(&refused, exit::IO);
    let line = one_line(&refused);
    println!("{line}");
    assert!(
        line.starts_with("error: cannot ")
            && line.ends_with(&format!(
                " in run store {}: no space left on device",
                store.display()
            )),
        "{line}"
    );

    // Room for a small file but not for an episode's megabyte: the probe
    // write finds out before the first episode would.
    let small = Tmpfs::mount(env.join("small"), "size=512k");
    let store = small.join("runs.sqlite");
    let refused = output(run(&env, 1, &store).args(["--run-id", "s"]));
    expect_code(&refused, exit::IO);
    let line = one_line(&refused);
    println!("{line}");
    assert_eq!(
        line,
        format!(
            "error: cannot write a 1 MiB test record in run store {}: no space left on device",
            store.display()
        )
    );
    let runs = Store::open_existing(&store).unwrap().runs().unwrap();
    assert!(runs.is_empty(), "no run was recorded: {runs:?}");
}

#[test]
fn a_disk_that_fills_mid_run_stops_it_keeping_what_was_committed_and_resume_finishes_it() {
    let env = TestEnv::new("store-fills");
    // Room for the 1 MiB probe (its WAL frames are reused by the first
    // commits) and some forty of these episodes, not all 160.
    let disk = Tmpfs::mount(env.join("disk"), "size=1200k");
    let store = disk.join("runs.sqlite");
    let stopped = output(run(&env, 40, &store).args(["--run-id", "m"]));
    expect_code(&stopped, exit::IO);
    let line = one_line(&stopped);
    println!("{line}");
    let kept = assert_whole(&store, "m");
    assert!((1..160).contains(&kept), "{kept} of 160 episodes kept");
    assert_eq!(
        line,
        format!(
            "error: cannot commit the episode in run store {path}: no space left on device; \
             the run stopped: {path} keeps the {kept} of 160 episodes that finished; \
             `droidscore run --resume m` with the same options runs the other {}",
            160 - kept,
            path = store.display(),
        )
    );
    assert_eq!(number_after(&line, "keeps the "), kept);

    disk.remount("size=16m");
    let resumed = output(run(&env, 40, &store).args(["--resume", "m"]));
    expect_code(&resumed, exit::SUCCESS);
    assert_eq!(episode_keys(&store, "m").len(), 160, "every episode once");
    assert_eq!(assert_whole(&store, "m"), 160);
}
