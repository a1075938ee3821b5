#!/usr/bin/env bash
# The model server's soaks, too long for `cargo test` (docs/device.md, "The
# prefix cache and its budget"): every #[ignore]d test of
# device/tests/serve.rs (the prefix cache over 12 distinct requests and its
# 6-request control without a budget, 200 abandoned requests), each on its
# own, one after the other, with its output and wall time, then one line per
# soak. Builds as scripts/test.sh does (the whole workspace's features, so
# CI's build is reused) and fetches the default model first.
#
# Usage: scripts/serve-soaks.sh [NAME…]   (default: every ignored test;
#        OUT=/path/soaks.txt to keep the whole output)
set -euo pipefail
cd "$(dirname "$0")/.."

serve() { cargo test --workspace --locked --test serve "$@"; }

echo "== cargo test --workspace --test serve --no-run"
serve --no-run
bin="${CARGO_TARGET_DIR:-target}/debug"
echo "== the default model"
"$bin/droidscore-device" fetch-model

if [ $# -gt 0 ]; then
    soaks=("$@")
else
    mapfile -t soaks < <(serve -- --ignored --list 2>/dev/null | sed -n 's/: test$//p')
fi
if [ "${#soaks[@]}" -eq 0 ]; then
    echo "serve-soaks: no ignored test in device/tests/serve.rs" >&2
    exit 1
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
summary=()
failed=0
for name in "${soaks[@]}"; do
    echo "== $name"
    started=$(date +%s)
    # The servers' log lines (coloured or not) are left out.
    if serve -- --ignored --exact "$name" --nocapture 2>&1 |
        grep -av -E '\b(WARN|INFO)\b' | tee -a "$log"; then
        result=ok
    else
        result=FAILED
        failed=1
    fi
    took=$(($(date +%s) - started))
    echo "$name: $result in ${took} s" | tee -a "$log"
    summary+=("$(printf '%6d s  %-6s %s' "$took" "$result" "$name")")
done

echo "== soaks"
printf '%s\n' "${summary[@]}" | tee -a "$log"
if [ -n "${OUT:-}" ]; then cp "$log" "$OUT"; fi
exit "$failed"
