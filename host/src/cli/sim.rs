//! `droidscore sim dump|serve|gallery`: a task variant's screen on the
//! simulator as uiautomator prints it (first screen, an intent's, or after N
//! reference steps), the simulator served as a virtual phone over adb's wire
//! protocol, with fault injection for testing a runner, and (in
//! `sim_gallery`) every app's screens as HTML pages for a person to review.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::error::CliError;
use super::shared::out;
pub use super::sim_gallery::GalleryArgs;
use super::sim_gallery::{gallery, play_reference};
use crate::task::{self, Instance, Task};
use droidscore_phone::adbd::{faults::Faults, Server};
use droidscore_phone::sim::SimPhone;
use droidscore_phone::vphone::VirtualPhone;
use droidscore_phone::{DeviceAction, Intent, Phone};

#[derive(Debug, Subcommand)]
pub enum SimCommand {
    /// Print the uiautomator dump of a task variant's first screen.
    Dump(DumpArgs),
    /// Serve a virtual phone over adb's wire protocol: `adb connect` to it.
    Serve(ServeArgs),
    /// Write every app's screens along the tasks' reference solutions as
    /// HTML pages of screenshots with their element lists, for review.
    Gallery(GalleryArgs),
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on. Keep the port outside 5555–5585: the adb server
    /// also scans that range for emulators and would list the phone twice.
    #[arg(long, default_value = "127.0.0.1:6520")]
    pub listen: String,
    /// Tasks that `droidscore-sim load` can put the phone in (default: the
    /// built-in suite).
    #[arg(long, value_name = "DIR")]
    pub suite: Option<PathBuf>,
    /// Start in this task's initial state (with `--variant`, default `base`).
    #[arg(long)]
    pub task: Option<String>,
    #[arg(long, default_value = "base", requires = "task")]
    pub variant: String,
    /// The episode seed the phone starts with (its clock). (`--seed` before.)
    #[arg(long, alias = "seed", default_value_t = 0)]
    pub episode_seed: u64,
    /// Fault injection, for testing a runner: drop every connection when
    /// command N+1 arrives (a shell command, a push or a pull), once.
    #[arg(long, value_name = "N", help_heading = "Faults")]
    pub drop_after: Option<u64>,
    /// With --drop-after: refuse connections this many seconds after the
    /// drop, then listen again (a phone rebooting).
    #[arg(
        long,
        value_name = "SECS",
        requires = "drop_after",
        help_heading = "Faults"
    )]
    pub refuse_for: Option<u64>,
    /// Fault injection: from command N+1 on, accept every command and never
    /// answer it (a hung adbd; the connection stays open).
    #[arg(long, value_name = "N", help_heading = "Faults")]
    pub stall_after: Option<u64>,
}

#[derive(Debug, Args)]
pub struct DumpArgs {
    /// Directory of task files (default: the built-in suite).
    #[arg(long, value_name = "DIR")]
    pub suite: Option<PathBuf>,
    #[arg(long)]
    pub task: String,
    #[arg(long, default_value = "base")]
    pub variant: String,
    /// The episode seed the phone starts with (its clock). (`--seed` before.)
    #[arg(long, alias = "seed", default_value_t = 0)]
    pub episode_seed: u64,
    /// Open this intent (or `sim:<screen>`) instead of launching the task's app.
    #[arg(long, conflicts_with = "after")]
    pub open: Option<String>,
    /// Instead, play the first N steps of the reference solution and dump
    /// the screen they reach (what a task author checks step N+1 against).
    #[arg(long, value_name = "N")]
    pub after: Option<usize>,
    /// The instance seed of a parameterised task: which draw of its params.
    /// (`--instance` before.)
    #[arg(long, alias = "instance", default_value_t = 0)]
    pub instance_seed: u64,
    /// Also write the screenshot here.
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,
}

pub fn sim(command: SimCommand) -> Result<(), CliError> {
    match command {
        SimCommand::Dump(args) => dump(args),
        SimCommand::Serve(args) => serve(args),
        SimCommand::Gallery(args) => gallery(args),
    }
}

/// A task's app and one of its variants, by id.
fn instance<'a>(
    tasks: &'a [Task],
    task: &str,
    variant: &str,
) -> Result<(&'a str, &'a Instance), CliError> {
    let t = tasks
        .iter()
        .find(|t| t.id == task)
        .ok_or_else(|| CliError::BadInput(format!("--task {task:?}: no such task")))?;
    let inst = t.variant(variant).ok_or_else(|| {
        let ids: Vec<&str> = t.variants.iter().map(|v| v.variant.id.as_str()).collect();
        CliError::BadInput(format!(
            "--variant {variant:?}: task {task:?} has variants {}",
            ids.join(", ")
        ))
    })?;
    Ok((&t.app, inst))
}

fn dump(args: DumpArgs) -> Result<(), CliError> {
    let tasks = task::Suite::from_arg(args.suite.as_deref()).load()?;
    let (app, inst) = instance(&tasks, &args.task, &args.variant)?;
    let seeded;
    let inst = if args.instance_seed == 0 {
        inst
    } else {
        let task = tasks
            .iter()
            .find(|t| t.id == args.task)
            .expect("found above");
        seeded = task.instances(args.instance_seed)?;
        seeded
            .iter()
            .find(|i| i.variant.id == args.variant)
            .expect("every instance has every variant")
    };
    let mut phone = SimPhone::new(inst.setup(args.episode_seed))?;
    match (&args.open, args.after) {
        (Some(intent), _) => phone.open(&Intent(intent.clone()))?,
        (None, Some(n)) => {
            play_reference(&mut phone, inst, n, &mut |_| Ok(())).map_err(|e| match e {
                CliError::BadInput(why) => CliError::BadInput(format!("--after {n}: {why}")),
                other => other,
            })?
        }
        (None, None) => phone.act(&DeviceAction::Launch {
            package: app.to_string(),
        })?,
    }
    let obs = phone.observe(args.png.is_some())?;
    if let (Some(path), Some(png)) = (&args.png, &obs.screenshot) {
        std::fs::write(path, png)
            .map_err(|e| CliError::io(format!("failed to write {}", path.display()), e))?;
    }
    out(&(obs.xml + "\n"))
}

/// `droidscore sim serve`: until killed.
fn serve(args: ServeArgs) -> Result<(), CliError> {
    let tasks = task::Suite::from_arg(args.suite.as_deref()).load()?;
    let phone = VirtualPhone::new(task::SuiteSetups(tasks))?;
    if let Some(task) = &args.task {
        phone.load(task, &args.variant, args.episode_seed)?;
    }
    let server = Server::bind(&args.listen)
        .map_err(|e| CliError::io(format!("failed to listen on {}", args.listen), e))?;
    let addr = server.local_addr();
    // Each connection holds descriptors: the usual soft limit of 1024 is too few.
    let open_files = droidscore_phone::adbd::raise_open_file_limit();
    tracing::debug!(?open_files, "virtual phone: descriptor limit");
    if (5555..=5585).contains(&addr.port()) {
        tracing::warn!(
            "port {} is in the adb server's emulator scan range (5555–5585): `adb devices` will also list it as emulator-{}; always pass -s",
            addr.port(),
            addr.port() - 1
        );
    }
    // The address on stdout, so a script can wait for it and read the port.
    println!("{addr}");
    eprintln!("virtual phone listening; `adb connect {addr}`");
    let faults = Faults {
        drop_after: args.drop_after,
        refuse_for: args.refuse_for.map(Duration::from_secs).unwrap_or_default(),
        stall_after: args.stall_after,
    };
    let served = if faults.any() {
        eprintln!("with faults: {faults:?}");
        droidscore_phone::adbd::faults::serve(server, Arc::new(phone), faults)
    } else {
        server.serve(Arc::new(phone))
    };
    served.map_err(|e| CliError::io(format!("virtual phone on {addr}"), e))
}
