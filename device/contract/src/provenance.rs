//! Where a figure came from: the code (a git revision and whether tracked
//! files were changed) and the machine (host name, kernel, CPU, load). One
//! implementation for every record that carries provenance: a run's
//! (`droidscore run`), a bench summary's (`droidscore bench`), and the
//! revision `host/build.rs` stamps into the binary.

use std::fmt;
use std::path::Path;
use std::process::Command;

/// A git revision: the commit and whether tracked files differed from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revision {
    pub commit: String,
    pub dirty: bool,
}

impl Revision {
    /// `HEAD` of the checkout `dir` is in, dirty when a tracked file has
    /// changes (untracked files do not count); `None` outside a checkout or
    /// without git.
    pub fn of_checkout(dir: &Path) -> Option<Revision> {
        let commit = git(dir, &["rev-parse", "HEAD"])?;
        let dirty = git(dir, &["status", "--porcelain", "--untracked-files=no"])
            .is_some_and(|s| !s.is_empty());
        Some(Revision { commit, dirty })
    }

    /// The inverse of `Display`: `COMMIT` or `COMMIT-dirty`.
    pub fn parse(text: &str) -> Revision {
        match text.strip_suffix("-dirty") {
            Some(commit) => Revision {
                commit: commit.to_string(),
                dirty: true,
            },
            None => Revision {
                commit: text.to_string(),
                dirty: false,
            },
        }
    }
}

/// `COMMIT`, or `COMMIT-dirty`, the form a run record stores.
impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.commit)?;
        if self.dirty {
            f.write_str("-dirty")?;
        }
        Ok(())
    }
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The machine a figure was measured on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    pub hostname: String,
    /// `/proc/sys/kernel/osrelease` (what `uname -r` prints).
    pub kernel: String,
    /// `model name` in `/proc/cpuinfo` (`Hardware` or `Processor` on ARM).
    pub cpu_model: String,
    /// Processors listed in `/proc/cpuinfo`.
    pub cpu_count: usize,
}

impl Machine {
    /// This machine, `unknown` for what it does not say.
    pub fn this() -> Machine {
        let (cpu_model, cpu_count) =
            parse_cpuinfo(&std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default());
        Machine {
            hostname: read_trimmed("/proc/sys/kernel/hostname")
                .or_else(|| std::env::var("HOSTNAME").ok())
                .unwrap_or_else(|| "unknown".into()),
            kernel: read_trimmed("/proc/sys/kernel/osrelease").unwrap_or_else(|| "unknown".into()),
            cpu_model,
            cpu_count,
        }
    }
}

/// A file's contents without the surrounding whitespace; `None` when it
/// cannot be read.
pub fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

/// The CPU model (`model name`, or `Hardware`/`Processor` on ARM, else the
/// architecture's name) and the number of `processor` entries.
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

/// `/proc/loadavg`'s 1, 5 and 15 minute averages.
pub fn loadavg() -> Option<[f64; 3]> {
    parse_loadavg(&std::fs::read_to_string("/proc/loadavg").ok()?)
}

pub fn parse_loadavg(text: &str) -> Option<[f64; 3]> {
    let mut f = text.split_ascii_whitespace().map(|x| x.parse().ok());
    Some([f.next()??, f.next()??, f.next()??])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpuinfo_gives_model_and_count_on_x86_and_arm() {
        let x86 = "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nprocessor\t: 1\nmodel name\t: AMD EPYC 7B13\n";
        assert_eq!(parse_cpuinfo(x86), ("AMD EPYC 7B13".to_string(), 2));
        let arm =
            "processor\t: 0\nBogoMIPS\t: 38.40\nprocessor\t: 1\n\nHardware\t: Qualcomm SM8250\n";
        assert_eq!(parse_cpuinfo(arm), ("Qualcomm SM8250".to_string(), 2));
        assert_eq!(parse_cpuinfo("").1, 0);
    }

    #[test]
    fn loadavg_is_three_numbers() {
        assert_eq!(
            parse_loadavg("3.44 2.30 2.10 3/100 17261\n"),
            Some([3.44, 2.30, 2.10])
        );
        assert_eq!(parse_loadavg("x"), None);
        assert_eq!(parse_loadavg("1.0 2.0"), None);
    }

    #[test]
    fn a_revision_prints_and_parses_back() {
        for text in ["0123abc", "0123abc-dirty"] {
            assert_eq!(Revision::parse(text).to_string(), text);
        }
        assert!(Revision::parse("0123abc-dirty").dirty);
        assert_eq!(Revision::parse("0123abc").commit, "0123abc");
    }

    #[test]
    fn the_checkout_this_crate_sits_in_has_a_revision() {
        // The test command runs in a git clone (CI clones the repository).
        let here = Revision::of_checkout(env!("CARGO_MANIFEST_DIR").as_ref())
            .expect("device/contract is inside a git checkout, and git is installed");
        assert_eq!(here.commit.len(), 40, "{here}");
        assert!(here.commit.bytes().all(|b| b.is_ascii_hexdigit()), "{here}");
        // The root of the file system is no checkout.
        assert_eq!(Revision::of_checkout("/".as_ref()), None);
    }
}
