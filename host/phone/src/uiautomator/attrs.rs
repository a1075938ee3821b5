//! The attributes of `<node>` and `<hierarchy>`: a borrowed scanner over the
//! tag's raw attribute text, the typed readers (booleans, numbers, `bounds`,
//! entity unescaping) and the mapping of names onto `Node` fields, with extras
//! kept in order together with the attribute each one followed.
//!
//! Values are read as written: `true`/`false` only, digits only for numbers,
//! `[l,t][r,b]` with optionally negative `i32`s and no spaces for bounds.
//! Duplicate attributes are refused, and so is a tag with more than
//! [`MAX_EXTRA_ATTRIBUTES`]. Errors name the byte offset in the input.

use std::borrow::Cow;
use std::collections::HashSet;

use quick_xml::events::BytesStart;

use super::error::ParseError;
use super::node::{Bounds, CompactString, ExtraAttr, Hierarchy, Node};

/// The most extra attributes (beyond AOSP uiautomator's own, which are
/// typed fields and each at most once) one `<node>` or `<hierarchy>` may
/// carry; past it the dump is refused. androidx's dumper adds a few: a
/// thousand is no screen, only a file made to be slow. Extras only, so a
/// tree parsed at the bound serialises and parses again.
pub(crate) const MAX_EXTRA_ATTRIBUTES: usize = 1024;

/// Extra attribute names seen so far in one tag (at most
/// [`MAX_EXTRA_ATTRIBUTES`]), to refuse a duplicate in
/// time linear in the tag (issue 30: a scan of the extras per attribute made
/// `ui` on a node with 200,000 attributes take over 30 s). Most tags have no
/// extras or a few; the set is built only once there are more.
#[derive(Default)]
struct ExtraNames<'a> {
    few: Vec<&'a str>,
    many: HashSet<&'a str>,
}

impl<'a> ExtraNames<'a> {
    /// Few enough to compare one by one.
    const FEW: usize = 8;

    /// False when `name` was seen before.
    fn insert(&mut self, name: &'a str) -> bool {
        if self.few.len() < Self::FEW {
            if self.few.contains(&name) {
                return false;
            }
            self.few.push(name);
            return true;
        }
        if self.many.is_empty() {
            self.many.extend(self.few.iter().copied());
        }
        self.many.insert(name)
    }

    /// How many names were inserted.
    fn len(&self) -> usize {
        self.few.len().max(self.many.len())
    }

    /// Insert the extra attribute `name` of the tag `<what>` at byte `tag`
    /// (its value at byte `value`): an error for a duplicate, or for one
    /// past [`MAX_EXTRA_ATTRIBUTES`].
    fn add(
        &mut self,
        name: &'a str,
        what: &str,
        tag: usize,
        value: usize,
    ) -> Result<(), ParseError> {
        if self.len() == MAX_EXTRA_ATTRIBUTES {
            return Err(ParseError::new(
                tag,
                format!(
                    "<{what}> at byte {tag} has over {MAX_EXTRA_ATTRIBUTES} attributes besides uiautomator's own"
                ),
            ));
        }
        if !self.insert(name) {
            return Err(duplicate(value, name));
        }
        Ok(())
    }
}

/// Up to 40 characters of `s`, for error messages.
pub(super) fn clip(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(40) {
        Some((i, _)) => Cow::Owned(format!("{}…", &s[..i])),
        None => Cow::Borrowed(s),
    }
}

pub(super) fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Byte offset of `part` inside `base`, when it is a sub-slice of it.
#[inline]
pub(super) fn offset_in(base: &str, part: &str) -> Option<usize> {
    let off = (part.as_ptr() as usize).checked_sub(base.as_ptr() as usize)?;
    (off <= base.len()).then_some(off)
}

/// Offset of the `<` that opens `e`.
pub(super) fn tag_offset(text: &str, e: &BytesStart<'_>, fallback: usize) -> usize {
    offset_in(text, e.name().0).map_or(fallback, |o| o.saturating_sub(1))
}

#[inline]
fn value_offset(text: &str, value: &str, fallback: usize) -> usize {
    offset_in(text, value).unwrap_or(fallback)
}

/// An attribute value with entities and character references resolved.
#[inline]
fn unescape(value: &str, at: usize, name: &str) -> Result<CompactString, ParseError> {
    if find_byte(value, b'&').is_none() {
        return Ok(CompactString::from(value));
    }
    quick_xml::escape::unescape(value)
        .map(CompactString::from)
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
    // Byte patterns compile to inline compares, not a `memcmp` call.
    match value.as_bytes() {
        [b't', b'r', b'u', b'e'] => Ok(true),
        [b'f', b'a', b'l', b's', b'e'] => Ok(false),
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
pub(super) fn parse_bounds(value: &str) -> Option<Bounds> {
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

pub(super) fn parse_hierarchy_attrs(
    text: &str,
    e: &BytesStart<'_>,
    h: &mut Hierarchy,
) -> Result<(), ParseError> {
    let at = tag_offset(text, e, 0);
    let mut prev: Option<&str> = None;
    let mut seen_rotation = false;
    let mut extras = ExtraNames::default();
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
            extras.add(name, "hierarchy", at, vat)?;
            let value = unescape(raw, vat, name)?;
            h.extra.push(ExtraAttr {
                name: CompactString::from(name),
                value,
                after: prev.map(CompactString::from),
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

pub(super) fn parse_node(text: &str, e: &BytesStart<'_>, at: usize) -> Result<Node, ParseError> {
    let mut node = Node::default();
    let mut seen = 0u32;
    let mut prev: Option<&str> = None;
    let raw_attrs = e.attributes_raw();
    let mut scan = AttrScan::new(raw_attrs);
    let mut expect = 0;
    let mut extras = ExtraNames::default();
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
            extras.add(name, "node", at, vat)?;
            let value = unescape(raw, vat, name)?;
            node.extra.push(ExtraAttr {
                name: CompactString::from(name),
                value,
                after: prev.map(CompactString::from),
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
