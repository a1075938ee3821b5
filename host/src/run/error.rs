//! Why [`crate::run::run_suite`] failed: before any episode (bad options, a
//! phone or model server that would not come up, a store that refuses), or
//! while running (a signal, a lost phone, an endpoint that refused, a full
//! disk), in which case the run is recorded and [`Kept`] says how to finish
//! it. The command line maps each kind to its exit code.

use droidscore_phone::apps::SetupError;

use super::adb_phones::PhonesError;
use super::execute::RunError;
use super::plan::UnknownVariant;
use crate::agent::LlmError;
use crate::model_server::local::LocalServerError;
use crate::model_server::on_phone::DeployError;
use crate::store::StoreError;
use crate::task::TaskError;

#[derive(Debug, thiserror::Error)]
pub enum RunSuiteError {
    /// The options asked for something that cannot be done (said in words).
    #[error("{0}")]
    BadInput(String),
    #[error(transparent)]
    UnknownVariant(#[from] UnknownVariant),
    /// A parameterised task's instances could not be drawn.
    #[error(transparent)]
    Task(#[from] TaskError),
    /// The simulator would not start.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The model endpoint's configuration was refused before any request.
    #[error(transparent)]
    Llm(LlmError),
    /// No adb phone to run on.
    #[error(transparent)]
    Phones(#[from] PhonesError),
    /// The model server would not deploy to the phone.
    #[error(transparent)]
    Deploy(#[from] DeployError),
    /// The local model server would not start.
    #[error(transparent)]
    LocalServer(#[from] LocalServerError),
    /// I/O: `what` was being done when `source` happened.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(Box<StoreError>),
    /// The suite's files could not be read for its hash.
    #[error(transparent)]
    SuiteHash(std::io::Error),
    /// SIGINT or SIGTERM stopped the run between two commits.
    #[error("interrupted by {}: {kept}", super::interrupt::signal_name(*signal))]
    Interrupted { signal: i32, kept: Kept },
    /// The store refused a write mid-run (a full disk).
    #[error("{source}; the run stopped: {kept}")]
    StoreFailed {
        kept: Kept,
        #[source]
        source: Box<StoreError>,
    },
    /// A phone went away for good.
    #[error("{source}; finished episodes are kept: --resume {run_id} runs the rest once the phone is back")]
    PhoneGone {
        run_id: String,
        #[source]
        source: Box<RunError>,
    },
    /// The endpoint refused.
    #[error("{source}; finished episodes are kept: --resume {run_id} continues")]
    EndpointRefused {
        run_id: String,
        #[source]
        source: Box<RunError>,
    },
    /// The run stopped on something else.
    #[error(transparent)]
    Run(Box<RunError>),
}

impl From<StoreError> for RunSuiteError {
    fn from(e: StoreError) -> Self {
        RunSuiteError::Store(Box::new(e))
    }
}

/// What a run that stopped early keeps, and how to finish it.
#[derive(Debug)]
pub struct Kept {
    pub run_id: String,
    pub store: std::path::PathBuf,
    /// Its finished episodes, when the store could still say.
    pub finished: Option<usize>,
    /// Its episodes in all.
    pub total: usize,
}

impl std::fmt::Display for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Kept {
            run_id,
            store,
            finished,
            total,
        } = self;
        let store = store.display();
        match finished {
            Some(n) => write!(
                f,
                "{store} keeps the {n} of {total} episodes that finished; \
                 `droidscore run --resume {run_id}` with the same options runs the other {}",
                total.saturating_sub(*n)
            ),
            None => write!(
                f,
                "{store} keeps the episodes that finished; \
                 `droidscore run --resume {run_id}` with the same options runs the rest"
            ),
        }
    }
}
