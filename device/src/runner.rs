//! The mistral.rs engine over a loaded model, and replacing it with a fresh
//! one without loading anything again — the only way mistral.rs 0.8.1
//! offers to empty its prefix cache on the CPU.
//!
//! The model (`Pipeline`) is loaded once and shared. A `MistralRs` runner
//! owns one engine thread, and the engine owns the prefix cacher. To reset,
//! the old runner is sent `Request::Terminate` (its loop breaks at the top,
//! after any step in progress, and never touches the pipeline again), the
//! engine is waited for until it has dropped its request channel (the
//! cacher goes with it), and a new runner is built on the same pipeline.
//!
//! A runner is built on a thread of its own under a current-thread tokio
//! runtime: `MistralRs::new` then skips its "dummy run" (it runs one only
//! under a multi-thread runtime), a one-token request that would leave two
//! 512-token entries in the fresh cacher (a sequence that finishes at its
//! prompt step is run once more, `engine/mod.rs`, and each finish adds an
//! entry). What a reset leaks: mistral.rs's `IntervalLogger` starts a thread
//! per runner that sleeps in a loop forever (`engine/logger.rs`), one idle
//! thread per reset.
//!
//! Every runner's engine thread is a new thread, and glibc gives a new
//! thread a malloc arena of its own while the old engine's freed KV caches
//! stay in the old thread's arena: measured here, 24 short requests with a
//! 64 MiB budget and 12 resets took RssAnon +548 MiB and climbing with
//! glibc's default arenas, +40 MiB flat with `MALLOC_ARENA_MAX=1`. So
//! `serve` runs itself again with that set ([`one_malloc_arena`]).

use std::sync::Arc;
use std::time::Duration;

use mistralrs::core::{IntervalLogger, MistralRs, MistralRsBuilder, Pipeline, Request};
use mistralrs::SchedulerConfig;

/// What every runner over one pipeline is built with.
#[derive(Clone)]
pub struct RunnerConfig {
    pub pipeline: Arc<tokio::sync::Mutex<dyn Pipeline>>,
    pub scheduler: SchedulerConfig,
    pub prefix_cache: bool,
    pub ignore_eos: bool,
}

impl std::fmt::Debug for RunnerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunnerConfig")
            .field("prefix_cache", &self.prefix_cache)
            .field("ignore_eos", &self.ignore_eos)
            .finish()
    }
}

/// Run this program again, same arguments, with `MALLOC_ARENA_MAX=1` in
/// its environment — glibc reads it only at start-up — unless it is set
/// already (a caller's choice stands). Call before any thread starts;
/// returns only if the program could not be run again, or there was no need.
pub fn one_malloc_arena() -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    if !cfg!(target_env = "gnu") || std::env::var_os("MALLOC_ARENA_MAX").is_some() {
        return Ok(());
    }
    let exe = std::env::current_exe().map_err(|e| format!("finding this program: {e}"))?;
    let err = std::process::Command::new(&exe)
        .args(std::env::args_os().skip(1))
        .env("MALLOC_ARENA_MAX", "1")
        .exec();
    Err(format!(
        "running {} again with MALLOC_ARENA_MAX=1: {err}",
        exe.display()
    ))
}

/// One engine over the pipeline.
pub struct Runner {
    pub mistralrs: Arc<MistralRs>,
    /// mistral.rs's own counters for this engine (prefix-cache hits).
    pub logger: Arc<IntervalLogger>,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner").finish_non_exhaustive()
    }
}

/// How long a terminated engine may take to finish its step and go.
const TERMINATE_WAIT: Duration = Duration::from_secs(120);

impl Runner {
    /// A fresh engine (and an empty prefix cache) over `config.pipeline`.
    pub async fn build(config: &RunnerConfig) -> anyhow::Result<Runner> {
        let config = config.clone();
        let (tx, rx) = tokio::sync::oneshot::channel();
        std::thread::Builder::new()
            .name("droidscore-runner-build".into())
            .spawn(move || {
                let built = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map(|rt| {
                        rt.block_on(
                            MistralRsBuilder::new(config.pipeline, config.scheduler, false, None)
                                .with_no_prefix_cache(!config.prefix_cache)
                                .with_disable_eos_stop(config.ignore_eos)
                                .build(),
                        )
                    });
                let _ = tx.send(built);
            })?;
        let mistralrs = rx
            .await
            .map_err(|_| anyhow::anyhow!("building the engine panicked"))??;
        let logger = mistralrs.get_logger(None)?;
        Ok(Runner { mistralrs, logger })
    }

    /// Stop this engine and wait until it is gone, its prefix cache freed.
    pub async fn terminate(self) -> anyhow::Result<()> {
        let sender = self.mistralrs.get_sender(None)?;
        let _ = sender.send(Request::Terminate).await;
        // MistralRs's Drop sends another Terminate; the channel may already
        // be closed by then, which is fine.
        drop(self);
        tokio::time::timeout(TERMINATE_WAIT, sender.closed())
            .await
            .map_err(|_| {
                anyhow::anyhow!(
                    "the old engine did not stop within {} s",
                    TERMINATE_WAIT.as_secs()
                )
            })
    }

    /// mistral.rs's prefix-cache hit count for this engine.
    pub fn hits(&self) -> u64 {
        self.logger.prefix_cache_stats().0 as u64
    }
}
