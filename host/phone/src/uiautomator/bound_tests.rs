//! [`MAX_EXTRA_ATTRIBUTES`] through the whole parser: a tag at the bound
//! read whole and written back, one more refused, and 200,000 refused
//! without the quadratic work it once took. Apart from attrs.rs so that it
//! need not import the parser, which imports attrs.

use super::attrs::MAX_EXTRA_ATTRIBUTES;
use super::{parse_xml, to_xml};

/// A dump whose one node has `class`, `bounds` and `extras` extra attributes.
fn node_with_extras(extras: usize) -> String {
    let mut tag = String::from(r#"<node class="c" bounds="[0,0][1,1]""#);
    for i in 0..extras {
        tag.push_str(&format!(r#" x{i}="v{i}""#));
    }
    format!(r#"<hierarchy rotation="0">{tag} /></hierarchy>"#)
}

/// Issue 30: each extra attribute was checked against every one before
/// it, so `ui` on a node with 200,000 attributes took over 30 s; and no
/// bound said how many a node may have.
#[test]
fn a_node_at_the_attribute_bound_is_read_whole_and_one_more_is_refused() {
    let extras = MAX_EXTRA_ATTRIBUTES;
    let h = parse_xml(node_with_extras(extras).as_bytes()).unwrap();
    let node = &h.nodes[0];
    assert_eq!(node.extra.len(), extras);
    for (i, extra) in node.extra.iter().enumerate() {
        assert_eq!(
            (extra.name.as_str(), extra.value.as_str()),
            (&*format!("x{i}"), &*format!("v{i}"))
        );
    }
    let again = parse_xml(to_xml(&h).as_bytes()).unwrap();
    assert_eq!(again, h, "every extra goes back where it was");

    let refused = parse_xml(node_with_extras(extras + 1).as_bytes()).unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!("<node> at byte 24 has over {MAX_EXTRA_ATTRIBUTES} attributes besides uiautomator's own")
    );
    let huge = parse_xml(node_with_extras(200_000).as_bytes()).unwrap_err();
    assert_eq!(huge, refused);
}

#[test]
fn a_duplicate_among_many_extras_is_still_refused() {
    let input = node_with_extras(MAX_EXTRA_ATTRIBUTES - 1).replace(" />", r#" x7="again" />"#);
    let e = parse_xml(input.as_bytes()).unwrap_err().to_string();
    assert!(e.starts_with("duplicate attribute x7 at byte"), "{e}");
    let input = node_with_extras(3).replace(" />", r#" x1="again" />"#);
    let e = parse_xml(input.as_bytes()).unwrap_err().to_string();
    assert!(e.starts_with("duplicate attribute x1 at byte"), "{e}");
}

#[test]
fn the_hierarchy_tag_has_the_same_bound() {
    let attrs: String = (0..MAX_EXTRA_ATTRIBUTES)
        .map(|i| format!(" h{i}=\"v\""))
        .collect();
    let at_bound = format!("<hierarchy{attrs}></hierarchy>");
    assert_eq!(
        parse_xml(at_bound.as_bytes()).unwrap().extra.len(),
        MAX_EXTRA_ATTRIBUTES
    );
    let past = format!("<hierarchy rotation=\"0\"{attrs} one-more=\"v\"></hierarchy>");
    let e = parse_xml(past.as_bytes()).unwrap_err().to_string();
    assert_eq!(
        e,
        format!("<hierarchy> at byte 0 has over {MAX_EXTRA_ATTRIBUTES} attributes besides uiautomator's own")
    );
}
