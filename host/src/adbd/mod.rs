//! PLACEHOLDER until the adbd transport lands: the interface only.

/// What a shell command printed and how it exited.
#[derive(Debug, Default)]
pub struct ShellOutput {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub exit: u8,
}

pub trait Device: Send + Sync {
    fn banner(&self) -> String;
    fn shell(&self, command: &str) -> ShellOutput;
    fn push(&self, path: &str, mode: u32, data: Vec<u8>) -> Result<(), String>;
    fn pull(&self, path: &str) -> Result<Vec<u8>, String>;
    fn stat(&self, path: &str) -> Option<(u32, u32, u32)>;
}
