//! What several subcommands share: the suite they run over (`--suite`,
//! `--tasks`) and loading it, the adb phones they drive (`--serial`),
//! `--constrain`, and writing data to stdout.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::error::CliError;
use crate::run::AdbDevices;
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

/// Which adb phones to use.
#[derive(Debug, Clone, Args)]
pub struct DeviceArgs {
    /// The phone's serial as `adb devices` lists it, or `all` for every
    /// device in state `device` (one episode stream each). Without it, the
    /// only device attached, as `adb` itself chooses.
    #[arg(long, env = "ANDROID_SERIAL")]
    pub serial: Option<String>,
    /// Seconds to wait for a lost phone to come back (answering a command
    /// again) before giving it up: the run then stops with exit code 13 and
    /// `--resume` finishes it.
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    pub device_wait: u64,
    /// Seconds any one phone command may take before the phone counts as
    /// lost; `uiautomator dump` gets 10 more (it waits that long for an idle
    /// screen), a file transfer 20 times as long.
    #[arg(long, default_value_t = 30, value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub phone_timeout: u64,
}

impl From<&DeviceArgs> for AdbDevices {
    fn from(device: &DeviceArgs) -> Self {
        AdbDevices {
            serial: device.serial.clone(),
            device_wait: device.device_wait,
            phone_timeout: device.phone_timeout,
        }
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

/// `--instructions`: what the agent is told each step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InstructionsArg {
    /// The task's goal alone (AndroidControl's high level).
    Goal,
    /// The goal and the current reference step's instruction, "Tap
    /// Network & internet" (AndroidControl's low level; docs/instructions.md).
    Steps,
}

impl From<InstructionsArg> for crate::task::Instructions {
    fn from(i: InstructionsArg) -> Self {
        match i {
            InstructionsArg::Goal => crate::task::Instructions::Goal,
            InstructionsArg::Steps => crate::task::Instructions::Steps,
        }
    }
}

/// `--reason`: how much reason the constrained answer carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReasonArg {
    /// One sentence before the action (up to 120 characters).
    Full,
    /// A few words (up to 32 characters).
    Short,
    /// No reason: the answer is the action alone.
    Off,
}

impl From<ReasonArg> for crate::agent::schema::Reason {
    fn from(r: ReasonArg) -> Self {
        match r {
            ReasonArg::Full => crate::agent::schema::Reason::Full,
            ReasonArg::Short => crate::agent::schema::Reason::Short,
            ReasonArg::Off => crate::agent::schema::Reason::Off,
        }
    }
}

impl From<ConstrainArg> for crate::agent::Constrain {
    fn from(c: ConstrainArg) -> Self {
        match c {
            ConstrainArg::Schema => crate::agent::Constrain::Schema,
            ConstrainArg::Off => crate::agent::Constrain::Off,
        }
    }
}
