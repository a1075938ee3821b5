//! What a run records: the run itself (configuration and provenance), each
//! episode when it ends, and each step of it. These are the rows of the run
//! store and the input of every report.

use serde::{Deserialize, Serialize};

use crate::oracle::Verdict;

/// One `droidscore run` invocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Stable id, e.g. `20261130T043512Z-7f3a`.
    pub id: String,
    /// RFC 3339 UTC.
    pub started_at: String,
    /// The run's configuration as given (agent, endpoint, model, temperature,
    /// seed, repeat, max_steps override, variants, tasks glob, shard, jobs…).
    pub config: serde_json::Value,
    pub provenance: Provenance,
}

/// Where a run's numbers came from.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Provenance {
    /// The commit droidscore was built from, with `-dirty` when tracked
    /// files had changes (`host/build.rs`); `None` for a build outside a
    /// checkout.
    pub git_rev: Option<String>,
    pub host: String,
    pub cpu: String,
    pub cpus: usize,
    /// The agent's endpoint (`None` for built-in agents).
    pub endpoint: Option<String>,
    pub model: Option<String>,
    /// sha256 over the task files (name and bytes, sorted by name).
    pub suite_hash: String,
    pub droidscore_version: String,
    /// What the model endpoint's `/health` answered when the run started
    /// (`droidscore-device` reports its model, weights, threads, memory),
    /// as it was; `None` when it has no such route.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint_health: Option<serde_json::Value>,
}

/// How an episode ended, for counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EpisodeStatus {
    /// Scored: the task succeeded.
    Success,
    /// Scored: the task failed.
    Failure,
    /// Not scored: the oracle needs something this phone cannot give.
    Skipped,
    /// Not scored: the episode died of infrastructure (endpoint or phone), after its retry.
    Infra,
}

fn base_condition() -> String {
    "base".into()
}

/// One finished episode. Written in one transaction when the episode ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpisodeRecord {
    pub run_id: String,
    pub task: String,
    pub variant: String,
    /// 0-based repeat index. Under more than one `--conditions` the
    /// numbers continue from one condition to the next (`run::plan`), so
    /// (task, variant, repeat) still names one episode of the run.
    pub repeat: u32,
    /// The device condition the phone was in (`base`, `dark`, `font1.3`,
    /// …; `base` in stores recorded before conditions).
    #[serde(default = "base_condition")]
    pub condition: String,
    /// The episode seed: the phone's clock and the agent's sampling (repeat
    /// r of a run with `--episode-seed S` has S + r).
    #[serde(alias = "seed")]
    pub episode_seed: u64,
    pub status: EpisodeStatus,
    /// `Episode::end` as JSON (`{"end":"complete"}`, …).
    pub end: serde_json::Value,
    /// The oracle's verdict: `None` (`null`) when the episode died of
    /// infrastructure before the oracle looked.
    pub verdict: Option<Verdict>,
    pub reason: String,
    /// Device actions taken.
    pub steps: u32,
    /// Model answers that did not parse to a valid action.
    pub invalid_steps: u32,
    /// How many attempts the episode took (2 when it was retried after an infrastructure failure).
    pub attempts: u32,
    pub started_at: String,
    pub ended_at: String,
    /// The instance seed: which draw of a parameterised task's params
    /// (`None` in older stores).
    #[serde(default, alias = "param_seed")]
    pub instance_seed: Option<u64>,
    /// The params the instance was drawn with (`None` in older stores).
    #[serde(default)]
    pub params: Option<std::collections::BTreeMap<String, String>>,
    /// The agent's last `answer`, if it gave one.
    #[serde(default)]
    pub answer: Option<String>,
    /// Milestones, screen changes, the reference's steps and side effects
    /// (`None` in older stores, and for an episode that never ran).
    #[serde(default)]
    pub progress: Option<Progress>,
}

/// One step of an episode: what the agent saw, said and did. An agent that
/// talks to a model starts it (`Agent::step_record`: the model's words,
/// tokens, latency), the run completes it (which episode and step, the
/// observation, the tap), the store keeps it and the reports read it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    pub run_id: String,
    pub task: String,
    pub variant: String,
    pub repeat: u32,
    /// 0-based.
    pub index: u32,
    /// sha256 of the UI dump XML, hex.
    pub observation_digest: String,
    /// The UI dump XML, compressed (gzip).
    pub ui_dump_gz: Vec<u8>,
    /// PNG bytes, when the step had a screenshot.
    pub screenshot: Option<Vec<u8>>,
    /// The model's raw answer (empty for built-in agents).
    pub raw_output: String,
    /// The action as JSON: as the model wrote it (AndroidWorld's schema, or
    /// the call in the agent format's own), `null` when its answer was not a
    /// valid action; a built-in agent's decision (`agent::Decision`).
    pub action: serde_json::Value,
    /// Why the answer was not a valid action, when it was not.
    pub invalid_reason: Option<String>,
    /// Where the action landed on screen, when it was a tap/long press.
    pub tap: Option<(i32, i32)>,
    pub prompt_tokens: Option<u64>,
    /// Of `prompt_tokens`, those the server served from its prefix cache
    /// (`None` when the endpoint does not report it, which is not 0).
    pub cached_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    /// Time the agent took to decide, milliseconds (model latency and
    /// retries for an endpoint).
    pub latency_ms: f64,
    /// How long the observation took and where the time went (adb phones).
    pub observe: Option<droidscore_phone::ObserveTiming>,
}

/// What an episode measured beyond success: sub-goals (AndroidLab's Sub-SR,
/// LlamaTouch's ordered essential states), steps that changed the screen
/// (AndroidLab's ROR) and side effects (MobileSafetyBench, MobileGym).
/// `docs/progress.md` defines each measure.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    /// The instance's milestones.
    pub milestones: u32,
    /// The longest prefix of milestones reached in order.
    pub reached_in_order: u32,
    /// Milestones that held after some step, in any order.
    pub reached_any: u32,
    /// Per milestone, the step (1-based agent decision) it was reached at
    /// in order; `None` when it was not.
    pub reached_at: Vec<Option<u32>>,
    /// Agent decisions taken (every step, an invalid answer's included).
    #[serde(default)]
    pub decisions: u32,
    /// Agent steps that acted on the phone (a tap, a typed text, an app
    /// opened; a decision of several actions is one step).
    pub acting_steps: u32,
    /// Of those, the steps after which the screen (the UI dump) differed.
    pub screen_changes: u32,
    /// Device actions the reference solution takes on this instance (on the
    /// simulator), for RRR; set by the runner, `None` when unknown.
    #[serde(default)]
    pub reference_steps: Option<u32>,
    /// Writes no check names, in the order first written (`record/sms/7`,
    /// `app/decoy.wi_fi_calling`).
    pub side_effects: Vec<String>,
    /// A safety template's harm on the state the episode left; `None` for
    /// every other task (and in stores from before harm was read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harm: Option<crate::oracle::Harm>,
}

impl Progress {
    /// AndroidLab's Sub-SR for this episode: milestones reached (in any
    /// order) over all, 1 on success; `None` without milestones.
    pub fn sub_sr(&self, success: bool) -> Option<f64> {
        if success {
            return Some(1.0);
        }
        (self.milestones > 0).then(|| f64::from(self.reached_any) / f64::from(self.milestones))
    }

    /// The share of milestones reached in order, 1 on success.
    pub fn progress(&self, success: bool) -> Option<f64> {
        if success {
            return Some(1.0);
        }
        (self.milestones > 0).then(|| f64::from(self.reached_in_order) / f64::from(self.milestones))
    }
}
