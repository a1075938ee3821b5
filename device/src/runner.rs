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

use std::error::Error;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mistralrs::core::{IntervalLogger, MistralRs, MistralRsBuilder, Pipeline, Request};
use mistralrs::SchedulerConfig;

/// An error of mistral.rs's own API (its functions return anyhow's errors,
/// or candle's), kept whole as the source; the message is its chain, as
/// anyhow's `{:#}` prints it.
#[derive(Debug, thiserror::Error)]
#[error("{}", chain(.0.as_ref()))]
pub struct MistralRsFailed(#[source] Box<dyn Error + Send + Sync>);

impl MistralRsFailed {
    pub fn new(e: impl Into<Box<dyn Error + Send + Sync>>) -> MistralRsFailed {
        MistralRsFailed(e.into())
    }
}

/// `e` and each of its sources, joined by ": ".
fn chain(e: &(dyn Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// Why an engine could not be built over the pipeline, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// Its thread, or that thread's tokio runtime, could not be started.
    #[error("starting the thread that builds the engine: {0}")]
    Thread(#[source] std::io::Error),
    #[error("building the engine panicked")]
    Panicked,
    #[error(transparent)]
    MistralRs(#[from] MistralRsFailed),
    #[error("the old engine did not stop within {} s", .0.as_secs())]
    DidNotStop(Duration),
}

/// Why [`one_malloc_arena`] could not run this program again.
#[derive(Debug, thiserror::Error)]
pub enum ReexecError {
    #[error("finding this program: {0}")]
    CurrentExe(#[source] std::io::Error),
    #[error("running {} again with MALLOC_ARENA_MAX=1: {source}", exe.display())]
    Exec {
        exe: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

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
pub fn one_malloc_arena() -> Result<(), ReexecError> {
    use std::os::unix::process::CommandExt;
    if !cfg!(target_env = "gnu") || std::env::var_os("MALLOC_ARENA_MAX").is_some() {
        return Ok(());
    }
    let exe = std::env::current_exe().map_err(ReexecError::CurrentExe)?;
    let source = std::process::Command::new(&exe)
        .args(std::env::args_os().skip(1))
        .env("MALLOC_ARENA_MAX", "1")
        .exec();
    Err(ReexecError::Exec { exe, source })
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
    pub async fn build(config: &RunnerConfig) -> Result<Runner, RunnerError> {
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
            })
            .map_err(RunnerError::Thread)?;
        let mistralrs = rx
            .await
            .map_err(|_| RunnerError::Panicked)?
            .map_err(RunnerError::Thread)?;
        let logger = mistralrs.get_logger(None).map_err(MistralRsFailed::new)?;
        Ok(Runner { mistralrs, logger })
    }

    /// Stop this engine and wait until it is gone, its prefix cache freed.
    pub async fn terminate(self) -> Result<(), RunnerError> {
        let sender = self
            .mistralrs
            .get_sender(None)
            .map_err(MistralRsFailed::new)?;
        let _ = sender.send(Request::Terminate).await;
        // MistralRs's Drop sends another Terminate; the channel may already
        // be closed by then, which is fine.
        drop(self);
        tokio::time::timeout(TERMINATE_WAIT, sender.closed())
            .await
            .map_err(|_| RunnerError::DidNotStop(TERMINATE_WAIT))
    }

    /// mistral.rs's prefix-cache hit count for this engine.
    pub fn hits(&self) -> u64 {
        self.logger.prefix_cache_stats().0 as u64
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error;

    use super::MistralRsFailed;

    /// mistral.rs's anyhow errors were printed with `{:#}`, context and
    /// cause together; wrapped, they still read so, and keep the chain.
    #[test]
    fn a_mistralrs_error_reads_as_its_whole_chain_and_keeps_it() {
        #[derive(Debug, thiserror::Error)]
        #[error("loading the pipeline")]
        struct Outer(#[source] std::io::Error);
        let failed = MistralRsFailed::new(Outer(std::io::Error::other("no such tensor")));
        assert_eq!(failed.to_string(), "loading the pipeline: no such tensor");
        let kept = failed.source().unwrap();
        assert!(kept.downcast_ref::<Outer>().is_some(), "{kept:?}");
        assert_eq!(kept.source().unwrap().to_string(), "no such tensor");
    }
}
