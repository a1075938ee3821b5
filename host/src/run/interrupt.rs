//! Stopping a run from outside it: SIGINT or SIGTERM while `droidscore run`
//! executes. The signal's handler (an ordinary thread, see `cli::signals`)
//! only asks; the run's writer is the one that acts, between two commits, so
//! no episode is ever half written and none that was still running is
//! recorded as if it had finished.
//!
//! A signal that arrives while no run is executing (setup, the final report)
//! has nobody to ask: [`Interrupt::ask`] says so, and the handler exits at
//! once, as the signal's default action would.

use std::sync::Mutex;

/// Where a run is, as far as a signal is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// No run is executing: a signal ends the process at once.
    Idle,
    /// [`crate::run::execute`] is running and takes the next signal as a request.
    Running,
    /// A signal (its number) asked the run to stop.
    Stopping(i32),
}

/// The channel between a signal handler and the run it interrupts.
#[derive(Debug)]
pub struct Interrupt {
    state: Mutex<State>,
}

impl Default for Interrupt {
    fn default() -> Self {
        Interrupt {
            state: Mutex::new(State::Idle),
        }
    }
}

impl Interrupt {
    pub fn new() -> Interrupt {
        Interrupt::default()
    }

    /// Ask the executing run to stop, for `signal`. False when no run is
    /// executing or one was already asked: the caller should end the
    /// process itself (a second Ctrl-C does not wait).
    pub fn ask(&self, signal: i32) -> bool {
        let mut state = self.lock();
        if *state != State::Running {
            return false;
        }
        *state = State::Stopping(signal);
        true
    }

    /// The signal that asked the run to stop, if one did.
    pub fn signal(&self) -> Option<i32> {
        match *self.lock() {
            State::Stopping(signal) => Some(signal),
            State::Idle | State::Running => None,
        }
    }

    /// A run starts executing: from now on a signal is a request.
    pub(super) fn begin(&self) {
        *self.lock() = State::Running;
    }

    /// The run stopped executing; the signal that asked it to, if any.
    pub(super) fn end(&self) -> Option<i32> {
        let signal = self.signal();
        *self.lock() = State::Idle;
        signal
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `SIGINT`, `SIGTERM`, or `signal N` for any other.
pub(crate) fn signal_name(signal: i32) -> String {
    use signal_hook::consts::{SIGINT, SIGTERM};
    match signal {
        SIGINT => "SIGINT".into(),
        SIGTERM => "SIGTERM".into(),
        other => format!("signal {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_is_a_request_only_while_a_run_executes_and_only_the_first() {
        let interrupt = Interrupt::new();
        assert!(!interrupt.ask(15), "no run yet: the handler exits");
        interrupt.begin();
        assert_eq!(interrupt.signal(), None);
        assert!(interrupt.ask(15));
        assert_eq!(interrupt.signal(), Some(15));
        assert!(!interrupt.ask(2), "a second signal does not wait");
        assert_eq!(interrupt.end(), Some(15));
        assert!(!interrupt.ask(15), "the run is over: the handler exits");
    }
}
