//! Python-style calls, `click(start_box='(120,348)')` and
//! `type(content='Hello\n')`: the action grammar of UI-TARS, whose own
//! parser reads it with Python's `ast`. Ours takes the subset that grammar
//! uses: a name, then keyword arguments whose values are string literals
//! (single or double quoted, Python's escapes `\\ \' \" \n \t \r`) or
//! numbers, and `name()` with none.

use std::fmt;

/// One call: its name and keyword arguments, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    pub args: Vec<(String, String)>,
}

impl Call {
    pub fn arg(&self, key: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Where and why a call does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallError {
    /// Byte offset into the text.
    pub at: usize,
    pub what: &'static str,
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.what, self.at)
    }
}

struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        Some(c)
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn fail<T>(&self, what: &'static str) -> Result<T, CallError> {
        Err(CallError { at: self.at, what })
    }

    fn ident(&mut self) -> Result<String, CallError> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.bump();
        }
        if self.at == start || self.text[start..].starts_with(|c: char| c.is_ascii_digit()) {
            self.at = start;
            return self.fail("expected a name");
        }
        Ok(self.text[start..self.at].to_owned())
    }

    fn expect(&mut self, want: char, what: &'static str) -> Result<(), CallError> {
        self.skip_space();
        if self.peek() == Some(want) {
            self.bump();
            Ok(())
        } else {
            self.fail(what)
        }
    }

    fn string(&mut self, quote: char) -> Result<String, CallError> {
        let mut out = String::new();
        loop {
            match self.bump() {
                None => return self.fail("unterminated string"),
                Some(c) if c == quote => return Ok(out),
                Some('\\') => match self.bump() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('r') => out.push('\r'),
                    Some(c @ ('\\' | '\'' | '"')) => out.push(c),
                    // Python keeps an unknown escape as written.
                    Some(c) => {
                        out.push('\\');
                        out.push(c);
                    }
                    None => return self.fail("unterminated string"),
                },
                Some(c) => out.push(c),
            }
        }
    }

    fn value(&mut self) -> Result<String, CallError> {
        self.skip_space();
        match self.peek() {
            Some(q @ ('\'' | '"')) => {
                self.bump();
                self.string(q)
            }
            Some(c) if c == '-' || c.is_ascii_digit() => {
                let start = self.at;
                self.bump();
                while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '.') {
                    self.bump();
                }
                Ok(self.text[start..self.at].to_owned())
            }
            _ => self.fail("expected a quoted string or a number"),
        }
    }
}

/// Parse `text` as exactly one call (surrounding space allowed).
pub(crate) fn parse_call(text: &str) -> Result<Call, CallError> {
    let mut c = Cursor { text, at: 0 };
    c.skip_space();
    let name = c.ident()?;
    c.expect('(', "expected `(` after the name")?;
    let mut args = Vec::new();
    c.skip_space();
    if c.peek() == Some(')') {
        c.bump();
    } else {
        loop {
            c.skip_space();
            let key = c.ident()?;
            c.expect('=', "expected `=` after an argument's name")?;
            let value = c.value()?;
            args.push((key, value));
            c.skip_space();
            let before = c.at;
            match c.bump() {
                Some(',') => {
                    c.skip_space();
                    // A trailing comma, as Python allows.
                    if c.peek() == Some(')') {
                        c.bump();
                        break;
                    }
                }
                Some(')') => break,
                _ => {
                    c.at = before;
                    return c.fail("expected `,` or `)`");
                }
            }
        }
    }
    c.skip_space();
    if c.at < text.len() {
        return c.fail("unexpected text after the call");
    }
    Ok(Call { name, args })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_strings_with_escapes_and_empty_calls() {
        let call = parse_call(r#"type(content='it\'s "ok"\n')"#).unwrap();
        assert_eq!(call.name, "type");
        assert_eq!(call.arg("content"), Some("it's \"ok\"\n"));
        let call = parse_call("  press_home()  ").unwrap();
        assert_eq!((call.name.as_str(), call.args.len()), ("press_home", 0));
        let call = parse_call(r#"scroll(start_box="(1,2)", direction='down',)"#).unwrap();
        assert_eq!(call.arg("start_box"), Some("(1,2)"));
        assert_eq!(call.arg("direction"), Some("down"));
        assert_eq!(call.arg("missing"), None);
    }

    #[test]
    fn malformed_calls_say_where() {
        for (text, what) in [
            ("click(start_box='(1,2)'", "expected `,` or `)`"),
            ("click(start_box='(1,2))", "unterminated string"),
            ("click start_box='x')", "expected `(` after the name"),
            (
                "click(start_box=(1,2))",
                "expected a quoted string or a number",
            ),
            ("click() and more", "unexpected text after the call"),
            ("(x='1')", "expected a name"),
        ] {
            let err = parse_call(text).unwrap_err();
            assert_eq!(err.what, what, "{text}");
        }
    }
}
