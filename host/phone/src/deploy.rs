//! What deploying our own program to a phone needs (the on-device model
//! server): files, processes and port forwards, each as one request, with
//! the quoting and the transport left to the backend that implements it.

use std::path::Path;

use crate::PhoneError;

/// A phone we can push files to, start programs on and forward ports to.
pub trait DeployTarget {
    /// How the phone is named in messages (its adb serial).
    fn serial(&self) -> &str;
    /// The phone is the virtual phone, whose loopback is this machine's.
    fn is_virtual(&self) -> bool;
    /// `getprop NAME`: the property's value as printed.
    fn getprop(&mut self, name: &str) -> Result<String, PhoneError>;
    /// The file's bytes, or `None` when it cannot be read.
    fn read_file(&mut self, remote: &str) -> Result<Option<Vec<u8>>, PhoneError>;
    /// The file's sha256 hex digest, or `None` when it is not there.
    fn sha256(&mut self, remote: &str) -> Result<Option<String>, PhoneError>;
    /// Write `data` to `remote`, executable when asked.
    fn push(&mut self, data: &[u8], remote: &str, executable: bool) -> Result<(), PhoneError>;
    /// Stream the local file to `remote`, executable when asked.
    fn push_file(&mut self, local: &Path, remote: &str, executable: bool)
        -> Result<(), PhoneError>;
    /// Make a file already on the phone executable.
    fn make_executable(&mut self, remote: &str) -> Result<(), PhoneError>;
    /// Make a file on the phone readable and writable by its owner only
    /// (the shell user; apps run as other users).
    fn make_private(&mut self, remote: &str) -> Result<(), PhoneError>;
    /// Remove a file; removing one that is not there is fine.
    fn remove_file(&mut self, remote: &str) -> Result<(), PhoneError>;
    /// The last `lines` lines of a file on the phone, or why they cannot be read.
    fn tail(&mut self, remote: &str, lines: usize) -> Result<String, PhoneError>;
    /// A process's argv; `None` when it is not running.
    fn cmdline(&mut self, pid: u32) -> Result<Option<Vec<String>>, PhoneError>;
    /// Stop a process.
    fn kill(&mut self, pid: u32) -> Result<(), PhoneError>;
    /// Start `argv` detached in `dir`, output to `log`: its pid.
    fn start_background_in(
        &mut self,
        dir: &str,
        argv: &[&str],
        log: &str,
    ) -> Result<u32, PhoneError>;
    /// Forward LOCAL on this machine to REMOTE on the phone (`tcp:8080`).
    fn forward(&mut self, local: &str, remote: &str) -> Result<(), PhoneError>;
    fn remove_forward(&mut self, local: &str) -> Result<(), PhoneError>;
    /// This phone's forwards, (LOCAL, REMOTE).
    fn forwards(&mut self) -> Result<Vec<(String, String)>, PhoneError>;
    /// A port on this machine nobody listens on, fit for a forward's local end.
    fn unused_local_port(&self) -> u16;
}
