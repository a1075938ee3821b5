//! The bench probes against processes whose memory the test controls:
//! `init-memory` (a child's memory counted in the tree, the tree killed
//! after, a filled context against a stand-in server), resident versus
//! merely mapped memory, `ledger` (categories summing to smaps_rollup, a
//! mapped file under model) and mincore.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

use super::support::{python3, text, TestEnv};

fn probe_json(o: &Output) -> Value {
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "one JSON line on stdout: {out}");
    serde_json::from_str(lines[0]).unwrap()
}

#[test]
fn tree_memory_counts_the_children() {
    let dir = TestEnv::new("bench-tree");
    let py = python3();
    let pidfile = dir.path().join("child.pid");
    // sh stays the parent (`; true`); its child python3 touches 64 MiB.
    let script = format!(
        "import os, time\nopen({:?}, 'w').write(str(os.getpid()))\nb = bytearray(64 << 20)\n\
         for i in range(0, len(b), 4096): b[i] = 1\nprint('ready', flush=True)\ntime.sleep(600)\n",
        pidfile.to_str().unwrap()
    );
    std::fs::write(dir.path().join("alloc.py"), script).unwrap();
    let o = dir
        .droidscore()
        .in_temp_dir()
        .args([
            "bench",
            "init-memory",
            "--ready-pattern",
            "^ready$",
            "--period-ms",
            "20",
            "--",
            "sh",
            "-c",
            &format!("{py} alloc.py; true"),
        ])
        .output();
    let v = probe_json(&o);
    let tree = v["at_ready"]["rss_anon_kib"].as_u64().unwrap();
    let root = v["root_at_ready"]["rss_anon_kib"].as_u64().unwrap();
    assert!(tree >= 64 * 1024, "tree RssAnon {tree} KiB < 64 MiB: {v}");
    assert!(root < 64 * 1024, "the sh alone holds {root} KiB: {v}");
    assert!(v["at_ready"]["processes"].as_u64().unwrap() >= 2, "{v}");
    assert!(v["peak_rss_anon_kib"].as_u64().unwrap() >= 64 * 1024, "{v}");
    assert_eq!(v["period_ms"], 20);
    assert!(
        v["at_ready"]["pss_anon_kib"].as_u64().unwrap() >= 60 * 1024,
        "{v}"
    );
    // Without --context-len the figures carry the warning about the KV cache.
    let note = v["note"].as_str().unwrap();
    assert!(
        note.contains("KV cache") && note.contains("never touched"),
        "{note}"
    );
    assert_eq!(v["context"], Value::Null);
    // The whole tree is killed at the end, the grandchild too.
    let child: u32 = std::fs::read_to_string(&pidfile).unwrap().parse().unwrap();
    let gone = (0..50).any(|_| {
        let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
        let alive = !stat.is_empty() && !stat.contains(") Z ");
        if alive {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        !alive
    });
    assert!(gone, "python3 (pid {child}) outlived the probe");
}

/// A python3 process driven line by line over its stdin and stdout.
struct Scripted {
    child: Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Scripted {
    fn start(script: &str, args: &[&str]) -> Scripted {
        let mut child = Command::new(python3())
            .arg("-c")
            .arg(script)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        Scripted { child, out }
    }

    fn expect(&mut self, line: &str) {
        let mut got = String::new();
        self.out.read_line(&mut got).unwrap();
        assert_eq!(got.trim(), line);
    }

    fn go(&mut self) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(b"go\n").unwrap();
        stdin.flush().unwrap();
    }
}

impl Drop for Scripted {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn allocated_but_untouched_memory_is_not_resident_and_touched_memory_is() {
    let script = "import mmap, sys\n\
m = mmap.mmap(-1, 256 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)\n\
print('mapped', flush=True)\nsys.stdin.readline()\n\
for i in range(0, len(m), 4096): m[i] = 1\n\
print('touched', flush=True)\nsys.stdin.readline()\n";
    let mut p = Scripted::start(script, &[]);
    let pid = p.child.id();
    p.expect("mapped");
    let mapped = droidscore_harness::smaps::tree_resident(pid);
    let vm_size = droidscore_harness::smaps::status(pid).unwrap()["VmSize"];
    assert!(
        vm_size >= 256 * 1024,
        "the mapping exists: VmSize {vm_size} KiB"
    );
    assert!(
        mapped.rss_anon_kib < 64 * 1024,
        "256 MiB mapped, none touched, yet RssAnon is {} KiB",
        mapped.rss_anon_kib
    );
    p.go();
    p.expect("touched");
    let touched = droidscore_harness::smaps::tree_resident(pid);
    assert!(
        touched.rss_anon_kib >= 256 * 1024,
        "all 256 MiB touched, RssAnon {} KiB",
        touched.rss_anon_kib
    );
    assert!(touched.pss_anon_kib >= 256 * 1024, "{touched:?}");
}

#[test]
fn ledger_categories_sum_to_rollup_and_the_mapped_model_is_its_own() {
    let dir = TestEnv::new("bench-ledger");
    let model = dir.path().join("model.bin");
    std::fs::write(&model, vec![3u8; 8 << 20]).unwrap();
    let script = "import mmap, sys\nf = open(sys.argv[1], 'rb')\n\
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)\n\
s = sum(m[i] for i in range(0, len(m), 4096))\n\
print('ready', flush=True)\nsys.stdin.readline()\n";
    let mut p = Scripted::start(script, &[model.to_str().unwrap()]);
    p.expect("ready");
    let pid = p.child.id().to_string();
    let o = dir
        .droidscore()
        .in_temp_dir()
        .args(["bench", "ledger", "--pid", &pid, "--model", "model.bin"])
        .output();
    let v = probe_json(&o);
    let cats = v["categories"].as_object().unwrap();
    let sum: u64 = cats.values().map(|c| c["rss_kib"].as_u64().unwrap()).sum();
    // Read independently here: the per-mapping Rss of /proc/PID/smaps and
    // the kernel's own total in smaps_rollup (the process is idle, waiting
    // on stdin, so neither moves between the probe's read and ours).
    let rss_lines = |file: &str| -> Vec<u64> {
        std::fs::read_to_string(format!("/proc/{pid}/{file}"))
            .unwrap()
            .lines()
            .filter_map(|l| l.strip_prefix("Rss:"))
            .map(|l| l.trim().trim_end_matches("kB").trim().parse().unwrap())
            .collect()
    };
    let per_mapping: u64 = rss_lines("smaps").iter().sum();
    let rollup = rss_lines("smaps_rollup");
    assert_eq!(rollup.len(), 1);
    assert_eq!(sum, per_mapping, "categories vs smaps: {v}");
    assert_eq!(sum, rollup[0], "categories vs smaps_rollup: {v}");
    assert_eq!(sum, v["smaps_rollup_rss_kib"].as_u64().unwrap(), "{v}");
    // The whole file was read through the mapping: 8 MiB under model.
    assert_eq!(cats["model"]["rss_kib"], 8 * 1024, "{v}");
    assert_eq!(cats["model"]["anonymous_kib"], 0, "{v}");
    assert!(
        cats["shared_libraries"]["rss_kib"].as_u64().unwrap() > 0,
        "{v}"
    );
    assert!(cats["binary"]["rss_kib"].as_u64().unwrap() > 0, "{v}");
    assert!(cats["stack"]["rss_kib"].as_u64().unwrap() > 0, "{v}");
    let pc = &v["model_page_cache"];
    assert_eq!(pc["resident_pages"], pc["pages"], "{v}");
    assert!(v["note"].as_str().unwrap().contains("page cache"), "{v}");
}

#[test]
fn mincore_sees_a_file_read_back_and_one_dropped_from_the_page_cache() {
    // Under the target directory, not /tmp: a tmpfs file *is* page cache and
    // cannot be dropped from it.
    let path =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mincore-{}.bin", std::process::id()));
    std::fs::write(&path, vec![1u8; 4 << 20]).unwrap();
    std::fs::File::open(&path).unwrap().sync_all().unwrap();
    let _ = std::fs::read(&path).unwrap();
    let warm = droidscore_harness::sys::page_cache_residency(&path).unwrap();
    assert_eq!(warm.pages, (4u64 << 20).div_ceil(warm.page_size));
    assert_eq!(warm.resident_pages, warm.pages, "{warm:?}");
    let fs = Command::new("stat")
        .args(["-f", "-c", "%T"])
        .arg(&path)
        .output()
        .expect("stat (coreutils) runs");
    let fs = text(&fs.stdout).trim().to_string();
    if fs == "tmpfs" || fs == "ramfs" {
        eprintln!("{} is on {fs}: its pages cannot leave the page cache, so only the resident case was checked", path.display());
        std::fs::remove_file(&path).unwrap();
        return;
    }
    // GNU dd: `iflag=nocache count=0` asks the kernel to drop the file's
    // clean pages (posix_fadvise DONTNEED).
    let dropped = Command::new("dd")
        .arg(format!("if={}", path.display()))
        .args(["iflag=nocache", "count=0", "status=none"])
        .status()
        .unwrap();
    assert!(dropped.success());
    let cold = droidscore_harness::sys::page_cache_residency(&path).unwrap();
    assert!(cold.resident_pages < cold.pages / 2, "on {fs}: {cold:?}");
    let _ = std::fs::read(&path).unwrap();
    let warm = droidscore_harness::sys::page_cache_residency(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(warm.resident_pages, warm.pages, "{warm:?}");
}

/// A stand-in server: `/health` reports a load time; each chat request keeps
/// (and touches) 32 KiB per prompt word, as a KV cache would per token, and
/// reports the words plus a 7-token template as `usage.prompt_tokens`.
const FAKE_SERVER: &str = r#"
import http.server, json
kv = []
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def reply(self, obj):
        body = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        self.reply({"status": "ok", "model": {"load_ms": 1234.0}})
    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        assert req["max_tokens"] == 1
        words = len(req["messages"][0]["content"].split())
        kv.append(bytearray(b"\x01") * (words * 32768))
        self.reply({"choices": [{"message": {"role": "assistant", "content": "x"}}],
                    "usage": {"prompt_tokens": words + 7, "completion_tokens": 1}})
import sys, time
time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 0)  # "loading"
s = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), H)
print("listening http://127.0.0.1:%d" % s.server_address[1], flush=True)
s.serve_forever()
"#;

#[test]
fn context_len_fills_the_cache_and_reports_what_the_server_saw() {
    let dir = TestEnv::new("bench-context");
    std::fs::write(dir.path().join("server.py"), FAKE_SERVER).unwrap();
    let o = dir
        .droidscore()
        .in_temp_dir()
        .args([
            "bench",
            "init-memory",
            "--ready-pattern",
            r"^listening (http://\S+)$",
            "--health-url",
            "{url}/health",
            "--context-len",
            "2048",
            "--chat-url",
            "{url}/v1/chat/completions",
            "--",
            python3(),
            "server.py",
        ])
        .output();
    let v = probe_json(&o);
    assert_eq!(v["init_s"], 1.234, "{v}");
    assert_eq!(v["init_source"], "health");
    let c = &v["context"];
    assert_eq!(c["asked_tokens"], 2048);
    assert_eq!(c["prompt_tokens"], 2055);
    assert_eq!(c["reached"], true);
    let before = v["at_ready"]["rss_anon_kib"].as_u64().unwrap();
    let after = c["tree"]["rss_anon_kib"].as_u64().unwrap();
    // 2048 words × 32 KiB = 64 MiB kept by the server.
    assert!(
        after >= before + 60 * 1024,
        "before {before} KiB, after {after} KiB"
    );
    assert!(
        !v["note"].as_str().unwrap().contains("never touched"),
        "{v}"
    );
}

#[test]
fn a_ready_url_is_polled_until_it_answers_and_its_body_gives_the_load_time() {
    let dir = TestEnv::new("bench-ready-url");
    std::fs::write(dir.path().join("server.py"), FAKE_SERVER).unwrap();
    // A free port, released for the server to take after its "load".
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    let url = format!("http://127.0.0.1:{port}/health");
    let o = dir
        .droidscore()
        .in_temp_dir()
        .args([
            "bench",
            "init-memory",
            "--ready-url",
            &url,
            "--period-ms",
            "20",
            "--",
            python3(),
            "server.py",
            &port,
            "0.5",
        ])
        .output();
    let v = probe_json(&o);
    // The server slept 0.5 s before listening: ready cannot come sooner.
    assert!(v["ready_s"].as_f64().unwrap() >= 0.5, "{v}");
    assert!(
        v["samples"].as_u64().unwrap() > 1,
        "polled more than once: {v}"
    );
    assert_eq!(v["init_s"], 1.234, "{v}");
    assert_eq!(v["url"], format!("http://127.0.0.1:{port}"));
}
