#!/usr/bin/env bash
# Issue 7's figures for docs/cpu-4bit.md and docs/results.md, from one
# command: how far each 4-bit path moves the default model (KLD and top-1
# agreement against the model as shipped, Q4_1), and what each costs (pp512,
# tg128, peak RSS) through `droidscore bench`.
#
# Usage: scripts/fidelity.sh OUT_DIR [fidelity|speed|all] [PASSES]
#   LLAMA_CPP_BIN=dir   also score every candidate with llama.cpp's own
#                       llama-perplexity --kl-divergence (base from llama.cpp)
#   CROSS=1             and with ours against llama.cpp's base (same tokens,
#                       the other engine's reference)
#   CHUNKS=n            chunks of 512 tokens (default 4: 1,020 positions)
#
# - The corpus is docs/device.md and docs/harness.md as of commit 2e3a29d
#   (pinned: the figures do not move when the docs are edited), CHUNKS
#   chunks of 512 tokens, the second half of each scored (255 per chunk).
# - The reference is the default model's dequantized Q4_1 weights, the only
#   weights of it available here: every KLD is relative to the model as
#   shipped, not to its original bf16 weights.
# - Every candidate is the same source re-quantized by `--quant/--keep-output`
#   (the path as a load option); each run and each bench arm has its own
#   DROIDSCORE_CACHE, so no two configurations share a quantized file.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "$1") what=${2:-all} passes=${3:-3}
mkdir -p "$out"
dev=$(bash scripts/build-device.sh x86-64-v3)
host_dir=${CARGO_TARGET_DIR:-$PWD/target}
cargo build --release --locked -p droidscore >&2
host="$host_dir/release/droidscore"
model=$("$dev" fetch-model)
corpus="$out/corpus.txt"
git show 2e3a29d:docs/device.md >"$corpus"
git show 2e3a29d:docs/harness.md >>"$corpus"

# tag|--quant|--keep-output ("-": the file as it is)
candidates=(
    "q4_1 as shipped|-|-"
    "q8_0 head same|q8_0|same"
    "q4_0 head kept|q4_0|same"
    "q4_0 head quantized|q4_0|no"
    "q4k head kept|q4k|same"
    "q4k head quantized|q4k|no"
)
path_args() { # --quant/--keep-output flags for a candidate
    [ "$1" = - ] || printf -- '--quant\n%s\n--keep-output\n%s\n' "$1" "$2"
}
slug() { echo "$1" | tr ' ' '_'; }

{
    echo "# fidelity.sh $(date -u +%FT%TZ) on $(uname -n), $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
    echo "# git $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (dirty)'); device $dev; model $model (sha256 $(sha256sum "$model" | cut -c1-16))"
    echo "# corpus $corpus (sha256 $(sha256sum "$corpus" | cut -c1-16)), load average $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee -a "$out/provenance.txt"

if [ "$what" = fidelity ] || [ "$what" = all ]; then
    DROIDSCORE_CACHE="$out/cache-base" "$dev" logits -m "$model" -f "$corpus" -c 512 --chunks "${CHUNKS:-4}" \
        -t 2 --out "$out/base.kld" >"$out/base.json"
    if [ -n "${LLAMA_CPP_BIN:-}" ]; then
        export LD_LIBRARY_PATH="$LLAMA_CPP_BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        "$LLAMA_CPP_BIN/llama-perplexity" -m "$model" -f "$corpus" -c 512 --chunks "${CHUNKS:-4}" -t 2 \
            --kl-divergence-base "$out/llama-base.kld" >"$out/llama-base.log" 2>&1
    fi
    for c in "${candidates[@]}"; do
        IFS='|' read -r tag quant keep <<<"$c"
        s=$(slug "$tag")
        mapfile -t flags < <(path_args "$quant" "$keep")
        echo "== $tag (load average $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$out/provenance.txt" >&2
        DROIDSCORE_CACHE="$out/cache-$s" "$dev" kld -m "$model" "${flags[@]}" --base "$out/base.kld" \
            -t 2 -o json >"$out/kld-$s.json" 2>"$out/kld-$s.log"
        if [ -n "${LLAMA_CPP_BIN:-}" ]; then
            file=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["model"]; print((m["requantized"] or {}).get("file") or m["path"])' "$out/kld-$s.json")
            "$LLAMA_CPP_BIN/llama-perplexity" -m "$file" -c 512 -t 2 --kl-divergence-base "$out/llama-base.kld" \
                --kl-divergence >"$out/llama-kld-$s.log" 2>&1
        fi
        if [ -n "${LLAMA_CPP_BIN:-}" ] && [ -n "${CROSS:-}" ]; then
            # Ours on llama.cpp's base: the same tokens, the other engine's reference.
            DROIDSCORE_CACHE="$out/cache-$s" "$dev" kld -m "$model" "${flags[@]}" --base "$out/llama-base.kld" \
                -t 2 -o json >"$out/cross-$s.json" 2>"$out/cross-$s.log"
        fi
    done
    python3 scripts/fidelity-table.py "$out" | tee "$out/fidelity.md"
fi

if [ "$what" = speed ] || [ "$what" = all ]; then
    python3 - "$out" "$dev" "$model" "${candidates[@]}" >"$out/arms.json" <<'EOF'
import json, sys
out, dev, model, *cands = sys.argv[1:]
arms = []
for c in cands:
    tag, quant, keep = c.split("|")
    if tag == "q8_0 head same":
        continue  # a control for the fidelity table, not a 4-bit path
    slug = tag.replace(" ", "_")
    cache = f"{out}/bench-cache/{slug}"
    cmd = [dev, "speed", "-m", model, "-p", "512", "-n", "128", "-r", "3", "-t", "2", "-o", "json"]
    if quant != "-":
        cmd += ["--quant", quant, "--keep-output", keep]
    arms.append({"tag": tag, "command": cmd, "output": "llama-bench-json",
                 "env": {"DROIDSCORE_CACHE": cache, "HF_HOME": f"{cache}/hf",
                         "XDG_CACHE_HOME": f"{cache}/xdg", "CARGO_TARGET_DIR": f"{cache}/target",
                         "RUST_LOG": "error"}})
print(json.dumps({"arms": arms}, indent=1))
EOF
    n=$(ls "$out"/speed*.json 2>/dev/null | grep -c 'speed[0-9]*\.json$' || true)
    run="speed$((n + 1))"
    "$host" bench run --spec "$out/arms.json" --passes "$passes" --metric pp512_ts \
        --keys pp512_ts,tg128_ts,memory_at_ready.rss_anon_kib,memory_after.peak_rss_kib \
        --cores 0-1 --out "$out/$run.json" --md "$out/$run.md" 2>&1 | tee "$out/$run.log"
fi
