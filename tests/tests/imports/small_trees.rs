//! The checker on small trees written in the test: each kind of reference
//! it must see, each thing it must not take for one, and the rules for a
//! parent and its child.

use super::lex::lex;
use super::syntax::{use_tree, UseItem};
use super::*;

fn tree(files: &[(&str, &str)]) -> BTreeMap<PathBuf, String> {
    let mut t: BTreeMap<PathBuf, String> = files
        .iter()
        .map(|(p, s)| (PathBuf::from(p), s.to_string()))
        .collect();
    t.insert("k/Cargo.toml".into(), "[package]\nname = \"k\"\n".into());
    t
}

fn pairs(files: &[(&str, &str)]) -> Vec<(String, String)> {
    let found = check(&tree(files));
    assert!(found.unreached.is_empty(), "{:?}", found.unreached);
    found
        .pairs
        .iter()
        .map(|p| (p.a.0.display().to_string(), p.b.0.display().to_string()))
        .collect()
}

fn pair(a: &str, b: &str) -> Vec<(String, String)> {
    vec![(a.to_string(), b.to_string())]
}

#[test]
fn siblings_using_each_other_through_super_are_a_pair() {
    let found = pairs(&[
        ("k/src/lib.rs", "pub mod bench;\npub mod cli;"),
        ("k/src/cli/mod.rs", "mod bench;\nmod commands;"),
        (
            "k/src/cli/commands.rs",
            "pub fn out() {}\nfn run() { super::bench::bench() }",
        ),
        (
            "k/src/cli/bench.rs",
            "use crate::bench;\npub fn bench() { super::commands::out(); bench::go() }",
        ),
        ("k/src/bench.rs", "pub fn go() {}"),
    ]);
    assert_eq!(found, pair("k/src/cli/bench.rs", "k/src/cli/commands.rs"));
}

#[test]
fn grouped_use_and_crate_paths_in_code_are_references() {
    let found = pairs(&[
        ("k/src/lib.rs", "mod report;"),
        (
            "k/src/report/mod.rs",
            "pub mod format;\npub mod html;\npub mod trajectory;",
        ),
        (
            "k/src/report/format.rs",
            "use crate::report::{html::Page, trajectory};",
        ),
        (
            "k/src/report/html.rs",
            "pub struct Page;\nfn f() -> String { crate::report::format::esc(\"}\") }",
        ),
        ("k/src/report/trajectory.rs", "pub fn t() {}"),
    ]);
    assert_eq!(
        found,
        pair("k/src/report/format.rs", "k/src/report/html.rs")
    );
}

#[test]
fn self_paths_and_flat_module_files_resolve() {
    // a.rs is the module `a`; its child lives in a/b.rs.
    let found = pairs(&[
        ("k/src/lib.rs", "mod a;"),
        (
            "k/src/a.rs",
            "mod b;\nfn f() { self::b::g() }\npub fn h() {}",
        ),
        ("k/src/a/b.rs", "pub fn g() { super::h() }"),
    ]);
    assert_eq!(found, pair("k/src/a/b.rs", "k/src/a.rs"));
}

#[test]
fn a_parent_that_only_declares_or_re_exports_its_children_is_no_pair() {
    let found = pairs(&[
        ("k/src/lib.rs", "mod bench;"),
        (
            "k/src/bench/mod.rs",
            "mod error;\npub mod spec;\npub use error::BenchError;\npub use spec::Spec;",
        ),
        ("k/src/bench/error.rs", "pub struct BenchError;"),
        (
            "k/src/bench/spec.rs",
            "use super::BenchError;\npub struct Spec;",
        ),
    ]);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn a_child_using_an_item_defined_in_its_parent_that_calls_it_is_a_pair() {
    let found = pairs(&[
        ("k/src/lib.rs", "mod vphone;"),
        (
            "k/src/vphone/mod.rs",
            "mod jobs;\npub struct Dirs;\nfn f() { jobs::start() }",
        ),
        (
            "k/src/vphone/jobs.rs",
            "use super::Dirs;\npub fn start() {}",
        ),
    ]);
    assert_eq!(found, pair("k/src/vphone/jobs.rs", "k/src/vphone/mod.rs"));
}

#[test]
fn tests_modules_comments_strings_and_other_crates_are_not_references() {
    let found = pairs(&[
        ("k/src/lib.rs", "mod a;\nmod b;"),
        (
            "k/src/a.rs",
            "// super::b::x\n/* crate::b::y */\nconst S: &str = \"crate::b::z\";\n\
             const R: &str = r#\"crate::b::w\"#;\nconst B: &[u8] = b\"crate::b::v\";\nuse std::fmt;\nfn f() -> char { '{' }\n\
             #[cfg(test)]\nmod tests { use super::*; }",
        ),
        ("k/src/b.rs", "use crate::a;\npub fn x() {}"),
    ]);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn inline_modules_resolve_super_from_their_own_scope() {
    let found = pairs(&[
        ("k/src/lib.rs", "mod a;\nmod b;"),
        (
            "k/src/a.rs",
            "pub fn x() {}\nmod tests { fn t() { super::super::b::y() } }",
        ),
        ("k/src/b.rs", "pub fn y() { crate::a::x() }"),
    ]);
    assert_eq!(found, pair("k/src/a.rs", "k/src/b.rs"));
}

#[test]
fn path_attributes_and_integration_test_roots_are_followed() {
    let found = pairs(&[
        ("k/src/lib.rs", "pub mod agent;"),
        ("k/src/agent/mod.rs", "pub mod action;"),
        (
            "k/src/agent/action.rs",
            "pub fn go() {}\n#[cfg(test)]\n#[path = \"action_tests.rs\"]\nmod tests;",
        ),
        ("k/src/agent/action_tests.rs", "use super::*;"),
        ("k/tests/it/main.rs", "mod cli;\nmod bench;"),
        (
            "k/tests/it/cli.rs",
            "pub fn dir() {}\nuse super::bench::run;",
        ),
        ("k/tests/it/bench.rs", "pub fn run() { super::cli::dir() }"),
    ]);
    assert_eq!(found, pair("k/tests/it/bench.rs", "k/tests/it/cli.rs"));
}

#[test]
fn a_file_no_root_reaches_is_reported() {
    let found = check(&tree(&[
        ("k/src/lib.rs", "mod a;"),
        ("k/src/a.rs", ""),
        ("k/src/stray.rs", ""),
    ]));
    assert_eq!(found.unreached, vec![PathBuf::from("k/src/stray.rs")]);
}

#[test]
fn use_trees_expand_to_every_path_they_name() {
    let toks = lex("crate::{a, b::{self, c as d}, e::*};");
    let mut items = Vec::new();
    use_tree(&toks, &mut 0, Vec::new(), &mut items);
    let want = |p: &str, b: Option<&str>| UseItem {
        path: p.split("::").map(String::from).collect(),
        binds: b.map(String::from),
    };
    assert_eq!(
        items,
        vec![
            want("crate::a", Some("a")),
            want("crate::b", Some("b")),
            want("crate::b::c", Some("d")),
            want("crate::e", None),
        ]
    );
}
