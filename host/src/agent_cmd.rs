//! `run --agent-cmd CMD`: any program that drives a phone itself over adb
//! (`input tap`, `screencap`, `uiautomator dump`, `am start`, …) scored
//! unchanged. For each episode the runner prepares the phone as for any
//! agent, runs `sh -c CMD` with the episode in its environment, and when the
//! program exits, runs past `--agent-timeout`, or acts once more than the
//! step budget allows, scores the phone's state with the task's oracle.
//!
//! The environment: `ANDROID_SERIAL`, `ANDROID_ADB_SERVER_PORT` (the
//! virtual phone's private adb server; a real phone's is the caller's),
//! `DROIDSCORE_GOAL`, `DROIDSCORE_TASK`, `DROIDSCORE_VARIANT`,
//! `DROIDSCORE_INSTANCE_SEED`, `DROIDSCORE_EPISODE_SEED`,
//! `DROIDSCORE_MAX_STEPS`, `DROIDSCORE_APP` (the task's app package),
//! `DROIDSCORE_ANSWER_FILE` (where an answer task's answer goes: its text,
//! trimmed, is the answer) and `DROIDSCORE_EPISODE_DIR` (scratch, removed
//! after). The program runs in droidscore's working directory, in a process
//! group of its own, killed whole when the episode ends.
//!
//! On the virtual phone every command the program sent is recorded from the
//! phone's side (`vphone::trajectory`): each action is a step, with the
//! screen before it, and the milestones are read after each. On a real
//! phone, where the commands cannot be seen, the episode has no steps and
//! its milestones are read once, at the end, and its record says so.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use droidscore_phone::vphone::trajectory::{Entry, Kind};

use crate::episode::{conclude, End, Episode, Progress};
use crate::oracle::Baseline;
use crate::run::backend::Backend;
use crate::run::EpisodeKey;
use crate::store::StepRecord;
use crate::task::{Instance, Tracker};

/// What `--agent-cmd` runs, and its bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentCmd {
    /// Given to `sh -c`.
    pub command: String,
    /// `--agent-timeout`: the longest one episode's program may run.
    pub timeout: Duration,
    /// Bytes of stdout and of stderr kept (the last ones).
    pub output_limit: usize,
}

/// Bytes of each stream kept by default: the end of a long log, where
/// the error is.
pub const OUTPUT_LIMIT: usize = 16 * 1024;

/// Shell words that are not programs on PATH.
const BUILTINS: &[&str] = &[
    "cd", "exec", "env", "export", "set", "unset", ".", "source", "true", "false", "echo", "test",
    "[", "command", "time", "nice", "timeout", "if", "for", "while", "{", "(",
];

/// A command whose first program cannot be found is refused before any
/// episode, naming the flag; one that starts and then fails is the agent's
/// failure, episode by episode.
pub fn check_startable(command: &str) -> Result<(), String> {
    let first = command
        .split_whitespace()
        .find(|w| !w.contains('='))
        .ok_or_else(|| "--agent-cmd: the command is empty".to_string())?;
    let first = first.trim_matches(|c| c == '\'' || c == '"');
    if BUILTINS.contains(&first) {
        return Ok(());
    }
    let runnable = |p: &Path| {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if first.contains('/') {
        return match runnable(Path::new(first)) {
            true => Ok(()),
            false => Err(format!(
                "--agent-cmd: {first:?} is not an executable file (from {})",
                std::env::current_dir()
                    .map(|d| d.display().to_string())
                    .unwrap_or_default()
            )),
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    if std::env::split_paths(&path).any(|dir| runnable(&dir.join(first))) {
        return Ok(());
    }
    Err(format!("--agent-cmd: {first:?} is not on PATH"))
}

/// The last bytes of a stream, and how many there were.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tail {
    pub text: String,
    pub bytes: u64,
    pub truncated: bool,
}

fn read_tail(mut from: impl Read + Send + 'static, limit: usize) -> thread::JoinHandle<Tail> {
    thread::spawn(move || {
        let (mut kept, mut bytes, mut buf) = (Vec::new(), 0u64, [0u8; 8192]);
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            bytes += n as u64;
            kept.extend_from_slice(&buf[..n]);
            if kept.len() > 2 * limit.max(1) {
                kept.drain(..kept.len() - limit);
            }
        }
        let truncated = kept.len() > limit;
        if truncated {
            kept.drain(..kept.len() - limit);
        }
        Tail {
            text: String::from_utf8_lossy(&kept).into_owned(),
            bytes,
            truncated: truncated || bytes > kept.len() as u64,
        }
    })
}

/// How the program ran, kept with the episode (in its `end`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ProgramRun {
    pub command: String,
    /// The exit status, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// Killed by droidscore: `timeout`, `step budget`, `run stopped`.
    pub killed_for: Option<String>,
    pub wall_ms: f64,
    pub stdout: Tail,
    pub stderr: Tail,
    /// On a virtual phone: commands, actions and screen reads it sent.
    pub commands: Option<u32>,
    pub actions: Option<u32>,
    pub observations: Option<u32>,
    /// Where the trajectory came from: `phone` (the virtual phone saw every
    /// command) or `end state only` (a real phone: nothing seen until the end).
    pub trajectory: &'static str,
}

/// What an episode of a program left: the episode scored, its steps as
/// the phone saw them, and the program's run with the phone's log.
#[derive(Debug)]
pub struct Played {
    pub episode: Episode,
    pub steps: Vec<StepRecord>,
    pub program: ProgramRun,
    pub log: Vec<Entry>,
}

/// Why no episode could be played (infrastructure: retried once).
pub type Infra = String;

/// Play one episode: hand the prepared phone to the program, wait for it
/// within its bounds, take the phone back and score it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn play(
    cmd: &AgentCmd,
    backend: &mut dyn Backend,
    instance: &Instance,
    episode_seed: u64,
    goal: &str,
    strict: bool,
    key: &EpisodeKey,
    abandon: &AtomicBool,
) -> Result<Played, Infra> {
    let handoff = backend
        .handoff()
        .ok_or("--agent-cmd: this backend cannot hand its phone to a program")?;
    let baseline = Baseline::capture(backend.phone());
    let tracker = Arc::new(Mutex::new(Tracker::new(instance.milestones.len())));
    if let Some(phone) = &handoff.virtual_phone {
        let (milestones, tracker) = (instance.milestones.clone(), tracker.clone());
        phone.start_trajectory(
            Some(instance.max_steps),
            Some(Box::new(move |sim, now, step| {
                let mut t = tracker.lock().unwrap_or_else(|e| e.into_inner());
                t.update(&milestones, sim, now, step);
            })),
        );
    }
    let dir = scratch_dir(key).map_err(|e| format!("--agent-cmd: scratch directory: {e}"))?;
    let answer_file = dir.join("answer.txt");
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(&cmd.command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("ANDROID_SERIAL", &handoff.serial)
        .env("DROIDSCORE_GOAL", goal)
        .env("DROIDSCORE_TASK", &instance.task)
        .env("DROIDSCORE_VARIANT", &instance.variant.id)
        .env(
            "DROIDSCORE_INSTANCE_SEED",
            instance.instance_seed.to_string(),
        )
        .env("DROIDSCORE_EPISODE_SEED", episode_seed.to_string())
        .env("DROIDSCORE_MAX_STEPS", instance.max_steps.to_string())
        .env("DROIDSCORE_APP", &instance.app)
        .env("DROIDSCORE_ANSWER_FILE", &answer_file)
        .env("DROIDSCORE_EPISODE_DIR", &dir);
    if let Some(port) = handoff.adb_server_port {
        command.env("ANDROID_ADB_SERVER_PORT", port.to_string());
    }
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let started = Instant::now();
    let mut child = command
        .spawn()
        .map_err(|e| format!("--agent-cmd: sh -c {:?} could not start: {e}", cmd.command))?;
    let stdout = read_tail(child.stdout.take().expect("piped"), cmd.output_limit);
    let stderr = read_tail(child.stderr.take().expect("piped"), cmd.output_limit);
    let over_budget = || {
        handoff
            .virtual_phone
            .as_ref()
            .is_some_and(|p| p.over_budget())
    };
    let (status, killed_for) = loop {
        match child.try_wait() {
            Ok(Some(status)) => break (Some(status), None),
            Ok(None) => {}
            Err(e) => return Err(format!("--agent-cmd: waiting for the program: {e}")),
        }
        let why = if over_budget() {
            Some("step budget")
        } else if started.elapsed() > cmd.timeout {
            Some("timeout")
        } else if abandon.load(Ordering::Relaxed) {
            Some("run stopped")
        } else {
            None
        };
        if let Some(why) = why {
            droidscore_harness::sys::kill_process_group(child.id());
            break (child.wait().ok(), Some(why.to_string()));
        }
        thread::sleep(Duration::from_millis(20));
    };
    // Whatever it left running in its group goes with it (an `adb` it
    // forked, a helper in the background); its pipes then close.
    droidscore_harness::sys::kill_process_group(child.id());
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    let (stdout, stderr) = (
        stdout.join().unwrap_or_default(),
        stderr.join().unwrap_or_default(),
    );
    let answer = std::fs::read_to_string(&answer_file)
        .ok()
        .map(|a| a.trim().to_string());
    let _ = std::fs::remove_dir_all(&dir);
    let snapshot = handoff
        .virtual_phone
        .as_ref()
        .and_then(|p| p.end_trajectory());
    backend.take_back().map_err(|e| format!("phone: {e}"))?;
    use std::os::unix::process::ExitStatusExt;
    let (exit_code, signal) = status.map_or((None, None), |s| (s.code(), s.signal()));
    let end = match (killed_for.as_deref(), exit_code, signal) {
        (Some("step budget"), _, _) => End::OutOfSteps,
        (Some("timeout"), _, _) => End::TimedOut,
        (Some(why), _, _) => End::Infra(format!("the program was stopped: {why}")),
        (None, Some(0), _) => End::Complete,
        (None, Some(code), _) => End::Exited(format!("exited with status {code}")),
        (None, None, Some(sig)) => End::Exited(format!("was killed by signal {sig}")),
        (None, None, None) => End::Exited("ended without a status".into()),
    };
    let log = snapshot
        .as_ref()
        .map(|s| s.entries.clone())
        .unwrap_or_default();
    let actions: Vec<&Entry> = log
        .iter()
        .filter(|e| e.kind == Kind::Action && !e.refused)
        .collect();
    let mut tracker = tracker.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let phone = backend.phone();
    if snapshot.is_none() {
        // A real phone: the milestones as the end state shows them.
        if let Ok(now) = phone.observe(false) {
            tracker.update(&instance.milestones, phone, &now, 1);
        }
    }
    let progress = Progress {
        milestones: instance.milestones.len() as u32,
        decisions: actions.len() as u32,
        acting_steps: actions.len() as u32,
        screen_changes: actions.iter().filter(|e| e.before != e.after).count() as u32,
        ..Progress::default()
    };
    let episode = conclude(
        phone,
        instance,
        &baseline,
        end,
        actions.len() as u32,
        answer,
        strict,
        progress,
        &tracker,
    )
    .map_err(|e| format!("phone: {e}"))?;
    let steps = step_records(key, &actions);
    let program = ProgramRun {
        command: cmd.command.clone(),
        exit_code,
        signal,
        killed_for,
        wall_ms,
        stdout,
        stderr,
        commands: snapshot.as_ref().map(|s| s.entries.len() as u32),
        actions: snapshot.as_ref().map(|s| s.actions),
        observations: snapshot.as_ref().map(|s| s.observations),
        trajectory: if snapshot.is_some() {
            "phone"
        } else {
            "end state only"
        },
    };
    Ok(Played {
        episode,
        steps,
        program,
        log,
    })
}

/// A directory of the episode's own, under the system's temp directory.
fn scratch_dir(key: &EpisodeKey) -> std::io::Result<PathBuf> {
    let safe = |s: &str| s.replace(|c: char| !c.is_ascii_alphanumeric() && c != '_', "-");
    let dir = std::env::temp_dir().join(format!(
        "droidscore-agent-{}-{}-{}-{}",
        std::process::id(),
        safe(&key.task),
        safe(&key.variant),
        key.repeat
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Each action the phone ran, as a step record: the screen before it (the
/// UI dump whole), the command as sent, and the time since the action before.
fn step_records(key: &EpisodeKey, actions: &[&Entry]) -> Vec<StepRecord> {
    let mut last_ms = 0.0;
    actions
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let latency_ms = e.at_ms - last_ms;
            last_ms = e.at_ms;
            let xml = e.before_xml.clone().unwrap_or_default();
            StepRecord {
                run_id: key.run_id.clone(),
                task: key.task.clone(),
                variant: key.variant.clone(),
                repeat: key.repeat,
                index: i as u32,
                observation_digest: e.before.clone().unwrap_or_default(),
                ui_dump_gz: crate::store::gzip(&xml),
                screenshot: e.before_png.clone(),
                raw_output: shell_words(&e.argv),
                action: serde_json::json!({
                    "command": e.argv,
                    "exit": e.exit,
                    "at_ms": e.at_ms,
                    "screen_after": e.after,
                }),
                invalid_reason: (e.exit != 0)
                    .then(|| format!("the phone answered exit status {}", e.exit)),
                tap: tap_point(&e.argv),
                prompt_tokens: None,
                cached_tokens: None,
                completion_tokens: None,
                latency_ms,
                observe: None,
            }
        })
        .collect()
}

/// `input tap X Y` (and `input touchscreen tap`): where it landed.
fn tap_point(argv: &[String]) -> Option<(i32, i32)> {
    let words: Vec<&str> = argv.iter().map(String::as_str).collect();
    let at = match words.as_slice() {
        ["input", "tap", x, y, ..] | ["input", _, "tap", x, y, ..] => (x, y),
        _ => return None,
    };
    Some((
        at.0.parse::<f64>().ok()? as i32,
        at.1.parse::<f64>().ok()? as i32,
    ))
}

/// A command's words as a shell line: a word with anything a shell reads
/// specially goes through the adb backend's quoting.
fn shell_words(argv: &[String]) -> String {
    let plain = |w: &str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./:=,%@+".contains(c))
    };
    argv.iter()
        .map(|w| {
            if plain(w) {
                w.clone()
            } else {
                droidscore_phone::adb::quote(w)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_whose_program_is_missing_is_refused_naming_the_flag() {
        assert!(check_startable("sh -c true").is_ok());
        assert!(check_startable("FOO=1 cd /tmp && ./x").is_ok());
        let missing = check_startable("no-such-agent-program --go").unwrap_err();
        assert!(
            missing.contains("--agent-cmd: \"no-such-agent-program\" is not on PATH"),
            "{missing}"
        );
        let file = check_startable("./no/such/agent.sh").unwrap_err();
        assert!(file.contains("is not an executable file"), "{file}");
        assert!(check_startable("  ").unwrap_err().contains("empty"));
    }

    #[test]
    fn a_stream_keeps_its_last_bytes_and_says_how_many_there_were() {
        let data: Vec<u8> = (0..100_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        let tail = read_tail(std::io::Cursor::new(data.clone()), 1000)
            .join()
            .unwrap();
        assert_eq!(tail.bytes, 100_000);
        assert!(tail.truncated);
        assert_eq!(tail.text.as_bytes(), &data[99_000..]);
        let short = read_tail(std::io::Cursor::new(b"ok\n".to_vec()), 1000)
            .join()
            .unwrap();
        assert_eq!((short.text.as_str(), short.truncated), ("ok\n", false));
    }

    #[test]
    fn a_tap_is_placed_and_words_are_quoted_as_a_shell_reads_them() {
        let argv = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        assert_eq!(tap_point(&argv("input tap 540 715")), Some((540, 715)));
        assert_eq!(
            tap_point(&argv("input touchscreen tap 1.5 2")),
            Some((1, 2))
        );
        assert_eq!(tap_point(&argv("input swipe 1 2 3 4")), None);
        let words = vec!["input".into(), "text".into(), "it's here".into()];
        assert_eq!(shell_words(&words), r"input text 'it'\''s here'");
    }
}
