//! How a phone's shell reaches the apps' private files (`appdata` finds
//! out, once per phone, and keeps the answer on the phone).

/// How this phone's shell reaches an app's private files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// adbd runs as root: `adb pull`/`push` read and write `/data/data`.
    Root,
    /// `su 0 sh -c …` runs as root; files travel through `/data/local/tmp`.
    Su,
    /// None of the ways worked: what each said.
    Denied(String),
}
