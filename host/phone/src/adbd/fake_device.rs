//! A phone with a handful of shell commands and a flat file table behind
//! the wire: what the wire tests beside the protocol and the real-adb tests
//! (host/tests/integration/adb/adbd.rs) serve, so that what they pin is the
//! protocol, not a phone.

use std::{collections::HashMap, sync::Mutex};

use super::{Device, DirEntry, ShellOutput, SyncFail};

/// A phone with a handful of commands and a flat file table.
#[derive(Debug, Default)]
pub struct FakeDevice {
    files: Mutex<HashMap<String, (u32, Vec<u8>)>>,
}

impl FakeDevice {
    /// What it says it is in its CNXN banner: the simulator's names, with
    /// shell v2.
    pub(crate) const BANNER: &str = "device::ro.product.name=droidscore_sim;ro.product.model=droidscore_sim;ro.product.device=droidscore_sim;features=shell_v2,cmd";

    /// Every byte value once, in order: what `bytes` prints.
    pub fn all_bytes() -> Vec<u8> {
        (0..=255).collect()
    }

    /// Puts a file at `path` as if pushed with `mode`.
    #[cfg(test)]
    pub(crate) fn put_file(&self, path: &str, mode: u32, data: &[u8]) {
        let mut files = self.files.lock().unwrap();
        files.insert(path.to_owned(), (mode, data.to_vec()));
    }

    /// The file at `path` (its mode and bytes), if any.
    pub fn file(&self, path: &str) -> Option<(u32, Vec<u8>)> {
        self.files.lock().unwrap().get(path).cloned()
    }
}

impl Device for FakeDevice {
    fn banner(&self) -> String {
        Self::BANNER.to_owned()
    }

    /// `echo ARGS`, `exit N`, `both` (a line on each stream), `bytes` (all 256
    /// byte values), `big N` (N bytes); anything else is "not found", 127.
    fn shell(&self, command: &str) -> ShellOutput {
        let out = |stdout: &[u8], stderr: &[u8], exit| ShellOutput {
            stdout: stdout.to_vec(),
            stderr: stderr.to_vec(),
            exit,
        };
        let (program, args) = command.split_once(' ').unwrap_or((command, ""));
        match program {
            "echo" => out(format!("{args}\n").as_bytes(), b"", 0),
            "exit" => out(b"", b"", args.parse().unwrap_or(2)),
            "both" => out(b"out\n", b"err\n", 0),
            "bytes" => out(&Self::all_bytes(), b"", 0),
            "big" => {
                let n: usize = args.parse().unwrap_or(0);
                let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
                out(&data, b"", 0)
            }
            _ => out(b"", format!("sh: {program}: not found\n").as_bytes(), 127),
        }
    }

    /// The mtime is not kept: `stat` gives every file the same one.
    fn push(&self, path: &str, mode: u32, _mtime: u32, data: Vec<u8>) -> Result<(), SyncFail> {
        if path.starts_with("/system/") {
            return Err("couldn't create file: Read-only file system".into());
        }
        self.files
            .lock()
            .unwrap()
            .insert(path.to_owned(), (mode, data));
        Ok(())
    }

    fn pull(&self, path: &str) -> Result<Vec<u8>, SyncFail> {
        self.file(path)
            .map(|(_, data)| data)
            .ok_or_else(|| "No such file or directory".into())
    }

    fn stat(&self, path: &str) -> Option<(u32, u32, u32)> {
        if path == "/" || path.ends_with('/') || path == "/data/local/tmp" {
            return Some((0o040771, 4096, 0));
        }
        let (mode, data) = self.file(path)?;
        Some((mode, data.len() as u32, 1_700_000_000))
    }

    /// The files directly in `path`, by name, after `.` and `..`; empty
    /// when no file is in it.
    fn list(&self, path: &str) -> Vec<DirEntry> {
        let dir = format!("{}/", path.trim_end_matches('/'));
        let mut names: Vec<(String, u32, u32)> = self
            .files
            .lock()
            .unwrap()
            .iter()
            .filter_map(|(p, (mode, data))| {
                let name = p.strip_prefix(&dir)?;
                (!name.contains('/')).then(|| (name.to_owned(), *mode, data.len() as u32))
            })
            .collect();
        if names.is_empty() {
            return Vec::new();
        }
        names.sort();
        let dirs = [".", ".."].map(|n| (n.to_owned(), 0o040771, 4096));
        dirs.into_iter()
            .chain(names)
            .map(|(name, mode, size)| DirEntry {
                name,
                mode,
                size,
                mtime: 1_700_000_000,
            })
            .collect()
    }
}
