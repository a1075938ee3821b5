//! The toybox commands phone-agent programs call that the virtual phone
//! answers beside `cat`, `rm` and `kill`: `ls`, `head`, `tail`, `mkdir`,
//! `cp`, `date` and `pkill`, as Android 14's toybox prints them
//! (external/toybox: `ls` in toys/posix/ls.c, `head` and `tail` in
//! toys/posix/, `mkdir` in toys/posix/mkdir.c, `cp` in toys/posix/cp.c,
//! `date` in toys/posix/date.c, `pkill` beside `pgrep` in toys/posix/ps.c).
//! Only the forms such programs use.
//!
//! `ls -l` is toybox's long format (ls.c `listfiles`): the mode string, the
//! link count, user and group, the size, the time in `--time-style=long-iso`
//! (` %F %H:%M`; with `-ll` or `--full-time` `:%S.%09d %z`), then the
//! name, each column padded to its widest entry, after a `total` of 1 KiB
//! blocks for a directory. The phone's time zone is UTC (`+0000`), as an
//! emulator's is; atime and ctime are the mtime (`-u`, `-c`). Owners are
//! as an emulator shows them: an app's data is its own `u0_aNNN`, shared
//! storage is MediaProvider's `u0_a158` and group `media_rw` (the line
//! AndroidWorld's file_utils.py `get_file_list_with_metadata` was written
//! against), `/data/local/tmp` is `shell`'s, the rest `root`'s.

use super::state::Inner;
use super::user;
use crate::adbd::ShellOutput;

/// `ls [-1adlu…] [PATH…]` (options anywhere, as toybox permutes them): a
/// directory's names one a line (without `.` and `..` unless `-a`), a
/// file's path as given; `-l` long, `-ll` with nanoseconds. A missing path
/// is an error on stderr and status 1, the rest still listed; so is one
/// the shell's user may not read (`Permission denied`).
pub(super) fn ls(inner: &Inner, args: &[&str]) -> ShellOutput {
    let (mut all, mut long, mut itself) = (false, 0, false);
    let mut paths: Vec<&str> = Vec::new();
    for arg in args {
        match *arg {
            "--full-time" => long = 2,
            flags if flags.starts_with('-') && flags.len() > 1 => {
                for c in flags.chars().skip(1) {
                    match c {
                        'a' => all = true,
                        'l' => long += 1,
                        'd' => itself = true,
                        _ => {}
                    }
                }
            }
            path => paths.push(path),
        }
    }
    let paths = if paths.is_empty() { vec!["/"] } else { paths };
    let mut out = ShellOutput::ok(Vec::new());
    let several = paths.len() > 1;
    let fail = |out: &mut ShellOutput, path: &str, why: &str| {
        out.exit = 1;
        out.stderr
            .extend_from_slice(format!("ls: {path}: {why}\n").as_bytes());
    };
    for path in paths {
        if user::denied(inner, path) {
            fail(&mut out, path, "Permission denied");
            continue;
        }
        let is_dir = inner.is_dir(path);
        if !is_dir && !inner.files.contains_key(path) {
            fail(&mut out, path, "No such file or directory");
            continue;
        }
        if !is_dir || itself {
            let line = match long {
                0 => format!("{path}\n"),
                _ => long_lines(inner, &[(path.to_string(), path.to_string())], long, false),
            };
            out.stdout.extend_from_slice(line.as_bytes());
            continue;
        }
        if user::unlistable(inner, path) {
            fail(&mut out, path, "Permission denied");
            continue;
        }
        let Some(names) = inner.entries(path) else {
            continue;
        };
        if several {
            out.stdout
                .extend_from_slice(format!("{path}:\n").as_bytes());
        }
        let names = names.into_iter().filter(|n| all || !n.starts_with('.'));
        if long == 0 {
            for name in names {
                out.stdout.extend_from_slice(format!("{name}\n").as_bytes());
            }
            continue;
        }
        let dir = path.trim_end_matches('/');
        let entries: Vec<(String, String)> = names
            .map(|name| {
                let full = match name.as_str() {
                    "." => path.to_string(),
                    ".." => dir.rsplit_once('/').map_or("/", |(up, _)| up).to_string(),
                    _ => format!("{dir}/{name}"),
                };
                (full, name)
            })
            .collect();
        out.stdout
            .extend_from_slice(long_lines(inner, &entries, long, true).as_bytes());
    }
    out
}

/// Long lines for `entries` (full path, name shown), their columns padded
/// to the widest; after `total N` for a directory's listing.
fn long_lines(inner: &Inner, entries: &[(String, String)], long: u32, total: bool) -> String {
    struct Line {
        mode: String,
        links: String,
        user: String,
        group: String,
        size: String,
        time: String,
        name: String,
        blocks: u64,
    }
    let lines: Vec<Line> = entries
        .iter()
        .filter_map(|(full, name)| {
            let (mode, size, mtime) = inner.stat(if full.is_empty() { "/" } else { full })?;
            let (user, group) = owner(inner, full);
            let is_dir = mode & 0o170000 == 0o040000;
            Some(Line {
                mode: mode_string(mode),
                links: if is_dir { 2 + subdirs(inner, full) } else { 1 }.to_string(),
                user,
                group,
                size: size.to_string(),
                time: long_time(mtime, long),
                name: name.clone(),
                blocks: u64::from(size).div_ceil(4096) * 4,
            })
        })
        .collect();
    let width = |f: fn(&Line) -> &String| lines.iter().map(|l| f(l).len()).max().unwrap_or(0);
    let (wl, wu, wg, ws) = (
        width(|l| &l.links),
        width(|l| &l.user),
        width(|l| &l.group),
        width(|l| &l.size),
    );
    let mut out = String::new();
    if total {
        let blocks: u64 = lines.iter().map(|l| l.blocks).sum();
        out += &format!("total {blocks}\n");
    }
    for l in &lines {
        out += &format!(
            "{} {:>wl$} {:<wu$} {:<wg$} {:>ws$} {} {}\n",
            l.mode, l.links, l.user, l.group, l.size, l.time, l.name
        );
    }
    out
}

/// The directories directly in `dir` (each adds a link: its `..`).
fn subdirs(inner: &Inner, dir: &str) -> usize {
    inner.entries(dir).map_or(0, |names| {
        names
            .iter()
            .filter(|n| *n != "." && *n != "..")
            .filter(|n| inner.is_dir(&format!("{}/{n}", dir.trim_end_matches('/'))))
            .count()
    })
}

/// Who owns `path`, as an emulator shows it (see the module's notes).
fn owner(inner: &Inner, path: &str) -> (String, String) {
    let pair = |u: &str, g: &str| (u.to_string(), g.to_string());
    if let Some(rest) = path.strip_prefix(&format!("{}/", user::APP_DATA)) {
        let package = rest.split('/').next().unwrap_or_default();
        if let Some(uid) = super::system::uid(inner, package) {
            let name = format!("u0_a{}", uid - 10_000);
            return (name.clone(), name);
        }
    }
    if path == "/sdcard" || path.starts_with("/sdcard/") {
        return pair("u0_a158", "media_rw");
    }
    if path.starts_with("/data/local/tmp") {
        return pair("shell", "shell");
    }
    if path == user::APP_DATA || path == "/data" {
        return pair("system", "system");
    }
    pair("root", "root")
}

/// `mode_to_string` (toybox lib/lib.c): the type, then `rwx` thrice with
/// set-id and sticky bits as `s`/`S` and `t`/`T`.
fn mode_string(mode: u32) -> String {
    let kind = match mode & 0o170000 {
        0o040000 => 'd',
        0o120000 => 'l',
        0o020000 => 'c',
        0o060000 => 'b',
        0o010000 => 'p',
        0o140000 => 's',
        _ => '-',
    };
    let mut s = String::from(kind);
    for (i, special) in [(0o4000, 's'), (0o2000, 's'), (0o1000, 't')]
        .into_iter()
        .enumerate()
    {
        let bits = (mode >> (6 - 3 * i)) & 7;
        s.push(if bits & 4 != 0 { 'r' } else { '-' });
        s.push(if bits & 2 != 0 { 'w' } else { '-' });
        let exec = bits & 1 != 0;
        s.push(match (mode & special.0 != 0, exec) {
            (true, true) => special.1,
            (true, false) => special.1.to_ascii_uppercase(),
            (false, true) => 'x',
            (false, false) => '-',
        });
    }
    s
}

/// ` %F %H:%M`, or with `-ll` ` %F %H:%M:%S.%09d %z` (the phone keeps whole
/// seconds: the nanoseconds are 0), in UTC.
fn long_time(seconds: u32, long: u32) -> String {
    let t = Civil::from_epoch(i64::from(seconds));
    let mut s = format!(
        "{:04}-{:02}-{:02} {:02}:{:02}",
        t.year, t.month, t.day, t.hour, t.minute
    );
    if long > 1 {
        s += &format!(":{:02}.000000000 +0000", t.second);
    }
    s
}

/// A UTC time broken down, as gmtime(3) gives it.
pub(super) struct Civil {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    /// 0 is Sunday.
    pub weekday: u32,
}

impl Civil {
    /// Seconds since the epoch (Howard Hinnant's `civil_from_days`).
    pub(super) fn from_epoch(seconds: i64) -> Civil {
        let days = seconds.div_euclid(86_400);
        let rem = seconds.rem_euclid(86_400) as u32;
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = yoe + era * 400 + i64::from(month <= 2);
        Civil {
            year,
            month,
            day,
            hour: rem / 3600,
            minute: rem / 60 % 60,
            second: rem % 60,
            weekday: (days + 4).rem_euclid(7) as u32,
        }
    }
}

/// `date [+FORMAT]`: the phone's clock (the simulator's), in UTC. toybox's
/// default format is `%a %b %e %H:%M:%S %Z %Y`; FORMAT takes the strftime
/// fields scripts use (`%s`, `%Y`, `%m`, `%d`, `%H`, `%M`, `%S`, `%F`,
/// `%T`, `%a`, `%b`, `%e`, `%Z`, `%z`, `%N`, `%%`). Setting the clock is
/// refused.
pub(super) fn date(inner: &Inner, args: &[&str]) -> ShellOutput {
    let now_ms = inner.sim.state().clock.now_ms;
    let format = match args {
        [] => "%a %b %e %H:%M:%S %Z %Y",
        [f] if f.starts_with('+') => &f[1..],
        ["-u"] => "%a %b %e %H:%M:%S %Z %Y",
        ["-u", f] if f.starts_with('+') => &f[1..],
        _ => return ShellOutput::fail(1, "date: the virtual phone's clock cannot be set"),
    };
    let seconds = now_ms.div_euclid(1000);
    let t = Civil::from_epoch(seconds);
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('s') => out += &seconds.to_string(),
            Some('Y') => out += &t.year.to_string(),
            Some('m') => out += &format!("{:02}", t.month),
            Some('d') => out += &format!("{:02}", t.day),
            Some('e') => out += &format!("{:2}", t.day),
            Some('H') => out += &format!("{:02}", t.hour),
            Some('M') => out += &format!("{:02}", t.minute),
            Some('S') => out += &format!("{:02}", t.second),
            Some('F') => out += &format!("{}-{:02}-{:02}", t.year, t.month, t.day),
            Some('T') => out += &format!("{:02}:{:02}:{:02}", t.hour, t.minute, t.second),
            Some('a') => out += DAYS[t.weekday as usize],
            Some('b') => out += MONTHS[t.month as usize - 1],
            Some('Z') => out += "GMT",
            Some('z') => out += "+0000",
            Some('N') => out += &format!("{:09}", now_ms.rem_euclid(1000) * 1_000_000),
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out.push('\n');
    ShellOutput::ok(out)
}

/// `cp [-a|-r|-R|-p|-f] SRC… DEST`: files copied (their mode kept); a
/// directory with `-r` or `-a`, whole (`SRC/.` its contents); into DEST
/// when DEST is a directory.
pub(super) fn cp(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let flags: String = args
        .iter()
        .filter(|a| a.starts_with('-'))
        .flat_map(|a| a.chars().skip(1))
        .collect();
    let recursive = flags.contains(['r', 'R', 'a']);
    let operands: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| !a.starts_with('-'))
        .collect();
    let Some((dest, sources)) = operands.split_last().filter(|(_, s)| !s.is_empty()) else {
        return ShellOutput::fail(1, "cp: Needs 2 arguments");
    };
    let dest = dest.trim_end_matches('/');
    let into = inner.is_dir(dest);
    if sources.len() > 1 && !into {
        return ShellOutput::fail(1, format_args!("cp: '{dest}' not directory"));
    }
    let mut out = ShellOutput::ok(Vec::new());
    let mut fail = |why: String| {
        out.exit = 1;
        out.stderr
            .extend_from_slice(format!("cp: {why}\n").as_bytes());
    };
    for source in sources {
        let src = source.trim_end_matches('/');
        let target = if into {
            match src.rsplit('/').next().unwrap_or(src) {
                "." => dest.to_string(),
                base => format!("{dest}/{base}"),
            }
        } else {
            dest.to_string()
        };
        let src = src.strip_suffix("/.").unwrap_or(src);
        if user::denied(inner, src) || user::denied(inner, &target) {
            fail(format!("bad '{source}': Permission denied"));
            continue;
        }
        if inner.files.contains_key(src) {
            copy_file(inner, src, &target);
        } else if inner.is_dir(src) {
            if !recursive {
                fail(format!(
                    "Skipped dir '{}'",
                    src.rsplit('/').next().unwrap_or(src)
                ));
                continue;
            }
            let below: Vec<String> = inner
                .files
                .keys()
                .filter(|p| p.starts_with(&format!("{src}/")))
                .cloned()
                .collect();
            let dirs: Vec<String> = inner
                .dirs
                .iter()
                .filter(|d| d.starts_with(&format!("{src}/")))
                .cloned()
                .collect();
            inner.dirs.insert(target.clone());
            for d in dirs {
                inner.dirs.insert(format!("{target}{}", &d[src.len()..]));
            }
            for f in below {
                copy_file(inner, &f, &format!("{target}{}", &f[src.len()..]));
            }
        } else {
            fail(format!("bad '{source}': No such file or directory"));
        }
    }
    out
}

fn copy_file(inner: &mut Inner, from: &str, to: &str) {
    let data = inner.files.get(from).cloned().unwrap_or_default();
    let mode = inner.modes.get(from).copied();
    inner.files.insert(to.to_string(), data);
    match mode {
        Some(mode) => inner.modes.insert(to.to_string(), mode),
        None => inner.modes.remove(to),
    };
    inner.mtimes.remove(to);
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
        Some(f) if user::denied(inner, f) => return Err(user::permission_denied(name, f)),
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
        let error = if user::denied(inner, dir) {
            Some("Permission denied")
        } else if inner.is_dir(dir) || inner.files.contains_key(dir) {
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
