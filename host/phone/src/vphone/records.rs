//! The phone's records over the shell, as an Android 14 phone answers:
//! `content query|insert|delete` on the providers' URIs (output in the
//! format of `records::content`, errors on stderr with status 0 as the
//! `content` command prints them), and `find … -type f [-exec stat -c FMT {} +]`
//! over shared storage. Writes from the shell record no flip: no control
//! was operated. As on a real phone, an SMS insert from the shell is
//! accepted and ignored (the provider's app-op refuses the shell).

use std::collections::BTreeMap;

use super::state::Inner;
use crate::adbd::ShellOutput;
use crate::records::content;
use crate::records::{project, view_for_uri, Record, Table, View, STORAGE};

/// `Error while accessing provider:AUTHORITY` and the exception, on stderr,
/// status 0: what `content` prints when the provider throws.
fn provider_error(uri: &str, exception: &str) -> ShellOutput {
    let authority = uri
        .trim_start_matches("content://")
        .split('/')
        .next()
        .unwrap_or_default();
    ShellOutput {
        stdout: Vec::new(),
        stderr: format!("Error while accessing provider:{authority}\n{exception}\n").into_bytes(),
        exit: 0,
    }
}

/// `content …` on a record URI; `None` when the URI is no record provider.
pub(super) fn content(inner: &mut Inner, args: &[&str]) -> Option<ShellOutput> {
    let flag = |name: &str| {
        args.iter()
            .position(|a| *a == name)
            .and_then(|i| args.get(i + 1).copied())
    };
    let uri = flag("--uri")?;
    let view = view_for_uri(uri)?;
    let filter = match flag("--where").map(parse_where).transpose() {
        Ok(f) => f.unwrap_or_default(),
        Err(why) => {
            return Some(provider_error(
                uri,
                &format!("android.database.sqlite.SQLiteException: {why}"),
            ))
        }
    };
    Some(match args.first() {
        Some(&"query") => query(
            inner,
            uri,
            view,
            &filter,
            flag("--projection"),
            flag("--sort"),
        ),
        Some(&"insert") => insert(inner, uri, view, args),
        Some(&"delete") => {
            let table = view.table();
            let ids: Vec<u64> = matching(inner, view, &filter);
            for id in ids {
                inner.sim.records_mut().delete(table, id);
            }
            ShellOutput::ok(Vec::new())
        }
        _ => ShellOutput::fail(1, "usage: content [query|insert|delete] --uri URI ..."),
    })
}

/// The record ids behind the view rows `filter` accepts.
fn matching(inner: &Inner, view: View, filter: &[(String, String)]) -> Vec<u64> {
    let rows = view.rows(inner.sim.state().records());
    let mut ids: Vec<u64> = rows
        .iter()
        .filter(|row| accepts(row, filter))
        .filter_map(|row| {
            let id = row.get("_id").cloned().flatten()?.parse::<u64>().ok()?;
            // Contact views number their data rows contact × 10 + slot.
            Some(match view.table() {
                Table::Contacts if view != View::Contacts => id / 10,
                _ => id,
            })
        })
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

fn accepts(row: &BTreeMap<String, Option<String>>, filter: &[(String, String)]) -> bool {
    filter
        .iter()
        .all(|(c, v)| row.get(c).cloned().flatten().as_deref() == Some(v.as_str()))
}

/// `col='text' AND col=123`: what the tests and the adb backend send. Any
/// other SQL is refused, as SQLite would refuse a typo.
fn parse_where(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for part in text.split(" AND ") {
        let (column, value) = part.split_once('=').ok_or_else(|| {
            format!("near \"{part}\": syntax error (the virtual phone takes col='v' AND col=N)")
        })?;
        let value = value.trim();
        let value = match value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
            Some(quoted) => quoted.replace("''", "'"),
            None if value.parse::<i64>().is_ok() => value.to_string(),
            None => return Err(format!("no such column: {value}")),
        };
        out.push((column.trim().to_string(), value));
    }
    Ok(out)
}

fn query(
    inner: &Inner,
    uri: &str,
    view: View,
    filter: &[(String, String)],
    projection: Option<&str>,
    sort: Option<&str>,
) -> ShellOutput {
    let columns: Vec<&str> = match projection {
        Some(p) => p.split(':').collect(),
        None => view.columns().to_vec(),
    };
    if let Some(bad) = columns
        .iter()
        .chain(
            filter
                .iter()
                .map(|(c, _)| c)
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .iter(),
        )
        .find(|c| !view.columns().contains(c))
    {
        return provider_error(
            uri,
            &format!("java.lang.IllegalArgumentException: Invalid column {bad}"),
        );
    }
    let mut rows: Vec<_> = view
        .rows(inner.sim.state().records())
        .into_iter()
        .filter(|row| accepts(row, filter))
        .collect();
    if let Some(sort) = sort {
        let mut words = sort.split_whitespace();
        let column = words.next().unwrap_or("_id").to_string();
        let descending = words.next().is_some_and(|w| w.eq_ignore_ascii_case("DESC"));
        let key = |row: &BTreeMap<String, Option<String>>| {
            let v = row.get(&column).cloned().flatten().unwrap_or_default();
            (v.parse::<i64>().ok(), v)
        };
        rows.sort_by_key(key);
        if descending {
            rows.reverse();
        }
    }
    ShellOutput::ok(content::render(&project(&rows, &columns)))
}

fn insert(inner: &mut Inner, uri: &str, view: View, args: &[&str]) -> ShellOutput {
    let mut fields = BTreeMap::new();
    for (i, a) in args.iter().enumerate() {
        if *a != "--bind" {
            continue;
        }
        let bind = args.get(i + 1).copied().unwrap_or("");
        let mut parts = bind.splitn(3, ':');
        let (Some(column), Some(kind), value) = (parts.next(), parts.next(), parts.next()) else {
            return ShellOutput::fail(1, format_args!("Error: bad binding {bind:?}"));
        };
        if kind == "n" {
            continue;
        }
        fields.insert(column.to_string(), value.unwrap_or_default().to_string());
    }
    match view {
        // The shell's inserts into SMS are dropped by the provider's app-op.
        View::Sms(_) => return ShellOutput::ok(Vec::new()),
        View::Calls | View::Events => {}
        _ => {
            return provider_error(
                uri,
                "java.lang.UnsupportedOperationException: the virtual phone inserts calls and events only",
            )
        }
    }
    let table = view.table();
    let clock = inner.sim.state().clock;
    match inner.sim.state().records().complete(table, fields, &clock) {
        Ok(fields) => {
            inner.sim.records_mut().insert(table, fields);
            ShellOutput::ok(Vec::new())
        }
        Err(e) => provider_error(uri, &format!("java.lang.IllegalArgumentException: {e}")),
    }
}

/// `find DIR… -type f [-exec stat -c FMT {} +]` over shared storage: the
/// files' paths, or `stat`'s `%s` (size), `%Y` (mtime, s) and `%n` (name)
/// for each. A directory that does not exist is reported on stderr with
/// status 1, after the others are listed, as toybox does.
pub(super) fn find(inner: &Inner, args: &[&str]) -> ShellOutput {
    let dirs: Vec<&str> = args
        .iter()
        .take_while(|a| !a.starts_with('-'))
        .copied()
        .collect();
    let rest = &args[dirs.len()..];
    let format = match rest {
        ["-type", "f"] => None,
        ["-type", "f", "-exec", "stat", "-c", fmt, "{}", "+"] => Some(*fmt),
        _ => {
            return ShellOutput::fail(
                1,
                "find: the virtual phone takes DIR... -type f [-exec stat -c FMT {} +]",
            )
        }
    };
    let files: Vec<&Record> = inner
        .sim
        .state()
        .records()
        .rows(Table::Files)
        .iter()
        .collect();
    let mut out = String::new();
    let mut missing = String::new();
    for dir in &dirs {
        let dir = dir.trim_end_matches('/');
        let inside: Vec<&&Record> = files
            .iter()
            .filter(|f| format!("{STORAGE}/{}", f.text("path")).starts_with(&format!("{dir}/")))
            .collect();
        let known_dir = dir == STORAGE || !inside.is_empty() || is_root(dir);
        if !known_dir {
            missing += &format!("find: {dir}: No such file or directory\n");
            continue;
        }
        for f in inside {
            let path = format!("{STORAGE}/{}", f.text("path"));
            match format {
                None => out += &format!("{path}\n"),
                Some(fmt) => {
                    let mtime = f.text("mtime").parse::<i64>().unwrap_or(0) / 1000;
                    let line = fmt
                        .replace("%s", &f.text("size"))
                        .replace("%Y", &mtime.to_string())
                        .replace("%n", &path);
                    out += &format!("{line}\n");
                }
            }
        }
    }
    ShellOutput {
        stdout: out.into_bytes(),
        exit: u8::from(!missing.is_empty()),
        stderr: missing.into_bytes(),
    }
}

/// The standard directories exist even when empty.
fn is_root(dir: &str) -> bool {
    [
        "Documents",
        "Download",
        "Pictures",
        "DCIM",
        "Music",
        "Movies",
    ]
    .iter()
    .any(|d| dir == format!("{STORAGE}/{d}"))
}
