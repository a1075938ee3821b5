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

use std::borrow::Cow;

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::node::{Bounds, ExtraAttr, Hierarchy, Node};

/// Deeper nesting than this is refused rather than risking the stack later on
/// (drop and serialisation recurse). Real trees are a few dozen levels deep.
pub const MAX_DEPTH: usize = 512;

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

/// Input that is not a uiautomator dump. `message` is a lowercase fragment that
/// already names the byte offset; `offset` is the same position for callers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    pub offset: usize,
    pub message: String,
}

impl ParseError {
    fn new(offset: usize, message: impl Into<String>) -> Self {
        Self {
            offset,
            message: message.into(),
        }
    }
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

/// Up to 40 characters of `s`, for error messages.
fn clip(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(40) {
        Some((i, _)) => Cow::Owned(format!("{}…", &s[..i])),
        None => Cow::Borrowed(s),
    }
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

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
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

/// Byte offset of `part` inside `base`, when it is a sub-slice of it.
#[inline]
fn offset_in(base: &str, part: &str) -> Option<usize> {
    let off = (part.as_ptr() as usize).checked_sub(base.as_ptr() as usize)?;
    (off <= base.len()).then_some(off)
}

/// Offset of the `<` that opens `e`.
fn tag_offset(text: &str, e: &BytesStart<'_>, fallback: usize) -> usize {
    offset_in(text, e.name().0).map_or(fallback, |o| o.saturating_sub(1))
}

#[inline]
fn value_offset(text: &str, value: &str, fallback: usize) -> usize {
    offset_in(text, value).unwrap_or(fallback)
}

/// An attribute value with entities and character references resolved.
#[inline]
fn unescape(value: &str, at: usize, name: &str) -> Result<String, ParseError> {
    if find_byte(value, b'&').is_none() {
        return Ok(value.to_owned());
    }
    quick_xml::escape::unescape(value)
        .map(Cow::into_owned)
        .map_err(|e| {
            ParseError::new(
                at,
                format!(
                    "{name} {:?} at byte {at} has a bad escape: {}",
                    clip(value),
                    lower_first(&e.to_string())
                ),
            )
        })
}

#[inline]
fn parse_bool(value: &str, at: usize, name: &str) -> Result<bool, ParseError> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(ParseError::new(
            at,
            format!("{name} {:?} at byte {at} is not true or false", clip(value)),
        )),
    }
}

fn parse_u32(value: &str, at: usize, name: &str) -> Result<u32, ParseError> {
    // `u32::from_str` takes a leading `+`; uiautomator never writes one.
    match value.bytes().all(|b| b.is_ascii_digit()) {
        true => value.parse().ok(),
        false => None,
    }
    .ok_or_else(|| {
        ParseError::new(
            at,
            format!("{name} {:?} at byte {at} is not a number", clip(value)),
        )
    })
}

/// `[l,t][r,b]`, each an optionally negative decimal `i32`, no spaces.
pub(crate) fn parse_bounds(value: &str) -> Option<Bounds> {
    fn int(s: &[u8], i: &mut usize) -> Option<i32> {
        let negative = s.get(*i) == Some(&b'-');
        if negative {
            *i += 1;
        }
        let digits = *i;
        let mut value: i64 = 0;
        while let Some(d) = s.get(*i).filter(|d| d.is_ascii_digit()) {
            value = value * 10 + i64::from(d - b'0');
            if value > 1 << 31 {
                return None;
            }
            *i += 1;
        }
        if *i == digits {
            return None;
        }
        i32::try_from(if negative { -value } else { value }).ok()
    }
    fn byte(s: &[u8], i: &mut usize, want: u8) -> Option<()> {
        (s.get(*i) == Some(&want)).then(|| *i += 1)
    }
    let s = value.as_bytes();
    let mut i = 0;
    byte(s, &mut i, b'[')?;
    let left = int(s, &mut i)?;
    byte(s, &mut i, b',')?;
    let top = int(s, &mut i)?;
    byte(s, &mut i, b']')?;
    byte(s, &mut i, b'[')?;
    let right = int(s, &mut i)?;
    byte(s, &mut i, b',')?;
    let bottom = int(s, &mut i)?;
    byte(s, &mut i, b']')?;
    (i == s.len()).then_some(Bounds {
        left,
        top,
        right,
        bottom,
    })
}

/// `name="value"` pairs of a start tag, borrowed from the input. quick-xml's own
/// attribute iterator was 30% of parse time; uiautomator's attributes are plain
/// `name="value"` (or `'value'`) separated by whitespace, so a direct scan does.
/// Lenient where XML is strict and uiautomator never goes: a `<` inside a value
/// and attribute-name characters are not checked.
struct AttrScan<'a> {
    raw: &'a str,
    pos: usize,
}

impl<'a> AttrScan<'a> {
    fn new(raw: &'a str) -> Self {
        Self { raw, pos: 0 }
    }

    /// The next `(name, raw value, predicted)`, `Ok(None)` at the end, or the
    /// offset inside `raw` where the tag stops making sense. `expect` is the
    /// name uiautomator writes next; when it is there (` name="`), the name is
    /// taken without scanning and `predicted` is true.
    fn next_attr(
        &mut self,
        expect: Option<&str>,
    ) -> Result<Option<(&'a str, &'a str, bool)>, usize> {
        let b = self.raw.as_bytes();
        let p = self.pos;
        if let Some(want) = expect {
            let n = want.len();
            let head = b.get(p..p + 3 + n).unwrap_or(b"");
            if head.len() == n + 3
                && head[0] == b' '
                && bytes_eq(&head[1..=n], want.as_bytes())
                && head[n + 1] == b'='
                && head[n + 2] == b'"'
            {
                let value_start = p + 3 + n;
                if let Some(len) = find_byte(&self.raw[value_start..], b'"') {
                    self.pos = value_start + len + 1;
                    let name = &self.raw[p + 1..p + 1 + n];
                    return Ok(Some((
                        name,
                        &self.raw[value_start..value_start + len],
                        true,
                    )));
                }
            }
        }
        let ws = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
        let mut i = p;
        while i < b.len() && ws(b[i]) {
            i += 1;
        }
        if i >= b.len() {
            self.pos = i;
            return Ok(None);
        }
        if i == p {
            return Err(i);
        }
        let start = i;
        while i < b.len() && !matches!(b[i], b'=' | b'"' | b'\'' | b'<' | b'>') && !ws(b[i]) {
            i += 1;
        }
        let name = &self.raw[start..i];
        while i < b.len() && ws(b[i]) {
            i += 1;
        }
        if name.is_empty() || b.get(i) != Some(&b'=') {
            return Err(start);
        }
        i += 1;
        while i < b.len() && ws(b[i]) {
            i += 1;
        }
        let quote = match b.get(i) {
            Some(&q @ (b'"' | b'\'')) => q,
            _ => return Err(i),
        };
        let value_start = i + 1;
        let len = find_byte(&self.raw[value_start..], quote).ok_or(i)?;
        self.pos = value_start + len + 1;
        Ok(Some((
            name,
            &self.raw[value_start..value_start + len],
            false,
        )))
    }
}

/// Byte-wise equality without a `memcmp` call: names are a dozen bytes at most.
#[inline]
fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Position of ASCII `needle` in `hay`, eight bytes at a time (SWAR): values
/// are mostly a few bytes (`false`, `0`), where `str::find`'s setup cost more
/// than the search, and a byte loop was a fifth of parse time.
#[inline]
fn find_byte(hay: &str, needle: u8) -> Option<usize> {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let b = hay.as_bytes();
    let pattern = LOW * u64::from(needle);
    let mut i = 0;
    while let Some(chunk) = b.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word) ^ pattern;
        // The lowest set high bit marks the first byte equal to `needle`.
        let found = x.wrapping_sub(LOW) & !x & HIGH;
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b[i..].iter().position(|&c| c == needle).map(|p| p + i)
}

fn attrs_error(text: &str, raw: &str, bad: usize, tag: usize) -> ParseError {
    let at = offset_in(text, raw).map_or(tag, |o| o + bad);
    let rest = raw.get(bad..).unwrap_or("");
    ParseError::new(
        at,
        format!("malformed attribute at byte {at}: {:?}", clip(rest)),
    )
}

fn parse_hierarchy_attrs(
    text: &str,
    e: &BytesStart<'_>,
    h: &mut Hierarchy,
) -> Result<(), ParseError> {
    let at = tag_offset(text, e, 0);
    let mut prev: Option<&str> = None;
    let mut seen_rotation = false;
    let raw_attrs = e.attributes_raw();
    let mut scan = AttrScan::new(raw_attrs);
    while let Some((name, raw, _)) = scan
        .next_attr(None)
        .map_err(|bad| attrs_error(text, raw_attrs, bad, at))?
    {
        let vat = value_offset(text, raw, at);
        if name == "rotation" {
            if seen_rotation {
                return Err(duplicate(vat, name));
            }
            seen_rotation = true;
            h.rotation = parse_u32(raw, vat, name)?;
        } else {
            if h.extra.iter().any(|x| x.name == name) {
                return Err(duplicate(vat, name));
            }
            let value = unescape(raw, vat, name)?;
            h.extra.push(ExtraAttr {
                name: name.to_owned(),
                value,
                after: prev.map(str::to_owned),
            });
        }
        prev = Some(name);
    }
    Ok(())
}

fn duplicate(at: usize, name: &str) -> ParseError {
    ParseError::new(at, format!("duplicate attribute {name} at byte {at}"))
}

/// The typed attributes in the order AOSP writes them; bit `1 << i` below is
/// `NODE_ATTRS[i]`, and the order predicts the next name to skip scanning it.
const NODE_ATTRS: [&str; 18] = [
    "NAF",
    "index",
    "text",
    "resource-id",
    "class",
    "package",
    "content-desc",
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
    "bounds",
];

// One bit per typed attribute, to refuse duplicates and find missing required ones.
const NAF: u32 = 1 << 0;
const INDEX: u32 = 1 << 1;
const TEXT: u32 = 1 << 2;
const RESOURCE_ID: u32 = 1 << 3;
const CLASS: u32 = 1 << 4;
const PACKAGE: u32 = 1 << 5;
const CONTENT_DESC: u32 = 1 << 6;
const CHECKABLE: u32 = 1 << 7;
const CHECKED: u32 = 1 << 8;
const CLICKABLE: u32 = 1 << 9;
const ENABLED: u32 = 1 << 10;
const FOCUSABLE: u32 = 1 << 11;
const FOCUSED: u32 = 1 << 12;
const SCROLLABLE: u32 = 1 << 13;
const LONG_CLICKABLE: u32 = 1 << 14;
const PASSWORD: u32 = 1 << 15;
const SELECTED: u32 = 1 << 16;
const BOUNDS: u32 = 1 << 17;

fn parse_node(text: &str, e: &BytesStart<'_>, at: usize) -> Result<Node, ParseError> {
    let mut node = Node::default();
    let mut seen = 0u32;
    let mut prev: Option<&str> = None;
    let raw_attrs = e.attributes_raw();
    let mut scan = AttrScan::new(raw_attrs);
    let mut expect = 0;
    while let Some((name, raw, predicted)) = scan
        .next_attr(NODE_ATTRS.get(expect).copied())
        .map_err(|bad| attrs_error(text, raw_attrs, bad, at))?
    {
        let vat = value_offset(text, raw, at);
        let known = match predicted {
            true => Some(expect),
            false => NODE_ATTRS.iter().position(|n| *n == name),
        };
        let bit = match known {
            Some(i) => {
                expect = i + 1;
                1 << i
            }
            None => 0,
        };
        if bit == 0 {
            if node.extra.iter().any(|x| x.name == name) {
                return Err(duplicate(vat, name));
            }
            let value = unescape(raw, vat, name)?;
            node.extra.push(ExtraAttr {
                name: name.to_owned(),
                value,
                after: prev.map(str::to_owned),
            });
        } else {
            if seen & bit != 0 {
                return Err(duplicate(vat, name));
            }
            seen |= bit;
            match bit {
                NAF => node.naf = parse_bool(raw, vat, name)?,
                INDEX => node.index = parse_u32(raw, vat, name)?,
                TEXT => node.text = unescape(raw, vat, name)?,
                RESOURCE_ID => node.resource_id = unescape(raw, vat, name)?,
                CLASS => node.class = unescape(raw, vat, name)?,
                PACKAGE => node.package = unescape(raw, vat, name)?,
                CONTENT_DESC => node.content_desc = unescape(raw, vat, name)?,
                CHECKABLE => node.checkable = parse_bool(raw, vat, name)?,
                CHECKED => node.checked = parse_bool(raw, vat, name)?,
                CLICKABLE => node.clickable = parse_bool(raw, vat, name)?,
                ENABLED => node.enabled = parse_bool(raw, vat, name)?,
                FOCUSABLE => node.focusable = parse_bool(raw, vat, name)?,
                FOCUSED => node.focused = parse_bool(raw, vat, name)?,
                SCROLLABLE => node.scrollable = parse_bool(raw, vat, name)?,
                LONG_CLICKABLE => node.long_clickable = parse_bool(raw, vat, name)?,
                PASSWORD => node.password = parse_bool(raw, vat, name)?,
                SELECTED => node.selected = parse_bool(raw, vat, name)?,
                _ => {
                    node.bounds = parse_bounds(raw).ok_or_else(|| {
                        ParseError::new(
                            vat,
                            format!("bounds {:?} at byte {vat} is not [l,t][r,b]", clip(raw)),
                        )
                    })?
                }
            }
        }
        prev = Some(name);
    }
    for (bit, name) in [(CLASS, "class"), (BOUNDS, "bounds")] {
        if seen & bit == 0 {
            return Err(ParseError::new(
                at,
                format!("<node> at byte {at} has no {name} attribute"),
            ));
        }
    }
    Ok(node)
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn find_byte_finds_the_first_match_at_every_position() {
        for len in 0..20 {
            for at in 0..len {
                let mut hay = "x".repeat(len);
                hay.replace_range(at..=at, "\"");
                if at + 2 < len {
                    hay.replace_range(at + 2..=at + 2, "\"");
                }
                assert_eq!(find_byte(&hay, b'"'), Some(at), "{hay:?}");
            }
            assert_eq!(find_byte(&"é".repeat(len), b'"'), None);
        }
    }

    #[test]
    fn bounds_grammar() {
        assert_eq!(parse_bounds("[1,2][3,4]"), Some(Bounds::new(1, 2, 3, 4)));
        assert_eq!(
            parse_bounds("[-2147483648,0][2147483647,0]"),
            Some(Bounds::new(i32::MIN, 0, i32::MAX, 0))
        );
        for bad in [
            "",
            "[1,2][3,4] ",
            "[1,2][3]",
            "[1, 2][3,4]",
            "[+1,2][3,4]",
            "[2147483648,0][0,0]",
            "[-,0][0,0]",
        ] {
            assert_eq!(parse_bounds(bad), None, "{bad:?}");
        }
    }
}
