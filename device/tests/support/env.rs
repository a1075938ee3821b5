//! The one harness every device test runs `droidscore-device` through: the
//! workspace's [`droidscore_testenv`] (a hermetic temp dir with HOME, the
//! XDG directories and `DROIDSCORE_CACHE` inside it, kept with its path
//! printed when a test fails, and a command builder whose failed
//! expectations show the command line, its cwd, the files in the temp dir,
//! and stdout and stderr), with [`TestEnv::device`] for the binary and
//! [`TestEnv::serve`] for a server started on a model.

use std::path::{Path, PathBuf};

pub use droidscore_testenv::{text, Served, TestCommand};

/// Variables the binary reads that a test must not inherit from the shell
/// running `cargo test`: where mistral.rs looks for Hugging Face files, and
/// the allocator setting whose absence makes the binary re-exec itself.
pub const CLEARED: [&str; 2] = ["HF_HOME", "MALLOC_ARENA_MAX"];

/// A temp dir for one test, with a home and a cache of its own.
pub struct TestEnv(droidscore_testenv::TestEnv);

impl TestEnv {
    /// A fresh, empty dir named after the test (`name`) under the system temp dir.
    pub fn new(name: &str) -> TestEnv {
        TestEnv(droidscore_testenv::TestEnv::new(name))
    }

    /// The binary cargo built, or `DROIDSCORE_DEVICE_BIN` (a copy kept
    /// apart: worktrees sharing one target directory overwrite each
    /// other's), run in the temp dir with this env's home and cache and
    /// `RUST_LOG=warn`.
    pub fn device(&self) -> TestCommand<'_> {
        let exe = std::env::var_os("DROIDSCORE_DEVICE_BIN")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_droidscore-device").into());
        let mut command = self.command(exe, "droidscore-device");
        for name in CLEARED {
            command.env_remove(name);
        }
        command.env("RUST_LOG", "warn");
        command
    }

    /// `serve --threads 2 --listen 127.0.0.1:0 --model MODEL ARGS…`, once it
    /// has printed its base URL (after the model loaded and answered a
    /// warm-up chat); its stderr goes to the test's.
    pub fn serve(&self, model: &Path, args: &[&str]) -> Server {
        let served = self
            .device()
            .args(["serve", "--threads", "2", "--listen", "127.0.0.1:0"])
            .arg("--model")
            .arg(model)
            .args(args)
            // A test process that is killed takes its servers with it.
            .arg("--exit-with-stdin")
            .stdin(std::process::Stdio::piped())
            .spawn_server();
        let addr = served
            .addr
            .strip_prefix("http://")
            .and_then(|s| s.strip_suffix("/v1"))
            .unwrap_or_else(|| {
                panic!(
                    "no base URL on stdout (the server's stderr is above): {:?}",
                    served.addr
                )
            })
            .to_string();
        Server {
            pid: served.child.id(),
            _served: served,
            addr,
        }
    }
}

impl std::ops::Deref for TestEnv {
    type Target = droidscore_testenv::TestEnv;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

/// A server started by [`TestEnv::serve`], killed when dropped.
pub struct Server {
    _served: Served,
    /// Its process id (the same after it runs itself again with
    /// MALLOC_ARENA_MAX=1: that is an exec).
    pub pid: u32,
    /// `HOST:PORT` of its base URL.
    pub addr: String,
}

/// The default model in the cache of the user running the tests, where the
/// test command's `droidscore-device fetch-model` puts it; a failed test
/// saying so when it is not there.
pub fn default_model() -> PathBuf {
    let model = droidscore_device::model::default_path(&droidscore_device::model::cache_dir());
    assert!(
        model.is_file(),
        "the default model is not at {}: run `droidscore-device fetch-model` (scripts/test.sh does)",
        model.display()
    );
    model
}
