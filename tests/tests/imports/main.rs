//! No two files in the workspace import each other. A pair of files that
//! reference each other is one concept split in two, or a small shared item
//! living in the wrong file; either way a reader cannot understand one file
//! without the other. This test reads every crate's sources (from each
//! package's `src/lib.rs`, `src/main.rs`, `tests/`, `benches/`, `build.rs`,
//! following `mod` declarations and `#[path]`), resolves every reference to
//! another module of the same crate, and fails naming each pair.
//!
//! What counts as a reference from file A to file B: a `use` of a path into
//! B (`use crate::a::b`, `use super::b::X`, grouped `use crate::{a, b::c}`,
//! `self::`, globs), or a path into B in code (`crate::b::f(…)`, `b::f(…)`
//! where `b` is a child module or a name imported by a `use`). A path that
//! names a module means that module's file; a path that names an item inside
//! a module means the module's file, unless that module only re-exports the
//! item (`pub use x::Item`), in which case the re-export is followed to the
//! item's home. A parent's `mod child;` is a declaration, not an import.
//!
//! A parent module and its child count like any other two files: a `mod.rs`
//! that calls into `child.rs` while `child.rs` uses an item *defined* in that
//! `mod.rs` is a cycle (the item belongs in a named file; `mod.rs`
//! re-exports). Because re-exports are followed, a `mod.rs` that re-exports
//! a child's items and a child that reaches a sibling through `super::Item`
//! do not form a pair. Inline modules (`mod tests { use super::*; }`) are
//! part of their file.
//!
//! Paths to other crates (`droidscore::…`, `std::…`) are not followed: the
//! crates form a DAG by construction, so no cycle can cross one.
//!
//! `lex` turns a file into tokens, `syntax` into events (`mod`, `use`,
//! paths, items), `modules` builds each crate's module tree and resolves
//! paths in it; this file finds the pairs; `small_trees` tests the checker.

mod lex;
mod modules;
mod small_trees;
mod syntax;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use modules::Crate;

/// Two files that refer to each other, each with a line where it does.
#[derive(Debug, PartialEq)]
struct Pair {
    a: (PathBuf, usize),
    b: (PathBuf, usize),
}

#[derive(Debug, Default)]
struct Findings {
    pairs: Vec<Pair>,
    /// `.rs` files no crate root reaches: the check cannot see them.
    unreached: Vec<PathBuf>,
}

/// The crate roots of a package in `dir`, among `sources`' paths.
fn roots(dir: &Path, sources: &BTreeMap<PathBuf, String>) -> Vec<PathBuf> {
    sources
        .keys()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter(|p| {
            let Ok(rel) = p.strip_prefix(dir) else {
                return false;
            };
            let parts: Vec<&str> = rel.iter().map(|s| s.to_str().unwrap()).collect();
            matches!(
                parts.as_slice(),
                ["build.rs"]
                    | ["src", "lib.rs" | "main.rs"]
                    | ["src", "bin", _]
                    | ["tests" | "benches" | "examples", _]
                    | ["src", "bin", _, "main.rs"]
                    | ["tests" | "benches" | "examples", _, "main.rs"]
            )
        })
        .cloned()
        .collect()
}

/// Every pair of files that refer to each other, within each crate of the
/// packages (folders with a `Cargo.toml` holding `[package]`) in `sources`.
fn check(sources: &BTreeMap<PathBuf, String>) -> Findings {
    let packages: Vec<PathBuf> = sources
        .iter()
        .filter(|(p, text)| {
            p.file_name().is_some_and(|n| n == "Cargo.toml") && text.contains("[package]")
        })
        .map(|(p, _)| p.parent().unwrap().to_path_buf())
        .collect();
    // A file belongs to the innermost package holding it.
    let package_of = |file: &Path| {
        packages
            .iter()
            .filter(|d| file.starts_with(d))
            .max_by_key(|d| d.components().count())
            .cloned()
    };
    let mut edges: BTreeMap<(PathBuf, PathBuf), usize> = BTreeMap::new();
    let mut reached = BTreeSet::new();
    for dir in &packages {
        for root in roots(dir, sources) {
            if package_of(&root).as_ref() != Some(dir) {
                continue;
            }
            let mut files = BTreeMap::new();
            let mut krate = Crate::read(&root, sources, &mut files);
            for (file, toks) in &files {
                krate.record_uses(file, toks);
            }
            for (file, toks) in &files {
                reached.insert(file.clone());
                for (target, line) in krate.references(file, toks) {
                    edges.entry((file.clone(), target)).or_insert(line);
                }
            }
        }
    }
    let mut findings = Findings::default();
    for ((a, b), &line) in &edges {
        if a < b {
            if let Some(&back) = edges.get(&(b.clone(), a.clone())) {
                findings.pairs.push(Pair {
                    a: (a.clone(), line),
                    b: (b.clone(), back),
                });
            }
        }
    }
    findings.unreached = sources
        .keys()
        .filter(|p| p.extension().is_some_and(|e| e == "rs") && !reached.contains(*p))
        .cloned()
        .collect();
    findings
}

/// The workspace's `.rs` files and `Cargo.toml`s, relative to `root`,
/// leaving out build output and hidden folders.
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
            } else if name.ends_with(".rs") || name == "Cargo.toml" {
                let text = std::fs::read_to_string(&path).unwrap();
                sources.insert(path.strip_prefix(root).unwrap().to_path_buf(), text);
            }
        }
    }
    sources
}

#[test]
fn no_two_files_import_each_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let found = check(&read_tree(root));
    assert!(
        found.unreached.is_empty(),
        "no crate root reaches these files, so the import check cannot see them: {:?}",
        found.unreached
    );
    let pairs: Vec<String> = found
        .pairs
        .iter()
        .map(|p| {
            format!(
                "  {}:{} ↔ {}:{}",
                p.a.0.display(),
                p.a.1,
                p.b.0.display(),
                p.b.1
            )
        })
        .collect();
    assert!(
        pairs.is_empty(),
        "{} pairs of files import each other (each file with its first line that \
         refers to the other); move the shared item to the file it belongs in:\n{}",
        pairs.len(),
        pairs.join("\n")
    );
}
