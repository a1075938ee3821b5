//! Opening a store only to read it (`report`) never writes it: a missing
//! file is not created, an empty one stays empty, a current one keeps every
//! byte and its mtime, and an older one is read without being migrated
//! (issue 30 item 12: `report --store missing.sqlite` created a 28 KB store).

use std::path::Path;

use rusqlite::Connection;

use super::{test_support as t, Store, StoreError};

const BEFORE: &str = include_str!("../../../fixtures/stores/before-typed-records.sql");

/// The file's bytes and modification time.
fn snapshot(path: &Path) -> (Vec<u8>, std::time::SystemTime) {
    let bytes = std::fs::read(path).unwrap();
    (bytes, std::fs::metadata(path).unwrap().modified().unwrap())
}

#[test]
fn reading_a_missing_store_is_an_error_and_creates_no_file() {
    let dir = t::ScratchDir::new("read-missing");
    let path = dir.join("missing.sqlite");
    let e = Store::open_read_only(&path).unwrap_err();
    assert!(
        matches!(&e, StoreError::Missing { path: p } if *p == path),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        format!("run store {} does not exist", path.display())
    );
    assert!(!path.exists());
}

#[test]
fn reading_an_empty_file_leaves_it_empty_and_finds_no_runs() {
    let dir = t::ScratchDir::new("read-empty");
    let path = dir.join("empty.sqlite");
    std::fs::write(&path, b"").unwrap();
    let store = Store::open_read_only(&path).unwrap();
    assert_eq!(store.latest_run().unwrap(), None);
    drop(store);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
}

#[test]
fn reading_a_store_changes_no_byte_nor_its_mtime_and_cannot_write() {
    let dir = t::ScratchDir::new("read-current");
    let path = dir.join("run.sqlite");
    let store = Store::open(&path).unwrap();
    let run = t::run("r1", "2026-01-01T00:00:00Z");
    store.create_run(&run).unwrap();
    let episode = t::episode("r1", "wifi_on", "base", 0);
    store
        .record_episode(&episode, &t::steps(&episode, 2))
        .unwrap();
    drop(store);
    let before = snapshot(&path);
    std::thread::sleep(std::time::Duration::from_millis(20));

    let store = Store::open_read_only(&path).unwrap();
    assert_eq!(store.latest_run().unwrap().map(|r| r.id), Some("r1".into()));
    assert_eq!(store.episodes("r1").unwrap(), [episode]);
    let refused = store.create_run(&t::run("r2", "2026-01-02T00:00:00Z"));
    assert!(refused.is_err(), "a read-only store took a write");
    drop(store);
    assert!(snapshot(&path) == before, "the store changed");
}

#[test]
fn an_older_store_is_read_through_a_copy_and_stays_at_its_version() {
    let dir = t::ScratchDir::new("read-old");
    let path = dir.join("old.sqlite");
    Connection::open(&path)
        .unwrap()
        .execute_batch(BEFORE)
        .unwrap();
    let before = snapshot(&path);
    std::thread::sleep(std::time::Duration::from_millis(20));

    let store = Store::open_read_only(&path).unwrap();
    assert_eq!(store.runs().unwrap().len(), 2);
    assert_eq!(store.path(), path);
    drop(store);
    assert!(snapshot(&path) == before, "the store changed");
    let version: i64 = Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(version, 4, "migrated in place");
}
