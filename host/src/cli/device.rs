//! `droidscore device deploy|stop`: the model server on a phone over adb
//! (see `model_server::on_phone`). The base URL goes to stdout, what was
//! done to stderr.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::error::CliError;
use crate::model_server::on_phone::{self, DeployOptions, OnPhone};
use crate::run;
use droidscore_phone::adb::AdbPhone;

#[derive(Debug, Subcommand)]
pub enum DeviceCommand {
    /// Push `droidscore-device` and a model to /data/local/tmp, start `serve`
    /// in the background with a fresh bearer token (in
    /// /data/local/tmp/droidscore-device.token, readable by the shell user
    /// only), `adb forward` a host port to it and wait for /health; print
    /// the base URL (`http://127.0.0.1:PORT/v1`) on stdout.
    Deploy(DeployArgs),
    /// Stop the deployed server and remove its forward.
    Stop(StopArgs),
}

#[derive(Debug, Args)]
pub struct DeployArgs {
    /// The phone's serial (default: the only one attached).
    #[arg(long, env = "ANDROID_SERIAL")]
    pub serial: Option<String>,
    /// An aarch64 build of `droidscore-device`.
    #[arg(long, value_name = "FILE", default_value = crate::model_server::on_phone::DEFAULT_BINARY)]
    pub binary: PathBuf,
    /// The model file (GGUF) to serve; default: the default model in the
    /// cache (`$DROIDSCORE_CACHE/models/SmolLM2-135M-Instruct.Q4_1.gguf`,
    /// else under `~/.cache/droidscore`).
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
    /// The server's port on the phone; the host's end of the forward is the
    /// same port if free, else another (printed).
    #[arg(long, default_value_t = crate::model_server::on_phone::DEFAULT_PORT)]
    pub port: u16,
    /// The server's CPU threads (default: every core of the phone).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Seconds to wait for /health (loading a model on a phone is slow).
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    pub wait: u64,
}

#[derive(Debug, Args)]
pub struct StopArgs {
    #[arg(long, env = "ANDROID_SERIAL")]
    pub serial: Option<String>,
}

pub fn device(command: DeviceCommand) -> Result<(), CliError> {
    match command {
        DeviceCommand::Deploy(args) => deploy(args),
        DeviceCommand::Stop(args) => stop(args),
    }
}

/// A runtime whose worker drives the HTTP client while this thread blocks on
/// it (a current-thread runtime's handle would drive no I/O from here).
fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| CliError::io("failed to start the async runtime", e))
}

/// Deploy to `phone` (reusing a healthy deployment of the same files when
/// `reuse`), saying what was done on stderr.
fn deploy_to(
    phone: &mut AdbPhone,
    options: &DeployOptions,
    runtime: &tokio::runtime::Handle,
    reuse: bool,
) -> Result<OnPhone, CliError> {
    let mut progress = |line: &str| eprintln!("{line}");
    let server = on_phone::deploy(phone, options, runtime, reuse, &mut progress)?;
    eprintln!("{}", server.describe());
    Ok(server)
}

/// `droidscore device deploy`.
fn deploy(args: DeployArgs) -> Result<(), CliError> {
    let options = DeployOptions {
        binary: args.binary,
        model: args.model.unwrap_or_else(on_phone::default_model),
        port: args.port,
        threads: args.threads,
        weights: None,
        wait: Duration::from_secs(args.wait),
    };
    let mut phone = run::one_phone(args.serial)?;
    let runtime = runtime()?;
    let server = deploy_to(&mut phone, &options, runtime.handle(), false)?;
    eprintln!(
        "requests need `Authorization: Bearer TOKEN`, the token in {} on the phone (`adb shell cat {}`)",
        crate::model_server::token::REMOTE_TOKEN,
        crate::model_server::token::REMOTE_TOKEN,
    );
    super::shared::out(&format!("{}\n", server.base_url))
}

/// `droidscore device stop`.
fn stop(args: StopArgs) -> Result<(), CliError> {
    let mut phone = run::one_phone(args.serial)?;
    let stopped = on_phone::stop(&mut phone)?;
    match (&stopped.deployment, stopped.killed) {
        (None, _) => eprintln!(
            "no droidscore-device deployed on {} ({} is not there)",
            phone.serial(),
            on_phone::REMOTE_RECORD
        ),
        (Some(d), Some(pid)) => eprintln!("stopped droidscore-device (pid {pid}, port {})", d.port),
        (Some(d), None) => eprintln!("droidscore-device (pid {}) was no longer running", d.pid),
    }
    for local in &stopped.forwards {
        eprintln!("removed the forward {local}");
    }
    Ok(())
}
