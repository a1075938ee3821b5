//! The toybox commands phone-agent programs call that the virtual phone
//! answers beside `cat`, `rm` and `kill`: `ls`, `head`, `tail`, `mkdir` and
//! `pkill`, as Android 14's toybox prints them (external/toybox: `ls` in
//! toys/posix/ls.c, `head` and `tail` in toys/posix/, `mkdir` in
//! toys/posix/mkdir.c, `pkill` beside `pgrep` in toys/posix/ps.c). Only
//! the forms such programs use: no long listings, no signals by name to
//! anything but the recorded background jobs.

use super::state::Inner;
use crate::adbd::ShellOutput;

/// `ls [-1a] [PATH…]`: a directory's names one a line (without `.` and
/// `..` unless `-a`), a file's path as given; a missing path is an error
/// on stderr and status 1, the rest still listed.
pub(super) fn ls(inner: &Inner, args: &[&str]) -> ShellOutput {
    let all = args.iter().any(|a| a.starts_with('-') && a.contains('a'));
    let paths: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| !a.starts_with('-'))
        .collect();
    let paths = if paths.is_empty() { vec!["/"] } else { paths };
    let mut out = ShellOutput::ok(Vec::new());
    let several = paths.len() > 1;
    for path in paths {
        if inner.files.contains_key(path) {
            out.stdout.extend_from_slice(format!("{path}\n").as_bytes());
            continue;
        }
        let Some(names) = inner.entries(path) else {
            out.exit = 1;
            out.stderr
                .extend_from_slice(format!("ls: {path}: No such file or directory\n").as_bytes());
            continue;
        };
        if several {
            out.stdout
                .extend_from_slice(format!("{path}:\n").as_bytes());
        }
        for name in names.iter().filter(|n| all || !n.starts_with('.')) {
            out.stdout.extend_from_slice(format!("{name}\n").as_bytes());
        }
    }
    out
}

/// What `head` and `tail` read: `-n N` or `-N` lines (10 by default) of
/// FILE, or of stdin without one; a bad count or a missing file is the
/// command's error.
fn lines_of<'a>(
    inner: &'a Inner,
    name: &str,
    args: &[&str],
    stdin: &'a [u8],
) -> Result<(usize, &'a [u8]), ShellOutput> {
    let mut n = 10usize;
    let mut file = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match *arg {
            "-n" => match it.next().and_then(|v| v.parse().ok()) {
                Some(v) => n = v,
                None => return Err(ShellOutput::fail(1, format_args!("{name}: bad -n"))),
            },
            a if a.starts_with('-') && a[1..].parse::<usize>().is_ok() => {
                n = a[1..].parse().unwrap_or(n)
            }
            f => file = Some(f),
        }
    }
    let data = match file {
        None => stdin,
        Some(f) => match inner.files.get(f) {
            Some(data) => data.as_slice(),
            None => {
                return Err(ShellOutput::fail(
                    1,
                    format_args!("{name}: {f}: No such file or directory"),
                ))
            }
        },
    };
    Ok((n, data))
}

/// `head [-n N | -N] [FILE]`: the first N lines of FILE or stdin.
pub(super) fn head(inner: &Inner, args: &[&str], stdin: &[u8]) -> ShellOutput {
    let (n, data) = match lines_of(inner, "head", args, stdin) {
        Ok(read) => read,
        Err(out) => return out,
    };
    let mut kept = Vec::new();
    for line in data.split_inclusive(|b| *b == b'\n').take(n) {
        kept.extend_from_slice(line);
    }
    ShellOutput::ok(kept)
}

/// `tail [-n N | -N] [FILE]`: the last N lines of FILE or stdin.
pub(super) fn tail(inner: &Inner, args: &[&str], stdin: &[u8]) -> ShellOutput {
    let (n, data) = match lines_of(inner, "tail", args, stdin) {
        Ok(read) => read,
        Err(out) => return out,
    };
    let text = String::from_utf8_lossy(data);
    let lines: Vec<&str> = text.lines().collect();
    let kept: String = lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    ShellOutput::ok(kept)
}

/// `mkdir [-p] DIR…`: the directory made (its parents too with `-p`);
/// one that exists is an error without `-p`, as is a missing parent.
pub(super) fn mkdir(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let parents = args.contains(&"-p");
    let mut out = ShellOutput::ok(Vec::new());
    for dir in args.iter().filter(|a| !a.starts_with('-')) {
        let dir = dir.trim_end_matches('/');
        let parent = dir.rsplit_once('/').map_or("", |(up, _)| up);
        let error = if inner.is_dir(dir) || inner.files.contains_key(dir) {
            (!parents).then_some("File exists")
        } else if !parents && !inner.is_dir(parent) {
            Some("No such file or directory")
        } else {
            let mut at = String::new();
            for part in dir.split('/').filter(|p| !p.is_empty()) {
                at.push('/');
                at.push_str(part);
                inner.dirs.insert(at.clone());
            }
            None
        };
        if let Some(why) = error {
            out.exit = 1;
            out.stderr
                .extend_from_slice(format!("mkdir: '{dir}': {why}\n").as_bytes());
        }
    }
    out
}

/// `pkill [-SIGNAL] [-f] PATTERN`: the recorded background jobs whose name
/// (or, with `-f`, whole command line) matches PATTERN stop; status 1 when
/// none matched, as pgrep's family exits.
pub(super) fn pkill(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let full = args.contains(&"-f");
    let Some(pattern) = args.iter().rfind(|a| !a.starts_with('-')) else {
        return ShellOutput::fail(2, "pkill: Need 1 argument");
    };
    let Ok(re) = regex::Regex::new(pattern) else {
        return ShellOutput::fail(2, format_args!("pkill: bad regex '{pattern}'"));
    };
    let mut matched = false;
    for job in inner.jobs.iter_mut().filter(|j| j.running) {
        let name = job
            .argv
            .iter()
            .find(|w| *w != "nohup")
            .map(|w| w.rsplit('/').next().unwrap_or(w).to_string())
            .unwrap_or_default();
        let subject = if full { job.argv.join(" ") } else { name };
        if re.is_match(&subject) {
            job.running = false;
            matched = true;
        }
    }
    ShellOutput {
        exit: if matched { 0 } else { 1 },
        ..ShellOutput::default()
    }
}
