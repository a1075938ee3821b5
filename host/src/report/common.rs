//! What two compared runs are ranked on: the episodes both hold. Runs over
//! different sets (every variant against base variants only, a subset of
//! tasks, one device condition against three) would otherwise be ranked on
//! different episodes, and a difference in what was run would read as a
//! difference in the agent.
//!
//! An episode is named by a key: (task, variant, instance seed) offline,
//! (task, variant, condition, instance seed) online, where the repeats of
//! a key are all kept on both sides (how many each run made is its own
//! business: repeats measure repeatability, and `pass^k` says so).

use std::collections::BTreeSet;

use crate::offline::OfflineEpisode;
use crate::store::EpisodeRecord;

/// How many keys both runs hold, and how many each holds alone (left out).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Common {
    /// Keys in both runs, compared (offline, one episode each).
    pub episodes: usize,
    /// Keys only A holds, left out.
    pub only_a: usize,
    /// Keys only B holds, left out.
    pub only_b: usize,
    /// What a key is made of, for the line: `task, variant, seed`.
    #[serde(skip)]
    pub key: &'static str,
}

impl Common {
    /// The line that says what was left out; none when the runs hold the
    /// same episodes.
    pub fn line(&self) -> Option<String> {
        (self.only_a + self.only_b > 0).then(|| {
            format!(
                "compared on the {} episodes both runs hold ({}); left out: {} only in A, {} only in B\n",
                self.episodes, self.key, self.only_a, self.only_b
            )
        })
    }
}

/// Keeps in `a` and `b` only the elements whose key the other holds too,
/// and counts the keys each had alone.
pub fn keep_common<E, K: Ord>(
    a: &mut Vec<E>,
    b: &mut Vec<E>,
    key: impl Fn(&E) -> K,
    what: &'static str,
) -> Common {
    let (ka, kb): (BTreeSet<K>, BTreeSet<K>) =
        (a.iter().map(&key).collect(), b.iter().map(&key).collect());
    a.retain(|e| kb.contains(&key(e)));
    b.retain(|e| ka.contains(&key(e)));
    Common {
        episodes: ka.intersection(&kb).count(),
        only_a: ka.difference(&kb).count(),
        only_b: kb.difference(&ka).count(),
        key: what,
    }
}

/// Two offline runs: an episode is a task's variant at one instance seed.
pub fn offline(a: &mut Vec<OfflineEpisode>, b: &mut Vec<OfflineEpisode>) -> Common {
    keep_common(
        a,
        b,
        |e| (e.task.clone(), e.variant.clone(), e.instance_seed),
        "task, variant, seed",
    )
}

/// Two online runs: a task's variant under one device condition at one
/// instance seed, with every repeat of it.
pub fn online(a: &mut Vec<EpisodeRecord>, b: &mut Vec<EpisodeRecord>) -> Common {
    keep_common(
        a,
        b,
        |e| {
            (
                e.task.clone(),
                e.variant.clone(),
                e.condition.clone(),
                e.instance_seed,
            )
        },
        "task, variant, condition, instance; every repeat",
    )
}

/// Each episode's repeat counted within its (task, variant, condition,
/// instance): a run numbers a variant's repeats on across its instances
/// and conditions (`run::plan`), so `repeat` itself names an episode of
/// one run, not the same try in another run or condition.
pub(crate) fn ordinals(episodes: &[EpisodeRecord]) -> Vec<u32> {
    type Group<'a> = (&'a str, &'a str, &'a str, Option<u64>);
    let mut groups: std::collections::BTreeMap<Group, Vec<(u32, usize)>> = Default::default();
    for (i, e) in episodes.iter().enumerate() {
        groups
            .entry((&e.task, &e.variant, &e.condition, e.instance_seed))
            .or_default()
            .push((e.repeat, i));
    }
    let mut out = vec![0; episodes.len()];
    for mut members in groups.into_values() {
        members.sort();
        for (ordinal, (_, i)) in members.into_iter().enumerate() {
            out[i] = ordinal as u32;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_keys_both_hold_are_kept_and_the_rest_counted() {
        // A: t1 twice (repeats of one key), t2, t3; B: t1 once, t2, t4, t5.
        let mut a = vec![("t1", 0), ("t1", 1), ("t2", 0), ("t3", 0)];
        let mut b = vec![("t1", 0), ("t2", 0), ("t4", 0), ("t5", 0)];
        let common = keep_common(&mut a, &mut b, |e| e.0, "task");
        assert_eq!((common.episodes, common.only_a, common.only_b), (2, 1, 2));
        // The repeats of a kept key stay: A keeps both of t1's.
        assert_eq!(a, [("t1", 0), ("t1", 1), ("t2", 0)]);
        assert_eq!(b, [("t1", 0), ("t2", 0)]);
        assert_eq!(
            common.line().unwrap(),
            "compared on the 2 episodes both runs hold (task); left out: 1 only in A, 2 only in B\n"
        );
        // The same keys, repeats apart: nothing left out, and no line.
        let (mut c, mut d) = (vec![("t1", 0), ("t1", 1)], vec![("t1", 0)]);
        let same = keep_common(&mut c, &mut d, |e| e.0, "task");
        assert_eq!((same.episodes, same.line()), (1, None));
        assert_eq!(c.len(), 2);
    }
}
