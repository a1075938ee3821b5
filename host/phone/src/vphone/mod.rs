//! The virtual phone: the simulator behind adbd's wire protocol, so the real
//! `adb` binary — and through it our adb backend — drives it like a phone.
//! `script` parses command lines, `commands` answers the commands a phone
//! answers (`uiautomator dump`, `screencap`, `input`, `settings`, `am`, …),
//! `system` the dumps and package lists adb clients parse (`dumpsys`, `pm`);
//! anything else gets the error a phone's shell gives. It never runs a host
//! command: every command is a function here.
//!
//! Control over the same shell, which a real phone does not have (`not
//! found` there): `droidscore-sim load TASK VARIANT EPISODE_SEED [INSTANCE_SEED]` puts it in a task
//! variant's initial state, `droidscore-sim flips` prints the flip history as
//! JSON, `droidscore-sim fail-dumps N [idle|null]` makes the next N dumps fail
//! as uiautomator does, `droidscore-sim adbkeyboard on|off` installs or
//! removes ADBKeyBoard, `droidscore-sim state` prints every state key,
//! `droidscore-sim production on|off` makes it a production build whose
//! adbd refuses `adb root` (and drops root it had),
//! `droidscore-sim pose-as-phone on|off` makes `getprop` name another maker
//! (so the adb backend treats it as a real phone), `droidscore-sim
//! ignore-writes KEY` makes writes to KEY succeed without effect, and
//! `droidscore-sim jobs` prints the background jobs as JSON.
//!
//! The phone is a userdebug emulator's, as AndroidWorld's image is: adbd
//! starts as `shell` and `adb root` restarts it as root (`user`), which
//! opens the apps' private data under `/data/data`. There, each app with a
//! database of its own (Pro Expense, Joplin, Tasks.org) keeps it as a real
//! file in step with the simulator's records (`appdata`), which `adb pull`,
//! `adb push` and `sqlite3` (`sqlite`) read and change, and the app reads
//! again when it restarts. The shell takes `if … then … else … fi`, `[ … ]`
//! (`test_builtin`) and globs (`glob`).
//!
//! A background command (`nohup ./server … > log 2>&1 &`) is recorded as a
//! job with a pid and never run: `kill`, `kill -0` and `/proc/PID/cmdline`
//! answer from that record. Its log file is created empty, as the
//! redirection creates it. The `tcp:PORT` service (what `adb forward`
//! reaches) connects to PORT on this machine's loopback — the virtual
//! phone's loopback is the host's — so a test can play the phone's server.

mod appdata;
mod commands;
mod display;
mod glob;
mod input;
mod jobs;
mod records;
pub mod script;
mod sqlite;
mod state;
mod system;
mod test_builtin;
#[cfg(test)]
pub(crate) mod test_support;
mod toybox;
pub mod trajectory;
mod user;

pub use state::{DumpFailure, Job, Loaded, MODEL};

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::adbd::{Device, DirEntry, Restart, ShellOutput, SyncFail};
use crate::apps::{PhoneSetup, SetupError};
use crate::sim::SimPhone;
use state::{instance_phone, Inner};
pub use state::{LoadError, Setups};

/// A simulator that answers adb shell commands.
#[derive(Debug)]
pub struct VirtualPhone {
    setups: Box<dyn Setups>,
    inner: Mutex<Inner>,
}

impl VirtualPhone {
    /// A phone in the simulator's default state, with the task variants of
    /// `setups` available to `droidscore-sim load`.
    pub fn new(setups: impl Setups + 'static) -> Result<VirtualPhone, SetupError> {
        let phone = VirtualPhone {
            setups: Box::new(setups),
            inner: Mutex::new(Inner {
                sim: SimPhone::new(PhoneSetup::default())?,
                loaded: None,
                files: BTreeMap::new(),
                modes: BTreeMap::new(),
                mtimes: BTreeMap::new(),
                booted: std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs() as u32),
                jobs: Vec::new(),
                fail_dumps: 0,
                failure: DumpFailure::Idle,
                adbkeyboard: false,
                pose_as_phone: false,
                ignored_writes: Default::default(),
                trajectory: None,
                dirs: Default::default(),
                ime: state::LATIN_IME.into(),
                root: false,
                production: false,
                appdata: Default::default(),
            }),
        };
        appdata::reset(&mut phone.lock());
        Ok(phone)
    }

    /// Put the phone in a task variant's initial state (the task as
    /// written: instance seed 0), for an episode with `episode_seed`.
    pub fn load(&self, task: &str, variant: &str, episode_seed: u64) -> Result<(), LoadError> {
        let (sim, loaded) = instance_phone(&*self.setups, task, variant, episode_seed, 0)?;
        let mut inner = self.lock();
        inner.sim = sim;
        inner.loaded = Some(loaded);
        appdata::reset(&mut inner);
        Ok(())
    }

    /// Put the phone in a prepared simulator's state (any instance seed,
    /// any condition), as a fresh phone: the files, background jobs and
    /// switches of the last episode go, and so does its trajectory. adbd
    /// stays as it runs (root after `adb root`), as an emulator's does
    /// from one task to the next.
    pub fn install(&self, sim: SimPhone, loaded: Loaded) {
        let mut inner = self.lock();
        inner.sim = sim;
        inner.loaded = Some(loaded);
        inner.files.clear();
        inner.modes.clear();
        inner.mtimes.clear();
        inner.jobs.clear();
        inner.fail_dumps = 0;
        inner.adbkeyboard = false;
        inner.ignored_writes.clear();
        inner.trajectory = None;
        inner.dirs.clear();
        inner.ime = state::LATIN_IME.into();
        appdata::reset(&mut inner);
    }

    /// The simulator behind the phone, to score it in-process.
    pub fn with_sim<R>(&self, f: impl FnOnce(&mut SimPhone) -> R) -> R {
        f(&mut self.lock().sim)
    }

    /// Record every command from now on (an agent's episode), with at
    /// most `budget` actions run; the controls are hidden meanwhile.
    pub fn start_trajectory(
        &self,
        budget: Option<u32>,
        after_action: Option<trajectory::AfterAction>,
    ) {
        self.lock().trajectory = Some(trajectory::Trajectory::new(budget, after_action));
    }

    /// The trajectory recorded so far, if one is.
    pub fn trajectory(&self) -> Option<trajectory::Snapshot> {
        self.lock().trajectory.as_ref().map(|t| t.snapshot())
    }

    /// Stop recording: the trajectory as it ended, and the controls back.
    pub fn end_trajectory(&self) -> Option<trajectory::Snapshot> {
        self.lock().trajectory.take().map(|t| t.snapshot())
    }

    /// Whether an action came after the recorded episode's budget was spent.
    pub fn over_budget(&self) -> bool {
        self.lock()
            .trajectory
            .as_ref()
            .is_some_and(|t| t.over_budget)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic in one command must not take the phone down for the rest.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Run a command line as the phone's shell would.
    pub fn run(&self, line: &str) -> ShellOutput {
        let list = match script::parse(line) {
            Ok(list) => list,
            Err(e) => {
                return ShellOutput {
                    stdout: Vec::new(),
                    stderr: format!("/system/bin/sh: {e}\n").into_bytes(),
                    exit: 2,
                }
            }
        };
        // `adb shell` starts in `/`.
        let mut shell = Shell {
            out: ShellOutput::default(),
            status: 0,
            cwd: String::from("/"),
            last_background: None,
            exited: false,
        };
        self.run_list(&list, &mut shell);
        let mut out = shell.out;
        out.exit = shell.status;
        out
    }

    /// Run a list's commands in order, each as its join says.
    fn run_list(&self, list: &script::List, shell: &mut Shell) {
        for (join, node) in list {
            if shell.exited {
                return;
            }
            let run = match join {
                script::Join::Always => true,
                script::Join::And => shell.status == 0,
                script::Join::Or => shell.status != 0,
            };
            if !run {
                continue;
            }
            match node {
                script::Node::Pipeline(pipeline) => self.run_pipeline(pipeline, shell),
                script::Node::If(node) => self.run_if(node, shell),
            }
        }
    }

    /// `if`: the first branch whose condition exits 0 runs its body, else
    /// the `else` list; with neither, the status is 0 (POSIX 2.9.4.4).
    fn run_if(&self, node: &script::If, shell: &mut Shell) {
        for (condition, body) in &node.branches {
            self.run_list(condition, shell);
            if shell.exited {
                return;
            }
            if shell.status == 0 {
                return self.run_list(body, shell);
            }
        }
        match &node.otherwise {
            Some(otherwise) => self.run_list(otherwise, shell),
            None => shell.status = 0,
        }
    }

    fn run_pipeline(&self, pipeline: &script::Pipeline, shell: &mut Shell) {
        // The phone's lock is taken per command, never across the line: a
        // `sleep` (or any command that waits) on one connection must not hold
        // the phone for every other (issue 30: `echo ok` waited 7.5 s behind
        // `sleep 4; sleep 4`). Commands from two shells interleave, as on a phone.
        let (status, last_background) = (shell.status, shell.last_background);
        if pipeline.background {
            let expand = |w: &script::Word| w.expand(status, last_background);
            let argv: Vec<String> = pipeline.commands[0].iter().map(expand).collect();
            shell.last_background = Some(jobs::start(
                &mut self.lock(),
                &shell.cwd,
                argv,
                &pipeline.redirects,
                expand,
            ));
            shell.status = 0;
            return;
        }
        let mut stdin = Vec::new();
        for words in &pipeline.commands {
            let args = self.expand(words, shell);
            if args.first().map(String::as_str) == Some("exit") {
                let code = args
                    .get(1)
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(shell.status);
                shell.status = code;
                shell.exited = true;
                return;
            }
            let result = if args.first().map(String::as_str) == Some("cd") {
                jobs::cd(
                    &self.lock(),
                    &mut shell.cwd,
                    args.get(1).map(String::as_str),
                )
            } else if let Some(result) = commands::stateless(&args, &stdin) {
                result
            } else {
                logged(&mut self.lock(), &args, |inner| {
                    commands::run(inner, &*self.setups, &args, &stdin)
                })
            };
            shell.out.stderr.extend(result.stderr);
            shell.status = result.exit;
            stdin = result.stdout;
        }
        shell.out.stdout.extend(stdin);
    }

    /// A command's words as it gets them: `$?` and `$!` expanded, and each
    /// glob replaced by the paths it matches (kept as written when none
    /// does, as sh keeps it).
    fn expand(&self, words: &[script::Word], shell: &Shell) -> Vec<String> {
        let (status, last_background) = (shell.status, shell.last_background);
        let mut args = Vec::with_capacity(words.len());
        for word in words {
            let text = word.expand(status, last_background);
            let matches = match word.glob(status, last_background) {
                Some(pattern) => {
                    let mut inner = self.lock();
                    // The apps write their databases before a glob reads.
                    appdata::sync(&mut inner);
                    glob::matches(&inner, &shell.cwd, &text, &pattern)
                }
                None => Vec::new(),
            };
            if matches.is_empty() {
                args.push(text);
            } else {
                args.extend(matches);
            }
        }
        args
    }
}

/// One command line's run: what it printed so far, the last status, and
/// the shell's state between commands.
struct Shell {
    out: ShellOutput,
    status: u8,
    cwd: String,
    last_background: Option<u32>,
    /// `exit` ran: nothing more does.
    exited: bool,
}

/// Run one command through `run`, logged when a trajectory is recorded
/// (`trajectory`): its kind, and for an action the budget, the screens
/// before and after, and the after-action hook.
fn logged(
    inner: &mut Inner,
    args: &[String],
    run: impl FnOnce(&mut Inner) -> ShellOutput,
) -> ShellOutput {
    let Some(trajectory) = inner.trajectory.as_mut() else {
        return run(inner);
    };
    let at_ms = trajectory.started.elapsed().as_secs_f64() * 1000.0;
    let kind = trajectory::kind(args);
    let entry = |exit, step, refused, before, after, before_xml, before_png| trajectory::Entry {
        at_ms,
        argv: args.to_vec(),
        kind,
        exit,
        step,
        refused,
        before,
        after,
        before_xml,
        before_png,
    };
    if kind != trajectory::Kind::Action {
        if args.first().map(String::as_str) == Some("screencap") {
            trajectory.looked = true;
        }
        let out = run(inner);
        let logged = entry(out.exit, None, false, None, None, None, None);
        if let Some(t) = inner.trajectory.as_mut() {
            t.entries.push(logged);
        }
        return out;
    }
    if trajectory.budget.is_some_and(|b| trajectory.actions >= b) {
        trajectory.over_budget = true;
        let budget = trajectory.budget.unwrap_or_default();
        trajectory
            .entries
            .push(entry(1, None, true, None, None, None, None));
        return ShellOutput::fail(
            1,
            format_args!("droidscore: the episode's step budget ({budget} actions) is spent"),
        );
    }
    let shot = std::mem::take(&mut trajectory.looked);
    let (before, seen) = trajectory::screen(&mut inner.sim, shot);
    let (before_xml, before_png) = seen.map_or((String::new(), None), |o| (o.xml, o.screenshot));
    let out = run(inner);
    let (after, now) = trajectory::screen(&mut inner.sim, false);
    let Some(trajectory) = inner.trajectory.as_mut() else {
        return out;
    };
    trajectory.actions += 1;
    let step = trajectory.actions;
    trajectory.entries.push(entry(
        out.exit,
        Some(step),
        false,
        Some(before),
        Some(after),
        Some(before_xml),
        before_png,
    ));
    let hook = now.and_then(|now| Some((trajectory.after_action.take()?, now)));
    if let Some((mut hook, now)) = hook {
        hook(&mut inner.sim, &now, step);
        if let Some(t) = inner.trajectory.as_mut() {
            t.after_action = Some(hook);
        }
    }
    out
}

impl Device for VirtualPhone {
    fn banner(&self) -> String {
        format!(
            "device::ro.product.name={MODEL};ro.product.model={MODEL};ro.product.device={MODEL};features=shell_v2,cmd"
        )
    }

    fn shell(&self, command: &str) -> ShellOutput {
        self.run(command)
    }

    fn push(&self, path: &str, mode: u32, mtime: u32, data: Vec<u8>) -> Result<(), SyncFail> {
        let mut inner = self.lock();
        appdata::sync(&mut inner);
        if user::denied(&inner, path) {
            // file_sync_service.cpp, handle_send_file: open(2) refused.
            return Err("couldn't create file: Permission denied".into());
        }
        if inner.is_dir(path) {
            // adbd's open(2) of a directory for writing.
            return Err("couldn't create file: Is a directory".into());
        }
        inner.files.insert(path.to_string(), data);
        inner.modes.insert(path.to_string(), mode & 0o7777);
        inner.mtimes.insert(path.to_string(), mtime);
        Ok(())
    }

    fn pull(&self, path: &str) -> Result<Vec<u8>, SyncFail> {
        let mut inner = self.lock();
        appdata::sync(&mut inner);
        if user::denied(&inner, path) {
            return Err("Permission denied".into());
        }
        inner
            .files
            .get(path)
            .cloned()
            .ok_or_else(|| "No such file or directory".into())
    }

    fn stat(&self, path: &str) -> Option<(u32, u32, u32)> {
        let mut inner = self.lock();
        appdata::sync(&mut inner);
        if user::denied(&inner, path) {
            return None;
        }
        inner.stat(path)
    }

    fn stat_errno(&self, path: &str) -> u32 {
        // EACCES where the shell user may not look, else ENOENT.
        if user::denied(&self.lock(), path) {
            13
        } else {
            2
        }
    }

    /// adbd on a userdebug build: `adb root` restarts it as root, `adb
    /// unroot` as shell; each restart drops the connection.
    fn restart_adbd(&self, root: bool) -> Restart {
        let mut inner = self.lock();
        match (root, inner.root) {
            (true, false) if inner.production => {
                Restart::stays("adbd cannot run as root in production builds\n")
            }
            (true, true) => Restart::stays("adbd is already running as root\n"),
            (false, false) => Restart::stays("adbd not running as root\n"),
            (true, false) => {
                inner.root = true;
                Restart::restarts("restarting adbd as root\n")
            }
            (false, true) => {
                inner.root = false;
                Restart::restarts("restarting adbd as non root\n")
            }
        }
    }

    fn list(&self, path: &str) -> Vec<DirEntry> {
        let mut inner = self.lock();
        appdata::sync(&mut inner);
        if user::unlistable(&inner, path) {
            // do_list: opendir(3) failed; adbd answers DONE alone.
            return Vec::new();
        }
        let dir = path.trim_end_matches('/');
        let Some(names) = inner.entries(path) else {
            return Vec::new();
        };
        names
            .into_iter()
            .filter_map(|name| {
                let full = match name.as_str() {
                    "." => dir.to_owned(),
                    ".." => dir.rsplit_once('/').map_or("", |(up, _)| up).to_owned(),
                    _ => format!("{dir}/{name}"),
                };
                let (mode, size, mtime) = inner.stat(&full)?;
                Some(DirEntry {
                    name,
                    mode,
                    size,
                    mtime,
                })
            })
            .collect()
    }

    /// The phone's loopback is this machine's: a forward to `tcp:PORT`
    /// reaches whatever listens on 127.0.0.1:PORT here, as it reaches the
    /// phone's own server on a real phone.
    fn connect_tcp(&self, port: u16) -> std::io::Result<std::net::TcpStream> {
        std::net::TcpStream::connect((std::net::Ipv4Addr::LOCALHOST, port))
    }
}

/// The virtual phone reached in-process, without adb: the adb backend's
/// logic tested and benchmarked apart from the wire.
#[derive(Debug, Clone)]
pub struct InProcess {
    pub phone: std::sync::Arc<VirtualPhone>,
    pub serial: String,
}

impl InProcess {
    pub fn new(phone: std::sync::Arc<VirtualPhone>) -> InProcess {
        InProcess {
            phone,
            serial: "in-process".into(),
        }
    }
}

impl crate::adb::Transport for InProcess {
    fn serial(&self) -> &str {
        &self.serial
    }

    fn shell(&mut self, command: &str) -> Result<crate::adb::ShellResult, crate::adb::AdbError> {
        let out = self.phone.run(&crate::adb::with_exit_marker(command));
        let (stdout, status) = crate::adb::take_marker(out.stdout);
        Ok(crate::adb::ShellResult {
            stdout,
            stderr: out.stderr,
            status: status.unwrap_or(i32::from(out.exit)),
        })
    }

    fn push(&mut self, data: &[u8], remote: &str) -> Result<(), crate::adb::AdbError> {
        Device::push(&*self.phone, remote, 0o644, 0, data.to_vec())
            .map_err(|SyncFail(why)| crate::adb::AdbError::Server(why))
    }

    fn pull(&mut self, remote: &str) -> Result<Vec<u8>, crate::adb::AdbError> {
        Device::pull(&*self.phone, remote)
            .map_err(|SyncFail(why)| crate::adb::AdbError::Server(format!("pull {remote}: {why}")))
    }

    /// adbd restarts as root, as `adb root` has it; in process there is no
    /// connection to drop.
    fn root(&mut self) -> Result<(), crate::adb::AdbError> {
        Device::restart_adbd(&*self.phone, true);
        Ok(())
    }

    fn forward(&mut self, local: &str, _remote: &str) -> Result<(), crate::adb::AdbError> {
        Err(crate::adb::AdbError::Server(format!(
            "cannot forward {local}: an in-process phone has no adb server"
        )))
    }

    fn wait_for_device(
        &mut self,
        _within: std::time::Duration,
    ) -> Result<(), crate::adb::AdbError> {
        Ok(())
    }
}

#[cfg(test)]
mod androidworld_tests;
#[cfg(test)]
mod display_tests;
#[cfg(test)]
mod fidelity_tests;
#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod input_tests;
#[cfg(test)]
mod shell_tests;
#[cfg(test)]
mod trajectory_tests;
