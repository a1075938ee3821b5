//! Joplin (`net.cozic.joplin`): tables `notes`, `folders` (notebooks) and
//! `notes_normalized` (kept in step with `notes`, for search) of
//! `databases/joplin.sqlite`. The records say `notebook = "Work"`; the app
//! keeps a note's `parent_id`, the id of a folder whose title that is. Ids
//! are 32 hex digits, times ms. Schema: docs/apps.md "The apps' own
//! databases" names the source files and commits it was read at.

use std::collections::BTreeMap;

use rusqlite::{params, Connection};
use sha2::Digest;

use super::fill::{ms, Fill};
use crate::records::{Clock, Record};

/// The three tables as Joplin 3.0.1's migrations leave them (database
/// version 46; laurent22/joplin at 0715340dc043, `packages/lib/JoplinDatabase.ts`
/// and `packages/lib/services/database/migrations/42.ts`–`46.ts`), and the
/// version table the app checks. Migration 46 gives `notes` a
/// `deleted_time`, which AndroidWorld's `JoplinNote` lacks: its reader
/// (`SELECT *` into the row type) refuses that column on the app's own
/// file, and on ours. Not written: the full-text tables (`notes_fts` and
/// its triggers), tags, resources and settings.
pub(super) const SCHEMA: &str = r#"
CREATE TABLE notes (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL DEFAULT "", title TEXT NOT NULL DEFAULT "", body TEXT NOT NULL DEFAULT "", created_time INT NOT NULL, updated_time INT NOT NULL, is_conflict INT NOT NULL DEFAULT 0, latitude NUMERIC NOT NULL DEFAULT 0, longitude NUMERIC NOT NULL DEFAULT 0, altitude NUMERIC NOT NULL DEFAULT 0, author TEXT NOT NULL DEFAULT "", source_url TEXT NOT NULL DEFAULT "", is_todo INT NOT NULL DEFAULT 0, todo_due INT NOT NULL DEFAULT 0, todo_completed INT NOT NULL DEFAULT 0, source TEXT NOT NULL DEFAULT "", source_application TEXT NOT NULL DEFAULT "", application_data TEXT NOT NULL DEFAULT "", `order` NUMERIC NOT NULL DEFAULT 0, user_created_time INT NOT NULL DEFAULT 0, user_updated_time INT NOT NULL DEFAULT 0, encryption_cipher_text TEXT NOT NULL DEFAULT "", encryption_applied INT NOT NULL DEFAULT 0, markup_language INT NOT NULL DEFAULT 1, is_shared INT NOT NULL DEFAULT 0, share_id TEXT NOT NULL DEFAULT "", conflict_original_id TEXT NOT NULL DEFAULT "", master_key_id TEXT NOT NULL DEFAULT "", user_data TEXT NOT NULL DEFAULT "", deleted_time INT NOT NULL DEFAULT 0);
CREATE TABLE folders (id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT "", created_time INT NOT NULL, updated_time INT NOT NULL, user_created_time INT NOT NULL DEFAULT 0, user_updated_time INT NOT NULL DEFAULT 0, encryption_cipher_text TEXT NOT NULL DEFAULT "", encryption_applied INT NOT NULL DEFAULT 0, parent_id TEXT NOT NULL DEFAULT "", is_shared INT NOT NULL DEFAULT 0, share_id TEXT NOT NULL DEFAULT "", master_key_id TEXT NOT NULL DEFAULT "", icon TEXT NOT NULL DEFAULT "", user_data TEXT NOT NULL DEFAULT "", deleted_time INT NOT NULL DEFAULT 0);
CREATE TABLE notes_normalized (id TEXT NOT NULL, title TEXT NOT NULL DEFAULT "", body TEXT NOT NULL DEFAULT "", user_created_time INT NOT NULL DEFAULT 0, user_updated_time INT NOT NULL DEFAULT 0, is_todo INT NOT NULL DEFAULT 0, todo_completed INT NOT NULL DEFAULT 0, parent_id TEXT NOT NULL DEFAULT "", latitude NUMERIC NOT NULL DEFAULT 0, longitude NUMERIC NOT NULL DEFAULT 0, altitude NUMERIC NOT NULL DEFAULT 0, source_url TEXT NOT NULL DEFAULT "", todo_due INT NOT NULL DEFAULT 0);
CREATE TABLE version (version INT NOT NULL, table_fields_version INT NOT NULL DEFAULT 0);
INSERT INTO version VALUES (46, 0);
"#;

/// A note's id as the app writes one: 32 hex digits, ours from its record id.
fn note_id(id: u64) -> String {
    format!("{id:032x}")
}

/// A notebook's id: 32 hex digits from its title, the same in every file.
fn folder_id(title: &str) -> String {
    let digest = sha2::Sha256::digest(format!("droidscore folder {title}").as_bytes());
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// What Joplin's search reads: the text lowercased.
fn normalized(text: &str) -> String {
    text.to_lowercase()
}

pub(super) fn write(conn: &Connection, rows: &[Record], clock: &Clock) -> Result<(), Fill> {
    conn.execute_batch("DELETE FROM notes; DELETE FROM notes_normalized; DELETE FROM folders;")?;
    let mut folders: BTreeMap<String, i64> = BTreeMap::new();
    let mut note = conn.prepare(
        "INSERT INTO notes (id, parent_id, title, body, created_time, updated_time, user_created_time, user_updated_time) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?5, ?5)",
    )?;
    let mut search = conn.prepare(
        "INSERT INTO notes_normalized (id, parent_id, title, body, user_created_time, user_updated_time) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
    )?;
    for r in rows {
        let notebook = r.text("notebook");
        let updated = ms(r, "updated_time")?.unwrap_or(clock.now_ms);
        let first = folders.entry(notebook.clone()).or_insert(updated);
        *first = (*first).min(updated);
        let (id, parent) = (note_id(r.id), folder_id(&notebook));
        let (title, body) = (r.text("title"), r.text("body"));
        note.execute(params![id, parent, title, body, updated])?;
        search.execute(params![
            id,
            parent,
            normalized(&title),
            normalized(&body),
            updated
        ])?;
    }
    let mut folder = conn.prepare(
        "INSERT INTO folders (id, title, created_time, updated_time, user_created_time, user_updated_time) \
         VALUES (?1, ?2, ?3, ?3, ?3, ?3)",
    )?;
    for (title, created) in &folders {
        folder.execute(params![folder_id(title), title, created])?;
    }
    Ok(())
}

pub(super) fn read(conn: &Connection) -> rusqlite::Result<Vec<Record>> {
    let mut select = conn.prepare(
        "SELECT notes.id, notes.title, notes.body, folders.title, notes.updated_time \
         FROM notes LEFT JOIN folders ON folders.id = notes.parent_id \
         WHERE notes.is_conflict = 0 AND notes.deleted_time = 0 ORDER BY notes.rowid",
    )?;
    let rows = select.query_map([], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, String>(2)?,
            row.get::<_, Option<String>>(3)?,
            row.get::<_, i64>(4)?,
        ))
    })?;
    let mut records = Vec::new();
    for (at, row) in rows.enumerate() {
        let (id, title, body, notebook, updated) = row?;
        // Ours parse back; a phone's own random ids count from the top.
        let id = u64::from_str_radix(&id, 16).unwrap_or(u64::MAX - at as u64);
        let mut r = Record {
            id,
            ..Record::default()
        };
        r.fields.insert("title".into(), title);
        r.fields.insert("body".into(), body);
        if let Some(notebook) = notebook {
            r.fields.insert("notebook".into(), notebook);
        }
        r.fields.insert("updated_time".into(), updated.to_string());
        records.push(r);
    }
    Ok(records)
}
