//! What can stop a bench run, by kind, so the command line can give each its
//! own exit code (see `cli::CliError`). A variant with a cause keeps it as
//! its `source()`; the message ends with the cause's too, so it reads on one line.

/// The error beneath a [`BenchError`]: an `io::Error`, a JSON parse error.
pub type Cause = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The spec, the expectations or the arguments are wrong.
    #[error("{0}")]
    BadInput(String),
    /// The spec or expectations file `what` does not parse or validate.
    #[error("{what}: {source}")]
    Invalid {
        what: String,
        #[source]
        source: Cause,
    },
    /// Reading or writing a file, or `/proc`, failed: `what` says which.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// The target cores were busy before the run (and `--force` was not given).
    #[error("{0}")]
    CoresBusy(String),
    /// An arm exited non-zero or printed no figures.
    #[error("{0}")]
    ArmFailed(String),
}

impl BenchError {
    /// The file at `path` (spec, expectations) does not parse or validate.
    pub(crate) fn invalid(path: &std::path::Path, source: impl Into<Cause>) -> Self {
        BenchError::Invalid {
            what: path.display().to_string(),
            source: source.into(),
        }
    }

    /// `failed to read <what>`.
    pub(crate) fn read(what: impl std::fmt::Display, source: std::io::Error) -> Self {
        BenchError::Io {
            what: format!("failed to read {what}"),
            source,
        }
    }
}
