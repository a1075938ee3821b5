//! Fuzzing the uiautomator parser with dumps built tag by tag (issue 30),
//! beside `fixtures_tests`' arbitrary bytes and mutated real dumps: nodes
//! with random attribute lists (uiautomator's own, extras, duplicates, bad
//! values, entities, either quote), nested at random, some tags left open.
//! Bounded to a few seconds in `cargo test` (`PROPTEST_CASES=N` runs N cases
//! instead). Never a panic; a dump that parses serialises and parses back
//! to itself; an error names an offset inside the input.

use proptest::prelude::*;

use super::{fixtures_tests::assert_fixpoint, parse, Dump};
use crate::adbd::fuzz_tests::cases;

/// Names: uiautomator's own, androidx's extras, and anything.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "NAF", "index", "text", "resource-id", "class", "package", "content-desc",
            "checkable", "checked", "clickable", "enabled", "focusable", "focused",
            "scrollable", "long-clickable", "password", "selected", "bounds", "rotation",
            "visible-to-user", "drawing-order", "hint", "display-id",
        ])
        .prop_map(str::to_owned),
        1 => "[a-zA-Z_:][a-zA-Z0-9_.:-]{0,8}",
        1 => "[ -~]{0,4}",
    ]
}

/// Values: the forms uiautomator writes, and what it never does.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => prop::sample::select(vec![
            "true", "false", "0", "7", "-1", "4294967296", "[0,0][1080,2400]", "[-5,0][1,1]",
            "[0,0][1,1", "", "a&amp;b", "&lt;&gt;&quot;&apos;", "&#65;&#x42;", "&bogus;", "&",
            "android.widget.TextView",
        ])
        .prop_map(str::to_owned),
        1 => "[ -~]{0,8}",
        1 => any::<String>().prop_map(|s| s.chars().take(8).collect()),
    ]
}

fn attribute() -> impl Strategy<Value = String> {
    (name(), value(), any::<bool>()).prop_map(|(name, value, single)| {
        let value = value.replace(if single { '\'' } else { '"' }, "");
        match single {
            true => format!(" {name}='{value}'"),
            false => format!(" {name}=\"{value}\""),
        }
    })
}

/// A tag: `<node …>` (or a stray one), open, self-closed or a close.
fn tag() -> impl Strategy<Value = String> {
    let attrs = || prop::collection::vec(attribute(), 0..24).prop_map(|a| a.concat());
    let required = r#" class="c" bounds="[0,0][1,1]""#;
    prop_oneof![
        4 => (attrs(), any::<bool>()).prop_map(move |(a, with)| {
            format!("<node{}{a} />", if with { required } else { "" })
        }),
        3 => (attrs(), any::<bool>()).prop_map(move |(a, with)| {
            format!("<node{}{a}>", if with { required } else { "" })
        }),
        3 => Just("</node>".to_owned()),
        1 => prop::sample::select(vec!["<hierarchy>", "</hierarchy>", "<foo/>", "text", "<!-- c -->", "<![CDATA[x]]>", "\n  "])
            .prop_map(str::to_owned),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(500)))]

    #[test]
    fn dumps_built_tag_by_tag_never_panic(
        root_attrs in prop::collection::vec(attribute(), 0..4),
        tags in prop::collection::vec(tag(), 0..16),
        close in any::<bool>(),
    ) {
        let mut input = format!(
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy{}>",
            root_attrs.concat()
        );
        input.extend(tags);
        if close {
            input.push_str("</hierarchy>");
        }
        match parse(input.as_bytes()) {
            Ok(Dump::Hierarchy { hierarchy, .. }) => assert_fixpoint(&hierarchy)?,
            Ok(_) => {}
            Err(e) => prop_assert!(e.offset <= input.len(), "offset {} past the end", e.offset),
        }
    }
}
