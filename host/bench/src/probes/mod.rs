//! Probes: subcommands that measure one thing and print one JSON object on
//! their last stdout line, so `bench run` can use them as arms.

pub mod init_memory;
pub mod ledger;
