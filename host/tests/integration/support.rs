//! The one harness every test in this binary uses: the workspace's
//! [`droidscore_testenv`] (a hermetic temp dir, kept with its path printed
//! when a test fails, and a command builder whose failed expectations show
//! the command line, its cwd, the files in the temp dir, and stdout and
//! stderr), with [`TestEnv::droidscore`] for the binary under test: run
//! from the repository root, with no serial, device binary or log filter
//! inherited from the shell running `cargo test`.

use std::path::PathBuf;
use std::process::Command;

pub use droidscore_testenv::{text, Served, TestCommand};

/// The repository root (the workspace holding `tasks/` and `fixtures/`).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("host/ has a parent")
        .to_path_buf()
}

/// Variables the binary reads that a test must not inherit from the shell
/// running `cargo test`; a test that needs one sets it.
/// The job runners' variables among them: a shard read from them (see
/// `run::shard`) would split every run of a test run inside a cluster job.
const CLEARED: &[&str] = &[
    "ANDROID_SERIAL",
    "DROIDSCORE_DEVICE_BIN",
    "RUST_LOG",
    "JOB_COMPLETION_INDEX",
    "DROIDSCORE_SHARD_COUNT",
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_STEP",
];

/// A temp dir for one test, with a home and a cache of its own.
pub struct TestEnv(droidscore_testenv::TestEnv);

impl TestEnv {
    /// A fresh, empty dir named after the test (`name`) under the system temp dir.
    pub fn new(name: &str) -> TestEnv {
        TestEnv(droidscore_testenv::TestEnv::new(name))
    }

    /// The `droidscore` binary, run from the repository root with this
    /// env's home and cache.
    pub fn droidscore(&self) -> TestCommand<'_> {
        let mut command = self.command(env!("CARGO_BIN_EXE_droidscore"), "droidscore");
        for name in CLEARED {
            command.env_remove(name);
        }
        command.current_dir(root());
        command
    }
}

impl std::ops::Deref for TestEnv {
    type Target = droidscore_testenv::TestEnv;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

/// `python3`, or a failure saying it is missing.
pub fn python3() -> &'static str {
    let ok = Command::new("python3")
        .arg("-c")
        .arg("pass")
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "these tests need python3 on PATH (Debian: apt-get install python3)"
    );
    "python3"
}

#[cfg(test)]
mod tests {
    use std::panic::{catch_unwind, AssertUnwindSafe};

    use droidscore::exit;

    use super::TestEnv;

    #[test]
    fn a_failed_expectation_shows_the_command_its_cwd_the_files_and_the_output() {
        let env = TestEnv::new("harness-expectation");
        env.write("suite/typo.toml", "id = \"typo\"\n");
        let caught = catch_unwind(AssertUnwindSafe(|| {
            env.droidscore()
                .args(["tasks", "list", "--suite"])
                .arg(env.join("suite"))
                .ok();
        }));
        let message = *caught.unwrap_err().downcast::<String>().unwrap();
        for part in [
            "expected success\n".to_string(),
            "command: DROIDSCORE_CACHE=".to_string(),
            " droidscore tasks list --suite ".to_string(),
            format!("  cwd: {}\n", super::root().display()),
            format!("  exit: exit status: {}\n", exit::BAD_INPUT),
            "--- stdout\n(empty)\n--- stderr\nerror: ".to_string(),
            "typo.toml".to_string(),
            format!("files in {}:\n", env.path().display()),
            "  suite/typo.toml (12 bytes)\n".to_string(),
        ] {
            assert!(message.contains(&part), "no {part:?} in:\n{message}");
        }
    }

    #[test]
    fn the_binary_gets_a_home_and_cache_inside_the_temp_dir_and_no_serial() {
        let env = TestEnv::new("harness-hermetic");
        let command = env.droidscore();
        let vars = command.vars();
        for name in [
            "HOME",
            "XDG_CONFIG_HOME",
            "XDG_CACHE_HOME",
            "XDG_DATA_HOME",
            "DROIDSCORE_CACHE",
        ] {
            let value = vars
                .iter()
                .find(|(k, _)| k == name)
                .and_then(|(_, v)| v.clone());
            let value = value.unwrap_or_else(|| panic!("{name} unset: {vars:?}"));
            assert!(
                value.starts_with(env.path().to_str().unwrap()),
                "{name}={value}"
            );
        }
        for name in super::CLEARED {
            assert!(vars.contains(&(name.to_string(), None)), "{name}: {vars:?}");
        }
    }
}
