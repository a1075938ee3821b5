#!/usr/bin/env bash
# Perplexity with our tokenizer beside llama-perplexity's (issue 16), per
# model, on one text:
# - llama-perplexity -c 512 --chunks N writes its base (its tokens and its
#   log-probabilities) and prints its PPL;
# - `droidscore-device logits` writes ours from the same file and text with
#   the server's tokenizer (`--tokenizer gguf`): the script checks that both
#   bases hold the same tokens, position for position;
# - `droidscore-device kld --base` scores our forward pass on llama.cpp's
#   base: our PPL and llama.cpp's over the same positions, ln(PPL ratio) and
#   the two engines' KLD (docs/cpu-4bit.md's floor is about 0.004).
# Special tokens written out in the text (`<|vision_start|>`) are read as
# special by ours, as the server reads a chat prompt, and as plain text by
# llama-perplexity (parse_special off): from the first one on, the two
# bases' positions shift and differ. The PPL and KLD are on llama.cpp's
# tokens either way.
# Both engines run the file's own packed weights, 2 threads.
#
# Usage: LLAMA_CPP_BIN=DIR scripts/ppl-check.sh OUT [MODEL...]
#   MODEL: registry names (default: smollm2-135m qwen2.5-coder-0.5b)
#   CHUNKS: chunks of 512 tokens (default 4: 1,020 scored positions)
#   DROIDSCORE_DEVICE: the binary (default: scripts/build-device.sh auto)
# The text is docs/device.md and docs/harness.md at commit 2e3a29d, the
# corpus of scripts/fidelity.sh (pinned: editing the docs moves nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${LLAMA_CPP_BIN:?set LLAMA_CPP_BIN to the directory scripts/build-llama-cpp.sh prints}"
out=$(realpath -m "$1")
shift
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(smollm2-135m qwen2.5-coder-0.5b)
chunks=${CHUNKS:-4}
dev=${DROIDSCORE_DEVICE:-$(bash scripts/build-device.sh auto)}
mkdir -p "$out"
corpus="$out/corpus.txt"
git show 2e3a29d:docs/device.md >"$corpus"
git show 2e3a29d:docs/harness.md >>"$corpus"
export LD_LIBRARY_PATH="$LLAMA_CPP_BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "# ppl-check.sh $(date -u +%FT%TZ), git $(git rev-parse --short HEAD), corpus sha256 $(sha256sum "$corpus" | cut -c1-16), $chunks chunks of 512" | tee "$out/provenance.txt"
for name in "${models[@]}"; do
    model=$("$dev" fetch-model "$name")
    d="$out/$name"
    mkdir -p "$d"
    echo "== $name: $model (load average $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$out/provenance.txt" >&2
    "$LLAMA_CPP_BIN/llama-perplexity" -m "$model" -f "$corpus" -c 512 --chunks "$chunks" -t 2 \
        --kl-divergence-base "$d/llama.kld" >"$d/llama.log" 2>&1
    DROIDSCORE_CACHE="$d/cache" "$dev" logits -m "$model" -f "$corpus" -c 512 --chunks "$chunks" -t 2 \
        --out "$d/ours.kld" >"$d/ours-logits.json" 2>"$d/ours-logits.log"
    DROIDSCORE_CACHE="$d/cache" "$dev" kld -m "$model" --base "$d/llama.kld" -t 2 -o json \
        >"$d/kld.json" 2>"$d/kld.log"
done
python3 - "$out" "${models[@]}" <<'EOF' | tee "$out/ppl.md"
import json, re, struct, sys
out, *models = sys.argv[1:]

def tokens(path):
    with open(path, "rb") as f:
        assert f.read(8) == b"_logits_", path
        n_ctx, n_vocab, n_chunk = struct.unpack("<3I", f.read(12))
        return list(struct.unpack(f"<{n_ctx * n_chunk}i", f.read(4 * n_ctx * n_chunk)))

print("| model | tokens, ours / llama.cpp | differing (first at) | PPL, llama-perplexity (its log) | PPL, llama.cpp's base | PPL, ours | ln(PPL ours / llama.cpp) | KLD, ours from llama.cpp | same top % |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for m in models:
    d = f"{out}/{m}"
    ours, llama = tokens(f"{d}/ours.kld"), tokens(f"{d}/llama.kld")
    diff = sum(a != b for a, b in zip(ours, llama)) + abs(len(ours) - len(llama))
    first = next((i for i, (a, b) in enumerate(zip(ours, llama)) if a != b), None)
    log = open(f"{d}/llama.log", errors="replace").read()
    final = re.search(r"Final estimate: PPL = ([0-9.]+) \+/- ([0-9.]+)", log)
    k = json.load(open(f"{d}/kld.json"))
    said = f"{final.group(1)} ± {final.group(2)}" if final else "?"
    at = "" if first is None else f" (from {first})"
    print(f"| {m} | {len(ours)} / {len(llama)} | {diff}{at} | {said} | "
          f"{k['ppl_base']:.4f} ± {k['ppl_base_uncertainty']:.4f} | {k['ppl']:.4f} ± {k['ppl_uncertainty']:.4f} | "
          f"{k['ln_ppl_ratio']:+.5f} ± {k['ln_ppl_ratio_uncertainty']:.5f} | "
          f"{k['kld_mean']:.6f} ± {k['kld_uncertainty']:.6f} | "
          f"{100 * k['same_top']:.2f} ± {100 * k['same_top_uncertainty']:.2f} |")
print()
print("Raw: kld.json per model (our `kld -o json` against llama.cpp's base).")
EOF
