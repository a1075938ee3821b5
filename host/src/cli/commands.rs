//! What each subcommand does: load, call the library, print data on stdout.

use super::error::Kept;
use super::shared::{json, load, out, ConstrainArg};
use super::{
    AgentKind, CheckArgs, Cli, CliError, Command, DumpArgs, ListArgs, PhoneKind, ReportArgs,
    RunArgs, SimCommand, TasksCommand, UiArgs,
};
use crate::agent::local::LocalServer;
use crate::agent::on_device::OnDevice;
use crate::agent::{Agent, LlmAgent, LlmConfig, Noop, RandomAgent, Solver};

use crate::run::backend::{AdbBackend, Backend, ServingBackend, SimBackend};
use crate::store::{EpisodeKey, RunRecord, Store};
use crate::task::{self, Instance, Task};
use crate::{check, report};
use droidscore_phone::apps::SetupError;
use droidscore_phone::sim::SimPhone;
use droidscore_phone::uiautomator;
use droidscore_phone::{DeviceAction, Intent, Phone};
use std::collections::BTreeSet;

pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Tasks(TasksCommand::List(args)) => list(args),
        Command::Tasks(TasksCommand::Check(args)) => check(args),
        Command::Sim(SimCommand::Dump(args)) => dump(args),
        Command::Sim(SimCommand::Serve(args)) => super::adb::serve(args),
        Command::Adb(super::AdbCommand::Latency(args)) => super::adb::latency(args),
        Command::Device(super::DeviceCommand::Deploy(args)) => super::device::deploy(args),
        Command::Device(super::DeviceCommand::Stop(args)) => super::device::stop(args),
        Command::Ui(args) => ui(args),
        Command::Run(args) => run_suite(*args),
        Command::Report(args) => report_cmd(args),
        Command::Bench(command) => super::bench::bench(command),
        Command::Agent(command) => super::agent::agent(command),
    }
}

#[derive(serde::Serialize)]
struct TaskJson<'a> {
    id: &'a str,
    app: &'a str,
    /// Every app's package the task touches.
    apps: &'a [String],
    category: task::Category,
    /// Its params' names; `templated` when some are drawn from a seed.
    params: &'a [String],
    templated: bool,
    path: String,
    tags: &'a [String],
    needs_flip_history: bool,
    needs_app_data: bool,
    variants: Vec<VariantJson<'a>>,
}

#[derive(serde::Serialize)]
struct VariantJson<'a> {
    id: &'a str,
    goal: &'a str,
    done: task::Done,
    max_steps: u32,
    checks: Vec<String>,
}

fn list(args: ListArgs) -> Result<(), CliError> {
    let tasks = load(&args.suite)?;
    if !args.json {
        return out(&report::task_list(&tasks));
    }
    let items: Vec<TaskJson> = tasks
        .iter()
        .map(|t| TaskJson {
            id: &t.id,
            app: &t.app,
            apps: &t.apps,
            category: t.category(),
            params: &t.params,
            templated: t.templated,
            path: t.path.display().to_string(),
            tags: &t.tags,
            needs_flip_history: t.variants.iter().any(|v| v.oracle.needs_flip_history()),
            needs_app_data: t.variants.iter().any(|v| v.oracle.needs_app_data()),
            variants: t
                .variants
                .iter()
                .map(|v| VariantJson {
                    id: &v.variant.id,
                    goal: &v.goal,
                    done: v.done,
                    max_steps: v.max_steps,
                    checks: v.oracle.predicates.iter().map(|p| p.describe()).collect(),
                })
                .collect(),
        })
        .collect();
    json(&items)
}

fn check(args: CheckArgs) -> Result<(), CliError> {
    let tasks = load(&args.suite)?;
    let rows = check::check_tasks_seeds(&tasks, args.seeds)?;
    if args.json {
        json(&rows)?;
    } else {
        out(&report::check_table(&rows))?;
    }
    let bad = rows.iter().filter(|r| !r.ok()).count();
    if bad > 0 {
        return Err(CliError::SuiteFailed(format!(
            "tasks check: {bad} of {} task instances break the rules",
            rows.len()
        )));
    }
    Ok(())
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
    let inst = if args.instance == 0 {
        inst
    } else {
        let task = tasks
            .iter()
            .find(|t| t.id == args.task)
            .expect("found above");
        seeded = task.instances(args.instance)?;
        seeded
            .iter()
            .find(|i| i.variant.id == args.variant)
            .expect("every instance has every variant")
    };
    let mut phone = SimPhone::new(inst.setup(args.seed))?;
    match (&args.open, args.after) {
        (Some(intent), _) => phone.open(&Intent(intent.clone()))?,
        (None, Some(n)) => {
            let steps = inst.solution.iter().take(n).cloned().collect();
            let mut solver = crate::agent::Solver::new(steps);
            let mut played = 0;
            while played < n {
                let obs = phone.observe(false)?;
                match crate::agent::Agent::next(&mut solver, &inst.goal, &obs) {
                    crate::agent::Decision::Act(a) => phone.act(&a)?,
                    crate::agent::Decision::Open(i) => phone.open(&i)?,
                    crate::agent::Decision::ActAll(all) => {
                        for a in &all {
                            phone.act(a)?;
                        }
                    }
                    crate::agent::Decision::Infeasible(why) => {
                        return Err(CliError::BadInput(format!(
                            "--after {n}: the reference stopped at step {}: {why}",
                            played + 1
                        )))
                    }
                    crate::agent::Decision::Complete | crate::agent::Decision::Finish(_) => break,
                    _ => {}
                }
                // A scroll to find a target is not a step of the solution.
                if solver.at() > played {
                    played = solver.at();
                }
            }
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

fn ui(args: UiArgs) -> Result<(), CliError> {
    let bytes = std::fs::read(&args.file)
        .map_err(|e| CliError::invalid(format!("failed to read {}", args.file.display()), e))?;
    let hierarchy = match uiautomator::parse(&bytes) {
        Ok(uiautomator::Dump::Hierarchy { hierarchy, .. }) => hierarchy,
        Ok(uiautomator::Dump::DumpedTo(path)) => {
            return Err(CliError::BadInput(format!(
                "{}: holds only \"dumped to {path}\": read that file from the phone",
                args.file.display()
            )))
        }
        Ok(uiautomator::Dump::Failed(failure)) => {
            return Err(CliError::BadInput(format!(
                "{}: the phone's dump failed: {failure:?}",
                args.file.display()
            )))
        }
        Err(e) => return Err(CliError::invalid(args.file.display().to_string(), e)),
    };
    if args.json {
        json(&hierarchy)
    } else if args.xml {
        out(&(uiautomator::to_xml(&hierarchy) + "\n"))
    } else {
        out(&uiautomator::render(&uiautomator::elements(&hierarchy)))
    }
}

/// The settings a run's results depend on; `--resume` must match them.
fn run_config(args: &RunArgs, agent: AgentKind) -> serde_json::Value {
    let mut config = serde_json::json!({
        "agent": format!("{agent:?}").to_lowercase(),
        "base_url": args.base_url,
        "model": args.model,
        "temperature": args.temperature,
        "no_image": args.no_image,
        "max_steps": args.max_steps,
        "phone": format!("{:?}", args.phone).to_lowercase(),
        "serial": args.device.serial,
        "suite": args.suite.source().to_string(),
        "tasks": args.suite.tasks,
        "variants": args.variants,
        "repeat": args.repeat,
        "seeds": args.seeds,
        "seed": args.seed,
        "shard": args.shard.map(|s| s.to_string()),
    });
    // Only when given, so runs recorded before these flags still resume.
    if let Some(model) = &args.device_model {
        config["device_model"] = model.as_str().into();
    }
    if let Some(weights) = args.device_weights {
        config["device_weights"] = weights.name().into();
    }
    config
}

/// What an endpoint's `/health` answers (beside `/v1`), when it has one:
/// `droidscore-device` reports its model and weights there; other servers
/// may have no such route, which is no error.
fn endpoint_health(
    runtime: &tokio::runtime::Runtime,
    base_url: &str,
    ca_cert: Option<&std::path::Path>,
) -> Option<serde_json::Value> {
    let root = base_url.trim_end_matches('/').trim_end_matches("/v1");
    let url = format!("{root}/health");
    match runtime.block_on(crate::agent::http_client::get_json(
        &url,
        ca_cert,
        std::time::Duration::from_secs(5),
    )) {
        Ok(health) => Some(health),
        Err(why) => {
            tracing::debug!(%why, "no /health from the endpoint");
            None
        }
    }
}

/// `--device-model` with `--on-device`: the GGUF file to push (a known
/// name is its file in the host's cache; see `on_device::model_file`).
fn on_device_model(asked: Option<&str>) -> Result<std::path::PathBuf, CliError> {
    crate::agent::on_device::model_file(asked, &crate::agent::on_device::cache_dir())
        .map_err(|e| CliError::BadInput(e.to_string()))
}

/// Keys of a run's config that `--resume` may change: the suite is compared
/// by its hash instead, and how long to wait for a phone changes when a run
/// ends, not what it scores (a run stopped by a lost phone may well be
/// resumed with a longer wait); so do how long to wait on an HTTP 429
/// (`--rate-limit-wait`) and which CA to trust (`--ca-cert`), neither of
/// which changes a verdict. The record keeps the values it started with.
const NOT_COMPARED: &[&str] = &[
    "suite",
    "phone_timeout_s",
    "device_wait_s",
    "rate_limit_wait_s",
    "ca_cert",
];

/// A key of a recorded run's config, or for a key added to the config since
/// (`--agent-format`, the token budget), what a run recorded before it had.
fn recorded(config: &serde_json::Value, key: &str) -> Option<serde_json::Value> {
    config.get(key).cloned().or_else(|| match key {
        "agent_format" => Some(crate::agent::AgentFormat::AndroidWorld.name().into()),
        "max_tokens" => Some(LlmConfig::new("", "").max_tokens.into()),
        _ => None,
    })
}

/// Start a new run in the store, or pick up the one `--resume` names.
fn start_run(
    store: &Store,
    args: &RunArgs,
    config: &serde_json::Value,
    endpoint: Option<(&LlmConfig, Option<serde_json::Value>)>,
) -> Result<(String, BTreeSet<EpisodeKey>), CliError> {
    if let Some(id) = &args.resume {
        let run = store.run(id)?.ok_or_else(|| {
            CliError::BadInput(format!(
                "--resume {id:?}: no such run in {}",
                store.path().display()
            ))
        })?;
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
            return Err(CliError::BadInput(format!(
                "--resume {id:?}: the run was started differently: {}",
                differs.join("; ")
            )));
        }
        let hash = args.suite.source().hash().map_err(CliError::SuiteHash)?;
        if hash != run.provenance.suite_hash {
            return Err(CliError::BadInput(format!(
                "--resume {id:?}: the task suite changed since the run started (suite hash differs; \
                 the run read {}, this is {}; `--suite DIR` picks another)",
                run.config.get("suite").unwrap_or(&serde_json::Value::Null),
                args.suite.source()
            )));
        }
        return Ok((id.clone(), store.finished(id)?));
    }
    let id = args.run_id.clone().unwrap_or_else(|| {
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
        crate::run::provenance(&args.suite.source(), None, None).map_err(CliError::SuiteHash)?;
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

fn progress_bar(len: usize) -> indicatif::ProgressBar {
    // indicatif draws nothing when stderr is not a terminal, so pipes stay clean.
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(len as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} episodes {elapsed} {msg}")
    {
        bar.set_style(style);
    }
    bar
}

fn agent_kind(args: &RunArgs) -> Result<AgentKind, CliError> {
    match (args.agent, &args.base_url) {
        (Some(kind), Some(_)) if kind != AgentKind::Llm => Err(CliError::BadInput(format!(
            "--base-url is for --agent llm, not --agent {}",
            format!("{kind:?}").to_lowercase()
        ))),
        (Some(kind), _) => Ok(kind),
        (None, _) => Ok(AgentKind::Llm),
    }
}

/// The model server a run uses when no `--base-url` is given: started on
/// this machine for the run, or deployed to the phone (`--on-device`).
enum Served {
    Local(LocalServer),
    OnDevice(OnDevice),
}

impl Served {
    fn base_url(&self) -> &str {
        match self {
            Served::Local(s) => &s.base_url,
            Served::OnDevice(s) => &s.base_url,
        }
    }

    fn model(&self) -> &str {
        match self {
            Served::Local(s) => &s.model,
            Served::OnDevice(s) => &s.model,
        }
    }

    fn text_only(&self) -> bool {
        match self {
            Served::Local(s) => s.text_only(),
            Served::OnDevice(s) => s.text_only(),
        }
    }

    fn health(&self) -> &droidscore_contract::health::Health {
        match self {
            Served::Local(s) => &s.health,
            Served::OnDevice(s) => &s.health,
        }
    }

    /// Into the run's config: where the model ran (`base_url`, the port
    /// left out) and the server's settings.
    fn record(&self, config: &mut serde_json::Value) {
        let (place, key, settings) = match self {
            Served::Local(s) => ("local", "local_server", s.config()),
            Served::OnDevice(s) => ("on-device", "device_server", s.config()),
        };
        config["base_url"] = place.into();
        config["model"] = self.model().into();
        config[key] = settings;
    }
}

/// `--constrain`, else `schema` for a server droidscore started (it decodes
/// under the schema) and `off` for any other endpoint.
/// A vision `--agent-format` answers in its own grammar, never under the
/// AndroidWorld schema.
fn constrain(args: &RunArgs, served: bool) -> crate::agent::Constrain {
    match (args.constrain, served) {
        (Some(c), _) => c.into(),
        (None, _) if args.agent_format.is_vision() => crate::agent::Constrain::Off,
        (None, true) => crate::agent::Constrain::Schema,
        (None, false) => crate::agent::Constrain::Off,
    }
}

/// A vision `--agent-format` refused where it cannot work: without the
/// screenshot it reads, or under the AndroidWorld schema.
fn check_agent_format(args: &RunArgs, served: Option<&Served>) -> Result<(), CliError> {
    let format = args.agent_format;
    if !format.is_vision() {
        return Ok(());
    }
    let why = if args.no_image {
        Some("reads the screenshot alone: drop --no-image")
    } else if served.is_some_and(Served::text_only) {
        Some("reads the screenshot, and the server's model is text only: give --base-url of a vision model")
    } else if args.constrain == Some(ConstrainArg::Schema) {
        Some("answers in its own grammar, not AndroidWorld's schema: drop --constrain schema")
    } else {
        None
    };
    match why {
        Some(why) => Err(CliError::BadInput(format!("--agent-format {format} {why}"))),
        None => Ok(()),
    }
}

fn llm_config(args: &RunArgs, served: Option<&Served>) -> Result<LlmConfig, CliError> {
    let mut config = match (&args.base_url, &args.model, served) {
        (Some(url), Some(model), _) => LlmConfig::new(url.clone(), model.clone()),
        (Some(_), None, _) => {
            return Err(CliError::BadInput(
                "--base-url needs --model, the name the endpoint serves".into(),
            ))
        }
        (None, _, Some(server)) => {
            LlmConfig::new(server.base_url().to_string(), server.model().to_string())
        }
        (None, _, None) => return Err(CliError::BadInput("no model endpoint".into())),
    };
    config.api_key_env = args.api_key_env.clone();
    config.temperature = args.temperature;
    config.seed = args.seed;
    config.no_image = args.no_image || served.is_some_and(Served::text_only);
    config.timeout = std::time::Duration::from_secs(args.request_timeout);
    config.constrain = constrain(args, served.is_some());
    config.ca_cert = args.ca_cert.clone();
    config.rate_limit_wait = std::time::Duration::from_secs(args.rate_limit_wait);
    check_agent_format(args, served)?;
    Ok(config.with_format(args.agent_format))
}

/// `--shard`, else the one a Kubernetes Indexed Job's or a Slurm array's
/// variables name (said on stderr), else none.
fn shard(args: &RunArgs) -> Result<Option<crate::run::Shard>, CliError> {
    if args.shard.is_some() {
        return Ok(args.shard);
    }
    let found = crate::run::shard_from_env(|name| std::env::var(name).ok(), args.shard_count)
        .map_err(|e| CliError::BadInput(format!("--shard from the environment: {e}")))?;
    Ok(found.map(|(shard, source)| {
        eprintln!("shard {shard} from {source}");
        shard
    }))
}

fn run_suite(args: RunArgs) -> Result<(), CliError> {
    // Recorded and planned as if given as --shard.
    let args = RunArgs {
        shard: shard(&args)?,
        ..args
    };
    let tasks = load(&args.suite)?;
    let selected = crate::run::select_variants(&tasks, &args.variants)?;
    let mut owned = crate::run::with_seeds(&tasks, &selected, args.seeds)?;
    if let Some(n) = args.max_steps {
        owned.iter_mut().for_each(|v| v.max_steps = n);
    }
    let instances: Vec<&Instance> = owned.iter().collect();
    let kind = agent_kind(&args)?;
    // The store before anything slow or stateful (a model server, a phone):
    // one on a read-only or full file system is refused before any episode.
    let store = Store::open(&args.store)?;
    store.check_room()?;
    // The model's client runs on this runtime; episodes run on their own
    // threads and block on it, so phone calls never stall the runtime.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::io("failed to start the async runtime", e))?;
    if args.on_device && (kind != AgentKind::Llm || args.phone != PhoneKind::Adb) {
        return Err(CliError::BadInput(
            "--on-device runs the model on the adb phone: it needs --phone adb and --agent llm"
                .into(),
        ));
    }
    // No --base-url: the device server on the phone (--on-device), or on
    // this machine for the whole run.
    // What was deployed, kept to start the server again if it dies mid-run.
    let mut deployed = None;
    let local = match (kind, &args.base_url) {
        (AgentKind::Llm, None) if args.on_device => {
            let options = crate::agent::on_device::DeployOptions {
                binary: args
                    .device_bin
                    .clone()
                    .unwrap_or_else(|| crate::agent::on_device::DEFAULT_BINARY.into()),
                model: on_device_model(args.device_model.as_deref())?,
                port: args.device_port,
                threads: args.device_threads,
                weights: args.device_weights.map(|w| w.name().to_string()),
                wait: std::time::Duration::from_secs(600),
            };
            let mut phone = super::device::one_phone(args.device.serial.clone())?;
            let server = super::device::deploy_to(&mut phone, &options, runtime.handle(), true)?;
            deployed = Some(crate::agent::on_device::Keeper::new(
                &server,
                options,
                runtime.handle().clone(),
            ));
            eprintln!(
                "the server stays on the phone after the run (`droidscore device stop` ends it){}",
                if server.text_only() {
                    "; text only: no screenshots are sent"
                } else {
                    ""
                }
            );
            Some(Served::OnDevice(server))
        }
        (AgentKind::Llm, None) => {
            let options = crate::agent::local::LocalOptions {
                binary: args.device_bin.clone(),
                model: args.device_model.clone(),
                weights: args.device_weights.map(|w| w.name().to_string()),
                threads: args.device_threads,
            };
            eprintln!("no --base-url: starting droidscore-device serve on this machine");
            let server = LocalServer::start(
                &options,
                runtime.handle(),
                std::time::Duration::from_secs(900),
            )?;
            eprintln!(
                "model {} at {}{}",
                server.model,
                server.base_url,
                if server.text_only() {
                    " (text only: no screenshots are sent)"
                } else {
                    ""
                }
            );
            Some(Served::Local(server))
        }
        _ => None,
    };
    let llm = match kind {
        AgentKind::Llm => {
            let config = llm_config(&args, local.as_ref())?;
            // Refuse a bad endpoint or missing key before any episode starts.
            LlmAgent::new(config.clone(), runtime.handle().clone()).map_err(CliError::Llm)?;
            Some(config)
        }
        _ => None,
    };
    // Phones before the run is recorded: a missing phone creates no run, and
    // the run's config names each phone it ran on.
    let adb_phones = match args.phone {
        PhoneKind::Sim => None,
        PhoneKind::Adb => {
            let mut phones = super::adb::phones(&args.device)?;
            if args.jobs > 1 {
                tracing::warn!(
                    "--jobs {} ignored: adb runs one episode stream per phone ({} here)",
                    args.jobs,
                    phones.len()
                );
            }
            let described: Vec<serde_json::Value> =
                phones.iter_mut().map(|p| p.describe()).collect();
            Some((phones, described))
        }
    };
    let mut config = run_config(&args, kind);
    if let Some(server) = &local {
        server.record(&mut config);
        config["no_image"] = (args.no_image || server.text_only()).into();
    }
    if let Some(llm) = &llm {
        config["constrain"] = llm.constrain.name().into();
        config["agent_format"] = llm.format.name().into();
        config["max_tokens"] = llm.max_tokens.into();
        // How long to wait on a 429 and which CA to trust change no verdict
        // (NOT_COMPARED); recorded for the reader.
        config["rate_limit_wait_s"] = args.rate_limit_wait.into();
        if let Some(path) = &args.ca_cert {
            config["ca_cert"] = path.display().to_string().into();
        }
    }
    if let Some((_, described)) = &adb_phones {
        config["devices"] = serde_json::Value::Array(described.clone());
        config["phone_timeout_s"] = args.device.phone_timeout.into();
        config["device_wait_s"] = args.device.device_wait.into();
    }
    let endpoint = llm.as_ref().map(|llm| {
        let health = match &local {
            Some(server) => serde_json::to_value(server.health()).ok(),
            None => endpoint_health(&runtime, &llm.base_url, llm.ca_cert.as_deref()),
        };
        (llm, health)
    });
    let (run_id, finished) = start_run(&store, &args, &config, endpoint)?;
    let planned = crate::run::plan(&instances, args.repeat, args.seed, args.shard, &finished);
    let handle = runtime.handle().clone();
    let factory = move |inst: &Instance, seed: u64| -> Result<Box<dyn Agent + Send>, String> {
        Ok(match kind {
            AgentKind::Reference => Box::new(Solver::new(inst.solution.clone())),
            AgentKind::Noop => Box::new(Noop),
            AgentKind::Random => Box::new(RandomAgent::new(seed)),
            AgentKind::Llm => {
                let mut config = llm.clone().ok_or("no model configured")?;
                config.seed = seed;
                Box::new(LlmAgent::new(config, handle.clone()).map_err(|e| e.to_string())?)
            }
        })
    };
    let bar = progress_bar(planned.len());
    // One backend per worker: a simulator per job, or each adb phone.
    let backends: Vec<Box<dyn Backend>> = match adb_phones {
        None => (0..args.jobs.max(1))
            .map(|_| Ok(Box::new(SimBackend::new()?) as Box<dyn Backend>))
            .collect::<Result<_, SetupError>>()?,
        Some((phones, _)) => {
            let device_wait = super::adb::device_wait(&args.device);
            phones
                .into_iter()
                .map(|phone| {
                    let inner = AdbBackend { phone, device_wait };
                    match deployed.take() {
                        // --on-device: one phone, the one the server is on.
                        Some(server) => {
                            Box::new(ServingBackend { inner, server }) as Box<dyn Backend>
                        }
                        None => Box::new(inner) as Box<dyn Backend>,
                    }
                })
                .collect()
        }
    };
    // Episodes to be done in all (with those a resumed run had already).
    let total = finished.len() + planned.len();
    let interrupt = super::signals::interrupt_on_signals();
    let result = crate::run::execute(
        &store, &run_id, planned, backends, &factory, &bar, &interrupt,
    );
    bar.finish_and_clear();
    // What the run holds now, for the message of a run that stopped early.
    let kept = || Kept {
        run_id: run_id.clone(),
        store: args.store.clone(),
        finished: store.finished(&run_id).map(|f| f.len()).ok(),
        total,
    };
    result.map_err(|e| match e {
        crate::run::RunError::Interrupted { signal } => CliError::Interrupted {
            signal,
            kept: kept(),
        },
        crate::run::RunError::Store(source) => CliError::StoreFailed {
            kept: kept(),
            source: Box::new(source),
        },
        crate::run::RunError::PhoneGone(_) => CliError::PhoneGone {
            run_id: run_id.clone(),
            source: Box::new(e),
        },
        crate::run::RunError::Fatal(_) => CliError::EndpointRefused {
            run_id: run_id.clone(),
            source: Box::new(e),
        },
        other => CliError::Run(Box::new(other)),
    })?;
    let episodes = store.episodes(&run_id)?;
    if args.json {
        json(&episodes)?;
    } else {
        let name = format!("{kind:?}").to_lowercase();
        out(&report::run_table(&name, &run_id, &args.store, &episodes))?;
    }
    nothing_scored(&run_id, &episodes)
}

/// A run that scored no episode is no result, not 0 %: its own exit code,
/// and why in words (every episode an infrastructure failure or skipped, or
/// a selection that holds none).
fn nothing_scored(run_id: &str, episodes: &[crate::store::EpisodeRecord]) -> Result<(), CliError> {
    use crate::store::EpisodeStatus::{Failure, Infra, Skipped, Success};
    let count = |s| episodes.iter().filter(|e| e.status == s).count();
    if episodes.is_empty() {
        return Err(CliError::NothingScored(format!(
            "run {run_id}: no episode could be scored: the run holds none \
             (--tasks, --variants and --shard selected no episode)"
        )));
    }
    if count(Success) + count(Failure) > 0 {
        return Ok(());
    }
    Err(CliError::NothingScored(format!(
        "run {run_id}: no episode could be scored: {} infrastructure failures, {} skipped, \
         of {} (each episode's reason says why)",
        count(Infra),
        count(Skipped),
        episodes.len()
    )))
}

fn report_cmd(args: ReportArgs) -> Result<(), CliError> {
    let store = Store::open(&args.store)?;
    if !args.merge.is_empty() {
        let sources = crate::store::expand_sources(&args.merge, &args.store)
            .map_err(|e| CliError::BadInput(e.to_string()))?;
        let merged = crate::store::merge(&store, &sources)?;
        eprintln!(
            "merged {} store(s) into {}: {} episodes added, {} already there; {} runs new, {} joined",
            sources.len(),
            args.store.display(),
            merged.episodes_added,
            merged.episodes_already_present,
            merged.runs_added,
            merged.runs_joined,
        );
    }
    let pick = |id: Option<&String>| -> Result<String, CliError> {
        match id {
            Some(id) => store.run(id)?.map(|r| r.id).ok_or_else(|| {
                CliError::BadInput(format!("no run {id:?} in {}", args.store.display()))
            }),
            None => store.latest_run()?.map(|r| r.id).ok_or_else(|| {
                CliError::BadInput(format!("{} holds no runs", args.store.display()))
            }),
        }
    };
    let a = pick(args.run.as_ref())?;
    let summary_of = |id: &str| -> Result<crate::report::summary::Summary, CliError> {
        let mut summary = crate::report::summary::summarize(id, &store.episodes(id)?)
            .with_usage(&store.step_usage(id)?);
        if let Some(run) = store.run(id)? {
            summary = summary.with_run(&run);
        }
        Ok(summary)
    };
    let sa = summary_of(&a)?;
    let html = args.format == crate::report::format::Format::Html;
    if html && args.other.is_some() {
        return Err(CliError::BadInput(
            "--format html reports one run; compare two runs as table, md or json".into(),
        ));
    }
    match &args.other {
        None if html => {
            let mut views = Vec::new();
            for episode in store.episodes(&a)? {
                let steps = store.steps(&a, &episode.task, &episode.variant, episode.repeat)?;
                views.push(crate::report::trajectory::EpisodeView { episode, steps });
            }
            let path = args
                .out
                .clone()
                .unwrap_or_else(|| std::path::PathBuf::from(format!("droidscore-report-{a}.html")));
            std::fs::write(&path, crate::report::html::page(&sa, &views))
                .map_err(|e| CliError::io(format!("write {}", path.display()), e))?;
            out(&format!("{}\n", path.display()))
        }
        None => out(&crate::report::format::summary(&sa, args.format)),
        Some(other) => {
            let sb = summary_of(&pick(Some(other))?)?;
            let rows = crate::report::summary::compare(&sa, &sb);
            out(&crate::report::format::comparison(
                &sa,
                &sb,
                &rows,
                args.format,
            ))
        }
    }
}
