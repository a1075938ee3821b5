//! Plain HTTP/1.1 to a `droidscore-device serve` the tests started
//! ([`super::env::TestEnv::serve`]): one request a connection, the JSON body back.

use std::io::{Read, Write};
use std::net::TcpStream;

/// One HTTP/1.1 request; (status, JSON body).
pub fn http(addr: &str, method: &str, path: &str, body: Option<&str>) -> (u16, serde_json::Value) {
    let (status, _, json) = http_with(addr, method, path, &[], body.unwrap_or("").as_bytes());
    (status, json)
}

/// One HTTP/1.1 request with extra header lines (`Authorization: …`) and
/// any body bytes; (status, the response's headers, JSON body or null).
pub fn http_with(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[&str],
    body: &[u8],
) -> (u16, String, serde_json::Value) {
    let mut s = TcpStream::connect(addr).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    // A server that refuses early (413) may close before it all went.
    let _ = s.write_all(body);
    let mut response = Vec::new();
    let _ = s.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response);
    let status = response[9..12].parse().unwrap();
    let (headers, json) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (
        status,
        headers.to_string(),
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
