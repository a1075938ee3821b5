//! The virtual phone's command language: the part of `sh` that the adb
//! backend and a person at `adb shell` actually use — words with single and
//! double quotes and backslashes, `$?`, pipelines, and lists joined by `;`,
//! `&&`, `||` and newlines — and the one background form deploying a server
//! uses: a single command ended by `&`, its redirections (`> FILE`, `>>`,
//! `2>&1`, `< FILE`) and `$!`. A background command is recorded, never run.
//! Anything else a shell would expand or redirect (`$(…)`, backticks, `$VAR`,
//! redirection in the foreground, `a && b &`, `a | b &`) is refused with an
//! error rather than guessed at, so nothing on this side ever runs a host
//! command.

/// One piece of a word: literal text, `$?` or `$!` (expanded when the command runs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Status,
    /// `$!`: the pid of the last background command (empty before one).
    LastBackground,
}

/// A shell word, its pieces concatenated at run time.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word(pub Vec<Piece>);

impl Word {
    /// The word with `$?` replaced by `status` and `$!` by `last_background`.
    pub(crate) fn expand(&self, status: u8, last_background: Option<u32>) -> String {
        self.0
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.clone(),
                Piece::Status => status.to_string(),
                Piece::LastBackground => last_background.map_or(String::new(), |p| p.to_string()),
            })
            .collect()
    }

    /// Only digits, unquoted: the `2` of `2>&1`.
    fn fd_number(&self) -> Option<u8> {
        match &self.0[..] {
            [Piece::Text(t)] if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) => {
                t.parse().ok()
            }
            _ => None,
        }
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

/// What a redirection does to its file descriptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Redirect {
    /// `N> FILE` (`append`: `N>> FILE`).
    Out { fd: u8, file: Word, append: bool },
    /// `N< FILE`.
    In { fd: u8, file: Word },
    /// `N>&M`.
    Dup { fd: u8, to: u8 },
}

/// Commands joined by `|`; each command is its words.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pipeline {
    pub commands: Vec<Vec<Word>>,
    /// Ended by `&`: one command, started in the background.
    pub background: bool,
    /// Only on a background command.
    pub redirects: Vec<Redirect>,
}

/// A redirection whose file word has not been read yet.
#[derive(Debug, Clone, Copy)]
enum Pending {
    Out { fd: u8, append: bool },
    In { fd: u8 },
}

/// A command line the virtual phone will not run; the message is what `sh`
/// would print after `/system/bin/sh: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SyntaxError {
    #[error("syntax error: unterminated quoted string")]
    Unterminated,
    #[error("syntax error: unexpected '{0}'")]
    Unexpected(char),
    #[error("syntax error: unexpected end of file")]
    UnexpectedEnd,
    #[error("syntax error: bad fd after >&")]
    BadFd,
    /// Shell that a real phone runs but this one does not.
    #[error("{0} is not supported by the virtual phone")]
    Unsupported(&'static str),
}

/// A parsed command line: pipelines, each with how it joins the one before.
pub type List = Vec<(Join, Pipeline)>;

/// Parse a command line. The error is the message `sh` would print after
/// `/system/bin/sh: `.
pub fn parse(line: &str) -> Result<List, SyntaxError> {
    let mut list: List = Vec::new();
    let mut join = Join::Always;
    let mut pipeline = Pipeline::default();
    let mut command: Vec<Word> = Vec::new();
    let mut word: Option<Word> = None;
    let mut chars = line.chars().peekable();
    // A `|` waits for the command after it.
    let mut open_pipe = false;
    // A redirection waits for its file word.
    let mut pending: Option<Pending> = None;

    fn end_word(
        word: &mut Option<Word>,
        command: &mut Vec<Word>,
        pending: &mut Option<Pending>,
        redirects: &mut Vec<Redirect>,
    ) {
        if let Some(w) = word.take() {
            match pending.take() {
                Some(Pending::Out { fd, append }) => redirects.push(Redirect::Out {
                    fd,
                    file: w,
                    append,
                }),
                Some(Pending::In { fd }) => redirects.push(Redirect::In { fd, file: w }),
                None => command.push(w),
            }
        }
    }
    let unsupported = |what: &'static str| Err(SyntaxError::Unsupported(what));

    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => end_word(
                &mut word,
                &mut command,
                &mut pending,
                &mut pipeline.redirects,
            ),
            '\'' => {
                let w = word.get_or_insert_with(Word::default);
                w.open_quote();
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push_char(c),
                        None => return Err(SyntaxError::Unterminated),
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
                            None => return Err(SyntaxError::Unterminated),
                        },
                        Some('$') => match chars.peek() {
                            Some('?') => {
                                chars.next();
                                w.0.push(Piece::Status);
                            }
                            Some('!') => {
                                chars.next();
                                w.0.push(Piece::LastBackground);
                            }
                            Some('(') => return unsupported("command substitution"),
                            Some(c) if c.is_alphanumeric() || matches!(c, '{' | '_') => {
                                return unsupported("parameter expansion")
                            }
                            _ => w.push_char('$'),
                        },
                        Some('`') => return unsupported("command substitution"),
                        Some(c) => w.push_char(c),
                        None => return Err(SyntaxError::Unterminated),
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
                Some('!') => {
                    chars.next();
                    word.get_or_insert_with(Word::default)
                        .0
                        .push(Piece::LastBackground);
                }
                Some('(') => return unsupported("command substitution"),
                Some(c) if c.is_alphanumeric() || matches!(c, '{' | '_') => {
                    return unsupported("parameter expansion");
                }
                _ => word.get_or_insert_with(Word::default).push_char('$'),
            },
            '`' => return unsupported("command substitution"),
            '>' | '<' => {
                if pending.is_some() {
                    return Err(SyntaxError::Unexpected(c));
                }
                let fd = match word.as_ref().and_then(Word::fd_number) {
                    Some(fd) => {
                        word = None;
                        fd
                    }
                    None => {
                        end_word(
                            &mut word,
                            &mut command,
                            &mut pending,
                            &mut pipeline.redirects,
                        );
                        u8::from(c == '>')
                    }
                };
                match (c, chars.peek()) {
                    ('>', Some('&')) => {
                        chars.next();
                        let mut to = String::new();
                        while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                            to.push(*d);
                            chars.next();
                        }
                        let to = to.parse().map_err(|_| SyntaxError::BadFd)?;
                        pipeline.redirects.push(Redirect::Dup { fd, to });
                    }
                    ('>', Some('>')) => {
                        chars.next();
                        pending = Some(Pending::Out { fd, append: true });
                    }
                    ('>', _) => pending = Some(Pending::Out { fd, append: false }),
                    _ => pending = Some(Pending::In { fd }),
                }
            }
            '#' if word.is_none() => break,
            ';' | '\n' | '&' | '|' => {
                end_word(
                    &mut word,
                    &mut command,
                    &mut pending,
                    &mut pipeline.redirects,
                );
                if pending.is_some() {
                    return Err(SyntaxError::Unexpected(c));
                }
                let next = match (c, chars.peek()) {
                    ('&', Some('&')) => {
                        chars.next();
                        Some(Join::And)
                    }
                    ('|', Some('|')) => {
                        chars.next();
                        Some(Join::Or)
                    }
                    ('&', _) => {
                        // `&` ends the whole and-or list, and backgrounds
                        // all of it (a subshell whose pid `$!` is): only the
                        // single-command form is answered.
                        if join != Join::Always || !pipeline.commands.is_empty() {
                            return unsupported(
                                "running an and-or list or a pipeline in the background",
                            );
                        }
                        pipeline.background = true;
                        Some(Join::Always)
                    }
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
                        return Err(SyntaxError::Unexpected(c));
                    }
                }
                pipeline.commands.push(std::mem::take(&mut command));
                open_pipe = next.is_none();
                if let Some(next_join) = next {
                    if !pipeline.background && !pipeline.redirects.is_empty() {
                        return unsupported("redirection in the foreground");
                    }
                    list.push((join, std::mem::take(&mut pipeline)));
                    join = next_join;
                }
            }
            c => word.get_or_insert_with(Word::default).push_char(c),
        }
    }
    end_word(
        &mut word,
        &mut command,
        &mut pending,
        &mut pipeline.redirects,
    );
    if pending.is_some() {
        return Err(SyntaxError::UnexpectedEnd);
    }
    if !pipeline.redirects.is_empty() {
        return unsupported("redirection in the foreground");
    }
    if command.is_empty() && (open_pipe || (pipeline.commands.is_empty() && join != Join::Always)) {
        return Err(SyntaxError::UnexpectedEnd);
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
                    .map(|c| c.iter().map(|w| w.expand(7, None)).collect())
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
        assert_eq!(list[1].1.commands[0][1].expand(1, None), "s=1");
    }

    #[test]
    fn what_the_virtual_phone_will_not_do_is_an_error_not_a_guess() {
        for line in [
            "echo $(id)",
            "echo `id`",
            "echo $HOME",
            "ls > f",
            "ls 2>&1",
            "a && sleep 1 &",
            "a | sleep 1 &",
            "sleep 1 > &",
            "a |",
            "&& b",
        ] {
            assert!(parse(line).is_err(), "{line:?} parsed");
        }
        // Inside single quotes none of it is special.
        assert!(parse("echo '$(id) `id` $HOME > &'").is_ok());
    }

    /// The line the deploy helpers send: one command in the background with
    /// its output to a log, then its pid.
    #[test]
    fn a_single_background_command_keeps_its_redirections_and_dollar_bang() {
        let list = parse("cd /d; nohup ./a 'b c' > log 2>&1 < /dev/null & echo \"$!\"").unwrap();
        assert_eq!(list.len(), 3);
        let (join, bg) = &list[1];
        assert_eq!(*join, Join::Always);
        assert!(bg.background);
        let argv: Vec<String> = bg.commands[0].iter().map(|w| w.expand(0, None)).collect();
        assert_eq!(argv, ["nohup", "./a", "b c"]);
        let text = |w: &Word| w.expand(0, None);
        match &bg.redirects[..] {
            [Redirect::Out {
                fd: 1,
                file,
                append: false,
            }, Redirect::Dup { fd: 2, to: 1 }, Redirect::In { fd: 0, file: stdin }] => {
                assert_eq!(
                    (text(file), text(stdin)),
                    ("log".into(), "/dev/null".into())
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(!list[2].1.background);
        assert_eq!(list[2].1.commands[0][1].expand(0, Some(42)), "42");
        // Without a background job `$!` is empty, as in sh.
        assert_eq!(list[2].1.commands[0][1].expand(0, None), "");
    }
}
