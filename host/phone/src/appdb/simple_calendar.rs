//! Simple Calendar Pro (`com.simplemobiletools.calendar.pro`): table
//! `events` of `databases/events.db`. The records say `start` and `end` in
//! ms, as every time column does; the app keeps `start_ts` and `end_ts` in
//! seconds. Schema: docs/appdb.md names the source files and commit.

use rusqlite::{params, Connection};

use super::fill::{ms, value, Fill};
use crate::records::units::seconds;
use crate::records::{Clock, Record};

/// `Event` of database version 8 (SimpleMobileTools/Simple-Calendar at
/// d7fa01958355, 6.22.2 = AndroidWorld's APK 238, `models/Event.kt`,
/// `databases/EventsDatabase.kt`). The repository exports no Room schema,
/// so this is the table Room generates for that entity, in its field
/// order; a phone's own file, created by older versions and migrated, may
/// order the columns otherwise. The app's other tables (event types,
/// widgets, its tasks) are not written: no template reads them.
pub(super) const SCHEMA: &str = "\
CREATE TABLE IF NOT EXISTS `events` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `start_ts` INTEGER NOT NULL, \
`end_ts` INTEGER NOT NULL, `title` TEXT NOT NULL, `location` TEXT NOT NULL, `description` TEXT NOT NULL, \
`reminder_1_minutes` INTEGER NOT NULL, `reminder_2_minutes` INTEGER NOT NULL, `reminder_3_minutes` INTEGER NOT NULL, \
`reminder_1_type` INTEGER NOT NULL, `reminder_2_type` INTEGER NOT NULL, `reminder_3_type` INTEGER NOT NULL, \
`repeat_interval` INTEGER NOT NULL, `repeat_rule` INTEGER NOT NULL, `repeat_limit` INTEGER NOT NULL, \
`repetition_exceptions` TEXT NOT NULL, `attendees` TEXT NOT NULL, `import_id` TEXT NOT NULL, \
`time_zone` TEXT NOT NULL, `flags` INTEGER NOT NULL, `event_type` INTEGER NOT NULL, `parent_id` INTEGER NOT NULL, \
`last_updated` INTEGER NOT NULL, `source` TEXT NOT NULL, `availability` INTEGER NOT NULL, `color` INTEGER NOT NULL, \
`type` INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS `index_events_id` ON `events` (`id`);
PRAGMA user_version = 8;
";

pub(super) fn write(conn: &Connection, rows: &[Record], clock: &Clock) -> Result<(), Fill> {
    conn.execute("DELETE FROM events", [])?;
    let mut insert = conn.prepare(
        "INSERT INTO events (id, start_ts, end_ts, title, location, description, \
         reminder_1_minutes, reminder_2_minutes, reminder_3_minutes, reminder_1_type, reminder_2_type, \
         reminder_3_type, repeat_interval, repeat_rule, repeat_limit, repetition_exceptions, attendees, \
         import_id, time_zone, flags, event_type, parent_id, last_updated, source, availability, color, type) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, -1, -1, -1, 0, 0, 0, 0, 0, 0, '[]', '', '', 'UTC', 0, 1, 0, ?7, \
         'simple-calendar', 0, 0, 0)",
    )?;
    for r in rows {
        let start = ms(r, "start")?.unwrap_or(clock.now_ms);
        let end = ms(r, "end")?.unwrap_or(start);
        let start = value("start", seconds(&start.to_string()))?;
        let end = value("end", seconds(&end.to_string()))?;
        insert.execute(params![
            r.id as i64,
            start,
            end,
            r.text("title"),
            r.text("location"),
            r.text("description"),
            clock.now_ms,
        ])?;
    }
    Ok(())
}

pub(super) fn read(conn: &Connection) -> rusqlite::Result<Vec<Record>> {
    let mut select = conn.prepare(
        "SELECT id, title, location, description, start_ts, end_ts FROM events ORDER BY id",
    )?;
    let rows = select.query_map([], |row| {
        let mut r = Record {
            id: row.get::<_, i64>(0)? as u64,
            ..Record::default()
        };
        for (at, column) in [(1, "title"), (2, "location"), (3, "description")] {
            let text: String = row.get(at)?;
            if !text.is_empty() {
                r.fields.insert(column.into(), text);
            }
        }
        r.fields
            .insert("start".into(), (row.get::<_, i64>(4)? * 1000).to_string());
        r.fields
            .insert("end".into(), (row.get::<_, i64>(5)? * 1000).to_string());
        Ok(r)
    })?;
    rows.collect()
}
