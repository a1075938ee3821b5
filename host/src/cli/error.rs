//! The binary's one error type. Each variant has a documented exit code so
//! scripts can tell "the suite failed" from "bad task file" from "phone unreachable".

/// Each variant's exit code is a named constant of [`crate::exit`], where
/// every code is documented.
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
    #[error("{0}")]
    NothingScored(String),
}

impl CliError {
    pub fn exit_code(&self) -> i32 {
        use crate::exit;
        match self {
            CliError::SuiteFailed(_) => exit::SUITE_FAILED,
            CliError::BadInput(_) => exit::BAD_INPUT,
            CliError::Phone(_) => exit::PHONE,
            CliError::Io(_) => exit::IO,
            CliError::Endpoint(_) => exit::ENDPOINT,
            CliError::Regressed(_) => exit::REGRESSED,
            CliError::Inconclusive(_) => exit::INCONCLUSIVE,
            CliError::ProvenanceMismatch(_) => exit::PROVENANCE_MISMATCH,
            CliError::CoresBusy(_) => exit::CORES_BUSY,
            CliError::ArmFailed(_) => exit::ARM_FAILED,
            CliError::NothingScored(_) => exit::NOTHING_SCORED,
        }
    }
}

impl From<crate::task::TaskError> for CliError {
    fn from(e: crate::task::TaskError) -> Self {
        CliError::BadInput(e.to_string())
    }
}
