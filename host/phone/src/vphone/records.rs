//! The phone's records over the shell, as an Android 14 phone answers:
//! `content query|insert|delete` on the providers' URIs (output in the
//! format of `records::content`, errors on stderr with status 0 as the
//! `content` command prints them), and `find … -type f [-exec stat -c FMT {} +]`
//! over shared storage. Writes from the shell record no flip: no control
//! was operated. As on a real phone, an SMS insert from the shell is
//! accepted and ignored (the provider's app-op refuses the shell). Beside
//! them, the virtual phone's own app-data provider
//! (`content://droidscore.sim/app`); any other authority is one no
//! provider has, answered as `content` answers it.

use std::collections::BTreeMap;

use super::state::{write, Inner};
use crate::adb::APP_DATA_URI;
use crate::adbd::ShellOutput;
use crate::apps::ALARMS_KEY;
use crate::records::content;
use crate::records::{project, view_for_uri, Record, Table, View, STORAGE};
use crate::Phone;

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

/// `content query|insert --uri content://droidscore.sim/app …`: the
/// simulator's app data (decoy switches, the alarm list) as a provider.
pub(super) fn app_data(inner: &mut Inner, args: &[&str]) -> ShellOutput {
    let flag = |name: &str| {
        args.iter()
            .position(|a| *a == name)
            .and_then(|i| args.get(i + 1).copied())
    };
    let uri = flag("--uri").unwrap_or("");
    if uri != APP_DATA_URI {
        return no_provider(uri);
    }
    match args.first() {
        Some(&"query") => {
            let wanted = match flag("--where") {
                Some(w) => match w.strip_prefix("name='").and_then(|w| w.strip_suffix('\'')) {
                    Some(name) => Some(name.to_string()),
                    None => {
                        return ShellOutput::fail(
                            1,
                            "Error: only --where \"name='KEY'\" is supported",
                        )
                    }
                },
                None => None,
            };
            let projection: Vec<&str> = flag("--projection")
                .map(|p| p.split(':').collect())
                .unwrap_or_else(|| vec!["name", "value"]);
            let mut rows = inner.sim.app_keys();
            rows.sort();
            rows.dedup();
            let mut out = String::new();
            let mut n = 0;
            for key in rows
                .iter()
                .filter(|k| wanted.as_ref().is_none_or(|w| w == *k))
            {
                let Ok(Some(value)) = inner.sim.read_app(key) else {
                    continue;
                };
                let cols: Vec<String> = projection
                    .iter()
                    .map(|c| match *c {
                        "name" => format!("name={key}"),
                        "value" => format!("value={value}"),
                        other => format!("{other}=NULL"),
                    })
                    .collect();
                out.push_str(&format!("Row: {n} {}\n", cols.join(", ")));
                n += 1;
            }
            if n == 0 {
                out.push_str("No result found.\n");
            }
            ShellOutput::ok(out)
        }
        Some(&"insert") | Some(&"update") => {
            let mut name = None;
            let mut value = None;
            for (i, a) in args.iter().enumerate() {
                if *a != "--bind" {
                    continue;
                }
                let bind = args.get(i + 1).copied().unwrap_or("");
                if let Some(v) = bind.strip_prefix("name:s:") {
                    name = Some(v);
                } else if let Some(v) = bind.strip_prefix("value:s:") {
                    value = Some(v);
                }
            }
            match (name, value) {
                (Some(ALARMS_KEY), _) => ShellOutput::fail(1, "Error: app/alarms is read-only"),
                (Some(n), Some(v)) if n.starts_with("app/") => {
                    write(inner, n, v);
                    ShellOutput::ok(Vec::new())
                }
                _ => ShellOutput::fail(1, "Error: bind name:s:app/KEY and value:s:VALUE"),
            }
        }
        _ => ShellOutput::fail(1, "usage: content [query|insert] --uri URI ..."),
    }
}

/// A URI whose authority no provider on the phone has: Content.java's
/// `Command.execute()` (frameworks/base cmds/content) throws
/// `IllegalStateException("Could not find provider: " + authority)` when
/// ActivityManager's `getContentProviderExternal` finds none, prints
/// `Error while accessing provider:` and the stack trace on stderr, and
/// exits 0. The trace's frames are the command's own two; their line
/// numbers vary by build and are left out, as Java prints a frame without
/// line information.
fn no_provider(uri: &str) -> ShellOutput {
    let authority = uri
        .strip_prefix("content://")
        .unwrap_or(uri)
        .split('/')
        .next()
        .unwrap_or_default();
    ShellOutput {
        stdout: Vec::new(),
        stderr: format!(
            "Error while accessing provider:{authority}\njava.lang.IllegalStateException: Could not find provider: {authority}\n\tat com.android.commands.content.Content$Command.execute(Content.java)\n\tat com.android.commands.content.Content.main(Content.java)\n"
        )
        .into_bytes(),
        exit: 0,
    }
}
