//! The virtual phone's command language: the part of `sh` that the adb
//! backend and a person at `adb shell` actually use — words with single and
//! double quotes and backslashes, `$?`, pipelines, and lists joined by `;`,
//! `&&`, `||` and newlines. Anything else a shell would expand or redirect
//! (`$(…)`, backticks, `$VAR`, `>`, `<`, `&`) is refused with an error
//! rather than guessed at, so nothing on this side ever runs a host command.

/// One piece of a word: literal text, or `$?` (expanded when the command runs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Status,
}

/// A shell word, its pieces concatenated at run time.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word(pub Vec<Piece>);

impl Word {
    /// The word with `$?` replaced by `status`.
    pub fn expand(&self, status: u8) -> String {
        self.0
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.clone(),
                Piece::Status => status.to_string(),
            })
            .collect()
    }

    /// A quote opens: an empty `''` or `""` still makes a word.
    fn open_quote(&mut self) {
        if !matches!(self.0.last(), Some(Piece::Text(_))) {
            self.0.push(Piece::Text(String::new()));
        }
    }

    fn push_char(&mut self, c: char) {
        match self.0.last_mut() {
            Some(Piece::Text(t)) => t.push(c),
            _ => self.0.push(Piece::Text(c.to_string())),
        }
    }
}

/// How a pipeline is joined to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    /// `;` or a newline (or the first pipeline): always run.
    Always,
    /// `&&`: run when the previous status was 0.
    And,
    /// `||`: run when the previous status was not 0.
    Or,
}

/// Commands joined by `|`; each command is its words.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pipeline {
    pub commands: Vec<Vec<Word>>,
}

/// A parsed command line: pipelines, each with how it joins the one before.
pub type List = Vec<(Join, Pipeline)>;

/// Parse a command line. The error is the message `sh` would print after
/// `/system/bin/sh: `.
pub fn parse(line: &str) -> Result<List, String> {
    let mut list: List = Vec::new();
    let mut join = Join::Always;
    let mut pipeline = Pipeline::default();
    let mut command: Vec<Word> = Vec::new();
    let mut word: Option<Word> = None;
    let mut chars = line.chars().peekable();
    // A `|` waits for the command after it.
    let mut open_pipe = false;

    fn end_word(word: &mut Option<Word>, command: &mut Vec<Word>) {
        if let Some(w) = word.take() {
            command.push(w);
        }
    }
    let unsupported = |what: &str| Err(format!("{what} is not supported by the virtual phone"));

    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => end_word(&mut word, &mut command),
            '\'' => {
                let w = word.get_or_insert_with(Word::default);
                w.open_quote();
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push_char(c),
                        None => return Err("syntax error: unterminated quoted string".into()),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(Word::default);
                w.open_quote();
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => w.push_char(c),
                            Some('\n') => {}
                            Some(c) => {
                                w.push_char('\\');
                                w.push_char(c);
                            }
                            None => return Err("syntax error: unterminated quoted string".into()),
                        },
                        Some('$') => match chars.peek() {
                            Some('?') => {
                                chars.next();
                                w.0.push(Piece::Status);
                            }
                            Some('(') => return unsupported("command substitution"),
                            Some(c) if c.is_alphanumeric() || matches!(c, '{' | '_') => {
                                return unsupported("parameter expansion")
                            }
                            _ => w.push_char('$'),
                        },
                        Some('`') => return unsupported("command substitution"),
                        Some(c) => w.push_char(c),
                        None => return Err("syntax error: unterminated quoted string".into()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(c) => word.get_or_insert_with(Word::default).push_char(c),
                None => word.get_or_insert_with(Word::default).push_char('\\'),
            },
            '$' => match chars.peek() {
                Some('?') => {
                    chars.next();
                    word.get_or_insert_with(Word::default).0.push(Piece::Status);
                }
                Some('(') => return unsupported("command substitution"),
                Some(c) if c.is_alphanumeric() || matches!(c, '{' | '_') => {
                    return unsupported("parameter expansion");
                }
                _ => word.get_or_insert_with(Word::default).push_char('$'),
            },
            '`' => return unsupported("command substitution"),
            '>' | '<' => return unsupported("redirection"),
            '#' if word.is_none() => break,
            ';' | '\n' | '&' | '|' => {
                end_word(&mut word, &mut command);
                let next = match (c, chars.peek()) {
                    ('&', Some('&')) => {
                        chars.next();
                        Some(Join::And)
                    }
                    ('|', Some('|')) => {
                        chars.next();
                        Some(Join::Or)
                    }
                    ('&', _) => return unsupported("running in the background (&)"),
                    ('|', _) => None,
                    _ => Some(Join::Always),
                };
                if command.is_empty() {
                    // `;` after nothing is fine at the start or after a newline; an
                    // empty command before `|`, `&&` or `||` is a syntax error.
                    if c == ';' || c == '\n' {
                        if pipeline.commands.is_empty() {
                            continue;
                        }
                    } else {
                        return Err(format!("syntax error: unexpected '{c}'"));
                    }
                }
                pipeline.commands.push(std::mem::take(&mut command));
                open_pipe = next.is_none();
                if let Some(next_join) = next {
                    list.push((join, std::mem::take(&mut pipeline)));
                    join = next_join;
                }
            }
            c => word.get_or_insert_with(Word::default).push_char(c),
        }
    }
    end_word(&mut word, &mut command);
    if command.is_empty() && (open_pipe || (pipeline.commands.is_empty() && join != Join::Always)) {
        return Err("syntax error: unexpected end of file".into());
    }
    if !command.is_empty() {
        pipeline.commands.push(command);
    }
    if !pipeline.commands.is_empty() {
        list.push((join, pipeline));
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<Vec<String>>> {
        parse(line)
            .unwrap()
            .into_iter()
            .map(|(_, p)| {
                p.commands
                    .iter()
                    .map(|c| c.iter().map(|w| w.expand(7)).collect())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn quotes_join_into_one_word_and_keep_what_they_hold() {
        assert_eq!(
            words(r#"input text 'it'\''s; $(x)' "a b\"c" d\ e ''"#),
            vec![vec![vec![
                "input",
                "text",
                "it's; $(x)",
                "a b\"c",
                "d e",
                ""
            ]]]
        );
    }

    #[test]
    fn lists_pipes_and_the_status() {
        let list = parse("false; echo \"s=$?\" && a | grep b || c\n d").unwrap();
        let joins: Vec<Join> = list.iter().map(|(j, _)| *j).collect();
        assert_eq!(
            joins,
            [
                Join::Always,
                Join::Always,
                Join::And,
                Join::Or,
                Join::Always
            ]
        );
        assert_eq!(list[2].1.commands.len(), 2);
        assert_eq!(list[1].1.commands[0][1].expand(1), "s=1");
    }

    #[test]
    fn what_the_virtual_phone_will_not_do_is_an_error_not_a_guess() {
        for line in [
            "echo $(id)",
            "echo `id`",
            "echo $HOME",
            "ls > f",
            "sleep 1 &",
            "a |",
            "&& b",
        ] {
            assert!(parse(line).is_err(), "{line:?} parsed");
        }
        // Inside single quotes none of it is special.
        assert!(parse("echo '$(id) `id` $HOME > &'").is_ok());
    }
}
