//! The workspace as the check reads it: the crate roots `cargo metadata`
//! names (every target of every member: libraries, binaries, tests,
//! benches, examples, build scripts), so a crate added to the workspace is
//! checked with no change here; and every `.rs` file under the workspace's
//! folder, so a file no root reaches is seen too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Paths relative to the workspace's folder.
#[derive(Debug)]
pub(crate) struct Workspace {
    /// Each crate's root file.
    pub(crate) roots: Vec<PathBuf>,
    /// Every `.rs` file, with its text.
    pub(crate) sources: BTreeMap<PathBuf, String>,
}

/// The workspace this test belongs to.
pub(crate) fn read() -> Workspace {
    let cargo = env!("CARGO");
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("failed to run {cargo} metadata: {e}"));
    assert!(
        output.status.success(),
        "{cargo} metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata printed JSON");
    let root = PathBuf::from(
        metadata["workspace_root"]
            .as_str()
            .expect("cargo metadata names the workspace_root"),
    );
    let packages = metadata["packages"].as_array().expect("packages");
    let roots = packages
        .iter()
        .flat_map(|package| package["targets"].as_array().expect("targets"))
        .map(|target| {
            let src = Path::new(target["src_path"].as_str().expect("src_path"));
            src.strip_prefix(&root)
                .expect("a member's target is inside the workspace")
                .to_path_buf()
        })
        .collect();
    Workspace {
        roots,
        sources: read_tree(&root),
    }
}

/// The `.rs` files under `root`, relative to it, leaving out build output
/// and hidden folders.
fn read_tree(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut sources = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                let skip =
                    name.starts_with('.') || name == "target" || path.join("CACHEDIR.TAG").exists();
                if !skip {
                    todo.push(path);
                }
            } else if name.ends_with(".rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                sources.insert(path.strip_prefix(root).unwrap().to_path_buf(), text);
            }
        }
    }
    sources
}
