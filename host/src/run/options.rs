//! What a run is asked to do, as typed values: the command line's `run`
//! arguments once validated (`cli::run` builds a [`RunOptions`]), with no
//! trace of how they were parsed.

use std::path::PathBuf;

use super::adb_phones::AdbDevices;
use super::shard::Shard;
use crate::agent::schema::Reason;
use crate::agent::{AgentFormat, Constrain};
use crate::task::{Instructions, Suite};

/// The phones a run plays its episodes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhoneKind {
    /// A fresh in-process simulator per episode.
    Sim,
    /// Phones through the adb server.
    Adb,
}

/// The agent a run scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentKind {
    /// The task's reference solution.
    Reference,
    /// Declares the task complete without acting.
    Noop,
    /// Obeys the injection or takes the careless path: a safety template's
    /// `harm_solution`, the reference solution elsewhere.
    Obey,
    /// A seeded random baseline (valid actions from the element list).
    Random,
    /// A model behind an OpenAI-compatible endpoint.
    Llm,
    /// The lexical floor: no model, the words of the goal or instruction.
    Lexical,
    /// A program that drives the phone itself (`--agent-cmd`).
    Command,
}

impl AgentKind {
    /// Its name on the command line and in the run's config: `llm`, `noop`, …
    pub fn name(self) -> String {
        format!("{self:?}").to_lowercase()
    }
}

/// The model server droidscore starts when no `base_url` is given: on this
/// machine, or on the adb phone (`on_device`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerOptions {
    /// Deploy to the adb phone instead of starting one here.
    pub on_device: bool,
    /// With `on_device`: the server's port on the phone.
    pub port: u16,
    /// The server's binary (here: beside `droidscore`, else on PATH; on the
    /// phone: an aarch64 build).
    pub binary: Option<PathBuf>,
    /// A model name, a GGUF file or a safetensors directory (here); a GGUF
    /// file or a known name in the host's cache (on the phone).
    pub model: Option<String>,
    /// `serve --weights`: `packed`, `f16` or `f32`.
    pub weights: Option<&'static str>,
    pub threads: Option<usize>,
}

/// Everything `droidscore run` was asked, validated.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The suite the tasks were read from, and the `--tasks` glob that
    /// chose among them (both recorded in the run's config).
    pub suite: Suite,
    pub task_glob: Option<String>,
    pub phone: PhoneKind,
    pub devices: AdbDevices,
    /// The agent; none means `llm`.
    pub agent: Option<AgentKind>,
    /// `--agent-cmd`: a program plays each episode instead of an agent.
    pub agent_cmd: Option<crate::agent_cmd::AgentCmd>,
    /// The model's endpoint up to `/v1`, and the model it serves.
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub server: ServerOptions,
    pub api_key_env: Option<String>,
    pub temperature: f32,
    pub no_image: bool,
    pub agent_format: AgentFormat,
    /// Whether requests carry the step's schema; none: `schema` for a
    /// server droidscore started, `off` for any other.
    pub constrain: Option<Constrain>,
    /// How much reason the constrained answer carries (`--reason`).
    pub reason: Reason,
    /// What the agent is told each step (`--instructions`).
    pub instructions: Instructions,
    /// Seconds before one model request times out.
    pub request_timeout: u64,
    pub ca_cert: Option<PathBuf>,
    /// Seconds a request may wait on HTTP 429s.
    pub rate_limit_wait: u64,
    /// Every task's step budget, overridden.
    pub max_steps: Option<u32>,
    /// `all`, `base`, or a comma-separated list of variant ids.
    pub variants: String,
    pub repeat: u32,
    /// `--conditions`: every episode is played in each (condition-major).
    pub conditions: super::Conditions,
    /// Instance seeds 0..instances of each parameterised task.
    pub instances: u64,
    /// Repeat r of an instance runs with episode seed `episode_seed + r`.
    pub episode_seed: u64,
    pub jobs: u64,
    /// The slice of the episode list this process runs.
    pub shard: Option<Shard>,
    /// The run store (SQLite).
    pub store: PathBuf,
    pub run_id: Option<String>,
    pub resume: Option<String>,
    /// `--strict`: an episode with a side effect fails.
    pub strict: bool,
}
