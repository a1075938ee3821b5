//! The apps' own databases as files on the virtual phone: Pro Expense's
//! `accounting.db`, Joplin's `joplin.sqlite` and Tasks.org's `database`,
//! each at its real path ([`AppDb::path`]), in step with the simulator's
//! records as the app keeps its file in step with its screens.
//!
//! The app writes: whenever its records changed since it last wrote (a
//! tap that saved, a task loaded), the next command or sync request finds
//! the file rendered afresh ([`appdb::render`]). Rendering is lazy: a
//! fingerprint of the app's rows (and the clock) says whether anything
//! changed, so a run of thousands of commands renders only after changes.
//!
//! The app reads: a file changed from outside (`adb push` into its
//! directory, `rm`, `sqlite3`) is not seen until the app starts again —
//! `am force-stop PKG`, or a launch (`monkey -p PKG`, `am start`). Then, if
//! the directory's files differ from what the app last wrote, they are
//! loaded ([`appdb::load`]) into the records and the file is written afresh
//! from them. An emptied directory is an app whose data was cleared: its
//! tables start empty. A file the app cannot read empties its tables too,
//! with a warning (a real app would crash or start over).
//!
//! `pm clear PKG` removes everything in `/data/data/PKG/` and empties the
//! app's tables; the app makes its database again when it is next
//! launched.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use super::state::{Inner, Written};
use super::user::APP_DATA;
use crate::appdb::{self, AppDb};

/// The file permissions an app's database is made with (`-rw-rw----`).
const DB_MODE: u32 = 0o660;

/// The app's records (and the clock they are rendered against), hashed.
fn fingerprint(inner: &Inner, app: AppDb) -> u64 {
    let mut hasher = DefaultHasher::new();
    let state = inner.sim.state();
    state.clock.now_ms.hash(&mut hasher);
    for table in app.tables() {
        for record in state.records().rows(*table) {
            record.id.hash(&mut hasher);
            record.fields.hash(&mut hasher);
        }
    }
    hasher.finish()
}

/// Every app whose records changed since it last wrote writes its
/// database: run before any command or sync request reads a file.
pub(super) fn sync(inner: &mut Inner) {
    for app in AppDb::ALL {
        let now = fingerprint(inner, app);
        if inner.appdata.written.get(&app).map(|w| w.fingerprint) != Some(now) {
            write(inner, app, now);
        }
    }
}

/// The app writes its database from the records, whole: its `-wal` and
/// journal go (it checkpointed). A render that fails (a row the app could
/// not hold) leaves the directory as it is, with a warning, and is not
/// tried again until the records change.
fn write(inner: &mut Inner, app: AppDb, fingerprint: u64) {
    make_dirs(inner, app);
    let state = inner.sim.state();
    match appdb::render(app, state.records(), &state.clock) {
        Ok(bytes) => {
            let path = app.path();
            let mtime = mtime(inner);
            for suffix in ["-wal", "-shm", "-journal"] {
                remove_file(inner, &format!("{path}{suffix}"));
            }
            inner.files.insert(path.clone(), bytes);
            inner.modes.insert(path.clone(), DB_MODE);
            inner.mtimes.insert(path, mtime);
        }
        // A row the app could not hold: its file stays as it last wrote it.
        Err(e) => tracing::warn!(
            app = app.package(),
            error = %e,
            "virtual phone: the app cannot write its database"
        ),
    }
    let files = dir_files(inner, app);
    inner
        .appdata
        .written
        .insert(app, Written { fingerprint, files });
}

/// The phone's time in seconds: when an app writes its file.
fn mtime(inner: &Inner) -> u32 {
    u32::try_from(inner.sim.state().clock.now_ms.div_euclid(1000)).unwrap_or(inner.booted)
}

/// `/data/data/PKG` and its `databases/`, which the app made when it was
/// installed.
fn make_dirs(inner: &mut Inner, app: AppDb) {
    inner.dirs.insert(APP_DATA.to_string());
    inner.dirs.insert(format!("{APP_DATA}/{}", app.package()));
    inner.dirs.insert(app.dir());
}

fn remove_file(inner: &mut Inner, path: &str) {
    inner.files.remove(path);
    inner.modes.remove(path);
    inner.mtimes.remove(path);
}

/// The files directly in the app's `databases/` directory.
fn dir_files(inner: &Inner, app: AppDb) -> BTreeMap<String, Vec<u8>> {
    let dir = format!("{}/", app.dir());
    inner
        .files
        .range(dir.clone()..)
        .take_while(|(path, _)| path.starts_with(&dir))
        .filter_map(|(path, bytes)| {
            let name = path.strip_prefix(&dir)?;
            (!name.contains('/')).then(|| (name.to_string(), bytes.clone()))
        })
        .collect()
}

/// The app starts (again): if its directory changed since it last wrote,
/// it reads what is there into its records, then writes its database
/// afresh. Packages without a database of their own have nothing to read.
pub(super) fn reload(inner: &mut Inner, package: &str) {
    let Some(app) = AppDb::for_package(package) else {
        return;
    };
    sync(inner);
    let files = dir_files(inner, app);
    let unchanged = inner
        .appdata
        .written
        .get(&app)
        .is_some_and(|w| w.files == files);
    if unchanged {
        return;
    }
    let tables = match appdb::load(app, &files) {
        Ok(tables) => tables,
        Err(e) => {
            tracing::warn!(
                app = package,
                error = %e,
                "virtual phone: the app cannot read its database; it starts empty"
            );
            app.tables().iter().map(|t| (*t, Vec::new())).collect()
        }
    };
    for (table, rows) in tables {
        inner.sim.records_mut().replace(table, rows);
    }
    let now = fingerprint(inner, app);
    write(inner, app, now);
}

/// The app is launched: it reads its directory as [`reload`] does, and
/// makes its database if there is none (after `pm clear`).
pub(super) fn launched(inner: &mut Inner, package: &str) {
    let Some(app) = AppDb::for_package(package) else {
        return;
    };
    reload(inner, package);
    if !inner.files.contains_key(&app.path()) {
        let now = fingerprint(inner, app);
        write(inner, app, now);
    }
}

/// `pm clear PKG`: everything in `/data/data/PKG/` goes; an app with a
/// database of its own has empty tables, and no file until it is launched.
pub(super) fn clear(inner: &mut Inner, package: &str) {
    let top = format!("{APP_DATA}/{package}/");
    let paths: Vec<String> = inner
        .files
        .keys()
        .filter(|p| p.starts_with(&top))
        .cloned()
        .collect();
    for path in paths {
        remove_file(inner, &path);
    }
    inner.dirs.retain(|d| !d.starts_with(&top));
    inner.modes.retain(|p, _| !p.starts_with(&top));
    let Some(app) = AppDb::for_package(package) else {
        return;
    };
    for table in app.tables() {
        inner.sim.records_mut().replace(*table, Vec::new());
    }
    let fingerprint = fingerprint(inner, app);
    inner.appdata.written.insert(
        app,
        Written {
            fingerprint,
            files: BTreeMap::new(),
        },
    );
}

/// A new task state (or a fresh phone): each app's directory holds only
/// what the new records render to, at the next command.
pub(super) fn reset(inner: &mut Inner) {
    inner.appdata.written.clear();
    for app in AppDb::ALL {
        let top = format!("{APP_DATA}/{}/", app.package());
        inner.files.retain(|p, _| !p.starts_with(&top));
        inner.modes.retain(|p, _| !p.starts_with(&top));
        inner.mtimes.retain(|p, _| !p.starts_with(&top));
        inner.dirs.retain(|d| !d.starts_with(&top));
        make_dirs(inner, app);
    }
}
