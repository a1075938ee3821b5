//! `input`, as Android's `InputShellCommand` (frameworks/base
//! services/core/java/com/android/server/input/InputShellCommand.java)
//! answers it: an optional source (`touchscreen`, `keyboard`, …) and
//! `-d DISPLAY`, then `tap`, `swipe` (a still swipe held past the
//! long-press timeout is a long press), `draganddrop`, `keyevent` (numbers,
//! `KEYCODE_` names or bare names, several codes in one call, with
//! `--longpress`, `--doubletap`, `--duration`, `--delay`, `--async`),
//! `keycombination`, `text`, and the trackball's `press`/`roll` (no
//! simulated view reacts to those). Each reaches the simulated phone as the
//! device action the simulator gets from the built-in backend, so both
//! backends reach the same state:
//! - two `input tap`s within the double-tap timeout and slop are a double
//!   tap (`SimPhone::input_tap`), as `GestureDetector` tells them;
//! - `keycombination 113 29` (Ctrl+A) selects the focused field's text, and
//!   `keyevent 67` then deletes it: AndroidWorld's clear, the adb backend's
//!   `ClearText`.

use std::time::Instant;

use super::state::Inner;
use crate::adbd::ShellOutput;
use crate::{keycode, DeviceAction, Phone};

/// Holding a touch this long without moving is a long press (ViewConfiguration).
const LONG_PRESS_MS: u32 = 400;

const USAGE: &str = "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The sources are:
      dpad
      keyboard
      mouse
      touchpad
      gamepad
      touchnavigation
      joystick
      touchscreen
      stylus
      trackball

-d: specify the display ID.
      (Default: -1 for key event, 0 for motion event if not specified.)
The commands and default sources are:
      text <string> (Default: keyboard)
      keyevent [--longpress|--duration <duration to hold key down in ms>] [--doubletap] [--async] [--delay <duration between keycodes in ms>] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      keycombination [-t duration(ms)] <key code 1> <key code 2> ... (Default: keyboard, the key order is important here.)";

const SOURCES: &[&str] = &[
    "dpad",
    "keyboard",
    "mouse",
    "touchpad",
    "gamepad",
    "touchnavigation",
    "joystick",
    "touchscreen",
    "stylus",
    "trackball",
    "rotaryencoder",
];

fn number(arg: &str) -> Option<i32> {
    arg.parse::<f32>().ok().map(|v| v.round() as i32)
}

/// Four coordinates and an optional duration (`swipe`, `draganddrop`);
/// InputShellCommand's default duration is 300 ms.
fn path(args: &[&str]) -> Option<([i32; 4], u32)> {
    let [x1, y1, x2, y2, rest @ ..] = args else {
        return None;
    };
    let p = [number(x1)?, number(y1)?, number(x2)?, number(y2)?];
    let duration = match rest {
        [] => 300,
        [d] => d.parse::<i64>().ok().map_or(300, |d| d.max(0) as u32),
        _ => return None,
    };
    Some((p, duration))
}

/// A key code `input` takes: a number, `KEYCODE_X` or `X`.
fn key_code(word: &str) -> Result<u32, ShellOutput> {
    keycode::parse(word).ok_or_else(|| {
        ShellOutput::fail(
            1,
            format_args!(
                "Exception occurred while executing 'keyevent':\njava.lang.IllegalArgumentException: Unknown keycode: {word}"
            ),
        )
    })
}

pub(super) fn input(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let mut args = args;
    if let [source, rest @ ..] = args {
        if SOURCES.contains(source) {
            args = rest;
        }
    }
    if let ["-d", display, rest @ ..] = args {
        if display.parse::<i32>().is_err() {
            return ShellOutput::fail(1, USAGE);
        }
        args = rest;
    }
    let Some((command, rest)) = args.split_first() else {
        return ShellOutput::fail(1, USAGE);
    };
    match *command {
        "tap" => match rest {
            [x, y] => match (number(x), number(y)) {
                (Some(x), Some(y)) => done(inner.sim.input_tap(x, y, Instant::now())),
                _ => ShellOutput::fail(1, USAGE),
            },
            _ => ShellOutput::fail(1, USAGE),
        },
        "swipe" => match path(rest) {
            Some(([x1, y1, x2, y2], duration_ms)) => {
                let still = (x1 - x2).abs() < 24 && (y1 - y2).abs() < 24;
                let action = if still && duration_ms >= LONG_PRESS_MS {
                    DeviceAction::LongPress { x: x1, y: y1 }
                } else {
                    DeviceAction::Swipe {
                        x1,
                        y1,
                        x2,
                        y2,
                        duration_ms,
                    }
                };
                act(inner, &[action])
            }
            None => ShellOutput::fail(1, USAGE),
        },
        "draganddrop" => match path(rest) {
            Some(([x1, y1, x2, y2], duration_ms)) => act(
                inner,
                &[DeviceAction::Drag {
                    x1,
                    y1,
                    x2,
                    y2,
                    duration_ms,
                }],
            ),
            None => ShellOutput::fail(1, USAGE),
        },
        "keyevent" => keyevent(inner, rest),
        "keycombination" => {
            let codes = match rest {
                ["-t", t, codes @ ..] if t.parse::<u32>().is_ok() => codes,
                codes => codes,
            };
            if codes.len() < 2 {
                return ShellOutput::fail(
                    1,
                    "Exception occurred while executing 'keycombination':\njava.lang.IllegalArgumentException: keycombination requires at least 2 keycodes",
                );
            }
            let mut parsed = Vec::with_capacity(codes.len());
            for word in codes {
                match key_code(word) {
                    Ok(code) => parsed.push(code),
                    Err(out) => return out,
                }
            }
            inner.sim.key_combination(&parsed);
            ShellOutput::ok(Vec::new())
        }
        "text" => match rest {
            [text] => {
                if let Some(c) = text.chars().find(|c| !c.is_ascii()) {
                    return ShellOutput::fail(
                        1,
                        format_args!("Exception occurred while executing 'text':\njava.lang.IllegalArgumentException: no key for {c:?} in the virtual key character map"),
                    );
                }
                act(
                    inner,
                    &[DeviceAction::Text {
                        text: text.replace("%s", " "),
                    }],
                )
            }
            _ => ShellOutput::fail(1, USAGE),
        },
        // Trackball events: no simulated view takes them.
        "press" if rest.is_empty() => ShellOutput::ok(Vec::new()),
        "roll" if rest.len() == 2 && rest.iter().all(|a| number(a).is_some()) => {
            ShellOutput::ok(Vec::new())
        }
        _ => ShellOutput::fail(1, USAGE),
    }
}

/// `keyevent [flags] CODE...`: each code pressed in turn (twice with
/// `--doubletap`). A long press (`--longpress`, `--duration`) is a press
/// here: no simulated control has a key long-press action.
fn keyevent(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let mut args = args;
    let mut presses = 1;
    loop {
        match args {
            ["--longpress" | "--async", rest @ ..] => args = rest,
            ["--doubletap", rest @ ..] => {
                presses = 2;
                args = rest;
            }
            ["--duration" | "--delay", ms, rest @ ..] if ms.parse::<u64>().is_ok() => args = rest,
            _ => break,
        }
    }
    if args.is_empty() {
        return ShellOutput::fail(1, USAGE);
    }
    let mut actions = Vec::with_capacity(args.len() * presses);
    for word in args {
        // InputShellCommand.runKeyEvent: KeyEvent.keyCodeFromString gives
        // KEYCODE_UNKNOWN (0) for a name it does not know, injected without
        // a word (only `keycombination` throws "Unknown keycode").
        let code = keycode::parse(word).unwrap_or(0);
        for _ in 0..presses {
            actions.push(keycode::action(code));
        }
    }
    act(inner, &actions)
}

fn done(result: Result<(), crate::PhoneError>) -> ShellOutput {
    match result {
        Ok(()) => ShellOutput::ok(Vec::new()),
        Err(e) => ShellOutput::fail(1, e),
    }
}

fn act(inner: &mut Inner, actions: &[DeviceAction]) -> ShellOutput {
    for action in actions {
        if let Err(e) = inner.sim.act(action) {
            return ShellOutput::fail(1, e);
        }
    }
    ShellOutput::ok(Vec::new())
}
