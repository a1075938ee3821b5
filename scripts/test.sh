#!/usr/bin/env bash
# The test command (README "Test"): formatting, lints, every test in the
# workspace, and the task-suite check. Installs what it needs; needs only a
# Rust toolchain with rustfmt and clippy (rustup's default profile).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy --all-targets -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo test --workspace"
cargo test --workspace --locked

echo "== droidscore tasks check"
cargo run --quiet --locked -p droidscore -- tasks check
