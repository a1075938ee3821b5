//! Builds the task suite into the binary: every `*.toml` of the repository's
//! `tasks/`, by file name, as `include_str!`s in `$OUT_DIR/suite.rs`, so an
//! installed `droidscore` needs no checkout (`task::Suite::Embedded`).

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
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
