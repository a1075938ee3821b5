//! Parsing what `uiautomator dump` prints: the hierarchy XML (AOSP one-line form or
//! androidx's indented form), optionally followed by the `UI hierchary dumped to:`
//! trailer, or only that trailer, or one of the `ERROR:` lines a device prints with
//! exit status 0. Device failures are typed results ([`Dump::Failed`]); only input
//! that is not a dump at all is a [`ParseError`], and no input ever panics.
//!
//! Required on every `<node>`: `class` and `bounds` (AOSP always writes both; a
//! node without them cannot be matched or tapped). Every other AOSP attribute is
//! optional and defaults to `""`, `false` or `0`, because dumps from other writers
//! (Appium, hand-trimmed test data) leave some out. `rotation` on `<hierarchy>`
//! defaults to 0. Attributes outside AOSP's set land in `Node::extra` in document
//! order. Attribute values are unescaped but not whitespace-normalised (AOSP
//! writes newlines as `&#10;`, so a literal newline is kept as written).

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::attrs::{clip, lower_first, parse_hierarchy_attrs, parse_node, tag_offset};
use super::error::ParseError;
use super::node::{Hierarchy, Node};

/// Deeper nesting than this is refused rather than risking the stack later on
/// (drop and serialisation recurse). Real trees are a few dozen levels deep.
pub(crate) const MAX_DEPTH: usize = 512;

/// The success trailer, misspelt exactly as AOSP `DumpCommand` prints it.
const DUMPED_TO: &str = "UI hierchary dumped to:";
/// The correctly spelt variant, accepted in case a build ever fixes the typo.
const DUMPED_TO_FIXED: &str = "UI hierarchy dumped to:";

/// What one run of `uiautomator dump` produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dump {
    /// The XML itself (dumped to `/dev/tty` or read back), with the trailer line
    /// naming where it was written when that line was present.
    Hierarchy {
        hierarchy: Hierarchy,
        dumped_to: Option<String>,
    },
    /// Only the trailer: the XML is in this file on the device, to read back.
    DumpedTo(String),
    /// The device reported a failure (with exit status 0).
    Failed(DumpFailure),
}

/// A failure `uiautomator dump` reports on stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DumpFailure {
    /// `ERROR: could not get idle state.`: the UI never went quiet for 1 s within 10 s.
    IdleState,
    /// `ERROR: null root node returned by UiTestAutomationBridge.`
    NullRoot,
    /// Any other line starting `ERROR:`, verbatim.
    Other(String),
}

/// Parse the stdout of `uiautomator dump` (or a dump file read back).
pub fn parse(input: &[u8]) -> Result<Dump, ParseError> {
    let text = as_utf8(input)?;
    let start = text.len() - text.trim_start().len();
    if text[start..].starts_with('<') {
        let (hierarchy, end) = parse_document(text)?;
        let dumped_to = trailer(text, end)?;
        return Ok(Dump::Hierarchy {
            hierarchy,
            dumped_to,
        });
    }
    parse_status_lines(text)
}

/// Parse a dump file's XML alone: no trailer, no `ERROR:` lines.
pub fn parse_xml(input: &[u8]) -> Result<Hierarchy, ParseError> {
    let text = as_utf8(input)?;
    let (hierarchy, end) = parse_document(text)?;
    match text[end..].trim_start().is_empty() {
        true => Ok(hierarchy),
        false => Err(after_root_error(text, end)),
    }
}

fn as_utf8(input: &[u8]) -> Result<&str, ParseError> {
    std::str::from_utf8(input).map_err(|e| {
        let at = e.valid_up_to();
        ParseError::new(at, format!("invalid utf-8 at byte {at}"))
    })
}

/// Lines without XML: the trailer alone, or an `ERROR:` line.
fn parse_status_lines(text: &str) -> Result<Dump, ParseError> {
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line = raw.trim();
        let at = offset + (raw.len() - raw.trim_start().len());
        offset += raw.len();
        if line.is_empty() {
            continue;
        }
        if let Some(path) = dumped_to_path(line) {
            return match path.is_empty() {
                true => Err(ParseError::new(
                    at,
                    format!("dump trailer at byte {at} names no path"),
                )),
                false => Ok(Dump::DumpedTo(path.to_owned())),
            };
        }
        if line.starts_with("ERROR:") {
            return Ok(Dump::Failed(classify_error(line)));
        }
        return Err(ParseError::new(
            at,
            format!(
                "unexpected output {:?} at byte {at}: not a uiautomator dump",
                clip(line)
            ),
        ));
    }
    Err(ParseError::new(
        text.len(),
        "empty output: no hierarchy, trailer or error",
    ))
}

fn classify_error(line: &str) -> DumpFailure {
    match line {
        "ERROR: could not get idle state." => DumpFailure::IdleState,
        "ERROR: null root node returned by UiTestAutomationBridge." => DumpFailure::NullRoot,
        other => DumpFailure::Other(other.to_owned()),
    }
}

fn dumped_to_path(line: &str) -> Option<&str> {
    line.strip_prefix(DUMPED_TO)
        .or_else(|| line.strip_prefix(DUMPED_TO_FIXED))
        .map(str::trim)
}

/// What may follow `</hierarchy>`: whitespace, then at most the trailer line.
fn trailer(text: &str, end: usize) -> Result<Option<String>, ParseError> {
    let rest = text[end..].trim();
    if rest.is_empty() {
        return Ok(None);
    }
    match dumped_to_path(rest) {
        Some(path) if !path.is_empty() && !path.contains('\n') => Ok(Some(path.to_owned())),
        _ => Err(after_root_error(text, end)),
    }
}

fn after_root_error(text: &str, end: usize) -> ParseError {
    let rest = text[end..].trim_start();
    let at = text.len() - rest.len();
    ParseError::new(
        at,
        format!(
            "unexpected {:?} at byte {at} after </hierarchy>",
            clip(rest.lines().next().unwrap_or(rest))
        ),
    )
}

#[derive(PartialEq)]
enum State {
    BeforeRoot,
    InRoot,
}

/// Parse the XML document at the start of `text`; returns the hierarchy and the
/// byte offset just after the root element closes.
fn parse_document(text: &str) -> Result<(Hierarchy, usize), ParseError> {
    let mut reader = Reader::from_str(text);
    let mut state = State::BeforeRoot;
    let mut seen_decl = false;
    let mut hierarchy = Hierarchy::default();
    let mut stack: Vec<Node> = Vec::new();
    loop {
        let before = reader.buffer_position() as usize;
        let event = reader.read_event().map_err(|e| {
            let at = reader.error_position() as usize;
            ParseError::new(
                at,
                format!(
                    "malformed xml at byte {at}: {}",
                    lower_first(&e.to_string())
                ),
            )
        })?;
        match event {
            Event::Decl(_) if state == State::BeforeRoot && !seen_decl => seen_decl = true,
            Event::Start(e) => {
                if open_tag(
                    text,
                    &e,
                    before,
                    false,
                    &mut state,
                    &mut stack,
                    &mut hierarchy,
                )? {
                    return Ok((hierarchy, reader.buffer_position() as usize));
                }
            }
            Event::Empty(e) => {
                if open_tag(
                    text,
                    &e,
                    before,
                    true,
                    &mut state,
                    &mut stack,
                    &mut hierarchy,
                )? {
                    return Ok((hierarchy, reader.buffer_position() as usize));
                }
            }
            Event::End(e) => {
                // quick-xml has already checked that the name matches its start tag.
                if e.name().0 == "hierarchy" {
                    return Ok((hierarchy, reader.buffer_position() as usize));
                }
                if let Some(node) = stack.pop() {
                    attach(&mut stack, &mut hierarchy, node);
                }
            }
            Event::Text(t) if t.trim().is_empty() => {}
            Event::Eof => {
                let at = text.len();
                let open = if stack.is_empty() {
                    "<hierarchy>"
                } else {
                    "<node>"
                };
                return Err(ParseError::new(
                    at,
                    match state {
                        State::BeforeRoot => {
                            format!("input ends at byte {at} before any <hierarchy>")
                        }
                        State::InRoot => {
                            format!("input ends at byte {at} inside an unclosed {open}")
                        }
                    },
                ));
            }
            other => {
                let what = match other {
                    Event::Decl(_) => "xml declaration",
                    Event::Text(_) | Event::GeneralRef(_) | Event::CData(_) => "text",
                    Event::Comment(_) => "comment",
                    Event::PI(_) => "processing instruction",
                    Event::DocType(_) => "doctype",
                    Event::Start(_) | Event::Empty(_) => "element",
                    Event::End(_) | Event::Eof => "token",
                };
                let at = first_non_space(text, before);
                let detail = match other {
                    Event::Start(e) | Event::Empty(e) => format!(" <{}>", clip(e.name().0)),
                    _ => String::new(),
                };
                return Err(ParseError::new(
                    at,
                    format!("unexpected {what}{detail} at byte {at}"),
                ));
            }
        }
    }
}

fn first_non_space(text: &str, from: usize) -> usize {
    let rest = text.get(from..).unwrap_or("");
    from + (rest.len() - rest.trim_start().len())
}

/// Handle `<hierarchy>` or `<node>` (`empty`: self-closed). Returns true when the
/// root element is complete (a self-closed `<hierarchy />`).
fn open_tag(
    text: &str,
    e: &BytesStart<'_>,
    before: usize,
    empty: bool,
    state: &mut State,
    stack: &mut Vec<Node>,
    hierarchy: &mut Hierarchy,
) -> Result<bool, ParseError> {
    let at = tag_offset(text, e, before);
    if e.name().0 == "hierarchy" {
        if *state != State::BeforeRoot {
            return Err(ParseError::new(
                at,
                format!("nested <hierarchy> at byte {at}"),
            ));
        }
        parse_hierarchy_attrs(text, e, hierarchy)?;
        *state = State::InRoot;
        return Ok(empty);
    }
    if e.name().0 != "node" {
        return Err(ParseError::new(
            at,
            format!("unexpected element <{}> at byte {at}", clip(e.name().0)),
        ));
    }
    if *state != State::InRoot {
        return Err(ParseError::new(
            at,
            format!("<node> at byte {at} is outside <hierarchy>"),
        ));
    }
    let node = parse_node(text, e, at)?;
    if empty {
        attach(stack, hierarchy, node);
    } else {
        if stack.len() >= MAX_DEPTH {
            return Err(ParseError::new(
                at,
                format!("<node> at byte {at} is nested deeper than {MAX_DEPTH}"),
            ));
        }
        stack.push(node);
    }
    Ok(false)
}

fn attach(stack: &mut [Node], hierarchy: &mut Hierarchy, node: Node) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(node),
        None => hierarchy.nodes.push(node),
    }
}

#[cfg(test)]
mod tests {
    use super::super::node::Bounds;
    use super::*;

    const LEAF: &str = r#"<node index="0" text="Wi-Fi" resource-id="android:id/title" class="android.widget.TextView" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][100,50]" />"#;

    fn doc(body: &str) -> String {
        format!("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">{body}</hierarchy>")
    }

    fn hierarchy(input: &str) -> Hierarchy {
        match parse(input.as_bytes()) {
            Ok(Dump::Hierarchy { hierarchy, .. }) => hierarchy,
            other => panic!("expected a hierarchy, got {other:?}"),
        }
    }

    fn error(input: &str) -> String {
        match parse(input.as_bytes()) {
            Err(e) => e.to_string(),
            Ok(d) => panic!("expected an error, got {d:?}"),
        }
    }

    #[test]
    fn typed_fields_are_read() {
        let h = hierarchy(&doc(LEAF));
        let n = &h.nodes[0];
        assert_eq!(n.text, "Wi-Fi");
        assert_eq!(n.resource_id, "android:id/title");
        assert_eq!(n.class, "android.widget.TextView");
        assert!(n.enabled && !n.clickable && !n.naf);
        assert_eq!(n.bounds, Bounds::new(0, 0, 100, 50));
        assert!(n.extra.is_empty());
    }

    #[test]
    fn trailer_after_xml_is_kept() {
        let input = format!("{}UI hierchary dumped to: /dev/tty\r\n", doc(LEAF));
        match parse(input.as_bytes()).unwrap() {
            Dump::Hierarchy {
                dumped_to,
                hierarchy,
            } => {
                assert_eq!(dumped_to.as_deref(), Some("/dev/tty"));
                assert_eq!(hierarchy.nodes.len(), 1);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn trailer_alone_names_the_file() {
        let got = parse(b"UI hierchary dumped to: /sdcard/window_dump.xml\n").unwrap();
        assert_eq!(got, Dump::DumpedTo("/sdcard/window_dump.xml".into()));
    }

    #[test]
    fn device_errors_are_typed_results() {
        assert_eq!(
            parse(b"ERROR: could not get idle state.\n").unwrap(),
            Dump::Failed(DumpFailure::IdleState)
        );
        assert_eq!(
            parse(b"ERROR: null root node returned by UiTestAutomationBridge.\r\n").unwrap(),
            Dump::Failed(DumpFailure::NullRoot)
        );
        assert_eq!(
            parse(b"ERROR: something new\n").unwrap(),
            Dump::Failed(DumpFailure::Other("ERROR: something new".into()))
        );
    }

    #[test]
    fn extras_remember_what_they_followed() {
        let input = doc(
            r#"<node index="0" class="a" selected="false" visible-to-user="true" bounds="[0,0][1,1]" hint="" display-id="0" />"#,
        );
        let n = &hierarchy(&input).nodes[0];
        let got: Vec<_> = n
            .extra
            .iter()
            .map(|x| (x.name.as_str(), x.after.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("visible-to-user", Some("selected")),
                ("hint", Some("bounds")),
                ("display-id", Some("hint"))
            ]
        );
    }

    #[test]
    fn naf_and_escapes_and_nesting() {
        let input = doc(
            r#"<node NAF="true" index="3" text="Tom &amp; Jerry&#10;&#128512;" class="c" bounds="[-5,0][10,10]"><node index="0" class="d" bounds="[0,0][1,1]" /></node>"#,
        );
        let h = hierarchy(&input);
        let n = &h.nodes[0];
        assert!(n.naf);
        assert_eq!(n.index, 3);
        assert_eq!(n.text, "Tom & Jerry\n😀");
        assert_eq!(n.bounds.left, -5);
        assert_eq!(n.children[0].class, "d");
    }

    #[test]
    fn single_quoted_values_are_accepted() {
        let h = hierarchy(&doc(
            r#"<node index="0" text='say "hi" &apos;x&apos;' class="c" bounds="[0,0][1,1]" />"#,
        ));
        assert_eq!(h.nodes[0].text, r#"say "hi" 'x'"#);
    }

    #[test]
    fn indented_androidx_form_is_read() {
        let input = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\r\n<hierarchy rotation=\"1\">\r\n  <node index=\"0\" class=\"a\" bounds=\"[0,0][1,1]\">\r\n    <node index=\"0\" class=\"b\" bounds=\"[0,0][1,1]\" />\r\n  </node>\r\n</hierarchy>";
        let h = hierarchy(input);
        assert_eq!(h.rotation, 1);
        assert_eq!(h.nodes[0].children.len(), 1);
    }

    #[test]
    fn empty_hierarchy_is_a_hierarchy() {
        let h = hierarchy(
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\" />",
        );
        assert!(h.nodes.is_empty());
    }

    #[test]
    fn bad_bounds_names_value_and_offset() {
        let input = doc(r#"<node index="0" class="c" bounds="[0,0][x" />"#);
        let at = input.find("[0,0][x").unwrap();
        let err = parse(input.as_bytes()).unwrap_err();
        assert_eq!(err.offset, at);
        assert_eq!(
            err.message,
            format!("bounds \"[0,0][x\" at byte {at} is not [l,t][r,b]")
        );
    }

    #[test]
    fn malformed_inputs_are_errors() {
        assert!(error(&doc(
            r#"<node class="c" bounds="[0,0][1,1]" checked="yes" />"#
        ))
        .contains("checked \"yes\""));
        assert!(error(&doc(r#"<node class="c" />"#)).contains("no bounds attribute"));
        assert!(error(&doc(r#"<node bounds="[0,0][1,1]" />"#)).contains("no class attribute"));
        assert!(
            error(&doc(r#"<node class="c" class="d" bounds="[0,0][1,1]" />"#))
                .contains("duplicate attribute class")
        );
        assert!(
            error(&doc(r#"<node index="-1" class="c" bounds="[0,0][1,1]" />"#))
                .contains("not a number")
        );
        assert!(
            error("<hierarchy rotation=\"0\"><node class=\"c\" bounds=\"[0,0][1,1]\">")
                .contains("unclosed <node>")
        );
        assert!(error("<hierarchy rotation=\"0\"><foo/></hierarchy>")
            .contains("unexpected element <foo>"));
        assert!(error(&format!("{}garbage", doc(""))).contains("after </hierarchy>"));
        assert!(error("Killed\n").contains("not a uiautomator dump"));
        assert!(error("").contains("empty output"));
    }

    #[test]
    fn bad_utf8_is_an_error_with_offset() {
        let err = parse(b"<hierarchy rotation=\"0\"><node text=\"\xff\"").unwrap_err();
        assert_eq!(err.offset, 36);
        assert_eq!(err.message, "invalid utf-8 at byte 36");
    }

    #[test]
    fn deep_nesting_is_refused() {
        let mut input = String::from("<hierarchy rotation=\"0\">");
        for _ in 0..=MAX_DEPTH {
            input.push_str(r#"<node class="c" bounds="[0,0][1,1]">"#);
        }
        assert!(error(&input).contains("nested deeper than 512"));
    }
}
