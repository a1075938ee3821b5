//! The model on this machine's CPU: `droidscore run` without `--base-url`
//! starts `droidscore-device serve` (the binary a phone runs) with the
//! default model, waits for it to answer, and stops it when the run ends.
//! The host crate never links mistral.rs; it only runs the binary.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use droidscore_contract::health::{Health, HealthError};

use crate::agent::ApiKey;

/// Why the local server did not start.
#[derive(Debug, thiserror::Error)]
pub enum LocalServerError {
    /// Said in words: no binary, it stopped before it was ready, or it was
    /// not ready in time.
    #[error("{0}")]
    Failed(String),
    /// The binary would not start.
    #[error("failed to start {}: {source}", binary.display())]
    Spawn {
        binary: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// It started, but `/health` or `/models` did not answer with JSON.
    #[error(transparent)]
    Get(#[from] GetError),
    /// `/health` answered JSON that is not the contract's document.
    #[error(transparent)]
    Health(#[from] HealthError),
    /// `--device-model` is a bare word that is no file and no model the
    /// contract's catalogue knows: refused before anything starts.
    #[error("--device-model {asked:?}: no such file, and not a model name (known: {known})")]
    UnknownModel { asked: String, known: String },
}

/// A GET of a JSON document that failed.
#[derive(Debug, thiserror::Error)]
pub enum GetError {
    /// The HTTP client would not build.
    #[error(transparent)]
    Client(reqwest::Error),
    #[error("GET {url}: {source}")]
    Request {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("GET {url}: HTTP {status}")]
    Status {
        url: String,
        status: reqwest::StatusCode,
    },
    #[error("GET {url}: not JSON: {source}")]
    NotJson {
        url: String,
        #[source]
        source: serde_json::Error,
    },
}

/// How to start the local server.
#[derive(Debug, Clone, Default)]
pub struct LocalOptions {
    /// `droidscore-device`; default: beside this executable, else on `PATH`.
    pub binary: Option<PathBuf>,
    /// `serve --model`: a model name (`smollm2-135m`, `qwen2.5-coder-0.5b`),
    /// a GGUF file or a safetensors directory; default: the server's default.
    pub model: Option<String>,
    /// `serve --weights`: how the weights are held (`packed`, `f16`, `f32`);
    /// default: the server's.
    pub weights: Option<String>,
    pub threads: Option<usize>,
}

/// A running `droidscore-device serve`, killed when dropped.
#[derive(Debug)]
pub struct LocalServer {
    child: Child,
    /// Up to and including `/v1`.
    pub base_url: String,
    /// The id the server answers to.
    pub model: String,
    /// What `/health` reported once ready: the model, its quantization,
    /// threads, target features, load time and resident memory.
    pub health: Health,
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `droidscore-device` binary: the one asked for, else the one beside
/// this executable (`cargo build` puts both in one directory), else `PATH`.
pub(crate) fn find_binary(asked: Option<&Path>) -> Result<PathBuf, LocalServerError> {
    if let Some(path) = asked {
        return if path.is_file() {
            Ok(path.to_path_buf())
        } else {
            Err(LocalServerError::Failed(format!(
                "--device-bin {}: no such file",
                path.display()
            )))
        };
    }
    let name = "droidscore-device";
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(name)))
        .filter(|p| p.is_file());
    let on_path = || {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(name))
                .find(|p| p.is_file())
        })
    };
    beside.or_else(on_path).ok_or_else(|| {
        LocalServerError::Failed(format!(
            "no {name} beside {} or on PATH: build it (`cargo build --release -p droidscore-device`), \
             pass --device-bin, or give --base-url for a model served elsewhere",
            std::env::current_exe().map_or_else(|_| "this executable".into(), |p| p.display().to_string())
        ))
    })
}

impl LocalServer {
    /// Start the server on a free loopback port and wait (up to `ready_within`)
    /// until it prints its base URL, which it does only once the model has
    /// answered a warm-up request.
    pub fn start(
        options: &LocalOptions,
        runtime: &tokio::runtime::Handle,
        ready_within: Duration,
    ) -> Result<LocalServer, LocalServerError> {
        if let Some(model) = &options.model {
            check_model_name(model)?;
        }
        let binary = find_binary(options.binary.as_deref())?;
        let mut command = Command::new(&binary);
        // Its stdin is a pipe this process holds: when we end, however we
        // end, the server sees it close and exits (no orphaned server).
        command.args(["serve", "--listen", "127.0.0.1:0", "--exit-with-stdin"]);
        if let Some(model) = &options.model {
            command.arg("--model").arg(model);
        }
        if let Some(weights) = &options.weights {
            command.arg("--weights").arg(weights);
        }
        if let Some(n) = options.threads {
            command.arg("--threads").arg(n.to_string());
        }
        // The server's own log (loading, errors naming the model file) goes
        // to our stderr; its stdout carries only the base URL.
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = command.spawn().map_err(|source| LocalServerError::Spawn {
            binary: binary.clone(),
            source,
        })?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| LocalServerError::Failed("no stdout from the server".into()))?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let first_url = BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .find(|line| line.starts_with("http://"));
            let _ = tx.send(first_url);
        });
        // From here on, dropping `server` kills the child.
        let mut server = LocalServer {
            child,
            base_url: String::new(),
            model: String::new(),
            health: Health::default(),
        };
        server.base_url = match rx.recv_timeout(ready_within) {
            Ok(Some(url)) => url.trim().to_string(),
            Ok(None) => {
                let status = server
                    .child
                    .wait()
                    .map_or_else(|e| e.to_string(), |s| s.to_string());
                return Err(LocalServerError::Failed(format!(
                    "{} serve stopped before it was ready ({status}); its error is above",
                    binary.display()
                )));
            }
            Err(_) => {
                return Err(LocalServerError::Failed(format!(
                    "{} serve was not ready within {} s",
                    binary.display(),
                    ready_within.as_secs()
                )))
            }
        };
        let get = |url: String| async move { get_json(&url, None, Duration::from_secs(60)).await };
        let root = server.base_url.trim_end_matches("/v1").to_string();
        server.health = Health::from_json(&runtime.block_on(get(format!("{root}/health")))?)?;
        let models = runtime.block_on(get(format!("{}/models", server.base_url)))?;
        server.model = models["data"][0]["id"]
            .as_str()
            .ok_or_else(|| {
                LocalServerError::Failed(format!(
                    "{}/models names no model: {models}",
                    server.base_url
                ))
            })?
            .to_string();
        Ok(server)
    }

    /// A text-only model (a GGUF file: mistral.rs 0.8.1 has no GGUF vision
    /// models) must be sent no screenshot.
    pub fn text_only(&self) -> bool {
        self.health.text_only()
    }

    /// The server's settings that a run's results depend on, without what
    /// changes from start to start (port, load time, memory), for the run's
    /// config (and so for `--resume`).
    pub fn config(&self) -> serde_json::Value {
        server_settings(&self.health)
    }
}

/// A `serve --model` argument the server would refuse as a mistyped name
/// (as `droidscore-device`'s own `model::resolve` does), refused here first
/// with the known names, so a typo costs no server start.
pub(crate) fn check_model_name(model: &str) -> Result<(), LocalServerError> {
    use droidscore_contract::models;
    if models::find(model).is_some()
        || Path::new(model).exists()
        || !models::looks_like_a_name(model)
    {
        return Ok(());
    }
    Err(LocalServerError::UnknownModel {
        asked: model.to_string(),
        known: models::names(),
    })
}

/// GET a JSON document, within `timeout`, with the server's bearer token
/// when it has one (a deployed server's, `on_phone`).
pub(crate) async fn get_json(
    url: &str,
    token: Option<&ApiKey>,
    timeout: Duration,
) -> Result<serde_json::Value, GetError> {
    crate::agent::http_client::install_crypto_provider();
    let client = reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .map_err(GetError::Client)?;
    let request = |source| GetError::Request {
        url: url.to_string(),
        source,
    };
    let mut get = client.get(url);
    if let Some(token) = token {
        get = get.bearer_auth(token.expose());
    }
    let response = get.send().await.map_err(request)?;
    let status = response.status();
    let body = response.bytes().await.map_err(request)?;
    if !status.is_success() {
        return Err(GetError::Status {
            url: url.to_string(),
            status,
        });
    }
    serde_json::from_slice(&body).map_err(|source| GetError::NotJson {
        url: url.to_string(),
        source,
    })
}

/// The part of a `droidscore-device` server's `/health` that a run's results
/// depend on: its model, quantization, dtype, threads and target features —
/// not what changes from start to start (port, load time, memory). Each is
/// null when the server does not say (a `/health` with no model), so the
/// config reads the same as when this was looked up in untyped JSON, and
/// runs recorded then still resume.
pub(crate) fn server_settings(health: &Health) -> serde_json::Value {
    let Some(m) = &health.model else {
        return serde_json::json!({
            "id": null, "path": null, "format": null, "architecture": null,
            "quantization": null, "dtype": null, "threads": null, "target_features": null,
        });
    };
    serde_json::json!({
        "id": m.id,
        "path": m.path,
        "format": m.format,
        "architecture": m.architecture,
        "quantization": m.quantization,
        "dtype": m.dtype,
        "threads": m.threads,
        "target_features": m.target_features,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_asked_for_binary_that_is_missing_is_named() {
        let e = find_binary(Some(Path::new("/nonexistent/droidscore-device")))
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nonexistent/droidscore-device"), "{e}");
    }

    #[test]
    fn a_mistyped_model_name_is_refused_with_the_known_names() {
        let e = check_model_name("smollm2").unwrap_err().to_string();
        assert!(e.contains("\"smollm2\""), "{e}");
        assert!(e.contains(&droidscore_contract::models::names()), "{e}");
        // Names, paths and GGUF files go through to the server.
        for ok in [
            "smollm2-135m",
            "qwen2.5-coder-0.5b",
            "/no/such/dir",
            "x.gguf",
        ] {
            assert!(check_model_name(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn a_server_that_exits_before_ready_is_an_error_not_a_hang() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        // `false` exits at once with status 1 and prints no URL.
        let options = LocalOptions {
            binary: Some(PathBuf::from("/bin/false")),
            ..LocalOptions::default()
        };
        let e = LocalServer::start(&options, runtime.handle(), Duration::from_secs(30))
            .unwrap_err()
            .to_string();
        assert!(e.contains("stopped before it was ready"), "{e}");
        assert!(e.contains("exit status: 1"), "{e}");
    }

    #[test]
    fn a_server_that_never_gets_ready_times_out() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let env = droidscore_testenv::TestEnv::new("slow-server");
        let script = env.join("slow-server");
        std::fs::write(&script, "#!/bin/sh\nexec sleep 30\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let options = LocalOptions {
            binary: Some(script),
            ..LocalOptions::default()
        };
        let e = LocalServer::start(&options, runtime.handle(), Duration::from_millis(300))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not ready within"), "{e}");
    }
}
