#!/usr/bin/env bash
# The model server's hang-up soak, longer than the one in `cargo test`: N chat
# completions (default 1000) on the default model from two clients, most
# abandoned at a random point, then ten timed requests and RssAnon before and
# after (device/tests/serve/soak.rs). Prints the test's summary line; with
# OUT set, writes the whole output there too.
#
# Usage: scripts/soak-hang-ups.sh [N]   (OUT=/path/soak.txt to keep it)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-1000}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
DROIDSCORE_SOAK_REQUESTS="$n" cargo test -p droidscore-device --locked --test serve -- \
    soak --nocapture 2>&1 | grep -v ' WARN \| INFO ' | tee "$log"
if [ -n "${OUT:-}" ]; then cp "$log" "$OUT"; fi
grep -q 'test result: ok' "$log"
