//! `droidscore sim gallery --out DIR`: every task's screens along its
//! reference solution on the simulator — the app's first screen, then the
//! screen after each step — written as one HTML page per app, each screen
//! a screenshot beside the element list an agent reads, for a person to
//! compare what the PNG shows with what the XML says. Each PNG has its
//! uiautomator dump beside it (`png/NAME.xml`), for tools that read both
//! (an OCR legibility check, docs/rendering.md). With `--conditions`, each
//! device condition gets its own directory of pages under `--out`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;

use super::error::CliError;
use crate::agent::{Agent, Decision, Solver};
use crate::report::escape::escape;
use crate::task::{self, Instance};
use droidscore_phone::apps::SetupError;
use droidscore_phone::sim::SimPhone;
use droidscore_phone::uiautomator;
use droidscore_phone::{Condition, DeviceAction, Phone};

#[derive(Debug, Args)]
pub struct GalleryArgs {
    /// Directory to write index.html, one page per app and the PNGs into
    /// (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Directory of task files (default: the built-in suite).
    #[arg(long, value_name = "DIR")]
    pub suite: Option<PathBuf>,
    /// The episode seed every phone starts with (its clock).
    #[arg(long, default_value_t = 0)]
    pub episode_seed: u64,
    /// Device conditions to draw the screens in, comma-separated (`all`:
    /// every one), each into `--out`/CONDITION/. Without it: the phone as
    /// it comes, into `--out` itself.
    #[arg(long, value_name = "LIST")]
    pub conditions: Option<String>,
}

/// `--conditions`: `all`, or names from [`Condition::ALL`].
pub(super) fn parse_conditions(list: &str) -> Result<Vec<Condition>, CliError> {
    if list == "all" {
        return Ok(Condition::ALL.to_vec());
    }
    list.split(',')
        .map(|name| {
            name.trim()
                .parse()
                .map_err(|e| CliError::invalid(format!("--conditions {list:?}"), e))
        })
        .collect()
}

/// One screen: its PNG's file name and its element list.
struct Shot {
    png: String,
    elements: String,
    caption: String,
}

pub(super) fn gallery(args: GalleryArgs) -> Result<(), CliError> {
    let tasks = task::Suite::from_arg(args.suite.as_deref()).load()?;
    match &args.conditions {
        None => gallery_in(&tasks, Condition::Base, &args.out, args.episode_seed),
        Some(list) => {
            for condition in parse_conditions(list)? {
                let out = args.out.join(condition.to_string());
                gallery_in(&tasks, condition, &out, args.episode_seed)?;
            }
            Ok(())
        }
    }
}

/// The gallery of `tasks` in one condition, into `out`. A task whose own
/// initial state sets what the condition sets (dark theme under `dark`) is
/// left out of that condition and said so on stderr.
fn gallery_in(
    tasks: &[task::Task],
    condition: Condition,
    out: &Path,
    episode_seed: u64,
) -> Result<(), CliError> {
    let pngs = out.join("png");
    std::fs::create_dir_all(&pngs)
        .map_err(|e| CliError::io(format!("failed to create {}", pngs.display()), e))?;
    // App -> its tasks' screens, both in a stable order.
    let mut apps: BTreeMap<String, Vec<(String, Vec<Shot>)>> = BTreeMap::new();
    let mut skipped = Vec::new();
    for t in tasks {
        let Some(inst) = t.variants.first() else {
            continue;
        };
        let mut setup = inst.setup(episode_seed);
        setup.condition = condition;
        let phone = match SimPhone::new(setup) {
            Err(SetupError::ConditionConflict { .. }) => {
                skipped.push(t.id.as_str());
                continue;
            }
            other => other?,
        };
        let shots = task_shots(phone, inst, &pngs)?;
        apps.entry(t.app.clone())
            .or_default()
            .push((format!("{} ({})", t.id, inst.variant.id), shots));
    }
    let mut index = page_head("droidscore simulator gallery");
    index.push_str("<ul>\n");
    for (app, tasks) in &apps {
        let file = format!("{app}.html");
        let shots: usize = tasks.iter().map(|(_, s)| s.len()).sum();
        let _ = writeln!(
            index,
            "<li><a href=\"{}\">{}</a>: {} tasks, {shots} screens</li>",
            escape(&file),
            escape(app),
            tasks.len()
        );
        write(&out.join(&file), app_page(app, tasks))?;
    }
    index.push_str("</ul>\n</body>\n</html>\n");
    write(&out.join("index.html"), &index)?;
    eprintln!(
        "gallery ({condition}): {} apps, {} tasks in {}",
        apps.len(),
        tasks.len() - skipped.len(),
        out.display()
    );
    if !skipped.is_empty() {
        eprintln!(
            "gallery ({condition}): left out, their initial state sets what the condition does: {}",
            skipped.join(", ")
        );
    }
    Ok(())
}

/// The screens of `inst`'s reference solution: the launched app, then one per step.
fn task_shots(mut phone: SimPhone, inst: &Instance, pngs: &Path) -> Result<Vec<Shot>, CliError> {
    phone.act(&DeviceAction::Launch {
        package: inst.app.clone(),
    })?;
    let mut shots = Vec::new();
    let mut take = |phone: &mut SimPhone| -> Result<(), CliError> {
        let step = shots.len();
        let obs = phone.observe(true)?;
        let png = format!("{}-{}-{step:02}.png", inst.task, inst.variant.id);
        if let Some(bytes) = &obs.screenshot {
            write(&pngs.join(&png), bytes)?;
        }
        write(&pngs.join(&png).with_extension("xml"), &obs.xml)?;
        shots.push(Shot {
            png,
            elements: uiautomator::render(&uiautomator::elements(&obs.hierarchy)),
            caption: match step {
                0 => "start".to_string(),
                n => format!("after step {n}"),
            },
        });
        Ok(())
    };
    take(&mut phone)?;
    let n = inst.solution.len();
    play_reference(&mut phone, inst, n, &mut take).map_err(|e| match e {
        CliError::BadInput(why) => CliError::BadInput(format!("task {}: {why}", inst.task)),
        other => other,
    })?;
    Ok(shots)
}

fn app_page(app: &str, tasks: &[(String, Vec<Shot>)]) -> String {
    let mut html = page_head(app);
    let _ = writeln!(html, "<p><a href=\"index.html\">all apps</a></p>");
    for (name, shots) in tasks {
        let _ = writeln!(html, "<h2>{}</h2>\n<div class=\"row\">", escape(name));
        for shot in shots {
            let _ = writeln!(
                html,
                "<figure><img src=\"png/{}\" width=\"270\" alt=\"{}\"><figcaption>{}</figcaption><pre>{}</pre></figure>",
                escape(&shot.png),
                escape(&shot.caption),
                escape(&shot.caption),
                escape(&shot.elements)
            );
        }
        html.push_str("</div>\n");
    }
    html.push_str("</body>\n</html>\n");
    html
}

fn page_head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>{0}</title>\n<style>\
         body{{font-family:sans-serif}} .row{{display:flex;flex-wrap:wrap;gap:16px}} \
         figure{{margin:0;width:270px}} pre{{font-size:10px;white-space:pre-wrap}}\
         </style>\n</head>\n<body>\n<h1>{0}</h1>\n",
        escape(title)
    )
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), CliError> {
    std::fs::write(path, bytes)
        .map_err(|e| CliError::io(format!("failed to write {}", path.display()), e))
}

/// Play the first `n` steps of `inst`'s reference solution on `phone`,
/// calling `each` after every step (a scroll to find a target is not one).
pub(super) fn play_reference(
    phone: &mut SimPhone,
    inst: &Instance,
    n: usize,
    each: &mut dyn FnMut(&mut SimPhone) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let steps = inst.solution.iter().take(n).cloned().collect();
    let mut solver = Solver::new(steps);
    let mut played = 0;
    while played < n {
        let obs = phone.observe(false)?;
        match Agent::next(&mut solver, &inst.goal, &obs) {
            Decision::Act(a) => phone.act(&a)?,
            Decision::Open(i) => phone.open(&i)?,
            Decision::ActAll(all) => {
                for a in &all {
                    phone.act(a)?;
                }
            }
            Decision::Infeasible(why) => {
                return Err(CliError::BadInput(format!(
                    "the reference stopped at step {}: {why}",
                    played + 1
                )))
            }
            Decision::Complete | Decision::Finish(_) => break,
            _ => {}
        }
        if solver.at() > played {
            played = solver.at();
            each(phone)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gallery of the named task files of the suite, in `conditions`,
    /// written under a fresh test directory: the directory (kept while it
    /// lives) and where the gallery went.
    fn gallery_of(
        env: &str,
        files: &[&str],
        conditions: Option<&str>,
    ) -> (droidscore_testenv::TestEnv, PathBuf) {
        let env = droidscore_testenv::TestEnv::new(env);
        let suite = env.mkdir("suite");
        let tasks = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks");
        for name in files {
            std::fs::copy(tasks.join(name), suite.join(name)).unwrap();
        }
        let out = env.join("gallery");
        gallery(GalleryArgs {
            out: out.clone(),
            suite: Some(suite),
            episode_seed: 0,
            conditions: conditions.map(str::to_string),
        })
        .unwrap();
        (env, out)
    }

    #[test]
    fn a_page_per_app_shows_every_step_of_the_reference_with_its_elements() {
        let (_env, out) = gallery_of(
            "sim-gallery",
            &["airplane_off.toml", "alarm_add.toml"],
            None,
        );
        let index = std::fs::read_to_string(out.join("index.html")).unwrap();
        assert!(
            index.contains("href=\"com.android.settings.html\""),
            "{index}"
        );
        let page = std::fs::read_to_string(out.join("com.android.settings.html")).unwrap();
        assert!(page.contains("<h2>airplane_off (base)</h2>"), "{page}");
        assert!(page.contains("after step 1"), "{page}");
        assert!(page.contains("Airplane mode"), "the element list: {page}");
        let pngs: Vec<&str> = page
            .split("src=\"png/")
            .skip(1)
            .filter_map(|s| s.split('"').next())
            .collect();
        assert!(pngs.len() >= 2, "{pngs:?}");
        for png in pngs {
            let bytes = std::fs::read(out.join("png").join(png)).unwrap();
            assert_eq!(&bytes[1..4], b"PNG", "{png}");
            let xml = std::fs::read_to_string(out.join("png").join(png).with_extension("xml"));
            assert!(xml.unwrap().starts_with("<?xml"), "{png}'s dump");
        }
    }

    #[test]
    fn each_condition_gets_its_own_pages_and_a_conflicting_task_is_left_out() {
        let (_env, out) = gallery_of(
            "sim-gallery-conditions",
            &["airplane_off.toml", "dark_theme_off.toml"],
            Some("base,dark,small"),
        );
        let page = |c: &str| {
            std::fs::read_to_string(out.join(c).join("com.android.settings.html")).unwrap()
        };
        assert!(page("base").contains("dark_theme_off (base)"));
        assert!(page("small").contains("dark_theme_off (base)"));
        let dark = page("dark");
        assert!(
            dark.contains("airplane_off (base)") && !dark.contains("dark_theme_off"),
            "{dark}"
        );
        // The small phone's screens are its own size.
        let png = std::fs::read(out.join("small/png/airplane_off-base-00.png")).unwrap();
        assert_eq!(droidscore_phone::png_size(&png), Some((720, 1600)));
    }

    #[test]
    fn an_unknown_condition_is_refused_naming_the_flag_and_the_known_ones() {
        let err = parse_conditions("dark,sepia").unwrap_err().to_string();
        assert!(
            err.contains("--conditions") && err.contains("sepia") && err.contains("large"),
            "{err}"
        );
        assert_eq!(parse_conditions("all").unwrap(), Condition::ALL.to_vec());
    }
}
