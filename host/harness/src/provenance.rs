//! What a bench result was measured on and with, stamped into every summary
//! so a figure can be traced to the machine, the code and the spec behind it.

use std::collections::BTreeMap;

use droidscore_contract::provenance::{loadavg, read_trimmed, Machine, Revision};
use sha2::{Digest, Sha256};

use super::spec::Arm;

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Provenance {
    /// `HEAD` of the repository the harness ran in, or `unknown`.
    pub git_rev: String,
    /// Uncommitted changes to tracked files; `None` outside a repository.
    pub git_dirty: Option<bool>,
    pub hostname: String,
    /// `/proc/sys/kernel/osrelease` (what `uname -r` prints).
    pub kernel: String,
    pub cpu_model: String,
    /// Processors listed in `/proc/cpuinfo`.
    pub cpu_count: usize,
    /// `scaling_governor` by CPU, where readable (absent in most VMs).
    pub governors: BTreeMap<String, String>,
    pub spec_path: String,
    pub spec_sha256: String,
    pub arms: Vec<Arm>,
    pub started_at: String,
    pub ended_at: Option<String>,
    /// `/proc/loadavg`'s 1, 5 and 15 minute averages.
    pub loadavg_start: Option<[f64; 3]>,
    pub loadavg_end: Option<[f64; 3]>,
    pub droidscore_version: String,
    pub command_line: Vec<String>,
    /// The cores the busy check and contention labels look at.
    pub cores: String,
    /// `taskset -c LIST` prefixed to each arm, or why the arms are not pinned.
    pub pinning: String,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

fn governors() -> BTreeMap<String, String> {
    let Ok(dir) = std::fs::read_dir("/sys/devices/system/cpu") else {
        return BTreeMap::new();
    };
    dir.flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            name.strip_prefix("cpu")?.parse::<usize>().ok()?;
            let g = read_trimmed(&format!(
                "/sys/devices/system/cpu/{name}/cpufreq/scaling_governor"
            ))?;
            Some((name, g))
        })
        .collect()
}

/// Provenance at the start of a run; `finish` adds the end.
pub fn at_start(
    spec_path: &std::path::Path,
    spec_bytes: &[u8],
    arms: &[Arm],
    cores: String,
    pinning: String,
) -> Provenance {
    let revision = std::env::current_dir()
        .ok()
        .and_then(|dir| Revision::of_checkout(&dir));
    let machine = Machine::this();
    Provenance {
        git_rev: revision
            .as_ref()
            .map_or_else(|| "unknown".into(), |r| r.commit.clone()),
        git_dirty: revision.map(|r| r.dirty),
        hostname: machine.hostname,
        kernel: machine.kernel,
        cpu_model: machine.cpu_model,
        cpu_count: machine.cpu_count,
        governors: governors(),
        spec_path: spec_path.display().to_string(),
        spec_sha256: sha256_hex(spec_bytes),
        arms: arms.to_vec(),
        started_at: now_rfc3339(),
        ended_at: None,
        loadavg_start: loadavg(),
        loadavg_end: None,
        droidscore_version: env!("CARGO_PKG_VERSION").to_string(),
        command_line: std::env::args().collect(),
        cores,
        pinning,
    }
}

impl Provenance {
    pub fn finish(&mut self) {
        self.ended_at = Some(now_rfc3339());
        self.loadavg_end = loadavg();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_empty_input() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
