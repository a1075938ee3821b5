//! `test EXPR` and `[ EXPR ]`, mksh's builtin (Android's /system/bin/sh;
//! POSIX `test`): the file tests AndroidWorld's `check_file_exists` sends
//! (`[ -d "DIR" ]`, `-f`, `-e`) and the string and number comparisons a
//! script uses. A path the shell's user may not reach tests false, as
//! stat(2) failing with EACCES does. A malformed expression is status 2
//! with mksh's message.

use super::state::Inner;
use super::user;
use crate::adbd::ShellOutput;

/// `test ARGS…` (`bracket`: invoked as `[`, which wants a last `]`).
pub(super) fn test(inner: &Inner, name: &str, args: &[&str]) -> ShellOutput {
    let args = if name == "[" {
        match args.split_last() {
            Some((&"]", rest)) => rest,
            _ => return ShellOutput::fail(2, "/system/bin/sh: [: missing ]"),
        }
    } else {
        args
    };
    match evaluate(inner, args) {
        Ok(true) => ShellOutput::ok(Vec::new()),
        Ok(false) => ShellOutput {
            exit: 1,
            ..ShellOutput::default()
        },
        Err(why) => ShellOutput::fail(2, format_args!("/system/bin/sh: {name}: {why}")),
    }
}

/// POSIX's rules by argument count (0 to 4), `!` negating.
fn evaluate(inner: &Inner, args: &[&str]) -> Result<bool, String> {
    match args {
        [] => Ok(false),
        [one] => Ok(!one.is_empty()),
        ["!", rest @ ..] if rest.len() <= 3 => evaluate(inner, rest).map(|b| !b),
        [op, operand] => unary(inner, op, operand),
        [a, op, b] => binary(a, op, b),
        [other, ..] => Err(format!("{other}: unexpected operator")),
    }
}

fn unary(inner: &Inner, op: &str, operand: &str) -> Result<bool, String> {
    let stat = || {
        (!user::denied(inner, operand))
            .then(|| inner.stat(operand))
            .flatten()
    };
    let kind = |mask: u32| stat().is_some_and(|(mode, _, _)| mode & 0o170000 == mask);
    Ok(match op {
        "-e" => stat().is_some(),
        "-f" => kind(0o100000),
        "-d" => kind(0o040000),
        "-s" => stat().is_some_and(|(_, size, _)| size > 0),
        "-r" | "-w" => stat().is_some(),
        "-x" => stat().is_some_and(|(mode, _, _)| mode & 0o111 != 0),
        "-L" | "-h" | "-p" | "-S" | "-b" | "-c" => false,
        "-z" => operand.is_empty(),
        "-n" => !operand.is_empty(),
        other => return Err(format!("{other}: unexpected operator")),
    })
}

fn binary(a: &str, op: &str, b: &str) -> Result<bool, String> {
    let number = |s: &str| {
        s.trim()
            .parse::<i64>()
            .map_err(|_| format!("{s}: bad number"))
    };
    Ok(match op {
        "=" | "==" => a == b,
        "!=" => a != b,
        "-eq" => number(a)? == number(b)?,
        "-ne" => number(a)? != number(b)?,
        "-lt" => number(a)? < number(b)?,
        "-le" => number(a)? <= number(b)?,
        "-gt" => number(a)? > number(b)?,
        "-ge" => number(a)? >= number(b)?,
        other => return Err(format!("{other}: unexpected operator")),
    })
}
