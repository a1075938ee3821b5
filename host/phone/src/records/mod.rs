//! The phone's own records — contacts, SMS, call log, calendar events and
//! shared-storage files — kept the way Android's content providers expose
//! them, so one predicate reads the simulator's store and a real phone's
//! `content query` output alike.
//!
//! A [`Table`] is one kind of record; its columns are the provider's own
//! names (`display_name`, `address`, `dtstart`, …). Every record has an
//! `_id`. Values are text, as `content query` prints them; a column that is
//! absent is `NULL`. [`Records`] is the simulator's store: the apps read and
//! write it, `content query|insert|delete` on the virtual phone answer from
//! it, and oracles filter it with [`Filter`].
//!
//! `content` is the command's output format (rendering and parsing); `uri`
//! maps the providers' URIs onto the tables.

pub mod content;
mod files;
mod filter;
mod time;
pub mod units;
mod uri;

pub(crate) use files::{files_from_stat, list_command, STORAGE};
pub use filter::{digits, fold, same_number, Filter, FilterError, Match};
pub(crate) use time::{civil, day_label, parse_when};
pub use time::{Clock, WhenError};
pub(crate) use uri::{project, view_for_uri};
pub use uri::{Source, View};
#[cfg(test)]
pub(crate) use {files::DIRS, time::NOW_MS};

use std::collections::BTreeMap;

/// One kind of record.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Table {
    /// One row per contact: name, one phone number, one email, starred.
    Contacts,
    /// `content://sms`: inbox (type 1) and sent (type 2) messages.
    Sms,
    /// `content://call_log/calls`: type 1 incoming, 2 outgoing, 3 missed.
    Calls,
    /// `content://com.android.calendar/events`: times in ms since the epoch, UTC.
    Events,
    /// Files under `/storage/emulated/0`, `path` relative to it.
    Files,
    /// Joplin's notes. This and the two tables below live in the app's own
    /// SQLite database, as the real app keeps it (`appdb`): read on a
    /// rooted phone by pulling that file.
    Notes,
    /// Tasks.org's to-do items (`org.tasks`, its own database).
    Tasks,
    /// Pro Expense's expenses.
    Expenses,
    /// Simple Calendar Pro's events (`com.simplemobiletools.calendar.pro`,
    /// its own database, not the system calendar provider that
    /// [`Table::Events`] is): `start` and `end` in ms, which the app keeps
    /// in seconds.
    SimpleEvents,
    /// Notifications posted by apps that keep no other record of them (a
    /// delivery app's promotion, a "security alert"): shown in the shade
    /// with those the simulator derives from unread messages and missed
    /// calls. A phone's shell lists its own only through `dumpsys
    /// notification`; the virtual phone serves these at
    /// `content://droidscore.sim/records/notifications`.
    Notifications,
}

impl Table {
    pub const ALL: [Table; 10] = [
        Table::Contacts,
        Table::Sms,
        Table::Calls,
        Table::Events,
        Table::Files,
        Table::Notes,
        Table::Tasks,
        Table::Expenses,
        Table::SimpleEvents,
        Table::Notifications,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Table::Contacts => "contacts",
            Table::Sms => "sms",
            Table::Calls => "calls",
            Table::Events => "events",
            Table::Files => "files",
            Table::Notes => "notes",
            Table::Tasks => "tasks",
            Table::Expenses => "expenses",
            Table::SimpleEvents => "simple_events",
            Table::Notifications => "notifications",
        }
    }

    /// The columns a record of this table may hold, `_id` first; the
    /// canonical projection an oracle queries.
    pub fn columns(self) -> &'static [&'static str] {
        match self {
            // `number`/`type` as `content://contacts/phones` names them.
            Table::Contacts => &[
                "_id",
                "display_name",
                "number",
                "type",
                "email",
                "starred",
                "company",
            ],
            Table::Sms => &[
                "_id",
                "thread_id",
                "address",
                "date",
                "read",
                "type",
                "body",
            ],
            Table::Calls => &["_id", "number", "date", "duration", "type", "name"],
            Table::Events => &[
                "_id",
                "calendar_id",
                "title",
                "eventLocation",
                "description",
                "dtstart",
                "dtend",
            ],
            Table::Files => &["_id", "path", "size", "mtime"],
            Table::Notes => &["_id", "title", "body", "notebook", "updated_time"],
            // Tasks.org's own words: `notes` the details, `importance` one
            // of high, medium, low, none (its 0–3).
            Table::Tasks => &["_id", "title", "notes", "due", "completed", "importance"],
            Table::Expenses => &["_id", "name", "amount", "category", "note", "date"],
            Table::SimpleEvents => &["_id", "title", "location", "description", "start", "end"],
            Table::Notifications => &["_id", "package", "title", "text", "date"],
        }
    }

    /// Columns given a value when a record leaves them out.
    fn default_of(self, column: &str) -> Option<&'static str> {
        match (self, column) {
            (Table::Contacts, "starred") => Some("0"),
            (Table::Contacts, "type") => Some("2"),
            (Table::Sms, "read") => Some("1"),
            (Table::Sms, "type") => Some("1"),
            (Table::Calls, "duration") => Some("0"),
            (Table::Calls, "type") => Some("1"),
            (Table::Events, "calendar_id") => Some("1"),
            (Table::Files, "size") => Some("0"),
            (Table::Notes, "notebook") => Some("Personal"),
            // Pro Expense keeps a category id on every expense; one saved
            // without a category is filed under Others (id 1).
            (Table::Expenses, "category") => Some("Others"),
            (Table::Tasks, "completed") => Some("0"),
            (Table::Tasks, "importance") => Some("none"),
            _ => None,
        }
    }

    /// Columns whose values are times (`date`, `dtstart`, …): a record may
    /// give them as `today 09:30`, `-2h`, … (see [`parse_when`]).
    pub(crate) fn is_time(self, column: &str) -> bool {
        matches!(
            (self, column),
            (Table::Sms | Table::Calls, "date")
                | (Table::Events, "dtstart" | "dtend")
                | (Table::Files, "mtime")
                | (Table::Notes, "updated_time")
                | (Table::Tasks, "due")
                | (Table::Expenses | Table::Notifications, "date")
                | (Table::SimpleEvents, "start" | "end")
        )
    }
}

impl Table {
    /// A value as the app that keeps this table in its own database holds
    /// it, put back in the records' words: what typing `value` into the
    /// app's field and saving keeps (`$12.5` becomes `12.50`), or why the
    /// app will not take it. Other tables keep values as given.
    pub fn keep(self, column: &str, value: &str) -> Result<String, String> {
        match (self, column) {
            (Table::Expenses, "amount") => units::cents(value).map(units::dollars),
            (Table::Expenses, "category") => units::category_id(value).map(units::category_name),
            (Table::Tasks, "importance") => units::importance(value).map(units::importance_name),
            (Table::Tasks, "completed") => {
                units::completed(value).map(|done| if done { "1" } else { "0" }.to_string())
            }
            (Table::SimpleEvents, "start" | "end") => {
                units::seconds(value).map(|s| (s * 1000).to_string())
            }
            _ => Ok(value.to_string()),
        }
    }
}

impl std::str::FromStr for Table {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Table::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                format!(
                    "{s:?} is not a record table (one of {})",
                    Table::ALL.map(Table::name).join(", ")
                )
            })
    }
}

impl std::fmt::Display for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One record: its `_id` and its other columns (absent = `NULL`).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Record {
    pub id: u64,
    pub fields: BTreeMap<String, String>,
}

impl Record {
    /// A column's value; `_id` is the id.
    pub fn get(&self, column: &str) -> Option<String> {
        if column == "_id" {
            return Some(self.id.to_string());
        }
        self.fields.get(column).cloned()
    }

    /// The value as text, empty for `NULL`.
    pub fn text(&self, column: &str) -> String {
        self.get(column).unwrap_or_default()
    }
}

/// One record a task starts with: its table and its columns as the task
/// file gives them (times may be relative, see `records::parse_when`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InitialRecord {
    pub table: Table,
    #[serde(flatten)]
    pub fields: BTreeMap<String, String>,
}

/// A record, as a task file or a `content insert` gives it, that the table
/// cannot hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("{table} has no column {column:?} (its columns: {})", table.columns().join(", "))]
    Column { table: Table, column: String },
    /// A value the app that keeps the table cannot hold (an amount with
    /// three decimals, a category Pro Expense does not have).
    #[error("{table}.{column}: {why}")]
    App {
        table: Table,
        column: String,
        why: String,
    },
    #[error("{table}.{column}: {source}")]
    When {
        table: Table,
        column: String,
        #[source]
        source: WhenError,
    },
}

/// The simulator's records. Ids are assigned per table from 1, as SQLite's
/// rowids are, and never reused.
#[derive(Debug, Clone, Default)]
pub struct Records {
    tables: BTreeMap<Table, Vec<Record>>,
    next_id: BTreeMap<Table, u64>,
}

impl Records {
    /// Every record of `table`, in insertion order.
    pub fn rows(&self, table: Table) -> &[Record] {
        self.tables.get(&table).map(Vec::as_slice).unwrap_or(&[])
    }

    pub fn get(&self, table: Table, id: u64) -> Option<&Record> {
        self.rows(table).iter().find(|r| r.id == id)
    }

    /// Check and complete `fields` for `table`: known columns only, times
    /// resolved against `clock`, defaults filled, SMS threads by address.
    pub fn complete(
        &self,
        table: Table,
        mut fields: BTreeMap<String, String>,
        clock: &Clock,
    ) -> Result<BTreeMap<String, String>, RecordError> {
        for (column, value) in fields.iter_mut() {
            if column == "_id" || !table.columns().contains(&column.as_str()) {
                return Err(RecordError::Column {
                    table,
                    column: column.clone(),
                });
            }
            if table.is_time(column) {
                *value = clock
                    .resolve(value)
                    .map_err(|source| RecordError::When {
                        table,
                        column: column.clone(),
                        source,
                    })?
                    .to_string();
            }
            *value = table.keep(column, value).map_err(|why| RecordError::App {
                table,
                column: column.clone(),
                why,
            })?;
        }
        for column in table.columns() {
            if let Some(default) = table.default_of(column) {
                fields
                    .entry(column.to_string())
                    .or_insert_with(|| default.to_string());
            }
        }
        if table == Table::Sms && !fields.contains_key("thread_id") {
            let address = fields.get("address").cloned().unwrap_or_default();
            fields.insert("thread_id".into(), self.thread_for(&address).to_string());
        }
        if table == Table::SimpleEvents && !fields.contains_key("end") {
            // An event given no end lasts no time (the app keeps one always).
            if let Some(start) = fields.get("start").cloned() {
                fields.insert("end".into(), start);
            }
        }
        if matches!(table, Table::Sms | Table::Notifications) && !fields.contains_key("date") {
            fields.insert("date".into(), clock.now_ms.to_string());
        }
        if let (Table::Files, Some(path)) = (table, fields.get("path")) {
            let free = self.free_path(path);
            fields.insert("path".into(), free);
        }
        Ok(fields)
    }

    /// `path`, or the first of `name (1).ext`, `name (2).ext`, … that no
    /// file holds: MediaStore's answer to a second file of the same name
    /// (two photos in the same second).
    fn free_path(&self, path: &str) -> String {
        let taken = |p: &str| self.rows(Table::Files).iter().any(|r| r.text("path") == p);
        if !taken(path) {
            return path.to_string();
        }
        let (dir, name) = path.rsplit_once('/').map_or(("", path), |(d, n)| (d, n));
        let (stem, ext) = match name.rsplit_once('.') {
            Some((s, e)) if !s.is_empty() => (s, format!(".{e}")),
            _ => (name, String::new()),
        };
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        (1..)
            .map(|n| format!("{prefix}{stem} ({n}){ext}"))
            .find(|p| !taken(p))
            .expect("some number is free")
    }

    /// The SMS thread of `address` (digits compared): an existing thread's
    /// id, else a new one.
    pub(crate) fn thread_for(&self, address: &str) -> u64 {
        let wanted = digits(address);
        let sms = self.rows(Table::Sms);
        if let Some(r) = sms.iter().find(|r| digits(&r.text("address")) == wanted) {
            return r.text("thread_id").parse().unwrap_or(1);
        }
        sms.iter()
            .filter_map(|r| r.text("thread_id").parse::<u64>().ok())
            .max()
            .unwrap_or(0)
            + 1
    }

    /// Add a record whose fields are already complete; returns its id.
    pub fn insert(&mut self, table: Table, fields: BTreeMap<String, String>) -> u64 {
        let next = self.next_id.entry(table).or_insert(1);
        let id = *next;
        *next += 1;
        self.tables
            .entry(table)
            .or_default()
            .push(Record { id, fields });
        id
    }

    /// Set one column; `None` clears it. Returns the old value, or `None`
    /// when there is no such record.
    pub fn update(
        &mut self,
        table: Table,
        id: u64,
        column: &str,
        value: Option<&str>,
    ) -> Option<Option<String>> {
        let record = self
            .tables
            .get_mut(&table)?
            .iter_mut()
            .find(|r| r.id == id)?;
        Some(match value {
            Some(v) => record.fields.insert(column.to_string(), v.to_string()),
            None => record.fields.remove(column),
        })
    }

    /// Put `rows` in place of every record of `table` (an app that read
    /// its database again); ids stay as given, and a later insert still
    /// takes an id none of them, nor any record before, had.
    pub fn replace(&mut self, table: Table, rows: Vec<Record>) {
        let top = rows.iter().map(|r| r.id).max().unwrap_or(0);
        let next = self.next_id.entry(table).or_insert(1);
        *next = (*next).max(top + 1);
        self.tables.insert(table, rows);
    }

    /// Remove a record; returns it.
    pub fn delete(&mut self, table: Table, id: u64) -> Option<Record> {
        let rows = self.tables.get_mut(&table)?;
        let at = rows.iter().position(|r| r.id == id)?;
        Some(rows.remove(at))
    }

    /// The records of `table` that `filter` accepts.
    pub fn select<'a>(
        &'a self,
        table: Table,
        filter: &'a Filter,
    ) -> impl Iterator<Item = &'a Record> {
        self.rows(table).iter().filter(move |r| filter.accepts(r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_message_joins_the_thread_of_its_address_by_digits() {
        let clock = Clock::default();
        let mut records = Records::default();
        let a = records
            .complete(
                Table::Sms,
                fields(&[("address", "+1 650-555-0142"), ("body", "hi")]),
                &clock,
            )
            .unwrap();
        assert_eq!(a["thread_id"], "1");
        records.insert(Table::Sms, a);
        let b = records
            .complete(Table::Sms, fields(&[("address", "16505550142")]), &clock)
            .unwrap();
        assert_eq!(b["thread_id"], "1", "same number, other spelling");
        let c = records
            .complete(Table::Sms, fields(&[("address", "5550199")]), &clock)
            .unwrap();
        assert_eq!(c["thread_id"], "2");
        assert_eq!(c["read"], "1", "a default");
    }

    #[test]
    fn an_unknown_column_or_a_bad_time_is_refused_by_name() {
        let clock = Clock::default();
        let records = Records::default();
        let err = records
            .complete(Table::Contacts, fields(&[("phone", "1")]), &clock)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("\"phone\"") && err.contains("display_name"),
            "{err}"
        );
        let err = records
            .complete(Table::Events, fields(&[("dtstart", "someday")]), &clock)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("events.dtstart:"), "{err}");
    }

    #[test]
    fn ids_are_never_reused() {
        let mut records = Records::default();
        let a = records.insert(Table::Contacts, BTreeMap::new());
        records.delete(Table::Contacts, a);
        let b = records.insert(Table::Contacts, BTreeMap::new());
        assert_eq!((a, b), (1, 2));
    }
}
