#!/usr/bin/env python3
"""The device server's memory over many distinct agent steps (issue 16).

Starts `droidscore-device serve`, waits until it is ready, reads RssAnon at
ready from /proc/PID/status, then sends N chat requests shaped like agent
steps: one system prompt that never changes, then a user message whose goal
repeats over an episode of E steps and whose history and element list differ
at every step, so every prompt is distinct and the prefix cache sees what an
agent gives it. After every request RssAnon is read again. Prints one JSON
line per sample and, last, a summary line: ready, median/max/final RssAnon,
the bound (ready + BOUND_MIB) and whether every sample stayed inside it, and
the prompt tokens sent and served from the cache, from the server's usage.

Usage: prefix-soak.py DEVICE_BIN MODEL [--steps 200] [--tokens 800]
       [--episode 8] [--bound-mib 256] [--threads 2] [-- SERVE_ARGS…]
"""

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import time
import urllib.request

SYSTEM = (
    "You operate an Android phone for a user. Each step shows the goal, the "
    "steps so far and the screen's UI elements; answer with one action as JSON."
)
WORDS = (
    "Network internet Wi-Fi Bluetooth Display Battery Sound vibration Apps "
    "Storage Security Privacy Location Accounts Accessibility System About "
    "phone Notifications Connected devices brightness timeout alarm Clock "
    "Timer Stopwatch Bedtime label repeat snooze switch toggle summary"
).split()


def rss_anon_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    raise RuntimeError(f"no RssAnon for pid {pid}")


def post(url, body, timeout=600):
    req = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.load(r)


def user_message(rng, episode, step, chars):
    goal = f"Goal: task {episode}: turn {rng.choice(WORDS)} on."
    lines = [goal, "History:"]
    for s in range(step):
        lines.append(f"{s + 1}. click {rng.randrange(20)} -> screen changed")
    lines.append("Elements:")
    i = 0
    while sum(len(l) + 1 for l in lines) < chars:
        label = " ".join(rng.choice(WORDS) for _ in range(3))
        lines.append(f"[{i}] TextView \"{label}\" {rng.randrange(10**6)}")
        i += 1
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("device_bin")
    p.add_argument("model")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--tokens", type=int, default=800, help="prompt tokens a step, roughly")
    p.add_argument("--chars-per-token", type=float, default=3.6)
    p.add_argument("--episode", type=int, default=8, help="steps sharing one goal")
    p.add_argument("--bound-mib", type=float, default=256)
    p.add_argument("--max-tokens", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=16)
    a, serve_args = p.parse_known_args()
    if serve_args[:1] == ["--"]:
        serve_args = serve_args[1:]
    a.serve_args = serve_args

    serve = [a.device_bin, "serve", "--model", a.model, "--listen", "127.0.0.1:0",
             "--threads", str(a.threads), *a.serve_args]
    print(json.dumps({"serve": serve}), flush=True)
    server = subprocess.Popen(serve, stdout=subprocess.PIPE, text=True)
    try:
        url = None
        deadline = time.time() + 900
        while time.time() < deadline:
            line = server.stdout.readline()
            if not line:
                sys.exit(f"prefix-soak: the server exited ({server.wait()}) before it was ready")
            m = re.match(r"^(http://127\.0\.0\.1:[0-9]+/v1)$", line.strip())
            if m:
                url = m.group(1)
                break
        if url is None:
            sys.exit("prefix-soak: the server was not ready in 900 s")
        with urllib.request.urlopen(url[: -len("/v1")] + "/health") as r:
            health = json.load(r)
        ready = rss_anon_kib(server.pid)
        print(json.dumps({"ready_rss_anon_kib": ready, "health": health}), flush=True)
        rng = random.Random(a.seed)
        chars = int(a.tokens * a.chars_per_token)
        samples, sent, cached, latencies = [], [], [], []
        for i in range(a.steps):
            episode, step = divmod(i, a.episode)
            body = {
                "messages": [
                    {"role": "system", "content": SYSTEM},
                    {"role": "user", "content": user_message(rng, episode, step, chars)},
                ],
                "max_tokens": a.max_tokens,
                "temperature": 0,
            }
            t0 = time.monotonic()
            r = post(url + "/chat/completions", body)
            latencies.append(time.monotonic() - t0)
            usage = r.get("usage", {})
            details = usage.get("prompt_tokens_details") or {}
            sent.append(usage.get("prompt_tokens", 0))
            cached.append(details.get("cached_tokens"))
            kib = rss_anon_kib(server.pid)
            samples.append(kib)
            print(json.dumps({"step": i + 1, "rss_anon_kib": kib,
                              "prompt_tokens": sent[-1], "cached_tokens": cached[-1],
                              "latency_s": round(latencies[-1], 3)}), flush=True)
        bound = ready + a.bound_mib * 1024
        known = [c for c in cached if c is not None]
        print(json.dumps({
            "summary": True,
            "steps": a.steps,
            "ready_rss_anon_kib": ready,
            "median_rss_anon_kib": statistics.median(samples),
            "max_rss_anon_kib": max(samples),
            "final_rss_anon_kib": samples[-1],
            "max_above_ready_mib": round((max(samples) - ready) / 1024, 1),
            "bound_kib": bound,
            "within_bound": max(samples) <= bound,
            "prompt_tokens_median": statistics.median(sent),
            "cached_tokens_median": statistics.median(known) if known else None,
            "cached_tokens_total": sum(known) if known else None,
            "prompt_tokens_total": sum(sent),
            "latency_median_s": round(statistics.median(latencies), 3),
            "latency_max_s": round(max(latencies), 3),
        }), flush=True)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
