//! The `droidscore` binary's exit codes, one named constant each, shared by
//! the binary (`cli::CliError::exit_code`), the tests and docs/cli.md (a test
//! checks that it lists every code in [`ALL`] with its meaning), so a
//! script can tell "the suite failed" from "bad task file" from "phone
//! unreachable". `droidscore-device` has its own, in `droidscore_device::exit`.

/// Everything asked was done (a run scored at least one episode).
pub const SUCCESS: i32 = 0;
/// `tasks check` found a task variant that breaks the rules.
pub const SUITE_FAILED: i32 = 1;
/// The command line was wrong (clap's own code).
pub const USAGE: i32 = 2;
/// Bad input: a task file, a dump, an argument; the message names the file
/// and field.
pub const BAD_INPUT: i32 = 3;
/// The phone failed (adb, the device, the simulator refusing a state).
pub const PHONE: i32 = 4;
/// I/O or the run store: for `run`, a store on a read-only or full file
/// system (refused before any episode), or one that failed mid-run (the
/// run stops; finished episodes are kept for `--resume`).
pub const IO: i32 = 5;
/// The model endpoint refused the requests (HTTP 4xx: key, model, URL; or
/// an https server certificate that does not verify), or the local model
/// server did not start.
pub const ENDPOINT: i32 = 6;
/// `bench run --check` found a regression.
pub const REGRESSED: i32 = 7;
/// `bench run --check` was inconclusive (a bound inside an arm's spread).
pub const INCONCLUSIVE: i32 = 8;
/// `bench run --check` on another machine than the expectations name.
pub const PROVENANCE_MISMATCH: i32 = 9;
/// `bench`: the target cores were busy and `--force` was not given.
pub const CORES_BUSY: i32 = 10;
/// `bench`: an arm or a probe failed.
pub const ARM_FAILED: i32 = 11;
/// `run`: no episode could be scored: every one was an infrastructure
/// failure (an endpoint refusing connections, say) or was skipped; a 0 %
/// success rate would have been a lie.
pub const NOTHING_SCORED: i32 = 12;
/// `run`: a phone went away and did not come back within `--device-wait`;
/// finished episodes are kept and `--resume` runs the rest.
pub const PHONE_GONE: i32 = 13;

/// 128 plus the signal's number, as a shell reports a process the signal
/// ended: SIGINT or SIGTERM (130 or 143) interrupted `run`, which stopped
/// between two commits and kept its finished episodes for `--resume`, or
/// `bench run`, which killed the running arm first.
pub const SIGNALLED: i32 = droidscore_harness::runner::SIGNALLED;

/// Every code below [`SIGNALLED`], with the words docs/cli.md gives it.
pub const ALL: &[(i32, &str)] = &[
    (SUCCESS, "success"),
    (SUITE_FAILED, "the checked suite failed"),
    (USAGE, "usage"),
    (BAD_INPUT, "bad input"),
    (PHONE, "phone error"),
    (IO, "I/O or run store"),
    (ENDPOINT, "the model endpoint refused the requests"),
    (REGRESSED, "a regression"),
    (INCONCLUSIVE, "inconclusive"),
    (PROVENANCE_MISMATCH, "another machine"),
    (CORES_BUSY, "cores busy"),
    (ARM_FAILED, "an arm or probe failed"),
    (NOTHING_SCORED, "no episode could be scored"),
    (PHONE_GONE, "a phone went away"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_distinct_and_listed_in_order() {
        for (i, (code, _)) in ALL.iter().enumerate() {
            assert_eq!(*code, i as i32, "ALL is in code order, with no gap");
        }
    }
}
