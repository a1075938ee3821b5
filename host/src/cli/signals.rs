//! SIGINT and SIGTERM during `droidscore run`. signal-hook's iterator takes
//! them on an ordinary thread (no code runs in the signal handler itself),
//! which passes the first to the executing run through an [`Interrupt`]:
//! the run stops between two commits and `run` exits 128 + the signal with
//! a line saying what was kept. A signal when no run is executing, or a
//! second one, ends the process at once with the same code: the store is
//! consistent at any instant (see `store/crash_test.rs`), only less tidy.

use std::sync::Arc;

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::exit;
use crate::run::{signal_name, Interrupt};

/// From now on SIGINT and SIGTERM go to the returned [`Interrupt`] (or, when
/// it takes no request, end the process). If the handler cannot be
/// installed, the signals keep their default action, which the store also
/// survives.
pub(super) fn interrupt_on_signals() -> Arc<Interrupt> {
    let interrupt = Arc::new(Interrupt::new());
    let mut signals = match Signals::new([SIGINT, SIGTERM]) {
        Ok(signals) => signals,
        Err(e) => {
            tracing::warn!("cannot handle SIGINT/SIGTERM ({e}): an interrupted run just ends");
            return interrupt;
        }
    };
    let asked = Arc::clone(&interrupt);
    std::thread::spawn(move || {
        for signal in signals.forever() {
            if !asked.ask(signal) {
                eprintln!("interrupted by {}", signal_name(signal));
                std::process::exit(exit::SIGNALLED + signal);
            }
        }
    });
    interrupt
}
