//! No files of a crate import each other in a cycle. Files that reference
//! each other, around a ring of any length, are one concept split across
//! them, or a small shared item living in the wrong file; either way a
//! reader cannot understand one of them without all the others. This test
//! parses every crate's sources with `syn` (from each root `cargo metadata`
//! names: `src/lib.rs`, `src/main.rs`, `tests/`, `benches/`, `examples/`,
//! `build.rs`, following `mod` declarations and `#[path]`), resolves every
//! reference to another module of the same crate, and fails naming each
//! cycle as a chain of files, each with its line that refers to the next.
//!
//! What counts as a reference from file A to file B: a `use` of a path into
//! B (`use crate::a::b`, `use super::b::X`, grouped `use crate::{a, b::c}`,
//! `self::`, globs), or a path into B in code, macro calls included
//! (`crate::b::f(…)`, `b::f(…)` where `b` is a child module or a name
//! imported by a `use`). A path that names a module means that module's
//! file; a path that names an item inside a module means the module's file,
//! unless that module only re-exports the item (`pub use x::Item`), in
//! which case the re-export is followed to the item's home. A parent's
//! `mod child;` is a declaration, not an import; so is its `pub use` of a
//! child's item. Comments and strings are not references.
//!
//! A parent module and its child count like any other two files: a `mod.rs`
//! that calls into `child.rs` while `child.rs` uses an item *defined* in that
//! `mod.rs` is a cycle (the item belongs in a named file; `mod.rs`
//! re-exports). Because re-exports are followed, a `mod.rs` that re-exports
//! a child's items and a child that reaches a sibling through `super::Item`
//! do not form one. Inline modules (`mod tests { use super::*; }`) are
//! part of their file.
//!
//! Paths to other crates (`droidscore::…`, `std::…`) are not followed: the
//! crates form a DAG by construction, so no cycle can cross one.
//!
//! `workspace` finds the crate roots and files, `syntax` reads a file (its
//! scopes, `mod`s, `use`s, items and paths), `modules` builds each crate's
//! module tree and resolves paths in it into a graph of files, `graph`
//! finds the cycles in it; `small_trees` tests the checker.

mod graph;
mod modules;
mod small_trees;
mod syntax;
mod workspace;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use graph::Cycle;
use modules::Crate;

#[derive(Debug, Default)]
struct Findings {
    cycles: Vec<Cycle>,
    /// `.rs` files no crate root reaches: the check cannot see them.
    unreached: Vec<PathBuf>,
    /// `.rs` files `syn` cannot parse, with why: the check cannot see into them.
    unparsed: Vec<String>,
}

/// The import cycles within each crate whose root is one of `roots`, among
/// `sources` (`.rs` files by path).
fn check(roots: &[PathBuf], sources: &BTreeMap<PathBuf, String>) -> Findings {
    let mut findings = Findings::default();
    let mut parsed = BTreeMap::new();
    for (path, text) in sources {
        match syntax::read(text) {
            Ok(scopes) => {
                parsed.insert(path.clone(), scopes);
            }
            Err(e) => {
                let at = syntax::line(e.span());
                findings
                    .unparsed
                    .push(format!("{}:{at}: {e}", path.display()));
            }
        }
    }
    let mut reached = BTreeSet::new();
    let mut cycles = BTreeSet::new();
    for root in roots {
        let references = Crate::read(root, sources, &parsed).references();
        reached.extend(references.keys().cloned());
        cycles.extend(graph::cycles(&references));
    }
    findings.cycles = cycles.into_iter().collect();
    findings.unreached = sources
        .keys()
        .filter(|p| !reached.contains(*p))
        .cloned()
        .collect();
    findings
}

#[test]
fn no_files_of_a_crate_import_each_other_in_a_cycle() {
    let workspace = workspace::read();
    let found = check(&workspace.roots, &workspace.sources);
    assert!(
        found.unparsed.is_empty(),
        "syn cannot parse these files, so the import check cannot see into them:\n{}",
        found.unparsed.join("\n")
    );
    assert!(
        found.unreached.is_empty(),
        "no crate root reaches these files, so the import check cannot see them: {:?}",
        found.unreached
    );
    let cycles: Vec<String> = found.cycles.iter().map(|c| format!("  {c}")).collect();
    assert!(
        cycles.is_empty(),
        "{} import cycles (each file with its first line that refers to the next); \
         move the shared item to the file it belongs in:\n{}",
        cycles.len(),
        cycles.join("\n")
    );
}
