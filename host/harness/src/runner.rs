//! Running the arms: the busy check before the first pass, then each pass
//! with the arms in rotated order (pass k, counted from 1, starts at arm
//! (k − 1) mod n), each arm a subprocess whose figures are read from its
//! stdout, and each run labelled contended or not from `/proc/stat`.
//!
//! Contention: over each run (stretched to at least `min_window`, so a quick
//! arm still spans enough clock ticks to say something), the target cores'
//! busy jiffies summed, less the arm's own CPU jiffies (its process tree,
//! from our waited-children counters; see `process`), measured in *cores*:
//! divided by one core's jiffies over the window (the cores' total over
//! their count), not by all the cores' total. The run is contended when that
//! excess is at least `threshold` of one core — the same per-core threshold
//! as the busy check, so a competitor filling one core of many is not
//! diluted by the idle others. The arm's own time cannot be attributed to a
//! particular core, so it is subtracted from the sum (conservatively: a
//! competitor on a core the arm left idle is hidden only as far as the arm
//! used other cores). With the arms pinned to the target cores (`--cores`,
//! `taskset`), the arm's own time is all spent there; unpinned, its time
//! elsewhere is subtracted too, and the label errs towards "not contended".
//!
//! An arm's stdout and stderr are read on threads; the runner waits for the
//! arm itself to exit (without reaping it), kills its process group — so a
//! background grandchild still holding the pipes cannot hang the harness —
//! then reaps it and gives the readers `READ_GRACE` to reach end of file,
//! keeping what they read by then. SIGINT and SIGTERM kill the running
//! arm's group before the harness exits (`kill_arm_on_interrupt`): the arm
//! leads its own group, so a terminal's Ctrl-C does not reach it.
//!
//! The runner only runs and records; an `Observer` hears each run start and
//! finish (the terminal's progress lines), and the summary is built elsewhere.

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Arc, Mutex, Once};
use std::time::{Duration, Instant};

use super::cpu::{self, StatSample};
use super::figures::{self, Figures};
use super::process;
use super::spec::{rotation, Arm, Spec};
use super::BenchError;

/// Lines of an arm's stderr (and of its stdout besides the figures) kept.
pub const TAIL_LINES: usize = 40;

/// How long, after the arm exited and its group was killed, its pipes may
/// stay open (held by something that left the group) before we stop reading.
pub const READ_GRACE: Duration = Duration::from_millis(500);

/// The running arm's process group, 0 when none.
static CURRENT_GROUP: AtomicU32 = AtomicU32::new(0);

/// The exit code of a `bench run` that SIGINT or SIGTERM ended is this plus
/// the signal's number (130, 143), as a shell reports a process a signal
/// ended; `droidscore::exit::SIGNALLED` is this constant.
pub const SIGNALLED: i32 = 128;

/// Installs, once, a SIGINT/SIGTERM handler that kills the running arm's
/// process group and exits 130 (SIGINT) or 143 (SIGTERM). Without it an
/// interrupted `bench run` would leave the arm running: the arm leads its
/// own group, outside the terminal's foreground group.
pub fn kill_arm_on_interrupt() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
            tracing::warn!("could not install the SIGINT/SIGTERM handler; an interrupted run may leave its arm running");
            return;
        };
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let group = CURRENT_GROUP.load(Ordering::SeqCst);
                if group != 0 {
                    super::sys::kill_process_group(group);
                }
                eprintln!("interrupted: killed the running arm's process group");
                std::process::exit(SIGNALLED + signal);
            }
        });
    });
}

/// Reads `pipe` to its end on a thread, into a shared buffer (so what was
/// read can be taken before the end), and says so on `done`.
fn read_on_thread(
    mut pipe: impl Read + Send + 'static,
    done: mpsc::Sender<()>,
) -> Arc<Mutex<Vec<u8>>> {
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let shared = Arc::clone(&buffer);
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => shared
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend_from_slice(&chunk[..n]),
            }
        }
        let _ = done.send(());
    });
    buffer
}

#[derive(Debug, Clone)]
pub struct Plan<'a> {
    pub spec: &'a Spec,
    pub passes: usize,
    /// Every key each arm must print as a number.
    pub keys: Vec<String>,
    pub cores: Vec<usize>,
    /// `Some(list)`: each arm runs under `taskset -c list`.
    pub taskset: Option<String>,
    pub threshold: f64,
    /// `--force`: started although the cores were busy.
    pub forced_past_busy: bool,
    pub min_window: Duration,
}

/// The busy check before the run, as evidence.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BusyCheck {
    pub window_s: f64,
    pub threshold: f64,
    /// Busy share (0–1) of each target core, keyed `cpuN`.
    pub shares: BTreeMap<String, f64>,
    /// The cores above the threshold.
    pub busy: Vec<String>,
    /// `--force` as given (whether or not a core was busy).
    pub force_flag: bool,
}

/// Samples the target cores for `window`; an error naming each busy core
/// and its share unless `force`.
pub fn busy_check(
    cores: &[usize],
    window: Duration,
    threshold: f64,
    force: bool,
) -> Result<BusyCheck, BenchError> {
    let shares = cpu::busy_over(window, cores).map_err(|e| BenchError::read("/proc/stat", e))?;
    let busy: Vec<(usize, f64)> = shares
        .iter()
        .filter(|(_, &s)| s > threshold)
        .map(|(&c, &s)| (c, s))
        .collect();
    if !busy.is_empty() && !force {
        let named: Vec<String> = busy
            .iter()
            .map(|(c, s)| format!("cpu{c} is {:.0} % busy", s * 100.0))
            .collect();
        return Err(BenchError::CoresBusy(format!(
            "refusing to start: {} (threshold {:.0} %, sampled over {:.1} s from /proc/stat); \
             wait until the cores are quiet, choose other --cores, or pass --force (every pass \
             is then labelled forced)",
            named.join(", "),
            threshold * 100.0,
            window.as_secs_f64()
        )));
    }
    Ok(BusyCheck {
        window_s: window.as_secs_f64(),
        threshold,
        shares: shares
            .iter()
            .map(|(c, s)| (format!("cpu{c}"), *s))
            .collect(),
        busy: busy.iter().map(|(c, _)| format!("cpu{c}")).collect(),
        force_flag: force,
    })
}

/// The evidence for (or against) a contended run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Contention {
    /// Busy share of each target core over the window, keyed `cpuN`.
    pub core_busy: BTreeMap<String, f64>,
    /// All target cores' busy jiffies, in cores (one core's jiffies over the
    /// window = 1).
    pub busy_cores: f64,
    /// The arm's own CPU jiffies, in cores.
    pub own_cores: f64,
    /// `max(0, busy − own)` in cores: the work not attributable to the arm.
    pub excess_cores: f64,
    /// Contended when `excess_cores ≥ threshold` (a share of one core).
    pub threshold: f64,
    pub window_s: f64,
    pub contended: bool,
}

/// Computes the contention label from two `/proc/stat` samples and the
/// arm's own CPU ticks between them.
pub fn contention(
    before: &StatSample,
    after: &StatSample,
    cores: &[usize],
    own_ticks: u64,
    threshold: f64,
    window: Duration,
) -> Contention {
    let mut busy = 0u64;
    let mut total = 0u64;
    for &c in cores {
        let d = cpu::delta(before, after, c);
        busy += d.busy;
        total += d.total;
    }
    // One core's jiffies over the window: the cores' total over their count.
    let per_core = if cores.is_empty() {
        0.0
    } else {
        total as f64 / cores.len() as f64
    };
    let in_cores = |x: f64| if per_core == 0.0 { 0.0 } else { x / per_core };
    let excess_cores = in_cores((busy as f64 - own_ticks as f64).max(0.0));
    Contention {
        core_busy: cpu::busy_shares(before, after, cores)
            .into_iter()
            .map(|(c, s)| (format!("cpu{c}"), s))
            .collect(),
        busy_cores: in_cores(busy as f64),
        own_cores: in_cores(own_ticks as f64),
        excess_cores,
        threshold,
        window_s: window.as_secs_f64(),
        contended: excess_cores >= threshold,
    }
}

/// One arm's run in one pass.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ArmRun {
    pub arm: String,
    /// Counted from 1.
    pub pass: usize,
    /// Its place in the pass's order, from 1.
    pub position: usize,
    pub wall_s: f64,
    pub figures: Figures,
    /// Stdout besides the figures, and stderr: the last `TAIL_LINES` of each.
    pub stdout_lines: Vec<String>,
    pub stderr_tail: Vec<String>,
    pub contention: Contention,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Pass {
    pub pass: usize,
    pub order: Vec<String>,
    /// Started under `--force` although the cores were busy.
    pub forced_past_busy: bool,
    /// Any run of the pass was contended.
    pub contended: bool,
    /// Every arm ran. Only complete passes enter the statistics and the
    /// ranking; an incomplete pass's runs stay here as a record.
    pub complete: bool,
    pub runs: Vec<ArmRun>,
}

/// Why an arm gave no figures.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ArmFailure {
    pub arm: String,
    pub pass: usize,
    pub message: String,
    /// The stdout line that was read (the last one), if any.
    pub line: Option<String>,
    pub exit_code: Option<i32>,
    pub stderr_tail: Vec<String>,
}

impl ArmFailure {
    pub fn describe(&self) -> String {
        let mut s = format!("arm {:?}, pass {}: {}", self.arm, self.pass, self.message);
        if let Some(line) = &self.line {
            s.push_str(&format!("; stdout's last line: {line:?}"));
        }
        if !self.stderr_tail.is_empty() {
            s.push_str("; stderr ends:\n  ");
            s.push_str(&self.stderr_tail.join("\n  "));
        }
        s
    }
}

/// Every pass that ran, and the failure that stopped the run, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub passes: Vec<Pass>,
    pub failure: Option<ArmFailure>,
}

pub trait Observer {
    fn started(&mut self, _pass: usize, _passes: usize, _arm: &str) {}
    fn finished(&mut self, _run: &ArmRun) {}
}

/// An observer that hears nothing.
#[derive(Debug)]
pub struct Quiet;
impl Observer for Quiet {}

fn tail(text: &str, n: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

/// The argv an arm runs as: its command, under `taskset -c LIST` if pinned.
pub fn argv(arm: &Arm, taskset: Option<&str>) -> Vec<String> {
    let mut argv = Vec::new();
    if let Some(list) = taskset {
        argv.extend(["taskset".to_string(), "-c".into(), list.to_string()]);
    }
    argv.extend(arm.command.iter().cloned());
    argv
}

fn run_arm(plan: &Plan, arm: &Arm, pass: usize, position: usize) -> Result<ArmRun, ArmFailure> {
    let fail = |message: String, line: Option<String>, code, stderr: &str| ArmFailure {
        arm: arm.tag.clone(),
        pass,
        message,
        line,
        exit_code: code,
        stderr_tail: tail(stderr, TAIL_LINES),
    };
    let argv = argv(arm, plan.taskset.as_deref());
    let mut command = Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .envs(&arm.env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let before = cpu::sample().map_err(|e| fail(format!("/proc/stat: {e}"), None, None, ""))?;
    let ticks_before = process::waited_children_ticks();
    let started = Instant::now();
    let mut child = command.spawn().map_err(|e| {
        fail(
            format!("failed to start {:?}: {e}", argv[0]),
            None,
            None,
            "",
        )
    })?;
    let pgid = child.id();
    CURRENT_GROUP.store(pgid, Ordering::SeqCst);
    let (done, finished) = mpsc::channel();
    let stdout_buf = read_on_thread(child.stdout.take().expect("piped"), done.clone());
    let stderr_buf = read_on_thread(child.stderr.take().expect("piped"), done);
    // Wait for the arm, not for its pipes: a background grandchild may hold
    // them open long after the arm exited.
    let exited = super::sys::wait_exited_unreaped(pgid);
    let wall = started.elapsed();
    // Nothing the arm left behind may run into the next arm's window. The
    // arm is a zombie until reaped below, so its group id cannot have been
    // reused by then.
    super::sys::kill_process_group(pgid);
    let status = child.wait();
    CURRENT_GROUP.store(0, Ordering::SeqCst);
    if let Err(e) = exited {
        return Err(fail(format!("failed to wait for it: {e}"), None, None, ""));
    }
    let status = status.map_err(|e| fail(format!("failed to wait for it: {e}"), None, None, ""))?;
    let deadline = Instant::now() + READ_GRACE;
    for _ in 0..2 {
        let left = deadline.saturating_duration_since(Instant::now());
        if finished.recv_timeout(left).is_err() {
            break;
        }
    }
    let so_far = started.elapsed();
    if so_far < plan.min_window {
        std::thread::sleep(plan.min_window - so_far);
    }
    let window = started.elapsed();
    let after = cpu::sample().map_err(|e| fail(format!("/proc/stat: {e}"), None, None, ""))?;
    let own = process::waited_children_ticks().saturating_sub(ticks_before);
    let take = |b: &Arc<Mutex<Vec<u8>>>| b.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let output = std::process::Output {
        status,
        stdout: take(&stdout_buf),
        stderr: take(&stderr_buf),
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last_line = stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(str::to_string);
    if !output.status.success() {
        return Err(fail(
            format!("exited with {}", output.status),
            last_line,
            output.status.code(),
            &stderr,
        ));
    }
    let read = figures::read(arm.output, &stdout)
        .map_err(|u| fail(u.why, Some(u.line), output.status.code(), &stderr))?;
    for key in &plan.keys {
        if figures::number(&read.figures, key).is_none() {
            let what = if read.figures.contains_key(key) {
                "is not a number"
            } else {
                "is missing"
            };
            return Err(fail(
                format!("key {key:?} {what} in its figures"),
                last_line,
                output.status.code(),
                &stderr,
            ));
        }
    }
    Ok(ArmRun {
        arm: arm.tag.clone(),
        pass,
        position,
        wall_s: wall.as_secs_f64(),
        figures: read.figures,
        stdout_lines: read.other_lines[read.other_lines.len().saturating_sub(TAIL_LINES)..]
            .to_vec(),
        stderr_tail: tail(&stderr, TAIL_LINES),
        contention: contention(&before, &after, &plan.cores, own, plan.threshold, window),
    })
}

/// Runs every pass; stops at the first arm that fails, keeping what ran.
pub fn run(plan: &Plan, observer: &mut dyn Observer) -> Outcome {
    kill_arm_on_interrupt();
    let arms = &plan.spec.arms;
    let mut passes = Vec::new();
    for p in 0..plan.passes {
        let order = rotation(arms.len(), p);
        let mut record = Pass {
            pass: p + 1,
            order: order.iter().map(|&i| arms[i].tag.clone()).collect(),
            forced_past_busy: plan.forced_past_busy,
            contended: false,
            complete: false,
            runs: Vec::new(),
        };
        for (position, &i) in order.iter().enumerate() {
            observer.started(p + 1, plan.passes, &arms[i].tag);
            match run_arm(plan, &arms[i], p + 1, position + 1) {
                Ok(run) => {
                    observer.finished(&run);
                    record.contended |= run.contention.contended;
                    record.runs.push(run);
                }
                Err(failure) => {
                    passes.push(record);
                    return Outcome {
                        passes,
                        failure: Some(failure),
                    };
                }
            }
        }
        record.complete = true;
        passes.push(record);
    }
    Outcome {
        passes,
        failure: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arms_own_cpu_is_subtracted_before_judging_contention() {
        let before = cpu::parse_stat("cpu0 0 0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0 0 0\n");
        // Over 100 ticks per core: cpu0 fully busy, cpu1 idle.
        let after = cpu::parse_stat("cpu0 100 0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 100 0 0 0 0 0 0\n");
        let w = Duration::from_secs(1);
        // The arm itself used all 100 busy ticks: nothing else was running.
        let own = contention(&before, &after, &[0, 1], 100, 0.15, w);
        assert_eq!(own.busy_cores, 1.0);
        assert_eq!(own.excess_cores, 0.0);
        assert!(!own.contended);
        // The arm used 10 of them: 90 ticks, 0.9 of a core, were someone else's.
        let other = contention(&before, &after, &[0, 1], 10, 0.15, w);
        assert!((other.excess_cores - 0.9).abs() < 1e-12);
        assert!(other.contended);
        assert_eq!(other.core_busy["cpu0"], 1.0);
        assert_eq!(other.core_busy["cpu1"], 0.0);
    }

    #[test]
    fn a_competitor_on_one_core_of_many_is_not_diluted_by_the_idle_others() {
        // Regression: the excess was a share of all cores' time, so one busy
        // core of eight read as 12.5 % and passed a 15 % threshold.
        let idle: String = (0..8)
            .map(|c| format!("cpu{c} 0 0 0 0 0 0 0 0 0 0\n"))
            .collect();
        let before = cpu::parse_stat(&idle);
        let after: String = (0..8)
            .map(|c| {
                if c == 3 {
                    format!("cpu{c} 100 0 0 0 0 0 0 0 0 0\n")
                } else {
                    format!("cpu{c} 0 0 0 100 0 0 0 0 0 0\n")
                }
            })
            .collect();
        let after = cpu::parse_stat(&after);
        let cores: Vec<usize> = (0..8).collect();
        let c = contention(&before, &after, &cores, 0, 0.15, Duration::from_secs(1));
        assert!((c.excess_cores - 1.0).abs() < 1e-12);
        assert!(c.contended);
        assert_eq!(c.core_busy["cpu3"], 1.0);
    }

    #[test]
    fn pinned_arms_run_under_taskset() {
        let arm = Arm {
            tag: "a".into(),
            command: vec!["probe".into(), "--x".into()],
            env: Default::default(),
            output: Default::default(),
        };
        assert_eq!(
            argv(&arm, Some("0-1")),
            ["taskset", "-c", "0-1", "probe", "--x"]
        );
        assert_eq!(argv(&arm, None), ["probe", "--x"]);
    }
}
