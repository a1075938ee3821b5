//! The hang-up soak: chat completions on the default model from two
//! clients at once, most abandoned at a random point — before their turn,
//! during the prompt, mid-generation — and some read to the end. Then every
//! request answers 200 within its normal time, and the server's RssAnon
//! (`/proc/PID/status`) stays within the prefix cache's budget plus
//! [`RSS_SLACK_MIB`] of what it was before. `cargo test` runs 40 requests;
//! the 200-request soak is `#[ignore]`d (scripts/serve-soaks.sh runs it),
//! and `scripts/soak-hang-ups.sh N` runs the 40-request test with N.

use std::time::{Duration, Instant};

use super::hardening::hang_up_after;
use crate::support::env::{default_model, TestEnv};
use crate::support::http::chat;

/// Requests in `cargo test`'s soak (`DROIDSCORE_SOAK_REQUESTS` for another
/// count): 36 abandoned, 4 read to the end.
const REQUESTS: usize = 40;
/// Requests in the full soak, which scripts/serve-soaks.sh runs.
const SOAK_REQUESTS: usize = 200;
/// The prefix cache's budget during the soak, MiB.
const BUDGET_MIB: u64 = 32;
/// What RssAnon may grow beyond the budget: the sequence being run and the
/// allocator's slack.
const RSS_SLACK_MIB: u64 = 64;

/// xorshift64*: the soak's choices, the same every run for one seed.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

fn rss_anon_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

const PROMPTS: [&str; 4] = [
    "Write a long story about a cat who sails the sea.",
    "List every country in Europe with its capital.",
    "Explain how a phone's battery charges, step by step.",
    "Describe the settings screen of an Android phone.",
];

fn request(prompt: &str, max_tokens: u64) -> serde_json::Value {
    serde_json::json!({"messages": [{"role": "user", "content": prompt}], "max_tokens": max_tokens})
}

/// `n` requests that are read to the end: each one's time.
fn timed(addr: &str, n: usize) -> Vec<Duration> {
    (0..n)
        .map(|i| {
            let started = Instant::now();
            let (status, reply) = chat(addr, &request(PROMPTS[i % PROMPTS.len()], 8));
            assert_eq!(status, 200, "{reply}");
            started.elapsed()
        })
        .collect()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

#[test]
fn after_clients_hang_up_at_random_points_every_request_answers_and_memory_stays_bounded() {
    let requests = std::env::var("DROIDSCORE_SOAK_REQUESTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(REQUESTS);
    soak("serve-soak", requests);
}

#[test]
#[ignore = "soak: run scripts/serve-soaks.sh"]
fn after_200_clients_hang_up_at_random_points_every_request_answers_and_memory_stays_bounded() {
    soak("serve-soak-200", SOAK_REQUESTS);
}

/// `requests` chat completions from two clients, 7 in 8 abandoned; then 10
/// timed requests and RssAnon against the ones before.
fn soak(name: &str, requests: usize) {
    let env = TestEnv::new(name);
    let budget = BUDGET_MIB.to_string();
    let server = env.serve(&default_model(), &["--prefix-cache-mib", &budget]);
    let addr = server.addr.clone();
    let normal = median(timed(&addr, 5));
    let before = rss_anon_kib(server.pid);
    let started = Instant::now();
    let clients: Vec<_> = (0..2u64)
        .map(|c| {
            let addr = addr.clone();
            std::thread::spawn(move || {
                let mut draw = Draw(0x9e37_79b9_7f4a_7c15 ^ (c + 1));
                let mut read = 0;
                for i in 0..requests / 2 {
                    let prompt = PROMPTS[draw.below(PROMPTS.len() as u64) as usize];
                    let body = request(prompt, 4 + draw.below(13));
                    if i % 8 == 7 {
                        let (status, reply) = chat(&addr, &body);
                        assert_eq!(status, 200, "request {i} of client {c}: {reply}");
                        read += 1;
                    } else {
                        let after = Duration::from_millis(draw.below(400));
                        hang_up_after(&addr, &body.to_string(), after);
                    }
                }
                read
            })
        })
        .collect();
    let read: usize = clients.into_iter().map(|c| c.join().unwrap()).sum();
    let soak = started.elapsed();
    let later = timed(&addr, 10);
    let after = rss_anon_kib(server.pid);
    let slowest = *later.iter().max().unwrap();
    let fastest = *later.iter().min().unwrap();
    eprintln!(
        "soak: {requests} requests ({read} read to the end) in {soak:?}; 10 later requests: median {:?}, \
         fastest {fastest:?}, slowest {slowest:?} (normal, before the soak: {normal:?}); RssAnon {} MiB \
         before, {} MiB after (bound: +{} MiB)",
        median(later.clone()),
        before / 1024,
        after / 1024,
        BUDGET_MIB + RSS_SLACK_MIB,
    );
    assert!(
        slowest < normal * 3 + Duration::from_secs(2),
        "a later request took {slowest:?}; normally {normal:?}"
    );
    assert!(
        after <= before + (BUDGET_MIB + RSS_SLACK_MIB) * 1024,
        "RssAnon grew from {} to {} MiB",
        before / 1024,
        after / 1024
    );
}
