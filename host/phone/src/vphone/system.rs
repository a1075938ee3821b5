//! `dumpsys` and `pm`: the system services' dumps and the package manager's
//! lists, in the lines adb clients parse. Each dump is the part of the real
//! one a client reads, not the whole: a real `dumpsys window` runs to
//! thousands of lines.
//!
//! Formats, from AOSP frameworks/base and frameworks/native:
//! - `dumpsys display`: DisplayManagerService's `mViewports=[…]`, each a
//!   `DisplayViewport.toString()` (core/java/android/hardware/display/
//!   DisplayViewport.java): `DisplayViewport{type=INTERNAL, valid=true, …,
//!   orientation=0, …, deviceWidth=W, deviceHeight=H}` — what adbutils'
//!   `rotation()` reads (openatx/adbutils adbutils/shell.py, `orientation=`);
//! - `dumpsys input`: InputReader's touch mapper, `SurfaceOrientation: %d`
//!   (services/inputflinger/reader/mapper/TouchInputMapper.cpp);
//! - `dumpsys window windows`: `mCurrentFocus=Window{HASH u0 PKG/ACTIVITY}`
//!   and `mFocusedApp=ActivityRecord{HASH u0 PKG/ACTIVITY tN}`;
//! - `dumpsys window displays`: DisplayContent.dump's one line of `init=WxH
//!   Ddpi … cur=WxH app=WxH rng=…` (services/core/java/com/android/server/
//!   wm/DisplayContent.java), with ` base=WxH Ddpi` once `wm size|density`
//!   overrides the panel's; `dumpsys window` alone prints both sections;
//! - `dumpsys activity activities`: Android 14's RootWindowContainer
//!   .dumpActivities — `* Task{HASH #N type=standard A=UID:PKG U=0 …}`,
//!   `topResumedActivity=ActivityRecord{…}`, `* Hist  #0: ActivityRecord{…}`
//!   (two spaces), then `ResumedActivity: ActivityRecord{…}` (Android 14
//!   prints no `mResumedActivity` line); `dumpsys activity top`: `ACTIVITY
//!   PKG/ACTIVITY HASH pid=N` (what adbutils' `app_current()` falls back
//!   to); `dumpsys activity services`: its header and `(nothing)`: the
//!   virtual phone runs no app services;
//! - `dumpsys power`: `mHoldingDisplaySuspendBlocker=true` while the screen is on;
//! - `dumpsys battery`: BatteryService's `Current Battery Service state:` block;
//! - `dumpsys package PKG`: `versionCode=N minSdk=… targetSdk=…`,
//!   `versionName=…`, `pkgFlags=[ SYSTEM … ]`, `firstInstallTime=…`;
//! - `pm list packages [-f] [-3|-s] [-d|-e] [-U] [FILTER]` and `pm path PKG`:
//!   PackageManagerShellCommand's `runListPackages` (`package:`, then with
//!   `-f` the APK path and `=`, then the name; ` uid:N` with `-U`) and
//!   `runPath`; `pm clear PKG` (`runClear`: `Success`, or `Failed`) and
//!   `pm grant|revoke PKG PERMISSION` (`runGrantRevokePermission`: silent).
//!
//! The virtual phone has no APKs: the paths are where a Pixel keeps these
//! apps, named for the app, and the version and times are fixed.

use super::state::Inner;
use crate::adbd::ShellOutput;
use crate::apps;

/// Where a focused window's hash and task number would be: fixed.
const WINDOW_HASH: &str = "5e1a9c0";
const RECORD_HASH: &str = "8b3f2d1";
/// The focused app's process id in `dumpsys activity top`.
const TOP_PID: u32 = 4321;
/// ADBKeyBoard's package: the one third-party app, installed by
/// `droidscore-sim adbkeyboard on`.
const ADBKEYBOARD: &str = "com.android.adbkeyboard";

/// One installed package: its name, APK path and whether it is a system app.
struct Package {
    name: &'static str,
    path: String,
    system: bool,
    uid: u32,
}

/// The installed packages, each once: the launcher, then the launcher's
/// apps (Settings and Clock among them), then ADBKeyBoard when installed.
fn packages(inner: &Inner) -> Vec<Package> {
    let mut list = vec![Package {
        name: apps::LAUNCHER,
        path: "/system_ext/priv-app/NexusLauncherRelease/NexusLauncherRelease.apk".into(),
        system: true,
        uid: 10_100,
    }];
    for (i, (label, name)) in apps::APPS.iter().enumerate() {
        if list.iter().any(|p| p.name == *name) {
            continue;
        }
        list.push(Package {
            name,
            path: format!("/product/app/{label}/{label}.apk"),
            system: true,
            uid: 10_101 + i as u32,
        });
    }
    // The apps whose own databases the phone keeps are installed (their
    // data is under /data/data), like the launcher's apps.
    for (i, app) in crate::appdb::AppDb::ALL.iter().enumerate() {
        if !list.iter().any(|p| p.name == app.package()) {
            list.push(Package {
                name: app.package(),
                path: format!("/product/app/{0}/{0}.apk", app.package()),
                system: true,
                uid: 10_150 + i as u32,
            });
        }
    }
    if inner.adbkeyboard {
        list.push(Package {
            name: ADBKEYBOARD,
            path: format!("/data/app/~~droidscore==/{ADBKEYBOARD}-1==/base.apk"),
            system: false,
            uid: 10_200,
        });
    }
    list
}

/// The app uid of an installed package (10000 and up), if installed.
pub(super) fn uid(inner: &Inner, package: &str) -> Option<u32> {
    packages(inner)
        .into_iter()
        .find(|p| p.name == package)
        .map(|p| p.uid)
}

pub(super) fn pm(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    match args {
        ["list", "packages", rest @ ..] => list_packages(inner, rest),
        ["clear", rest @ ..] => clear(inner, rest),
        ["grant" | "revoke", rest @ ..] => grant(rest),
        ["path", name, ..] => match packages(inner).iter().find(|p| p.name == *name) {
            Some(p) => ShellOutput::ok(format!("package:{}\n", p.path)),
            // runPath prints nothing for a package it does not know.
            None => ShellOutput {
                stdout: Vec::new(),
                stderr: Vec::new(),
                exit: 1,
            },
        },
        _ => ShellOutput::fail(
            255,
            "usage: pm list packages [-f] [-d] [-e] [-s] [-3] [-U] [FILTER] | pm path PACKAGE | pm clear PACKAGE | pm grant PACKAGE PERMISSION",
        ),
    }
}

/// `pm clear [--user U] PACKAGE` (PackageManagerShellCommand `runClear`):
/// `Success`, or `Failed` on stderr with status 1 for a package that is
/// not installed (ActivityManagerService.clearApplicationUserData reports
/// it to the observer as a failure). The app stops and its data goes.
fn clear(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let Some(package) = operands(args).first().copied() else {
        return ShellOutput::fail(1, "Error: no package specified");
    };
    if uid(inner, package).is_none() {
        return ShellOutput::fail(1, "Failed");
    }
    inner.sim.force_stop(package);
    super::appdata::clear(inner, package);
    ShellOutput::ok("Success\n")
}

/// `pm grant|revoke [--user U] PACKAGE PERMISSION`
/// (PackageManagerShellCommand `runGrantRevokePermission`): silent, status
/// 0. On Android 14 an unknown package is silent too: PermissionManager
/// ServiceImpl.grantRuntimePermissionInternal logs `Unknown package` and
/// returns. The virtual phone has no permission model, so every
/// permission is taken.
fn grant(args: &[&str]) -> ShellOutput {
    match operands(args)[..] {
        [] => ShellOutput::fail(1, "Error: no package specified"),
        [_] => ShellOutput::fail(1, "Error: no permission specified"),
        _ => ShellOutput::ok(Vec::new()),
    }
}

/// The arguments after the options (`--user U` takes a value).
fn operands<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match *arg {
            "--user" => {
                it.next();
            }
            opt if opt.starts_with('-') => {}
            operand => out.push(operand),
        }
    }
    out
}

fn list_packages(inner: &Inner, args: &[&str]) -> ShellOutput {
    let (mut show_path, mut disabled, mut system, mut third_party, mut uid) =
        (false, false, false, false, false);
    let mut filter = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match *arg {
            "-f" => show_path = true,
            "-d" => disabled = true,
            // Every package here is enabled; -e lists them all.
            "-e" | "-a" | "-u" => {}
            "-s" => system = true,
            "-3" => third_party = true,
            "-U" => uid = true,
            "--user" => {
                it.next();
            }
            opt if opt.starts_with('-') => {
                return ShellOutput::fail(255, format_args!("Error: Unknown option: {opt}"))
            }
            name => filter = Some(name),
        }
    }
    let out: String = packages(inner)
        .iter()
        .filter(|p| filter.is_none_or(|f| p.name.contains(f)))
        .filter(|p| !disabled && (!system || p.system) && (!third_party || !p.system))
        .map(|p| {
            let path = if show_path {
                format!("{}=", p.path)
            } else {
                String::new()
            };
            let uid = if uid {
                format!(" uid:{}", p.uid)
            } else {
                String::new()
            };
            format!("package:{path}{}{uid}\n", p.name)
        })
        .collect();
    ShellOutput::ok(out)
}

pub(super) fn dumpsys(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let (package, activity) = inner.sim.focused_activity();
    // With the shade down, System UI's window has the focus: Android names
    // it `NotificationShade`, with no component; the app keeps mFocusedApp.
    let component = if inner.sim.shade_open() {
        "NotificationShade".to_string()
    } else if activity.starts_with('.') {
        format!("{package}/{package}{activity}")
    } else {
        format!("{package}/{activity}")
    };
    // The logical display as laid out now (turned, and as `wm size` sets
    // it); the panel's physical frame, turned with it.
    let display = inner.sim.display();
    let (w, h, o) = (display.width, display.height, inner.sim.rotation());
    let (_, physical) = inner.sim.natural_display();
    let (pw, ph) = if o % 2 == 1 {
        (physical.height, physical.width)
    } else {
        (physical.width, physical.height)
    };
    match args.first() {
        Some(&"window") => {
            let windows = format!(
                "WINDOW MANAGER WINDOWS (dumpsys window windows)\n  mCurrentFocus=Window{{{WINDOW_HASH} u0 {component}}}\n  mFocusedApp=ActivityRecord{{{RECORD_HASH} u0 {package}/{activity} t12}}\n"
            );
            let (_, panel) = inner.sim.natural_display();
            let (small, large) = (w.min(h), w.max(h));
            // The override, as the panel stands (unturned).
            let (dw, dh) = if o % 2 == 1 {
                (display.height, display.width)
            } else {
                (display.width, display.height)
            };
            let base = if (dw, dh, display.dpi) == (panel.width, panel.height, panel.dpi) {
                String::new()
            } else {
                format!(" base={dw}x{dh} {}dpi", display.dpi)
            };
            let displays = format!(
                "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n  Display: mDisplayId=0\n    init={}x{} {}dpi mMinSizeOfResizeableTaskDp=220{base} cur={w}x{h} app={w}x{h} rng={small}x{small}-{large}x{large}\n",
                panel.width, panel.height, panel.dpi
            );
            ShellOutput::ok(match args.get(1) {
                Some(&"windows") => windows,
                Some(&"displays") => displays,
                _ => format!("{displays}\n{windows}"),
            })
        }
        Some(&"activity") if args.get(1) == Some(&"top") => ShellOutput::ok(format!(
            "TASK 10 id=12 userId=0\n  ACTIVITY {package}/{activity} {RECORD_HASH} pid={TOP_PID}\n"
        )),
        Some(&"activity") if args.get(1) == Some(&"services") => ShellOutput::ok(
            "ACTIVITY MANAGER SERVICES (dumpsys activity services)\n  (nothing)\n",
        ),
        Some(&"activity") => {
            let record = format!("ActivityRecord{{{RECORD_HASH} u0 {package}/{activity} t12}}");
            let uid = packages(inner)
                .iter()
                .find(|p| p.name == package)
                .map_or(10_123, |p| p.uid);
            let home = package == apps::LAUNCHER;
            let (number, kind) = if home { (1, "home") } else { (12, "standard") };
            let mut out = format!(
                "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\nDisplay #0 (activities from top to bottom):\n  * Task{{4f1a2b3 #{number} type={kind} A={uid}:{package} U=0 visible=true visibleRequested=true mode=fullscreen translucent=false sz=1}}\n    isSleeping=false\n    topResumedActivity={record}\n    * Hist  #0: {record}\n      packageName={package} processName={package}\n      launchedFromUid=2000 launchedFromPackage=com.android.shell launchedFromFeature=null userId=0\n"
            );
            if !home {
                out.push_str(&format!(
                    "  * Task{{7a6b5c4 #1 type=home A=10100:{} U=0 visible=false visibleRequested=false mode=fullscreen translucent=false sz=1}}\n",
                    apps::LAUNCHER
                ));
            }
            out.push_str(&format!(
                "\n  Resumed activities in task display areas (from top to bottom):\n    Resumed: {record}\n\n  ResumedActivity: {record}\n"
            ));
            ShellOutput::ok(out)
        }
        Some(&"display") => ShellOutput::ok(format!(
            "DISPLAY MANAGER (dumpsys display)\n  mOnlyCode=false\n  mSafeMode=false\n  mViewports=[DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='local:4619827259835644672', physicalPort=0, orientation={o}, logicalFrame=Rect(0, 0 - {w}, {h}), physicalFrame=Rect(0, 0 - {pw}, {ph}), deviceWidth={pw}, deviceHeight={ph}}}]\n"
        )),
        Some(&"input") => ShellOutput::ok(format!(
            "INPUT MANAGER (dumpsys input)\n\nInput Reader State (Nums of device: 1):\n  Device 2: sec_touchscreen\n    Touch Input Mapper (mode - DIRECT):\n      Viewport INTERNAL: displayId=0, uniqueId=local:4619827259835644672, port=0, orientation={o}, logicalFrame=[0, 0, {w}, {h}], physicalFrame=[0, 0, {pw}, {ph}], deviceSize=[{pw}, {ph}], isActive=[1]\n      SurfaceWidth: {w}px\n      SurfaceHeight: {h}px\n      SurfaceOrientation: {o}\n"
        )),
        Some(&"power") => ShellOutput::ok(
            "POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  mWakefulness=Awake\n  mHoldingWakeLockSuspendBlocker=false\n  mHoldingDisplaySuspendBlocker=true\n",
        ),
        Some(&"battery") => ShellOutput::ok(
            "Current Battery Service state:\n  AC powered: false\n  USB powered: true\n  Wireless powered: false\n  Dock powered: false\n  Max charging current: 500000\n  Max charging voltage: 5000000\n  Charge counter: 3000000\n  status: 2\n  health: 2\n  present: true\n  level: 100\n  scale: 100\n  voltage: 4400\n  temperature: 250\n  technology: Li-ion\n",
        ),
        Some(&"package") => match args.get(1) {
            Some(name) => dump_package(inner, name),
            None => ShellOutput::ok("Packages:\n"),
        },
        Some(other) => ShellOutput::ok(format!("Can't find service: {other}\n")),
        None => ShellOutput::ok(
            "Currently running services:\n  activity\n  battery\n  display\n  input\n  package\n  power\n  window\n",
        ),
    }
}

/// `dumpsys package PKG`: the lines of its `Packages:` entry a client reads.
fn dump_package(inner: &Inner, name: &str) -> ShellOutput {
    let Some(p) = packages(inner).into_iter().find(|p| p.name == name) else {
        // A package it does not know: the dump without its entry.
        return ShellOutput::ok(
            "Dexopt state:\n  Unable to find package: {name}\n".replace("{name}", name),
        );
    };
    let flags = if p.system {
        "[ SYSTEM HAS_CODE ALLOW_CLEAR_USER_DATA ]"
    } else {
        "[ HAS_CODE ALLOW_CLEAR_USER_DATA ]"
    };
    ShellOutput::ok(format!(
        "Packages:\n  Package [{name}] (1a2b3c4):\n    userId={uid}\n    codePath={code}\n    versionCode=34 minSdk=34 targetSdk=34\n    versionName=14\n    pkgFlags={flags}\n    timeStamp=2024-01-01 00:00:00\n    firstInstallTime=2024-01-01 00:00:00\n    lastUpdateTime=2024-01-01 00:00:00\n",
        name = p.name,
        uid = p.uid,
        code = p.path.rsplit_once('/').map_or(p.path.as_str(), |(dir, _)| dir),
    ))
}
