//! The `droidscore-device` binary's exit codes, one named constant each,
//! and [`Failure`], the error every subcommand returns: its message, its
//! code, and the library error it came from (its `source()`).
//! `droidscore` has its own codes (`droidscore::exit`); these are this
//! binary's, documented in docs/cli.md beside them.

use std::error::Error;
use std::sync::Arc;

/// The command did what it was asked (`serve`: until it was stopped).
pub const SUCCESS: i32 = 0;
/// The command line was wrong (clap's own code).
pub const USAGE: i32 = 2;
/// The command failed: a bad argument or input file, or a model that would
/// not load or answer; the message says which.
pub const FAILED: i32 = 3;
/// Fetching a model failed: pip or its index, or a wheel whose sha256 is
/// not the pinned one.
pub const FETCH: i32 = 4;
/// `serve` could not listen on `--listen` (the address is in use, say).
pub const LISTEN: i32 = 5;

/// Every code with the words docs/cli.md gives it.
pub const ALL: &[(i32, &str)] = &[
    (SUCCESS, "success"),
    (USAGE, "usage"),
    (FAILED, "the command failed"),
    (FETCH, "fetching a model failed"),
    (LISTEN, "could not listen"),
];

/// A subcommand's failure: what to print, the exit code, and the error it
/// came from, if it came from one.
#[derive(Debug, Clone)]
pub struct Failure {
    pub code: i32,
    pub message: String,
    cause: Option<Arc<dyn Error + Send + Sync>>,
}

impl Failure {
    pub fn new(code: i32, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            cause: None,
        }
    }

    /// [`FAILED`] because of `cause`: `CONTEXT: CAUSE`, the cause kept.
    pub fn caused(
        context: impl std::fmt::Display,
        cause: impl Error + Send + Sync + 'static,
    ) -> Failure {
        Failure {
            code: FAILED,
            message: format!("{context}: {cause}"),
            cause: Some(Arc::new(cause)),
        }
    }

    /// `code` with `cause`'s message, the cause kept.
    fn from_error(code: i32, cause: impl Error + Send + Sync + 'static) -> Failure {
        Failure {
            code,
            message: cause.to_string(),
            cause: Some(Arc::new(cause)),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl Error for Failure {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.cause.as_deref().map(|e| e as &(dyn Error + 'static))
    }
}

/// A plain message is [`FAILED`]; the other codes are given where they
/// arise.
impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::new(FAILED, message)
    }
}

/// A model that could not be fetched is [`FETCH`]; a path or name that is
/// wrong is [`FAILED`].
impl From<crate::model::ModelError> for Failure {
    fn from(e: crate::model::ModelError) -> Failure {
        use crate::model::ModelError;
        let code = match e {
            ModelError::Fetch { .. }
            | ModelError::Download { .. }
            | ModelError::WheelHash { .. } => FETCH,
            ModelError::File { .. } | ModelError::Unknown { .. } => FAILED,
        };
        Failure::from_error(code, e)
    }
}

/// Errors that can only mean the command failed: [`FAILED`], the error kept.
macro_rules! failed_from {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for Failure {
            fn from(e: $error) -> Failure {
                Failure::from_error(FAILED, e)
            }
        }
    )*};
}

failed_from!(
    crate::engine::LoadError,
    crate::engine::EngineError,
    crate::quantize::QuantizeError,
    crate::runner::ReexecError,
    crate::speed::SpeedError,
    crate::weights::WeightsError,
);

#[cfg(test)]
mod tests {
    use std::error::Error;

    use super::*;
    use crate::model::ModelError;

    #[test]
    fn a_model_that_could_not_be_fetched_is_not_a_bad_name() {
        let fetch = ModelError::Fetch {
            model: "smollm2-135m",
            why: "pip exited 1".into(),
        };
        assert_eq!(Failure::from(fetch).code, FETCH);
        let unknown = ModelError::Unknown {
            arg: "smollm".into(),
            known: "smollm2-135m".into(),
        };
        assert_eq!(Failure::from(unknown).code, FAILED);
        assert_eq!(Failure::from("bad -c".to_string()).code, FAILED);
        let download = ModelError::Download {
            model: "smollm2-135m",
            source: crate::model::DownloadError::Pip {
                stderr: "no such index".into(),
            },
        };
        assert_eq!(Failure::from(download).code, FETCH);
    }

    #[test]
    fn a_failure_keeps_the_error_it_came_from() {
        let reexec = crate::runner::ReexecError::CurrentExe(std::io::Error::other("gone"));
        let failure = Failure::from(reexec);
        assert_eq!(failure.code, FAILED);
        assert_eq!(failure.message, "finding this program: gone");
        let kept = failure.source().unwrap();
        assert!(
            kept.downcast_ref::<crate::runner::ReexecError>().is_some(),
            "{kept:?}"
        );
        let io = kept.source().unwrap();
        assert_eq!(io.to_string(), "gone");

        let caused = Failure::caused("chunk 3", crate::engine::EngineError::Closed);
        assert_eq!(caused.message, "chunk 3: the engine closed the channel");
        assert!(caused
            .source()
            .unwrap()
            .downcast_ref::<crate::engine::EngineError>()
            .is_some());
        assert!(Failure::from("bad -c".to_string()).source().is_none());
    }

    #[test]
    fn cli_reference_lists_every_code() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/cli.md");
        let readme = std::fs::read_to_string(path).unwrap();
        let (_, ours) = readme
            .split_once("`droidscore-device` (`droidscore_device::exit`)")
            .expect("docs/cli.md has the device's exit codes");
        for (code, words) in ALL {
            let row = format!("| {code} | ");
            assert!(
                ours.lines()
                    .any(|l| l.starts_with(&row) && l.contains(words)),
                "docs/cli.md has no row `{row}{words} …` for droidscore-device"
            );
        }
    }

    #[test]
    fn every_code_is_distinct_and_listed_in_order() {
        assert!(ALL.windows(2).all(|w| w[0].0 < w[1].0), "{ALL:?}");
    }
}
