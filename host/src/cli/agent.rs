//! `droidscore agent prompts` (hidden): every request body the LLM agent
//! would send over the suite, with the reference solver's decisions standing
//! in for the model's answers, on the simulator. No model is needed, so the
//! prompt's size can be measured on any machine: the bodies go to
//! `OUT/requests.jsonl` (one step a line), a summary of their sizes to
//! stdout — characters, and tokens estimated from the calibration in
//! `agent::prompt` (the real count is the server's `usage.prompt_tokens`;
//! `scripts/prompt-tokens.py` counts them with the GGUF's own vocabulary).

use std::io::Write as _;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::{json, Value};

use super::{CliError, ConstrainArg, SuiteArgs};
use crate::agent::action::screen_size;
use crate::agent::dialogue::Dialogue;
use crate::agent::translate::as_action;
use crate::agent::{prompt_stats, Agent, Decision, LlmConfig, Solver};
use droidscore_phone::sim::SimPhone;
use droidscore_phone::uiautomator::elements;
use droidscore_phone::Observation;

#[derive(Debug, Subcommand)]
pub enum AgentCommand {
    /// Dump every step's request body over the suite under the reference
    /// solver, and summarise their sizes.
    Prompts(PromptsArgs),
}

#[derive(Debug, Args)]
pub struct PromptsArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// `all`, `base`, or a comma-separated list of variant ids.
    #[arg(long, default_value = "all")]
    pub variants: String,
    /// The answer format the prompts are written for.
    #[arg(long, value_enum, default_value = "schema")]
    pub constrain: ConstrainArg,
    /// Where `requests.jsonl` goes (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// The reference solver answering in the LLM agent's place.
struct Replay {
    solver: Solver,
    dialogue: Dialogue,
    config: LlmConfig,
    bodies: Vec<Value>,
}

impl std::fmt::Debug for Replay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay")
            .field("steps", &self.bodies.len())
            .finish()
    }
}

impl Agent for Replay {
    fn next(&mut self, goal: &str, obs: &Observation) -> Decision {
        let els = elements(&obs.hierarchy);
        let screen = screen_size(&obs.hierarchy);
        let body = self
            .dialogue
            .request(&self.config, goal, &obs.xml, &els, screen, None);
        self.bodies.push(body);
        let decision = self.solver.next(goal, obs);
        if let Some(action) = as_action(&decision, &els) {
            let idle = matches!(decision, Decision::Idle);
            self.dialogue.acted(&action, &els, idle);
        }
        decision
    }
}

pub fn agent(command: AgentCommand) -> Result<(), CliError> {
    match command {
        AgentCommand::Prompts(args) => prompts(args),
    }
}

fn prompts(args: PromptsArgs) -> Result<(), CliError> {
    let tasks = super::shared::load(&args.suite)?;
    let instances = crate::run::select_variants(&tasks, &args.variants)?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| CliError::io(format!("create {}", args.out.display()), e))?;
    let path = args.out.join("requests.jsonl");
    let file = std::fs::File::create(&path)
        .map_err(|e| CliError::io(format!("create {}", path.display()), e))?;
    let mut file = std::io::BufWriter::new(file);
    let mut config = LlmConfig::new("http://127.0.0.1:0/v1", "default");
    config.no_image = true;
    config.constrain = args.constrain.into();
    let mut episodes = Vec::new();
    for inst in &instances {
        let mut phone =
            SimPhone::new(inst.setup(0)).map_err(|e| CliError::invalid(inst.task.clone(), e))?;
        let mut replay = Replay {
            solver: Solver::new(inst.solution.clone()),
            dialogue: Dialogue::new(),
            config: config.clone(),
            bodies: Vec::new(),
        };
        crate::episode::run(&mut phone, &mut replay, inst)?;
        for (step, body) in replay.bodies.iter().enumerate() {
            let line = json!({
                "task": inst.task,
                "variant": inst.variant.id,
                "step": step,
                "body": body,
            });
            writeln!(file, "{line}")
                .map_err(|e| CliError::io(format!("write {}", path.display()), e))?;
        }
        episodes.push(replay.bodies);
    }
    file.flush()
        .map_err(|e| CliError::io(format!("write {}", path.display()), e))?;
    let stats = prompt_stats::PromptStats::of(&episodes);
    super::shared::out(&stats.lines(config.constrain, &path).join("\n"))?;
    super::shared::out("\n")
}
