//! Oracle verdicts with their reasons over fixture states: each file in
//! `fixtures/states/` names a task and variant and the steps that bring the
//! simulator to a state; the snapshot is the verdict the oracle gives there.

use droidscore::agent::Solver;
use droidscore::episode;
use droidscore::task::{self, Step};
use droidscore_phone::sim::SimPhone;

use super::support::root;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct StateFixture {
    task: String,
    variant: String,
    /// What the state shows, in one line (kept in the snapshot).
    about: String,
    #[serde(default)]
    steps: Vec<Step>,
}

#[test]
fn oracle_verdicts_over_fixture_states() {
    let tasks = task::load_dir(&root().join("tasks")).unwrap();
    insta::glob!("../../../fixtures/states", "*.toml", |path| {
        let fixture: StateFixture =
            toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let task = tasks
            .iter()
            .find(|t| t.id == fixture.task)
            .unwrap_or_else(|| panic!("{}: no task {}", path.display(), fixture.task));
        let instance = task.variant(&fixture.variant).unwrap();
        let mut phone = SimPhone::new(instance.setup(0)).unwrap();
        let ep = episode::run(&mut phone, &mut Solver::new(fixture.steps), instance).unwrap();
        // Keys in name order whatever serde_json's map order (a workspace
        // build with mistral.rs turns on its `preserve_order`).
        insta::with_settings!({sort_maps => true}, {
            insta::assert_yaml_snapshot!(serde_json::json!({
                "about": fixture.about,
                "end": ep.end,
                "success": ep.success,
                "reason": ep.reason,
                "verdict": ep.verdict,
            }));
        });
    });
}
