//! Writing a [`Hierarchy`] back as uiautomator writes it, byte for byte.
//!
//! The form is what AOSP `AccessibilityNodeInfoDumper` (cmds/uiautomator, and
//! androidx.test.uiautomator's copy) produces through `Xml.newSerializer()`, which
//! is libcore's `org.kxml2.io.KXmlSerializer`:
//! - declaration `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>`;
//! - attributes in the dumper's order (`NAF` first and only when true), extras
//!   put back after the attribute they followed;
//! - leaves close with ` />` (KXmlSerializer writes a space), others with `</node>`;
//! - attribute values (KXmlSerializer `writeEscaped`): `&` `<` `>` become
//!   `&amp;` `&lt;` `&gt;`; tab, newline and carriage return become `&#9;`
//!   `&#10;` `&#13;`; the value is quoted with `"` unless it contains one, then
//!   with `'` and `'` is written `&apos;` (a `"` inside stays literal); characters
//!   above U+FFFF (emoji) are written as decimal `&#N;`; everything else literally.
//! - before that, the dumper's `stripInvalidXMLChars` turns U+0001–U+0008,
//!   U+000B–U+000C, U+000E–U+001F, U+007F–U+0084, U+0086–U+009F and
//!   U+FDD0–U+FDDF into `.`. We also write `.` for U+0000, U+FFFE and U+FFFF,
//!   where the device's serializer would throw and the dump would fail.
//!
//! [`XmlStyle::OneLine`] is `uiautomator dump`; [`XmlStyle::Indented`] is androidx
//! `UiDevice.dumpWindowHierarchy`, which turns on KXmlSerializer's indent-output:
//! CRLF then two spaces per depth before each start tag and each non-leaf end tag.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::node::{ExtraAttr, Hierarchy, Node};

/// The declaration both dumpers write.
pub(crate) const DECLARATION: &str = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>";

/// Layout of the XML: AOSP `uiautomator dump` or androidx `dumpWindowHierarchy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum XmlStyle {
    /// Everything on one line, as `uiautomator dump` writes it.
    #[default]
    OneLine,
    /// KXmlSerializer indent-output, as androidx writes it. `crlf: false` writes
    /// bare `\n` (what a CRLF dump becomes after a trip through git or an editor).
    Indented { crlf: bool },
}

/// Which layout a dump was written in, judged from the whitespace before its
/// first tag after the declaration.
#[cfg(test)]
pub(crate) fn detect_style(input: &[u8]) -> XmlStyle {
    let rest = match input.windows(2).position(|w| w == b"?>") {
        Some(i) => &input[i + 2..],
        None => input,
    };
    match rest.iter().position(|&b| b == b'<') {
        Some(i) if rest[..i].ends_with(b"\r\n") => XmlStyle::Indented { crlf: true },
        Some(i) if rest[..i].contains(&b'\n') => XmlStyle::Indented { crlf: false },
        _ => XmlStyle::OneLine,
    }
}

/// The hierarchy as `uiautomator dump` writes it (one line, no trailer).
pub fn to_xml(h: &Hierarchy) -> String {
    to_xml_styled(h, XmlStyle::OneLine)
}

/// The hierarchy in the given layout.
pub fn to_xml_styled(h: &Hierarchy, style: XmlStyle) -> String {
    let nodes: usize = h.walk().count();
    let mut w = Writer {
        out: String::with_capacity(128 + nodes * 420),
        style,
    };
    w.out.push_str(DECLARATION);
    w.newline(0);
    w.out.push_str("<hierarchy");
    let mut extras = Extras::new(&h.extra);
    extras.before_first(&mut w.out);
    w.out.push_str(" rotation=\"");
    let _ = write!(w.out, "{}", h.rotation);
    w.out.push('"');
    extras.after("rotation", &mut w.out);
    extras.rest(&mut w.out);
    if h.nodes.is_empty() {
        w.out.push_str(" />");
        return w.out;
    }
    w.out.push('>');
    for node in &h.nodes {
        w.node(node, 1);
    }
    w.newline(0);
    w.out.push_str("</hierarchy>");
    w.out
}

struct Writer {
    out: String,
    style: XmlStyle,
}

impl Writer {
    fn newline(&mut self, depth: usize) {
        if let XmlStyle::Indented { crlf } = self.style {
            self.out.push_str(if crlf { "\r\n" } else { "\n" });
            for _ in 0..depth {
                self.out.push_str("  ");
            }
        }
    }

    fn node(&mut self, n: &Node, depth: usize) {
        self.newline(depth);
        let out = &mut self.out;
        out.push_str("<node");
        let mut extras = Extras::new(&n.extra);
        extras.before_first(out);
        if n.naf {
            out.push_str(" NAF=\"true\"");
            extras.after("NAF", out);
        }
        out.push_str(" index=\"");
        let _ = write!(out, "{}", n.index);
        out.push('"');
        extras.after("index", out);
        for (name, value) in [
            ("text", &n.text),
            ("resource-id", &n.resource_id),
            ("class", &n.class),
            ("package", &n.package),
            ("content-desc", &n.content_desc),
        ] {
            attr(out, name, value);
            extras.after(name, out);
        }
        for (name, value) in [
            ("checkable", n.checkable),
            ("checked", n.checked),
            ("clickable", n.clickable),
            ("enabled", n.enabled),
            ("focusable", n.focusable),
            ("focused", n.focused),
            ("scrollable", n.scrollable),
            ("long-clickable", n.long_clickable),
            ("password", n.password),
            ("selected", n.selected),
        ] {
            out.push(' ');
            out.push_str(name);
            out.push_str(if value { "=\"true\"" } else { "=\"false\"" });
            extras.after(name, out);
        }
        let _ = write!(out, " bounds=\"{}\"", n.bounds);
        extras.after("bounds", out);
        extras.rest(out);
        if n.children.is_empty() {
            out.push_str(" />");
            return;
        }
        out.push('>');
        for child in &n.children {
            self.node(child, depth + 1);
        }
        self.newline(depth);
        self.out.push_str("</node>");
    }
}

/// Puts extra attributes back where they were: after the attribute named in
/// `after` (chains of extras included), `None` first, unknown anchors last.
/// Each anchor's extras are looked up once, so a node's extras cost time
/// linear in their number (a scan of the list per attribute was quadratic).
struct Extras<'a> {
    list: &'a [ExtraAttr],
    written: Vec<bool>,
    /// The extras that followed each attribute, by name, in source order;
    /// an anchor's entry is taken when its extras are written.
    by_anchor: HashMap<&'a str, Vec<usize>>,
}

impl<'a> Extras<'a> {
    fn new(list: &'a [ExtraAttr]) -> Self {
        let mut by_anchor: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, extra) in list.iter().enumerate() {
            if let Some(anchor) = &extra.after {
                by_anchor.entry(anchor.as_str()).or_default().push(i);
            }
        }
        Self {
            list,
            written: vec![false; list.len()],
            by_anchor,
        }
    }

    fn before_first(&mut self, out: &mut String) {
        for i in 0..self.list.len() {
            if self.list[i].after.is_none() && !self.written[i] {
                self.write(i, out);
            }
        }
    }

    fn after(&mut self, name: &str, out: &mut String) {
        let Some(followers) = self.by_anchor.remove(name) else {
            return;
        };
        for i in followers {
            if !self.written[i] {
                self.write(i, out);
            }
        }
    }

    fn write(&mut self, i: usize, out: &mut String) {
        self.written[i] = true;
        let list = self.list;
        let extra = &list[i];
        attr(out, &extra.name, &extra.value);
        self.after(&extra.name, out);
    }

    fn rest(&mut self, out: &mut String) {
        for i in 0..self.list.len() {
            if !self.written[i] {
                self.write(i, out);
            }
        }
    }
}

/// ` name="value"` escaped as KXmlSerializer does.
fn attr(out: &mut String, name: &str, value: &str) {
    out.push(' ');
    out.push_str(name);
    out.push('=');
    let quote = if value.contains('"') { '\'' } else { '"' };
    out.push(quote);
    escape_into(out, value, quote);
    out.push(quote);
}

fn is_plain(b: u8) -> bool {
    (0x20..0x7f).contains(&b) && !matches!(b, b'&' | b'<' | b'>' | b'"' | b'\'')
}

/// What `AccessibilityNodeInfoDumper.stripInvalidXMLChars` replaces with `.`.
fn stripped_by_dumper(c: char) -> bool {
    matches!(c as u32, 0x1..=0x8 | 0xB..=0xC | 0xE..=0x1F | 0x7F..=0x84 | 0x86..=0x9F | 0xFDD0..=0xFDDF)
}

fn escape_into(out: &mut String, value: &str, quote: char) {
    if value.bytes().all(is_plain) {
        out.push_str(value);
        return;
    }
    for c in value.chars() {
        let c = if stripped_by_dumper(c) { '.' } else { c };
        match c {
            '\t' | '\n' | '\r' => {
                let _ = write!(out, "&#{};", c as u32);
            }
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if quote == '"' => out.push_str("&quot;"),
            '\'' if quote == '\'' => out.push_str("&apos;"),
            '\0' | '\u{FFFE}' | '\u{FFFF}' => out.push('.'),
            c if c as u32 > 0xFFFF => {
                let _ = write!(out, "&#{};", c as u32);
            }
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::node::Bounds;
    use super::*;

    fn leaf(text: &str) -> Node {
        Node {
            text: text.into(),
            class: "android.widget.TextView".into(),
            package: "p".into(),
            enabled: true,
            bounds: Bounds::new(0, 0, 10, 10),
            ..Node::default()
        }
    }

    fn one(node: Node) -> Hierarchy {
        Hierarchy {
            nodes: vec![node],
            ..Hierarchy::default()
        }
    }

    #[test]
    fn aosp_attribute_order_and_leaf_close() {
        let xml = to_xml(&one(Node {
            naf: true,
            ..leaf("")
        }));
        assert_eq!(
            xml,
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node NAF=\"true\" index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.TextView\" package=\"p\" content-desc=\"\" checkable=\"false\" checked=\"false\" clickable=\"false\" enabled=\"true\" focusable=\"false\" focused=\"false\" scrollable=\"false\" long-clickable=\"false\" password=\"false\" selected=\"false\" bounds=\"[0,0][10,10]\" /></hierarchy>"
        );
    }

    #[test]
    fn escaping_follows_kxmlserializer() {
        let mut out = String::new();
        escape_into(
            &mut out,
            "a&b<c>d\"e'f\tg\nh\ri😀é\u{1}\u{85}\u{fdd0}\0",
            '"',
        );
        assert_eq!(
            out,
            "a&amp;b&lt;c&gt;d&quot;e'f&#9;g&#10;h&#13;i&#128512;é.\u{85}.."
        );
    }

    #[test]
    fn a_double_quote_switches_to_single_quotes() {
        let mut out = String::new();
        attr(&mut out, "text", "say \"hi\" it's");
        assert_eq!(out, " text='say \"hi\" it&apos;s'");
    }

    #[test]
    fn extras_go_back_where_they_were() {
        let extra = |name: &str, after: Option<&str>| ExtraAttr {
            name: name.into(),
            value: "v".into(),
            after: after.map(Into::into),
        };
        let node = Node {
            extra: vec![
                extra("first", None),
                extra("visible-to-user", Some("selected")),
                extra("hint", Some("bounds")),
                extra("display-id", Some("hint")),
                extra("orphan", Some("no-such-attr")),
            ],
            ..leaf("x")
        };
        let xml = to_xml(&one(node));
        let order: Vec<&str> = xml
            .split(' ')
            .filter_map(|a| a.split_once('=').map(|(name, _)| name))
            .filter(|n| {
                !n.contains('?') && *n != "version" && *n != "encoding" && *n != "standalone"
            })
            .collect();
        assert_eq!(&order[..3], ["rotation", "first", "index"]);
        assert_eq!(
            &order[order.len() - 6..],
            [
                "selected",
                "visible-to-user",
                "bounds",
                "hint",
                "display-id",
                "orphan"
            ]
        );
    }

    #[test]
    fn indented_form_matches_kxml_indent_output() {
        let h = Hierarchy {
            nodes: vec![Node {
                children: vec![leaf("a")],
                ..leaf("")
            }],
            ..Hierarchy::default()
        };
        let xml = to_xml_styled(&h, XmlStyle::Indented { crlf: true });
        let shape: Vec<String> = xml
            .split("\r\n")
            .map(|l| {
                let indent = l.len() - l.trim_start().len();
                format!(
                    "{indent}:{}",
                    l.trim_start().split(' ').next().unwrap_or("")
                )
            })
            .collect();
        assert_eq!(
            shape,
            [
                "0:<?xml",
                "0:<hierarchy",
                "2:<node",
                "4:<node",
                "2:</node>",
                "0:</hierarchy>"
            ]
        );
        assert!(xml.contains("[0,0][10,10]\" />\r\n  </node>"));
    }

    #[test]
    fn empty_hierarchy_self_closes() {
        assert_eq!(
            to_xml(&Hierarchy::default()),
            format!("{DECLARATION}<hierarchy rotation=\"0\" />")
        );
    }

    #[test]
    fn style_is_detected() {
        assert_eq!(
            detect_style(b"<?xml ?><hierarchy><node/>"),
            XmlStyle::OneLine
        );
        assert_eq!(
            detect_style(b"<?xml ?>\r\n<hierarchy>"),
            XmlStyle::Indented { crlf: true }
        );
        assert_eq!(
            detect_style(b"<?xml ?>\n<hierarchy>"),
            XmlStyle::Indented { crlf: false }
        );
    }
}
