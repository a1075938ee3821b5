//! `droidscore run` without `--base-url`: the local model server is started,
//! used and stopped. A stand-in plays `droidscore-device serve` (a small
//! Python HTTP server: the real one is tested in device/), so this checks the
//! host's side — the binary it runs, the readiness handshake on stdout, the
//! screenshots it withholds from a text-only model, what the run records, and
//! that the server is gone afterwards.

use std::path::Path;

use super::support::{text, TestEnv};

const STAND_IN: &str = r#"#!/usr/bin/env python3
import http.server, json, os, sys
log = os.path.join(os.path.dirname(os.path.abspath(__file__)), "requests.jsonl")
with open(os.path.join(os.path.dirname(log), "pid"), "w") as f:
    f.write(str(os.getpid()))
with open(os.path.join(os.path.dirname(log), "argv.json"), "w") as f:
    json.dump(sys.argv[1:], f)
assert sys.argv[1:4] == ["serve", "--listen", "127.0.0.1:0"], sys.argv
MEMORY = {"rss_kib": 4, "rss_anon_kib": 3, "rss_file_kib": 1, "peak_rss_kib": 4}
HEALTH = {"status": "ok", "model": {"id": "stand-in", "path": "/models/stand-in.gguf",
          "format": "gguf", "architecture": "llama", "quantization": "Q4_1",
          "requantized": None, "layout": None, "dtype": "f32", "weights": "packed",
          "tokenizer": None, "context_length": 2048,
          "threads": int(sys.argv[sys.argv.index("--threads") + 1]),
          "target_features": ["avx2"], "load_ms": 1.0, "memory": MEMORY},
          "memory_now": MEMORY, "threads_now": 5}
ANSWER = json.dumps({"action_type": "status", "goal_status": "complete"})
class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass
    def reply(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def do_GET(self):
        if self.path == "/health":
            self.reply(HEALTH)
        elif self.path == "/v1/models":
            self.reply({"object": "list", "data": [{"id": "stand-in", "object": "model"}]})
        else:
            self.send_error(404)
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with open(log, "a") as f:
            f.write(body.decode() + "\n")
        self.reply({"id": "x", "object": "chat.completion", "created": 0, "model": "stand-in",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": ANSWER}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(f"http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
server.serve_forever()
"#;

fn write_stand_in(dir: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("droidscore-device");
    std::fs::write(&path, STAND_IN).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn run_without_a_base_url_starts_the_local_server_uses_it_records_it_and_stops_it() {
    let dir = TestEnv::new("local-run");
    let stand_in = write_stand_in(dir.path());
    let store = dir.join("runs.sqlite");
    let out = dir
        .droidscore()
        .args(["run", "--tasks", "wifi_on", "--variants", "base"])
        .args(["--device-threads", "3", "--device-bin"])
        .arg(&stand_in)
        .arg("--store")
        .arg(&store)
        .ok();
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("model stand-in at http://127.0.0.1:")
            && stderr.contains("text only: no screenshots are sent"),
        "{stderr}"
    );

    // The model was asked, and without a screenshot: the server said gguf.
    let requests = std::fs::read_to_string(dir.join("requests.jsonl")).unwrap();
    assert_eq!(requests.lines().count(), 1, "one step, answered complete");
    assert!(!requests.contains("image_url"), "{requests}");
    assert!(requests.contains("\"model\":\"stand-in\""), "{requests}");
    // The server droidscore started decodes under the schema: on by default.
    assert!(requests.contains("\"response_format\""), "{requests}");

    // The run names the local server's settings, not its port.
    let db = droidscore::store::Store::open_existing(&store).unwrap();
    let run = db.latest_run().unwrap().expect("a run");
    assert_eq!(run.config["base_url"], "local");
    assert_eq!(run.config["model"], "stand-in");
    assert_eq!(run.config["no_image"], true);
    assert_eq!(run.config["constrain"], "schema");
    assert!(run.config.get("device_model").is_none());
    let health = run
        .provenance
        .endpoint_health
        .as_ref()
        .expect("/health kept");
    assert_eq!(health["model"]["load_ms"], 1.0, "as the server said it");
    assert_eq!(run.config["local_server"]["threads"], 3);
    assert_eq!(run.config["local_server"]["quantization"], "Q4_1");
    assert_eq!(run.config["local_server"]["target_features"][0], "avx2");
    assert!(run.config["local_server"].get("load_ms").is_none());
    let episodes = db.episodes(&run.id).unwrap();
    assert_eq!(episodes.len(), 1);

    // Stopped when the run ended.
    let pid = std::fs::read_to_string(dir.join("pid")).unwrap();
    let proc = Path::new("/proc").join(pid.trim());
    let gone = (0..50).any(|_| {
        let alive = std::fs::read_to_string(proc.join("stat"))
            .map(|s| !s.contains(") Z "))
            .unwrap_or(false);
        if alive {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        !alive
    });
    assert!(
        gone,
        "the stand-in server (pid {}) outlived the run",
        pid.trim()
    );
}

#[test]
fn run_without_a_base_url_names_a_missing_server_binary() {
    let env = TestEnv::new("local-missing-bin");
    let out = env
        .droidscore()
        .args(["run", "--tasks", "wifi_on"])
        .args(["--device-bin", "/nonexistent/droidscore-device"])
        // A store that can be written: it is checked before the server starts.
        .arg("--store")
        .arg(env.join("runs.sqlite"))
        .fails();
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("/nonexistent/droidscore-device: no such file"),
        "{stderr}"
    );
}

#[test]
fn device_model_and_weights_are_passed_to_serve_and_recorded() {
    let dir = TestEnv::new("local-model");
    let stand_in = write_stand_in(dir.path());
    let store = dir.join("runs.sqlite");
    dir.droidscore()
        .args(["run", "--tasks", "wifi_on", "--variants", "base"])
        .args([
            "--device-model",
            "qwen2.5-coder-0.5b",
            "--device-weights",
            "f16",
        ])
        .args([
            "--device-threads",
            "1",
            "--constrain",
            "off",
            "--device-bin",
        ])
        .arg(&stand_in)
        .arg("--store")
        .arg(&store)
        .ok();
    let argv: Vec<String> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("argv.json")).unwrap()).unwrap();
    let after = |flag: &str| {
        argv.iter()
            .position(|a| a == flag)
            .map(|i| argv[i + 1].as_str())
    };
    assert_eq!(after("--model"), Some("qwen2.5-coder-0.5b"), "{argv:?}");
    assert_eq!(after("--weights"), Some("f16"), "{argv:?}");
    let requests = std::fs::read_to_string(dir.join("requests.jsonl")).unwrap();
    assert!(
        !requests.contains("response_format"),
        "--constrain off: {requests}"
    );
    let db = droidscore::store::Store::open_existing(&store).unwrap();
    let run = db.latest_run().unwrap().expect("a run");
    assert_eq!(run.config["device_model"], "qwen2.5-coder-0.5b");
    assert_eq!(run.config["device_weights"], "f16");
    assert_eq!(run.config["constrain"], "off");
}
