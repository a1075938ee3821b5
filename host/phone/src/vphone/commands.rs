//! The commands the virtual phone answers, each as an Android 14 phone
//! answers it where the adb backend or a person reads the output: the
//! success lines, the error lines, and — for `uiautomator dump` — the failures
//! printed with exit status 0. Unknown commands get mksh's `inaccessible or
//! not found` and status 127.

use base64::Engine;

use super::state::{instance_phone, write, DumpFailure, Inner, LATIN_IME, MANUFACTURER, MODEL};
use super::Setups;
use crate::adbd::ShellOutput;
use crate::uiautomator;
use crate::{DeviceAction, Intent, Phone, PhoneError};

/// Where `uiautomator dump` writes without a path.
const DEFAULT_DUMP: &str = "/sdcard/window_dump.xml";
/// ADBKeyBoard's input method, as `ime list -s` lists it.
const ADBKEYBOARD_IME: &str = "com.android.adbkeyboard/.AdbIME";

/// Run one command that reads no phone state (`echo`, `sleep`, `grep`, …)
/// without the phone's lock, or None when `args[0]` needs it (see [`run`]).
/// `sleep` is here above all: it waits, and must not hold the phone while
/// it does.
pub(super) fn stateless(args: &[String], stdin: &[u8]) -> Option<ShellOutput> {
    let rest: Vec<&str> = args.get(1..)?.iter().map(String::as_str).collect();
    Some(match args.first()?.as_str() {
        "echo" => echo(&rest),
        "true" => ShellOutput::ok(Vec::new()),
        "false" => ShellOutput::fail(1, ""),
        "grep" => grep(&rest, stdin),
        "sleep" => sleep(&rest),
        "logcat" => logcat(&rest),
        _ => return None,
    })
}

/// Run one command (`args[0]` and its arguments) with `stdin` from a pipe,
/// holding the phone's state; [`stateless`] has answered those that need none.
pub(super) fn run(
    inner: &mut Inner,
    setups: &dyn Setups,
    args: &[String],
    stdin: &[u8],
) -> ShellOutput {
    let Some(name) = args.first() else {
        return ShellOutput::ok(Vec::new());
    };
    // The apps write their databases before anything reads a file.
    super::appdata::sync(inner);
    let rest: Vec<&str> = args[1..].iter().map(String::as_str).collect();
    match name.as_str() {
        "cat" => cat(inner, &rest, stdin),
        "rm" => rm(inner, &rest),
        "kill" => super::jobs::kill(inner, &rest),
        "chmod" => super::jobs::chmod(inner, &rest),
        "sha256sum" => super::jobs::sha256sum(inner, &rest),
        "tail" => super::toybox::tail(inner, &rest, stdin),
        "head" => super::toybox::head(inner, &rest, stdin),
        "ls" => super::toybox::ls(inner, &rest),
        "mkdir" => super::toybox::mkdir(inner, &rest),
        "cp" => super::toybox::cp(inner, &rest),
        "date" => super::toybox::date(inner, &rest),
        "pkill" => super::toybox::pkill(inner, &rest),
        "whoami" => super::user::whoami(inner),
        "id" => super::user::id(inner, &rest),
        "test" | "[" => super::test_builtin::test(inner, name, &rest),
        "sqlite3" => super::sqlite::sqlite3(inner, &rest, stdin),
        "getprop" => getprop(inner, &rest),
        "uiautomator" => uiautomator_cmd(inner, &rest),
        "screencap" => screencap(inner, &rest),
        "input" => super::input::input(inner, &rest),
        "settings" => settings(inner, &rest),
        "svc" => svc(inner, &rest),
        "cmd" => cmd(inner, &rest),
        "wm" => super::display::wm(inner, &rest),
        "am" => am(inner, &rest),
        "monkey" => monkey(inner, &rest),
        "dumpsys" => super::system::dumpsys(inner, &rest),
        "ime" => ime(inner, &rest),
        "pm" => super::system::pm(inner, &rest),
        "content" => super::records::content(inner, &rest)
            .unwrap_or_else(|| super::records::app_data(inner, &rest)),
        "find" => super::records::find(inner, &rest),
        "droidscore-sim" if inner.trajectory.is_none() => control(inner, setups, &rest),
        other => ShellOutput::fail(
            127,
            format_args!("/system/bin/sh: {other}: inaccessible or not found"),
        ),
    }
}

/// `logcat [ARGS]`: the virtual phone keeps no log. `-c`/`--clear` clears
/// nothing; every other form prints nothing and exits, where a phone's
/// `logcat` without `-d` would go on waiting for lines.
fn logcat(_args: &[&str]) -> ShellOutput {
    ShellOutput::ok(Vec::new())
}

fn echo(args: &[&str]) -> ShellOutput {
    let (newline, args) = match args.first() {
        Some(&"-n") => (false, &args[1..]),
        _ => (true, args),
    };
    let mut text = args.join(" ");
    if newline {
        text.push('\n');
    }
    ShellOutput::ok(text)
}

fn cat(inner: &Inner, files: &[&str], stdin: &[u8]) -> ShellOutput {
    if files.is_empty() {
        return ShellOutput::ok(stdin.to_vec());
    }
    let mut out = Vec::new();
    for f in files {
        if super::user::denied(inner, f) {
            let mut r = super::user::permission_denied("cat", f);
            r.stdout = out;
            return r;
        }
        match inner
            .files
            .get(*f)
            .cloned()
            .or_else(|| super::jobs::proc_cmdline(inner, f))
        {
            Some(data) => out.extend_from_slice(&data),
            None => {
                let mut r =
                    ShellOutput::fail(1, format_args!("cat: {f}: No such file or directory"));
                r.stdout = out;
                return r;
            }
        }
    }
    ShellOutput::ok(out)
}

/// `rm [-f] [-r|-R] PATH…` (toybox toys/posix/rm.c): each path removed,
/// a directory only with `-r` (its files and directories with it); an
/// error for one path (`No such file or directory`, unless `-f`; `Is a
/// directory`; `Permission denied`) is reported and the rest still go,
/// status 1.
fn rm(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let flags: String = args.iter().filter_map(|a| a.strip_prefix('-')).collect();
    let force = flags.contains('f');
    let recursive = flags.contains('r') || flags.contains('R');
    let mut out = ShellOutput::ok(Vec::new());
    let mut fail = |path: &str, why: &str| {
        out.exit = 1;
        out.stderr
            .extend_from_slice(format!("rm: {path}: {why}\n").as_bytes());
    };
    for f in args.iter().filter(|a| !a.starts_with('-')) {
        let path = f.trim_end_matches('/');
        if super::user::denied(inner, path) {
            fail(f, "Permission denied");
        } else if inner.files.contains_key(path) {
            inner.files.remove(path);
            inner.modes.remove(path);
            inner.mtimes.remove(path);
        } else if inner.is_dir(f) {
            if !recursive {
                fail(f, "Is a directory");
                continue;
            }
            let below = format!("{path}/");
            inner.files.retain(|p, _| !p.starts_with(&below));
            inner
                .modes
                .retain(|p, _| p != path && !p.starts_with(&below));
            inner.mtimes.retain(|p, _| !p.starts_with(&below));
            inner.dirs.retain(|d| d != path && !d.starts_with(&below));
        } else if !force {
            fail(f, "No such file or directory");
        }
    }
    out
}

/// `grep [-E] PATTERN` over a pipe: the matching lines, status 1 for none.
fn grep(args: &[&str], stdin: &[u8]) -> ShellOutput {
    let Some(pattern) = args.iter().find(|a| !a.starts_with('-')) else {
        return ShellOutput::fail(2, "usage: grep [-E] PATTERN");
    };
    let re = match regex::Regex::new(pattern) {
        Ok(re) => re,
        Err(e) => return ShellOutput::fail(2, format_args!("grep: bad regex: {e}")),
    };
    let text = String::from_utf8_lossy(stdin);
    let lines: String = text
        .lines()
        .filter(|l| re.is_match(l))
        .map(|l| format!("{l}\n"))
        .collect();
    let exit = if lines.is_empty() { 1 } else { 0 };
    ShellOutput {
        stdout: lines.into_bytes(),
        stderr: Vec::new(),
        exit,
    }
}

fn sleep(args: &[&str]) -> ShellOutput {
    match args.first().and_then(|s| s.parse::<f64>().ok()) {
        // A virtual phone has no reason to hold a connection for long.
        Some(s) if s >= 0.0 => {
            std::thread::sleep(std::time::Duration::from_secs_f64(s.min(10.0)));
            ShellOutput::ok(Vec::new())
        }
        _ => ShellOutput::fail(1, "sleep: bad number"),
    }
}

const PROPS: &[(&str, &str)] = &[
    (
        "ro.build.fingerprint",
        "droidscore/droidscore_sim/droidscore_sim:14/VIRTUAL/1:userdebug/dev-keys",
    ),
    ("ro.build.version.release", "14"),
    ("ro.build.version.sdk", "34"),
    ("ro.product.cpu.abi", "arm64-v8a"),
    ("ro.product.device", MODEL),
    ("ro.product.manufacturer", MANUFACTURER),
    ("ro.product.model", MODEL),
    ("ro.product.name", MODEL),
    // A userdebug build, as the emulator image AndroidWorld uses
    // (build/make/core/main.mk sets these for `userdebug`): `adb root` works.
    ("ro.build.type", "userdebug"),
    ("ro.secure", "1"),
    ("ro.debuggable", "1"),
];

fn getprop(inner: &Inner, args: &[&str]) -> ShellOutput {
    // The panel's density as built (TARGET_SCREEN_DENSITY), which `wm
    // density` reports as "Physical density" and never changes.
    let density = inner.sim.natural_display().1.dpi.to_string();
    let props = PROPS
        .iter()
        .map(|(k, v)| (*k, *v))
        .chain([("ro.sf.lcd_density", density.as_str())]);
    match args.first() {
        Some(&"ro.product.manufacturer") if inner.pose_as_phone => ShellOutput::ok("Google\n"),
        Some(key) => {
            let value = props.clone().find(|(k, _)| k == key).map_or("", |(_, v)| v);
            ShellOutput::ok(format!("{value}\n"))
        }
        None => ShellOutput::ok(
            props
                .map(|(k, v)| format!("[{k}]: [{v}]\n"))
                .collect::<String>(),
        ),
    }
}

/// Whether the directory `path` is in exists on the phone.
fn parent_exists(inner: &Inner, path: &str) -> bool {
    match path.rsplit_once('/') {
        Some((dir, _)) => inner.is_dir(if dir.is_empty() { "/" } else { dir }),
        // Relative to `/`, where `adb shell` starts.
        None => true,
    }
}

fn uiautomator_cmd(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    if args.first() != Some(&"dump") {
        return ShellOutput::fail(1, "Usage: uiautomator <subcommand> [options]");
    }
    // uiautomator prints its failures on stdout and exits 0.
    if inner.fail_dumps > 0 {
        inner.fail_dumps -= 1;
        return ShellOutput::ok(match inner.failure {
            DumpFailure::Idle => "ERROR: could not get idle state.\n",
            DumpFailure::NullRoot => "ERROR: null root node returned by UiTestAutomationBridge.\n",
        });
    }
    let path = args[1..]
        .iter()
        .find(|a| !a.starts_with("--"))
        .copied()
        .unwrap_or(DEFAULT_DUMP);
    let xml = uiautomator::to_xml(&inner.sim.hierarchy());
    let done = format!("UI hierchary dumped to: {path}\n");
    if path == "/dev/tty" {
        return ShellOutput::ok(format!("{xml}{done}"));
    }
    // Into a directory that does not exist, Android 14's DumpCommand says
    // it dumped and writes nothing: AccessibilityNodeInfoDumper only logs
    // the IOException.
    if parent_exists(inner, path) {
        inner.files.insert(path.to_string(), xml.into_bytes());
    }
    ShellOutput::ok(done)
}

/// `screencap [-p] [FILE]`: raw (16-byte header, RGBA_8888) or PNG.
fn screencap(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let png = args.contains(&"-p");
    let file = args.iter().find(|a| !a.starts_with('-'));
    let bytes = if png || file.is_some_and(|f| f.ends_with(".png")) {
        inner.sim.screenshot_png()
    } else {
        let rgb = inner.sim.screenshot_rgb();
        let mut raw = Vec::with_capacity(16 + rgb.len() / 3 * 4);
        for word in [rgb.width(), rgb.height(), 1, 0] {
            raw.extend_from_slice(&word.to_le_bytes());
        }
        for px in rgb.pixels() {
            raw.extend_from_slice(&[px[0], px[1], px[2], 255]);
        }
        raw
    };
    match file {
        // cmds/screencap/screencap.cpp: open(2) of the file failed.
        Some(f) if !parent_exists(inner, f) => ShellOutput::fail(
            1,
            format_args!("Error opening file: {f} (No such file or directory)"),
        ),
        Some(f) => {
            inner.files.insert(f.to_string(), bytes);
            ShellOutput::ok(Vec::new())
        }
        None => ShellOutput::ok(bytes),
    }
}

fn settings(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    const NAMESPACES: [&str; 3] = ["system", "secure", "global"];
    match args {
        ["get", ns, key] if NAMESPACES.contains(ns) => {
            let value = inner.sim.state().get(&format!("{ns}/{key}")).unwrap_or("null");
            ShellOutput::ok(format!("{value}\n"))
        }
        ["put", ns, key, value, ..] if NAMESPACES.contains(ns) => {
            write(inner, &format!("{ns}/{key}"), value);
            ShellOutput::ok(Vec::new())
        }
        ["delete", ns, key] if NAMESPACES.contains(ns) => {
            write(inner, &format!("{ns}/{key}"), "null");
            ShellOutput::ok("Deleted 1 rows\n")
        }
        ["list", ns] if NAMESPACES.contains(ns) => {
            let prefix = format!("{ns}/");
            ShellOutput::ok(inner
                .sim
                .state()
                .values()
                .iter()
                .filter_map(|(k, v)| k.strip_prefix(&prefix).map(|k| format!("{k}={v}\n")))
                .collect::<String>())
        }
        _ => ShellOutput::fail(
            1,
            "usage:  settings [--user <USER_ID> | current] get namespace key\n        settings [--user <USER_ID> | current] put namespace key value",
        ),
    }
}

/// `svc wifi|bluetooth enable|disable`.
fn svc(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let key = match args.first() {
        Some(&"wifi") => "global/wifi_on",
        Some(&"bluetooth") => "global/bluetooth_on",
        _ => return ShellOutput::fail(1, "Available commands: svc wifi|bluetooth enable|disable"),
    };
    match args.get(1) {
        Some(&"enable") => write(inner, key, "1"),
        Some(&"disable") => write(inner, key, "0"),
        _ => return ShellOutput::fail(1, format_args!("usage: svc {} [enable|disable]", args[0])),
    }
    ShellOutput::ok(Vec::new())
}

/// `cmd connectivity airplane-mode [enable|disable]`, `cmd uimode night [MODE]`.
fn cmd(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    match args {
        ["connectivity", "airplane-mode"] => {
            let on = inner.sim.state().get("global/airplane_mode_on") == Some("1");
            ShellOutput::ok(if on { "enabled\n" } else { "disabled\n" })
        }
        ["connectivity", "airplane-mode", "enable"] => {
            write(inner, "global/airplane_mode_on", "1");
            ShellOutput::ok(Vec::new())
        }
        ["connectivity", "airplane-mode", "disable"] => {
            write(inner, "global/airplane_mode_on", "0");
            ShellOutput::ok(Vec::new())
        }
        ["uimode", "night", rest @ ..] => super::display::night(inner, rest),
        [service, ..] => ShellOutput::fail(255, format_args!("cmd: Can't find service: {service}")),
        [] => ShellOutput::fail(
            255,
            "cmd: No service specified; use -l to list all running services.",
        ),
    }
}

/// `am start [-W] [-a ACTION] [-c CATEGORY] [-n COMPONENT]` and `am force-stop PKG`.
fn am(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    match args.first() {
        Some(&"force-stop") => match args.get(1) {
            Some(pkg) => {
                inner.sim.force_stop(pkg);
                // Stopped, the app reads its database afresh when it next
                // runs: whatever changed in its directory counts now.
                super::appdata::reload(inner, pkg);
                ShellOutput::ok(Vec::new())
            }
            None => ShellOutput::fail(255, "Error: no package specified"),
        },
        Some(&"broadcast") => broadcast(inner, &args[1..]),
        Some(&"start" | &"start-activity") => am_start(inner, &args[1..]),
        _ => ShellOutput::fail(255, "usage: am [start|force-stop] ..."),
    }
}

/// `monkey -p PKG -c android.intent.category.LAUNCHER 1`: launch an app.
fn monkey(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    // development/cmds/monkey: monkey.sh echoes each argument; Monkey.java
    // wants a package (-p) and the event count as its last argument.
    let echoed: String = args.iter().map(|a| format!("  bash arg: {a}\n")).collect();
    let package = args
        .iter()
        .position(|a| *a == "-p")
        .and_then(|i| args.get(i + 1));
    let Some(package) = package else {
        return ShellOutput::fail(1, "** Error: you must specify a package with -p");
    };
    // The last argument that is no option and no option's value.
    let mut count = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match *arg {
            "-p" | "-c" | "--throttle" | "-s" | "--pct-touch" | "--pct-motion"
            | "--pct-syskeys" | "--pct-appswitch" => {
                it.next();
            }
            a if a.starts_with('-') => {}
            a => count = Some(a),
        }
    }
    let usage = "usage: monkey [-p ALLOWED_PACKAGE [-p ALLOWED_PACKAGE] ...]\n              [-c MAIN_CATEGORY [-c MAIN_CATEGORY] ...]\n              COUNT";
    let count = match count {
        None => {
            return ShellOutput::fail(255, format_args!("** Error: Count not specified\n{usage}"))
        }
        Some(c) => match c.parse::<u64>() {
            Ok(n) => n,
            Err(_) => {
                return ShellOutput::fail(
                    255,
                    format_args!("** Error: Count is not a number: \"{c}\"\n{usage}"),
                )
            }
        },
    };
    // The app starts: it reads its database if that changed meanwhile.
    super::appdata::launched(inner, package);
    match inner.sim.act(&DeviceAction::Launch {
        package: package.to_string(),
    }) {
        Ok(()) => ShellOutput::ok(format!(
            "{echoed}Events injected: {count}\n## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n"
        )),
        Err(_) => ShellOutput {
            stdout: format!("{echoed}** No activities found to run, monkey aborted.\n").into_bytes(),
            stderr: Vec::new(),
            exit: 252,
        },
    }
}

fn ime(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let mut installed = vec![LATIN_IME];
    if inner.adbkeyboard {
        installed.push(ADBKEYBOARD_IME);
    }
    // InputMethodManagerService's shell commands: only the short id
    // (`pkg/.Cls`) of an installed method matches; -1 is status 255.
    match args {
        ["list", "-s"] | ["list", "-s", "-a"] => ShellOutput::ok(
            installed
                .iter()
                .map(|i| format!("{i}\n"))
                .collect::<String>(),
        ),
        ["enable", id] if installed.contains(id) => {
            ShellOutput::ok(format!("Input method {id}: already enabled for user #0\n"))
        }
        ["enable", id] => ShellOutput::fail(
            255,
            format_args!("Unknown input method {id} cannot be enabled for user #0"),
        ),
        ["set", id] if installed.contains(id) => {
            inner.ime = id.to_string();
            ShellOutput::ok(format!("Input method {id} selected for user #0\n"))
        }
        ["set", id] => ShellOutput::fail(
            255,
            format_args!("Unknown input method {id} cannot be selected for user #0"),
        ),
        _ => ShellOutput::fail(255, "usage: ime list -s | enable ID | set ID"),
    }
}

/// `droidscore-sim …`: the virtual phone's own controls (`load TASK VARIANT
/// EPISODE_SEED [INSTANCE_SEED]`, `flips`, `state`, and the faults).
fn control(inner: &mut Inner, setups: &dyn Setups, args: &[&str]) -> ShellOutput {
    match args {
        ["load", task, variant, episode_seed, rest @ ..] if rest.len() <= 1 => {
            let Ok(episode_seed) = episode_seed.parse() else {
                return ShellOutput::fail(2, format_args!("droidscore-sim: episode seed {episode_seed:?} is not a number"));
            };
            // The instance seed of a parameterised task (0 when not given).
            let Ok(instance_seed) = rest.first().map_or(Ok(0), |s| s.parse::<u64>()) else {
                return ShellOutput::fail(2, format_args!("droidscore-sim: instance seed {:?} is not a number", rest[0]));
            };
            match instance_phone(setups, task, variant, episode_seed, instance_seed) {
                Ok((sim, loaded)) => {
                    inner.sim = sim;
                    inner.loaded = Some(loaded);
                    super::appdata::reset(inner);
                    ShellOutput::ok(format!("loaded {task}/{variant} episode seed {episode_seed} instance seed {instance_seed}\n"))
                }
                Err(e) => ShellOutput::fail(1, format_args!("droidscore-sim: {e}")),
            }
        }
        ["flips"] => ShellOutput::ok(serde_json::to_string(inner.sim.flip_history().unwrap_or_default())
            .unwrap_or_default()
            + "\n"),
        ["state"] => ShellOutput::ok(serde_json::json!({
            "loaded": inner.loaded,
            "values": inner.sim.state().values(),
            "alarms": inner.sim.state().alarms_digest(),
        })
        .to_string()
            + "\n"),
        ["fail-dumps", n, rest @ ..] => {
            let Ok(n) = n.parse() else {
                return ShellOutput::fail(2, "droidscore-sim: fail-dumps N [idle|null]");
            };
            inner.fail_dumps = n;
            inner.failure = match rest.first() {
                Some(&"null") => DumpFailure::NullRoot,
                _ => DumpFailure::Idle,
            };
            ShellOutput::ok(Vec::new())
        }
        // Installed, enabled and chosen, as a person sets it up for adb
        // typing; `off` uninstalls it and the phone's keyboard is back.
        ["adbkeyboard", on] => {
            inner.adbkeyboard = *on == "on";
            inner.ime = if inner.adbkeyboard { ADBKEYBOARD_IME } else { LATIN_IME }.into();
            ShellOutput::ok(Vec::new())
        }
        ["pose-as-phone", on] => {
            inner.pose_as_phone = *on == "on";
            ShellOutput::ok(Vec::new())
        }
        // A person's own phone: adbd as a `user` build runs it, never root.
        ["production", on] => {
            inner.production = *on == "on";
            if inner.production {
                inner.root = false;
            }
            ShellOutput::ok(Vec::new())
        }
        ["ignore-writes", key] => {
            inner.ignored_writes.insert(key.to_string());
            ShellOutput::ok(Vec::new())
        }
        ["jobs"] => ShellOutput::ok(serde_json::to_string(&inner.jobs).unwrap_or_default() + "\n"),
        _ => ShellOutput::fail(
            2,
            "usage: droidscore-sim load TASK VARIANT EPISODE_SEED [INSTANCE_SEED] | flips | state | fail-dumps N [idle|null] | adbkeyboard on|off | pose-as-phone on|off | production on|off | ignore-writes KEY | jobs",
        ),
    }
}

/// `am start [-W] [-S] [-a ACTION] [-c CATEGORY] [-n PKG/ACTIVITY] [-d URI]
/// [PKG | PKG/ACTIVITY]`, as ActivityManagerShellCommand answers it on
/// Android 14: `Starting: Intent { … }` on stdout; a failure's `Error…`
/// lines on stderr, yet exit status 0 (Android 15 made it 1). A bare
/// argument is parsed as Intent.parseCommandArgs does: a package becomes
/// MAIN + LAUNCHER in that package (the app's launcher activity), a
/// component `-n` names. An app's component is the activity `dumpsys
/// window` names for its first screen (or the launcher's), or any
/// component the simulator opens as an intent (Settings' pages).
fn am_start(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let (mut action, mut category, mut component, mut package) = (None, None, None, None);
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        match *flag {
            "-W" | "-S" | "--activity-clear-top" | "--activity-new-task" => {}
            "-a" => action = it.next().copied(),
            "-c" => category = it.next().copied(),
            "-n" => component = it.next().copied(),
            "-f" | "--user" => {
                it.next();
            }
            // A data URI: the simulator has no app that views one, so the
            // action alone decides (and fails to resolve).
            "-d" => {
                it.next();
            }
            other if other.starts_with('-') => {
                return ShellOutput::fail(255, format_args!("Error: Unknown option: {other}"))
            }
            bare if bare.contains(':') => {}
            bare if bare.contains('/') => component = Some(bare),
            bare => {
                package = Some(bare);
                action = Some("android.intent.action.MAIN");
                category = Some("android.intent.category.LAUNCHER");
            }
        }
    }
    let mut described: Vec<String> = Vec::new();
    if let Some(a) = action {
        described.push(format!("act={a}"));
    }
    if let Some(c) = category {
        described.push(format!("cat=[{c}]"));
    }
    if let Some(p) = package {
        described.push(format!("pkg={p}"));
    }
    if let Some(c) = component {
        described.push(format!("cmp={c}"));
    }
    let described = described.join(" ");
    let starting = format!("Starting: Intent {{ {described} }}\n");
    // The app starts: it reads its database if that changed meanwhile.
    if let Some(pkg) = package.or_else(|| component.and_then(|c| c.split_once('/')).map(|(p, _)| p))
    {
        super::appdata::launched(inner, pkg);
    }
    // Error lines on stderr, status 0, as Android 14 exits.
    let error = |lines: String| ShellOutput {
        stdout: starting.clone().into_bytes(),
        stderr: lines.into_bytes(),
        exit: 0,
    };
    let unresolved = || {
        error(format!(
            "Error: Activity not started, unable to resolve Intent {{ {described} flg=0x10000000 }}\n"
        ))
    };
    // An app's launcher activity, by package or by its component.
    let launch = |inner: &mut Inner, pkg: &str| {
        inner
            .sim
            .act(&DeviceAction::Launch {
                package: pkg.to_string(),
            })
            .is_ok()
    };
    if let Some(pkg) = package {
        return match launch(inner, pkg) {
            true => ShellOutput::ok(starting),
            false => unresolved(),
        };
    }
    let name = match (component, category, action) {
        (Some(c), _, _) => c.to_string(),
        (None, Some("android.intent.category.HOME"), _) => "android.intent.category.HOME".into(),
        (None, _, Some(a)) => a.to_string(),
        _ => return error("Error: Intent does not match any activities\n".into()),
    };
    match inner.sim.open(&Intent(name)) {
        Ok(()) => ShellOutput::ok(format!("{starting}Status: ok\n")),
        Err(PhoneError::UnknownIntent(_)) => {
            let Some((pkg, class)) = component.and_then(|c| c.split_once('/')) else {
                return unresolved();
            };
            match launcher_activity(inner, pkg) {
                Some(main) if full_class(pkg, class) == main => {
                    launch(inner, pkg);
                    ShellOutput::ok(format!("{starting}Status: ok\n"))
                }
                // The package is there but not that class.
                Some(_) => error(format!(
                    "Error type 3\nError: Activity class {{{pkg}/{}}} does not exist.\n",
                    full_class(pkg, class)
                )),
                None => unresolved(),
            }
        }
        Err(e) => ShellOutput::fail(1, e),
    }
}

/// `.Cls` in `pkg` is `pkg.Cls`.
fn full_class(pkg: &str, class: &str) -> String {
    match class.strip_prefix('.') {
        Some(rest) => format!("{pkg}.{rest}"),
        None => class.to_string(),
    }
}

/// The activity an installed app's launcher icon starts (full class name),
/// as `dumpsys window` names it once launched; none for no such app.
fn launcher_activity(inner: &Inner, pkg: &str) -> Option<String> {
    let mut probe = inner.sim.clone();
    probe
        .act(&DeviceAction::Launch {
            package: pkg.to_string(),
        })
        .ok()?;
    let (package, activity) = probe.focused_activity();
    (package == pkg).then(|| full_class(pkg, &activity))
}

/// `am broadcast -a ADB_INPUT_B64 --es msg B64`: ADBKeyBoard types the text
/// when installed; without a receiver the broadcast goes nowhere, as on a phone.
fn broadcast(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let action = args
        .iter()
        .position(|a| *a == "-a")
        .and_then(|i| args.get(i + 1).copied())
        .unwrap_or("");
    let msg = args
        .iter()
        .position(|a| *a == "msg")
        .and_then(|i| args.get(i + 1).copied());
    let extras = args.iter().any(|a| a.starts_with("--e"));
    let done = format!(
        "Broadcasting: Intent {{ act={action} flg=0x400000{} }}\nBroadcast completed: result=0\n",
        if extras { " (has extras)" } else { "" }
    );
    // senzhk/ADBKeyBoard AdbIME.java: its receiver is registered while it
    // is the current input method, and commits the text to the focused
    // field (ADB_INPUT_TEXT as given, ADB_INPUT_B64 decoded) or clears it.
    if inner.adbkeyboard && inner.ime == ADBKEYBOARD_IME {
        let text = match action {
            "ADB_INPUT_TEXT" => msg.map(str::to_string),
            "ADB_INPUT_B64" => msg
                .and_then(|m| base64::engine::general_purpose::STANDARD.decode(m).ok())
                .and_then(|b| String::from_utf8(b).ok()),
            _ => None,
        };
        if let Some(text) = text {
            let _ = inner.sim.act(&DeviceAction::Text { text });
        } else if action == "ADB_CLEAR_TEXT" {
            let _ = inner.sim.act(&DeviceAction::ClearText);
        }
    }
    ShellOutput::ok(done)
}
