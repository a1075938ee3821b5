//! What each subcommand does: load, call the library, print data on stdout.

use std::io::Write;

use super::{
    AgentKind, CheckArgs, Cli, CliError, Command, DumpArgs, ListArgs, RunArgs, SimCommand,
    SuiteArgs, TasksCommand, UiArgs,
};
use crate::agent::{Agent, Noop, Solver};
use crate::episode::{self, Episode};
use crate::phone::{DeviceAction, Intent, Phone};
use crate::sim::SimPhone;
use crate::task::{self, Instance, Task};
use crate::{check, report, uiautomator};

pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Tasks(TasksCommand::List(args)) => list(args),
        Command::Tasks(TasksCommand::Check(args)) => check(args),
        Command::Sim(SimCommand::Dump(args)) => dump(args),
        Command::Ui(args) => ui(args),
        Command::Run(args) => run_suite(args),
    }
}

fn out(text: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
        .map_err(|e| CliError::Io(format!("failed to write to stdout: {e}")))
}

fn json<T: serde::Serialize>(value: &T) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| CliError::Io(e.to_string()))?;
    out(&(text + "\n"))
}

fn load(suite: &SuiteArgs) -> Result<Vec<Task>, CliError> {
    let mut tasks = task::load_dir(&suite.suite)?;
    if let Some(glob) = &suite.tasks {
        let pattern = glob::Pattern::new(glob)
            .map_err(|e| CliError::BadInput(format!("--tasks {glob:?}: {e}")))?;
        tasks.retain(|t| pattern.matches(&t.id));
        if tasks.is_empty() {
            return Err(CliError::BadInput(format!(
                "--tasks {glob:?} matches no task in {}",
                suite.suite.display()
            )));
        }
    }
    Ok(tasks)
}

#[derive(serde::Serialize)]
struct TaskJson<'a> {
    id: &'a str,
    app: &'a str,
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
    let rows = check::check_tasks(&tasks);
    if args.json {
        json(&rows)?;
    } else {
        out(&report::check_table(&rows))?;
    }
    let bad = rows.iter().filter(|r| !r.ok()).count();
    if bad > 0 {
        return Err(CliError::SuiteFailed(format!(
            "tasks check: {bad} of {} task variants break the rules",
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
    let tasks = task::load_dir(&args.suite)?;
    let (app, inst) = instance(&tasks, &args.task, &args.variant)?;
    let mut phone =
        SimPhone::new(inst.sim_config(args.seed)).map_err(|e| CliError::BadInput(e.to_string()))?;
    match &args.open {
        Some(intent) => phone.open(&Intent(intent.clone()))?,
        None => phone.act(&DeviceAction::Launch {
            package: app.to_string(),
        })?,
    }
    let obs = phone.observe(args.png.is_some())?;
    if let (Some(path), Some(png)) = (&args.png, &obs.screenshot) {
        std::fs::write(path, png)
            .map_err(|e| CliError::Io(format!("failed to write {}: {e}", path.display())))?;
    }
    out(&(obs.xml + "\n"))
}

fn ui(args: UiArgs) -> Result<(), CliError> {
    let bytes = std::fs::read(&args.file)
        .map_err(|e| CliError::BadInput(format!("failed to read {}: {e}", args.file.display())))?;
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
        Err(e) => return Err(CliError::BadInput(format!("{}: {e}", args.file.display()))),
    };
    if args.json {
        json(&hierarchy)
    } else if args.xml {
        out(&(uiautomator::to_xml(&hierarchy) + "\n"))
    } else {
        out(&uiautomator::render(&uiautomator::elements(&hierarchy)))
    }
}

fn run_suite(args: RunArgs) -> Result<(), CliError> {
    let tasks = load(&args.suite)?;
    let instances =
        crate::run::select_variants(&tasks, &args.variants).map_err(CliError::BadInput)?;
    let mut episodes: Vec<Episode> = Vec::new();
    for inst in instances {
        let mut phone = SimPhone::new(inst.sim_config(args.seed))
            .map_err(|e| CliError::BadInput(e.to_string()))?;
        let mut agent: Box<dyn Agent> = match args.agent {
            AgentKind::Reference => Box::new(Solver::new(inst.solution.clone())),
            AgentKind::Noop => Box::new(Noop),
        };
        episodes.push(episode::run(&mut phone, agent.as_mut(), inst)?);
    }
    let name = match args.agent {
        AgentKind::Reference => "reference",
        AgentKind::Noop => "noop",
    };
    if args.json {
        json(&episodes)
    } else {
        out(&report::run_table(name, &episodes))
    }
}
