//! The model on the phone's CPU: `droidscore device deploy` pushes
//! `droidscore-device` (an aarch64 build) and a model file to
//! `/data/local/tmp`, starts `serve` there in the background, forwards a
//! host port to it (`adb forward`) and waits until `/health` answers through
//! the forward. `device stop` ends it; `run --phone adb --on-device` deploys,
//! or reuses a healthy deployment of the same files, and runs the suite
//! against it. The host crate never links mistral.rs; it only pushes the
//! binary.
//!
//! Every deployment gets a fresh bearer token (`super::token`), which the
//! server requires and the host sends on every request.
//!
//! What was deployed is kept on the phone beside the binary
//! (`droidscore-device.json`: pid, port, argv, the files' sha256), so a later
//! `stop` or `deploy` finds the server — and checks by `/proc/PID/cmdline`
//! that the pid is still ours before killing it.

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use droidscore_contract::health::{Health, HealthError};
use sha2::{Digest, Sha256};

use super::local::{get_json, GetError};
use super::token::{new_token, token_on_phone, REMOTE_TOKEN};
use crate::agent::ApiKey;
use droidscore_phone::{DeployTarget, PhoneError};

/// Where everything goes on the phone: the one directory `adb shell` may
/// write and execute from.
pub(crate) const REMOTE_DIR: &str = "/data/local/tmp";
pub(crate) const REMOTE_BINARY: &str = "/data/local/tmp/droidscore-device";
pub(crate) const REMOTE_LOG: &str = "/data/local/tmp/droidscore-device.log";
pub(crate) const REMOTE_RECORD: &str = "/data/local/tmp/droidscore-device.json";

pub(crate) const DEFAULT_PORT: u16 = 8077;
/// The default model's file name, in the host's cache under `models/`.
pub const DEFAULT_MODEL: &str = droidscore_contract::models::SMOLLM2_135M.file_name;
/// Where `scripts/build-aarch64.sh` puts the binary (a static aarch64 Linux
/// build, which Android runs from `/data/local/tmp`).
pub(crate) const DEFAULT_BINARY: &str =
    "target/aarch64-static/aarch64-unknown-linux-gnu/release/droidscore-device";
/// How to build a binary a phone can run, for error messages.
const BUILD_HINT: &str =
    "`scripts/build-aarch64.sh` (static aarch64 Linux) or the NDK route in docs/device.md";
/// Lines of the phone's log an error shows.
const LOG_TAIL: usize = 20;

#[derive(Debug, thiserror::Error)]
pub enum DeployError {
    /// A local file is missing or not what a phone can run.
    #[error("{0}")]
    BadInput(String),
    #[error(transparent)]
    Phone(#[from] PhoneError),
    /// The server did not come up (or went away); the phone's log is in it.
    #[error("{0}")]
    NotReady(String),
}

/// What to deploy.
#[derive(Debug, Clone)]
pub struct DeployOptions {
    pub binary: PathBuf,
    pub model: PathBuf,
    /// The server's port on the phone (`--listen 127.0.0.1:PORT`).
    pub port: u16,
    pub threads: Option<usize>,
    /// `serve --weights` (`packed`, `f16`, `f32`); default: the server's.
    pub weights: Option<String>,
    /// How long to wait for `/health`.
    pub wait: Duration,
}

/// What was deployed, as kept on the phone in [`REMOTE_RECORD`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Deployment {
    pub pid: u32,
    pub port: u16,
    /// The server's command line, as started in [`REMOTE_DIR`].
    pub argv: Vec<String>,
    pub binary_sha256: String,
    pub model_sha256: String,
}

/// A server running on the phone, reached through a forward.
#[derive(Debug, Clone)]
pub struct OnPhone {
    pub serial: String,
    pub deployment: Deployment,
    /// The host's end of the forward.
    pub local_port: u16,
    /// `http://127.0.0.1:LOCAL/v1`.
    pub base_url: String,
    /// The id the server answers to (`/v1/models`).
    pub model: String,
    /// What `/health` reported.
    pub health: Health,
    /// An already running deployment of the same files was kept.
    pub reused: bool,
    /// The bearer token every request to it carries.
    pub token: ApiKey,
}

impl OnPhone {
    /// The server's settings that a run's results depend on (as
    /// [`super::local::LocalServer::config`]).
    pub fn config(&self) -> serde_json::Value {
        super::local::server_settings(&self.health)
    }

    /// A GGUF model is text only: no screenshots are sent.
    pub fn text_only(&self) -> bool {
        self.health.text_only()
    }

    /// One line saying what runs where: the phone, the pid, the model and
    /// its quantization, the port on the phone and the base URL here.
    pub(crate) fn describe(&self) -> String {
        format!(
            "droidscore-device on {} (pid {}): model {} ({}), {} on the phone, {} here",
            self.serial,
            self.deployment.pid,
            self.model,
            self.health
                .model
                .as_ref()
                .map_or("quantization not reported", |m| m.quantization.as_str()),
            self.deployment.port,
            self.base_url,
        )
    }
}

/// The host's cache, where `droidscore-device fetch-model` puts the default
/// model: the contract's, so host and device name one directory.
pub use droidscore_contract::cache_dir;

/// The default model file in the host's cache.
pub fn default_model() -> PathBuf {
    droidscore_contract::models::default_model().path_in(&cache_dir())
}

/// Why `--device-model` names nothing that can be pushed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelChoiceError {
    #[error(
        "--device-model {asked:?}: no such file, and not a model name (known: {known}); a \
         named model is fetched with `droidscore-device fetch-model NAME`"
    )]
    Unknown { asked: String, known: String },
    #[error(
        "--device-model {name}: not in the cache at {}: fetch it with \
         `droidscore-device fetch-model {name}` (the server on the phone cannot fetch a model)",
        path.display()
    )]
    NotFetched { name: &'static str, path: PathBuf },
    #[error("--device-model {}: no such file", .0.display())]
    NoFile(PathBuf),
}

/// The GGUF file `--device-model` means with `--on-device`, in `cache`: a
/// name from the contract's catalogue is its file there (the default's when
/// none is asked), anything else a file to push as it is. The phone's
/// server cannot fetch, so a name not yet fetched is refused here, before
/// anything is pushed, and so is a mistyped one, with the known names.
pub(crate) fn model_file(asked: Option<&str>, cache: &Path) -> Result<PathBuf, ModelChoiceError> {
    use droidscore_contract::models;
    let known = match asked {
        None => Some(models::default_model()),
        Some(arg) => models::find(arg),
    };
    if let Some(model) = known {
        let path = model.path_in(cache);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(ModelChoiceError::NotFetched {
                name: model.name,
                path,
            })
        };
    }
    let arg = asked.unwrap_or_default();
    let path = PathBuf::from(arg);
    if path.is_file() {
        Ok(path)
    } else if models::looks_like_a_name(arg) {
        Err(ModelChoiceError::Unknown {
            asked: arg.to_string(),
            known: models::names(),
        })
    } else {
        Err(ModelChoiceError::NoFile(path))
    }
}

/// The server's command line on the phone, run in [`REMOTE_DIR`].
pub(crate) fn serve_argv(
    model_name: &str,
    port: u16,
    threads: Option<usize>,
    weights: Option<&str>,
) -> Vec<String> {
    let mut argv = vec![
        "./droidscore-device".to_string(),
        "serve".into(),
        "--model".into(),
        format!("{REMOTE_DIR}/{model_name}"),
        "--listen".into(),
        format!("127.0.0.1:{port}"),
        "--token-file".into(),
        REMOTE_TOKEN.into(),
    ];
    if let Some(n) = threads {
        argv.extend(["--threads".into(), n.to_string()]);
    }
    if let Some(w) = weights {
        argv.extend(["--weights".into(), w.to_string()]);
    }
    argv
}

/// The ELF machine a phone runs: aarch64 (`arm64-v8a`). Anything else — the
/// host's own x86-64 build above all — is refused before it is pushed.
pub(crate) fn check_binary(path: &Path) -> Result<(), DeployError> {
    use std::io::Read;
    let mut header = Vec::with_capacity(20);
    std::fs::File::open(path)
        .and_then(|f| f.take(20).read_to_end(&mut header))
        .map_err(|e| DeployError::BadInput(format!("--binary {}: {e}", path.display())))?;
    if header.len() < 20 || &header[..4] != b"\x7fELF" {
        return Err(DeployError::BadInput(format!(
            "--binary {}: not an ELF executable",
            path.display()
        )));
    }
    // e_machine, little-endian in a 64-bit (EI_CLASS 2) file: 183 is EM_AARCH64.
    let machine = u16::from_le_bytes([header[18], header[19]]);
    if header[4] != 2 || machine != 183 {
        let what = match machine {
            62 => "x86-64",
            3 => "x86",
            40 => "32-bit ARM",
            183 => "aarch64 but not 64-bit",
            _ => "another machine",
        };
        return Err(DeployError::BadInput(format!(
            "--binary {}: built for {what}, not aarch64; build one for the phone with {BUILD_HINT}",
            path.display()
        )));
    }
    Ok(())
}

/// sha256 of a local file, hex.
fn sha256_file(path: &Path) -> Result<String, DeployError> {
    let mut file = std::fs::File::open(path)
        .map_err(|e| DeployError::BadInput(format!("{}: {e}", path.display())))?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher)
        .map_err(|e| DeployError::BadInput(format!("{}: {e}", path.display())))?;
    Ok(format!("{:x}", hasher.finalize()))
}

/// A file that must be there, named plainly when it is not.
fn required_file(path: &Path, what: &str, hint: &str) -> Result<(), DeployError> {
    if path.is_file() {
        Ok(())
    } else {
        Err(DeployError::BadInput(format!(
            "{what} {}: no such file{hint}",
            path.display()
        )))
    }
}

/// The deployment recorded on the phone, if any.
pub fn recorded(phone: &mut dyn DeployTarget) -> Result<Option<Deployment>, PhoneError> {
    Ok(phone
        .read_file(REMOTE_RECORD)?
        .and_then(|raw| serde_json::from_slice(&raw).ok()))
}

/// Whether the recorded server still runs: its pid is alive and its
/// `/proc/PID/cmdline` is the recorded command line (so a reused pid is
/// never taken for ours).
fn still_running(
    phone: &mut dyn DeployTarget,
    deployment: &Deployment,
) -> Result<bool, PhoneError> {
    Ok(phone.cmdline(deployment.pid)?.as_ref() == Some(&deployment.argv))
}

/// What `stop` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stopped {
    /// The pid killed, if the server was running.
    pub killed: Option<u32>,
    /// Forwards removed (their local ends).
    pub forwards: Vec<String>,
    /// The deployment that was recorded.
    pub deployment: Option<Deployment>,
}

/// Stop the deployed server (if it runs) and remove this phone's forwards to
/// its port.
pub fn stop(phone: &mut dyn DeployTarget) -> Result<Stopped, PhoneError> {
    let Some(deployment) = recorded(phone)? else {
        return Ok(Stopped::default());
    };
    let mut stopped = Stopped::default();
    if still_running(phone, &deployment)? {
        phone.kill(deployment.pid)?;
        stopped.killed = Some(deployment.pid);
    }
    let remote = format!("tcp:{}", deployment.port);
    for (local, to) in phone.forwards()? {
        if to == remote {
            phone.remove_forward(&local)?;
            stopped.forwards.push(local);
        }
    }
    phone.remove_file(REMOTE_RECORD)?;
    phone.remove_file(REMOTE_TOKEN)?;
    stopped.deployment = Some(deployment);
    Ok(stopped)
}

/// Push `local` to `remote` unless the phone already has the same bytes
/// (sha256 on both sides); says which on `progress`.
fn push_if_changed(
    phone: &mut dyn DeployTarget,
    local: &Path,
    local_sha: &str,
    remote: &str,
    executable: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<(), PhoneError> {
    let size = std::fs::metadata(local).map(|m| m.len()).unwrap_or(0);
    if phone.sha256(remote)?.as_deref() == Some(local_sha) {
        progress(&format!(
            "{remote}: already on the phone (sha256 {} matches), not pushed",
            &local_sha[..12]
        ));
        if executable {
            phone.make_executable(remote)?;
        }
        return Ok(());
    }
    progress(&format!(
        "pushing {} ({size} bytes) to {remote}",
        local.display()
    ));
    phone.push_file(local, remote, executable)?;
    match phone.sha256(remote)? {
        Some(sha) if sha != local_sha => Err(PhoneError::Device(format!(
            "{remote}: sha256 on the phone is {sha} after the push, not {local_sha}"
        ))),
        _ => Ok(()),
    }
}

/// The host port for the forward: the one an existing forward of this phone
/// to `tcp:PORT` already uses, else PORT itself if free here, else any free
/// port. Never PORT for the virtual phone: its loopback is this machine's,
/// so a forward from PORT to PORT would reach itself.
fn local_port(phone: &mut dyn DeployTarget, port: u16) -> Result<(u16, bool), PhoneError> {
    let remote = format!("tcp:{port}");
    let existing = phone
        .forwards()?
        .into_iter()
        .filter(|(_, to)| *to == remote)
        .find_map(|(local, _)| local.strip_prefix("tcp:")?.parse().ok());
    if let Some(local) = existing {
        return Ok((local, true));
    }
    if !phone.is_virtual() && TcpListener::bind((Ipv4Addr::LOCALHOST, port)).is_ok() {
        return Ok((port, false));
    }
    Ok((phone.unused_local_port(), false))
}

/// Why `/health` did not say the server is up.
#[derive(Debug, thiserror::Error)]
enum Unhealthy {
    #[error(transparent)]
    Get(#[from] GetError),
    #[error("GET {url}: {source}")]
    Document {
        url: String,
        #[source]
        source: HealthError,
    },
    #[error("GET {url}: status is {}", status.as_deref().unwrap_or("not given"))]
    Status { url: String, status: Option<String> },
}

/// `/health` answered `{"status":"ok"}` to the token: its document.
fn healthy(
    runtime: &tokio::runtime::Handle,
    local_port: u16,
    token: &ApiKey,
) -> Result<Health, Unhealthy> {
    let url = format!("http://127.0.0.1:{local_port}/health");
    let document = runtime.block_on(get_json(&url, Some(token), Duration::from_secs(5)))?;
    ready(url, &document)
}

/// A `/health` document read as the contract's, if it says ready.
fn ready(url: String, document: &serde_json::Value) -> Result<Health, Unhealthy> {
    let health = Health::from_json(document).map_err(|source| Unhealthy::Document {
        url: url.clone(),
        source,
    })?;
    if health.is_ready() {
        Ok(health)
    } else {
        Err(Unhealthy::Status {
            url,
            status: health.status,
        })
    }
}

/// The phone's log tail, for an error.
fn log_tail(phone: &mut dyn DeployTarget) -> String {
    match phone.tail(REMOTE_LOG, LOG_TAIL) {
        Ok(text) if text.trim().is_empty() => "(empty)".into(),
        Ok(text) => text.trim_end().to_string(),
        Err(e) => format!("(could not be read: {e})"),
    }
}

/// Deploy the server to `phone` and wait until it answers through a forward.
/// With `reuse`, a running deployment of the same binary, model and command
/// line that answers `/health` is kept instead of restarted. `runtime` must
/// be a multi-thread runtime's: this blocks on it from outside.
pub fn deploy(
    phone: &mut dyn DeployTarget,
    options: &DeployOptions,
    runtime: &tokio::runtime::Handle,
    reuse: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<OnPhone, DeployError> {
    deploy_with(phone, options, runtime, reuse, None, progress)
}

/// [`deploy`], a new server started with `token` when given (a restart
/// during a run: the agents hold the old one), else with a fresh one.
fn deploy_with(
    phone: &mut dyn DeployTarget,
    options: &DeployOptions,
    runtime: &tokio::runtime::Handle,
    reuse: bool,
    token: Option<&ApiKey>,
    progress: &mut dyn FnMut(&str),
) -> Result<OnPhone, DeployError> {
    let build_hint = format!(" (build it for the phone with {BUILD_HINT})");
    required_file(&options.binary, "--binary", &build_hint)?;
    check_binary(&options.binary)?;
    if options.model.is_dir() {
        return Err(DeployError::BadInput(format!(
            "--model {}: a directory (safetensors) cannot be deployed yet: deploy pushes one GGUF file",
            options.model.display()
        )));
    }
    let model_hint =
        " (`droidscore-device fetch-model` puts the default model there, or pass --model)";
    required_file(&options.model, "--model", model_hint)?;
    let model_name = options
        .model
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| {
            DeployError::BadInput(format!("--model {}: no file name", options.model.display()))
        })?
        .to_string();
    let abi = phone.getprop("ro.product.cpu.abi")?;
    if abi.trim() != "arm64-v8a" {
        return Err(DeployError::BadInput(format!(
            "{}: its CPU ABI is {:?}, not arm64-v8a: the aarch64 binary cannot run there",
            phone.serial(),
            abi.trim()
        )));
    }
    let binary_sha256 = sha256_file(&options.binary)?;
    let model_sha256 = sha256_file(&options.model)?;
    let argv = serve_argv(
        &model_name,
        options.port,
        options.threads,
        options.weights.as_deref(),
    );

    let previous = recorded(phone)?;
    if reuse {
        if let Some(found) = previous.as_ref().filter(|d| {
            d.argv == argv && d.binary_sha256 == binary_sha256 && d.model_sha256 == model_sha256
        }) {
            let running_token = match still_running(phone, found)? {
                true => token_on_phone(phone)?,
                false => None,
            };
            if let Some(running_token) = running_token {
                let (local, forwarded) = local_port(phone, found.port)?;
                if !forwarded {
                    phone.forward(&format!("tcp:{local}"), &format!("tcp:{}", found.port))?;
                }
                if let Ok(health) = healthy(runtime, local, &running_token) {
                    progress(&format!(
                        "droidscore-device already running on {} (pid {}, same binary, model and arguments): reused",
                        phone.serial(),
                        found.pid
                    ));
                    return finish(
                        phone,
                        runtime,
                        found.clone(),
                        local,
                        health,
                        true,
                        running_token,
                    );
                }
            }
        }
    }
    if previous.is_some() {
        let stopped = stop(phone)?;
        if let Some(pid) = stopped.killed {
            progress(&format!(
                "stopped the previous droidscore-device (pid {pid})"
            ));
        }
    }

    push_if_changed(
        phone,
        &options.binary,
        &binary_sha256,
        REMOTE_BINARY,
        true,
        progress,
    )?;
    let remote_model = format!("{REMOTE_DIR}/{model_name}");
    push_if_changed(
        phone,
        &options.model,
        &model_sha256,
        &remote_model,
        false,
        progress,
    )?;

    // The token before the server that reads it, readable by the shell user only.
    let token = match token {
        Some(token) => token.clone(),
        None => new_token().map_err(|e| DeployError::BadInput(format!("/dev/urandom: {e}")))?,
    };
    phone.push(token.expose().as_bytes(), REMOTE_TOKEN, false)?;
    phone.make_private(REMOTE_TOKEN)?;

    let words: Vec<&str> = argv.iter().map(String::as_str).collect();
    let pid = phone.start_background_in(REMOTE_DIR, &words, REMOTE_LOG)?;
    progress(&format!(
        "started `{}` in {REMOTE_DIR} (pid {}, log {REMOTE_LOG})",
        argv.join(" "),
        pid
    ));
    let deployment = Deployment {
        pid,
        port: options.port,
        argv,
        binary_sha256,
        model_sha256,
    };
    let record = serde_json::to_vec_pretty(&deployment)
        .map_err(|e| DeployError::Phone(PhoneError::Device(format!("deployment record: {e}"))))?;
    phone.push(&record, REMOTE_RECORD, false)?;

    let (local, forwarded) = local_port(phone, options.port)?;
    if !forwarded {
        phone.forward(&format!("tcp:{local}"), &format!("tcp:{}", options.port))?;
    }
    progress(&format!(
        "forwarded 127.0.0.1:{local} on this machine to 127.0.0.1:{} on the phone; waiting up to {} s for /health",
        options.port,
        options.wait.as_secs()
    ));

    let deadline = Instant::now() + options.wait;
    let mut last_check = Instant::now();
    let health = loop {
        let why = match healthy(runtime, local, &token) {
            Ok(health) => break health,
            Err(why) => why,
        };
        // A server that exited will never answer: say so now, not at the deadline.
        if last_check.elapsed() >= Duration::from_secs(2) {
            last_check = Instant::now();
            if !still_running(phone, &deployment)? {
                let tail = log_tail(phone);
                return Err(DeployError::NotReady(format!(
                    "droidscore-device (pid {}) exited on {} before answering /health; the last lines of {REMOTE_LOG} on the phone:\n{tail}",
                    deployment.pid,
                    phone.serial(),
                )));
            }
        }
        if Instant::now() >= deadline {
            return Err(DeployError::NotReady(format!(
                "droidscore-device (pid {}) did not answer /health through 127.0.0.1:{local} within {} s ({why}); it is left running (`droidscore device stop` ends it); the last lines of {REMOTE_LOG} on the phone:\n{}",
                deployment.pid,
                options.wait.as_secs(),
                log_tail(phone)
            )));
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    finish(phone, runtime, deployment, local, health, false, token)
}

/// The server on the phone during a run: after an attempt fails, a server
/// that no longer answers `/health` is started again, once per run; a second
/// death is the phone's failure like any other (the run stops, `--resume`
/// finishes it). The host's end of the forward stays the one the agents
/// were given.
#[derive(Debug)]
pub struct Keeper {
    options: DeployOptions,
    runtime: tokio::runtime::Handle,
    local_port: u16,
    serial: String,
    restarted: bool,
    /// The server's token, which the agents send: a restart keeps it.
    token: ApiKey,
}

impl Keeper {
    pub fn new(
        server: &OnPhone,
        options: DeployOptions,
        runtime: tokio::runtime::Handle,
    ) -> Keeper {
        Keeper {
            options,
            runtime,
            local_port: server.local_port,
            serial: server.serial.clone(),
            restarted: false,
            token: server.token.clone(),
        }
    }

    /// Whether the server answers (restarting it if it may): Ok when it does.
    pub fn check(
        &mut self,
        phone: &mut dyn DeployTarget,
        progress: &mut dyn FnMut(&str),
    ) -> Result<(), DeployError> {
        let why = match healthy(&self.runtime, self.local_port, &self.token) {
            Ok(_) => return Ok(()),
            Err(why) => why,
        };
        if self.restarted {
            return Err(DeployError::NotReady(format!(
                "the model server on {} stopped answering again, after its one restart: {why}",
                self.serial
            )));
        }
        self.restarted = true;
        progress(&format!(
            "the model server on {} does not answer ({why}): starting it again (once per run)",
            self.serial
        ));
        let server = deploy_with(
            phone,
            &self.options,
            &self.runtime,
            false,
            Some(&self.token),
            progress,
        )?;
        if server.local_port != self.local_port {
            // The forward went with the old server (or the adb server
            // forgot it when the phone went away): the agents' port again.
            phone.forward(
                &format!("tcp:{}", self.local_port),
                &format!("tcp:{}", self.options.port),
            )?;
            healthy(&self.runtime, self.local_port, &self.token).map_err(|e| {
                DeployError::NotReady(format!(
                    "the restarted server does not answer through 127.0.0.1:{}: {e}",
                    self.local_port
                ))
            })?;
        }
        progress(&format!(
            "the model server on {} answers again (pid {})",
            self.serial, server.deployment.pid
        ));
        Ok(())
    }
}

/// Ask the ready server its model id.
fn finish(
    phone: &mut dyn DeployTarget,
    runtime: &tokio::runtime::Handle,
    deployment: Deployment,
    local_port: u16,
    health: Health,
    reused: bool,
    token: ApiKey,
) -> Result<OnPhone, DeployError> {
    let base_url = format!("http://127.0.0.1:{local_port}/v1");
    let models = runtime
        .block_on(get_json(
            &format!("{base_url}/models"),
            Some(&token),
            Duration::from_secs(30),
        ))
        .map_err(|e| DeployError::NotReady(e.to_string()))?;
    let model = models["data"][0]["id"]
        .as_str()
        .ok_or_else(|| {
            DeployError::NotReady(format!("{base_url}/models names no model: {models}"))
        })?
        .to_string();
    Ok(OnPhone {
        serial: phone.serial().to_string(),
        deployment,
        local_port,
        base_url,
        model,
        health,
        reused,
        token,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elf(machine: u16) -> Vec<u8> {
        let mut header = vec![0u8; 64];
        header[..4].copy_from_slice(b"\x7fELF");
        header[4] = 2;
        header[5] = 1;
        header[18..20].copy_from_slice(&machine.to_le_bytes());
        header
    }

    #[test]
    fn only_an_aarch64_elf_is_pushed_and_the_host_build_is_named_as_such() {
        let env = droidscore_testenv::TestEnv::new("elf");
        let write = |name: &str, bytes: &[u8]| env.write(name, bytes);
        assert!(check_binary(&write("arm64", &elf(183))).is_ok());
        let e = check_binary(&write("x86", &elf(62)))
            .unwrap_err()
            .to_string();
        assert!(e.contains("x86-64, not aarch64"), "{e}");
        let e = check_binary(&write("script", b"#!/bin/sh\nexit 0\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not an ELF"), "{e}");
    }

    #[test]
    fn the_serve_line_names_the_pushed_model_and_the_port() {
        assert_eq!(
            serve_argv("m.gguf", 8077, Some(4), None),
            [
                "./droidscore-device",
                "serve",
                "--model",
                "/data/local/tmp/m.gguf",
                "--listen",
                "127.0.0.1:8077",
                "--token-file",
                "/data/local/tmp/droidscore-device.token",
                "--threads",
                "4"
            ]
        );
    }

    #[test]
    fn device_model_is_a_fetched_name_or_a_file_and_a_typo_lists_the_names() {
        let env = droidscore_testenv::TestEnv::new("model-choice");
        let cache = env.cache();
        let models_dir = cache.join("models");
        std::fs::create_dir_all(&models_dir).unwrap();
        let smol = droidscore_contract::models::SMOLLM2_135M;
        // Not fetched yet: refused with the command that fetches it.
        let e = model_file(None, &cache).unwrap_err();
        assert!(matches!(e, ModelChoiceError::NotFetched { name, .. } if name == smol.name));
        assert!(e.to_string().contains("fetch-model smollm2-135m"), "{e}");
        std::fs::write(models_dir.join(smol.file_name), b"gguf").unwrap();
        assert_eq!(model_file(None, &cache), Ok(smol.path_in(&cache)));
        assert_eq!(
            model_file(Some(smol.name), &cache),
            Ok(smol.path_in(&cache))
        );
        let e = model_file(Some("qwen"), &cache).unwrap_err().to_string();
        assert!(
            e.contains("\"qwen\"") && e.contains("qwen2.5-coder-0.5b"),
            "{e}"
        );
        let file = models_dir.join(smol.file_name).display().to_string();
        assert_eq!(model_file(Some(&file), &cache), Ok(PathBuf::from(&file)));
        assert_eq!(
            model_file(Some("/no/such.gguf"), &cache),
            Err(ModelChoiceError::NoFile("/no/such.gguf".into()))
        );
    }

    #[test]
    fn health_is_ready_on_ok_and_otherwise_says_why() {
        let url = || "http://127.0.0.1:1/health".to_string();
        // A llama-server-like answer is ready too, with no model to read.
        let health = ready(url(), &serde_json::json!({"status": "ok"})).unwrap();
        assert!(!health.text_only());
        let e = ready(url(), &serde_json::json!({"status": "loading"})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "GET http://127.0.0.1:1/health: status is loading"
        );
        let e = ready(url(), &serde_json::json!({})).unwrap_err();
        assert!(e.to_string().ends_with("status is not given"), "{e}");
        let e = ready(
            url(),
            &serde_json::json!({"status": "ok", "model": {"id": 1}}),
        )
        .unwrap_err();
        assert!(e.to_string().contains("/health: model.id: "), "{e}");
    }
}
