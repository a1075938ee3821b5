#!/usr/bin/env bash
# The device server's speed figures for docs/results.md, side by side in one
# run: droidscore-device speed (pp512/tg128, -r 5) on the default model for
# each arm below, the arms' order rotated each pass, and llama.cpp's
# llama-bench on the same file and threads when LLAMA_BENCH names it.
# Usage: scripts/speed-matrix.sh SHIPPED_BIN DEFAULT_BIN OUT_DIR [PASSES]
# (the two binaries from scripts/build-device.sh x86-64-v3 / default;
# DEFAULT_BIN - leaves the default-flags arms out).
set -euo pipefail
shipped=$1 default=$2 out=$3 passes=${4:-1}
mkdir -p "$out"
model=$("$shipped" fetch-model)
arms=(
    "shipped t2 f32|$shipped|-t 2 --dtype f32"
    "shipped t2 bf16|$shipped|-t 2 --dtype bf16"
    "shipped t1 f32|$shipped|-t 1 --dtype f32"
    "shipped t1 bf16|$shipped|-t 1 --dtype bf16"
)
# DEFAULT_BIN "-": no default-flags build to compare (say so beside the figures).
if [ "$default" != - ]; then
    arms+=("default t2 f32|$default|-t 2 --dtype f32" "default t2 bf16|$default|-t 2 --dtype bf16")
fi
if [ -n "${LLAMA_BENCH:-}" ]; then
    arms+=("llama-bench t2|llama|-t 2" "llama-bench t1|llama|-t 1")
fi
n=${#arms[@]}
{
    echo "# speed-matrix $(date -u +%FT%TZ) on $(uname -n), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
    echo "# model $model ($(stat -c %s "$model") bytes), passes $passes"
} | tee "$out/provenance.txt"
for ((p = 0; p < passes; p++)); do
    for ((i = 0; i < n; i++)); do
        arm=${arms[$(((i + p) % n))]}
        tag=${arm%%|*} rest=${arm#*|}
        bin=${rest%%|*} args=${rest#*|}
        file="$out/$(echo "$tag" | tr ' ' '_').p$p.json"
        echo "== pass $p: $tag (load average before: $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$out/provenance.txt" >&2
        if [ "$bin" = llama ]; then
            # shellcheck disable=SC2086
            "$LLAMA_BENCH" -m "$model" -p 512 -n 128 -r 5 $args -o json >"$file"
        else
            # shellcheck disable=SC2086
            RUST_LOG=error "$bin" speed -m "$model" -p 512 -n 128 -r 5 $args -o json >"$file"
        fi
    done
done
python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
rows = []
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    tag = os.path.basename(path).rsplit(".p", 1)[0].replace("_", " ")
    for t in json.load(open(path)):
        test = f"pp{t['n_prompt']}" if t["n_prompt"] else f"tg{t['n_gen']}"
        ts = sorted(t["samples_ts"])
        med = ts[len(ts) // 2] if len(ts) % 2 else (ts[len(ts) // 2 - 1] + ts[len(ts) // 2]) / 2
        feats = ",".join(t.get("target_features", [])) or ("native (llama.cpp)" if tag.startswith("llama") else "(baseline)")
        rss = t.get("memory_at_ready", {}).get("rss_anon_kib")
        hwm = t.get("memory_at_ready", {}).get("peak_rss_kib")
        rows.append((tag, test, t["n_threads"], t.get("dtype", t.get("type_k", "")), t["avg_ts"], t["stddev_ts"], med, ts[0], ts[-1], rss, hwm, feats))
print("| arm | test | threads | dtype | t/s mean ± sd | median [min–max] | RssAnon at ready | peak RSS at ready | target features |")
print("|---|---|---:|---|---:|---:|---:|---:|---|")
for r in rows:
    rss = f"{r[9] / 1024:.1f} MiB" if r[9] else "—"
    hwm = f"{r[10] / 1024:.1f} MiB" if r[10] else "—"
    print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]:.2f} ± {r[5]:.2f} | {r[6]:.2f} [{r[7]:.2f}–{r[8]:.2f}] | {rss} | {hwm} | {r[11]} |")
PY
