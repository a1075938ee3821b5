//! A scripted OpenAI-compatible chat endpoint on 127.0.0.1 (OS-assigned port):
//! real HTTP/1.1, keep-alive, hand-written so each failure mode is exact. Each
//! POST takes the next reply of the script (a retry takes one too) and is
//! recorded (path, Authorization header, JSON body); a GET (`/health`) is
//! answered 404 and neither recorded nor counted. Past the script's end it
//! answers 418 "script exhausted", which the client reports as a 4xx.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;

/// A runtime for the server (and the client under test): two workers, so the
/// server answers while a client blocks on it.
#[allow(dead_code)] // each test binary uses a subset
pub fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// One scripted reply.
#[derive(Debug, Clone)]
#[allow(dead_code)] // each test binary uses a subset
pub enum Reply {
    /// 200 with a chat completion whose message content is this text.
    Content(String),
    /// This status and raw body.
    Status(u16, String),
    /// This status, these extra headers (`Retry-After`, say) and raw body.
    Headers(u16, Vec<(String, String)>, String),
    /// Read the request, then say nothing for this long and close.
    Hang(Duration),
    /// Read the request and close the connection without a response.
    Drop,
}

#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub authorization: Option<String>,
    pub body: Value,
}

#[derive(Debug)]
pub struct ScriptedServer {
    /// `http://127.0.0.1:PORT/v1`
    pub base_url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

/// Decides the reply from the request body: a deterministic "model" for
/// concurrent episodes, whose requests arrive in no fixed order.
pub type Policy = Arc<dyn Fn(&Value) -> Reply + Send + Sync>;

struct Script {
    replies: Vec<Reply>,
    next: usize,
    policy: Option<Policy>,
}

impl ScriptedServer {
    /// Listen on `rt` and replay `replies` in order.
    pub fn start(rt: &Runtime, replies: Vec<Reply>) -> ScriptedServer {
        Self::listen(
            rt,
            Script {
                replies,
                next: 0,
                policy: None,
            },
        )
    }

    /// Listen on `rt` and answer each request with `policy(body)`.
    #[allow(dead_code)] // each test binary uses a subset
    pub fn start_policy(rt: &Runtime, policy: Policy) -> ScriptedServer {
        Self::listen(
            rt,
            Script {
                replies: Vec::new(),
                next: 0,
                policy: Some(policy),
            },
        )
    }

    fn listen(rt: &Runtime, script: Script) -> ScriptedServer {
        let listener = rt
            .block_on(TcpListener::bind("127.0.0.1:0"))
            .expect("bind 127.0.0.1:0");
        let port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(script));
        let rec = received.clone();
        rt.spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let _ = stream.set_nodelay(true);
                tokio::spawn(serve(stream, script.clone(), rec.clone()));
            }
        });
        ScriptedServer {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            received,
        }
    }

    /// Every request so far, in arrival order.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

/// An OpenAI chat-completion body carrying `content`.
pub fn completion(content: &str) -> String {
    json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    })
    .to_string()
}

async fn serve(
    mut stream: TcpStream,
    script: Arc<Mutex<Script>>,
    received: Arc<Mutex<Vec<Received>>>,
) {
    let mut buf = Vec::with_capacity(16 * 1024);
    loop {
        let Some((head, body)) = read_request(&mut stream, &mut buf).await else {
            return;
        };
        let mut lines = head.lines();
        let request_line = lines.next().unwrap_or("");
        let path = request_line
            .split_whitespace()
            .nth(1)
            .unwrap_or("")
            .to_owned();
        // `droidscore run` asks `/health` of any endpoint before the run;
        // this one has none (as most OpenAI-compatible servers), and the
        // question takes no reply of the script.
        if request_line.starts_with("GET ") {
            let body = r#"{"error":{"message":"no such route"}}"#;
            let response = format!(
                "HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
            if stream.write_all(response.as_bytes()).await.is_err() {
                return;
            }
            continue;
        }
        let authorization = head
            .lines()
            .find_map(|l| {
                l.split_once(':')
                    .filter(|(k, _)| k.eq_ignore_ascii_case("authorization"))
            })
            .map(|(_, v)| v.trim().to_owned());
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        received.lock().unwrap().push(Received {
            path,
            authorization,
            body: body.clone(),
        });
        let reply = {
            let mut s = script.lock().unwrap();
            if let Some(policy) = &s.policy {
                let policy = policy.clone();
                drop(s);
                policy(&body)
            } else {
                let r = s.replies.get(s.next).cloned();
                s.next += 1;
                r.unwrap_or(Reply::Status(
                    418,
                    r#"{"error":{"message":"script exhausted"}}"#.into(),
                ))
            }
        };
        let (status, headers, body) = match reply {
            Reply::Content(text) => (200, Vec::new(), completion(&text)),
            Reply::Status(status, body) => (status, Vec::new(), body),
            Reply::Headers(status, headers, body) => (status, headers, body),
            Reply::Hang(d) => {
                tokio::time::sleep(d).await;
                return;
            }
            Reply::Drop => return,
        };
        let extra: String = headers
            .iter()
            .map(|(name, value)| format!("{name}: {value}\r\n"))
            .collect();
        let response = format!(
            "HTTP/1.1 {status} Scripted\r\ncontent-type: application/json\r\n{extra}content-length: {}\r\n\r\n{body}",
            body.len()
        );
        if stream.write_all(response.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// One request's head and body; `None` when the client closed.
async fn read_request(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<(String, Vec<u8>)> {
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            l.split_once(':')
                .filter(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        })
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = buf[head_end..head_end + length].to_vec();
    buf.drain(..head_end + length);
    Some((head, body))
}
