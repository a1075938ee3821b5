//! `input`, as Android's `cmds/input` answers it: taps, swipes (a still
//! swipe held past the long-press timeout is a long press), key events and
//! text, each applied to the simulated phone.

use super::state::Inner;
use crate::adbd::ShellOutput;
use crate::phone::{DeviceAction, Key, Phone};

/// Holding a touch this long without moving is a long press (ViewConfiguration).
const LONG_PRESS_MS: u32 = 400;

fn number(arg: Option<&&str>) -> Option<i32> {
    arg.and_then(|a| a.parse::<f32>().ok())
        .map(|v| v.round() as i32)
}

pub(super) fn input(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    const USAGE: &str = "Usage: input [<source>] <command> [<arg>...]";
    let action = match args {
        ["tap", x, y] => match (number(Some(x)), number(Some(y))) {
            (Some(x), Some(y)) => DeviceAction::Tap { x, y },
            _ => return ShellOutput::fail(1, USAGE),
        },
        ["swipe", x1, y1, x2, y2, rest @ ..] => {
            let p: Vec<i32> = [x1, y1, x2, y2]
                .iter()
                .filter_map(|a| number(Some(a)))
                .collect();
            let duration_ms = rest.first().and_then(|d| d.parse().ok()).unwrap_or(300);
            if p.len() != 4 {
                return ShellOutput::fail(1, USAGE);
            }
            let still = (p[0] - p[2]).abs() < 24 && (p[1] - p[3]).abs() < 24;
            if still && duration_ms >= LONG_PRESS_MS {
                DeviceAction::LongPress { x: p[0], y: p[1] }
            } else {
                DeviceAction::Swipe {
                    x1: p[0],
                    y1: p[1],
                    x2: p[2],
                    y2: p[3],
                    duration_ms,
                }
            }
        }
        ["keyevent", code] => match *code {
            "3" | "KEYCODE_HOME" => DeviceAction::Key { key: Key::Home },
            "4" | "KEYCODE_BACK" => DeviceAction::Key { key: Key::Back },
            "66" | "KEYCODE_ENTER" => DeviceAction::Key { key: Key::Enter },
            // Other keys (volume, power, …) reach no simulated control.
            c if c.parse::<u32>().is_ok() || c.starts_with("KEYCODE_") => {
                return ShellOutput::ok(Vec::new())
            }
            _ => return ShellOutput::fail(1, USAGE),
        },
        ["text", text] => {
            if let Some(c) = text.chars().find(|c| !c.is_ascii()) {
                return ShellOutput::fail(
                    1,
                    format_args!("Exception occurred while executing 'text':\njava.lang.IllegalArgumentException: no key for {c:?} in the virtual key character map"),
                );
            }
            DeviceAction::Text {
                text: text.replace("%s", " "),
            }
        }
        _ => return ShellOutput::fail(1, USAGE),
    };
    act(inner, &action)
}

fn act(inner: &mut Inner, action: &DeviceAction) -> ShellOutput {
    match inner.sim.act(action) {
        Ok(()) => ShellOutput::ok(Vec::new()),
        Err(e) => ShellOutput::fail(1, e),
    }
}
