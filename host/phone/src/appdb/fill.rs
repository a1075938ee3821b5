//! Writing one app's rows: why a row could not be written (a value the
//! app cannot hold, or SQLite's refusal), shared by the apps' codecs.

use crate::records::Record;

/// Why a row could not be written.
#[derive(Debug)]
pub(super) enum Fill {
    Value { column: String, why: String },
    Sql(rusqlite::Error),
}

impl From<rusqlite::Error> for Fill {
    fn from(e: rusqlite::Error) -> Fill {
        Fill::Sql(e)
    }
}

/// A column's value, or the column's name and why it is not one the app
/// can hold.
pub(super) fn value<T>(column: &str, parsed: Result<T, String>) -> Result<T, Fill> {
    parsed.map_err(|why| Fill::Value {
        column: column.to_string(),
        why,
    })
}

/// A record's time column in ms (`None` when absent).
pub(super) fn ms(record: &Record, column: &str) -> Result<Option<i64>, Fill> {
    record
        .get(column)
        .map(|v| {
            value(
                column,
                v.parse::<i64>()
                    .map_err(|_| format!("{v:?} is not a time in ms")),
            )
        })
        .transpose()
}
