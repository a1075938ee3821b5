//! Rust source to tokens, as exact as finding paths, `use` trees, `mod`
//! declarations and braces needs: comments, numbers, characters and
//! lifetimes are dropped, strings kept whole (so `"crate::x"` is no path).

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    Ident(String),
    Str(String),
    PathSep,
    Punct(char),
}

#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) line: usize,
}

/// Rust source to tokens, with comments, numbers, characters and lifetimes
/// dropped. Only as exact as finding paths and braces needs.
pub(crate) fn lex(src: &str) -> Vec<Token> {
    let c: Vec<char> = src.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
            }
        } else if ch == '"' {
            let start = line;
            let (s, next) = string(&c, i + 1, &mut line);
            out.push(Token {
                tok: Tok::Str(s),
                line: start,
            });
            i = next;
        } else if ch == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
            }
        } else if ch.is_ascii_digit() {
            while i < c.len()
                && (c[i].is_alphanumeric()
                    || c[i] == '_'
                    || (c[i] == '.' && at(i + 1).is_ascii_digit()))
            {
                i += 1;
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let raw = matches!(word.as_str(), "r" | "br" | "cr");
            if raw && (at(i) == '"' || (at(i) == '#' && matches!(at(i + 1), '"' | '#'))) {
                // A raw string: r"…", r#"…"#, r##"…"##.
                let mut hashes = 0;
                while at(i) == '#' {
                    hashes += 1;
                    i += 1;
                }
                i += 1;
                let (start, from) = (line, i);
                loop {
                    if i >= c.len() {
                        break;
                    }
                    if c[i] == '"' && (1..=hashes).all(|h| at(i + h) == '#') {
                        break;
                    }
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Str(c[from..i.min(c.len())].iter().collect()),
                    line: start,
                });
                i += 1 + hashes;
            } else if word == "r" && at(i) == '#' {
                i += 1; // a raw identifier: r#type is the identifier `type`
            } else if matches!(word.as_str(), "b" | "c") && matches!(at(i), '"' | '\'') {
                // b"…", c"…", b'x': the literal after the prefix is lexed next.
            } else {
                out.push(Token {
                    tok: Tok::Ident(word),
                    line,
                });
            }
        } else if ch == ':' && at(i + 1) == ':' {
            out.push(Token {
                tok: Tok::PathSep,
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                tok: Tok::Punct(ch),
                line,
            });
            i += 1;
        }
    }
    out
}

/// A quoted string's contents from `i` (just past the opening quote); the
/// index just past the closing quote.
fn string(c: &[char], mut i: usize, line: &mut usize) -> (String, usize) {
    let from = i;
    while i < c.len() && c[i] != '"' {
        if c[i] == '\\' {
            i += 1;
        }
        if i < c.len() && c[i] == '\n' {
            *line += 1;
        }
        i += 1;
    }
    (c[from..i.min(c.len())].iter().collect(), i + 1)
}
