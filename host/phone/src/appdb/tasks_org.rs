//! Tasks.org (`org.tasks`): table `tasks` of `databases/database`. The
//! records say `completed = "1"` and `importance = "high"`; the app keeps
//! the time of completion in ms (0: open) and a priority 0–3 (0 high,
//! 3 none). A task deleted in the app stays as a row with `deleted` set:
//! it is no record. Schema: docs/apps.md "The apps' own databases" names
//! the source files and commits it was read at.

use rusqlite::{params, Connection};

use super::fill::{ms, value, Fill};
use crate::records::units::{completed, importance, importance_name};
use crate::records::{Clock, Record};

/// The `tasks` table as Room creates it at database version 88, the
/// createSql, indices and identity hash of the exported schema
/// (`app/schemas/com.todoroo.astrid.dao.Database/88.json`, tasks/tasks at
/// ee21cc660eb5, 13.6.3 = AndroidWorld's APK 130605). The app's other
/// tables (tags, alarms, CalDAV, …) are not written: no template reads them.
pub(super) const SCHEMA: &str = "\
CREATE TABLE IF NOT EXISTS `tasks` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `title` TEXT, \
`importance` INTEGER NOT NULL, `dueDate` INTEGER NOT NULL, `hideUntil` INTEGER NOT NULL, \
`created` INTEGER NOT NULL, `modified` INTEGER NOT NULL, `completed` INTEGER NOT NULL, \
`deleted` INTEGER NOT NULL, `notes` TEXT, `estimatedSeconds` INTEGER NOT NULL, \
`elapsedSeconds` INTEGER NOT NULL, `timerStart` INTEGER NOT NULL, `notificationFlags` INTEGER NOT NULL, \
`lastNotified` INTEGER NOT NULL, `recurrence` TEXT, `repeat_from` INTEGER NOT NULL DEFAULT 0, \
`calendarUri` TEXT, `remoteId` TEXT, `collapsed` INTEGER NOT NULL, `parent` INTEGER NOT NULL, \
`order` INTEGER, `read_only` INTEGER NOT NULL DEFAULT 0);
CREATE UNIQUE INDEX IF NOT EXISTS `t_rid` ON `tasks` (`remoteId`);
CREATE INDEX IF NOT EXISTS `active_and_visible` ON `tasks` (`completed`, `deleted`, `hideUntil`);
CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT);
INSERT OR REPLACE INTO room_master_table (id,identity_hash) VALUES(42, 'a2597380bdfaeeb040d40bab2fc653c1');
PRAGMA user_version = 88;
";

pub(super) fn write(conn: &Connection, rows: &[Record], clock: &Clock) -> Result<(), Fill> {
    conn.execute("DELETE FROM tasks", [])?;
    let mut insert = conn.prepare(
        "INSERT INTO tasks (_id, title, importance, dueDate, hideUntil, created, modified, completed, \
         deleted, notes, estimatedSeconds, elapsedSeconds, timerStart, notificationFlags, lastNotified, \
         recurrence, repeat_from, calendarUri, remoteId, collapsed, parent, `order`, read_only) \
         VALUES (?1, ?2, ?3, ?4, 0, ?5, ?5, ?6, 0, ?7, 0, 0, 0, 0, 0, NULL, 0, NULL, ?8, 0, 0, NULL, 0)",
    )?;
    for r in rows {
        let importance = value("importance", importance(&r.text("importance")))?;
        let done = value("completed", completed(&r.text("completed")))?;
        let due = ms(r, "due")?.unwrap_or(0);
        let now = clock.now_ms;
        insert.execute(params![
            r.id as i64,
            r.get("title"),
            importance,
            due,
            now,
            if done { now } else { 0 },
            r.get("notes"),
            format!("droidscore-{}", r.id),
        ])?;
    }
    Ok(())
}

pub(super) fn read(conn: &Connection) -> rusqlite::Result<Vec<Record>> {
    let mut select = conn.prepare(
        "SELECT _id, title, importance, dueDate, completed, notes FROM tasks WHERE deleted = 0 ORDER BY _id",
    )?;
    let rows = select.query_map([], |row| {
        let mut r = Record {
            id: row.get::<_, i64>(0)? as u64,
            ..Record::default()
        };
        if let Some(title) = row.get::<_, Option<String>>(1)? {
            r.fields.insert("title".into(), title);
        }
        r.fields
            .insert("importance".into(), importance_name(row.get(2)?));
        let due: i64 = row.get(3)?;
        if due != 0 {
            r.fields.insert("due".into(), due.to_string());
        }
        let completed: i64 = row.get(4)?;
        r.fields.insert(
            "completed".into(),
            if completed > 0 { "1" } else { "0" }.into(),
        );
        if let Some(notes) = row.get::<_, Option<String>>(5)? {
            r.fields.insert("notes".into(), notes);
        }
        Ok(r)
    })?;
    rows.collect()
}
