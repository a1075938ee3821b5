//! The records every simulated phone holds before a task adds its own
//! (`fixtures/sim/world.toml`): an address book, message threads, calls,
//! calendar events and files, so a list is never suspiciously short and a
//! task's target sits among others. Task parameters are drawn from pools
//! that avoid these names (see `task::draw`).

use std::sync::OnceLock;

use crate::records::InitialRecord;

const WORLD_TOML: &str = include_str!("../../../../fixtures/sim/world.toml");

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct World {
    #[serde(default)]
    records: Vec<InitialRecord>,
}

/// The world's records, in file order. A broken fixture fails a test
/// (`apps::setup`), not a user's run.
pub fn records() -> &'static [InitialRecord] {
    static WORLD: OnceLock<Vec<InitialRecord>> = OnceLock::new();
    WORLD.get_or_init(|| match toml::from_str::<World>(WORLD_TOML) {
        Ok(world) => world.records,
        Err(e) => panic!("fixtures/sim/world.toml is invalid: {e}"),
    })
}
