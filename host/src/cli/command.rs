//! The command line's shape: `droidscore` and its subcommands, and which
//! handler each goes to. Each subcommand's arguments and handler live in
//! the file named for it.

use clap::{Parser, Subcommand};

use super::adb::AdbCommand;
use super::agent::AgentCommand;
use super::bench::BenchCommand;
use super::device::DeviceCommand;
use super::error::CliError;
use super::report::ReportArgs;
use super::run::RunArgs;
use super::sim::SimCommand;
use super::steps::StepsArgs;
use super::tasks::TasksCommand;
use super::ui::UiArgs;

#[derive(Debug, Parser)]
#[command(
    name = "droidscore",
    version,
    about = "Score AI agents operating Android phones from the phone's own state"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List or check task suites.
    #[command(subcommand)]
    Tasks(TasksCommand),
    /// Inspect the simulator, or serve it as a virtual phone over adb.
    #[command(subcommand)]
    Sim(SimCommand),
    /// Phones over adb: measure what an observation costs.
    #[command(subcommand)]
    Adb(AdbCommand),
    /// The model server on a phone: deploy `droidscore-device` over adb, or stop it.
    #[command(subcommand)]
    Device(DeviceCommand),
    /// Inspect a uiautomator dump captured from any phone.
    Ui(UiArgs),
    /// Run agents over a task suite and score every episode.
    Run(Box<RunArgs>),
    /// Offline: replay each reference solution and score the agent's answer
    /// at every step under named matchers (AndroidControl/AITW style).
    Steps(Box<StepsArgs>),
    /// Summarise a run from the store, compare two, or merge shard stores.
    Report(ReportArgs),
    /// Memory and speed comparisons: run arms and judge them, or probe one process.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// The LLM agent's requests without a model: dump and measure the prompts.
    #[command(subcommand, hide = true)]
    Agent(AgentCommand),
}

/// Run the subcommand `cli` names.
pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Tasks(command) => super::tasks::tasks(command),
        Command::Sim(command) => super::sim::sim(command),
        Command::Adb(command) => super::adb::adb(command),
        Command::Device(command) => super::device::device(command),
        Command::Ui(args) => super::ui::ui(args),
        Command::Run(args) => super::run::run(*args),
        Command::Steps(args) => super::steps::steps(*args),
        Command::Report(args) => super::report::report(args),
        Command::Bench(command) => super::bench::bench(command),
        Command::Agent(command) => super::agent::agent(command),
    }
}
