#!/usr/bin/env bash
# Ours against llama.cpp's tokenizer, token for token: for each model and
# each text under fixtures/tokens/, `droidscore-device tokenize` (the
# server's own tokenizer, through mistral.rs) and llama-tokenize (--ids
# --no-bos --no-escape: no BOS added, the bytes as they are, special tokens
# in the text matched as both sides do), once with our tokenizer
# (--tokenizer gguf) and once with mistral.rs's (--tokenizer mistralrs).
# Prints, per row, the token counts and how many positions differ (a
# position past the shorter list counts as differing), and the first
# difference. Exits 1 if any `gguf` row differs.
#
# Usage: LLAMA_CPP_BIN=DIR scripts/tokens-check.sh [MODEL...]
#   MODEL: registry names or GGUF paths (default: smollm2-135m qwen2.5-coder-0.5b)
#   LLAMA_CPP_BIN: the directory scripts/build-llama-cpp.sh prints
#   DROIDSCORE_DEVICE: the binary (default: $CARGO_TARGET_DIR/debug/droidscore-device)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${LLAMA_CPP_BIN:?set LLAMA_CPP_BIN to the directory scripts/build-llama-cpp.sh prints}"
llama="$LLAMA_CPP_BIN/llama-tokenize"
[ -x "$llama" ] || { echo "tokens-check: no llama-tokenize in $LLAMA_CPP_BIN (scripts/build-llama-cpp.sh builds it)" >&2; exit 2; }
device="${DROIDSCORE_DEVICE:-${CARGO_TARGET_DIR:-target}/debug/droidscore-device}"
[ -x "$device" ] || { echo "tokens-check: no $device (cargo build, or set DROIDSCORE_DEVICE)" >&2; exit 2; }
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(smollm2-135m qwen2.5-coder-0.5b)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
printf '%-22s %-22s %-10s %8s %8s %9s  %s\n' model text tokenizer ours llama differing "first difference"
for model in "${models[@]}"; do
    if [ -f "$model" ]; then path=$model; else path=$("$device" fetch-model "$model"); fi
    for text in fixtures/tokens/*.txt; do
        "$llama" -m "$path" -f "$text" --ids --no-bos --no-escape --log-disable 2>"$work/llama.err" \
            | tr -d '[] ' | tr ',' '\n' | sed '/^$/d' >"$work/llama" \
            || { cat "$work/llama.err" >&2; exit 2; }
        for tok in gguf mistralrs; do
            RUST_LOG=warn "$device" tokenize -m "$model" --tokenizer "$tok" "$text" >"$work/ours"
            row=$(python3 - "$work/ours" "$work/llama" <<'EOF'
import sys
ours = open(sys.argv[1]).read().split()
theirs = open(sys.argv[2]).read().split()
n = max(len(ours), len(theirs))
diff = [i for i in range(n) if i >= len(ours) or i >= len(theirs) or ours[i] != theirs[i]]
first = "-"
if diff:
    i = diff[0]
    first = f"at {i}: ours {ours[i:i+4]} llama {theirs[i:i+4]}"
print(len(ours), len(theirs), len(diff), first, sep="\t")
EOF
)
            IFS=$'\t' read -r n_ours n_llama n_diff first <<<"$row"
            printf '%-22s %-22s %-10s %8s %8s %9s  %s\n' "$(basename "$model")" "$(basename "$text")" \
                "$tok" "$n_ours" "$n_llama" "$n_diff" "$first"
            if [ "$tok" = gguf ] && [ "$n_diff" != 0 ]; then status=1; fi
        done
    done
done
exit $status
