//! `droidscore device deploy|stop`: the model server on a phone over adb
//! (see `agent::on_device`). The base URL goes to stdout, what was done to
//! stderr.

use std::time::Duration;

use super::{CliError, DeployArgs, DeviceArgs, StopArgs};
use crate::agent::on_device::{self, DeployError, DeployOptions, OnDevice};
use droidscore_phone::adb::AdbPhone;

impl From<DeployError> for CliError {
    fn from(e: DeployError) -> Self {
        match e {
            DeployError::BadInput(why) => CliError::BadInput(why),
            DeployError::Phone(e) => CliError::Phone(e),
            DeployError::NotReady(why) => {
                CliError::Phone(droidscore_phone::PhoneError::Device(why))
            }
        }
    }
}

/// The one phone named (or the only one attached).
pub fn one_phone(serial: Option<String>) -> Result<AdbPhone, CliError> {
    if serial.as_deref() == Some("all") {
        return Err(CliError::BadInput(
            "the model server goes to one phone: pass its serial, not `all`".into(),
        ));
    }
    let mut phones = super::adb::phones(&DeviceArgs {
        serial,
        device_wait: 60,
        phone_timeout: 30,
    })?;
    Ok(phones.remove(0))
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
pub fn deploy_to(
    phone: &mut AdbPhone,
    options: &DeployOptions,
    runtime: &tokio::runtime::Handle,
    reuse: bool,
) -> Result<OnDevice, CliError> {
    let mut progress = |line: &str| eprintln!("{line}");
    let server = on_device::deploy(phone, options, runtime, reuse, &mut progress)?;
    eprintln!(
        "droidscore-device on {} (pid {}): model {} ({}), {} on the phone, {} here",
        server.serial,
        server.deployment.pid,
        server.model,
        server
            .health
            .model
            .as_ref()
            .map_or("quantization not reported", |m| m.quantization.as_str()),
        server.deployment.port,
        server.base_url,
    );
    Ok(server)
}

/// `droidscore device deploy`.
pub fn deploy(args: DeployArgs) -> Result<(), CliError> {
    let options = DeployOptions {
        binary: args.binary,
        model: args.model.unwrap_or_else(on_device::default_model),
        port: args.port,
        threads: args.threads,
        weights: None,
        wait: Duration::from_secs(args.wait),
    };
    let mut phone = one_phone(args.serial)?;
    let runtime = runtime()?;
    let server = deploy_to(&mut phone, &options, runtime.handle(), false)?;
    super::shared::out(&format!("{}\n", server.base_url))
}

/// `droidscore device stop`.
pub fn stop(args: StopArgs) -> Result<(), CliError> {
    let mut phone = one_phone(args.serial)?;
    let stopped = on_device::stop(&mut phone)?;
    match (&stopped.deployment, stopped.killed) {
        (None, _) => eprintln!(
            "no droidscore-device deployed on {} ({} is not there)",
            phone.serial(),
            on_device::REMOTE_RECORD
        ),
        (Some(d), Some(pid)) => eprintln!("stopped droidscore-device (pid {pid}, port {})", d.port),
        (Some(d), None) => eprintln!("droidscore-device (pid {}) was no longer running", d.pid),
    }
    for local in &stopped.forwards {
        eprintln!("removed the forward {local}");
    }
    Ok(())
}
