//! The command line: one `Args` struct per subcommand, validated once, and the
//! error type whose variants map to documented exit codes.

mod adb;
mod agent;
mod bench;
mod commands;
mod device;
mod error;
mod shared;
mod signals;

pub use commands::run;
pub use error::CliError;
pub use shared::{ConstrainArg, SuiteArgs};

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

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
    /// Summarise a run from the store, compare two, or merge shard stores.
    Report(ReportArgs),
    /// Memory and speed comparisons: run arms and judge them, or probe one process.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// The LLM agent's requests without a model: dump and measure the prompts.
    #[command(subcommand, hide = true)]
    Agent(agent::AgentCommand),
}

#[derive(Debug, Subcommand)]
pub enum TasksCommand {
    /// List tasks and their variants.
    List(ListArgs),
    /// Prove every oracle false at the start, under a do-nothing agent and a
    /// decoy agent, and true under the reference solution.
    Check(CheckArgs),
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    #[arg(long)]
    pub json: bool,
    /// Check each parameterised task at instance seeds 0..N.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub seeds: u64,
}

#[derive(Debug, Subcommand)]
pub enum SimCommand {
    /// Print the uiautomator dump of a task variant's first screen.
    Dump(DumpArgs),
    /// Serve a virtual phone over adb's wire protocol: `adb connect` to it.
    Serve(ServeArgs),
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on. Keep the port outside 5555–5585: the adb server
    /// also scans that range for emulators and would list the phone twice.
    #[arg(long, default_value = "127.0.0.1:6520")]
    pub listen: String,
    /// Tasks that `droidscore-sim load` can put the phone in (default: the
    /// built-in suite).
    #[arg(long, value_name = "DIR")]
    pub suite: Option<PathBuf>,
    /// Start in this task's initial state (with `--variant`, default `base`).
    #[arg(long)]
    pub task: Option<String>,
    #[arg(long, default_value = "base", requires = "task")]
    pub variant: String,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Fault injection, for testing a runner: drop every connection when
    /// command N+1 arrives (a shell command, a push or a pull), once.
    #[arg(long, value_name = "N", help_heading = "Faults")]
    pub drop_after: Option<u64>,
    /// With --drop-after: refuse connections this many seconds after the
    /// drop, then listen again (a phone rebooting).
    #[arg(
        long,
        value_name = "SECS",
        requires = "drop_after",
        help_heading = "Faults"
    )]
    pub refuse_for: Option<u64>,
    /// Fault injection: from command N+1 on, accept every command and never
    /// answer it (a hung adbd; the connection stays open).
    #[arg(long, value_name = "N", help_heading = "Faults")]
    pub stall_after: Option<u64>,
}

#[derive(Debug, Subcommand)]
pub enum AdbCommand {
    /// Time observations through the adb server: dump, read-back, screenshot,
    /// foreground, and a bare `echo` round trip for the transport itself.
    Latency(LatencyArgs),
}

#[derive(Debug, Args)]
pub struct LatencyArgs {
    #[command(flatten)]
    pub device: DeviceArgs,
    /// Observations to time (after one warm-up).
    #[arg(short = 'n', long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(3..))]
    pub count: u32,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum DeviceCommand {
    /// Push `droidscore-device` and a model to /data/local/tmp, start `serve`
    /// in the background, `adb forward` a host port to it and wait for
    /// /health; print the base URL (`http://127.0.0.1:PORT/v1`) on stdout.
    Deploy(DeployArgs),
    /// Stop the deployed server and remove its forward.
    Stop(StopArgs),
}

#[derive(Debug, Args)]
pub struct DeployArgs {
    /// The phone's serial (default: the only one attached).
    #[arg(long, env = "ANDROID_SERIAL")]
    pub serial: Option<String>,
    /// An aarch64 build of `droidscore-device`.
    #[arg(long, value_name = "FILE", default_value = crate::agent::on_device::DEFAULT_BINARY)]
    pub binary: PathBuf,
    /// The model file (GGUF) to serve; default: the default model in the
    /// cache (`$DROIDSCORE_CACHE/models/SmolLM2-135M-Instruct.Q4_1.gguf`,
    /// else under `~/.cache/droidscore`).
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
    /// The server's port on the phone; the host's end of the forward is the
    /// same port if free, else another (printed).
    #[arg(long, default_value_t = crate::agent::on_device::DEFAULT_PORT)]
    pub port: u16,
    /// The server's CPU threads (default: every core of the phone).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Seconds to wait for /health (loading a model on a phone is slow).
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    pub wait: u64,
}

#[derive(Debug, Args)]
pub struct StopArgs {
    #[arg(long, env = "ANDROID_SERIAL")]
    pub serial: Option<String>,
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

#[derive(Debug, Args)]
pub struct DumpArgs {
    /// Directory of task files (default: the built-in suite).
    #[arg(long, value_name = "DIR")]
    pub suite: Option<PathBuf>,
    #[arg(long)]
    pub task: String,
    #[arg(long, default_value = "base")]
    pub variant: String,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Open this intent (or `sim:<screen>`) instead of launching the task's app.
    #[arg(long, conflicts_with = "after")]
    pub open: Option<String>,
    /// Instead, play the first N steps of the reference solution and dump
    /// the screen they reach (what a task author checks step N+1 against).
    #[arg(long, value_name = "N")]
    pub after: Option<usize>,
    /// The instance seed of a parameterised task.
    #[arg(long, default_value_t = 0)]
    pub instance: u64,
    /// Also write the screenshot here.
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct UiArgs {
    /// A uiautomator dump (`uiautomator dump` output, or its file).
    pub file: PathBuf,
    /// Print the numbered element list an agent sees (the default).
    #[arg(long, group = "format")]
    pub elements: bool,
    /// Print the parsed tree as JSON.
    #[arg(long, group = "format")]
    pub json: bool,
    /// Re-serialise in uiautomator's exact form.
    #[arg(long, group = "format")]
    pub xml: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PhoneKind {
    /// A fresh in-process simulator per episode.
    Sim,
    /// Phones through the adb server (`--serial`, `ANDROID_SERIAL`, or `--serial all`).
    Adb,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AgentKind {
    /// The task's reference solution.
    Reference,
    /// Declares the task complete without acting.
    Noop,
    /// A seeded random baseline (valid actions from the element list).
    Random,
    /// A model behind an OpenAI-compatible endpoint (`--base-url`, `--model`).
    Llm,
}

/// `--device-weights`: `droidscore-device serve --weights`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WeightsArg {
    Packed,
    F16,
    F32,
}

impl WeightsArg {
    pub fn name(self) -> &'static str {
        match self {
            WeightsArg::Packed => "packed",
            WeightsArg::F16 => "f16",
            WeightsArg::F32 => "f32",
        }
    }
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    #[arg(long, value_enum, default_value = "sim")]
    pub phone: PhoneKind,
    #[command(flatten)]
    pub device: DeviceArgs,
    /// The agent (default: `llm`, a model).
    #[arg(long, value_enum)]
    pub agent: Option<AgentKind>,
    /// The model's OpenAI-compatible endpoint, up to `/v1`: `http://`, or
    /// `https://` verified against the system's root certificates (and
    /// `--ca-cert`). Without it, `droidscore-device serve` is started on this
    /// machine with the default model (or `--device-model`) and stopped after.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model name sent with each request (with `--base-url`).
    #[arg(long, requires = "base_url")]
    pub model: Option<String>,
    /// Run the model on the adb phone itself: `droidscore-device` is
    /// deployed to it (as `device deploy`; a healthy deployment of the same
    /// files is reused) and left running after the run.
    #[arg(long, conflicts_with = "base_url")]
    pub on_device: bool,
    /// With `--on-device`: the server's port on the phone.
    #[arg(long, value_name = "PORT", default_value_t = crate::agent::on_device::DEFAULT_PORT)]
    pub device_port: u16,
    /// The local server's binary (default: beside `droidscore`, else on
    /// PATH); with `--on-device`, an aarch64 build to push (default:
    /// what `scripts/build-aarch64.sh` builds).
    /// Ignored with `--base-url` (so the environment variable can stay set).
    #[arg(long, value_name = "FILE", env = "DROIDSCORE_DEVICE_BIN")]
    pub device_bin: Option<PathBuf>,
    /// The local server's model, passed as `droidscore-device serve
    /// --model`: a name (`smollm2-135m`, the default, or
    /// `qwen2.5-coder-0.5b`), a GGUF file or a safetensors directory. With
    /// `--on-device`, a GGUF file to push, or a name: that model's file in
    /// the host's cache (`droidscore-device fetch-model NAME` puts it
    /// there). A bare word that is neither a file nor a known name is
    /// refused with the known names before anything starts.
    #[arg(long, value_name = "NAME|PATH", conflicts_with = "base_url")]
    pub device_model: Option<String>,
    /// How the device server holds the weights, passed as `serve --weights`:
    /// `packed` (quantized blocks as in the file), `f16` or `f32`
    /// (dequantized at load). Default: the server's.
    #[arg(long, value_enum, conflicts_with = "base_url")]
    pub device_weights: Option<WeightsArg>,
    /// The local server's CPU threads (default: every core).
    #[arg(long, value_name = "N", conflicts_with = "base_url")]
    pub device_threads: Option<usize>,
    /// Environment variable holding the API key (sent as a bearer token).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    #[arg(long, default_value_t = 0.0)]
    pub temperature: f32,
    /// Send no screenshot, only the element list (text-only models).
    #[arg(long)]
    pub no_image: bool,
    /// The prompt and the answer grammar the model was trained on:
    /// `androidworld` (AndroidWorld's JSON action over the element list),
    /// `ui-tars` (UI-TARS-1.5), `qwen-mobile-use` (Qwen2.5-VL),
    /// `qwen3-mobile-use` (Qwen3-VL), `agentcpm-gui` (AgentCPM-GUI). All but
    /// `androidworld` read the screenshot alone, and need a model that reads
    /// images and `--constrain off`.
    #[arg(long, value_name = "NAME", default_value = "androidworld")]
    pub agent_format: crate::agent::AgentFormat,
    /// Send each step's action schema as `response_format` (`schema`) or
    /// not (`off`). Default: `schema` for the model server droidscore
    /// starts (locally or `--on-device`), `off` for a `--base-url`.
    #[arg(long, value_enum)]
    pub constrain: Option<ConstrainArg>,
    /// Seconds before one model request times out (then it is retried).
    #[arg(long, default_value_t = 120)]
    pub request_timeout: u64,
    /// A PEM file of CA certificates to trust beside the system's roots for
    /// an `https://` endpoint (a private CA, a self-signed server).
    #[arg(long, value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
    /// On HTTP 429, wait as the endpoint's `Retry-After` says as long as the
    /// wait ends within SECS of the request's first attempt; past that the
    /// episode is an infrastructure failure. Changes no verdict.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub rate_limit_wait: u64,
    /// Override every task's step budget.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_steps: Option<u32>,
    /// `all`, `base` (each task's first variant), or a comma-separated list of ids.
    #[arg(long, default_value = "all")]
    pub variants: String,
    /// Episodes per task instance; repeat r runs with seed `seed + r`.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Instances of each parameterised task (instance seeds 0..N, each
    /// drawing its own names, numbers, times); a task without drawn params
    /// has one instance.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub seeds: u64,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Episodes run at once, each on its own simulated phone.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub jobs: u64,
    /// Run only slice K of N of the episode list (deterministic), e.g. `1/2`.
    /// Without it, read from a Kubernetes Indexed Job (`JOB_COMPLETION_INDEX`
    /// with `--shard-count`) or a Slurm array (`SLURM_ARRAY_TASK_ID`,
    /// `SLURM_ARRAY_TASK_COUNT`) when their variables are set.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::run::Shard>,
    /// With a Kubernetes Indexed Job: the Job's `completions` (Kubernetes
    /// puts only the index in the environment).
    #[arg(long, value_name = "N", env = "DROIDSCORE_SHARD_COUNT")]
    pub shard_count: Option<u32>,
    /// The run store (SQLite); created if missing.
    #[arg(long, default_value = "droidscore-runs.sqlite")]
    pub store: PathBuf,
    /// Name the run (default: the start time). Shards of one run share an id.
    #[arg(long, conflicts_with = "resume")]
    pub run_id: Option<String>,
    /// Continue this run: finished episodes are kept, the rest are run.
    #[arg(long, value_name = "RUN")]
    pub resume: Option<String>,
    /// Print the finished episodes as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run to report (default: the newest in the store).
    pub run: Option<String>,
    /// A second run: compare the two task by task.
    pub other: Option<String>,
    #[arg(long, default_value = "droidscore-runs.sqlite")]
    pub store: PathBuf,
    #[arg(long, value_enum, default_value = "table")]
    pub format: crate::report::format::Format,
    /// Where `--format html` writes its page (default:
    /// `droidscore-report-<run>.html`); the path is printed.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Merge this shard store into `--store` first (repeat for several); a
    /// directory merges every `*.sqlite` store in it, in name order.
    #[arg(long, value_name = "STORE|DIR")]
    pub merge: Vec<PathBuf>,
}
