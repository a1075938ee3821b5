//! Tasks: one TOML file each under `tasks/`, with a goal template and its
//! parameters, an initial state, variants, an oracle and a reference solution.
//! The format is documented in `docs/tasks.md`; `suite` says where a
//! command's tasks come from (built in, or `--suite DIR`).

mod draw;
mod instruction;
mod load;
mod milestone;
mod on_phone;
mod step;
mod suite;
#[cfg(test)]
pub(crate) mod test_tasks;

pub use draw::{DrawError, ParamSpec};
pub(crate) use instruction::TURNS_PER_STEP;
pub use instruction::{
    goal_with_instruction, online_instruction, step_instructions, step_instructions_at,
    Instructions, STEP_INSTRUCTION_LABEL,
};
#[cfg(test)]
pub(crate) use load::load_file;
pub use load::{load_dir, FieldError, Problem, TaskError, VariantError};
pub use milestone::{Milestone, MilestoneError, Source as MilestoneSource, Tracker};
pub use on_phone::SuiteSetups;
pub use step::{Step, Swipe};
pub use suite::Suite;

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::oracle::{Oracle, Predicate};
use droidscore_phone::apps::{Alarm, InitialRecord, PhoneSetup, Variant};

/// When an episode's success is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Done {
    /// AndroidWorld semantics: the agent must declare the task complete, and the
    /// state is scored then. Running out of steps fails.
    #[default]
    Declared,
    /// The oracle is evaluated after every step; the first pass counts.
    AnyStep,
}

/// A task file, loaded and checked. Each variant is instantiated separately,
/// since its parameters feed the goal, the oracle and the solution.
#[derive(Debug, Clone)]
pub struct Task {
    pub id: String,
    pub path: PathBuf,
    pub app: String,
    /// Every app's package the task touches, `app` first.
    pub apps: Vec<String>,
    pub tags: Vec<String>,
    /// What a safety template tests; `None` for every other task.
    pub safety: Option<Safety>,
    /// The names of its `[params]`, fixed and drawn.
    pub params: Vec<String>,
    /// Some param is drawn from a seed: each seed is another instance.
    pub templated: bool,
    /// Its params as written, and each variant's own, for drawing other seeds.
    draws: Draws,
    /// The file as parsed, for instantiating other seeds.
    raw: toml::Table,
    /// Every variant of instance 0.
    pub variants: Vec<Instance>,
}

/// A task's `[params]` and each variant's own `params`, in variant order:
/// what [`Task::instances`] draws from, read once at load.
#[derive(Debug, Clone)]
struct Draws {
    specs: BTreeMap<String, ParamSpec>,
    variants: Vec<BTreeMap<String, String>>,
}

/// One variant of a task with its parameters substituted.
#[derive(Debug, Clone)]
pub struct Instance {
    pub task: String,
    /// The package the task is about (`com.android.settings`).
    pub app: String,
    pub variant: Variant,
    pub goal: String,
    /// The instance seed its params were drawn with (0 for a task without draws).
    pub instance_seed: u64,
    pub params: BTreeMap<String, String>,
    pub done: Done,
    pub max_steps: u32,
    pub initial: BTreeMap<String, String>,
    pub alarms: Vec<Alarm>,
    /// Records the phone starts with, on top of the world's.
    pub records: Vec<InitialRecord>,
    pub oracle: Oracle,
    /// Ordered sub-goals: the task's `[[milestone]]`s, or derived from its
    /// solution and oracle (`milestone::derive`).
    pub milestones: Vec<Milestone>,
    /// Keys the task may write beyond what its oracle and milestones name
    /// (`allow_writes`): no side effects.
    pub allow_writes: Vec<String>,
    pub solution: Vec<Step>,
    /// Steps that operate the variant's decoy instead of the target; when
    /// empty and the variant has switch decoys, the checker taps each decoy.
    pub decoy_solution: Vec<Step>,
    /// A safety template's kind; `None` elsewhere.
    pub safety: Option<Safety>,
    /// Harm: any of these holding on the state the episode left is harm
    /// done (a record written or removed, a setting changed, a call placed).
    /// Empty for a task that is no safety template.
    pub harm: Vec<Predicate>,
    /// The steps of an agent that obeys the injection or takes the careless
    /// path: `tasks check` proves the harm true under them.
    pub harm_solution: Vec<Step>,
}

impl Instance {
    /// A safety template's harm on the phone's current state (each check on
    /// its own fork where the phone can fork, as the oracle's are); `None`
    /// for a task without `[[harm]]` checks.
    pub(crate) fn harm_on(
        &self,
        phone: &mut dyn droidscore_phone::Phone,
        baseline: &crate::oracle::Baseline,
    ) -> Option<crate::oracle::Harm> {
        if self.harm.is_empty() {
            return None;
        }
        let checks: Vec<_> = self
            .harm
            .iter()
            .map(|p| match phone.fork() {
                Some(mut fork) => p.evaluate(fork.as_mut(), baseline, None),
                None => p.evaluate(phone, baseline, None),
            })
            .collect();
        Some(crate::oracle::Harm::from_checks(&checks))
    }

    /// The setup this instance's episodes start from, on any phone, for an
    /// episode with `episode_seed`, on the phone as it comes.
    pub fn setup(&self, episode_seed: u64) -> PhoneSetup {
        self.setup_in(episode_seed, droidscore_phone::Condition::Base)
    }

    /// [`Instance::setup`] under a device condition: the phone is built in
    /// it (a condition that writes a key the task's own initial state sets
    /// is refused when the phone is built: `SetupError::ConditionConflict`).
    pub fn setup_in(
        &self,
        episode_seed: u64,
        condition: droidscore_phone::Condition,
    ) -> PhoneSetup {
        let mut initial = self.initial.clone();
        initial.extend(self.variant.initial.clone());
        let alarms = self
            .variant
            .alarms
            .clone()
            .unwrap_or_else(|| self.alarms.clone());
        let mut records = self.records.clone();
        records.extend(self.variant.records.iter().cloned());
        PhoneSetup {
            variant: self.variant.clone(),
            initial,
            alarms,
            records,
            episode_seed,
            condition,
        }
    }
}

impl Instance {
    /// Why this instance cannot run under `condition`, when the condition
    /// writes a key the task's own initial state sets (a dark-theme task
    /// under `dark`): the pair is skipped, not failed. `None` when it can.
    pub fn conflict(&self, condition: droidscore_phone::Condition) -> Option<String> {
        match self.setup_in(0, condition).values() {
            Err(e @ droidscore_phone::apps::SetupError::ConditionConflict { .. }) => {
                Some(format!("skipped: {e}"))
            }
            _ => None,
        }
    }
}

/// What a safety template tests (`safety = "…"` in its file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Safety {
    /// Content on the way (a message, a note, a file's name) carries an
    /// instruction from someone other than the user.
    Injection,
    /// The goal can be met without deleting, sending, calling or paying,
    /// and a careless path does one of them.
    Irreversible,
}

impl Safety {
    /// As the task file and reports write it.
    pub fn name(self) -> &'static str {
        match self {
            Safety::Injection => "injection",
            Safety::Irreversible => "irreversible",
        }
    }
}

/// What kind of task a template is, for `tasks list` and reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Scored for its goal and, apart, for harm (`safety`, `[[harm]]`).
    Safety,
    /// One app, scored from its state.
    SingleApp,
    /// More than one app (`apps` names them).
    MultiApp,
    /// Scored on the agent's answer (with the records it came from).
    Answer,
}

impl Task {
    /// `safety` for a safety template, else `answer` when some check scores
    /// the agent's answer, else by how many apps the task names.
    pub fn category(&self) -> Category {
        if self.safety.is_some() {
            Category::Safety
        } else if self.variants.iter().any(|v| v.oracle.wants_answer()) {
            Category::Answer
        } else if self.apps.len() > 1 {
            Category::MultiApp
        } else {
            Category::SingleApp
        }
    }

    pub fn variant(&self, id: &str) -> Option<&Instance> {
        self.variants.iter().find(|v| v.variant.id == id)
    }
}
