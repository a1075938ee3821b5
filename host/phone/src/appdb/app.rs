//! Which apps keep their records in a database of their own, where it is
//! on the phone, and what goes wrong reading or writing one.

use crate::records::Table;

/// One app whose records live in its own SQLite database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AppDb {
    /// Pro Expense, `com.arduia.expense`: `databases/accounting.db`.
    ProExpense,
    /// Joplin, `net.cozic.joplin`: `databases/joplin.sqlite`.
    Joplin,
    /// Tasks.org, `org.tasks`: `databases/database`.
    TasksOrg,
    /// Simple Calendar Pro, `com.simplemobiletools.calendar.pro`:
    /// `databases/events.db`.
    SimpleCalendar,
}

/// A database an app could not have written, or a row it cannot hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppDbError {
    #[error("{table}.{column}: {why}")]
    Value {
        table: Table,
        column: String,
        why: String,
    },
    #[error("{file}: {why}")]
    File { file: String, why: String },
}

impl AppDb {
    pub const ALL: [AppDb; 4] = [
        AppDb::ProExpense,
        AppDb::Joplin,
        AppDb::TasksOrg,
        AppDb::SimpleCalendar,
    ];

    pub fn package(self) -> &'static str {
        match self {
            AppDb::ProExpense => "com.arduia.expense",
            AppDb::Joplin => "net.cozic.joplin",
            AppDb::TasksOrg => "org.tasks",
            AppDb::SimpleCalendar => "com.simplemobiletools.calendar.pro",
        }
    }

    /// The database file's name in [`AppDb::dir`].
    pub fn file(self) -> &'static str {
        match self {
            AppDb::ProExpense => "accounting.db",
            AppDb::Joplin => "joplin.sqlite",
            AppDb::TasksOrg => "database",
            AppDb::SimpleCalendar => "events.db",
        }
    }

    /// `/data/data/<package>/databases`.
    pub fn dir(self) -> String {
        format!("/data/data/{}/databases", self.package())
    }

    /// The database's full path on the phone.
    pub fn path(self) -> String {
        format!("{}/{}", self.dir(), self.file())
    }

    /// The record tables this app keeps.
    pub fn tables(self) -> &'static [Table] {
        match self {
            AppDb::ProExpense => &[Table::Expenses],
            AppDb::Joplin => &[Table::Notes],
            AppDb::TasksOrg => &[Table::Tasks],
            AppDb::SimpleCalendar => &[Table::SimpleEvents],
        }
    }

    /// The app that keeps `table`, if an app's own database does.
    pub fn for_table(table: Table) -> Option<AppDb> {
        AppDb::ALL.into_iter().find(|a| a.tables().contains(&table))
    }

    pub fn for_package(package: &str) -> Option<AppDb> {
        AppDb::ALL.into_iter().find(|a| a.package() == package)
    }
}
