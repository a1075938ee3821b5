//! Tests against the recorded dumps in `fixtures/dumps/` and generated input:
//! byte-exact round trips, element-list snapshots, error-message snapshots, and
//! property tests that parsing never panics and serialisation is a fixpoint.

use std::path::Path;

use proptest::prelude::*;

use super::serialize::detect_style;
use super::{
    elements, parse, parse_xml, render, to_xml, to_xml_styled, Bounds, Dump, ExtraAttr, Hierarchy,
    Node, XmlStyle,
};

fn fixture_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/dumps")
}

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(fixture_dir())
        .expect("fixtures/dumps exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .map(|p| {
            (
                p.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_fixture_round_trips_byte_for_byte() {
    let all = fixtures();
    assert!(
        all.len() >= 5,
        "expected the recorded dumps, found {}",
        all.len()
    );
    for (name, bytes) in all {
        let h = parse_xml(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let style = detect_style(&bytes);
        let back = to_xml_styled(&h, style);
        if back.as_bytes() != bytes.as_slice() {
            let at = back
                .bytes()
                .zip(bytes.iter())
                .take_while(|(a, b)| a == *b)
                .count();
            panic!(
                "{name} ({style:?}) differs at byte {at}:\n ours: {:?}\n file: {:?}",
                back.get(at.saturating_sub(40)..(at + 40).min(back.len()))
                    .unwrap_or(""),
                String::from_utf8_lossy(&bytes[at.saturating_sub(40)..(at + 40).min(bytes.len())])
            );
        }
        assert_eq!(
            parse_xml(back.as_bytes()).unwrap(),
            h,
            "{name}: reparse gives the same tree"
        );
    }
}

#[test]
fn one_line_dumps_are_detected_as_such() {
    for (name, bytes) in fixtures() {
        let expect_one_line = !name.starts_with("indented") && !name.contains("androidx");
        assert_eq!(
            detect_style(&bytes) == XmlStyle::OneLine,
            expect_one_line,
            "{name}"
        );
    }
}

/// `uiautomator dump /dev/tty` prints the XML and the trailer on the same line.
#[test]
fn a_tty_dump_with_trailer_parses_and_keeps_the_path() {
    let xml = std::fs::read(fixture_dir().join("aosp-launcher-search-settings.xml")).unwrap();
    let mut out = xml.clone();
    out.extend_from_slice(b"UI hierchary dumped to: /dev/tty\r\n");
    match parse(&out).unwrap() {
        Dump::Hierarchy {
            hierarchy,
            dumped_to,
        } => {
            assert_eq!(dumped_to.as_deref(), Some("/dev/tty"));
            assert_eq!(to_xml(&hierarchy).as_bytes(), xml.as_slice());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn element_lists_snapshot() {
    insta::glob!("../../../../fixtures/dumps", "*.xml", |path| {
        let bytes = std::fs::read(path).unwrap();
        let h = parse_xml(&bytes).unwrap();
        insta::assert_snapshot!(render(&elements(&h)));
    });
}

#[test]
fn parse_error_messages_snapshot() {
    let doc = |body: &str| {
        format!("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">{body}</hierarchy>")
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "bad bounds",
            doc(r#"<node index="0" class="c" bounds="[0,0][x" />"#).into_bytes(),
        ),
        (
            "bad boolean",
            doc(r#"<node index="0" class="c" checked="True" bounds="[0,0][1,1]" />"#).into_bytes(),
        ),
        (
            "missing bounds",
            doc(r#"<node index="0" class="c" />"#).into_bytes(),
        ),
        (
            "unclosed node",
            b"<hierarchy rotation=\"0\"><node class=\"c\" bounds=\"[0,0][1,1]\">".to_vec(),
        ),
        (
            "mismatched end",
            doc(r#"<node class="c" bounds="[0,0][1,1]"></nod>"#).into_bytes(),
        ),
        (
            "bad utf-8",
            b"<hierarchy rotation=\"0\"><node text=\"caf\xe9\" />".to_vec(),
        ),
        (
            "bad escape",
            doc(r#"<node class="c" text="a &bogus; b" bounds="[0,0][1,1]" />"#).into_bytes(),
        ),
        (
            "unquoted value",
            doc(r#"<node class=c bounds="[0,0][1,1]" />"#).into_bytes(),
        ),
        (
            "no space between attributes",
            doc(r#"<node class="c"bounds="[0,0][1,1]" />"#).into_bytes(),
        ),
        ("not a dump", b"sh: uiautomator: not found\n".to_vec()),
        (
            "truncated",
            b"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rot".to_vec(),
        ),
    ];
    let report: String = cases
        .into_iter()
        .map(|(label, input)| match parse(&input) {
            Err(e) => format!("{label}: {e}\n"),
            Ok(d) => format!("{label}: unexpectedly parsed: {d:?}\n"),
        })
        .collect();
    insta::assert_snapshot!(report);
}

/// Serialising, parsing and serialising again gives the same bytes.
pub(super) fn assert_fixpoint(h: &Hierarchy) -> Result<(), TestCaseError> {
    for style in [XmlStyle::OneLine, XmlStyle::Indented { crlf: true }] {
        let once = to_xml_styled(h, style);
        let reparsed =
            parse_xml(once.as_bytes()).map_err(|e| TestCaseError::fail(format!("{e}\n{once}")))?;
        prop_assert_eq!(to_xml_styled(&reparsed, style), once);
    }
    Ok(())
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => Just(String::new()),
        3 => "[A-Za-z0-9 ._:/-]{0,12}",
        2 => any::<String>(),
        1 => "[&<>\"'\\t\\n\\r]{1,6}",
    ]
}

const EXTRA_NAMES: [&str; 5] = [
    "visible-to-user",
    "drawing-order",
    "hint",
    "display-id",
    "x-custom",
];
const ANCHORS: [&str; 7] = [
    "index", "selected", "bounds", "hint", "text", "NAF", "nowhere",
];

fn extras() -> impl Strategy<Value = Vec<ExtraAttr>> {
    proptest::collection::vec(
        (
            0..EXTRA_NAMES.len(),
            text(),
            proptest::option::of(0..ANCHORS.len()),
        ),
        0..3,
    )
    .prop_map(|raw| {
        let mut out: Vec<ExtraAttr> = Vec::new();
        for (name, value, after) in raw {
            if out.iter().all(|x| x.name != EXTRA_NAMES[name]) {
                out.push(ExtraAttr {
                    name: EXTRA_NAMES[name].into(),
                    value: value.into(),
                    after: after.map(|a| ANCHORS[a].into()),
                });
            }
        }
        out
    })
}

fn leaf() -> impl Strategy<Value = Node> {
    (
        (
            any::<bool>(),
            any::<u32>(),
            text(),
            text(),
            text(),
            text(),
            text(),
        ),
        proptest::collection::vec(any::<bool>(), 10),
        (any::<i32>(), any::<i32>(), any::<i32>(), any::<i32>()),
        extras(),
    )
        .prop_map(
            |(
                (naf, index, text, resource_id, class, package, content_desc),
                f,
                (l, t, r, b),
                extra,
            )| Node {
                naf,
                index,
                text: text.into(),
                resource_id: resource_id.into(),
                class: class.into(),
                package: package.into(),
                content_desc: content_desc.into(),
                checkable: f[0],
                checked: f[1],
                clickable: f[2],
                enabled: f[3],
                focusable: f[4],
                focused: f[5],
                scrollable: f[6],
                long_clickable: f[7],
                password: f[8],
                selected: f[9],
                bounds: Bounds::new(l, t, r, b),
                extra,
                children: Vec::new(),
            },
        )
}

fn tree() -> impl Strategy<Value = Node> {
    leaf().prop_recursive(4, 24, 4, |inner| {
        (leaf(), proptest::collection::vec(inner, 0..4)).prop_map(|(mut node, children)| {
            node.children = children;
            node
        })
    })
}

fn hierarchy() -> impl Strategy<Value = Hierarchy> {
    (any::<u32>(), proptest::collection::vec(tree(), 0..3)).prop_map(|(rotation, nodes)| {
        Hierarchy {
            rotation,
            extra: Vec::new(),
            nodes,
        }
    })
}

fn mutate(mut bytes: Vec<u8>, edits: &[(u8, usize, u8)]) -> Vec<u8> {
    for &(kind, at, byte) in edits {
        if bytes.is_empty() {
            break;
        }
        let at = at % bytes.len();
        match kind % 4 {
            0 => bytes[at] = byte,
            1 => {
                bytes.remove(at);
            }
            2 => bytes.insert(at, byte),
            _ => bytes.truncate(at),
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn serialize_parse_serialize_is_a_fixpoint(h in hierarchy()) {
        assert_fixpoint(&h)?;
    }

    #[test]
    fn parse_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        if let Ok(Dump::Hierarchy { hierarchy, .. }) = parse(&bytes) {
            assert_fixpoint(&hierarchy)?;
        }
    }

    #[test]
    fn parse_never_panics_on_mutated_real_dumps(
        which in 0usize..16,
        edits in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 1..6),
    ) {
        let all = fixtures();
        let (_, bytes) = &all[which % all.len()];
        let mutated = mutate(bytes.clone(), &edits);
        match parse(&mutated) {
            Ok(Dump::Hierarchy { hierarchy, .. }) => assert_fixpoint(&hierarchy)?,
            Ok(_) => {}
            Err(e) => prop_assert!(e.offset <= mutated.len(), "offset {} past the end", e.offset),
        }
    }
}

/// On a real Preference screen the title TextView is not clickable; `row`
/// lands on the LinearLayout that is, and its element carries the merged label.
#[test]
fn a_task_selector_finds_the_real_row_and_its_element() {
    let bytes = std::fs::read(fixture_dir().join("aosp-launcher-search-settings.xml")).unwrap();
    let h = parse_xml(&bytes).unwrap();
    let sel = super::Selector::from_toml("text_regex = \"Search (engine|provider)\"\nrow = true")
        .unwrap();
    let rows = sel.find_all(&h);
    assert_eq!(rows.len(), 1, "{sel}");
    assert!(rows[0].clickable && rows[0].class == "android.widget.LinearLayout");
    let el = elements(&h)
        .into_iter()
        .find(|e| e.bounds == rows[0].bounds)
        .expect("the row is an element");
    assert_eq!(el.label, "Search engine — Intelligent Search");
    assert_eq!(el.center, (672, 614));
    let title_only = super::Selector::text("Search engine").clickable(true);
    assert!(
        title_only.find_first(&h).is_none(),
        "the title itself is not the tap target"
    );
}
