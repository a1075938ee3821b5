//! Starting `droidscore-device serve` as a child process and talking plain
//! HTTP/1.1 to it, shared by the integration tests.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

/// The server binary cargo built, or `DROIDSCORE_DEVICE_BIN` (a copy kept
/// apart: worktrees sharing one target directory overwrite each other's).
pub fn bin() -> Command {
    let exe = std::env::var_os("DROIDSCORE_DEVICE_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_droidscore-device").into());
    let mut c = Command::new(exe);
    c.env("RUST_LOG", "warn");
    c
}

/// A server child process, killed when dropped.
pub struct Server {
    child: Child,
    pub addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `serve --threads 2 --listen 127.0.0.1:0 --model MODEL ARGS…`, once it has
/// printed its base URL (after the model loaded and answered a warm-up chat).
pub fn start(model: &std::path::Path, args: &[&str]) -> Server {
    let mut child = bin()
        .args([
            "serve",
            "--threads",
            "2",
            "--listen",
            "127.0.0.1:0",
            "--model",
        ])
        .arg(model)
        .args(args.iter().map(OsStr::new))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("http://")
        .and_then(|s| s.strip_suffix("/v1"))
        .unwrap_or_else(|| panic!("no base URL on stdout (the server's stderr is above): {line:?}"))
        .to_string();
    Server { child, addr }
}

/// One HTTP/1.1 request; (status, JSON body).
pub fn http(addr: &str, method: &str, path: &str, body: Option<&str>) -> (u16, serde_json::Value) {
    let mut s = TcpStream::connect(addr).unwrap();
    let body = body.unwrap_or("");
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    s.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let json = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b)
        .unwrap_or("");
    (
        status,
        serde_json::from_str(json).unwrap_or(serde_json::Value::Null),
    )
}

/// POST a chat completion request; (status, JSON body).
pub fn chat(addr: &str, request: &serde_json::Value) -> (u16, serde_json::Value) {
    http(
        addr,
        "POST",
        "/v1/chat/completions",
        Some(&request.to_string()),
    )
}
