//! `droidscore bench ledger --pid P [--model FILE]`: where a process's
//! resident memory is, mapping by mapping from `/proc/P/smaps`.
//!
//! Each mapping goes to exactly one category, first match wins:
//! - `model`: the file given with `--model` (its canonical path);
//! - `binary`: the process's own executable (`/proc/P/exe`);
//! - `stack`: `[stack]`, and thread stacks — the anonymous mapping holding
//!   a thread's stack pointer, read from `/proc/P/task/T/syscall` (threads
//!   running at that instant show no pointer, so their stacks stay under
//!   `anon_heap`);
//! - `shared_libraries`: a path whose file name contains `.so`;
//! - `anon_heap`: `[heap]` and mappings without a path;
//! - `other`: everything else (`[vdso]`, other files, `/dev/shm`, memfd).
//!
//! The categories' Rss sums to every mapping's Rss, which is what
//! `smaps_rollup` reports (`total_rss_kib` beside `smaps_rollup_rss_kib`).
//! For the model file, `model_page_cache` adds how much of the file is in
//! the page cache, from `mincore(2)` over the harness's own read-only
//! mapping: that is the kernel's cache, not the process's pages.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::ProbeError;
use crate::smaps::{self, Mapping};
use crate::sys::{self, Residency};

pub const CATEGORIES: [&str; 6] = [
    "model",
    "binary",
    "stack",
    "shared_libraries",
    "anon_heap",
    "other",
];

pub const NOTE_PAGE_CACHE: &str = "model_page_cache counts the file's pages in the kernel's page cache (mincore over the harness's own read-only mapping): a page there may be mapped by no process, and the process's own resident pages of the file are the model category's Rss.";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Tally {
    pub mappings: u64,
    pub rss_kib: u64,
    pub pss_kib: u64,
    pub anonymous_kib: u64,
}

impl Tally {
    fn add(&mut self, m: &Mapping) {
        self.mappings += 1;
        self.rss_kib += m.field("Rss");
        self.pss_kib += m.field("Pss");
        self.anonymous_kib += m.field("Anonymous");
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Ledger {
    pub pid: u32,
    pub categories: BTreeMap<&'static str, Tally>,
    pub total: Tally,
    pub total_rss_kib: u64,
    pub smaps_rollup_rss_kib: u64,
    pub model: Option<String>,
    pub model_page_cache: Option<Residency>,
    pub note: Option<String>,
}

/// What identifies the special mappings of one process.
#[derive(Debug, Clone, Default)]
pub struct Known {
    /// The model file's canonical path (the kernel names mappings by theirs).
    pub model: Option<PathBuf>,
    pub exe: Option<PathBuf>,
    /// Stack pointers of the process's threads.
    pub stack_pointers: BTreeSet<u64>,
}

fn path_of(m: &Mapping) -> &str {
    m.pathname.strip_suffix(" (deleted)").unwrap_or(&m.pathname)
}

pub fn category(m: &Mapping, known: &Known) -> &'static str {
    let path = path_of(m);
    if let Some(model) = &known.model {
        if !path.is_empty() && Path::new(path) == model {
            return "model";
        }
    }
    if known
        .exe
        .as_ref()
        .is_some_and(|exe| !path.is_empty() && Path::new(path) == exe)
    {
        return "binary";
    }
    if path == "[stack]" || path.starts_with("[stack:") {
        return "stack";
    }
    if path.is_empty()
        && known
            .stack_pointers
            .iter()
            .any(|&sp| sp >= m.start && sp < m.end)
    {
        return "stack";
    }
    let file_name = path.rsplit('/').next().unwrap_or(path);
    if path.starts_with('/') && file_name.contains(".so") {
        return "shared_libraries";
    }
    if path.is_empty() || path == "[heap]" {
        return "anon_heap";
    }
    "other"
}

/// Sums the mappings into categories.
pub fn tally(maps: &[Mapping], known: &Known) -> (BTreeMap<&'static str, Tally>, Tally) {
    let mut cats: BTreeMap<&'static str, Tally> =
        CATEGORIES.iter().map(|c| (*c, Tally::default())).collect();
    let mut total = Tally::default();
    for m in maps {
        cats.get_mut(category(m, known))
            .expect("every category is listed")
            .add(m);
        total.add(m);
    }
    (cats, total)
}

/// Each thread's stack pointer: the second-to-last field of
/// `/proc/P/task/T/syscall` (a thread running right now prints `running`).
fn stack_pointers(pid: u32) -> BTreeSet<u64> {
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return BTreeSet::new();
    };
    dir.flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("syscall")).ok())
        .filter_map(|s| {
            let f: Vec<&str> = s.split_ascii_whitespace().collect();
            let sp = f.get(f.len().checked_sub(2)?)?;
            u64::from_str_radix(sp.strip_prefix("0x")?, 16).ok()
        })
        .collect()
}

pub fn ledger(pid: u32, model: Option<&Path>) -> Result<Ledger, ProbeError> {
    let model = match model {
        Some(m) => Some(
            std::fs::canonicalize(m)
                .map_err(|e| ProbeError::because(format!("--model {}", m.display()), e))?,
        ),
        None => None,
    };
    let known = Known {
        model: model.clone(),
        exe: std::fs::read_link(format!("/proc/{pid}/exe")).ok(),
        stack_pointers: stack_pointers(pid),
    };
    let maps =
        smaps::smaps(pid).map_err(|e| ProbeError::because(format!("/proc/{pid}/smaps"), e))?;
    let rollup = smaps::rollup(pid)
        .map_err(|e| ProbeError::because(format!("/proc/{pid}/smaps_rollup"), e))?;
    let (categories, total) = tally(&maps, &known);
    let model_page_cache = match &model {
        Some(path) => Some(
            sys::page_cache_residency(path)
                .map_err(|e| ProbeError::because(format!("mincore over {}", path.display()), e))?,
        ),
        None => None,
    };
    Ok(Ledger {
        pid,
        total_rss_kib: total.rss_kib,
        smaps_rollup_rss_kib: rollup.get("Rss").copied().unwrap_or(0),
        categories,
        total,
        model: model.map(|p| p.display().to_string()),
        note: model_page_cache.map(|_| NOTE_PAGE_CACHE.to_string()),
        model_page_cache,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(start: u64, end: u64, path: &str, rss: u64) -> Mapping {
        Mapping {
            start,
            end,
            perms: "rw-p".into(),
            inode: 0,
            pathname: path.into(),
            fields: [("Rss".to_string(), rss), ("Pss".to_string(), rss)]
                .into_iter()
                .collect(),
        }
    }

    #[test]
    fn each_mapping_lands_in_one_category() {
        let known = Known {
            model: Some("/m/model.gguf".into()),
            exe: Some("/usr/bin/server".into()),
            stack_pointers: BTreeSet::from([0x5500]),
        };
        let cases = [
            (map(0, 1, "/m/model.gguf", 1), "model"),
            (map(0, 1, "/usr/bin/server", 1), "binary"),
            (map(0, 1, "[stack]", 1), "stack"),
            (map(0x5000, 0x6000, "", 1), "stack"),
            (map(0x7000, 0x8000, "", 1), "anon_heap"),
            (map(0, 1, "[heap]", 1), "anon_heap"),
            (
                map(0, 1, "/usr/lib/x86_64-linux-gnu/libc.so.6", 1),
                "shared_libraries",
            ),
            (map(0, 1, "[vdso]", 1), "other"),
            (map(0, 1, "/tmp/data.bin", 1), "other"),
            (map(0, 1, "/usr/bin/server (deleted)", 1), "binary"),
        ];
        for (m, want) in &cases {
            assert_eq!(category(m, &known), *want, "{}", m.pathname);
        }
        let maps: Vec<Mapping> = cases.iter().map(|(m, _)| m.clone()).collect();
        let (cats, total) = tally(&maps, &known);
        assert_eq!(total.rss_kib, 10);
        assert_eq!(cats.values().map(|t| t.rss_kib).sum::<u64>(), 10);
        assert_eq!(cats["anon_heap"].rss_kib, 2);
    }
}
