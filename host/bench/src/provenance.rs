//! What a bench result was measured on and with, stamped into every summary
//! so a figure can be traced to the machine, the code and the spec behind it.

use std::collections::BTreeMap;
use std::process::Command;

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

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

pub fn parse_loadavg(text: &str) -> Option<[f64; 3]> {
    let mut f = text.split_ascii_whitespace().map(|x| x.parse().ok());
    Some([f.next()??, f.next()??, f.next()??])
}

pub fn loadavg() -> Option<[f64; 3]> {
    parse_loadavg(&std::fs::read_to_string("/proc/loadavg").ok()?)
}

/// The CPU model (`model name`, or `Hardware`/`Processor` on ARM) and the
/// number of `processor` entries in `/proc/cpuinfo`.
pub fn parse_cpuinfo(text: &str) -> (String, usize) {
    let value = |key: &str| {
        text.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| v.trim().to_string())
        })
    };
    let model = value("model name")
        .or_else(|| value("Hardware"))
        .or_else(|| value("Processor"))
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let count = text
        .lines()
        .filter(|l| l.split(':').next().is_some_and(|k| k.trim() == "processor"))
        .count();
    (model, count)
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
    let git_rev = git(&["rev-parse", "HEAD"]);
    let git_dirty = git_rev.as_ref().map(|_| {
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty())
    });
    let (cpu_model, cpu_count) =
        parse_cpuinfo(&std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default());
    Provenance {
        git_rev: git_rev.unwrap_or_else(|| "unknown".into()),
        git_dirty,
        hostname: read_trimmed("/proc/sys/kernel/hostname").unwrap_or_else(|| "unknown".into()),
        kernel: read_trimmed("/proc/sys/kernel/osrelease").unwrap_or_else(|| "unknown".into()),
        cpu_model,
        cpu_count,
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
    fn cpuinfo_gives_model_and_count() {
        let text = "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nprocessor\t: 1\nmodel name\t: AMD EPYC 7B13\n";
        assert_eq!(parse_cpuinfo(text), ("AMD EPYC 7B13".to_string(), 2));
    }

    #[test]
    fn loadavg_is_three_numbers() {
        assert_eq!(
            parse_loadavg("3.44 2.30 2.10 3/100 17261\n"),
            Some([3.44, 2.30, 2.10])
        );
        assert_eq!(parse_loadavg("x"), None);
    }

    #[test]
    fn sha256_of_empty_input() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
