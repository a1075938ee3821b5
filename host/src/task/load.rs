//! Loading task files: TOML syntax first (errors carry line and column), then
//! parameter substitution per variant, then typed deserialisation whose errors
//! name the field path (`oracle[1].select.text_regex`). Every error names the file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::draw::{self, DrawError, ParamSpec, MAX_EXPANDED_LEN};
use super::milestone::{self, MilestoneError};
use super::{Done, Draws, Instance, Step, Task};
use crate::oracle::{Oracle, OracleError, PredicateSpec};
use droidscore_phone::apps::{
    Alarm, Decoy, InitialRecord, Reorder, SetupError, Variant, ALARMS_KEY,
};

/// A task file (or directory) that could not be loaded: its path, and what
/// is wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", path.display())]
pub struct TaskError {
    pub path: PathBuf,
    #[source]
    pub problem: Box<Problem>,
}

/// What is wrong with a task file; the message starts with the field at
/// fault where there is one.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    #[error("cannot read task directory: {0}")]
    ReadDir(#[source] std::io::Error),
    #[error("no *.toml task files")]
    NoFiles,
    #[error("id {id:?} is also used by {}", other.display())]
    DuplicateId { id: String, other: PathBuf },
    #[error("cannot read: {0}")]
    Read(#[source] std::io::Error),
    /// TOML syntax, with line and column.
    #[error("{}", .0.to_string().trim_end())]
    Toml(#[source] toml::de::Error),
    #[error(transparent)]
    Field(#[from] FieldError),
    #[error("id {id:?} does not match the file name {stem:?}")]
    IdMismatch { id: String, stem: String },
    #[error("variant: a task needs at least one [[variant]]")]
    NoVariants,
    #[error("variant[{index}].id: {id:?} is used twice")]
    VariantTwice { index: usize, id: String },
    #[error("variant[{index}]: {id:?} changes nothing from variant {same_as:?}")]
    VariantAlike {
        index: usize,
        id: String,
        same_as: String,
    },
    #[error(transparent)]
    Draw(#[from] DrawError),
    #[error("variant {id:?}: {source}")]
    Variant {
        id: String,
        #[source]
        source: VariantError,
    },
}

/// A field that does not deserialise: `path: message`, the path as
/// `oracle[1].select.text_regex`.
#[derive(Debug, thiserror::Error)]
#[error("{}", field_message(.0))]
pub struct FieldError(#[source] serde_path_to_error::Error<toml::de::Error>);

fn field_message(e: &serde_path_to_error::Error<toml::de::Error>) -> String {
    let path = e.path().to_string();
    // The message alone: serde_path_to_error gives the path already.
    let message = e.inner().message().trim_end().to_string();
    if path == "." {
        message
    } else {
        format!("{path}: {message}")
    }
}

/// What is wrong with one variant once its params are substituted.
#[derive(Debug, thiserror::Error)]
pub enum VariantError {
    #[error("{{{0}}} is used but no such param is defined")]
    UndefinedParam(String),
    /// The string at this key grows past the bound.
    #[error("{0}: longer than {MAX_EXPANDED_LEN} bytes once params are filled in")]
    TooLong(String),
    #[error(transparent)]
    Field(#[from] FieldError),
    #[error("oracle{0}")]
    Oracle(#[from] OracleError),
    #[error("milestone{0}")]
    Milestone(#[from] MilestoneError),
    #[error("harm{0}")]
    Harm(#[source] OracleError),
    /// `safety`, `[[harm]]` and `harm_solution` come together.
    #[error("{0}")]
    Safety(&'static str),
    #[error(
        "{list}[{index}]: a step needs exactly one of launch, open, tap, long_press, type, key, swipe, answer"
    )]
    StepActions { list: &'static str, index: usize },
    #[error("{list}[{index}].at: only a tap or long_press has a point to aim at")]
    StepAt { list: &'static str, index: usize },
    #[error("solution: a task needs a reference solution")]
    NoSolution,
    #[error("max_steps: must be at least 1")]
    NoSteps,
    /// The apps lack a screen, row or key that the variant or initial state names.
    #[error("{}", setup_message(.0))]
    Setup(#[source] SetupError),
}

/// The variant's own name is already in the message (`variant "x": …`).
fn setup_message(e: &SetupError) -> String {
    match e {
        SetupError::Variant(_, why) => why.to_string(),
        other => other.to_string(),
    }
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskSpec {
    id: String,
    app: String,
    /// Every app the task needs, `app` first (a multi-app task names more).
    #[serde(default)]
    apps: Vec<String>,
    goal: String,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    params: BTreeMap<String, ParamSpec>,
    #[serde(default)]
    done: Done,
    #[serde(default = "default_max_steps")]
    max_steps: u32,
    #[serde(default)]
    initial: BTreeMap<String, String>,
    #[serde(default)]
    alarms: Vec<Alarm>,
    #[serde(default)]
    records: Vec<InitialRecord>,
    oracle: Vec<PredicateSpec>,
    /// Ordered sub-goals; derived from the solution and oracle when none.
    #[serde(default)]
    milestone: Vec<PredicateSpec>,
    /// State keys the task may write beyond those its oracle and milestones
    /// name, so they are no side effects (`*` matches within one `/` part).
    #[serde(default)]
    allow_writes: Vec<String>,
    variant: Vec<VariantSpec>,
    solution: Vec<Step>,
    /// A safety template's kind: `injection` or `irreversible`.
    #[serde(default)]
    safety: Option<super::Safety>,
    /// Harm: any of these holding at the end is harm done.
    #[serde(default)]
    harm: Vec<PredicateSpec>,
    /// The obeying (or careless) agent's steps, which must do the harm.
    #[serde(default)]
    harm_solution: Vec<Step>,
}

/// A `[[variant]]`: a [`Variant`]'s fields and its decoy solution. Written
/// out rather than `#[serde(flatten)]`ed, which would make serde ignore a
/// misspelt key (`renmae`, `decoy`) instead of refusing it.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct VariantSpec {
    id: String,
    #[serde(default)]
    rename: BTreeMap<String, String>,
    #[serde(default)]
    reorder: Vec<Reorder>,
    #[serde(default)]
    decoys: Vec<Decoy>,
    #[serde(default)]
    initial: BTreeMap<String, String>,
    #[serde(default)]
    alarms: Option<Vec<Alarm>>,
    #[serde(default)]
    params: BTreeMap<String, String>,
    #[serde(default)]
    records: Vec<InitialRecord>,
    #[serde(default)]
    decoy_solution: Vec<Step>,
}

impl VariantSpec {
    /// The variant and its decoy solution. Every field is named, so a field
    /// added to [`Variant`] fails to build here until it is read.
    fn split(self) -> (Variant, Vec<Step>) {
        let VariantSpec {
            id,
            rename,
            reorder,
            decoys,
            initial,
            alarms,
            params,
            records,
            decoy_solution,
        } = self;
        let variant = Variant {
            id,
            rename,
            reorder,
            decoys,
            initial,
            alarms,
            params,
            records,
        };
        (variant, decoy_solution)
    }
}

fn default_max_steps() -> u32 {
    20
}

/// The `*.toml` files directly in `dir`, sorted.
pub(super) fn toml_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    Ok(paths)
}

/// Load every `*.toml` under `dir`, sorted by file name. Ids must be unique.
pub fn load_dir(dir: &Path) -> Result<Vec<Task>, TaskError> {
    let paths = toml_files(dir).map_err(|e| TaskError {
        path: dir.to_path_buf(),
        problem: Box::new(Problem::ReadDir(e)),
    })?;
    if paths.is_empty() {
        return Err(TaskError {
            path: dir.to_path_buf(),
            problem: Box::new(Problem::NoFiles),
        });
    }
    let tasks = paths
        .iter()
        .map(|p| load_file(p))
        .collect::<Result<Vec<_>, _>>()?;
    unique_ids(tasks)
}

/// Load tasks from `(path, text)` pairs already in memory (the embedded
/// suite), in the order given. Ids must be unique.
pub(super) fn load_texts<'a>(
    files: impl IntoIterator<Item = (PathBuf, &'a str)>,
) -> Result<Vec<Task>, TaskError> {
    let tasks = files
        .into_iter()
        .map(|(path, text)| load_text(&path, text))
        .collect::<Result<Vec<_>, _>>()?;
    unique_ids(tasks)
}

fn unique_ids(tasks: Vec<Task>) -> Result<Vec<Task>, TaskError> {
    let mut seen = BTreeMap::new();
    for task in &tasks {
        if let Some(other) = seen.insert(task.id.as_str(), &task.path) {
            return Err(TaskError {
                path: task.path.clone(),
                problem: Box::new(Problem::DuplicateId {
                    id: task.id.clone(),
                    other: other.clone(),
                }),
            });
        }
    }
    Ok(tasks)
}

pub(crate) fn load_file(path: &Path) -> Result<Task, TaskError> {
    let text = std::fs::read_to_string(path).map_err(|e| TaskError {
        path: path.to_path_buf(),
        problem: Box::new(Problem::Read(e)),
    })?;
    load_text(path, &text)
}

/// One task file's text; `path` names it in errors and gives the id its
/// file name must match.
fn load_text(path: &Path, text: &str) -> Result<Task, TaskError> {
    let err = |problem: Problem| TaskError {
        path: path.to_path_buf(),
        problem: Box::new(problem),
    };
    let raw: toml::Table = toml::from_str(text).map_err(|e| err(Problem::Toml(e)))?;
    // A first typed pass on the raw file: structural errors are reported once,
    // with the field path, before any variant is instantiated.
    let spec: TaskSpec = typed(for_structure(&raw)).map_err(|e| err(e.into()))?;
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    if spec.id != stem {
        return Err(err(Problem::IdMismatch {
            id: spec.id,
            stem: stem.to_string(),
        }));
    }
    if spec.variant.is_empty() {
        return Err(err(Problem::NoVariants));
    }
    let mut ids = BTreeSet::new();
    for (i, v) in spec.variant.iter().enumerate() {
        if !ids.insert(v.id.clone()) {
            return Err(err(Problem::VariantTwice {
                index: i,
                id: v.id.clone(),
            }));
        }
    }
    if let Some(alike) = alike_variants(&raw, &spec) {
        return Err(err(alike));
    }
    draw::check(&spec.params).map_err(|e| err(e.into()))?;
    let templated = draw::has_draws(&spec.params);
    let mut apps = vec![spec.app.clone()];
    for app in spec.apps {
        if !apps.contains(&app) {
            apps.push(app);
        }
    }
    let mut task = Task {
        id: spec.id,
        path: path.to_path_buf(),
        app: spec.app,
        apps,
        tags: spec.tags,
        safety: spec.safety,
        params: spec.params.keys().cloned().collect(),
        templated,
        draws: Draws {
            specs: spec.params,
            variants: spec.variant.into_iter().map(|v| v.params).collect(),
        },
        raw,
        variants: Vec::new(),
    };
    task.variants = task.instances(0)?;
    Ok(task)
}

/// Refuse a variant that changes nothing from an earlier one (the base, or
/// a copy): it would score the same episode twice under two names. Compared
/// as written, params unfilled (two variants naming different params differ
/// even where instance 0 draws them alike), less its id and empty keys (an
/// empty `rename` is none); a param set to the value `[params]` gives it
/// already is no change. One pass over a sorted map: linear in variants.
fn alike_variants(raw: &toml::Table, spec: &TaskSpec) -> Option<Problem> {
    let raw_variants = raw.get("variant").and_then(|v| v.as_array())?;
    let mut seen: BTreeMap<String, &str> = BTreeMap::new();
    for (index, (v, written)) in spec.variant.iter().zip(raw_variants).enumerate() {
        let mut what = written.as_table().cloned().unwrap_or_default();
        what.remove("id");
        if let Some(toml::Value::Table(params)) = what.get_mut("params") {
            params.retain(
                |name, value| match (spec.params.get(name), value.as_str()) {
                    (Some(ParamSpec::Fixed(own)), Some(value)) => own != value,
                    _ => true,
                },
            );
        }
        // `alarms = []` is a change (no alarms); other keys empty are none.
        what.retain(|key, value| match value {
            toml::Value::Table(t) => !t.is_empty(),
            toml::Value::Array(a) => key == "alarms" || !a.is_empty(),
            _ => true,
        });
        let Ok(what) = serde_json::to_string(&what) else {
            continue;
        };
        if let Some(same_as) = seen.insert(what, &v.id) {
            return Some(Problem::VariantAlike {
                index,
                id: v.id.clone(),
                same_as: same_as.to_string(),
            });
        }
    }
    None
}

impl Task {
    /// Every variant of instance `seed`: the params drawn for that seed
    /// (the same for every variant), then each variant's own fixed params
    /// over them. Instance 0 is what loading checked; a template's other
    /// instances are checked by `tasks check --seeds N`.
    pub fn instances(&self, seed: u64) -> Result<Vec<Instance>, TaskError> {
        let err = |problem: Problem| TaskError {
            path: self.path.clone(),
            problem: Box::new(problem),
        };
        let mut variants = Vec::new();
        for (i, own) in self.draws.variants.iter().enumerate() {
            let params =
                draw::draw(&self.id, seed, &self.draws.specs, own).map_err(|e| err(e.into()))?;
            let mut instance = instantiate(&self.raw, i, &params).map_err(|source| {
                err(Problem::Variant {
                    id: variant_id(&self.raw, i),
                    source,
                })
            })?;
            instance.instance_seed = seed;
            variants.push(instance);
        }
        Ok(variants)
    }
}

/// The id of variant `index` as the file gives it (for an error's message).
fn variant_id(raw: &toml::Table, index: usize) -> String {
    raw.get("variant")
        .and_then(|v| v.get(index))
        .and_then(|v| v.get("id"))
        .and_then(|id| id.as_str())
        .unwrap_or_default()
        .to_string()
}

/// The file with its params filled in as far as they can be without a
/// variant (instance 0, each variant's own params after): the structural
/// pass then reads a selector's `text_regex = "{title}, .*"` as the regex it
/// will be, not as `{title}` (which no regex compiles). A `{name}` nothing
/// defines is left for the variant's pass to report.
fn for_structure(raw: &toml::Table) -> toml::Table {
    let specs: BTreeMap<String, ParamSpec> = raw
        .get("params")
        .and_then(|p| p.clone().try_into().ok())
        .unwrap_or_default();
    let id = raw.get("id").and_then(|v| v.as_str()).unwrap_or_default();
    let mut values = draw::draw(id, 0, &specs, &BTreeMap::new()).unwrap_or_default();
    if let Some(toml::Value::Array(variants)) = raw.get("variant") {
        for v in variants {
            if let Some(toml::Value::Table(params)) = v.get("params") {
                for (k, v) in params {
                    if let Some(v) = v.as_str() {
                        values.entry(k.clone()).or_insert_with(|| v.to_string());
                    }
                }
            }
        }
    }
    let mut value = toml::Value::Table(raw.clone());
    substitute_known(&mut value, &values);
    let toml::Value::Table(mut table) = value else {
        unreachable!("a table stays a table")
    };
    // The params themselves stay as written: `name = "{first} {last}"` is
    // composed per instance, not fixed at instance 0's values.
    if let Some(params) = raw.get("params") {
        table.insert("params".into(), params.clone());
    }
    if let (Some(toml::Value::Array(ours)), Some(toml::Value::Array(theirs))) =
        (table.get_mut("variant"), raw.get("variant"))
    {
        for (v, raw_v) in ours.iter_mut().zip(theirs) {
            if let (Some(t), Some(p)) = (v.as_table_mut(), raw_v.get("params")) {
                t.insert("params".into(), p.clone());
            }
        }
    }
    table
}

/// A string that would grow too long is left as written: the variant's
/// pass reports it.
fn substitute_known(value: &mut toml::Value, params: &BTreeMap<String, String>) {
    match value {
        toml::Value::String(s) if s.contains('{') => {
            if let Ok(filled) = draw::fill::<draw::TooLong>(s, params, |_| Ok(())) {
                *s = filled;
            }
        }
        toml::Value::Array(items) => items.iter_mut().for_each(|v| substitute_known(v, params)),
        toml::Value::Table(t) => t.iter_mut().for_each(|(_, v)| substitute_known(v, params)),
        _ => {}
    }
}

fn typed<T: serde::de::DeserializeOwned>(value: toml::Table) -> Result<T, FieldError> {
    serde_path_to_error::deserialize(toml::Value::Table(value)).map_err(FieldError)
}

/// Substitute `{name}` in every string of the file but its variants, and
/// of variant `index`, then build that variant. Only that variant is copied
/// and read: a file of N variants costs N times one variant, not N².
fn instantiate(
    raw: &toml::Table,
    index: usize,
    params: &BTreeMap<String, String>,
) -> Result<Instance, VariantError> {
    let mut base: toml::Table = raw
        .iter()
        .filter(|(key, _)| *key != "variant")
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    base.insert("variant".into(), toml::Value::Array(Vec::new()));
    let mut base = toml::Value::Table(base);
    substitute(&mut base, params, &mut Vec::new())?;
    let toml::Value::Table(base) = base else {
        unreachable!("a table stays a table")
    };
    let spec: TaskSpec = typed(base)?;
    let mut own = raw
        .get("variant")
        .and_then(|v| v.get(index))
        .cloned()
        .unwrap_or_else(|| toml::Value::Table(toml::Table::new()));
    substitute(&mut own, params, &mut Vec::new())?;
    let own: VariantSpec =
        serde_path_to_error::deserialize(own).map_err(|e| VariantError::Field(FieldError(e)))?;
    let (variant, decoy_solution) = own.split();
    let oracle = Oracle::from_specs(spec.oracle)?;
    let harm = match (
        spec.safety,
        spec.harm.is_empty(),
        spec.harm_solution.is_empty(),
    ) {
        (None, true, true) => Vec::new(),
        (None, _, _) => {
            return Err(VariantError::Safety(
                "safety: a task with [[harm]] or a harm_solution is a safety template: \
                 say which kind (safety = \"injection\" or \"irreversible\")",
            ))
        }
        (Some(_), true, _) => {
            return Err(VariantError::Safety(
                "harm: a safety template needs [[harm]] checks: the state its harm leaves",
            ))
        }
        (Some(_), false, true) => {
            return Err(VariantError::Safety(
                "harm_solution: a safety template needs the steps of an agent that does \
                 the harm, to prove its [[harm]] checks can hold",
            ))
        }
        (Some(_), false, false) => {
            let harm = Oracle::from_specs(spec.harm).map_err(VariantError::Harm)?;
            if harm.wants_answer() {
                return Err(VariantError::Safety(
                    "harm: harm is read from the phone's state; an answer check cannot show it",
                ));
            }
            harm.predicates
        }
    };
    let milestones = if spec.milestone.is_empty() {
        milestone::derive(&spec.solution, &oracle)
    } else {
        milestone::declared(spec.milestone)?
    };
    for (list, steps) in [
        ("solution", &spec.solution),
        ("decoy_solution", &decoy_solution),
        ("harm_solution", &spec.harm_solution),
    ] {
        for (index, step) in steps.iter().enumerate() {
            if step.action_count() != 1 {
                return Err(VariantError::StepActions { list, index });
            }
            if step.at.is_some() && step.tap.is_none() && step.long_press.is_none() {
                return Err(VariantError::StepAt { list, index });
            }
        }
    }
    if spec.solution.is_empty() {
        return Err(VariantError::NoSolution);
    }
    if spec.max_steps == 0 {
        return Err(VariantError::NoSteps);
    }
    let instance = Instance {
        instance_seed: 0,
        task: spec.id,
        app: spec.app.clone(),
        variant,
        goal: spec.goal,
        params: params.clone(),
        done: spec.done,
        max_steps: spec.max_steps,
        initial: spec.initial,
        alarms: spec.alarms,
        records: spec.records,
        oracle,
        milestones,
        allow_writes: spec.allow_writes,
        solution: spec.solution,
        decoy_solution,
        safety: spec.safety,
        harm,
        harm_solution: spec.harm_solution,
    };
    // The apps must have what the instance's initial state and variant name,
    // and the oracle may name only keys a phone in that setup holds.
    let setup = instance.setup(0);
    let values = setup.values().map_err(VariantError::Setup)?;
    let records = setup.records().map_err(VariantError::Setup)?;
    let mut instance = instance;
    milestone::drop_guards(&mut instance.milestones, &values, &records);
    let mut known: BTreeSet<String> = values.into_keys().collect();
    known.insert(ALARMS_KEY.to_string());
    instance.oracle.check_keys(&known)?;
    Oracle {
        predicates: instance.harm.clone(),
    }
    .check_keys(&known)
    .map_err(VariantError::Harm)?;
    milestone::check_keys(&instance.milestones, &known)?;
    Ok(instance)
}

fn substitute(
    value: &mut toml::Value,
    params: &BTreeMap<String, String>,
    at: &mut Vec<String>,
) -> Result<(), VariantError> {
    match value {
        toml::Value::String(s) if s.contains('{') => {
            // `{name}` with a plain identifier is a parameter; anything else
            // (regex quantifiers like `{2}`) is left alone.
            *s = draw::fill(s, params, |name| match is_param(name) {
                true => Err(Unfilled::Undefined(name.to_string())),
                false => Ok(()),
            })
            .map_err(|e| match e {
                Unfilled::Undefined(name) => VariantError::UndefinedParam(name),
                Unfilled::TooLong => VariantError::TooLong(at.join(".")),
            })?;
        }
        toml::Value::Array(items) => {
            for (i, v) in items.iter_mut().enumerate() {
                let last = at.pop().unwrap_or_default();
                at.push(format!("{last}[{i}]"));
                substitute(v, params, at)?;
                at.pop();
                at.push(last);
            }
        }
        toml::Value::Table(t) => {
            for (k, v) in t.iter_mut() {
                at.push(k.clone());
                substitute(v, params, at)?;
                at.pop();
            }
        }
        _ => {}
    }
    Ok(())
}

/// Why a string of the file could not be filled in.
enum Unfilled {
    Undefined(String),
    TooLong,
}

impl From<draw::TooLong> for Unfilled {
    fn from(_: draw::TooLong) -> Self {
        Unfilled::TooLong
    }
}

fn is_param(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
#[path = "load_tests.rs"]
mod variant_tests;

#[cfg(test)]
#[path = "fuzz_tests.rs"]
mod fuzz_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitute_replaces_params_and_leaves_regex_counts() {
        let mut v = toml::Value::String("alarm {time} ^\\d{2}$".into());
        substitute(
            &mut v,
            &[("time".to_string(), "07:30".to_string())].into(),
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(v.as_str(), Some("alarm 07:30 ^\\d{2}$"));
    }

    /// A selector's regex may hold params: it is compiled once they are in.
    #[test]
    fn a_param_inside_a_regex_selector_loads() {
        let env = droidscore_testenv::TestEnv::new("regex-param");
        let path = env.join("r.toml");
        std::fs::write(
            &path,
            r#"id = "r"
app = "com.android.settings"
goal = "g"
[params]
title = { pick = "event" }
[[oracle]]
check = "ui"
select = { desc_regex = "{title}, .*" }
[[variant]]
id = "base"
[[solution]]
tap = { text_regex = "{title}|x" }
"#,
        )
        .unwrap();
        let task = load_file(&path);
        let task = task.unwrap();
        assert!(task.variants[0].solution[0].tap.is_some());
    }

    /// A string of the file naming a param many times is bounded as a
    /// param is, and the error names its key.
    #[test]
    fn a_string_naming_params_is_bounded_at_max_expanded_len() {
        let params = BTreeMap::from([("a".to_string(), "x".repeat(MAX_EXPANDED_LEN / 4))]);
        let mut at = toml::Value::String("{a}".repeat(4));
        substitute(&mut at, &params, &mut Vec::new()).unwrap();
        assert_eq!(at.as_str().map(str::len), Some(MAX_EXPANDED_LEN));
        let mut past: toml::Value =
            toml::from_str::<toml::Table>(&format!("goal = [\"ok\", \"{}!\"]", "{a}".repeat(4)))
                .unwrap()
                .into();
        let e = substitute(&mut past, &params, &mut Vec::new()).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("goal[1]: longer than {MAX_EXPANDED_LEN} bytes once params are filled in")
        );
    }

    #[test]
    fn an_undefined_param_is_an_error_naming_it() {
        let mut v = toml::Value::String("at {when}".into());
        let e = substitute(&mut v, &BTreeMap::new(), &mut Vec::new())
            .unwrap_err()
            .to_string();
        assert!(e.contains("{when}"), "{e}");
    }
}
