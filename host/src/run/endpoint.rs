//! The model endpoint a run's LLM agents ask: `--base-url` and `--model`,
//! or the server droidscore started; how each request is made (sampling,
//! timeouts, `--constrain`, the agent format, which must suit the model);
//! and what the endpoint says of itself on `/health`, for the record.

use std::path::Path;
use std::time::Duration;

use super::error::RunSuiteError;
use super::options::RunOptions;
use crate::agent::schema::Reason;
use crate::agent::{Constrain, LlmConfig};
use crate::model_server::Served;

/// `--constrain`, else `schema` for a server droidscore started (it decodes
/// under the schema) and `off` for any other endpoint.
/// A vision `--agent-format` answers in its own grammar, never under the
/// AndroidWorld schema.
fn constrain(options: &RunOptions, served: bool) -> Constrain {
    match (options.constrain, served) {
        (Some(c), _) => c,
        (None, _) if options.agent_format.is_vision() => Constrain::Off,
        (None, true) => Constrain::Schema,
        (None, false) => Constrain::Off,
    }
}

/// A vision `--agent-format` refused where it cannot work: without the
/// screenshot it reads, or under the AndroidWorld schema.
fn check_agent_format(options: &RunOptions, served: Option<&Served>) -> Result<(), RunSuiteError> {
    let format = options.agent_format;
    if !format.is_vision() {
        return Ok(());
    }
    let why = if options.no_image {
        Some("reads the screenshot alone: drop --no-image")
    } else if served.is_some_and(Served::text_only) {
        Some("reads the screenshot, and the server's model is text only: give --base-url of a vision model")
    } else if options.constrain == Some(Constrain::Schema) {
        Some("answers in its own grammar, not AndroidWorld's schema: drop --constrain schema")
    } else {
        None
    };
    match why {
        Some(why) => Err(RunSuiteError::BadInput(format!(
            "--agent-format {format} {why}"
        ))),
        None => Ok(()),
    }
}

/// `--reason short|off` shapes the constrained answer's schema; without a
/// schema the answer's `Reason: …` line is part of its format (AndroidWorld's
/// M3A/T3A), so only `full` is accepted there.
fn check_reason(constrain: Constrain, reason: Reason) -> Result<(), RunSuiteError> {
    if constrain == Constrain::Off && reason != Reason::Full {
        return Err(RunSuiteError::BadInput(format!(
            "--reason {} shapes the constrained answer: it needs --constrain schema \
             (without a schema the answer is `Reason: …` then `Action: {{…}}`, and only \
             --reason full is accepted)",
            reason.name()
        )));
    }
    Ok(())
}

/// How the run's LLM agents reach and ask the model: at `--base-url`, or
/// at the server droidscore started.
pub fn llm_config(
    options: &RunOptions,
    served: Option<&Served>,
) -> Result<LlmConfig, RunSuiteError> {
    let mut config = match (&options.base_url, &options.model, served) {
        (Some(url), Some(model), _) => LlmConfig::new(url.clone(), model.clone()),
        (Some(_), None, _) => {
            return Err(RunSuiteError::BadInput(
                "--base-url needs --model, the name the endpoint serves".into(),
            ))
        }
        (None, _, Some(server)) => {
            LlmConfig::new(server.base_url().to_string(), server.model().to_string())
        }
        (None, _, None) => return Err(RunSuiteError::BadInput("no model endpoint".into())),
    };
    config.api_key_env = options.api_key_env.clone();
    config.api_key = served.and_then(Served::token).cloned();
    config.temperature = options.temperature;
    config.seed = options.episode_seed;
    config.no_image = options.no_image || served.is_some_and(Served::text_only);
    config.timeout = Duration::from_secs(options.request_timeout);
    config.constrain = constrain(options, served.is_some());
    config.reason = options.reason;
    check_reason(config.constrain, options.reason)?;
    config.ca_cert = options.ca_cert.clone();
    config.rate_limit_wait = Duration::from_secs(options.rate_limit_wait);
    check_agent_format(options, served)?;
    Ok(config.with_format(options.agent_format))
}

/// What an endpoint's `/health` answers (beside `/v1`), when it has one:
/// `droidscore-device` reports its model and weights there; other servers
/// may have no such route, which is no error.
pub fn endpoint_health(
    runtime: &tokio::runtime::Runtime,
    base_url: &str,
    ca_cert: Option<&Path>,
) -> Option<serde_json::Value> {
    let root = base_url.trim_end_matches('/').trim_end_matches("/v1");
    let url = format!("{root}/health");
    match runtime.block_on(crate::agent::http_client::get_json(
        &url,
        ca_cert,
        Duration::from_secs(5),
    )) {
        Ok(health) => Some(health),
        Err(why) => {
            tracing::debug!(%why, "no /health from the endpoint");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a schema the answer's `Reason:` line is its format: only
    /// `--reason full` is accepted there, and the message says what to do.
    #[test]
    fn a_cut_reason_needs_the_schema() {
        for reason in [Reason::Full, Reason::Short, Reason::Off] {
            assert!(check_reason(Constrain::Schema, reason).is_ok());
        }
        assert!(check_reason(Constrain::Off, Reason::Full).is_ok());
        let e = check_reason(Constrain::Off, Reason::Short)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--reason short") && e.contains("needs --constrain schema"),
            "{e}"
        );
        assert!(check_reason(Constrain::Off, Reason::Off).is_err());
    }
}
