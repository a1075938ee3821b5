#!/usr/bin/env bash
# latency-ab.sh BIN_A BIN_B [ROUNDS] [OUT] : `droidscore adb latency -n 100`
# against one virtual phone behind one private adb server (served by BIN_A),
# the two binaries alternated ROUNDS times (A B A B ...) so both see the same
# machine; prints each run's median (MAD, min-max) of the `echo` round trip
# and of a whole observation. Needs Debian's adb (scripts/install-adb.sh).
set -euo pipefail
a=$(realpath "$1"); b=$(realpath "$2"); rounds=${3:-3}; out=$(realpath -m "${4:-latency-ab}") # before the cd
cd "$(dirname "$0")/.."
mkdir -p "$out"
source scripts/virtual-phone.sh # stopped when this script exits
start_virtual_phone "$a"
for i in $(seq "$rounds"); do
    "$a" adb latency --serial "$serial" -n 100 --json >"$out/A-$i.json"
    "$b" adb latency --serial "$serial" -n 100 --json >"$out/B-$i.json"
done
python3 - "$out" "$rounds" <<'PY'
import json, sys
out, rounds = sys.argv[1], int(sys.argv[2])
for part in ["one `echo` round trip", "total observation"]:
    for arm in "AB":
        runs = []
        for i in range(1, rounds + 1):
            parts = json.load(open(f"{out}/{arm}-{i}.json"))["parts"]
            ms = next(p["ms"] for p in parts if part in p["part"])
            runs.append(f'{ms["median"]:.3f} ms (MAD {ms["mad"]:.3f}, {ms["min"]:.3f}-{ms["max"]:.3f})')
        print(f"{arm} {part}: " + "; ".join(runs))
PY
