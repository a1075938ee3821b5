//! The host crate's one integration-test binary: the CLI as a user runs it
//! (deploying the model server to the virtual phone among it),
//! snapshots of every simulator screen, oracle verdicts over fixture states,
//! the LLM agent against a scripted OpenAI-compatible server, the HTML
//! report of such a run, and `droidscore bench` against fake probes.

mod adb_backend;
mod adb_cli;
mod bench;
mod bench_probes;
mod cli;
mod device_deploy;
mod html_report;
mod llm;
mod local_server;
mod runs;
mod screens;
mod scripted_server;
mod verdicts;

use std::path::PathBuf;

/// The repository root (the workspace holding `tasks/` and `fixtures/`).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("host/ has a parent")
        .to_path_buf()
}
