//! The apps' own databases, as the real apps keep them: Pro Expense's
//! `accounting.db`, Joplin's `joplin.sqlite`, Tasks.org's `database` and
//! Simple Calendar Pro's `events.db`,
//! each at its real path under `/data/data/<package>/databases/`, in its
//! real schema and units (an expense's amount in integer cents, its
//! category an integer 1–11, a to-do's completion a time in ms).
//!
//! The simulator's screens and oracles speak the records' own words
//! ([`Table::Expenses`] with `amount = "12.50"`, `category = "Food"`); each
//! app's file here is the other side of that, one codec per app: [`render`]
//! writes the rows into a fresh database of the app's schema, [`load`] reads
//! a database (with its `-wal`, as a rooted phone gives it) back into rows.
//! A value the app cannot hold (an amount with three decimals, a category
//! it does not have) is refused naming the table and column.
//!
//! The virtual phone keeps these files as real files a rooted `adb pull`
//! reads and `adb push` replaces; the adb backend reads and writes them on
//! a rooted phone the way AndroidWorld does.

use std::collections::BTreeMap;

use crate::records::{Clock, Record, Records, Table};
use fill::Fill;

pub use app::{AppDb, AppDbError};

/// The app's database holding `records`' rows of its tables, as the bytes
/// of one SQLite file (no `-wal`: written whole, as after a checkpoint).
pub fn render(app: AppDb, records: &Records, clock: &Clock) -> Result<Vec<u8>, AppDbError> {
    let mut conn = file::fresh(app)?;
    fill(app, &conn, records, clock)?;
    file::bytes(app, &mut conn)
}

/// `files` (an app's `databases/` directory as pulled from a phone) with
/// every row of the app's tables replaced by `records`' own, the app's
/// schema and its other tables kept: what a rooted phone gets pushed back
/// before an episode. The result is one file, its `-wal` folded in.
pub fn rewrite(
    app: AppDb,
    files: &BTreeMap<String, Vec<u8>>,
    records: &Records,
    clock: &Clock,
) -> Result<Vec<u8>, AppDbError> {
    let mut conn = match file::open(app, files)? {
        Some(conn) => conn,
        None => file::fresh(app)?,
    };
    fill(app, &conn, records, clock)?;
    file::bytes(app, &mut conn)
}

/// The rows of the app's tables in `files` (its `databases/` directory:
/// file name → bytes; the database and, where present, its `-wal`). A
/// directory without the database is an app whose data was cleared: its
/// tables are empty.
pub fn load(
    app: AppDb,
    files: &BTreeMap<String, Vec<u8>>,
) -> Result<Vec<(Table, Vec<Record>)>, AppDbError> {
    let Some(conn) = file::open(app, files)? else {
        return Ok(app.tables().iter().map(|t| (*t, Vec::new())).collect());
    };
    let rows = match app {
        AppDb::ProExpense => expense::read(&conn),
        AppDb::Joplin => joplin::read(&conn),
        AppDb::TasksOrg => tasks_org::read(&conn),
        AppDb::SimpleCalendar => simple_calendar::read(&conn),
    }
    .map_err(|e| file::sql_error(app, e))?;
    Ok(vec![(app.tables()[0], rows)])
}

/// Every row of the app's tables replaced by `records`' own.
fn fill(
    app: AppDb,
    conn: &rusqlite::Connection,
    records: &Records,
    clock: &Clock,
) -> Result<(), AppDbError> {
    let table = app.tables()[0];
    let rows = records.rows(table);
    let result = match app {
        AppDb::ProExpense => expense::write(conn, rows, clock),
        AppDb::Joplin => joplin::write(conn, rows, clock),
        AppDb::TasksOrg => tasks_org::write(conn, rows, clock),
        AppDb::SimpleCalendar => simple_calendar::write(conn, rows, clock),
    };
    result.map_err(|e| match e {
        Fill::Value { column, why } => AppDbError::Value { table, column, why },
        Fill::Sql(e) => file::sql_error(app, e),
    })
}

pub mod android_world;
mod app;
mod expense;
mod file;
mod fill;
mod joplin;
mod simple_calendar;
mod tasks_org;

#[cfg(test)]
mod tests;
