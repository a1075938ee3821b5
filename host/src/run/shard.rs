//! `--shard K/N`, and where a run finds it when the flag is not given: a
//! Kubernetes Indexed Job or a Slurm job array, from the variables each puts
//! in a worker's environment.
//!
//! - Kubernetes sets `JOB_COMPLETION_INDEX` (0-based) in every pod of an
//!   Indexed Job ("Indexed Job for Parallel Processing with Static Work
//!   Assignment", kubernetes.io/docs/tasks/job/indexed-parallel-processing-static).
//!   It puts no count beside it: the Job's `completions` must be given as
//!   `--shard-count` or `DROIDSCORE_SHARD_COUNT` (docs/cluster.md's manifest
//!   sets it).
//! - Slurm sets `SLURM_ARRAY_TASK_ID` with `SLURM_ARRAY_TASK_COUNT`,
//!   `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_MAX` and, for `--array=A-B:S`,
//!   `SLURM_ARRAY_TASK_STEP` (slurm.schedmd.com/job_array.html). Ids need not
//!   start at 0 (`--array=1-4`): a task's slice is `(id - MIN) / STEP`. An
//!   array given as a list with gaps (`--array=1,3,7`) cannot be mapped onto
//!   slices from these variables and is refused.

use std::fmt;
use std::str::FromStr;

/// `--shard K/N`: the K-th of N slices (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

/// A `--shard` that is not `K/N` with 1 ≤ K ≤ N.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--shard {0:?}: expected K/N with 1 ≤ K ≤ N, e.g. 1/2")]
pub struct BadShard(String);

impl FromStr for Shard {
    type Err = BadShard;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadShard(s.to_string());
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Where a shard read from the environment came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardSource {
    /// A Kubernetes Indexed Job.
    Kubernetes { completion_index: u32 },
    /// A Slurm job array.
    Slurm { task_id: u32, min: u32, count: u32 },
}

impl fmt::Display for ShardSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardSource::Kubernetes { completion_index } => write!(
                f,
                "a Kubernetes Indexed Job (JOB_COMPLETION_INDEX={completion_index})"
            ),
            ShardSource::Slurm {
                task_id,
                min,
                count,
            } => write!(
                f,
                "a Slurm array (SLURM_ARRAY_TASK_ID={task_id}, SLURM_ARRAY_TASK_MIN={min}, \
                 SLURM_ARRAY_TASK_COUNT={count})"
            ),
        }
    }
}

/// Job variables that do not make a shard.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardEnvError {
    #[error(
        "JOB_COMPLETION_INDEX={0} is set (a Kubernetes Indexed Job), but Kubernetes puts no \
         completions count beside it: give the Job's completions as --shard-count N or \
         DROIDSCORE_SHARD_COUNT (see docs/cluster.md), or --shard K/N"
    )]
    NoCount(u32),
    #[error("{name}={value:?}: expected {expected}")]
    Bad {
        name: &'static str,
        value: String,
        expected: &'static str,
    },
    #[error("{0} is set but {1} is not: give --shard K/N")]
    Missing(&'static str, &'static str),
    #[error(
        "both JOB_COMPLETION_INDEX (Kubernetes) and SLURM_ARRAY_TASK_ID (Slurm) are set: \
         give --shard K/N"
    )]
    Both,
    #[error(
        "--shard-count {0} is for a Kubernetes Indexed Job, and JOB_COMPLETION_INDEX is not set"
    )]
    CountWithoutIndex(u32),
    #[error("{0}")]
    Outside(String),
}

/// The shard the job runner's variables name (`env` looks one up), with
/// where it came from; `None` outside any job. `count` is `--shard-count`.
pub fn from_env(
    env: impl Fn(&str) -> Option<String>,
    count: Option<u32>,
) -> Result<Option<(Shard, ShardSource)>, ShardEnvError> {
    let number = |name: &'static str| -> Result<Option<u32>, ShardEnvError> {
        env(name)
            .map(|value| {
                value.trim().parse().map_err(|_| ShardEnvError::Bad {
                    name,
                    value,
                    expected: "a whole number",
                })
            })
            .transpose()
    };
    let kubernetes = number("JOB_COMPLETION_INDEX")?;
    let slurm = number("SLURM_ARRAY_TASK_ID")?;
    match (kubernetes, slurm) {
        (Some(_), Some(_)) => Err(ShardEnvError::Both),
        (None, None) => match count {
            Some(n) => Err(ShardEnvError::CountWithoutIndex(n)),
            None => Ok(None),
        },
        (Some(index), None) => {
            let count = count.ok_or(ShardEnvError::NoCount(index))?;
            if index >= count {
                return Err(ShardEnvError::Outside(format!(
                    "JOB_COMPLETION_INDEX={index} is not below the --shard-count of {count} \
                     (indexes run from 0 to completions - 1)"
                )));
            }
            let source = ShardSource::Kubernetes {
                completion_index: index,
            };
            Ok(Some((
                Shard {
                    index: index + 1,
                    count,
                },
                source,
            )))
        }
        (None, Some(id)) => {
            let slurm_count = number("SLURM_ARRAY_TASK_COUNT")?.ok_or(ShardEnvError::Missing(
                "SLURM_ARRAY_TASK_ID",
                "SLURM_ARRAY_TASK_COUNT",
            ))?;
            if slurm_count == 0 {
                return Err(ShardEnvError::Bad {
                    name: "SLURM_ARRAY_TASK_COUNT",
                    value: "0".into(),
                    expected: "at least 1",
                });
            }
            if let Some(n) = count.filter(|n| *n != slurm_count) {
                return Err(ShardEnvError::Outside(format!(
                    "--shard-count {n} differs from SLURM_ARRAY_TASK_COUNT={slurm_count}"
                )));
            }
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1);
            if step == 0 {
                return Err(ShardEnvError::Bad {
                    name: "SLURM_ARRAY_TASK_STEP",
                    value: "0".into(),
                    expected: "at least 1",
                });
            }
            let last = u64::from(min) + u64::from(slurm_count - 1) * u64::from(step);
            if let Some(max) = number("SLURM_ARRAY_TASK_MAX")? {
                if u64::from(max) != last {
                    return Err(ShardEnvError::Outside(format!(
                        "a Slurm array of {slurm_count} tasks from {min} to {max} has gaps \
                         (SLURM_ARRAY_TASK_STEP={step} would end at {last}): its ids do not \
                         map onto shards; give --shard K/N, or submit --array=0-{}",
                        slurm_count - 1
                    )));
                }
            }
            let offset = id.checked_sub(min).filter(|o| o % step == 0);
            let slice = offset.map(|o| o / step).filter(|s| *s < slurm_count);
            let Some(slice) = slice else {
                return Err(ShardEnvError::Outside(format!(
                    "SLURM_ARRAY_TASK_ID={id} is not one of the array's ids ({min}, then every \
                     {step} up to {last})"
                )));
            };
            let source = ShardSource::Slurm {
                task_id: id,
                min,
                count: slurm_count,
            };
            Ok(Some((
                Shard {
                    index: slice + 1,
                    count: slurm_count,
                },
                source,
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    fn shard(index: u32, count: u32) -> Shard {
        Shard { index, count }
    }

    #[test]
    fn bad_shards_are_refused() {
        assert!("0/2".parse::<Shard>().is_err());
        assert!("3/2".parse::<Shard>().is_err());
        assert!("1-2".parse::<Shard>().is_err());
        assert_eq!("2/2".parse::<Shard>().unwrap(), shard(2, 2));
    }

    #[test]
    fn no_job_variables_no_shard() {
        assert_eq!(from_env(env(&[]), None), Ok(None));
        assert_eq!(
            from_env(env(&[]), Some(4)),
            Err(ShardEnvError::CountWithoutIndex(4))
        );
    }

    #[test]
    fn a_kubernetes_index_is_0_based_and_needs_the_count() {
        let vars = [("JOB_COMPLETION_INDEX", "0")];
        let (s, source) = from_env(env(&vars), Some(2)).unwrap().unwrap();
        assert_eq!(s, shard(1, 2));
        assert_eq!(
            source.to_string(),
            "a Kubernetes Indexed Job (JOB_COMPLETION_INDEX=0)"
        );
        let last = [("JOB_COMPLETION_INDEX", "1")];
        assert_eq!(
            from_env(env(&last), Some(2)).unwrap().unwrap().0,
            shard(2, 2)
        );
        let e = from_env(env(&last), None).unwrap_err();
        assert_eq!(e, ShardEnvError::NoCount(1));
        assert!(
            e.to_string()
                .contains("--shard-count N or DROIDSCORE_SHARD_COUNT"),
            "{e}"
        );
        let e = from_env(env(&[("JOB_COMPLETION_INDEX", "2")]), Some(2)).unwrap_err();
        assert!(
            e.to_string().contains("not below the --shard-count of 2"),
            "{e}"
        );
        let e = from_env(env(&[("JOB_COMPLETION_INDEX", "one")]), Some(2)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "JOB_COMPLETION_INDEX=\"one\": expected a whole number"
        );
    }

    #[test]
    fn a_slurm_array_maps_its_ids_from_min_by_step() {
        // --array=0-3
        let zero = [
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "3"),
        ];
        assert_eq!(from_env(env(&zero), None).unwrap().unwrap().0, shard(3, 4));
        // --array=1-4: task 1 is the first slice.
        let one = [
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "4"),
        ];
        let (s, source) = from_env(env(&one), None).unwrap().unwrap();
        assert_eq!(s, shard(1, 4));
        assert_eq!(
            source.to_string(),
            "a Slurm array (SLURM_ARRAY_TASK_ID=1, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_COUNT=4)"
        );
        // --array=10-16:3 is 10, 13, 16.
        let stepped = [
            ("SLURM_ARRAY_TASK_ID", "13"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
            ("SLURM_ARRAY_TASK_MIN", "10"),
            ("SLURM_ARRAY_TASK_MAX", "16"),
            ("SLURM_ARRAY_TASK_STEP", "3"),
        ];
        assert_eq!(
            from_env(env(&stepped), None).unwrap().unwrap().0,
            shard(2, 3)
        );
        // Without MIN the ids are taken to start at 0.
        let bare = [
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
        ];
        assert_eq!(from_env(env(&bare), None).unwrap().unwrap().0, shard(2, 2));
    }

    #[test]
    fn slurm_arrays_that_do_not_map_are_refused_naming_why() {
        // --array=1,3,7: three tasks from 1 to 7.
        let list = [
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "7"),
        ];
        let e = from_env(env(&list), None).unwrap_err().to_string();
        assert!(e.contains("has gaps"), "{e}");
        let outside = [
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
        ];
        let e = from_env(env(&outside), None).unwrap_err().to_string();
        assert!(
            e.contains("SLURM_ARRAY_TASK_ID=5 is not one of the array's ids"),
            "{e}"
        );
        let e = from_env(env(&[("SLURM_ARRAY_TASK_ID", "0")]), None).unwrap_err();
        assert_eq!(
            e,
            ShardEnvError::Missing("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT")
        );
        let both = [
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
            ("JOB_COMPLETION_INDEX", "0"),
        ];
        assert_eq!(from_env(env(&both), Some(2)), Err(ShardEnvError::Both));
        let disagree = [
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
        ];
        let e = from_env(env(&disagree), Some(3)).unwrap_err().to_string();
        assert!(e.contains("differs from SLURM_ARRAY_TASK_COUNT=2"), "{e}");
    }
}
