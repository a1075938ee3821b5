//! Provenance stamped on every run: the droidscore revision (and whether the
//! tree was dirty), the host and CPU, the endpoint and model, and a hash of
//! the task suite, so a number can always be traced to what produced it.

use std::path::Path;
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::store::Provenance;

/// sha256 over the suite's `*.toml` files: each file's name, a NUL, its bytes,
/// a NUL, in name order. Any edit to any task changes it.
pub fn suite_hash(dir: &Path) -> std::io::Result<String> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    let mut hasher = Sha256::new();
    for path in paths {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        hasher.update(name.as_bytes());
        hasher.update([0]);
        hasher.update(std::fs::read(&path)?);
        hasher.update([0]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `HEAD` of the checkout the binary runs in, `-dirty` when it has changes;
/// `None` outside a git checkout or without git.
fn git_rev() -> Option<String> {
    let rev = git(&["rev-parse", "HEAD"])?;
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(if dirty { format!("{rev}-dirty") } else { rev })
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_else(|_| "unknown".into())
}

pub fn provenance(
    suite: &Path,
    endpoint: Option<String>,
    model: Option<String>,
) -> std::io::Result<Provenance> {
    Ok(Provenance {
        git_rev: git_rev(),
        host: host_name(),
        cpu: cpu_model(),
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        endpoint,
        model,
        suite_hash: suite_hash(suite)?,
        droidscore_version: env!("CARGO_PKG_VERSION").to_string(),
        endpoint_health: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suite_hash_changes_with_any_task_byte() {
        let dir = std::env::temp_dir().join(format!("droidscore-hash-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.toml"), "id = \"a\"").unwrap();
        std::fs::write(dir.join("notes.txt"), "not a task").unwrap();
        let first = suite_hash(&dir).unwrap();
        assert_eq!(first.len(), 64);
        std::fs::write(dir.join("notes.txt"), "still not a task").unwrap();
        assert_eq!(suite_hash(&dir).unwrap(), first, "only task files count");
        std::fs::write(dir.join("a.toml"), "id = \"b\"").unwrap();
        assert_ne!(suite_hash(&dir).unwrap(), first);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
