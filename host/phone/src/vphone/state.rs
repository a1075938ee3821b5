//! What the virtual phone holds behind its lock: the simulator, the loaded
//! instance, the files pushed and written, the background jobs and the
//! control switches; how a task variant's simulator is made; and the product
//! name it gives as a phone.

use std::collections::BTreeMap;

use crate::apps::{PhoneSetup, SetupError};
use crate::sim::SimPhone;

/// The product name in the CNXN banner and `getprop`; the adb backend knows a
/// virtual phone by `ro.product.manufacturer`.
pub(crate) const MANUFACTURER: &str = crate::adb::VIRTUAL_PHONE_MANUFACTURER;
pub const MODEL: &str = "droidscore_sim";

/// What a dump request answers instead of dumping, in the fail-dumps mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpFailure {
    /// `ERROR: could not get idle state.` (the UI never went quiet for 1 s).
    Idle,
    /// `ERROR: null root node returned by UiTestAutomationBridge.`
    NullRoot,
}

/// The instance the virtual phone is in.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct Loaded {
    pub task: String,
    pub variant: String,
    pub episode_seed: u64,
}

#[derive(Debug)]
pub(super) struct Inner {
    pub(super) sim: SimPhone,
    pub(super) loaded: Option<Loaded>,
    /// Files on the phone: dumps, screenshots, pushed files.
    pub(super) files: BTreeMap<String, Vec<u8>>,
    /// Their permission bits (`chmod`, or as pushed), where known.
    pub(super) modes: BTreeMap<String, u32>,
    /// Their mtimes as pushed (sync DONE's value), where known; others
    /// date from `booted`.
    pub(super) mtimes: BTreeMap<String, u32>,
    /// When this phone was made (seconds since the epoch): the mtime of its
    /// directories and of files its commands wrote.
    pub(super) booted: u32,
    /// Background commands, recorded and never run.
    pub(super) jobs: Vec<Job>,
    pub(super) fail_dumps: u32,
    pub(super) failure: DumpFailure,
    pub(super) adbkeyboard: bool,
    /// `getprop` names another maker: the adb backend treats it as a real phone.
    pub(super) pose_as_phone: bool,
    /// Keys whose writes are accepted and ignored, as a phone ignores a
    /// protected setting.
    pub(super) ignored_writes: std::collections::BTreeSet<String>,
    /// An agent's episode, recorded from the phone's side; while there is
    /// one, the `droidscore-sim` controls are hidden.
    pub(super) trajectory: Option<super::trajectory::Trajectory>,
    /// Directories `mkdir` made (others exist as a stored file's parents).
    pub(super) dirs: std::collections::BTreeSet<String>,
    /// The current input method's id (`ime set`); ADBKeyBoard types only
    /// while it is the current one, as its receiver lives in the IME.
    pub(super) ime: String,
    /// adbd runs as root (`adb root`); it starts as `shell`, as an
    /// emulator's does.
    pub(super) root: bool,
    /// A production (`user`) build, as a person's own phone is
    /// (`droidscore-sim production on`): adbd refuses `adb root`, and there
    /// is no `su`.
    pub(super) production: bool,
    /// What the apps last wrote to their own databases (`appdata`).
    pub(super) appdata: AppData,
}

/// The keyboard a phone comes with.
pub(super) const LATIN_IME: &str = "com.android.inputmethod.latin/.LatinIME";

/// A write from outside the UI (`settings put`, `svc`, `cmd …`), unless
/// this key's writes are ignored.
pub(super) fn write(inner: &mut Inner, key: &str, value: &str) {
    if !inner.ignored_writes.contains(key) {
        inner.sim.write_setting(key, value);
    }
}

/// A background command, as started.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Job {
    pub pid: u32,
    /// The command's words, `nohup` included.
    pub argv: Vec<String>,
    /// The working directory it was started in.
    pub cwd: String,
    /// Where fds 0, 1 and 2 were redirected (absolute paths), if anywhere.
    pub stdin: Option<String>,
    pub stdout: Option<String>,
    pub stderr: Option<String>,
    pub running: bool,
}

impl Inner {
    /// Directories: the usual push targets, and any parent of a stored file.
    pub(super) fn is_dir(&self, path: &str) -> bool {
        let dir = path.trim_end_matches('/');
        FIXED_DIRS.contains(&dir)
            || self.dirs.contains(dir)
            || self.files.keys().any(|f| f.starts_with(&format!("{dir}/")))
    }

    /// A file's (mode, size, mtime) as sync STAT gives it, or a directory's
    /// (its mode as `chmod` set it, if it did).
    pub(super) fn stat(&self, path: &str) -> Option<(u32, u32, u32)> {
        if let Some(data) = self.files.get(path) {
            let mode = self.modes.get(path).copied().unwrap_or(0o644);
            let mtime = self.mtimes.get(path).copied().unwrap_or(self.booted);
            return Some((0o100000 | mode, data.len() as u32, mtime));
        }
        let dir = path.trim_end_matches('/');
        let mode = self
            .modes
            .get(dir)
            .map_or(DIR_MODE, |m| 0o040000 | (m & 0o7777));
        self.is_dir(path).then_some((mode, 4096, self.booted))
    }

    /// The names directly in directory `path` (files and directories),
    /// sorted and once each, after `.` and `..`; None when it is no directory.
    pub(super) fn entries(&self, path: &str) -> Option<Vec<String>> {
        if !self.is_dir(path) {
            return None;
        }
        let dir = format!("{}/", path.trim_end_matches('/'));
        let below = self
            .files
            .keys()
            .map(String::as_str)
            .chain(FIXED_DIRS.iter().copied())
            .chain(self.dirs.iter().map(String::as_str))
            .filter_map(|p| p.strip_prefix(&dir))
            .filter_map(|rest| rest.split('/').next())
            .filter(|name| !name.is_empty())
            .map(str::to_owned);
        let names: std::collections::BTreeSet<String> = below.collect();
        Some(
            [".".to_owned(), "..".to_owned()]
                .into_iter()
                .chain(names)
                .collect(),
        )
    }
}

/// The directories that exist with nothing in them: the usual push targets
/// and their parents ("" is `/`).
pub(super) const FIXED_DIRS: [&str; 5] = ["/sdcard", "/data/local/tmp", "/data/local", "/data", ""];
/// A directory's st_mode (`drwxrwx--x`, as /sdcard is on a phone).
const DIR_MODE: u32 = 0o040771;

/// Why `droidscore-sim load` (or `sim serve --task`) loaded nothing.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("no task {0:?}")]
    NoTask(String),
    #[error("task {task:?} has no variant {variant:?}")]
    NoVariant { task: String, variant: String },
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error("{0}")]
    Instance(String),
}

/// Where the virtual phone finds a task variant's initial state when it is
/// told to load one: the task suite, which this crate knows nothing of.
pub trait Setups: Send + Sync + std::fmt::Debug {
    /// The phone setup of `task`'s `variant`, its parameters drawn with
    /// `instance_seed` (0: the task as written), for an episode with
    /// `episode_seed`.
    fn setup(
        &self,
        task: &str,
        variant: &str,
        instance_seed: u64,
        episode_seed: u64,
    ) -> Result<PhoneSetup, LoadError>;
}

/// A fresh simulator in a task variant's initial state.
pub(super) fn instance_phone(
    setups: &dyn Setups,
    task: &str,
    variant: &str,
    episode_seed: u64,
    instance_seed: u64,
) -> Result<(SimPhone, Loaded), LoadError> {
    let sim = SimPhone::new(setups.setup(task, variant, instance_seed, episode_seed)?)?;
    let loaded = Loaded {
        task: task.to_string(),
        variant: variant.to_string(),
        episode_seed,
    };
    Ok((sim, loaded))
}

/// What each app last left in its `databases/` directory.
#[derive(Debug, Default)]
pub(super) struct AppData {
    pub(super) written: BTreeMap<crate::appdb::AppDb, Written>,
}

#[derive(Debug, Clone)]
pub(super) struct Written {
    /// The app's records (and clock) when it last wrote.
    pub(super) fingerprint: u64,
    /// Its `databases/` directory just after: file name → bytes.
    pub(super) files: BTreeMap<String, Vec<u8>>,
}
