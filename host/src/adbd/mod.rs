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

pub struct Server;
impl Server {
    pub fn bind(_addr: &str) -> std::io::Result<Server> {
        Err(std::io::Error::other("placeholder"))
    }
    pub fn local_addr(&self) -> std::net::SocketAddr {
        ([127, 0, 0, 1], 0).into()
    }
    pub fn serve(self, _device: std::sync::Arc<dyn Device>) -> std::io::Result<()> {
        Err(std::io::Error::other("placeholder"))
    }
}
