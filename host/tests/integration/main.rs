//! The host crate's one integration-test binary: the CLI as a user runs it,
//! snapshots of every simulator screen, oracle verdicts over fixture states,
//! the LLM agent against a scripted OpenAI-compatible server (in
//! AndroidWorld's format and in each model's own, `formats`), the HTML
//! report of such a run, `droidscore bench` against fake probes, the run
//! store under signals and read-only or full file systems, and (under
//! `adb/`) everything that needs the real `adb`. Every test builds on
//! `support`: a hermetic temp dir and a command builder for the binary that
//! shows what it ran when an expectation fails.

mod adb;
mod adb_backend;
mod appdb;
mod bench;
mod bench_probes;
mod cli;
mod formats;
mod html_report;
mod llm;
mod local_server;
mod offline;
mod rate_limit;
mod runs;
mod screens;
mod scripted_server;
mod shards;
mod stats;
mod store_faults;
mod support;
mod tls;
mod verdicts;

/// Every `.rs` file beside this one (and under `adb/`) is declared, so none
/// sits in the folder compiled by nothing (jj's `test_no_forgotten_test_files`).
#[test]
fn no_test_file_is_forgotten() {
    let here = support::root().join("host/tests/integration");
    for (dir, declared_in) in [("", "main.rs"), ("adb", "adb/mod.rs")] {
        let declared = std::fs::read_to_string(here.join(declared_in)).unwrap();
        for entry in std::fs::read_dir(here.join(dir)).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let Some(module) = name.strip_suffix(".rs") else {
                continue;
            };
            if module == "main" || module == "mod" {
                continue;
            }
            assert!(
                declared.lines().any(|l| l == format!("mod {module};")),
                "{dir}/{name} is not declared in {declared_in}"
            );
        }
    }
}
