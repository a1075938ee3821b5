//! Process trees from `/proc`: a process's descendants (every `/proc/*/stat`
//! whose parent chain leads to it), CPU time from `/proc/PID/stat`, and
//! killing a tree.
//!
//! An arm's own CPU time is read from *our* `/proc/self/stat`: `cutime` and
//! `cstime` count every child we have waited for, with the children those
//! children waited for. The difference across one arm's run is the CPU the
//! arm's process tree used, whichever cores it ran on. A grandchild orphaned
//! before it exits is reaped by init, not by its parent, and is not counted.

use std::collections::{BTreeMap, BTreeSet};

/// The fields of `/proc/PID/stat` the harness uses (proc(5) numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    pub pid: u32,
    /// Field 4.
    pub ppid: u32,
    /// Fields 14–17, in clock ticks (USER_HZ, as `/proc/stat`).
    pub utime: u64,
    pub stime: u64,
    pub cutime: u64,
    pub cstime: u64,
}

/// Parses one `/proc/PID/stat` line. The command name (field 2) is in
/// parentheses and may hold spaces and `)`, so fields are counted from the
/// last `)`.
pub fn parse_proc_stat(line: &str) -> Option<ProcStat> {
    let (head, rest) = line.rsplit_once(')')?;
    let pid = head.split_once('(')?.0.trim().parse().ok()?;
    // rest starts at field 3 (state).
    let f: Vec<&str> = rest.split_ascii_whitespace().collect();
    let field = |n: usize| -> Option<u64> { f.get(n - 3)?.parse().ok() };
    Some(ProcStat {
        pid,
        ppid: field(4)? as u32,
        utime: field(14)?,
        stime: field(15)?,
        cutime: field(16)?,
        cstime: field(17)?,
    })
}

pub fn proc_stat(pid: u32) -> Option<ProcStat> {
    parse_proc_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// CPU ticks of the children this process has waited for (and theirs).
pub fn waited_children_ticks() -> u64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|l| parse_proc_stat(&l))
        .map_or(0, |s| s.cutime + s.cstime)
}

/// Parent of every process visible in `/proc`, by pid.
fn parents() -> BTreeMap<u32, u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return BTreeMap::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(proc_stat)
        .map(|s| (s.pid, s.ppid))
        .collect()
}

/// `root` and every process descended from it, root first; empty when root
/// is gone.
pub fn tree(root: u32) -> Vec<u32> {
    let parents = parents();
    if !parents.contains_key(&root) {
        return Vec::new();
    }
    descendants_of(root, &parents)
}

/// `root` then its descendants, given every process's parent.
pub fn descendants_of(root: u32, parents: &BTreeMap<u32, u32>) -> Vec<u32> {
    let mut children: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (&pid, &ppid) in parents {
        children.entry(ppid).or_default().push(pid);
    }
    let mut out = vec![root];
    let mut seen = BTreeSet::from([root]);
    let mut i = 0;
    while i < out.len() {
        for &c in children.get(&out[i]).map_or(&[][..], Vec::as_slice) {
            if seen.insert(c) {
                out.push(c);
            }
        }
        i += 1;
    }
    out
}

/// Kills a child and everything below it: its process group if it leads
/// one (started with `process_group(0)`), then every descendant by ppid.
pub fn kill_tree(child: &mut std::process::Child) {
    let pid = child.id();
    let members = tree(pid);
    super::sys::kill_process_group(pid);
    for p in members {
        super::sys::kill_pid(p);
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_count_from_the_last_parenthesis() {
        let line =
            "4242 (a b) c)) S 17 4242 4242 0 -1 4194304 100 0 0 0 7 3 11 13 20 0 1 0 5 1000 50";
        let s = parse_proc_stat(line).unwrap();
        assert_eq!(s.pid, 4242);
        assert_eq!(s.ppid, 17);
        assert_eq!((s.utime, s.stime, s.cutime, s.cstime), (7, 3, 11, 13));
    }

    #[test]
    fn descendants_include_grandchildren_but_not_siblings() {
        let parents = BTreeMap::from([(1, 0), (10, 1), (11, 10), (12, 11), (20, 1), (21, 20)]);
        assert_eq!(descendants_of(10, &parents), vec![10, 11, 12]);
    }

    #[test]
    fn our_own_tree_holds_a_spawned_child() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let me = std::process::id();
        let t = tree(me);
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(t[0], me);
        assert!(t.contains(&child.id()), "{t:?}");
    }
}
