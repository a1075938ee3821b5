//! The command line: one file per subcommand, holding its `Args` struct
//! (validated once) and its handler; `command` is the list of them and
//! where each goes; `error` is the error type whose variants map to
//! documented exit codes; `shared` what several subcommands share.

mod adb;
mod agent;
mod bench;
mod command;
mod device;
mod error;
mod report;
mod run;
mod shared;
mod signals;
mod sim;
mod sim_gallery;
mod steps;
mod tasks;
mod ui;

pub use command::{run, Cli, Command};
pub use error::CliError;
pub use shared::{ConstrainArg, SuiteArgs};
