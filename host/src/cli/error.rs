//! The binary's one error type. Each variant has a documented exit code so
//! scripts can tell "the suite failed" from "bad task file" from "phone unreachable".
//!
//! A variant with a cause keeps it as its `source()`, so the chain is there
//! for whoever needs the kind (an `io::ErrorKind`, a TOML span); its message
//! also ends with the cause's, as `StoreError` does, so `error: …` is one
//! line that names the file or flag and says what went wrong.

use crate::agent::LlmError;
use crate::model_server::local::LocalServerError;
use crate::model_server::on_phone::DeployError;
use crate::run::{PhonesError, RunSuiteError, UnknownVariant};
use crate::store::StoreError;
use crate::task::TaskError;
use droidscore_harness::probes::ProbeError;
use droidscore_harness::BenchError;
use droidscore_phone::apps::SetupError;
use droidscore_phone::PhoneError;

/// The error beneath a [`CliError`] that names no type of its own.
pub type Cause = Box<dyn std::error::Error + Send + Sync>;

/// Each variant's exit code is a named constant of [`crate::exit`], where
/// every code is documented.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    SuiteFailed(String),
    /// Bad input said in words, with no error beneath it.
    #[error("{0}")]
    BadInput(String),
    /// Bad input: `what` names the file or flag, `source` says what is wrong with it.
    #[error("{what}: {source}")]
    Invalid {
        what: String,
        #[source]
        source: Cause,
    },
    #[error(transparent)]
    Task(#[from] TaskError),
    #[error(transparent)]
    UnknownVariant(#[from] UnknownVariant),
    /// `sim serve --task`/`--variant` that the suite does not have.
    #[error(transparent)]
    SimLoad(#[from] droidscore_phone::vphone::LoadError),
    /// A task's setup or the simulator's refused (bad input).
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The model endpoint's configuration was refused before any request.
    #[error(transparent)]
    Llm(LlmError),
    #[error("phone: {0}")]
    Phone(#[from] PhoneError),
    /// I/O: `what` names what was being done to which file.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: Cause,
    },
    /// Boxed, as is every large cause here, so a `Result<_, CliError>` stays small.
    #[error(transparent)]
    Store(Box<StoreError>),
    /// The suite's files could not be read for its hash.
    #[error(transparent)]
    SuiteHash(std::io::Error),
    /// Data that would not serialise for stdout.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A run that stopped partway (a signal, a lost phone, an endpoint that
    /// refused, a full disk): recorded, and resumable; its kind picks the code.
    #[error(transparent)]
    RunStopped(Box<RunSuiteError>),
    #[error("{0}")]
    Endpoint(String),
    /// The local model server would not start.
    #[error(transparent)]
    LocalServer(#[from] LocalServerError),
    #[error("{0}")]
    Regressed(String),
    #[error("{0}")]
    Inconclusive(String),
    #[error("{0}")]
    ProvenanceMismatch(String),
    /// What a bench run stopped on; its kind picks the code.
    #[error(transparent)]
    Bench(#[from] BenchError),
    #[error("{0}")]
    ArmFailed(String),
    /// `bench init-memory` measured nothing: the arm's code.
    #[error(transparent)]
    Probe(ProbeError),
    /// `bench ledger` could not read the process: an I/O code.
    #[error(transparent)]
    Ledger(ProbeError),
    #[error("{0}")]
    NothingScored(String),
}

impl From<StoreError> for CliError {
    fn from(e: StoreError) -> Self {
        CliError::Store(Box::new(e))
    }
}

impl From<DeployError> for CliError {
    fn from(e: DeployError) -> Self {
        match e {
            DeployError::BadInput(why) => CliError::BadInput(why),
            DeployError::Phone(e) => CliError::Phone(e),
            DeployError::NotReady(why) => CliError::Phone(PhoneError::Device(why)),
        }
    }
}

impl From<PhonesError> for CliError {
    fn from(e: PhonesError) -> Self {
        match e {
            PhonesError::BadInput(why) => CliError::BadInput(why),
            PhonesError::Phone(e) => CliError::Phone(e),
        }
    }
}

/// Each way a run fails as the variant whose exit code says it.
impl From<RunSuiteError> for CliError {
    fn from(e: RunSuiteError) -> Self {
        match e {
            RunSuiteError::BadInput(why) => CliError::BadInput(why),
            RunSuiteError::UnknownVariant(e) => CliError::UnknownVariant(e),
            RunSuiteError::Task(e) => CliError::Task(e),
            RunSuiteError::Setup(e) => CliError::Setup(e),
            RunSuiteError::Llm(e) => CliError::Llm(e),
            RunSuiteError::Phones(e) => e.into(),
            RunSuiteError::Deploy(e) => e.into(),
            RunSuiteError::LocalServer(e) => CliError::LocalServer(e),
            RunSuiteError::Io { what, source } => CliError::io(what, source),
            RunSuiteError::Store(e) => CliError::Store(e),
            RunSuiteError::SuiteHash(e) => CliError::SuiteHash(e),
            stopped @ (RunSuiteError::Interrupted { .. }
            | RunSuiteError::StoreFailed { .. }
            | RunSuiteError::PhoneGone { .. }
            | RunSuiteError::EndpointRefused { .. }
            | RunSuiteError::Run(_)) => CliError::RunStopped(Box::new(stopped)),
        }
    }
}

impl CliError {
    /// Bad input: `what` (a file, a flag) and the error that says why.
    pub(crate) fn invalid(what: impl Into<String>, source: impl Into<Cause>) -> Self {
        CliError::Invalid {
            what: what.into(),
            source: source.into(),
        }
    }

    /// I/O: `what` was being done (`failed to write x.png`) when `source` happened.
    pub(crate) fn io(what: impl Into<String>, source: impl Into<Cause>) -> Self {
        CliError::Io {
            what: what.into(),
            source: source.into(),
        }
    }

    pub fn exit_code(&self) -> i32 {
        use crate::exit;
        match self {
            CliError::SuiteFailed(_) => exit::SUITE_FAILED,
            CliError::BadInput(_)
            | CliError::Invalid { .. }
            | CliError::Task(_)
            | CliError::UnknownVariant(_)
            | CliError::SimLoad(_)
            | CliError::Setup(_)
            | CliError::Llm(_) => exit::BAD_INPUT,
            CliError::Phone(_) => exit::PHONE,
            CliError::Io { .. }
            | CliError::Store(_)
            | CliError::SuiteHash(_)
            | CliError::Json(_) => exit::IO,
            CliError::Endpoint(_) | CliError::LocalServer(_) => exit::ENDPOINT,
            CliError::RunStopped(stopped) => match **stopped {
                RunSuiteError::Interrupted { signal, .. } => exit::SIGNALLED + signal,
                RunSuiteError::PhoneGone { .. } => exit::PHONE_GONE,
                RunSuiteError::EndpointRefused { .. } => exit::ENDPOINT,
                // A full disk or another stop; the kinds that fail a run
                // before it starts are their own variants (`From` above).
                _ => exit::IO,
            },
            CliError::Regressed(_) => exit::REGRESSED,
            CliError::Inconclusive(_) => exit::INCONCLUSIVE,
            CliError::ProvenanceMismatch(_) => exit::PROVENANCE_MISMATCH,
            CliError::Bench(e) => match e {
                BenchError::BadInput(_) | BenchError::Invalid { .. } => exit::BAD_INPUT,
                BenchError::Io { .. } => exit::IO,
                BenchError::CoresBusy(_) => exit::CORES_BUSY,
                BenchError::ArmFailed(_) => exit::ARM_FAILED,
            },
            CliError::ArmFailed(_) | CliError::Probe(_) => exit::ARM_FAILED,
            CliError::Ledger(_) => exit::IO,
            CliError::NothingScored(_) => exit::NOTHING_SCORED,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The errors beneath `e`, outermost first.
    fn chain(e: &CliError) -> Vec<&(dyn std::error::Error + 'static)> {
        std::iter::successors(std::error::Error::source(e), |e| e.source()).collect()
    }

    #[test]
    fn a_task_file_that_cannot_be_read_keeps_the_io_error_beneath_its_message() {
        let path = std::path::Path::new("/nonexistent/droidscore/task.toml");
        let e = CliError::from(crate::task::load_file(path).unwrap_err());
        assert_eq!(e.exit_code(), crate::exit::BAD_INPUT);
        assert!(
            e.to_string()
                .starts_with("/nonexistent/droidscore/task.toml: cannot read: "),
            "{e}"
        );
        let io = chain(&e)
            .into_iter()
            .find_map(|c| c.downcast_ref::<std::io::Error>())
            .expect("an io::Error in the chain");
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    }

    #[test]
    fn an_io_error_names_what_was_being_done_and_keeps_its_cause() {
        let cause = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let e = CliError::io("failed to write x.png", cause);
        assert_eq!(e.to_string(), "failed to write x.png: denied");
        assert_eq!(e.exit_code(), crate::exit::IO);
        let io = chain(&e)[0].downcast_ref::<std::io::Error>().unwrap();
        assert_eq!(io.kind(), std::io::ErrorKind::PermissionDenied);
    }
}
