#!/usr/bin/env bash
# The simulator's cost before and after a change, side by side in one run:
# builds the `sim` criterion bench at BEFORE (default a06271f, main before
# the Material renderer) and at the working tree, each in its own target
# directory, then runs the two bench binaries in turn, ROUNDS times each
# (default 3), on the benches that observe a screen with its PNG, and prints
# each arm's per-iteration median and p90 over all criterion samples, and
# the ratio of the medians. Usage: scripts/bench-observe-ab.sh
set -euo pipefail
cd "$(dirname "$0")/.."
before=${BEFORE:-a06271f}
rounds=${ROUNDS:-3}
filter=${FILTER:-observe xml \\+ png}
root=${CARGO_TARGET_DIR:-$PWD/target}/bench-ab
mkdir -p "$root"

# The BEFORE tree as files (no worktree left registered), built apart.
src="$root/src-$before"
if [ ! -d "$src" ]; then
    mkdir -p "$src.tmp"
    git archive "$before" | tar -x -C "$src.tmp"
    mv "$src.tmp" "$src"
fi
bench_bin() { # DIR TARGET: build the sim bench there, print its executable
    (cd "$1" && CARGO_TARGET_DIR="$2" cargo bench --locked -p droidscore --bench sim --no-run \
        --message-format=json 2>/dev/null) |
        python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "sim" and m.get("executable"):
        print(m["executable"])'
}
old=$(bench_bin "$src" "$root/before")
new=$(bench_bin "$PWD" "$root/after")
echo "before: $before ($old)"
echo "after:  $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes') ($new)"

rm -rf "$root/runs"
for r in $(seq 1 "$rounds"); do
    for arm in before after; do
        bin=$old; [ $arm = after ] && bin=$new
        CRITERION_HOME="$root/runs/$arm-$r" "$bin" --bench --noplot "$filter" >/dev/null
    done
done
python3 - "$root/runs" <<'PY'
import glob, json, os, statistics, sys
runs = sys.argv[1]
per = {}
for path in glob.glob(f"{runs}/*/**/new/sample.json", recursive=True):
    rel = os.path.relpath(path, runs)
    arm = rel.split("/")[0].rsplit("-", 1)[0]
    bench = rel.split("/")[2]
    s = json.load(open(path))
    per.setdefault((bench, arm), []).extend(t / i for t, i in zip(s["times"], s["iters"]))
def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]
print(f"{'bench':48} {'arm':7} {'samples':>7} {'median':>10} {'p90':>10}")
for bench in sorted({b for b, _ in per}):
    med = {}
    for arm in ("before", "after"):
        xs = per.get((bench, arm))
        if not xs:
            continue
        med[arm] = statistics.median(xs)
        print(f"{bench:48} {arm:7} {len(xs):7} {med[arm]/1e6:8.3f} ms {q(xs, 0.9)/1e6:7.3f} ms")
    if len(med) == 2:
        print(f"{'':48} after/before median {med['after']/med['before']:.2f}x; "
              f"a real dump + screencap (~1.3 s) is {1.3e9/med['after']:.0f}x the after median")
PY
