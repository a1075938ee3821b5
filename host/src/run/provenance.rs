//! Provenance stamped on every run: the droidscore revision (and whether the
//! tree was dirty), the host and CPU, the endpoint and model, and a hash of
//! the task suite, so a number can always be traced to what produced it.

use std::process::Command;

use crate::store::Provenance;

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
    suite: &crate::task::Suite,
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
        suite_hash: suite.hash()?,
        droidscore_version: env!("CARGO_PKG_VERSION").to_string(),
        endpoint_health: None,
    })
}
