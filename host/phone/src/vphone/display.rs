//! The commands that change how the phone shows its screens, answered as
//! Android 14 answers them, and applied to the simulator so the next dump
//! and screenshot change:
//! - `wm size [WxH|reset]` and `wm density [DPI|reset]`, as
//!   WindowManagerShellCommand prints and parses them (AOSP frameworks/base
//!   services/core/java/com/android/server/wm/WindowManagerShellCommand.java:
//!   `Physical size: WxH`, then `Override size: WxH` while one is set;
//!   `Physical density: N`, then `Override density: N`; sizes in px, or with
//!   a `px` or `dp` suffix; `Error: bad size …`, `Error: density must be >=
//!   72`; a failed command exits 255, its `onCommand` returning -1);
//! - `cmd uimode night [yes|no|auto|custom_schedule]`, as UiModeManagerService's
//!   shell command does (AOSP frameworks/base services/core/java/com/android/
//!   server/UiModeManagerService.java, `Shell.handleNightMode`): it sets the
//!   mode (persisted as `secure/ui_night_mode` 2, 1, 0 or 3) and prints
//!   `Night mode: yes` — the current mode — whether it set one or not.
//!
//! Rotation (`settings put system user_rotation 1` with
//! `accelerometer_rotation 0`) and the font scale (`settings put system
//! font_scale 1.3`) are settings writes; the simulator reads them when it
//! lays out a frame.

use super::state::{write, Inner};
use crate::adbd::ShellOutput;

/// Android's baseline density, for `dp` sizes (`DisplayMetrics.DENSITY_DEFAULT`).
const DENSITY_DEFAULT: i64 = 160;
/// The lowest density `wm density` takes.
const MIN_DENSITY: u32 = 72;
/// A shell command's `return -1`, as the exit status adb reports.
const FAILED: u8 = 255;

/// `wm size` and `wm density`.
pub(super) fn wm(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let (natural, physical) = inner.sim.natural_display();
    match args {
        ["size"] => {
            let mut out = format!("Physical size: {}x{}\n", physical.width, physical.height);
            if (natural.width, natural.height) != (physical.width, physical.height) {
                out += &format!("Override size: {}x{}\n", natural.width, natural.height);
            }
            ShellOutput::ok(out)
        }
        ["size", "reset"] => {
            inner.sim.set_display_size(None);
            ShellOutput::ok(Vec::new())
        }
        ["size", size] => {
            let parsed = size.split_once('x').and_then(|(w, h)| {
                let dimension = |s: &str| dimension(s, natural.dpi);
                Some((dimension(w)?, dimension(h)?))
            });
            match parsed {
                Some((w, h)) if w > 0 && h > 0 => {
                    inner.sim.set_display_size(Some((w, h)));
                    ShellOutput::ok(Vec::new())
                }
                _ => ShellOutput::fail(FAILED, format_args!("Error: bad size {size}")),
            }
        }
        ["density"] => {
            let mut out = format!("Physical density: {}\n", physical.dpi);
            if natural.dpi != physical.dpi {
                out += &format!("Override density: {}\n", natural.dpi);
            }
            ShellOutput::ok(out)
        }
        ["density", "reset"] => {
            inner.sim.set_density(None);
            ShellOutput::ok(Vec::new())
        }
        ["density", density] => match density.parse::<u32>() {
            Ok(dpi) if dpi >= MIN_DENSITY => {
                inner.sim.set_density(Some(dpi));
                ShellOutput::ok(Vec::new())
            }
            Ok(_) => ShellOutput::fail(FAILED, "Error: density must be >= 72"),
            Err(_) => ShellOutput::fail(
                FAILED,
                format_args!(
                    "Error: bad number java.lang.NumberFormatException: For input string: \"{density}\""
                ),
            ),
        },
        _ => ShellOutput::fail(FAILED, "Unknown command"),
    }
}

/// One side of a `wm size`: pixels, `Npx`, or `Ndp` at the current density.
fn dimension(text: &str, dpi: u32) -> Option<i32> {
    if let Some(px) = text.strip_suffix("px") {
        return px.parse().ok();
    }
    if let Some(dp) = text.strip_suffix("dp") {
        let dp: i64 = dp.parse().ok()?;
        return i32::try_from(dp * dpi as i64 / DENSITY_DEFAULT).ok();
    }
    text.parse().ok()
}

/// The `secure/ui_night_mode` value of each mode name, and back.
const NIGHT_MODES: [(&str, &str); 4] = [
    ("auto", "0"),
    ("no", "1"),
    ("yes", "2"),
    ("custom_schedule", "3"),
];

/// `cmd uimode night [MODE]`: set the mode when one is named, then print it.
pub(super) fn night(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    if let Some(name) = args.first() {
        match NIGHT_MODES.iter().find(|(n, _)| n == name) {
            Some((_, value)) => write(inner, "secure/ui_night_mode", value),
            None => {
                return ShellOutput::fail(
                    FAILED,
                    "Error: mode must be 'yes', 'no', or 'auto', or 'custom_schedule', or 'custom_bedtime'",
                )
            }
        }
    }
    let value = inner.sim.state().get("secure/ui_night_mode").unwrap_or("1");
    let name = NIGHT_MODES
        .iter()
        .find(|(_, v)| *v == value)
        .map_or("unknown", |(n, _)| n);
    ShellOutput::ok(format!("Night mode: {name}\n"))
}
