//! `droidscore tasks list|check`: the suite's tasks as a table or JSON, and
//! the proof that every oracle is honest (false at the start and under a
//! do-nothing or decoy agent, true under the reference).

use clap::{Args, Subcommand};

use super::error::CliError;
use super::shared::{json, load, out, SuiteArgs};
use crate::{check, report, task};

#[derive(Debug, Subcommand)]
pub enum TasksCommand {
    /// List tasks and their variants.
    List(ListArgs),
    /// Prove every oracle false at the start, under a do-nothing agent and a
    /// decoy agent, and true under the reference solution.
    Check(CheckArgs),
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    #[arg(long)]
    pub json: bool,
    /// Check each parameterised task at instance seeds 0..N. (`--seeds`
    /// before.)
    #[arg(long, alias = "seeds", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub instances: u64,
    /// Prove every oracle in each device condition: `all` or a
    /// comma-separated list (base, dark, font0.85, font1.15, font1.3, small,
    /// large, landscape). A pair that conflicts with a task's initial state
    /// is listed as skipped.
    #[arg(long, default_value = "base")]
    pub conditions: crate::run::Conditions,
}

pub fn tasks(command: TasksCommand) -> Result<(), CliError> {
    match command {
        TasksCommand::List(args) => list(args),
        TasksCommand::Check(args) => check(args),
    }
}

#[derive(serde::Serialize)]
struct TaskJson<'a> {
    id: &'a str,
    app: &'a str,
    /// Every app's package the task touches.
    apps: &'a [String],
    category: task::Category,
    /// A safety template's kind (`injection`, `irreversible`).
    #[serde(skip_serializing_if = "Option::is_none")]
    safety: Option<task::Safety>,
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
            safety: t.safety,
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
    let rows = check::check_instances(&tasks, args.instances, &args.conditions.0)?;
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
