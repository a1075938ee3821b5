//! The adb backend's building blocks that need no phone: quoting for the
//! device's `sh -c`, `input text` encoding with clear refusals, exit codes
//! recovered from an echoed marker (adb_client drops them), and the raw
//! `screencap` format. The backend that drives a phone comes with issue 4.

mod screencap;
mod shell;

pub use screencap::{raw_to_png, RawScreencap, ScreencapError};
pub use shell::{
    input_text_command, quote, split_exit_marker, with_exit_marker, TextRefusal, EXIT_MARKER,
};
