#!/usr/bin/env bash
# Every figure in docs/results.md (README.md "Results" quotes a few), from one command.
# Each part writes its raw outputs under OUT/PART/; then
# scripts/results-table.py OUT prints every table from them.
#
# Usage: scripts/results.sh OUT [PART ...]
#   suite    tasks check; reference solver and do-nothing agent, every variant
#   host     criterion benches: parser, simulator, adb observation, agent loop
#   adb      the reference solver through the real adb server (virtual phone),
#            verdicts against the simulator's; one observation's cost, n=100
#   speed    pp512/tg128 of the default model, f32 and bf16, beside llama.cpp's
#            llama-bench (LLAMA_CPP_BIN) as arms of one `droidscore bench run`,
#            3 passes; then the default-flags build beside the shipped one
#   memory   peak RssAnon up to ready, RssAnon at ready and after a 2,048-token
#            request, 3 passes; the
#            memory ledger of a server at ready
#   agent    the default model as the agent on the main job's slice, beside
#            the reference solver on the same slice
#   fourbit  scripts/fidelity.sh OUT/fourbit all 3 (issue 7's 4-bit figures)
# Without PART: suite host adb speed memory agent (about 35 minutes on 2
# cores); fourbit takes another 20 and is asked for by name.
#
# LLAMA_CPP_BIN=DIR   the bin directory scripts/build-llama-cpp.sh prints;
#                     without it the llama.cpp arms are left out, and said so.
# Measure on a quiet machine: `droidscore bench` refuses a busy one.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/results.sh OUT [suite|host|adb|speed|memory|agent|fourbit ...]" >&2; exit 2; }
out=$(realpath -m "$1")
shift
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(suite host adb speed memory agent)
for p in "${parts[@]}"; do
    case "$p" in suite | host | adb | speed | memory | agent | fourbit) ;; *)
        echo "results.sh: unknown part $p" >&2
        exit 2
        ;;
    esac
done
# Nothing already recorded is overwritten: a part already in OUT is refused
# before anything is built or measured.
for p in "${parts[@]}"; do
    if [ -e "$out/$p" ]; then
        echo "results.sh: $out/$p already holds a run of $p; give another OUT" >&2
        exit 3
    fi
done
mkdir -p "$out"

bash scripts/install-adb.sh >&2
tdir=${CARGO_TARGET_DIR:-$PWD/target}
cargo build --release --locked -p droidscore >&2
bin="$tdir/release/droidscore"
dev=$(bash scripts/build-device.sh x86-64-v3)
model=$("$dev" fetch-model)
{
    echo "# results.sh $(date -u +%FT%TZ) parts: ${parts[*]}"
    echo "# git $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (dirty)') on $(uname -n), $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(rustc --version)"
    echo "# device $dev; model $model ($(stat -c %s "$model") bytes, sha256 $(sha256sum "$model" | cut -c1-16))"
    echo "# load average $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee -a "$out/provenance.txt" >&2
stamp() { echo "== $1 $(date -u +%T) load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/provenance.txt" >&2; }

# One arm's private caches, so no two arms share a compiled or quantized file.
arm_env() {
    printf '{"DROIDSCORE_CACHE": "%s", "HF_HOME": "%s/hf", "XDG_CACHE_HOME": "%s/xdg", "CARGO_TARGET_DIR": "%s/target", "RUST_LOG": "error"}' "$1" "$1" "$1" "$1"
}

for part in "${parts[@]}"; do
    d="$out/$part"
    mkdir -p "$d"
    stamp "$part"
    case "$part" in
    suite)
        "$bin" tasks check >"$d/check.txt"
        for agent in reference noop; do
            "$bin" run --phone sim --agent "$agent" --store "$d/runs.sqlite" --json >"$d/$agent.json"
            "$bin" report --store "$d/runs.sqlite" --format json >"$d/$agent.report.json"
        done
        ;;
    host)
        # criterion's own directory per run, so no earlier run's samples are read.
        CRITERION_HOME="$d/criterion" cargo bench --locked -p droidscore \
            --bench uiautomator --bench sim --bench adb_observe --bench agent_loop \
            -- --warm-up-time 2 --measurement-time 5 >"$d/bench.log" 2>&1
        ;;
    adb)
        "$bin" run --phone sim --agent reference --store "$d/runs.sqlite" --json >"$d/sim.json"
        (
            source scripts/virtual-phone.sh # stopped when this subshell exits
            start_virtual_phone "$bin"
            "$bin" run --phone adb --serial "$serial" --agent reference --store "$d/runs.sqlite" --json >"$d/adb.json"
            "$bin" report --store "$d/runs.sqlite" --format json >"$d/adb.report.json"
            "$bin" adb latency --serial "$serial" -n 100 --json >"$d/latency.json"
        )
        python3 scripts/verdict-diff.py "$d/sim.json" "$d/adb.json" | tee "$d/verdict-diff.txt" >&2
        ;;
    speed)
        python3 - "$d" "$dev" "$model" "$(arm_env "$d/cache/f32")" "$(arm_env "$d/cache/bf16")" "$(arm_env "$d/cache/llama")" >"$d/arms.json" <<'EOF'
import json, os, sys
d, dev, model, env_f32, env_bf16, env_llama = sys.argv[1:]
speed = [dev, "speed", "-m", model, "-p", "512", "-n", "128", "-r", "3", "-t", "2", "-o", "json"]
arms = [
    {"tag": "ours f32", "command": speed + ["--dtype", "f32"], "output": "llama-bench-json", "env": json.loads(env_f32)},
    {"tag": "ours bf16", "command": speed + ["--dtype", "bf16"], "output": "llama-bench-json", "env": json.loads(env_bf16)},
]
llama = os.environ.get("LLAMA_CPP_BIN")
if llama:
    arms.append({"tag": "llama-bench", "command": [f"{llama}/llama-bench", "-m", model, "-p", "512", "-n", "128",
                                                  "-r", "3", "-t", "2", "-o", "json"],
                 "output": "llama-bench-json", "env": {**json.loads(env_llama), "LD_LIBRARY_PATH": llama}})
print(json.dumps({"arms": arms}, indent=1))
EOF
        "$bin" bench run --spec "$d/arms.json" --passes 3 --metric pp512_ts --keys pp512_ts,tg128_ts \
            --cores 0-1 --out "$d/bench.json" --md "$d/bench.md" >"$d/bench.log" 2>&1
        # Target features: the default-flags build beside the shipped one, one
        # process each (5 repetitions inside it), back to back.
        dev_default=$(bash scripts/build-device.sh default)
        stamp "speed: default flags, then shipped"
        RUST_LOG=error DROIDSCORE_CACHE="$d/cache/default" "$dev_default" speed -m "$model" -p 512 -n 128 -r 5 -t 2 -o json >"$d/default-flags.json"
        RUST_LOG=error DROIDSCORE_CACHE="$d/cache/shipped" "$dev" speed -m "$model" -p 512 -n 128 -r 5 -t 2 -o json >"$d/shipped.json"
        ;;
    memory)
        python3 - "$dev" "$model" "$bin" "$(arm_env "$d/cache")" >"$d/arms.json" <<'EOF'
import json, sys
dev, model, host, env = sys.argv[1:]
probe = [host, "bench", "init-memory", "--ready-pattern", r"^(http://127\.0\.0\.1:[0-9]+/v1)$",
         "--health-url", "{url}/../health", "--context-len", "2048", "--chat-url", "{url}/chat/completions",
         "--", dev, "serve", "--model", model, "--listen", "127.0.0.1:0", "--threads", "2"]
print(json.dumps({"arms": [{"tag": "server, 2,048-token request", "command": probe, "env": json.loads(env)}],
                  "directions": {"context.tree.rss_anon_kib": "lower", "context.peak_rss_anon_kib": "lower",
                                 "at_ready.rss_kib": "lower",
                                 "context.prompt_tokens": "higher"}}, indent=1))
EOF
        "$bin" bench run --spec "$d/arms.json" --passes 3 --metric at_ready.rss_anon_kib \
            --keys peak_rss_anon_kib,at_ready.rss_anon_kib,at_ready.rss_kib,context.tree.rss_anon_kib,context.peak_rss_anon_kib,context.prompt_tokens \
            --cores 0-1 --out "$d/bench.json" --md "$d/bench.md" >"$d/bench.log" 2>&1
        # The ledger of a server at ready: where its resident memory is.
        DROIDSCORE_CACHE="$d/cache" RUST_LOG=error "$dev" serve --model "$model" --listen 127.0.0.1:0 --threads 2 >"$d/serve.out" 2>"$d/serve.err" &
        server=$!
        for _ in $(seq 600); do grep -q '^http' "$d/serve.out" 2>/dev/null && break; sleep 0.1; done
        url=$(grep -m1 '^http' "$d/serve.out")
        for _ in $(seq 100); do curl -sf "${url%/v1}/health" >/dev/null && break; sleep 0.1; done
        "$bin" bench ledger --pid "$server" --model "$model" >"$d/ledger.json"
        kill "$server"
        wait "$server" 2>/dev/null || true
        ;;
    agent)
        # The main job's slice: the six tasks matching [ab]*_on, base variant,
        # eight steps, the budget under which the reference solver completes
        # every one; the model runs on this CPU, started by `droidscore run`.
        slice=(--phone sim --tasks '[ab]*_on' --variants base --max-steps 8 --store "$d/runs.sqlite")
        "$bin" run "${slice[@]}" --agent reference --json >"$d/reference.json"
        "$bin" report --store "$d/runs.sqlite" --format json >"$d/reference.report.json"
        "$bin" run "${slice[@]}" --device-bin "$dev" --json >"$d/model.json"
        "$bin" report --store "$d/runs.sqlite" --format json >"$d/model.report.json"
        ;;
    fourbit)
        bash scripts/fidelity.sh "$d" all 3
        ;;
    esac
done
stamp "done"
python3 scripts/results-table.py "$out" | tee "$out/results.md"
