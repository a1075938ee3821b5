//! What a run will do: every (task, variant, repeat) episode in a fixed order,
//! each with its episode seed, sliced for `--shard K/N` and minus what a resumed run
//! already finished. The order and the slice depend only on the suite and the
//! arguments, so any job runner can split a suite across machines.
//!
//! Under `--conditions` the plan is condition-major: every episode of the
//! first condition, then every episode of the next, each condition with the
//! same episode seeds (so conditions are compared on the same clocks and
//! samples). A task variant's repeat numbers continue from one condition to
//! the next — with `--repeat 3 --conditions base,dark`, base is repeats 0–2
//! and dark 3–5 — so (task, variant, repeat) names one episode of the run,
//! whatever its condition, and `--resume` (which refuses other conditions
//! than the run recorded) never mixes them.

use std::collections::BTreeSet;

use droidscore_phone::Condition;

use super::shard::Shard;
use crate::task::{Instance, Instructions, Task};

/// One episode to run.
#[derive(Debug, Clone)]
pub struct Planned<'a> {
    pub instance: &'a Instance,
    pub repeat: u32,
    /// The phone's clock and the agent's sampling.
    pub episode_seed: u64,
    /// `--strict`: a side effect fails the episode.
    pub strict: bool,
    /// `--instructions`: what the agent is told each step.
    pub instructions: Instructions,
    /// `--conditions`: the device condition the phone is in.
    pub condition: Condition,
    /// `--agent-cmd`: the program that plays the episode instead of an agent.
    pub agent_cmd: Option<&'a crate::agent_cmd::AgentCmd>,
}

impl Planned<'_> {
    pub fn key(&self) -> (String, String, u32) {
        (
            self.instance.task.clone(),
            self.instance.variant.id.clone(),
            self.repeat,
        )
    }
}

/// Every episode of `instances` × `repeat`, in suite order (task file order,
/// variant order, instance seed, then repeat), the shard's slice of it,
/// minus `finished`. Instances of one task variant (a template's seeds)
/// come one after another; episode `i` of a task variant (its `repeat`
/// column: instance `k`, repeat `r` is `k × repeat + r`) runs with
/// episode seed `episode_seed + i`.
pub fn plan<'a>(
    instances: &[&'a Instance],
    repeat: u32,
    episode_seed: u64,
    shard: Option<Shard>,
    finished: &BTreeSet<(String, String, u32)>,
) -> Vec<Planned<'a>> {
    plan_in(
        instances,
        repeat,
        episode_seed,
        &[Condition::Base],
        shard,
        finished,
    )
}

/// [`plan`] in each of `conditions`, condition-major (see the module doc).
pub fn plan_in<'a>(
    instances: &[&'a Instance],
    repeat: u32,
    episode_seed: u64,
    conditions: &[Condition],
    shard: Option<Shard>,
    finished: &BTreeSet<(String, String, u32)>,
) -> Vec<Planned<'a>> {
    // Episodes per task variant in one condition: where the next
    // condition's repeat numbers start.
    let mut per: std::collections::BTreeMap<(&str, &str), u32> = Default::default();
    for inst in instances {
        *per.entry((inst.task.as_str(), inst.variant.id.as_str()))
            .or_insert(0) += repeat;
    }
    let all = conditions.iter().enumerate().flat_map(|(c, &condition)| {
        let mut before: std::collections::BTreeMap<(&str, &str), u32> = Default::default();
        let per = &per;
        instances.iter().flat_map(move |inst| {
            let key = (inst.task.as_str(), inst.variant.id.as_str());
            let k = before.entry(key).or_insert(0);
            let first = *k * repeat;
            *k += 1;
            let offset = c as u32 * per[&key];
            (0..repeat).map(move |r| Planned {
                instance: inst,
                repeat: offset + first + r,
                episode_seed: episode_seed.wrapping_add(u64::from(first + r)),
                strict: false,
                instructions: Instructions::Goal,
                agent_cmd: None,
                condition,
            })
        })
    });
    all.enumerate()
        .filter(|(i, _)| shard.is_none_or(|s| (*i as u32) % s.count == s.index - 1))
        .map(|(_, p)| p)
        .filter(|p| !finished.contains(&p.key()))
        .collect()
}

/// The instances a run plays: each selected task variant at instance seeds
/// `0..instances` when its task draws params, else once (more instances of
/// a fixed task would repeat it, which `--repeat` says). In suite order, a
/// task variant's instances together.
pub fn with_instances(
    tasks: &[Task],
    selected: &[&Instance],
    instances: u64,
) -> Result<Vec<Instance>, crate::task::TaskError> {
    let mut out = Vec::new();
    for task in tasks {
        let chosen: Vec<&&Instance> = selected.iter().filter(|i| i.task == task.id).collect();
        if chosen.is_empty() {
            continue;
        }
        let mut by_seed = vec![task.variants.clone()];
        if task.templated {
            for s in 1..instances {
                by_seed.push(task.instances(s)?);
            }
        }
        for inst in chosen {
            for instances in &by_seed {
                if let Some(i) = instances.iter().find(|i| i.variant.id == inst.variant.id) {
                    out.push(i.clone());
                }
            }
        }
    }
    Ok(out)
}

/// A `--variants` id that no task has.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--variants: no task has a variant {0:?}")]
pub struct UnknownVariant(pub String);

/// The instances a `--variants` spec selects: `all`, `base` (each task's first
/// variant) or a comma-separated list of ids, every one of which must exist.
pub(crate) fn select_variants<'a>(
    tasks: &'a [Task],
    spec: &str,
) -> Result<Vec<&'a Instance>, UnknownVariant> {
    let all = tasks.iter().flat_map(|t| t.variants.iter());
    Ok(match spec {
        "all" => all.collect(),
        "base" => tasks.iter().map(|t| &t.variants[0]).collect(),
        list => {
            let wanted: Vec<&str> = list.split(',').map(str::trim).collect();
            for id in &wanted {
                if !tasks.iter().any(|t| t.variant(id).is_some()) {
                    return Err(UnknownVariant(id.to_string()));
                }
            }
            all.filter(|i| wanted.contains(&i.variant.id.as_str()))
                .collect()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn suite() -> Vec<Task> {
        crate::task::load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks")).unwrap()
    }

    #[test]
    fn shards_partition_the_plan_and_resume_skips_what_is_done() {
        let tasks = suite();
        let instances = select_variants(&tasks, "all").unwrap();
        let none = BTreeSet::new();
        let whole: Vec<_> = plan(&instances, 3, 10, None, &none)
            .iter()
            .map(Planned::key)
            .collect();
        assert_eq!(whole.len(), instances.len() * 3);
        let mut parts = Vec::new();
        for k in 1..=3 {
            let shard = Some(Shard { index: k, count: 3 });
            parts.extend(
                plan(&instances, 3, 10, shard, &none)
                    .iter()
                    .map(Planned::key),
            );
        }
        parts.sort();
        let mut sorted = whole.clone();
        sorted.sort();
        assert_eq!(parts, sorted, "the shards cover the plan exactly once");
        let finished: BTreeSet<_> = whole[..5].iter().cloned().collect();
        let rest: Vec<_> = plan(&instances, 3, 10, None, &finished)
            .iter()
            .map(Planned::key)
            .collect();
        assert_eq!(rest, whole[5..]);
    }

    #[test]
    fn repeats_get_consecutive_seeds() {
        let tasks = suite();
        let instances = select_variants(&tasks, "base").unwrap();
        let p = plan(&instances[..1], 3, 7, None, &BTreeSet::new());
        assert_eq!(
            p.iter().map(|p| p.episode_seed).collect::<Vec<_>>(),
            [7, 8, 9]
        );
    }

    /// Conditions multiply the plan condition-major; each condition has the
    /// same episode seeds, and the repeat numbers continue so every key is
    /// one episode; resuming skips exactly what is done.
    #[test]
    fn conditions_multiply_the_plan_with_the_same_seeds_and_distinct_keys() {
        let tasks = suite();
        let instances = select_variants(&tasks, "base").unwrap();
        let two = &instances[..2];
        let conditions = [Condition::Base, Condition::Dark, Condition::Font(1300)];
        let none = BTreeSet::new();
        let p = plan_in(two, 2, 5, &conditions, None, &none);
        assert_eq!(p.len(), 2 * 2 * 3);
        let got: Vec<(Condition, u32, u64)> = p
            .iter()
            .filter(|p| p.instance.task == two[0].task)
            .map(|p| (p.condition, p.repeat, p.episode_seed))
            .collect();
        assert_eq!(
            got,
            [
                (Condition::Base, 0, 5),
                (Condition::Base, 1, 6),
                (Condition::Dark, 2, 5),
                (Condition::Dark, 3, 6),
                (Condition::Font(1300), 4, 5),
                (Condition::Font(1300), 5, 6),
            ]
        );
        assert!(
            p[..4].iter().all(|p| p.condition == Condition::Base),
            "condition-major"
        );
        let keys: BTreeSet<_> = p.iter().map(Planned::key).collect();
        assert_eq!(keys.len(), p.len(), "every key one episode");
        let base_only: Vec<_> = plan(two, 2, 5, None, &none)
            .iter()
            .map(Planned::key)
            .collect();
        let first: Vec<_> = p[..4].iter().map(Planned::key).collect();
        assert_eq!(base_only, first, "base alone plans as before");
        let finished: BTreeSet<_> = p[..5].iter().map(Planned::key).collect();
        let rest = plan_in(two, 2, 5, &conditions, None, &finished);
        assert_eq!(rest.len(), p.len() - 5);
        assert_eq!(
            (rest[0].condition, rest[0].repeat),
            (p[5].condition, p[5].repeat)
        );
    }

    #[test]
    fn unknown_variants_are_refused() {
        let tasks = suite();
        assert_eq!(
            select_variants(&tasks, "base,nope").unwrap_err(),
            UnknownVariant("nope".into())
        );
    }
}
