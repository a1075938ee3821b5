//! AndroidWorld's reader of the apps' databases, as its own code reads
//! them (google-research/android_world `task_evals/utils/sqlite_utils.py`
//! at d9c569f764b3): `SELECT * FROM <table>` and each row passed to the
//! table's row type as keywords, so a column the row type does not name
//! fails the read (Python's `TypeError: __init__() got an unexpected keyword
//! argument`), and one it names but the table lacks takes its default.
//! Used to check that a file the virtual phone holds reads there as it
//! reads here.

use std::collections::BTreeMap;

use super::{file, AppDb, AppDbError};

/// AndroidWorld's row types (`task_evals/utils/sqlite_schema_utils.py`,
/// google-research/android_world at bb0114323f09): every field, so every
/// column `SELECT *` may return. `Expense`, `Task`, `JoplinNote`,
/// `JoplinFolder`, `JoplinNormalizedNote`, `CalendarEvent`.
pub const ROW_TYPES: [(AppDb, &str, &[&str]); 6] = [
    (
        AppDb::ProExpense,
        "expense",
        &[
            "name",
            "amount",
            "category",
            "note",
            "created_date",
            "modified_date",
            "expense_id",
        ],
    ),
    (
        AppDb::TasksOrg,
        "tasks",
        &[
            "title",
            "importance",
            "dueDate",
            "hideUntil",
            "created",
            "modified",
            "completed",
            "deleted",
            "notes",
            "estimatedSeconds",
            "elapsedSeconds",
            "timerStart",
            "notificationFlags",
            "lastNotified",
            "recurrence",
            "repeat_from",
            "calendarUri",
            "remoteId",
            "collapsed",
            "parent",
            "order",
            "read_only",
            "_id",
        ],
    ),
    (
        AppDb::Joplin,
        "notes",
        &[
            "parent_id",
            "title",
            "body",
            "created_time",
            "updated_time",
            "is_conflict",
            "latitude",
            "longitude",
            "altitude",
            "author",
            "source_url",
            "is_todo",
            "todo_due",
            "todo_completed",
            "source",
            "source_application",
            "application_data",
            "order",
            "user_created_time",
            "user_updated_time",
            "encryption_cipher_text",
            "encryption_applied",
            "markup_language",
            "is_shared",
            "share_id",
            "conflict_original_id",
            "master_key_id",
            "user_data",
            "id",
        ],
    ),
    (
        AppDb::Joplin,
        "folders",
        &[
            "title",
            "id",
            "created_time",
            "updated_time",
            "user_created_time",
            "user_updated_time",
            "deleted_time",
            "encryption_cipher_text",
            "encryption_applied",
            "parent_id",
            "is_shared",
            "share_id",
            "master_key_id",
            "icon",
            "user_data",
        ],
    ),
    (
        AppDb::Joplin,
        "notes_normalized",
        &[
            "parent_id",
            "title",
            "body",
            "latitude",
            "longitude",
            "altitude",
            "source_url",
            "is_todo",
            "todo_due",
            "todo_completed",
            "user_created_time",
            "user_updated_time",
            "id",
        ],
    ),
    (
        AppDb::SimpleCalendar,
        "events",
        &[
            "start_ts",
            "end_ts",
            "title",
            "location",
            "description",
            "repeat_interval",
            "repeat_rule",
            "reminder_1_minutes",
            "reminder_2_minutes",
            "reminder_3_minutes",
            "reminder_1_type",
            "reminder_2_type",
            "reminder_3_type",
            "repeat_limit",
            "repetition_exceptions",
            "attendees",
            "import_id",
            "time_zone",
            "flags",
            "event_type",
            "parent_id",
            "last_updated",
            "source",
            "availability",
            "color",
            "type",
            "id",
        ],
    ),
];

/// The one column the apps' own schemas have beyond AndroidWorld's row
/// types: Joplin 3.0.1's migration 46 adds `notes.deleted_time`, which
/// `JoplinNote` lacks (AndroidWorld's `_EXCLUDE_FIELD` leaves it out of the
/// folders it writes, and nothing of the notes it reads).
pub const BEYOND_ROW_TYPES: [(&str, &str); 1] = [("notes", "deleted_time")];

/// One row as AndroidWorld's row type holds it: every field, by name.
pub type Row = BTreeMap<String, rusqlite::types::Value>;

/// The rows of `table` in `files` (an app's pulled `databases/`), each with
/// exactly its row type's fields, or the error AndroidWorld's reader would
/// raise: a column its row type does not name.
pub fn read(
    app: AppDb,
    table: &str,
    files: &BTreeMap<String, Vec<u8>>,
) -> Result<Vec<Row>, AppDbError> {
    let fields = ROW_TYPES
        .iter()
        .find(|(a, t, _)| *a == app && *t == table)
        .map(|(_, _, f)| *f)
        .ok_or_else(|| AppDbError::File {
            file: app.path(),
            why: format!("AndroidWorld has no row type for {table}"),
        })?;
    let Some(conn) = file::open(app, files)? else {
        return Err(AppDbError::File {
            file: app.path(),
            why: "no such file (AndroidWorld: FileNotFoundError)".into(),
        });
    };
    let sql = |e: rusqlite::Error| file::sql_error(app, e);
    let mut select = conn
        .prepare(&format!("SELECT * FROM {table};"))
        .map_err(sql)?;
    let columns: Vec<String> = select.column_names().map(str::to_string).collect();
    if let Some(extra) = columns.iter().find(|c| !fields.contains(&c.as_str())) {
        return Err(AppDbError::File {
            file: app.path(),
            why: format!("{table}: the row type does not take the column {extra:?} (TypeError: unexpected keyword argument)"),
        });
    }
    let rows = select
        .query_map([], |r| {
            let mut row = Row::new();
            for (i, c) in columns.iter().enumerate() {
                row.insert(c.clone(), r.get::<_, rusqlite::types::Value>(i)?);
            }
            Ok(row)
        })
        .map_err(sql)?;
    rows.collect::<Result<_, _>>().map_err(sql)
}
