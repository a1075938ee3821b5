//! Builds the task suite into the binary: every `*.toml` of the repository's
//! `tasks/`, by file name, as `include_str!`s in `$OUT_DIR/suite.rs`, so an
//! installed `droidscore` needs no checkout (`task::Suite::Embedded`).
//! Stamps the revision it is built from into `DROIDSCORE_GIT_REV`, which
//! every run records (`run::provenance`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use droidscore_contract::provenance::Revision;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    stamp_revision(&manifest);
    let tasks = manifest.join("../tasks");
    // A directory: cargo reruns this when any file in it changes or is added.
    println!("cargo:rerun-if-changed={}", tasks.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&tasks)
        .unwrap_or_else(|e| panic!("cannot read the task suite {}: {e}", tasks.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut out = String::from("pub(super) const FILES: &[(&str, &str)] = &[\n");
    for path in &files {
        let name = path.file_name().unwrap().to_str().unwrap();
        let absolute = path.canonicalize().unwrap();
        writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            absolute.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("suite.rs");
    std::fs::write(&dest, out).unwrap();
}

/// `COMMIT` or `COMMIT-dirty` of the checkout `manifest` is in, empty
/// outside one. Rerun when the commit can have moved (`HEAD`, the refs, the
/// index) or when a source of the binary changed (which can make a clean
/// tree dirty): the host's, the bench's and the contract's, and the suite.
fn stamp_revision(manifest: &Path) {
    let revision = Revision::of_checkout(manifest);
    println!(
        "cargo:rustc-env=DROIDSCORE_GIT_REV={}",
        revision.map(|r| r.to_string()).unwrap_or_default()
    );
    for source in [
        "src",
        "bench/src",
        "../device/contract/src",
        "Cargo.toml",
        "../Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={}", manifest.join(source).display());
    }
    for key in ["--git-dir", "--git-common-dir"] {
        let Some(dir) = git_path(manifest, key) else {
            continue;
        };
        for file in ["HEAD", "index", "packed-refs", "refs/heads"] {
            println!("cargo:rerun-if-changed={}", dir.join(file).display());
        }
    }
}

/// `git rev-parse --git-dir` (a worktree's own) or `--git-common-dir` (where
/// the refs live), absolute.
fn git_path(manifest: &Path, key: &str) -> Option<PathBuf> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(manifest)
        .args(["rev-parse", "--path-format=absolute", key])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}
