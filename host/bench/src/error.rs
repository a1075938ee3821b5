//! What can stop a bench run, by kind, so the command line can give each its
//! own exit code (see `cli::CliError`).

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BenchError {
    /// The spec, the expectations or the arguments are wrong.
    #[error("{0}")]
    BadInput(String),
    /// Reading or writing a file, or `/proc`, failed.
    #[error("{0}")]
    Io(String),
    /// The target cores were busy before the run (and `--force` was not given).
    #[error("{0}")]
    CoresBusy(String),
    /// An arm exited non-zero or printed no figures.
    #[error("{0}")]
    ArmFailed(String),
}
