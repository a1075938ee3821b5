//! Resident memory as the kernel counts it: `/proc/PID/smaps` (per mapping),
//! `/proc/PID/smaps_rollup` (their sum), and `/proc/PID/status` (RssAnon,
//! RssFile, RssShmem), and the sum over a process tree.
//!
//! Rss counts every page a process has mapped that is in memory, so summing
//! Rss over processes that share pages counts those pages once per process;
//! Pss divides each shared page among the processes that map it, so Pss sums
//! to the memory the tree actually holds.

use std::collections::BTreeMap;

/// `Key: N kB` lines of one smaps block (or smaps_rollup), in KiB.
pub type Fields = BTreeMap<String, u64>;

/// One mapping of `/proc/PID/smaps`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    pub start: u64,
    pub end: u64,
    pub perms: String,
    pub inode: u64,
    /// The path, `[heap]`, `[stack]`, …, or empty for an anonymous mapping.
    pub pathname: String,
    pub fields: Fields,
}

impl Mapping {
    pub fn field(&self, name: &str) -> u64 {
        self.fields.get(name).copied().unwrap_or(0)
    }
}

/// Parses a `Key:   N kB` line; `None` for other lines (VmFlags, THPeligible).
fn kib_field(line: &str) -> Option<(String, u64)> {
    let (key, value) = line.split_once(':')?;
    let value = value.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some((key.trim().to_string(), value))
}

/// A mapping header: `start-end perms offset dev inode [pathname]`.
fn header(line: &str) -> Option<Mapping> {
    let mut parts = line.splitn(6, ' ');
    let range = parts.next()?;
    let (start, end) = range.split_once('-')?;
    let start = u64::from_str_radix(start, 16).ok()?;
    let end = u64::from_str_radix(end, 16).ok()?;
    let perms = parts.next()?.to_string();
    let _offset = parts.next()?;
    let _dev = parts.next()?;
    let inode = parts.next()?.parse().ok()?;
    let pathname = parts.next().unwrap_or("").trim().to_string();
    Some(Mapping {
        start,
        end,
        perms,
        inode,
        pathname,
        fields: Fields::new(),
    })
}

/// Parses `/proc/PID/smaps` text into its mappings.
pub fn parse_smaps(text: &str) -> Vec<Mapping> {
    let mut maps: Vec<Mapping> = Vec::new();
    for line in text.lines() {
        if let Some((k, v)) = kib_field(line) {
            if let Some(m) = maps.last_mut() {
                m.fields.insert(k, v);
            }
        } else if let Some(m) = header(line) {
            maps.push(m);
        }
    }
    maps
}

/// Parses smaps_rollup (or `/proc/PID/status`) `kB` fields.
pub fn parse_kib_fields(text: &str) -> Fields {
    text.lines().filter_map(kib_field).collect()
}

pub fn smaps(pid: u32) -> std::io::Result<Vec<Mapping>> {
    Ok(parse_smaps(&std::fs::read_to_string(format!(
        "/proc/{pid}/smaps"
    ))?))
}

pub fn rollup(pid: u32) -> std::io::Result<Fields> {
    Ok(parse_kib_fields(&std::fs::read_to_string(format!(
        "/proc/{pid}/smaps_rollup"
    ))?))
}

pub fn status(pid: u32) -> std::io::Result<Fields> {
    Ok(parse_kib_fields(&std::fs::read_to_string(format!(
        "/proc/{pid}/status"
    ))?))
}

/// Resident memory of a process or a tree, KiB. Rss and its split from
/// `status`; Pss and its split from `smaps_rollup`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Resident {
    pub rss_kib: u64,
    pub rss_anon_kib: u64,
    pub rss_file_kib: u64,
    pub rss_shmem_kib: u64,
    pub pss_kib: u64,
    pub pss_anon_kib: u64,
    pub pss_file_kib: u64,
    pub pss_shmem_kib: u64,
    /// Processes summed (1 for one process).
    pub processes: u64,
}

impl Resident {
    fn add(&mut self, o: &Resident) {
        self.rss_kib += o.rss_kib;
        self.rss_anon_kib += o.rss_anon_kib;
        self.rss_file_kib += o.rss_file_kib;
        self.rss_shmem_kib += o.rss_shmem_kib;
        self.pss_kib += o.pss_kib;
        self.pss_anon_kib += o.pss_anon_kib;
        self.pss_file_kib += o.pss_file_kib;
        self.pss_shmem_kib += o.pss_shmem_kib;
        self.processes += o.processes;
    }
}

/// One process's resident memory; `None` when it is gone (or a kernel
/// thread, which has no memory of its own).
pub fn process_resident(pid: u32) -> Option<Resident> {
    let status = status(pid).ok()?;
    let rollup = rollup(pid).ok()?;
    let s = |k: &str| status.get(k).copied().unwrap_or(0);
    let r = |k: &str| rollup.get(k).copied().unwrap_or(0);
    Some(Resident {
        rss_kib: s("VmRSS"),
        rss_anon_kib: s("RssAnon"),
        rss_file_kib: s("RssFile"),
        rss_shmem_kib: s("RssShmem"),
        pss_kib: r("Pss"),
        pss_anon_kib: r("Pss_Anon"),
        pss_file_kib: r("Pss_File"),
        pss_shmem_kib: r("Pss_Shmem"),
        processes: 1,
    })
}

/// Resident memory summed over `root` and all its descendants.
pub fn tree_resident(root: u32) -> Resident {
    let mut total = Resident::default();
    for pid in super::process::tree(root) {
        if let Some(r) = process_resident(pid) {
            total.add(&r);
        }
    }
    total
}

/// RssAnon summed over a tree (cheap enough to sample every few ms: one
/// `status` read per process).
pub fn tree_rss_anon_kib(root: u32) -> u64 {
    super::process::tree(root)
        .into_iter()
        .filter_map(|pid| status(pid).ok())
        .map(|s| s.get("RssAnon").copied().unwrap_or(0))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMAPS: &str = "\
55d6fb439000-55d6fb43b000 r--p 00000000 fe:00 247282                     /usr/bin/head
Size:                  8 kB
Rss:                   8 kB
Pss:                   4 kB
Anonymous:             0 kB
VmFlags: rd mr mw me
7f00aa000000-7f00aa021000 rw-p 00000000 00:00 0 
Size:                132 kB
Rss:                  12 kB
Pss:                  12 kB
Anonymous:            12 kB
THPeligible:           0
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
Size:                132 kB
Rss:                  16 kB
Pss:                  16 kB
Anonymous:            16 kB
";

    #[test]
    fn each_mapping_keeps_its_path_and_kib_fields() {
        let maps = parse_smaps(SMAPS);
        assert_eq!(maps.len(), 3);
        assert_eq!(maps[0].pathname, "/usr/bin/head");
        assert_eq!(maps[0].inode, 247282);
        assert_eq!(maps[0].field("Pss"), 4);
        assert_eq!(maps[1].pathname, "", "anonymous");
        assert_eq!(maps[1].field("Anonymous"), 12);
        assert_eq!(maps[2].pathname, "[stack]");
        assert_eq!(maps[2].end - maps[2].start, 0x21000);
        assert!(!maps[0].fields.contains_key("VmFlags"));
    }

    #[test]
    fn status_and_rollup_fields_are_kib_and_other_lines_are_skipped() {
        let f = parse_kib_fields("Name:\tsh\nVmRSS:\t  1672 kB\nRssAnon:\t 116 kB\nThreads:\t1\n");
        assert_eq!(f.len(), 2);
        assert_eq!(f["VmRSS"], 1672);
        assert_eq!(f["RssAnon"], 116);
    }
}
