//! A run's record in the store: the settings its results depend on (its
//! config), and starting a new run or picking up the one `--resume` names,
//! which must have been started the same way on the same suite.

use std::collections::BTreeSet;

use super::error::RunSuiteError;
use super::options::{AgentKind, RunOptions};
use super::provenance::provenance;
use crate::agent::{AgentFormat, LlmConfig};
use crate::store::{EpisodeKey, RunRecord, Store};

/// The settings a run's results depend on; `--resume` must match them.
pub(crate) fn run_config(options: &RunOptions, agent: AgentKind) -> serde_json::Value {
    let mut config = serde_json::json!({
        "agent": agent.name(),
        "base_url": options.base_url,
        "model": options.model,
        "temperature": options.temperature,
        "no_image": options.no_image,
        "max_steps": options.max_steps,
        "phone": format!("{:?}", options.phone).to_lowercase(),
        "serial": options.devices.serial,
        "suite": options.suite.to_string(),
        "tasks": options.task_glob,
        "variants": options.variants,
        "repeat": options.repeat,
        // `--conditions` as given (`base,dark,…`): `--resume` refuses
        // other conditions, so a run's episodes never mix them.
        "conditions": options.conditions.names(),
        "instances": options.instances,
        "episode_seed": options.episode_seed,
        "shard": options.shard.map(|s| s.to_string()),
    });
    // Only when given, so runs recorded before these flags still resume.
    if let Some(model) = &options.server.model {
        config["device_model"] = model.as_str().into();
    }
    if let Some(weights) = options.server.weights {
        config["device_weights"] = weights.into();
    }
    if options.strict {
        config["strict"] = true.into();
    }
    config
}

/// Keys of a run's config that `--resume` may change: the suite is compared
/// by its hash instead, and how long to wait for a phone changes when a run
/// ends, not what it scores (a run stopped by a lost phone may well be
/// resumed with a longer wait); so do how long to wait on an HTTP 429
/// (`--rate-limit-wait`) and which CA to trust (`--ca-cert`), neither of
/// which changes a verdict. The record keeps the values it started with.
pub(crate) const NOT_COMPARED: &[&str] = &[
    "suite",
    // The tasks' slices, for reports: a function of the suite, whose hash is
    // compared; runs recorded before them resume.
    crate::report::slices::CONFIG_KEY,
    "phone_timeout_s",
    "device_wait_s",
    "rate_limit_wait_s",
    "ca_cert",
];

/// A key of a recorded run's config, or for a key added to the config since
/// (`--agent-format`, the token budget), what a run recorded before it had;
/// for a renamed key, the value under its old name.
fn recorded(config: &serde_json::Value, key: &str) -> Option<serde_json::Value> {
    config.get(key).cloned().or_else(|| match key {
        "agent_format" => Some(AgentFormat::AndroidWorld.name().into()),
        "max_tokens" => Some(LlmConfig::new("", "").max_tokens.into()),
        // Runs recorded before conditions ran on the phone as it comes.
        "conditions" => Some("base".into()),
        // Named `seeds` and `seed` in runs recorded before the seeds had one
        // vocabulary.
        "instances" => config.get("seeds").cloned(),
        "episode_seed" => config.get("seed").cloned(),
        _ => None,
    })
}

/// Start a new run in the store, or pick up the one `--resume` names: its
/// id and the episodes it has finished.
pub(crate) fn start_run(
    store: &Store,
    options: &RunOptions,
    config: &serde_json::Value,
    endpoint: Option<(&LlmConfig, Option<serde_json::Value>)>,
) -> Result<(String, BTreeSet<EpisodeKey>), RunSuiteError> {
    if let Some(id) = &options.resume {
        let run = store.run(id)?.ok_or_else(|| {
            RunSuiteError::BadInput(format!(
                "--resume {id:?}: no such run in {}",
                store.path().display()
            ))
        })?;
        // An offline run (`steps`) and an episode run keep different
        // records: neither resumes the other.
        if run.config.get("mode") != config.get("mode") {
            let what = |c: &serde_json::Value| match c.get("mode").and_then(|m| m.as_str()) {
                Some("steps") => "an offline run (`droidscore steps`)",
                _ => "an episode run (`droidscore run`)",
            };
            return Err(RunSuiteError::BadInput(format!(
                "--resume {id:?}: it is {}; this is {}",
                what(&run.config),
                what(config)
            )));
        }
        // The suite is compared by what it holds (its hash, below), not by
        // where it was read from: a run recorded with `--suite tasks` before
        // the suite was built in resumes on the built-in copy of the same files.
        let differs: Vec<String> = config
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, v)| {
                !NOT_COMPARED.contains(&k.as_str()) && recorded(&run.config, k).as_ref() != Some(v)
            })
            .map(|(k, v)| {
                format!(
                    "{k} was {} (now {v})",
                    recorded(&run.config, k).unwrap_or(serde_json::Value::Null)
                )
            })
            .collect();
        if !differs.is_empty() {
            return Err(RunSuiteError::BadInput(format!(
                "--resume {id:?}: the run was started differently: {}",
                differs.join("; ")
            )));
        }
        let hash = options.suite.hash().map_err(RunSuiteError::SuiteHash)?;
        if hash != run.provenance.suite_hash {
            return Err(RunSuiteError::BadInput(format!(
                "--resume {id:?}: the task suite changed since the run started (suite hash differs; \
                 the run read {}, this is {}; `--suite DIR` picks another)",
                run.config.get("suite").unwrap_or(&serde_json::Value::Null),
                options.suite
            )));
        }
        return Ok((id.clone(), store.finished(id)?));
    }
    let id = options.run_id.clone().unwrap_or_else(|| {
        let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        format!(
            "{}-{:04x}",
            now.replace([':', '-'], ""),
            std::process::id() & 0xffff
        )
    });
    // The endpoint's URL stays out of the provenance (a local server's
    // port changes each start); what its /health said goes in.
    let mut provenance =
        provenance(&options.suite, None, None).map_err(RunSuiteError::SuiteHash)?;
    provenance.endpoint_health = endpoint.and_then(|(_, health)| health);
    let record = RunRecord {
        id: id.clone(),
        started_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        config: config.clone(),
        provenance,
    };
    store.create_run(&record)?;
    Ok((id, BTreeSet::new()))
}

#[cfg(test)]
mod tests {
    use super::recorded;

    #[test]
    fn a_run_recorded_before_the_seeds_were_renamed_resumes_under_the_new_names() {
        let old = serde_json::json!({"seeds": 3, "seed": 7});
        assert_eq!(recorded(&old, "instances"), Some(3.into()));
        assert_eq!(recorded(&old, "episode_seed"), Some(7.into()));
        let new = serde_json::json!({"instances": 2, "episode_seed": 0, "seeds": 9});
        assert_eq!(
            recorded(&new, "instances"),
            Some(2.into()),
            "the new name wins"
        );
        assert_eq!(recorded(&serde_json::json!({}), "instances"), None);
    }

    /// A run recorded before conditions resumes as `base`, and only as it.
    #[test]
    fn a_run_recorded_before_conditions_resumes_as_base() {
        let old = serde_json::json!({"repeat": 1});
        assert_eq!(recorded(&old, "conditions"), Some("base".into()));
        let new = serde_json::json!({"conditions": "base,dark"});
        assert_eq!(recorded(&new, "conditions"), Some("base,dark".into()));
    }
}
