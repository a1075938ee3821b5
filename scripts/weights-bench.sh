#!/usr/bin/env bash
# The weights choice measured (issue 16): one `droidscore bench run` over
# `droidscore-device speed` with the file's own packed weights, dequantized
# at load to f16 and to f32, and re-quantized to q4_0 and q4k (packed), beside
# llama.cpp's llama-bench on the same file, threads and run. Every arm has its
# own cache directory. Prints the bench table; keeps arms.json, bench.json and
# bench.md under OUT.
#
# Usage: scripts/weights-bench.sh OUT MODEL_NAME [PASSES] [REPS]
#   MODEL_NAME  smollm2-135m | qwen2.5-coder-0.5b (fetched if missing)
#   needs LLAMA_CPP_BIN (scripts/build-llama-cpp.sh) for the llama-bench arm
set -euo pipefail
cd "$(dirname "$0")/.."

out=$(realpath -m "$1")
name=$2
passes=${3:-3}
reps=${4:-3}
mkdir -p "$out"
if [ -e "$out/bench.json" ]; then
    echo "weights-bench.sh: $out/bench.json exists; nothing recorded is overwritten" >&2
    exit 2
fi

root=${CARGO_TARGET_DIR:-$PWD/target}
# DROIDSCORE_BIN: a droidscore already built (the harness's own speed does
# not enter the figures: it only starts the arms and reads their JSON).
host=${DROIDSCORE_BIN:-}
if [ -z "$host" ]; then
    cargo build --release --locked -p droidscore >&2
    host="$root/release/droidscore"
fi
dev=$(bash scripts/build-device.sh auto)
model=$("$dev" fetch-model "$name")

python3 - "$out" "$dev" "$model" "$reps" >"$out/arms.json" <<'EOF'
import json, os, sys
out, dev, model, reps = sys.argv[1:]
def env(tag):
    d = os.path.join(out, "cache", tag)
    return {"DROIDSCORE_CACHE": d, "HF_HOME": os.path.join(d, "hf"),
            "XDG_CACHE_HOME": os.path.join(d, "xdg"), "CARGO_TARGET_DIR": os.path.join(d, "target"),
            "RUST_LOG": "error"}
speed = [dev, "speed", "-m", model, "-p", "512", "-n", "128", "-r", reps, "-t", "2", "-o", "json"]
arms = [
    {"tag": "packed", "command": speed + ["--weights", "packed"]},
    {"tag": "f16", "command": speed + ["--weights", "f16"]},
    {"tag": "f32", "command": speed + ["--weights", "f32"]},
    {"tag": "q4_0 packed", "command": speed + ["--quant", "q4_0", "--weights", "packed"]},
    {"tag": "q4k packed", "command": speed + ["--quant", "q4k", "--weights", "packed"]},
]
for arm in arms:
    arm["env"] = env(arm["tag"].replace(" ", "-"))
    arm["output"] = "llama-bench-json"
llama = os.environ.get("LLAMA_CPP_BIN")
if llama:
    arms.append({"tag": "llama-bench",
                 "command": [f"{llama}/llama-bench", "-m", model, "-p", "512", "-n", "128",
                             "-r", reps, "-t", "2", "-o", "json"],
                 "output": "llama-bench-json",
                 "env": {**env("llama-bench"), "LD_LIBRARY_PATH": llama}})
else:
    print("weights-bench.sh: LLAMA_CPP_BIN unset: no llama-bench arm", file=sys.stderr)
print(json.dumps({"arms": arms}, indent=1))
EOF

# The re-quantized arms write their file into their own cache on the first
# pass; warm that up outside the timed passes so pass 1 is not the quantizer's.
for tag in q4_0 q4k; do
    DROIDSCORE_CACHE="$out/cache/$tag-packed" RUST_LOG=error \
        "$dev" speed -m "$model" -p 8 -n 2 -r 1 -t 2 --quant "$tag" -o json >/dev/null
done

"$host" bench run --spec "$out/arms.json" --passes "$passes" --metric pp512_ts \
    --keys pp512_ts,tg128_ts \
    --cores 0-1 --out "$out/bench.json" --md "$out/bench.md" | tee "$out/bench.txt"

# The table for docs/agent-step.md: each arm's median [min–max] over the
# completed passes, its ratio to llama-bench's median from this run (when it
# is an arm), and RssAnon at ready, which is in every speed arm's figures but
# not in llama-bench's (a --keys entry must be in every arm's, so it is read
# from the evidence here).
python3 - "$out/bench.json" <<'EOF2' | tee "$out/table.md"
import json, statistics, sys
report = json.load(open(sys.argv[1]))
arms = {}
for p in report["passes"]:
    if not p.get("complete", True):
        continue
    for run in p["runs"]:
        a = arms.setdefault(run["arm"], {"pp": [], "tg": [], "mem": []})
        f = run["figures"]
        a["pp"].append(f["pp512_ts"])
        a["tg"].append(f["tg128_ts"])
        kib = f.get("memory_at_ready.rss_anon_kib")
        if kib is not None:
            a["mem"].append(kib / 1024)
def band(v):
    return f"{statistics.median(v):.1f} [{min(v):.1f}–{max(v):.1f}]" if v else "–"
ref = arms.get("llama-bench")
def ratio(a, key):
    return f" ({statistics.median(a[key]) / statistics.median(ref[key]):.2f}×)" if ref else ""
print("| arm | pp512 t/s" + (" (× llama-bench)" if ref else "") + " | tg128 t/s | RssAnon at ready, MiB | n |")
print("|---|---|---|---|---:|")
for name, a in arms.items():
    print(f"| {name} | {band(a['pp'])}{ratio(a, 'pp')} | {band(a['tg'])}{ratio(a, 'tg')} | {band(a['mem'])} | {len(a['pp'])} |")
EOF2
