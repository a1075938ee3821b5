//! Sampling `/proc/stat`: per-CPU busy and total jiffies, the busy share of
//! a set of cores between two samples, and core lists as `taskset` writes
//! them (`0-1,3`).
//!
//! A CPU's line is `cpuN user nice system idle iowait irq softirq steal guest
//! guest_nice` in USER_HZ ticks. Busy is everything but idle and iowait;
//! guest time is already inside user and nice, so it is not added again.

use std::collections::BTreeMap;
use std::time::Duration;

/// One CPU's counters at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpuTimes {
    pub busy: u64,
    pub total: u64,
}

/// Every CPU's counters at one instant, by CPU number.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StatSample(pub BTreeMap<usize, CpuTimes>);

/// Parses `/proc/stat` text; the aggregate `cpu` line is skipped.
pub fn parse_stat(text: &str) -> StatSample {
    let mut cpus = BTreeMap::new();
    for line in text.lines() {
        let mut fields = line.split_ascii_whitespace();
        let Some(name) = fields.next() else { continue };
        let Some(n) = name.strip_prefix("cpu").and_then(|n| n.parse().ok()) else {
            continue;
        };
        let v: Vec<u64> = fields.take(8).filter_map(|f| f.parse().ok()).collect();
        if v.len() < 4 {
            continue;
        }
        let total: u64 = v.iter().sum();
        let idle = v[3] + v.get(4).copied().unwrap_or(0);
        cpus.insert(
            n,
            CpuTimes {
                busy: total - idle,
                total,
            },
        );
    }
    StatSample(cpus)
}

pub fn sample() -> std::io::Result<StatSample> {
    Ok(parse_stat(&std::fs::read_to_string("/proc/stat")?))
}

/// The CPUs `/proc/stat` lists (the online ones).
pub fn online_cpus() -> std::io::Result<Vec<usize>> {
    Ok(sample()?.0.into_keys().collect())
}

/// Busy and total jiffies of `cores` between two samples.
pub fn delta(before: &StatSample, after: &StatSample, core: usize) -> CpuTimes {
    match (before.0.get(&core), after.0.get(&core)) {
        (Some(b), Some(a)) => CpuTimes {
            busy: a.busy.saturating_sub(b.busy),
            total: a.total.saturating_sub(b.total),
        },
        _ => CpuTimes::default(),
    }
}

/// Busy share (0–1) of each core between two samples; 0 for a core whose
/// counters did not move (no tick elapsed).
pub fn busy_shares(
    before: &StatSample,
    after: &StatSample,
    cores: &[usize],
) -> BTreeMap<usize, f64> {
    cores
        .iter()
        .map(|&c| {
            let d = delta(before, after, c);
            let share = if d.total == 0 {
                0.0
            } else {
                d.busy as f64 / d.total as f64
            };
            (c, share)
        })
        .collect()
}

/// Samples `/proc/stat` twice, `window` apart, and returns each core's busy share.
pub fn busy_over(window: Duration, cores: &[usize]) -> std::io::Result<BTreeMap<usize, f64>> {
    let before = sample()?;
    std::thread::sleep(window);
    let after = sample()?;
    Ok(busy_shares(&before, &after, cores))
}

/// A text that is not a core list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a core list like `0-1,3`")]
pub struct BadCoreList(String);

/// Parses a core list as `taskset -c` takes it: `0-1,3`.
pub fn parse_core_list(text: &str) -> Result<Vec<usize>, BadCoreList> {
    let mut cores = Vec::new();
    for part in text.split(',').map(str::trim) {
        let bad = || BadCoreList(text.to_string());
        match part.split_once('-') {
            Some((a, b)) => {
                let a: usize = a.trim().parse().map_err(|_| bad())?;
                let b: usize = b.trim().parse().map_err(|_| bad())?;
                if a > b {
                    return Err(bad());
                }
                cores.extend(a..=b);
            }
            None => cores.push(part.parse().map_err(|_| bad())?),
        }
    }
    cores.sort_unstable();
    cores.dedup();
    Ok(cores)
}

/// Writes a core list back in `taskset -c` form.
pub fn format_core_list(cores: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cores.len() {
        let start = cores[i];
        let mut end = start;
        while i + 1 < cores.len() && cores[i + 1] == end + 1 {
            i += 1;
            end = cores[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  30 0 10 100 10 0 0 0 0 0\n\
cpu0 10 0 5 50 5 0 0 0 0 0\n\
cpu1 20 0 5 50 5 0 0 0 0 0\n\
intr 12345\n";

    #[test]
    fn idle_and_iowait_are_not_busy() {
        let s = parse_stat(STAT);
        assert_eq!(s.0.len(), 2, "the aggregate line is skipped");
        assert_eq!(
            s.0[&0],
            CpuTimes {
                busy: 15,
                total: 70
            }
        );
        assert_eq!(
            s.0[&1],
            CpuTimes {
                busy: 25,
                total: 80
            }
        );
    }

    #[test]
    fn busy_share_is_busy_over_total_between_samples() {
        let before = parse_stat(STAT);
        let after = parse_stat("cpu0 100 0 5 50 5 0 0 0 0 0\ncpu1 20 0 5 140 5 0 0 0 0 0\n");
        let shares = busy_shares(&before, &after, &[0, 1]);
        assert_eq!(shares[&0], 1.0, "cpu0 only gained user time");
        assert_eq!(shares[&1], 0.0, "cpu1 only gained idle time");
    }

    #[test]
    fn core_lists_round_trip() {
        assert_eq!(parse_core_list("0-1,3").unwrap(), vec![0, 1, 3]);
        assert_eq!(parse_core_list("2").unwrap(), vec![2]);
        assert!(parse_core_list("1-0").is_err());
        assert!(parse_core_list("a").is_err());
        assert_eq!(format_core_list(&[0, 1, 3, 5, 6, 7]), "0-1,3,5-7");
    }
}
