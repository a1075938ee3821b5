//! The checker on small trees written in the test: cycles of two, three and
//! four files, each kind of reference it must see, each thing it must not
//! take for one, and the rules for a parent and its child. Each test names
//! the exact cycles found, so a checker that misses one or invents one fails.

use super::syntax::{self, Use};
use super::*;

fn tree(files: &[(&str, &str)]) -> BTreeMap<PathBuf, String> {
    files
        .iter()
        .map(|(p, s)| (PathBuf::from(p), s.to_string()))
        .collect()
}

/// The cycles `check` finds in `files`, as it spells them; each `lib.rs`
/// and `main.rs` is a crate root.
fn cycles(files: &[(&str, &str)]) -> Vec<String> {
    let sources = tree(files);
    let roots: Vec<PathBuf> = sources
        .keys()
        .filter(|p| p.ends_with("lib.rs") || p.ends_with("main.rs"))
        .cloned()
        .collect();
    let found = check(&roots, &sources);
    assert!(found.unreached.is_empty(), "{:?}", found.unreached);
    assert!(found.unparsed.is_empty(), "{:?}", found.unparsed);
    found.cycles.iter().map(ToString::to_string).collect()
}

#[test]
fn siblings_using_each_other_through_super_are_a_two_file_cycle() {
    let found = cycles(&[
        ("src/lib.rs", "pub mod bench;\npub mod cli;"),
        ("src/cli/mod.rs", "mod bench;\nmod commands;"),
        (
            "src/cli/commands.rs",
            "pub fn out() {}\nfn run() { super::bench::bench() }",
        ),
        (
            "src/cli/bench.rs",
            "use crate::bench;\npub fn bench() { super::commands::out(); bench::go() }",
        ),
        ("src/bench.rs", "pub fn go() {}"),
    ]);
    assert_eq!(
        found,
        ["src/cli/bench.rs:2 → src/cli/commands.rs:2 → src/cli/bench.rs"]
    );
}

#[test]
fn three_files_in_a_ring_are_one_cycle_named_in_order() {
    let found = cycles(&[
        ("src/lib.rs", "mod a;\nmod b;\nmod c;"),
        ("src/a.rs", "use crate::b::B;\npub struct A;"),
        (
            "src/b.rs",
            "pub struct B;\npub fn f() -> crate::c::C { todo!() }",
        ),
        ("src/c.rs", "pub struct C;\n\nfn g(_: super::a::A) {}"),
    ]);
    assert_eq!(found, ["src/a.rs:1 → src/b.rs:2 → src/c.rs:3 → src/a.rs"]);
}

/// The agent's formats as they once imported each other around four files:
/// format/mod.rs → qwen.rs → prompt.rs → llm_config.rs → format/mod.rs.
const FORMAT_RING: [(&str, &str); 6] = [
    ("src/lib.rs", "pub mod agent;"),
    (
        "src/agent/mod.rs",
        "pub mod format;\npub mod llm_config;\npub mod prompt;",
    ),
    (
        "src/agent/format/mod.rs",
        "mod qwen;\npub struct Turn;\n\npub fn render() { qwen::render() }",
    ),
    (
        "src/agent/format/qwen.rs",
        "use crate::agent::prompt::system;\n\npub fn render() { system() }",
    ),
    (
        "src/agent/prompt.rs",
        "use super::llm_config::LlmConfig;\npub fn system() {}",
    ),
    (
        "src/agent/llm_config.rs",
        "pub struct LlmConfig {\n    pub turn: Option<super::format::Turn>,\n}",
    ),
];

/// The pair check passed while these four files imported each other in a ring.
#[test]
fn the_four_file_format_cycle_the_pair_check_missed_is_named() {
    assert_eq!(
        cycles(&FORMAT_RING),
        ["src/agent/format/mod.rs:4 → src/agent/format/qwen.rs:1 → \
          src/agent/prompt.rs:1 → src/agent/llm_config.rs:2 → src/agent/format/mod.rs"]
    );
}

#[test]
fn a_chain_that_does_not_come_back_is_no_cycle() {
    // The same four files, with Turn in its own file (as the fix did).
    let mut files = FORMAT_RING.to_vec();
    files[1].1 = "pub mod common;\npub mod format;\npub mod llm_config;\npub mod prompt;";
    files[5].1 = "pub struct LlmConfig {\n    pub turn: Option<super::common::Turn>,\n}";
    files.push(("src/agent/common.rs", "pub struct Turn;"));
    assert_eq!(cycles(&files), Vec::<String>::new());
}

#[test]
fn two_cycles_through_one_file_are_both_named() {
    let found = cycles(&[
        ("src/lib.rs", "mod a;\nmod b;\nmod c;"),
        ("src/a.rs", "use crate::b::B;\npub struct A;"),
        (
            "src/b.rs",
            "pub struct B;\nuse crate::a::A;\nuse crate::c::C;",
        ),
        ("src/c.rs", "pub struct C;\nfn f(_: crate::b::B) {}"),
    ]);
    assert_eq!(
        found,
        [
            "src/a.rs:1 → src/b.rs:2 → src/a.rs",
            "src/b.rs:3 → src/c.rs:2 → src/b.rs",
        ]
    );
}

#[test]
fn a_re_export_is_followed_to_the_items_home_so_is_no_cycle() {
    // b.rs names its own Thing through a.rs's re-export: b refers to b.
    let mut files = vec![
        ("src/lib.rs", "mod a;\nmod b;"),
        ("src/a.rs", "pub use crate::b::Thing;\npub fn helper() {}"),
        ("src/b.rs", "pub struct Thing;\nfn f(_: crate::a::Thing) {}"),
    ];
    assert_eq!(cycles(&files), Vec::<String>::new());
    // An item a.rs defines is a.rs's.
    files[2].1 = "pub struct Thing;\nfn f() { crate::a::helper() }";
    assert_eq!(cycles(&files), ["src/a.rs:1 → src/b.rs:2 → src/a.rs"]);
}

#[test]
fn a_child_using_an_item_defined_in_its_parent_that_calls_it_is_a_cycle() {
    let found = cycles(&[
        ("src/lib.rs", "mod vphone;"),
        (
            "src/vphone/mod.rs",
            "mod jobs;\npub struct Dirs;\nfn f() { jobs::start() }",
        ),
        ("src/vphone/jobs.rs", "use super::Dirs;\npub fn start() {}"),
    ]);
    assert_eq!(
        found,
        ["src/vphone/jobs.rs:1 → src/vphone/mod.rs:3 → src/vphone/jobs.rs"]
    );
}

#[test]
fn a_parent_that_re_exports_its_children_and_calls_them_is_no_cycle() {
    let mut files = vec![
        ("src/lib.rs", "mod bench;"),
        (
            "src/bench/mod.rs",
            "mod error;\npub mod spec;\npub use error::BenchError;\npub use spec::Spec;\n\
             pub fn run(_: spec::Spec) {}",
        ),
        ("src/bench/error.rs", "pub struct BenchError;"),
        (
            "src/bench/spec.rs",
            "use super::BenchError;\npub struct Spec;",
        ),
    ];
    assert_eq!(cycles(&files), Vec::<String>::new());
    // An item mod.rs defines is mod.rs's.
    files[3].1 = "use super::run;\npub struct Spec;";
    assert_eq!(
        cycles(&files),
        ["src/bench/mod.rs:5 → src/bench/spec.rs:1 → src/bench/mod.rs"]
    );
}

#[test]
fn an_inline_test_module_with_use_super_glob_is_part_of_its_file() {
    let mut files = vec![
        ("src/lib.rs", "mod a;\nmod b;"),
        (
            "src/a.rs",
            "pub fn x() {}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    \
             #[test]\n    fn t() {\n        x();\n    }\n}",
        ),
        ("src/b.rs", "pub fn y() {\n    crate::a::x()\n}"),
    ];
    assert_eq!(cycles(&files), Vec::<String>::new());
    // What the test module refers to, a.rs refers to.
    files[1].1 = "pub fn x() {}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    \
                  #[test]\n    fn t() {\n        super::super::b::y();\n    }\n}";
    assert_eq!(cycles(&files), ["src/a.rs:9 → src/b.rs:2 → src/a.rs"]);
}

#[test]
fn grouped_and_glob_uses_are_references() {
    let found = cycles(&[
        ("src/lib.rs", "mod report;"),
        (
            "src/report/mod.rs",
            "pub mod format;\npub mod html;\npub mod trajectory;",
        ),
        (
            "src/report/format.rs",
            "use crate::report::{\n    trajectory,\n    html::Page,\n};\npub fn esc() {}",
        ),
        (
            "src/report/html.rs",
            "use super::format::*;\npub struct Page;",
        ),
        ("src/report/trajectory.rs", "pub fn t() {}"),
    ]);
    assert_eq!(
        found,
        ["src/report/format.rs:3 → src/report/html.rs:1 → src/report/format.rs"]
    );
}

#[test]
fn a_glob_passes_on_its_modules_children() {
    // http.rs reaches tls.rs through `super::*`: mod.rs's child.
    let found = cycles(&[
        ("src/lib.rs", "mod net;"),
        ("src/net/mod.rs", "mod http;\nmod tls;"),
        (
            "src/net/http.rs",
            "use super::*;\n\nfn get() { tls::connect() }",
        ),
        (
            "src/net/tls.rs",
            "pub fn connect() {}\nfn f() { super::http::get() }",
        ),
    ]);
    assert_eq!(
        found,
        ["src/net/http.rs:3 → src/net/tls.rs:2 → src/net/http.rs"]
    );
}

#[test]
fn path_attributes_and_integration_test_roots_are_followed() {
    let found = cycles(&[
        ("src/lib.rs", "pub mod agent;"),
        ("src/agent/mod.rs", "pub mod action;"),
        (
            "src/agent/action.rs",
            "pub fn go() { tests::helper() }\n#[cfg(test)]\n#[path = \"action_tests.rs\"]\nmod tests;",
        ),
        ("src/agent/action_tests.rs", "use super::go;\npub fn helper() {}"),
        ("tests/it/main.rs", "mod cli;\nmod bench;"),
        ("tests/it/cli.rs", "pub fn dir() {}\nuse super::bench::run;"),
        ("tests/it/bench.rs", "pub fn run() { super::cli::dir() }"),
    ]);
    assert_eq!(
        found,
        [
            "src/agent/action.rs:1 → src/agent/action_tests.rs:1 → src/agent/action.rs",
            "tests/it/bench.rs:1 → tests/it/cli.rs:2 → tests/it/bench.rs",
        ]
    );
}

#[test]
fn paths_in_macro_calls_are_references() {
    let found = cycles(&[
        ("src/lib.rs", "mod a;\nmod b;"),
        (
            "src/a.rs",
            "pub fn g() {}\nfn f() { assert_eq!(crate::b::x(), 1); }",
        ),
        (
            "src/b.rs",
            "pub fn x() -> i32 {\n    println!(\"{:?}\", crate::a::g());\n    1\n}",
        ),
    ]);
    assert_eq!(found, ["src/a.rs:2 → src/b.rs:2 → src/a.rs"]);
}

#[test]
fn comments_strings_and_other_crates_are_not_references() {
    let found = cycles(&[
        ("src/lib.rs", "mod a;\nmod b;"),
        (
            "src/a.rs",
            "// super::b::x\n/* crate::b::y */\n/// [`crate::b::x`]\n\
             const S: &str = \"crate::b::z\";\nconst R: &str = r#\"crate::b::w\"#;\n\
             const B: &[u8] = b\"crate::b::v\";\nuse std::fmt;\nuse ::b::x;\n\
             fn f() -> char { println!(\"crate::b::x\"); '{' }",
        ),
        ("src/b.rs", "use crate::a;\npub fn x() {}"),
    ]);
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn a_file_no_root_reaches_is_reported() {
    let found = check(
        &[PathBuf::from("src/lib.rs")],
        &tree(&[
            ("src/lib.rs", "mod a;"),
            ("src/a.rs", ""),
            ("src/stray.rs", ""),
        ]),
    );
    assert_eq!(found.unreached, vec![PathBuf::from("src/stray.rs")]);
}

#[test]
fn a_file_syn_cannot_parse_is_reported() {
    let found = check(
        &[PathBuf::from("src/lib.rs")],
        &tree(&[("src/lib.rs", "mod a;"), ("src/a.rs", "\nfn f(,) {}")]),
    );
    assert_eq!(found.unparsed.len(), 1, "{:?}", found.unparsed);
    assert!(
        found.unparsed[0].starts_with("src/a.rs:2: "),
        "{:?}",
        found.unparsed
    );
}

#[test]
fn use_trees_expand_to_every_path_they_name() {
    let scopes = syntax::read("pub use crate::{a, b::{self, c as d}, e::*};\nuse f as _;").unwrap();
    let want = |p: &str, binds: Option<&str>, public: bool, line: usize| Use {
        path: p.split("::").map(String::from).collect(),
        binds: binds.map(String::from),
        public,
        line,
    };
    assert_eq!(
        scopes[0].uses,
        [
            want("crate::a", Some("a"), true, 1),
            want("crate::b", Some("b"), true, 1),
            want("crate::b::c", Some("d"), true, 1),
            want("crate::e", None, true, 1),
            want("f", Some("_"), false, 2),
        ]
    );
}
