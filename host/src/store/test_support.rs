//! Test helpers: a scratch directory and sample records.

use std::path::PathBuf;

use serde_json::json;

use crate::oracle::{CheckResult, Outcome, Verdict};

use super::{gzip, sha256_hex, EpisodeRecord, EpisodeStatus, Provenance, RunRecord, StepRecord};

/// A fresh directory for one test: the workspace's [`TestEnv`], removed when
/// the test passes and kept (its path printed) when it fails.
///
/// [`TestEnv`]: droidscore_testenv::TestEnv
#[derive(Debug)]
pub(crate) struct ScratchDir(droidscore_testenv::TestEnv);

impl ScratchDir {
    pub(crate) fn new(name: &str) -> ScratchDir {
        ScratchDir(droidscore_testenv::TestEnv::new(&format!("store-{name}")))
    }

    pub(crate) fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

pub(crate) fn run(id: &str, started_at: &str) -> RunRecord {
    RunRecord {
        id: id.into(),
        started_at: started_at.into(),
        config: json!({"agent": "reference", "repeat": 3, "shard": "1/2"}),
        provenance: Provenance {
            git_rev: Some("d13c728-dirty".into()),
            host: "bench-1".into(),
            cpu: "AMD EPYC".into(),
            cpus: 2,
            endpoint: Some("http://127.0.0.1:8080/v1".into()),
            model: Some("qwen2.5-vl-3b".into()),
            suite_hash: "5e1f".into(),
            droidscore_version: "0.1.0".into(),
            endpoint_health: None,
        },
    }
}

pub(crate) fn episode(run_id: &str, task: &str, variant: &str, repeat: u32) -> EpisodeRecord {
    EpisodeRecord {
        run_id: run_id.into(),
        task: task.into(),
        variant: variant.into(),
        repeat,
        condition: "base".into(),
        // Above i64::MAX, so a lossy seed column would show.
        episode_seed: u64::MAX - u64::from(repeat),
        status: EpisodeStatus::Success,
        end: json!({"end": "complete"}),
        verdict: Some(Verdict::from_checks(vec![CheckResult {
            check: "global/wifi_on = 1".into(),
            outcome: Outcome::Pass,
            detail: "global/wifi_on is 1".into(),
        }])),
        reason: "settings global wifi_on is 1".into(),
        steps: 2,
        invalid_steps: 1,
        attempts: 1,
        started_at: "2026-11-30T04:35:12Z".into(),
        ended_at: "2026-11-30T04:35:20Z".into(),
        instance_seed: Some(0),
        params: Some(Default::default()),
        answer: None,
        progress: None,
    }
}

/// `count` steps for `episode`: the first invalid, the rest taps.
pub(crate) fn steps(episode: &EpisodeRecord, count: u32) -> Vec<StepRecord> {
    (0..count)
        .map(|index| {
            let dump = format!("<hierarchy><node index=\"{index}\" text=\"Wi-Fi\"/></hierarchy>");
            let invalid = index == 0;
            StepRecord {
                run_id: episode.run_id.clone(),
                task: episode.task.clone(),
                variant: episode.variant.clone(),
                repeat: episode.repeat,
                index,
                observation_digest: sha256_hex(dump.as_bytes()),
                ui_dump_gz: gzip(&dump),
                screenshot: (!invalid).then(|| vec![0x89, b'P', b'N', b'G', index as u8]),
                raw_output: if invalid {
                    "I think I should tap Wi-Fi".into()
                } else {
                    r#"{"action_type": "click", "index": 3}"#.into()
                },
                action: if invalid {
                    serde_json::Value::Null
                } else {
                    json!({"action_type": "click", "index": 3})
                },
                invalid_reason: invalid.then(|| "no JSON object in the answer".into()),
                tap: (!invalid).then_some((540, 1203)),
                prompt_tokens: Some(1200 + u64::from(index)),
                cached_tokens: (index > 0).then_some(1100),
                completion_tokens: (!invalid).then_some(17),
                latency_ms: 812.5,
                observe: (!invalid).then_some(droidscore_phone::ObserveTiming {
                    dump_ms: 1210.5,
                    dump_attempts: 2,
                    read_ms: 31.25,
                    screencap_ms: 240.0,
                    png_ms: 95.5,
                    foreground_ms: 60.0,
                    total_ms: 1637.25,
                }),
            }
        })
        .collect()
}
