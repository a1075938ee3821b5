//! What the Python the peers' scorers are written in does to a string,
//! where Rust's standard library differs: `str.split()` and `str.strip()`
//! take a wider whitespace (Python's `str.isspace` also holds the four
//! information separators U+001C..U+001F, which Rust's `char::is_whitespace`
//! does not), and `str.strip(chars)` removes any of a set of characters.

/// Python's `str.isspace` for one character.
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `s.split()`: the words between runs of whitespace.
pub(crate) fn split(s: &str) -> Vec<&str> {
    s.split(is_space).filter(|w| !w.is_empty()).collect()
}

/// `s.strip()`.
pub(crate) fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// `s.strip(chars)`: `s` without the characters of `chars` at either end.
pub(crate) fn strip_chars<'a>(s: &'a str, chars: &str) -> &'a str {
    s.trim_matches(|c| chars.contains(c))
}

/// `[int(n) for n in re.findall(r'\d+', s)]` for ASCII digits (the only
/// ones an action written here holds), each saturated at `i64::MAX`.
pub(crate) fn numbers(s: &str) -> Vec<i64> {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .map(|n| n.parse().unwrap_or(i64::MAX))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_is_what_python_calls_whitespace() {
        assert_eq!(split(" a\u{1f}b  c\n"), ["a", "b", "c"]);
        assert_eq!(strip("\u{1c} x \u{a0}"), "x");
        assert_eq!(split("   "), Vec::<&str>::new());
    }

    #[test]
    fn strip_chars_removes_a_set_not_a_suffix() {
        // `"CLICK <point>[[1,2]]</point>".strip("<|im_end|>")` drops the
        // final `>` only: `t` is not in the set.
        assert_eq!(
            strip_chars("CLICK <point>[[1,2]]</point>", "<|im_end|>"),
            "CLICK <point>[[1,2]]</point"
        );
        assert_eq!(strip_chars("mend>", "<|im_end|>"), "");
    }

    #[test]
    fn numbers_are_the_runs_of_digits() {
        assert_eq!(numbers("CLICK <point>[[540,-33]]</point>"), [540, 33]);
        assert!(numbers("CLICK").is_empty());
    }
}
