use std::collections::{BTreeMap, BTreeSet};

use super::android_world::{BEYOND_ROW_TYPES, ROW_TYPES};
use super::*;
use crate::records::{Clock, Records, Table};

fn fields(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn world() -> (Records, Clock) {
    let clock = Clock::default();
    let mut records = Records::default();
    let rows: Vec<(Table, &[(&str, &str)])> = vec![
        (
            Table::Expenses,
            &[
                ("name", "Lunch"),
                ("amount", "12.50"),
                ("category", "Food"),
                ("date", "-1d 12:40"),
            ],
        ),
        (
            Table::Expenses,
            &[
                ("name", "Rent"),
                ("amount", "$900"),
                ("category", "housing"),
                ("note", "May"),
                ("date", "-3d 09:00"),
            ],
        ),
        (
            Table::Notes,
            &[
                ("title", "Grocery list"),
                ("body", "Milk, eggs"),
                ("notebook", "Personal"),
                ("updated_time", "-1d 18:20"),
            ],
        ),
        (
            Table::Notes,
            &[
                ("title", "Ünïcode Title"),
                ("body", "x"),
                ("notebook", "Work"),
                ("updated_time", "-2d 11:45"),
            ],
        ),
        (
            Table::Tasks,
            &[
                ("title", "Renew passport"),
                ("notes", "Photos first"),
                ("due", "+5d 09:00"),
                ("importance", "high"),
            ],
        ),
        (
            Table::Tasks,
            &[("title", "Clean the oven"), ("completed", "1")],
        ),
        (
            Table::SimpleEvents,
            &[
                ("title", "Dentist"),
                ("location", "Main St 4"),
                ("start", "+1d 09:00"),
                ("end", "+1d 10:00"),
            ],
        ),
        (
            Table::SimpleEvents,
            &[("title", "Call mum"), ("start", "today 18:30")],
        ),
    ];
    for (table, pairs) in rows {
        let complete = records.complete(table, fields(pairs), &clock).unwrap();
        records.insert(table, complete);
    }
    (records, clock)
}

fn dir(app: AppDb, bytes: Vec<u8>) -> BTreeMap<String, Vec<u8>> {
    BTreeMap::from([(app.file().to_string(), bytes)])
}

#[test]
fn every_app_table_reads_back_from_its_database_as_it_was_written() {
    let (records, clock) = world();
    for app in AppDb::ALL {
        let bytes = render(app, &records, &clock).unwrap();
        assert!(bytes.starts_with(b"SQLite format 3\0"), "{app:?}");
        let read = load(app, &dir(app, bytes)).unwrap();
        for (table, rows) in read {
            assert_eq!(rows, records.rows(table), "{app:?} {table}");
        }
    }
}

#[test]
fn the_loader_keeps_what_the_app_keeps_in_the_records_own_words() {
    let (records, _) = world();
    let rent = &records.rows(Table::Expenses)[1];
    assert_eq!(rent.text("amount"), "900.00");
    assert_eq!(rent.text("category"), "Housing");
    let oven = &records.rows(Table::Tasks)[1];
    assert_eq!(
        (oven.text("completed"), oven.text("importance")),
        ("1".into(), "none".into())
    );
}

#[test]
fn the_app_keeps_its_own_units() {
    let (records, clock) = world();
    let bytes = render(AppDb::ProExpense, &records, &clock).unwrap();
    let conn = file::open(AppDb::ProExpense, &dir(AppDb::ProExpense, bytes))
        .unwrap()
        .unwrap();
    let rows: Vec<(i64, i64)> = conn
        .prepare("SELECT amount, category FROM expense ORDER BY expense_id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows, [(1250, 3), (90000, 4)], "cents; Food 3, Housing 4");
    let bytes = render(AppDb::TasksOrg, &records, &clock).unwrap();
    let conn = file::open(AppDb::TasksOrg, &dir(AppDb::TasksOrg, bytes))
        .unwrap()
        .unwrap();
    let rows: Vec<(i64, i64)> = conn
        .prepare("SELECT importance, completed FROM tasks ORDER BY _id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        rows,
        [(0, 0), (3, clock.now_ms)],
        "priority 0 high, 3 none; completed a time"
    );
}

#[test]
fn the_columns_are_android_worlds_but_the_one_joplin_added_in_3_0() {
    let (records, clock) = world();
    for (app, table, columns) in ROW_TYPES {
        let bytes = render(app, &records, &clock).unwrap();
        let conn = file::open(app, &dir(app, bytes)).unwrap().unwrap();
        let select = conn.prepare(&format!("SELECT * FROM {table}")).unwrap();
        let ours: BTreeSet<&str> = select.column_names().collect();
        let theirs: BTreeSet<&str> = columns.iter().copied().collect();
        let extra: Vec<&str> = ours.difference(&theirs).copied().collect();
        let expected: Vec<&str> = BEYOND_ROW_TYPES
            .iter()
            .filter(|(t, _)| *t == table)
            .map(|(_, c)| *c)
            .collect();
        assert_eq!(
            extra, expected,
            "{table}: columns beyond AndroidWorld's row type"
        );
        assert_eq!(
            theirs.difference(&ours).collect::<Vec<_>>(),
            Vec::<&&str>::new(),
            "{table}: columns AndroidWorld's row type wants"
        );
    }
}

#[test]
fn a_value_the_app_cannot_hold_is_refused_naming_the_table_and_column() {
    let clock = Clock::default();
    let records = Records::default();
    for (table, column, bad) in [
        (Table::Expenses, "amount", "12.505"),
        (Table::Expenses, "amount", "twelve"),
        (Table::Expenses, "category", "Utilities"),
        (Table::Tasks, "importance", "urgent"),
        (Table::SimpleEvents, "start", "1700000000001"),
    ] {
        let err = records
            .complete(table, fields(&[(column, bad)]), &clock)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(&format!("{table}.{column}: ")), "{err}");
        assert!(err.contains(bad), "{err}");
    }
}

#[test]
fn a_cleared_app_has_empty_tables_and_a_file_that_is_no_database_is_an_error() {
    for app in AppDb::ALL {
        let read = load(app, &BTreeMap::new()).unwrap();
        assert!(read.iter().all(|(_, rows)| rows.is_empty()), "{app:?}");
        let err = load(app, &dir(app, b"not a database".to_vec())).unwrap_err();
        assert!(err.to_string().starts_with(&app.path()), "{err}");
    }
}

#[test]
fn a_database_in_wal_mode_is_read_with_its_log() {
    let (records, clock) = world();
    let app = AppDb::ProExpense;
    let tmp = std::env::temp_dir().join(format!("droidscore-appdb-test-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let path = tmp.join(app.file());
    let _ = std::fs::remove_file(&path);
    std::fs::write(&path, render(app, &records, &clock).unwrap()).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    conn.execute("UPDATE expense SET amount = 1299 WHERE name = 'Lunch'", [])
        .unwrap();
    let wal = std::fs::read(tmp.join(format!("{}-wal", app.file()))).unwrap();
    let main = std::fs::read(&path).unwrap();
    drop(conn);
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(!wal.is_empty());
    let mut files = dir(app, main);
    files.insert(format!("{}-wal", app.file()), wal);
    let read = load(app, &files).unwrap();
    assert_eq!(
        read[0].1[0].text("amount"),
        "12.99",
        "the change is in the log only"
    );
}
