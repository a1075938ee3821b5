//! `droidscore bench run | init-memory | ledger`: the arguments, validated
//! into the harness's config, and the outputs written where asked. Data
//! (the table, a probe's JSON line) goes to stdout; progress to stderr.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::shared::out;
use super::CliError;
use droidscore_harness::check::{self, Expectations};
use droidscore_harness::probes::{init_memory, ledger};
use droidscore_harness::runner::{ArmRun, Observer};
use droidscore_harness::{self as bench, cpu, output};

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Compare arms (subprocesses) over passes in rotated order; judge them.
    Run(BenchRunArgs),
    /// Start a command and measure its start-up time and memory (a probe).
    InitMemory(InitMemoryArgs),
    /// Attribute a process's resident memory to the model, heap, stacks,
    /// libraries, binary and the rest (a probe).
    Ledger(LedgerArgs),
}

#[derive(Debug, Args)]
pub struct BenchRunArgs {
    /// The arms file: `{"arms": [{"tag", "command": [...], "env": {...}}]}`.
    #[arg(long, value_name = "FILE")]
    pub spec: PathBuf,
    #[arg(long, default_value_t = 3)]
    pub passes: usize,
    /// The key the arms are ranked on.
    #[arg(long, value_name = "KEY")]
    pub metric: String,
    /// Further keys to summarise (comma-separated).
    #[arg(long, value_name = "K1,K2", value_delimiter = ',')]
    pub keys: Vec<String>,
    /// Target cores (`0-1,3`): arms are pinned with `taskset -c`, and the
    /// busy check and contention labels look at them. Default: every
    /// online core, unpinned.
    #[arg(long, value_name = "LIST")]
    pub cores: Option<String>,
    /// Write the JSON summary here.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write a Markdown summary here.
    #[arg(long, value_name = "FILE")]
    pub md: Option<PathBuf>,
    /// Hold the run to these bounds; the exit code says how it went.
    #[arg(long, value_name = "FILE")]
    pub check: Option<PathBuf>,
    /// Start even when the target cores are busy; every pass is then labelled forced.
    #[arg(long)]
    pub force: bool,
    /// A core busier than this share (0–1) before the run refuses it; a run
    /// in which work besides the arm's own came to this share of one core is
    /// contended. 1 or more never refuses a core (each is at most 1).
    #[arg(long, default_value_t = 0.15)]
    pub busy_threshold: f64,
    /// How long the busy check samples /proc/stat, in ms.
    #[arg(long, default_value_t = 1000)]
    pub busy_window_ms: u64,
}

#[derive(Debug, Args)]
pub struct InitMemoryArgs {
    /// Ready when GET on this URL answers 200.
    #[arg(
        long,
        value_name = "URL",
        conflicts_with = "ready_pattern",
        required_unless_present = "ready_pattern"
    )]
    pub ready_url: Option<String>,
    /// Ready when a stdout line matches; group 1, if any, is `{url}`.
    #[arg(long, value_name = "REGEX")]
    pub ready_pattern: Option<String>,
    /// Where to read a load time after ready (may use `{url}`); default:
    /// the --ready-url response.
    #[arg(long, value_name = "URL")]
    pub health_url: Option<String>,
    /// Sampling period of the peak RssAnon, in ms.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..))]
    pub period_ms: u64,
    /// After ready, fill this many tokens of context with one chat request
    /// (answered with one token) and measure again.
    #[arg(long, value_name = "N", requires = "chat_url")]
    pub context_len: Option<usize>,
    /// The chat-completions URL for --context-len (may use `{url}`).
    #[arg(long, value_name = "URL")]
    pub chat_url: Option<String>,
    /// `model` sent with the chat request.
    #[arg(long)]
    pub model: Option<String>,
    #[arg(long, default_value_t = 600)]
    pub timeout_s: u64,
    /// The command to start.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct LedgerArgs {
    #[arg(long)]
    pub pid: u32,
    /// The model file whose mappings get their own category (and whose
    /// page-cache residency is reported).
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
}

pub fn bench(command: BenchCommand) -> Result<(), CliError> {
    match command {
        BenchCommand::Run(args) => run(args),
        BenchCommand::InitMemory(args) => init_memory_probe(args),
        BenchCommand::Ledger(args) => ledger_probe(args),
    }
}

/// Progress on stderr: one line per arm run.
struct Progress;

impl Observer for Progress {
    fn started(&mut self, pass: usize, passes: usize, arm: &str) {
        eprintln!("pass {pass}/{passes}: {arm} …");
    }
    fn finished(&mut self, run: &ArmRun) {
        let c = &run.contention;
        eprintln!(
            "pass {}: {} done in {:.2} s{}",
            run.pass,
            run.arm,
            run.wall_s,
            if c.contended {
                format!(
                    " — contended: {:.2} cores busy beyond the arm's own {:.2}",
                    c.excess_cores, c.own_cores
                )
            } else {
                String::new()
            }
        );
    }
}

fn write(path: &PathBuf, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text)
        .map_err(|e| CliError::io(format!("failed to write {}", path.display()), e))
}

fn run(args: BenchRunArgs) -> Result<(), CliError> {
    if !(args.busy_threshold.is_finite() && args.busy_threshold >= 0.0) {
        return Err(CliError::BadInput(format!(
            "--busy-threshold {} is not a non-negative share of one core",
            args.busy_threshold
        )));
    }
    let cores = args
        .cores
        .as_deref()
        .map(cpu::parse_core_list)
        .transpose()
        .map_err(|e| CliError::invalid("--cores", e))?;
    let expectations = args.check.as_deref().map(Expectations::load).transpose()?;
    let config = bench::Config {
        spec: args.spec,
        passes: args.passes,
        metric: args.metric,
        keys: args.keys,
        cores,
        busy_threshold: args.busy_threshold,
        force: args.force,
        busy_window: Duration::from_millis(args.busy_window_ms),
        min_window: Duration::from_millis(250),
        expectations,
    };
    let report = bench::compare(&config, &mut Progress)?;
    if let Some(path) = &args.out {
        write(path, &output::json(&report))?;
    }
    if let Some(path) = &args.md {
        write(path, &output::markdown(&report))?;
    }
    out(&output::terminal(&report))?;
    if let Some(e) = &report.check_error {
        return Err(CliError::BadInput(format!(
            "check: {e} (the summary was written)"
        )));
    }
    if let Some(failure) = &report.error {
        return Err(CliError::ArmFailed(format!(
            "{} (the passes before it are in the summary)",
            failure.describe()
        )));
    }
    match report.check.as_ref().map(|c| c.outcome) {
        None | Some(check::Outcome::Pass) => Ok(()),
        Some(check::Outcome::Regressed) => Err(CliError::Regressed(
            "check: an arm regressed past its bound".into(),
        )),
        Some(check::Outcome::Inconclusive) => Err(CliError::Inconclusive(
            "check: inconclusive, a bound lies inside an arm's spread".into(),
        )),
        Some(check::Outcome::ProvenanceMismatch) => Err(CliError::ProvenanceMismatch(
            "check: this run's machine is not the one the expectations were written for".into(),
        )),
    }
}

fn json_line<T: serde::Serialize>(value: &T) -> Result<(), CliError> {
    let text = serde_json::to_string(value)?;
    out(&(text + "\n"))
}

fn init_memory_probe(args: InitMemoryArgs) -> Result<(), CliError> {
    let ready = match (&args.ready_url, &args.ready_pattern) {
        (Some(u), _) => init_memory::Ready::Url(u.clone()),
        (None, Some(p)) => init_memory::Ready::Pattern(
            regex::Regex::new(p).map_err(|e| CliError::invalid("--ready-pattern", e))?,
        ),
        (None, None) => {
            return Err(CliError::BadInput(
                "give --ready-url or --ready-pattern".into(),
            ))
        }
    };
    let options = init_memory::Options {
        command: args.command,
        ready,
        health_url: args.health_url,
        period: Duration::from_millis(args.period_ms),
        context_len: args.context_len,
        chat_url: args.chat_url,
        model: args.model,
        timeout: Duration::from_secs(args.timeout_s),
    };
    let figures = init_memory::measure(&options).map_err(CliError::Probe)?;
    json_line(&figures)
}

fn ledger_probe(args: LedgerArgs) -> Result<(), CliError> {
    let l = ledger::ledger(args.pid, args.model.as_deref()).map_err(CliError::Ledger)?;
    json_line(&l)
}
