//! Background jobs on the virtual phone, and the file commands deploying a
//! server uses: `cd`, `chmod` (octal or symbolic, `-R`), `sha256sum`,
//! `kill` and `/proc/PID/cmdline`
//! (its `tail` is toybox's, in `toybox`).
//!
//! `nohup ./server ARGS > log 2>&1 < /dev/null &` is recorded as a [`Job`]
//! with a pid, and nothing runs: the job is "running" when its program is a
//! pushed file with an execute bit, and has exited at once (status 127, the
//! reason in its log) otherwise, as a phone's would. `kill` ends a job,
//! `kill -0` asks whether it runs, `cat /proc/PID/cmdline` gives its argv
//! (after `nohup`, which execs it) NUL-separated; `droidscore-sim jobs`
//! prints them all.

use sha2::{Digest, Sha256};

use super::script::{Redirect, Word};
use super::state::{Inner, Job};
use crate::adbd::ShellOutput;

/// The first pid handed out; a phone's are in this range after boot.
const FIRST_PID: u32 = 12_000;

impl Job {
    /// What the process execs: the argv after `nohup`.
    fn exec_argv(&self) -> &[String] {
        match self.argv.first().map(String::as_str) {
            Some("nohup") => &self.argv[1..],
            _ => &self.argv[..],
        }
    }
}

/// `PATH` made absolute against `cwd`, `.` and `..` resolved.
pub(super) fn absolute(cwd: &str, path: &str) -> String {
    let joined = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{cwd}/{path}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `cd [DIR]`: into a directory the phone has (`/` without one).
pub(super) fn cd(inner: &Inner, cwd: &mut String, dir: Option<&str>) -> ShellOutput {
    let target = absolute(cwd, dir.unwrap_or("/"));
    if !inner.is_dir(&target) {
        return ShellOutput::fail(
            2,
            format_args!(
                "/system/bin/sh: cd: {}: No such file or directory",
                dir.unwrap_or("/")
            ),
        );
    }
    *cwd = target;
    ShellOutput::ok(Vec::new())
}

/// Record a background command; its pid.
pub(super) fn start(
    inner: &mut Inner,
    cwd: &str,
    argv: Vec<String>,
    redirects: &[Redirect],
    expand: impl Fn(&Word) -> String,
) -> u32 {
    let mut fds: [Option<String>; 3] = [None, None, None];
    for redirect in redirects {
        match redirect {
            Redirect::Out { fd, file, append } => {
                let path = absolute(cwd, &expand(file));
                if path != "/dev/null" {
                    let data = inner.files.entry(path.clone()).or_default();
                    if !append {
                        data.clear();
                    }
                }
                if let Some(slot) = fds.get_mut(usize::from(*fd)) {
                    *slot = Some(path);
                }
            }
            Redirect::In { fd, file } => {
                if let Some(slot) = fds.get_mut(usize::from(*fd)) {
                    *slot = Some(absolute(cwd, &expand(file)));
                }
            }
            Redirect::Dup { fd, to } => {
                let target = fds.get(usize::from(*to)).cloned().flatten();
                if let Some(slot) = fds.get_mut(usize::from(*fd)) {
                    *slot = target;
                }
            }
        }
    }
    let pid = FIRST_PID + inner.jobs.len() as u32;
    let [stdin, stdout, stderr] = fds;
    let mut job = Job {
        pid,
        argv,
        cwd: cwd.to_string(),
        stdin,
        stdout,
        stderr,
        running: false,
    };
    // Only a pushed, executable file can run; anything else exits at once
    // with the reason in its log, as `nohup` on a phone leaves it.
    let program = job.exec_argv().first().cloned().unwrap_or_default();
    let path = absolute(cwd, &program);
    let why = match (inner.files.contains_key(&path), inner.modes.get(&path)) {
        _ if !program.contains('/') => Some(
            "not found (the virtual phone runs no commands in the background but pushed files)",
        ),
        (false, _) => Some("No such file or directory"),
        (true, Some(mode)) if mode & 0o111 != 0 => None,
        (true, _) => Some("Permission denied"),
    };
    match why {
        None => job.running = true,
        Some(why) => {
            if let Some(log) = job.stderr.clone().filter(|l| l != "/dev/null") {
                inner
                    .files
                    .entry(log)
                    .or_default()
                    .extend_from_slice(format!("nohup: {program}: {why}\n").as_bytes());
            }
        }
    }
    inner.jobs.push(job);
    pid
}

/// `kill [-0|-9|-SIG|-s SIG] PID…`: `-0` asks whether it runs; any other
/// signal ends it.
pub(super) fn kill(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let mut probe = false;
    let mut pids = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match *arg {
            "-s" => probe = it.next() == Some(&"0"),
            "-0" => probe = true,
            a if a.starts_with('-') => probe = false,
            a => pids.push(a),
        }
    }
    if pids.is_empty() {
        return ShellOutput::fail(1, "usage: kill [-s SIGNAL | -SIGNAL] PID...");
    }
    let mut out = ShellOutput::ok(Vec::new());
    for pid in pids {
        let job = pid
            .parse::<u32>()
            .ok()
            .and_then(|p| inner.jobs.iter_mut().find(|j| j.pid == p && j.running));
        match job {
            Some(job) => {
                if !probe {
                    job.running = false;
                }
            }
            None => {
                out.exit = 1;
                out.stderr
                    .extend_from_slice(format!("kill: {pid}: No such process\n").as_bytes());
            }
        }
    }
    out
}

/// `/proc/PID/cmdline` of a running job: its argv, each ended by NUL.
pub(super) fn proc_cmdline(inner: &Inner, path: &str) -> Option<Vec<u8>> {
    let pid: u32 = path
        .strip_prefix("/proc/")?
        .strip_suffix("/cmdline")?
        .parse()
        .ok()?;
    let job = inner.jobs.iter().find(|j| j.pid == pid && j.running)?;
    Some(
        job.exec_argv()
            .iter()
            .flat_map(|a| a.bytes().chain([0]))
            .collect(),
    )
}

/// `chmod [-R] MODE PATH…` (toybox toys/posix/chmod.c): MODE octal
/// (`777`) or symbolic (`u+x`, `a=rw`, `go-w`, comma-separated); `-R` goes
/// through a directory's files and directories. A missing path, or one the
/// shell's user may not reach, is reported and the rest still change.
pub(super) fn chmod(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let recursive = args.contains(&"-R");
    let operands: Vec<&str> = args.iter().copied().filter(|a| *a != "-R").collect();
    let Some((mode, paths)) = operands.split_first().filter(|(_, p)| !p.is_empty()) else {
        return ShellOutput::fail(1, "chmod: Needs 2 arguments");
    };
    let Some(change) = ModeChange::parse(mode) else {
        return ShellOutput::fail(1, format_args!("chmod: bad mode '{mode}'"));
    };
    let mut out = ShellOutput::ok(Vec::new());
    for path in paths {
        let path = path.trim_end_matches('/');
        let why = if super::user::denied(inner, path) {
            Some("Permission denied")
        } else if inner.stat(path).is_none() {
            Some("No such file or directory")
        } else {
            None
        };
        if let Some(why) = why {
            out.exit = 1;
            out.stderr
                .extend_from_slice(format!("chmod: {path}: {why}\n").as_bytes());
            continue;
        }
        let mut targets = std::collections::BTreeSet::from([path.to_string()]);
        if recursive && inner.is_dir(path) {
            // Every file and directory below, those that exist only as a
            // file's parents too.
            let below = format!("{path}/");
            for p in inner.files.keys().chain(inner.dirs.iter()) {
                let mut at = p.as_str();
                while at.starts_with(&below) && targets.insert(at.to_string()) {
                    at = at.rsplit_once('/').map_or("", |(up, _)| up);
                }
            }
        }
        for target in targets {
            let Some((old, _, _)) = inner.stat(&target) else {
                continue;
            };
            let new = change.apply(old & 0o7777, old & 0o170000 == 0o040000);
            inner.modes.insert(target, new);
        }
    }
    out
}

/// A parsed chmod MODE.
enum ModeChange {
    Octal(u32),
    /// `[ugoa]*[+-=][rwxXst]*`, each clause in turn.
    Symbolic(Vec<(u32, char, String)>),
}

impl ModeChange {
    fn parse(mode: &str) -> Option<ModeChange> {
        if mode.chars().all(|c| c.is_digit(8)) {
            return u32::from_str_radix(mode, 8)
                .ok()
                .filter(|m| *m <= 0o7777)
                .map(ModeChange::Octal);
        }
        let mut clauses = Vec::new();
        for clause in mode.split(',') {
            let at = clause.find(['+', '-', '='])?;
            let (who, rest) = clause.split_at(at);
            let mut who_mask = 0;
            for c in who.chars() {
                who_mask |= match c {
                    'u' => 0o4700,
                    'g' => 0o2070,
                    'o' => 0o1007,
                    'a' => 0o7777,
                    _ => return None,
                };
            }
            let op = rest.chars().next()?;
            let perms = &rest[1..];
            if !perms.chars().all(|c| "rwxXst".contains(c)) {
                return None;
            }
            clauses.push((
                if who_mask == 0 { 0o7777 } else { who_mask },
                op,
                perms.to_string(),
            ));
        }
        Some(ModeChange::Symbolic(clauses))
    }

    fn apply(&self, mode: u32, is_dir: bool) -> u32 {
        let clauses = match self {
            ModeChange::Octal(m) => return *m,
            ModeChange::Symbolic(clauses) => clauses,
        };
        let mut mode = mode;
        for (who, op, perms) in clauses {
            let mut bits = 0;
            for c in perms.chars() {
                bits |= match c {
                    'r' => 0o444,
                    'w' => 0o222,
                    'x' => 0o111,
                    'X' if is_dir || mode & 0o111 != 0 => 0o111,
                    's' => 0o6000,
                    't' => 0o1000,
                    _ => 0,
                };
            }
            let bits = bits & who;
            mode = match op {
                '+' => mode | bits,
                '-' => mode & !bits,
                _ => (mode & !(who & 0o777)) | bits,
            };
        }
        mode
    }
}

/// `sha256sum FILE…`: `HEX  FILE` lines, as toybox prints them.
pub(super) fn sha256sum(inner: &Inner, files: &[&str]) -> ShellOutput {
    let mut out = ShellOutput::ok(Vec::new());
    for f in files {
        if super::user::denied(inner, f) {
            out.exit = 1;
            out.stderr
                .extend_from_slice(format!("sha256sum: {f}: Permission denied\n").as_bytes());
            continue;
        }
        match inner.files.get(*f) {
            Some(data) => out
                .stdout
                .extend_from_slice(format!("{:x}  {f}\n", Sha256::digest(data)).as_bytes()),
            None => {
                out.exit = 1;
                out.stderr.extend_from_slice(
                    format!("sha256sum: {f}: No such file or directory\n").as_bytes(),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::absolute;

    #[test]
    fn paths_resolve_against_the_working_directory() {
        assert_eq!(absolute("/data/local/tmp", "./a"), "/data/local/tmp/a");
        assert_eq!(absolute("/data/local/tmp", "../x/./y"), "/data/local/x/y");
        assert_eq!(absolute("/", "/dev/null"), "/dev/null");
        assert_eq!(absolute("/", ".."), "/");
    }
}
