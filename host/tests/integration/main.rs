//! The host crate's one integration-test binary: the CLI as a user runs it,
//! snapshots of every simulator screen, and oracle verdicts over fixture states.

mod cli;
mod screens;
mod verdicts;

use std::path::PathBuf;

/// The repository root (the workspace holding `tasks/` and `fixtures/`).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("host/ has a parent")
        .to_path_buf()
}
