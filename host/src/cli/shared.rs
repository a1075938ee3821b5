//! What several subcommands share: the suite they run over (`--suite`,
//! `--tasks`) and loading it, `--constrain`, and writing data to stdout.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::CliError;
use crate::task::Task;

#[derive(Debug, Args)]
pub struct SuiteArgs {
    /// Directory of task files (default: the suite built into droidscore,
    /// the repository's `tasks/` when it was built).
    #[arg(long, value_name = "DIR")]
    pub suite: Option<PathBuf>,
    /// Only tasks whose id matches this glob.
    #[arg(long, value_name = "GLOB")]
    pub tasks: Option<String>,
}

impl SuiteArgs {
    /// `--suite DIR`, else the built-in suite.
    pub fn source(&self) -> crate::task::Suite {
        crate::task::Suite::from_arg(self.suite.as_deref())
    }
}

/// Writes `text` to stdout.
pub(super) fn out(text: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
        .map_err(|e| CliError::io("failed to write to stdout", e))
}

/// `value` as pretty JSON and a newline on stdout.
pub(super) fn json<T: serde::Serialize>(value: &T) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value)?;
    out(&(text + "\n"))
}

/// The suite's tasks, only those matching `--tasks` when it is given.
pub(super) fn load(suite: &SuiteArgs) -> Result<Vec<Task>, CliError> {
    let source = suite.source();
    let mut tasks = source.load()?;
    if let Some(glob) = &suite.tasks {
        let pattern = glob::Pattern::new(glob)
            .map_err(|e| CliError::invalid(format!("--tasks {glob:?}"), e))?;
        tasks.retain(|t| pattern.matches(&t.id));
        if tasks.is_empty() {
            return Err(CliError::BadInput(format!(
                "--tasks {glob:?} matches no task in {source}"
            )));
        }
    }
    Ok(tasks)
}

/// `--constrain`: whether each request carries the step's action schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConstrainArg {
    /// `response_format` json_schema of the step's valid actions: the
    /// answer is one JSON object, valid by construction on servers that
    /// decode under the schema.
    Schema,
    /// No `response_format`: the answer is `Reason: …` then `Action: {…}`.
    Off,
}

impl From<ConstrainArg> for crate::agent::Constrain {
    fn from(c: ConstrainArg) -> Self {
        match c {
            ConstrainArg::Schema => crate::agent::Constrain::Schema,
            ConstrainArg::Off => crate::agent::Constrain::Off,
        }
    }
}
