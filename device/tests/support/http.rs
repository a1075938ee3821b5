//! Plain HTTP/1.1 to a `droidscore-device serve` the tests started
//! ([`super::env::TestEnv::serve`]): one request a connection, the JSON body back.

use std::io::{Read, Write};
use std::net::TcpStream;

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
