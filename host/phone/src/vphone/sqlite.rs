//! `sqlite3 DB "SQL"`: SQLite's command-line shell as a userdebug image
//! has it (/system/xbin/sqlite3), run on a database among the phone's
//! files — AndroidWorld's `execute_sql_command` (env/adb_utils.py) sends
//! exactly this, as root. The SQL runs with rusqlite (SQLite 3.4x, bundled)
//! on a private copy of the file (with its `-wal` and `-journal`), and what
//! the database files hold afterwards goes back to the phone: a write
//! changes the file the app reads when it next starts (see `appdata`).
//!
//! Output as the shell prints it by default (shell.c `main_init`: list
//! mode, `|` between columns, one row a line, no header, NULL as nothing;
//! a REAL as `%!.15g`). Errors are the shell's, checked against sqlite3
//! 3.40.1 on Debian, the shell.c whose wording Android 14's SQLite 3.39
//! shares (`save_err_msg`): `Error: in prepare, MESSAGE` (with the
//! statement and a caret under a syntax error) and `Error: stepping,
//! MESSAGE (RC)`, where the result code shows when above 1; the exit
//! status is that result code. A database the shell's user may not open is
//! `Error: unable to open database "PATH": unable to open database file`,
//! status 1.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::fallible_iterator::FallibleIterator;
use rusqlite::types::ValueRef;

use super::state::Inner;
use super::user;
use crate::adbd::ShellOutput;

/// The files beside a database that SQLite reads and writes with it.
const COMPANIONS: [&str; 2] = ["-wal", "-journal"];
/// A database file the shell creates (`-rw-rw----` under an app's umask).
const NEW_MODE: u32 = 0o660;

/// `sqlite3 [-batch|-bail|-header|-noheader] DB [SQL]`: the SQL from the
/// argument, or else from the pipe.
pub(super) fn sqlite3(inner: &mut Inner, args: &[&str], stdin: &[u8]) -> ShellOutput {
    let mut header = false;
    let mut operands = Vec::new();
    for arg in args {
        match *arg {
            "-batch" | "-bail" | "-noheader" => {}
            "-header" => header = true,
            opt if opt.starts_with('-') => {
                return ShellOutput::fail(
                    1,
                    format_args!(
                        "sqlite3: Error: unknown option: {opt}\nUse -help for a list of options."
                    ),
                )
            }
            operand => operands.push(operand),
        }
    }
    let (path, sql) = match operands[..] {
        [path] => (path, String::from_utf8_lossy(stdin).into_owned()),
        [path, sql] => (path, sql.to_string()),
        _ => return ShellOutput::fail(1, "Usage: sqlite3 [OPTIONS] FILENAME [SQL]"),
    };
    if sql.trim_start().starts_with('.') {
        return ShellOutput::fail(
            1,
            "Error: the virtual phone's sqlite3 runs SQL, not dot-commands",
        );
    }
    let parent = path.rsplit_once('/').map_or("/", |(dir, _)| dir);
    if user::denied(inner, path) || !inner.is_dir(if parent.is_empty() { "/" } else { parent }) {
        return cannot_open(path);
    }
    if inner.is_dir(path) {
        return cannot_open(path);
    }
    let scratch = match Scratch::new() {
        Ok(s) => s,
        Err(e) => return ShellOutput::fail(1, format_args!("Error: {e}")),
    };
    let local = scratch.dir.join("db");
    let copied = COMPANIONS
        .iter()
        .map(|suffix| {
            (
                format!("{path}{suffix}"),
                scratch.dir.join(format!("db{suffix}")),
            )
        })
        .chain([(path.to_string(), local.clone())]);
    for (phone_path, local_path) in copied {
        if let Some(bytes) = inner.files.get(&phone_path) {
            if let Err(e) = std::fs::write(&local_path, bytes) {
                return ShellOutput::fail(1, format_args!("Error: {e}"));
            }
        }
    }
    let out = match rusqlite::Connection::open(&local) {
        Ok(conn) => {
            let out = run(&conn, &sql, header);
            drop(conn);
            out
        }
        Err(_) => return cannot_open(path),
    };
    write_back(inner, path, &scratch.dir);
    out
}

/// The shell's words for a database it cannot open.
fn cannot_open(path: &str) -> ShellOutput {
    ShellOutput::fail(
        1,
        format_args!("Error: unable to open database \"{path}\": unable to open database file"),
    )
}

/// Run each statement of `sql`, printing rows in list mode; the first
/// error ends the run.
fn run(conn: &rusqlite::Connection, sql: &str, header: bool) -> ShellOutput {
    let mut out = ShellOutput::ok(Vec::new());
    let mut batch = rusqlite::Batch::new(conn, sql);
    loop {
        let mut statement = match batch.next() {
            Ok(Some(statement)) => statement,
            Ok(None) => return out,
            Err(e) => return failed(out, "in prepare", &e),
        };
        let columns = statement.column_count();
        let names: Vec<String> = statement.column_names().map(|n| n.to_string()).collect();
        let mut rows = statement.raw_query();
        let mut first = true;
        loop {
            match rows.next() {
                Ok(Some(row)) => {
                    if header && first {
                        out.stdout.extend_from_slice(names.join("|").as_bytes());
                        out.stdout.push(b'\n');
                    }
                    first = false;
                    for i in 0..columns {
                        if i > 0 {
                            out.stdout.push(b'|');
                        }
                        match row.get_ref(i) {
                            Ok(value) => out.stdout.extend_from_slice(&text(value)),
                            Err(e) => return failed(out, "stepping", &e),
                        }
                    }
                    out.stdout.push(b'\n');
                }
                Ok(None) => break,
                Err(e) => return failed(out, "stepping", &e),
            }
        }
    }
}

/// `Error: PHASE, MESSAGE[ (RC)][CONTEXT]` on stderr, status RC.
fn failed(mut out: ShellOutput, phase: &str, e: &rusqlite::Error) -> ShellOutput {
    let (code, message, context) = match e {
        rusqlite::Error::SqliteFailure(error, message) => (
            error.extended_code & 0xff,
            message.clone().unwrap_or_else(|| error.to_string()),
            String::new(),
        ),
        rusqlite::Error::SqlInputError {
            error,
            msg,
            sql,
            offset,
        } => {
            // 3.40's shell shows where a syntax error is, not other errors.
            let context = if msg.starts_with("near ") {
                error_context(sql, *offset)
            } else {
                String::new()
            };
            (error.extended_code & 0xff, msg.clone(), context)
        }
        other => (1, other.to_string(), String::new()),
    };
    let rc = if code > 1 {
        format!(" ({code})")
    } else {
        String::new()
    };
    out.stderr
        .extend_from_slice(format!("Error: {phase}, {message}{rc}{context}\n").as_bytes());
    out.exit = u8::try_from(code).unwrap_or(1).max(1);
    out
}

/// shell.c `shell_error_context`: the statement (from 50 bytes before the
/// error, at most 78 bytes, whitespace as spaces) and a caret under the
/// error.
fn error_context(sql: &str, offset: i32) -> String {
    let trimmed = sql.trim_start();
    let mut offset = offset - (sql.len() - trimmed.len()) as i32;
    if offset < 0 {
        return String::new();
    }
    let mut code = trimmed;
    while offset > 50 {
        let mut chars = code.chars();
        let c = chars.next().unwrap_or(' ');
        code = chars.as_str();
        offset -= c.len_utf8() as i32;
    }
    let mut len = code.len().min(78);
    while !code.is_char_boundary(len) {
        len -= 1;
    }
    let code: String = code[..len]
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    let offset = offset.max(0) as usize;
    if offset < 25 {
        format!("\n  {code}\n  {}^--- error here", " ".repeat(offset))
    } else {
        format!(
            "\n  {code}\n  {}error here ---^",
            " ".repeat(offset.saturating_sub(14))
        )
    }
}

/// A value as the shell's list mode prints it (`sqlite3_column_text`).
fn text(value: ValueRef<'_>) -> Vec<u8> {
    match value {
        ValueRef::Null => Vec::new(),
        ValueRef::Integer(i) => i.to_string().into_bytes(),
        ValueRef::Real(r) => real(r).into_bytes(),
        ValueRef::Text(t) | ValueRef::Blob(t) => t.to_vec(),
    }
}

/// `%!.15g` (SQLite's printf, as `sqlite3_column_text` renders a REAL):
/// 15 significant digits, trailing zeros dropped but one digit kept after
/// the point, an exponent (`e+NN`) below 1e-4 or from 1e15.
fn real(r: f64) -> String {
    if r.is_nan() {
        return "NaN".into();
    }
    if r.is_infinite() {
        return if r > 0.0 { "Inf" } else { "-Inf" }.into();
    }
    let scientific = format!("{r:.14e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let keep_point = |digits: &str| {
        if !digits.contains('.') {
            return format!("{digits}.0");
        }
        let trimmed = digits.trim_end_matches('0');
        match trimmed.strip_suffix('.') {
            Some(whole) => format!("{whole}.0"),
            None => trimmed.to_string(),
        }
    };
    if !(-4..15).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", keep_point(mantissa), exponent.abs());
    }
    let decimals = (14 - exponent).max(0) as usize;
    keep_point(&format!("{r:.decimals$}"))
}

/// The database files as SQLite left them, back on the phone: changed
/// bytes get the phone's time, a companion SQLite removed goes.
fn write_back(inner: &mut Inner, path: &str, dir: &Path) {
    let now = u32::try_from(inner.sim.state().clock.now_ms.div_euclid(1000)).unwrap_or(0);
    for suffix in [""].into_iter().chain(COMPANIONS) {
        let phone_path = format!("{path}{suffix}");
        match std::fs::read(dir.join(format!("db{suffix}"))) {
            Ok(bytes) => {
                if inner.files.get(&phone_path) != Some(&bytes) {
                    inner.mtimes.insert(phone_path.clone(), now);
                    inner.modes.entry(phone_path.clone()).or_insert(NEW_MODE);
                    inner.files.insert(phone_path, bytes);
                }
            }
            Err(_) => {
                inner.files.remove(&phone_path);
                inner.modes.remove(&phone_path);
                inner.mtimes.remove(&phone_path);
            }
        }
    }
}

/// A private directory, removed when dropped.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new() -> std::io::Result<Scratch> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "droidscore-sqlite3-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch { dir })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reals_print_as_sqlite_prints_them() {
        for (value, text) in [
            (2.0, "2.0"),
            (0.1, "0.1"),
            (12.5, "12.5"),
            (1e20, "1.0e+20"),
            (1.5e-5, "1.5e-05"),
            (-3.25, "-3.25"),
            (123456789012345.0, "123456789012345.0"),
            (1e15, "1.0e+15"),
            (100.0, "100.0"),
            (0.0001, "0.0001"),
            (std::f64::consts::PI, "3.14159265358979"),
        ] {
            assert_eq!(real(value), text, "{value}");
        }
    }

    #[test]
    fn a_syntax_error_is_shown_under_its_statement() {
        assert_eq!(
            error_context("selec 1", 0),
            "\n  selec 1\n  ^--- error here"
        );
    }
}
