//! A run split across machines the way a cluster splits it: no `--shard`
//! flag, only the variables a Kubernetes Indexed Job (`JOB_COMPLETION_INDEX`
//! with `DROIDSCORE_SHARD_COUNT`) or a Slurm array (`SLURM_ARRAY_TASK_ID`
//! and `SLURM_ARRAY_TASK_COUNT`, ids from 1) puts in each worker's
//! environment. Each pair of shard stores, gathered in a directory and
//! merged with `report --merge DIR`, equals one unsharded run verdict by
//! verdict, episode by episode.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::runs::{rows as verdicts, solve_wifi, user_text, DONE};
use super::scripted_server::{runtime, Reply, ScriptedServer};
use super::support::{root, text, TestEnv};

/// Solves Wi-Fi from the element list, says "done" at once to anything else.
fn policy(body: &Value) -> Reply {
    let text = user_text(body);
    if text.lines().next().unwrap_or("").contains("Wi-Fi") {
        return solve_wifi(&text);
    }
    Reply::Content(DONE.into())
}

fn suite(dir: &TestEnv) -> PathBuf {
    let suite = dir.mkdir("suite");
    for id in ["wifi_on", "bluetooth_on", "airplane_on"] {
        std::fs::copy(
            root().join(format!("tasks/{id}.toml")),
            suite.join(format!("{id}.toml")),
        )
        .unwrap();
    }
    suite
}

/// `droidscore run` of the three-task suite, twice each, with `env` set.
fn run(
    dir: &TestEnv,
    server: &ScriptedServer,
    store: &Path,
    run_id: &str,
    env: &[(&str, &str)],
) -> std::process::Output {
    let mut command = dir.droidscore();
    command
        .args(["run", "--base-url", &server.base_url, "--model", "scripted"])
        .args(["--no-image", "--variants", "base", "--repeat", "2"])
        .args(["--suite", suite(dir).to_str().unwrap()])
        .args(["--run-id", run_id, "--store", store.to_str().unwrap()]);
    for (k, v) in env {
        command.env(k, v);
    }
    command.ok()
}

/// A job runner's name and the environment of each of its two workers.
type Workers<'a> = (&'a str, [Vec<(&'a str, &'a str)>; 2]);

fn recorded_shard(store: &Path, run: &str) -> Value {
    let store = droidscore::store::Store::open_existing(store).unwrap();
    store.run(run).unwrap().unwrap().config["shard"].clone()
}

#[test]
fn shards_from_kubernetes_and_slurm_variables_merge_into_the_unsharded_run() {
    let rt = runtime();
    let server = ScriptedServer::start_policy(&rt, Arc::new(policy));
    let dir = TestEnv::new("cluster-shards");
    let merged = dir.join("merged.sqlite");
    run(&dir, &server, &merged, "whole", &[]);
    let whole = verdicts(&merged, "whole");
    assert_eq!(whole.len(), 6);
    assert_eq!(
        whole.iter().filter(|r| r.2 == "Success").count(),
        2,
        "{whole:?}"
    );

    let workers: [Workers; 2] = [
        (
            "kubernetes",
            [
                vec![
                    ("JOB_COMPLETION_INDEX", "0"),
                    ("DROIDSCORE_SHARD_COUNT", "2"),
                ],
                vec![
                    ("JOB_COMPLETION_INDEX", "1"),
                    ("DROIDSCORE_SHARD_COUNT", "2"),
                ],
            ],
        ),
        (
            "slurm",
            // sbatch --array=1-2
            [
                vec![
                    ("SLURM_ARRAY_TASK_ID", "1"),
                    ("SLURM_ARRAY_TASK_COUNT", "2"),
                    ("SLURM_ARRAY_TASK_MIN", "1"),
                    ("SLURM_ARRAY_TASK_MAX", "2"),
                ],
                vec![
                    ("SLURM_ARRAY_TASK_ID", "2"),
                    ("SLURM_ARRAY_TASK_COUNT", "2"),
                    ("SLURM_ARRAY_TASK_MIN", "1"),
                    ("SLURM_ARRAY_TASK_MAX", "2"),
                ],
            ],
        ),
    ];
    for (runner, envs) in &workers {
        let shards = dir.mkdir(runner);
        let mut sizes = Vec::new();
        for (k, env) in envs.iter().enumerate() {
            let store = shards.join(format!("shard-{k}.sqlite"));
            let o = run(&dir, &server, &store, runner, env);
            let err = text(&o.stderr);
            let said = match *runner {
                "kubernetes" => format!(
                    "shard {}/2 from a Kubernetes Indexed Job (JOB_COMPLETION_INDEX={k})",
                    k + 1
                ),
                _ => format!(
                    "shard {}/2 from a Slurm array (SLURM_ARRAY_TASK_ID={}, \
                     SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_COUNT=2)",
                    k + 1,
                    k + 1
                ),
            };
            assert!(err.contains(&said), "{err}");
            assert_eq!(recorded_shard(&store, runner), format!("{}/2", k + 1));
            sizes.push(verdicts(&store, runner).len());
        }
        assert_eq!(sizes, [3, 3], "{runner}: each shard ran half");

        let o = dir
            .droidscore()
            .args(["report", runner, "whole", "--format", "json"])
            .args(["--store", merged.to_str().unwrap()])
            .args(["--merge", shards.to_str().unwrap()])
            .ok();
        let err = text(&o.stderr);
        assert!(err.contains("merged 2 store(s) into"), "{err}");
        assert!(
            err.contains(": 6 episodes added, 0 already there; 1 runs new, 1 joined"),
            "{err}"
        );
        let comparison: Value = serde_json::from_slice(&o.stdout).unwrap();
        let rows = comparison["rows"].as_array().unwrap();
        // The slices each shard recorded, merged with the run.
        let slice = |r: &&Value| {
            let name = r["name"].as_str().unwrap_or_default();
            ["(category: ", "(app: ", "(tag: "]
                .iter()
                .any(|p| name.starts_with(p))
        };
        assert!(
            rows.iter().any(|r| r["name"] == "(category: single-app)"),
            "{comparison}"
        );
        assert_eq!(
            rows.iter().filter(|r| !slice(r)).count(),
            7,
            "overall, episodes reaching a milestone, Sub-SR, progress and three tasks: {comparison}"
        );
        for row in rows {
            assert_eq!(row["a"], row["b"], "{runner}: {row}");
        }
        assert_eq!(
            verdicts(&merged, runner),
            whole,
            "{runner}: the merged shards score every episode as the unsharded run"
        );
    }
}

#[test]
fn a_kubernetes_index_without_the_count_is_refused_naming_the_flag() {
    let dir = TestEnv::new("cluster-no-count");
    let o = dir
        .droidscore()
        .env("JOB_COMPLETION_INDEX", "1")
        .args(["run", "--agent", "noop", "--tasks", "wifi_on"])
        .args(["--store", dir.join("runs.sqlite").to_str().unwrap()])
        .code(droidscore::exit::BAD_INPUT);
    let err = text(&o.stderr);
    assert!(
        err.contains("JOB_COMPLETION_INDEX=1 is set (a Kubernetes Indexed Job)")
            && err.contains("--shard-count N or DROIDSCORE_SHARD_COUNT"),
        "{err}"
    );
}
