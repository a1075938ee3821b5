//! The binary's one error type. Each variant has a documented exit code so
//! scripts can tell "the suite failed" from "bad task file" from "phone unreachable".

/// Exit codes: 0 success; 1 the checked or run suite failed; 2 usage (clap);
/// 3 bad input (task file, dump, arguments); 4 the phone failed; 5 I/O or the
/// run store; 6 the model endpoint refused the requests (HTTP 4xx: key, model, URL).
/// `droidscore bench`: 7 `--check` found a regression; 8 `--check` was
/// inconclusive (a bound inside an arm's spread); 9 `--check` on another
/// machine than the expectations name (provenance mismatch); 10 the target
/// cores were busy and `--force` was not given; 11 an arm or probe failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    SuiteFailed(String),
    #[error("{0}")]
    BadInput(String),
    #[error("phone: {0}")]
    Phone(#[from] crate::phone::PhoneError),
    #[error("{0}")]
    Io(String),
    #[error("{0}")]
    Endpoint(String),
    #[error("{0}")]
    Regressed(String),
    #[error("{0}")]
    Inconclusive(String),
    #[error("{0}")]
    ProvenanceMismatch(String),
    #[error("{0}")]
    CoresBusy(String),
    #[error("{0}")]
    ArmFailed(String),
}

impl CliError {
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::SuiteFailed(_) => 1,
            CliError::BadInput(_) => 3,
            CliError::Phone(_) => 4,
            CliError::Io(_) => 5,
            CliError::Endpoint(_) => 6,
            CliError::Regressed(_) => 7,
            CliError::Inconclusive(_) => 8,
            CliError::ProvenanceMismatch(_) => 9,
            CliError::CoresBusy(_) => 10,
            CliError::ArmFailed(_) => 11,
        }
    }
}

impl From<crate::task::TaskError> for CliError {
    fn from(e: crate::task::TaskError) -> Self {
        CliError::BadInput(e.to_string())
    }
}
