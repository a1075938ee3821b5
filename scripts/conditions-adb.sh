#!/usr/bin/env bash
# The reference solver in every device condition, on the simulator and then
# through the real adb server against the simulator served as a virtual
# phone (which honours `cmd uimode night`, `settings put system
# font_scale|user_rotation`, `wm size|density` as a phone does); the
# verdicts must be equal episode by episode. Installs Debian's adb.
#   CONDITIONS  which (default: all)   DROIDSCORE  a built binary to use
set -euo pipefail
cd "$(dirname "$0")/.."
conditions=${CONDITIONS:-all}
bash scripts/install-adb.sh
bin=${DROIDSCORE:-}
if [ -z "$bin" ]; then
    cargo build --release --locked -p droidscore
    bin=${CARGO_TARGET_DIR:-target}/release/droidscore
fi
out=$(mktemp -d)
"$bin" run --phone sim --agent reference --conditions "$conditions" --store "$out/sim.sqlite" --json >"$out/sim.json"
"$bin" report --store "$out/sim.sqlite"
source scripts/virtual-phone.sh
start_virtual_phone "$bin"
"$bin" run --phone adb --serial "$serial" --agent reference --conditions "$conditions" --store "$out/adb.sqlite" --json >"$out/adb.json"
"$bin" report --store "$out/adb.sqlite"
python3 scripts/verdict-diff.py "$out/sim.json" "$out/adb.json"
