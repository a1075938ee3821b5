//! Pro Expense (`com.arduia.expense`): table `expense` of
//! `databases/accounting.db`. The records say `amount = "12.50"` and
//! `category = "Food"`; the app keeps integer cents and a category id 1–11.
//! Schema and ids: docs/apps.md "The apps' own databases" names the source
//! files and commits they were read at.

use rusqlite::{params, Connection};

use super::fill::{ms, value, Fill};
use crate::records::units::{category_id, category_name, cents, dollars};
use crate::records::{Clock, Record};

/// The app's schema as Room creates it: `ExpenseEnt` and `BackupEnt` of
/// database version 6, the createSql of the exported schema
/// (`app/schemas/com.arduia.expense.data.local.ProExpenseDatabase/6.json`,
/// arduia/ProExpense at 5a5fcae920a9, v1.0.0-beta05 = AndroidWorld's APK 11).
pub(super) const SCHEMA: &str = "\
CREATE TABLE IF NOT EXISTS `expense` (`expense_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, \
`name` TEXT, `amount` INTEGER NOT NULL, `category` INTEGER NOT NULL, `note` TEXT, \
`created_date` INTEGER NOT NULL, `modified_date` INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS `backup` (`backup_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, \
`name` TEXT NOT NULL, `path` TEXT NOT NULL, `created_date` INTEGER NOT NULL, \
`item_total` INTEGER NOT NULL, `worker_id` TEXT NOT NULL, `is_completed` INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT);
INSERT OR REPLACE INTO room_master_table (id,identity_hash) VALUES(42, '27085a6798a70569f4984067458b86b2');
PRAGMA user_version = 6;
";

pub(super) fn write(conn: &Connection, rows: &[Record], clock: &Clock) -> Result<(), Fill> {
    conn.execute("DELETE FROM expense", [])?;
    let mut insert = conn.prepare(
        "INSERT INTO expense (expense_id, name, amount, category, note, created_date, modified_date) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
    )?;
    for r in rows {
        let amount = value("amount", cents(&r.text("amount")))?;
        let category = value("category", category_id(&r.text("category")))?;
        let date = ms(r, "date")?.unwrap_or(clock.now_ms);
        insert.execute(params![
            r.id as i64,
            r.get("name"),
            amount,
            category,
            r.get("note"),
            date
        ])?;
    }
    Ok(())
}

pub(super) fn read(conn: &Connection) -> rusqlite::Result<Vec<Record>> {
    let mut select = conn.prepare(
        "SELECT expense_id, name, amount, category, note, created_date FROM expense ORDER BY expense_id",
    )?;
    let rows = select.query_map([], |row| {
        let mut r = Record {
            id: row.get::<_, i64>(0)? as u64,
            ..Record::default()
        };
        let category = category_name(row.get(3)?);
        if let Some(name) = row.get::<_, Option<String>>(1)? {
            r.fields.insert("name".into(), name);
        }
        r.fields.insert("amount".into(), dollars(row.get(2)?));
        r.fields.insert("category".into(), category);
        if let Some(note) = row.get::<_, Option<String>>(4)? {
            r.fields.insert("note".into(), note);
        }
        r.fields
            .insert("date".into(), row.get::<_, i64>(5)?.to_string());
        Ok(r)
    })?;
    rows.collect()
}
