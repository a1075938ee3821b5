#!/usr/bin/env bash
# The main job (README "Run"): prove every task's oracle, then score the
# reference solver and the do-nothing agent on the simulator over every task
# and variant. Needs only a Rust toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --locked -p droidscore
bin=target/release/droidscore
[ -n "${CARGO_TARGET_DIR:-}" ] && bin="$CARGO_TARGET_DIR/release/droidscore"

"$bin" tasks check
"$bin" run --phone sim --agent reference
"$bin" run --phone sim --agent noop
