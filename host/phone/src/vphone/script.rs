//! The virtual phone's command language: the part of `sh` (Android's mksh)
//! that the adb backend, AndroidWorld and a person at `adb shell` actually
//! use — words with single and double quotes and backslashes, `$?`, the
//! globs `*` and `?` (expanded against the phone's files when the command
//! runs), pipelines, lists joined by `;`, `&&`, `||` and newlines, `#`
//! comments, and `if LIST; then LIST; [elif LIST; then LIST;] [else LIST;]
//! fi` — and the one background form deploying a server uses: a single
//! command ended by `&`, its redirections (`> FILE`, `>>`, `2>&1`, `< FILE`)
//! and `$!`. A background command is recorded, never run. Anything else a
//! shell would expand or redirect (`$(…)`, backticks, `$VAR`, redirection
//! in the foreground, `a && b &`, `a | b &`, loops, `case`) is refused with
//! an error rather than guessed at, so nothing on this side ever runs a
//! host command.

/// One piece of a word: literal text, `$?` or `$!` (expanded when the command runs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Status,
    /// `$!`: the pid of the last background command (empty before one).
    LastBackground,
    /// An unquoted `*` or `?`: a glob, matched against the phone's files.
    Glob(char),
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
                Piece::Glob(c) => c.to_string(),
            })
            .collect()
    }

    /// With a glob in it: the regex a path must match in full (`*` any
    /// run of characters but `/`, `?` one), `$?` and `$!` expanded.
    pub(crate) fn glob(&self, status: u8, last_background: Option<u32>) -> Option<String> {
        if !self.0.iter().any(|p| matches!(p, Piece::Glob(_))) {
            return None;
        }
        let mut re = String::from("^");
        for piece in &self.0 {
            match piece {
                Piece::Glob('*') => re.push_str("[^/]*"),
                Piece::Glob(_) => re.push_str("[^/]"),
                other => re.push_str(&regex::escape(
                    &Word(vec![other.clone()]).expand(status, last_background),
                )),
            }
        }
        re.push('$');
        Some(re)
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

/// A reserved word at the start of a command (mksh's `if`, `then`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keyword {
    If,
    Then,
    Elif,
    Else,
    Fi,
}

impl Keyword {
    fn of(word: &str) -> Option<Keyword> {
        Some(match word {
            "if" => Keyword::If,
            "then" => Keyword::Then,
            "elif" => Keyword::Elif,
            "else" => Keyword::Else,
            "fi" => Keyword::Fi,
            _ => return None,
        })
    }

    fn word(self) -> &'static str {
        match self {
            Keyword::If => "if",
            Keyword::Then => "then",
            Keyword::Elif => "elif",
            Keyword::Else => "else",
            Keyword::Fi => "fi",
        }
    }
}

/// Reserved words of the compound commands the virtual phone does not run.
const REFUSED_WORDS: [&str; 11] = [
    "while", "until", "for", "case", "select", "function", "do", "done", "esac", "{", "}",
];

/// One command of a list: a pipeline, or an `if` compound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Pipeline(Pipeline),
    If(If),
}

impl Node {
    /// The pipeline, if this is one.
    pub fn pipeline(&self) -> Option<&Pipeline> {
        match self {
            Node::Pipeline(p) => Some(p),
            Node::If(_) => None,
        }
    }
}

/// `if C1; then B1; elif C2; then B2; else E; fi`: the first body whose
/// condition exits 0 runs, else the `else` list (status 0 when none runs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct If {
    /// Each condition with its body, in order (`if`, then each `elif`).
    pub branches: Vec<(List, List)>,
    pub otherwise: Option<List>,
}

/// What the lexing pass gives the tree builder.
#[derive(Debug)]
enum Item {
    Pipeline(Join, Pipeline),
    Keyword(Join, Keyword),
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
    /// A word where the grammar has no place for it (mksh's wording).
    #[error("syntax error: '{0}' unexpected")]
    UnexpectedWord(String),
    #[error("syntax error: unexpected end of file")]
    UnexpectedEnd,
    #[error("syntax error: bad fd after >&")]
    BadFd,
    /// Shell that a real phone runs but this one does not.
    #[error("{0} is not supported by the virtual phone")]
    Unsupported(&'static str),
}

/// A parsed command line: commands, each with how it joins the one before.
pub type List = Vec<(Join, Node)>;

/// Parse a command line. The error is the message `sh` would print after
/// `/system/bin/sh: `.
pub fn parse(line: &str) -> Result<List, SyntaxError> {
    let mut items = lex(line)?.into_iter().peekable();
    let (list, end) = build(&mut items, &[])?;
    match end {
        None => Ok(list),
        Some(k) => Err(SyntaxError::UnexpectedWord(k.word().into())),
    }
}

/// The lexing pass: words, redirections and separators into pipelines,
/// and reserved words at a command's start into keywords.
fn lex(line: &str) -> Result<Vec<Item>, SyntaxError> {
    let mut items: Vec<Item> = Vec::new();
    let mut join = Join::Always;
    let mut pipeline = Pipeline::default();
    let mut command: Vec<Word> = Vec::new();
    let mut word: Option<Word> = None;
    // Some of the word was quoted or escaped: it is no reserved word.
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    // A `|` waits for the command after it.
    let mut open_pipe = false;
    // A redirection waits for its file word.
    let mut pending: Option<Pending> = None;
    // `fi` ended a compound: only a separator may follow.
    let mut after_fi = false;

    /// The word just ended: a redirection's file, a command's word, or a
    /// reserved word at a command's start.
    #[allow(clippy::too_many_arguments)]
    fn end_word(
        word: &mut Option<Word>,
        quoted: &mut bool,
        command: &mut Vec<Word>,
        pending: &mut Option<Pending>,
        pipeline: &mut Pipeline,
        items: &mut Vec<Item>,
        join: &mut Join,
        after_fi: &mut bool,
    ) -> Result<(), SyntaxError> {
        let was_quoted = std::mem::take(quoted);
        let Some(w) = word.take() else {
            return Ok(());
        };
        match pending.take() {
            Some(Pending::Out { fd, append }) => {
                pipeline.redirects.push(Redirect::Out {
                    fd,
                    file: w,
                    append,
                });
                return Ok(());
            }
            Some(Pending::In { fd }) => {
                pipeline.redirects.push(Redirect::In { fd, file: w });
                return Ok(());
            }
            None => {}
        }
        let text = match &w.0[..] {
            [Piece::Text(t)] if !was_quoted => Some(t.as_str()),
            _ => None,
        };
        if *after_fi {
            return Err(SyntaxError::UnexpectedWord(w.expand(0, None)));
        }
        if command.is_empty() {
            if let Some(keyword) = text.and_then(Keyword::of) {
                if !pipeline.commands.is_empty() {
                    return Err(SyntaxError::Unsupported("a compound command in a pipeline"));
                }
                if !pipeline.redirects.is_empty() {
                    return Err(SyntaxError::Unsupported("redirection in the foreground"));
                }
                items.push(Item::Keyword(*join, keyword));
                *join = Join::Always;
                *after_fi = keyword == Keyword::Fi;
                return Ok(());
            }
            if text.is_some_and(|t| REFUSED_WORDS.contains(&t)) {
                return Err(SyntaxError::Unsupported("loops, case and functions"));
            }
        }
        command.push(w);
        Ok(())
    }
    macro_rules! end_word {
        () => {
            end_word(
                &mut word,
                &mut quoted,
                &mut command,
                &mut pending,
                &mut pipeline,
                &mut items,
                &mut join,
                &mut after_fi,
            )?
        };
    }
    let unsupported = |what: &'static str| Err(SyntaxError::Unsupported(what));

    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => end_word!(),
            '\'' => {
                quoted = true;
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
                quoted = true;
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
                Some(c) => {
                    quoted = true;
                    word.get_or_insert_with(Word::default).push_char(c)
                }
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
            '*' | '?' => word
                .get_or_insert_with(Word::default)
                .0
                .push(Piece::Glob(c)),
            '>' | '<' => {
                if pending.is_some() {
                    return Err(SyntaxError::Unexpected(c));
                }
                let fd = match word.as_ref().and_then(Word::fd_number) {
                    Some(fd) if !quoted => {
                        word = None;
                        fd
                    }
                    _ => {
                        end_word!();
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
            // A comment runs to the end of its line.
            '#' if word.is_none() => while chars.next_if(|c| *c != '\n').is_some() {},
            ';' | '\n' | '&' | '|' => {
                end_word!();
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
                        if after_fi {
                            return unsupported("running a compound command in the background");
                        }
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
                if after_fi && command.is_empty() {
                    // `fi` then a separator: what follows joins as it says.
                    after_fi = false;
                    match next {
                        Some(next_join) => join = next_join,
                        None => return unsupported("a compound command in a pipeline"),
                    }
                    continue;
                }
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
                    items.push(Item::Pipeline(join, std::mem::take(&mut pipeline)));
                    join = next_join;
                }
            }
            c => word.get_or_insert_with(Word::default).push_char(c),
        }
    }
    end_word!();
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
        items.push(Item::Pipeline(join, pipeline));
    }
    Ok(items)
}

/// The tree builder: a list up to one of the keywords in `until` (which it
/// returns, consumed), or to the end (None).
fn build(
    items: &mut std::iter::Peekable<std::vec::IntoIter<Item>>,
    until: &[Keyword],
) -> Result<(List, Option<Keyword>), SyntaxError> {
    let mut list = List::new();
    while let Some(item) = items.next() {
        match item {
            Item::Pipeline(join, pipeline) => list.push((join, Node::Pipeline(pipeline))),
            Item::Keyword(join, Keyword::If) => list.push((join, Node::If(build_if(items)?))),
            Item::Keyword(_, k) if until.contains(&k) => return Ok((list, Some(k))),
            Item::Keyword(_, k) => return Err(SyntaxError::UnexpectedWord(k.word().into())),
        }
    }
    Ok((list, None))
}

/// After `if`: its branches up to `fi`. An empty condition or body is a
/// syntax error, as in mksh.
fn build_if(items: &mut std::iter::Peekable<std::vec::IntoIter<Item>>) -> Result<If, SyntaxError> {
    let mut branches = Vec::new();
    loop {
        let (condition, end) = build(items, &[Keyword::Then])?;
        match end {
            Some(Keyword::Then) if !condition.is_empty() => {}
            Some(k) => return Err(SyntaxError::UnexpectedWord(k.word().into())),
            None => return Err(SyntaxError::UnexpectedEnd),
        }
        let (body, end) = build(items, &[Keyword::Elif, Keyword::Else, Keyword::Fi])?;
        let Some(end) = end else {
            return Err(SyntaxError::UnexpectedEnd);
        };
        if body.is_empty() {
            return Err(SyntaxError::UnexpectedWord(end.word().into()));
        }
        branches.push((condition, body));
        match end {
            Keyword::Elif => continue,
            Keyword::Fi => {
                return Ok(If {
                    branches,
                    otherwise: None,
                })
            }
            _ => {}
        }
        let (otherwise, end) = build(items, &[Keyword::Fi])?;
        return match end {
            Some(Keyword::Fi) if !otherwise.is_empty() => Ok(If {
                branches,
                otherwise: Some(otherwise),
            }),
            Some(k) => Err(SyntaxError::UnexpectedWord(k.word().into())),
            None => Err(SyntaxError::UnexpectedEnd),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<Vec<String>>> {
        parse(line)
            .unwrap()
            .into_iter()
            .map(|(_, node)| {
                node.pipeline()
                    .expect("a pipeline")
                    .commands
                    .iter()
                    .map(|c| c.iter().map(|w| w.expand(7, None)).collect())
                    .collect()
            })
            .collect()
    }

    fn pipeline(node: &Node) -> &Pipeline {
        node.pipeline().expect("a pipeline")
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
        assert_eq!(pipeline(&list[2].1).commands.len(), 2);
        assert_eq!(pipeline(&list[1].1).commands[0][1].expand(1, None), "s=1");
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
            "while true; do echo; done",
            "for f in a; do echo; done",
            "case a in esac",
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
        let (join, bg) = (&list[1].0, pipeline(&list[1].1));
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
        let after = pipeline(&list[2].1);
        assert!(!after.background);
        assert_eq!(after.commands[0][1].expand(0, Some(42)), "42");
        // Without a background job `$!` is empty, as in sh.
        assert_eq!(after.commands[0][1].expand(0, None), "");
    }

    /// The script AndroidWorld's `check_file_exists` sends (file_utils.py),
    /// newlines and indentation as it writes them.
    #[test]
    fn androidworlds_if_then_else_fi_parses_into_one_if() {
        let script = "\n  if [ -d \"/sdcard/Download\" ]; then\n      echo \"Exists\"\n  else\n      echo \"Does not exist\"\n  fi\n  ";
        let list = parse(script).unwrap();
        assert_eq!(list.len(), 1);
        let Node::If(node) = &list[0].1 else {
            panic!("{list:?}")
        };
        let text = |l: &List| -> Vec<Vec<String>> {
            l.iter()
                .flat_map(|(_, n)| pipeline(n).commands.clone())
                .map(|c| c.iter().map(|w| w.expand(0, None)).collect())
                .collect()
        };
        assert_eq!(node.branches.len(), 1);
        assert_eq!(
            text(&node.branches[0].0),
            [["[", "-d", "/sdcard/Download", "]"]]
        );
        assert_eq!(text(&node.branches[0].1), [["echo", "Exists"]]);
        assert_eq!(
            text(node.otherwise.as_ref().unwrap()),
            [["echo", "Does not exist"]]
        );
    }

    #[test]
    fn elif_and_what_follows_fi_join_as_written() {
        let list = parse("if a; then b; elif c; then d; fi && e; f").unwrap();
        assert_eq!(list.len(), 3);
        let Node::If(node) = &list[0].1 else {
            panic!("{list:?}")
        };
        assert_eq!(node.branches.len(), 2);
        assert!(node.otherwise.is_none());
        assert_eq!((list[1].0, list[2].0), (Join::And, Join::Always));
        // Reserved words only count at a command's start, and unquoted.
        assert_eq!(words("echo if then fi"), [[["echo", "if", "then", "fi"]]]);
        assert_eq!(words("'if' x"), [[["if", "x"]]]);
    }

    #[test]
    fn a_broken_if_is_a_syntax_error_as_mksh_words_it() {
        for (line, error) in [
            ("if a; then b", SyntaxError::UnexpectedEnd),
            ("if a; fi", SyntaxError::UnexpectedWord("fi".into())),
            ("if; then b; fi", SyntaxError::UnexpectedWord("then".into())),
            ("if a; then fi", SyntaxError::UnexpectedWord("fi".into())),
            ("then b", SyntaxError::UnexpectedWord("then".into())),
            (
                "if a; then b; fi c",
                SyntaxError::UnexpectedWord("c".into()),
            ),
        ] {
            assert_eq!(parse(line), Err(error), "{line}");
        }
        assert!(parse("if a; then b; fi | c").is_err());
        assert!(parse("a | if b; then c; fi").is_err());
    }

    #[test]
    fn unquoted_stars_and_question_marks_are_globs_and_quoted_ones_are_not() {
        let list = parse("rm -r /d/* '/e/*' /f/a?c").unwrap();
        let argv = &pipeline(&list[0].1).commands[0];
        assert_eq!(argv[2].glob(0, None).as_deref(), Some("^/d/[^/]*$"));
        assert_eq!(argv[3].glob(0, None), None);
        assert_eq!(argv[4].glob(0, None).as_deref(), Some("^/f/a[^/]c$"));
        assert_eq!(argv[2].expand(0, None), "/d/*");
    }

    #[test]
    fn a_comment_ends_at_its_line() {
        assert_eq!(words("a # b\nc"), [[["a"]], [["c"]]]);
    }
}
