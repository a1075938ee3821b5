//! What a file says, as events: module scopes opening and closing, `mod`
//! declarations, items it defines, `use` trees (expanded to one path per
//! name they bind) and paths in code.

use super::lex::{Tok, Token};

/// One `use` item: the path and the name it binds (`None` for a glob).
#[derive(Debug, PartialEq)]
pub(crate) struct UseItem {
    pub(crate) path: Vec<String>,
    pub(crate) binds: Option<String>,
}

/// Parses a use tree starting at `toks[*i]`, after the `use` keyword, up
/// to (not including) the `;`, `,` or `}` that ends it.
pub(crate) fn use_tree(toks: &[Token], i: &mut usize, prefix: Vec<String>, out: &mut Vec<UseItem>) {
    let mut path = prefix;
    let tok = |i: usize| toks.get(i).map(|t| &t.tok);
    if tok(*i) == Some(&Tok::PathSep) {
        *i += 1;
    }
    loop {
        match tok(*i) {
            Some(Tok::Ident(word)) if word == "self" && !path.is_empty() => {
                *i += 1;
                let binds = alias(toks, i).unwrap_or_else(|| path.last().unwrap().clone());
                out.push(UseItem {
                    path,
                    binds: Some(binds),
                });
                return;
            }
            Some(Tok::Ident(word)) => {
                path.push(word.clone());
                *i += 1;
                if tok(*i) == Some(&Tok::PathSep) {
                    *i += 1;
                    continue;
                }
                let binds = alias(toks, i).unwrap_or_else(|| path.last().unwrap().clone());
                out.push(UseItem {
                    path,
                    binds: Some(binds),
                });
                return;
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                out.push(UseItem { path, binds: None });
                return;
            }
            Some(Tok::Punct('{')) => {
                *i += 1;
                while !matches!(tok(*i), None | Some(Tok::Punct('}'))) {
                    use_tree(toks, i, path.clone(), out);
                    if tok(*i) == Some(&Tok::Punct(',')) {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            _ => return,
        }
    }
}

/// `as name` after a use path: the name (`_` too).
fn alias(toks: &[Token], i: &mut usize) -> Option<String> {
    if !matches!(toks.get(*i).map(|t| &t.tok), Some(Tok::Ident(w)) if w == "as") {
        return None;
    }
    *i += 1;
    match toks.get(*i).map(|t| &t.tok) {
        Some(Tok::Ident(name)) => {
            *i += 1;
            Some(name.clone())
        }
        _ => None,
    }
}

/// What one pass over a file's tokens sees: module scopes opening and
/// closing, `mod` declarations, `use` items and paths in code.
pub(crate) enum Event<'a> {
    /// `mod name;` (with its `#[path]`, if any) or `mod name {`.
    Mod {
        name: &'a str,
        path_attr: Option<&'a str>,
        inline: bool,
    },
    /// The inline module opened by the last `Mod { inline: true }` closed.
    Close,
    /// A `use` item, whether it is `pub` (`pub(crate)`, …), and its line.
    Use(Vec<UseItem>, bool, usize),
    Path(Vec<String>, usize),
    /// An item defined at the module's own level (`fn name`, `struct name`, …).
    Item(&'a str),
}

pub(crate) fn walk<'a>(toks: &'a [Token], mut f: impl FnMut(Event<'a>)) {
    let tok = |i: usize| toks.get(i).map(|t| &t.tok);
    let ident = |i: usize| match tok(i) {
        Some(Tok::Ident(w)) => Some(w.as_str()),
        _ => None,
    };
    // Brace depths at which inline modules opened.
    let mut scopes: Vec<usize> = Vec::new();
    let mut depth = 0;
    let mut path_attr: Option<&str> = None;
    let mut i = 0;
    while i < toks.len() {
        let after_sep = i > 0 && tok(i - 1) == Some(&Tok::PathSep);
        match &toks[i].tok {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                if scopes.last() == Some(&depth) {
                    scopes.pop();
                    f(Event::Close);
                }
                path_attr = None;
            }
            Tok::Punct('#')
                if tok(i + 1) == Some(&Tok::Punct('[')) && ident(i + 2) == Some("path") =>
            {
                if let (Some(Tok::Punct('=')), Some(Tok::Str(s))) = (tok(i + 3), tok(i + 4)) {
                    path_attr = Some(s.as_str());
                    i += 4;
                }
            }
            Tok::Ident(w) if w == "mod" && !after_sep => {
                if let Some(name) = ident(i + 1) {
                    let inline = tok(i + 2) == Some(&Tok::Punct('{'));
                    f(Event::Mod {
                        name,
                        path_attr: path_attr.take(),
                        inline,
                    });
                    if inline {
                        scopes.push(depth);
                        depth += 1;
                        i += 2;
                    } else {
                        i += 1;
                    }
                }
            }
            Tok::Ident(w) if w == "use" && !after_sep => {
                let line = toks[i].line;
                let public = is_pub(toks, i);
                i += 1;
                let mut items = Vec::new();
                use_tree(toks, &mut i, Vec::new(), &mut items);
                f(Event::Use(items, public, line));
                continue;
            }
            Tok::Ident(w) if !after_sep && tok(i + 1) == Some(&Tok::PathSep) => {
                let line = toks[i].line;
                let mut path = vec![w.clone()];
                i += 1;
                while tok(i) == Some(&Tok::PathSep) {
                    match ident(i + 1) {
                        Some(seg) => path.push(seg.to_string()),
                        None => break,
                    }
                    i += 2;
                }
                f(Event::Path(path, line));
                continue;
            }
            Tok::Punct(';') => path_attr = None,
            Tok::Ident(w)
                if matches!(
                    w.as_str(),
                    "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" | "union"
                ) && depth == scopes.last().map_or(0, |d| d + 1) =>
            {
                if let Some(name) = ident(i + 1) {
                    f(Event::Item(name));
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Whether the item at `toks[i]` is declared `pub`, `pub(crate)`, ….
fn is_pub(toks: &[Token], i: usize) -> bool {
    let pub_at = |j: usize| matches!(&toks[j].tok, Tok::Ident(w) if w == "pub");
    match i.checked_sub(1).map(|j| &toks[j].tok) {
        Some(Tok::Ident(w)) => w == "pub",
        Some(Tok::Punct(')')) => toks[..i]
            .iter()
            .rposition(|t| t.tok == Tok::Punct('('))
            .is_some_and(|open| open > 0 && pub_at(open - 1)),
        _ => false,
    }
}
