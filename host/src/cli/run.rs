//! `droidscore run`: its arguments, validated once into the typed
//! [`RunOptions`] that `run::run_suite` takes, and what the person running
//! it sees: setup lines and the progress bar on stderr, the finished
//! episodes on stdout (a table or JSON), and an exit code that says whether
//! anything was scored.

use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, ValueEnum};

use super::error::CliError;
use super::shared::{
    json, load, out, ConstrainArg, DeviceArgs, InstructionsArg, ReasonArg, SuiteArgs,
};
use crate::report;
use crate::run::{self, AgentKind, Interrupt, PhoneKind, RunOptions, ServerOptions, Shard, Watch};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PhoneArg {
    /// A fresh in-process simulator per episode.
    Sim,
    /// Phones through the adb server (`--serial`, `ANDROID_SERIAL`, or `--serial all`).
    Adb,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AgentArg {
    /// The task's reference solution.
    Reference,
    /// Declares the task complete without acting.
    Noop,
    /// Obeys the injection or takes the careless path: a safety
    /// template's harm_solution; the reference solution elsewhere.
    Obey,
    /// A seeded random baseline (valid actions from the element list).
    Random,
    /// A model behind an OpenAI-compatible endpoint (`--base-url`, `--model`).
    Llm,
    /// The lexical floor: no model; opens the app the text names, taps the
    /// element whose words best match it, types quoted text.
    Lexical,
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
    pub phone: PhoneArg,
    #[command(flatten)]
    pub device: DeviceArgs,
    /// The agent (default: `llm`, a model).
    #[arg(long, value_enum, conflicts_with = "agent_cmd")]
    pub agent: Option<AgentArg>,
    /// A program that drives the phone itself over adb, run with `sh -c`
    /// once an episode, the episode in its environment (`ANDROID_SERIAL`,
    /// `ANDROID_ADB_SERVER_PORT`, `DROIDSCORE_GOAL`, `DROIDSCORE_ANSWER_FILE`,
    /// …; docs/agent-cmd.md); the phone's state is scored when it exits.
    /// With `--phone sim` it drives a virtual phone behind a private adb
    /// server (the real `adb` is needed), which records its every command.
    #[arg(long, value_name = "CMD", conflicts_with_all = ["base_url", "agent"])]
    pub agent_cmd: Option<String>,
    /// With --agent-cmd: seconds one episode's program may run before it is
    /// killed (its process group) and the phone scored as it stands.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 600,
        requires = "agent_cmd"
    )]
    pub agent_timeout: u64,
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
    #[arg(long, value_name = "PORT", default_value_t = crate::model_server::on_phone::DEFAULT_PORT)]
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
    /// The constrained answer's `reason`: `full` (one sentence), `short` (a
    /// few words) or `off` (none: the action alone). Only `full` without
    /// `--constrain schema`, whose free answer has a `Reason:` line.
    #[arg(long, value_enum, default_value = "full")]
    pub reason: ReasonArg,
    /// What the agent is told each step: the `goal` alone, or with `steps`
    /// the current reference step's instruction too ("Tap Network &
    /// internet"; the one leading to the next unreached sub-goal).
    #[arg(long, value_enum, default_value = "goal")]
    pub instructions: InstructionsArg,
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
    /// Episodes per task instance; repeat r runs with episode seed
    /// `--episode-seed` + r.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Device conditions to play every episode in: `all`, or a
    /// comma-separated list of base, dark, font0.85, font1.15, font1.3,
    /// small, large, landscape. Episodes run condition by condition, each
    /// with the same episode seeds; a task whose initial state sets what the
    /// condition sets (a dark-theme task under `dark`) is recorded as
    /// skipped there. Over adb the phone is put in each condition with the
    /// real commands and restored after the run.
    #[arg(long, default_value = "base")]
    pub conditions: crate::run::Conditions,
    /// Instances of each parameterised task: instance seeds 0..N, each
    /// drawing its own names, numbers, times. A task without drawn params
    /// has one instance. (`--seeds` before.)
    #[arg(long, alias = "seeds", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub instances: u64,
    /// The first episode seed: it sets the phone's clock and the agent's
    /// sampling (the request's `seed`, the random agent's draws); repeat r
    /// runs with this + r. (`--seed` before.)
    #[arg(long, alias = "seed", default_value_t = 0)]
    pub episode_seed: u64,
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
    /// Fail an episode that wrote state no check of its task names (a side
    /// effect: a decoy switch, a message to someone else); its reason names
    /// the keys. See docs/progress.md.
    #[arg(long)]
    pub strict: bool,
    /// Print the finished episodes as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
}

impl From<PhoneArg> for PhoneKind {
    fn from(phone: PhoneArg) -> Self {
        match phone {
            PhoneArg::Sim => PhoneKind::Sim,
            PhoneArg::Adb => PhoneKind::Adb,
        }
    }
}

impl From<AgentArg> for AgentKind {
    fn from(agent: AgentArg) -> Self {
        match agent {
            AgentArg::Reference => AgentKind::Reference,
            AgentArg::Noop => AgentKind::Noop,
            AgentArg::Obey => AgentKind::Obey,
            AgentArg::Random => AgentKind::Random,
            AgentArg::Llm => AgentKind::Llm,
            AgentArg::Lexical => AgentKind::Lexical,
        }
    }
}

impl RunArgs {
    /// The run these arguments ask for, with `shard` for `--shard`.
    pub(super) fn options(self, shard: Option<Shard>) -> RunOptions {
        RunOptions {
            suite: self.suite.source(),
            task_glob: self.suite.tasks,
            phone: self.phone.into(),
            devices: (&self.device).into(),
            agent: self.agent.map(AgentKind::from),
            agent_cmd: self.agent_cmd.map(|command| crate::agent_cmd::AgentCmd {
                command,
                timeout: std::time::Duration::from_secs(self.agent_timeout),
                output_limit: crate::agent_cmd::OUTPUT_LIMIT,
            }),
            base_url: self.base_url,
            model: self.model,
            server: ServerOptions {
                on_device: self.on_device,
                port: self.device_port,
                binary: self.device_bin,
                model: self.device_model,
                weights: self.device_weights.map(WeightsArg::name),
                threads: self.device_threads,
            },
            api_key_env: self.api_key_env,
            temperature: self.temperature,
            no_image: self.no_image,
            agent_format: self.agent_format,
            constrain: self.constrain.map(Into::into),
            reason: self.reason.into(),
            instructions: self.instructions.into(),
            request_timeout: self.request_timeout,
            ca_cert: self.ca_cert,
            rate_limit_wait: self.rate_limit_wait,
            max_steps: self.max_steps,
            variants: self.variants,
            repeat: self.repeat,
            conditions: self.conditions,
            instances: self.instances,
            episode_seed: self.episode_seed,
            jobs: self.jobs,
            shard,
            store: self.store,
            run_id: self.run_id,
            resume: self.resume,
            strict: self.strict,
        }
    }
}

/// `--shard`, else the one a Kubernetes Indexed Job's or a Slurm array's
/// variables name (said on stderr), else none.
fn shard(args: &RunArgs) -> Result<Option<Shard>, CliError> {
    if args.shard.is_some() {
        return Ok(args.shard);
    }
    let found = run::shard_from_env(|name| std::env::var(name).ok(), args.shard_count)
        .map_err(|e| CliError::BadInput(format!("--shard from the environment: {e}")))?;
    Ok(found.map(|(shard, source)| {
        eprintln!("shard {shard} from {source}");
        shard
    }))
}

/// The terminal's view of a run: setup lines on stderr, a progress bar
/// there when it is a terminal, and SIGINT/SIGTERM passed to the run.
pub(super) struct Terminal;

impl Watch for Terminal {
    fn say(&mut self, line: &str) {
        eprintln!("{line}");
    }

    fn progress(&mut self, episodes: usize) -> indicatif::ProgressBar {
        // indicatif draws nothing when stderr is not a terminal, so pipes stay clean.
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(episodes as u64),
            indicatif::ProgressDrawTarget::stderr(),
        );
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} episodes {elapsed} {msg}")
        {
            bar.set_style(style);
        }
        bar
    }

    fn interrupt(&mut self) -> Arc<Interrupt> {
        super::signals::interrupt_on_signals()
    }
}

/// `droidscore run`: the suite run and scored, its episodes on stdout.
pub fn run(args: RunArgs) -> Result<(), CliError> {
    // Recorded and planned as if given as --shard.
    let shard = shard(&args)?;
    let tasks = load(&args.suite)?;
    let (json_out, store) = (args.json, args.store.clone());
    let finished = run::run_suite(&args.options(shard), &tasks, &mut Terminal)?;
    if json_out {
        json(&finished.episodes)?;
    } else {
        out(&report::run_table(
            &finished.agent.name(),
            &finished.run_id,
            &store,
            &finished.episodes,
        ))?;
    }
    match finished.nothing_scored() {
        Some(why) => Err(CliError::NothingScored(why)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::schema::Reason;
    use crate::task::Instructions;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        run: RunArgs,
    }

    fn options(args: &[&str]) -> RunOptions {
        let cli = Cli::try_parse_from(std::iter::once("run").chain(args.iter().copied()))
            .unwrap_or_else(|e| panic!("{args:?}: {e}"));
        cli.run.options(None)
    }

    #[test]
    fn instructions_reason_and_the_lexical_agent_reach_the_run_options() {
        let default = options(&[]);
        assert_eq!(default.instructions, Instructions::Goal);
        assert_eq!(default.reason, Reason::Full);
        let asked = options(&[
            "--agent",
            "lexical",
            "--instructions",
            "steps",
            "--reason",
            "short",
        ]);
        assert_eq!(asked.agent, Some(AgentKind::Lexical));
        assert_eq!(asked.instructions, Instructions::Steps);
        assert_eq!(asked.reason, Reason::Short);
        assert_eq!(options(&["--reason", "off"]).reason, Reason::Off);
        assert!(Cli::try_parse_from(["run", "--reason", "long"]).is_err());
        assert!(Cli::try_parse_from(["run", "--instructions", "low"]).is_err());
    }

    #[test]
    fn conditions_reach_the_run_options_and_a_bad_one_names_the_flag() {
        use droidscore_phone::Condition;
        assert_eq!(options(&[]).conditions.0, [Condition::Base]);
        assert_eq!(
            options(&["--conditions", "all"]).conditions.0,
            Condition::ALL
        );
        assert_eq!(
            options(&["--conditions", "base,dark,font1.3"]).conditions.0,
            [Condition::Base, Condition::Dark, Condition::Font(1300)]
        );
        let err = Cli::try_parse_from(["run", "--conditions", "dark,dim"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("--conditions"), "{err}");
        assert!(err.contains("\"dim\"") && err.contains("font0.85"), "{err}");
    }
}
