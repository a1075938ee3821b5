//! The apps' own databases on a phone over adb (`appdb`): reading them for
//! an oracle and writing an episode's initial rows, as AndroidWorld does on
//! its emulator (google-research/android_world `env/adb_utils.py`,
//! `utils/file_utils.py`, `task_evals/utils/sqlite_utils.py` at
//! d9c569f764b3): become root, pull the whole `databases/` directory (the
//! database with its `-wal` and `-shm`), read or edit the copy here, then
//! `rm -r DIR/*`, push the one file back, `chmod 777` it and `am force-stop`
//! the app so it opens the file again.
//!
//! Root, in the order tried: adbd already root (`whoami` says `root`); `adb
//! root`, which a userdebug build (the emulator images) honours; `su 0`, on
//! a rooted phone; `run-as PACKAGE`, for an app built debuggable. A phone
//! that allows none skips the templates over these apps, saying what each
//! answered.

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine;

use super::access::Access;
use super::shell::quote;
use super::transport::AdbError;
use super::AdbPhone;
use crate::appdb::{self, AppDb};
use crate::records::{Clock, Record, Records, Table};
use crate::PhoneError;

/// Where files travel through on a phone whose adbd is not root.
const STAGING: &str = "/data/local/tmp/droidscore-appdb";

impl AdbPhone {
    /// How this phone reaches apps' private files: asked once, then kept.
    pub fn app_access(&mut self) -> Result<Access, PhoneError> {
        if let Some(access) = &self.app_access {
            return Ok(access.clone());
        }
        let access = self.find_access()?;
        tracing::info!(
            serial = self.serial(),
            ?access,
            "access to apps' own databases"
        );
        self.app_access = Some(access.clone());
        Ok(access)
    }

    fn whoami(&mut self) -> Result<String, PhoneError> {
        Ok(self.shell("whoami")?.stdout_text().trim().to_string())
    }

    fn find_access(&mut self) -> Result<Access, PhoneError> {
        let mut said = Vec::new();
        let who = self.whoami()?;
        if who == "root" {
            return Ok(Access::Root);
        }
        said.push(format!("adbd runs as {who:?}"));
        // adbd's restart drops the connection and every `adb forward` with
        // it (an on-device model server's among them): they are set again.
        let forwards = self.transport.forwards().unwrap_or_default();
        match self.transport.root() {
            Ok(()) => {
                // A userdebug adbd restarts as root and the transport comes
                // back; a production one stays as it was.
                let back = self.transport.wait_for_device(Duration::from_secs(15));
                self.noting_loss(back)?;
                for (local, remote) in &forwards {
                    let again = self.transport.forward(local, remote);
                    self.noting_loss(again)?;
                }
                let who = self.whoami()?;
                if who == "root" {
                    return Ok(Access::Root);
                }
                said.push(format!(
                    "after `adb root` still {who:?} (a production build)"
                ));
            }
            // A phone that does not answer is gone, not unrootable.
            Err(e @ (AdbError::Lost { .. } | AdbError::Timeout { .. })) => {
                self.noting_loss(Err::<(), _>(e))?
            }
            Err(e) => said.push(format!("`adb root` failed: {e}")),
        }
        let su = self.shell("su 0 id -u")?;
        if su.status == 0 && su.stdout_text().trim() == "0" {
            return Ok(Access::Su);
        }
        said.push(format!(
            "`su 0` exited {}: {}",
            su.status,
            su.all_text().trim()
        ));
        Ok(Access::Denied(said.join("; ")))
    }

    /// Why the app's records cannot be read or written on this phone, if
    /// they cannot.
    pub fn app_data_refused(&mut self, app: AppDb) -> Result<Option<String>, PhoneError> {
        Ok(match self.app_access()? {
            Access::Root | Access::Su => None,
            Access::Denied(said) => Some(format!(
                "{}'s records are in its own database ({}), which this phone's shell cannot read without root: {said}; `run-as {}` needs a debuggable build of the app",
                app.package(),
                app.path(),
                app.package()
            )),
        })
    }

    /// The app's `databases/` directory: file name → bytes. Empty when the
    /// directory is (the app never ran, or its data was cleared).
    pub fn pull_app_files(&mut self, app: AppDb) -> Result<BTreeMap<String, Vec<u8>>, PhoneError> {
        let access = self.app_access()?;
        if let Some(why) = self.app_data_refused(app)? {
            return Err(PhoneError::Unsupported(why));
        }
        let dir = app.dir();
        let mut files = BTreeMap::new();
        for name in self.list_files(&access, &dir)? {
            let path = format!("{dir}/{name}");
            let bytes = match access {
                Access::Root => {
                    let answer = self.transport.pull(&path);
                    self.noting_loss(answer)?
                }
                _ => self.su_read(&path)?,
            };
            files.insert(name, bytes);
        }
        Ok(files)
    }

    /// The files in `dir` (`ls -1`, as AndroidWorld lists it before it
    /// clears a directory); none when there is no such directory.
    fn list_files(&mut self, access: &Access, dir: &str) -> Result<Vec<String>, PhoneError> {
        let su = if *access == Access::Su { "su 0 " } else { "" };
        let out = self.shell(&format!("{su}ls -1 {}", quote(dir)))?;
        if out.status != 0 {
            return Ok(Vec::new());
        }
        Ok(out
            .stdout_text()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect())
    }

    fn su_read(&mut self, path: &str) -> Result<Vec<u8>, PhoneError> {
        let text = self.shell_ok(&format!("su 0 base64 {}", quote(path)))?;
        let joined: String = text.split_whitespace().collect();
        base64::engine::general_purpose::STANDARD
            .decode(joined)
            .map_err(|e| PhoneError::Device(format!("{path}: base64 from the phone: {e}")))
    }

    /// The app's records as its database on the phone holds them.
    pub fn read_app_records(&mut self, table: Table) -> Result<Vec<Record>, PhoneError> {
        let app = AppDb::for_table(table)
            .ok_or_else(|| PhoneError::Device(format!("{table} is kept in no app's database")))?;
        let files = self.pull_app_files(app)?;
        let tables = appdb::load(app, &files).map_err(|e| PhoneError::Device(e.to_string()))?;
        Ok(tables
            .into_iter()
            .find(|(t, _)| *t == table)
            .map(|(_, rows)| rows)
            .unwrap_or_default())
    }

    /// Put `records`' rows of the app's tables in its database on the
    /// phone, its schema and other tables kept, and make the app read it
    /// again: AndroidWorld's sequence (pull, edit the copy, `rm -r DIR/*`,
    /// push, `chmod 777`, `am force-stop`).
    pub fn write_app_records(
        &mut self,
        app: AppDb,
        records: &Records,
        clock: &Clock,
    ) -> Result<(), PhoneError> {
        let files = self.pull_app_files(app)?;
        let bytes = appdb::rewrite(app, &files, records, clock)
            .map_err(|e| PhoneError::Device(e.to_string()))?;
        let (dir, path) = (app.dir(), app.path());
        match self.app_access()? {
            Access::Root => {
                if !files.is_empty() {
                    self.shell_ok(&format!("rm -r {}/*", quote(&dir)))?;
                }
                self.shell_ok(&format!("mkdir -p {}", quote(&dir)))?;
                let answer = self.transport.push(&bytes, &path);
                self.noting_loss(answer)?;
                self.shell_ok(&format!("chmod 777 {}", quote(&path)))?;
            }
            Access::Su => {
                let staged = format!("{STAGING}-{}", app.file());
                let answer = self.transport.push(&bytes, &staged);
                self.noting_loss(answer)?;
                let script = format!(
                    "rm -rf {d}/*; mkdir -p {d} && cp {s} {p} && chmod 777 {p}; rm -f {s}",
                    d = quote(&dir),
                    s = quote(&staged),
                    p = quote(&path)
                );
                self.shell_ok(&format!("su 0 sh -c {}", quote(&script)))?;
            }
            Access::Denied(_) => unreachable!("pull_app_files refused it"),
        }
        self.shell_ok(&format!("am force-stop {}", quote(app.package())))?;
        Ok(())
    }
}
