//! Probes: subcommands that measure one thing and print one JSON object on
//! their last stdout line, so `bench run` can use them as arms.

pub mod init_memory;
pub mod ledger;

/// Why a probe measured nothing.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// Said in words: the child exited before it was ready, a flag is missing.
    #[error("{0}")]
    Failed(String),
    /// `what` (`POST <url>`, `/proc/<pid>/smaps`) failed with `source`.
    #[error("{what}: {source}")]
    Because {
        what: String,
        #[source]
        source: crate::error::Cause,
    },
    /// The HTTP client would not build.
    #[error(transparent)]
    Client(reqwest::Error),
}

impl ProbeError {
    pub(crate) fn because(what: impl Into<String>, source: impl Into<crate::error::Cause>) -> Self {
        ProbeError::Because {
            what: what.into(),
            source: source.into(),
        }
    }
}

impl From<&str> for ProbeError {
    fn from(why: &str) -> Self {
        ProbeError::Failed(why.to_string())
    }
}

impl From<String> for ProbeError {
    fn from(why: String) -> Self {
        ProbeError::Failed(why)
    }
}
