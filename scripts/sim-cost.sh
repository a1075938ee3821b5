#!/usr/bin/env bash
# The simulator's cost: the whole built-in suite × N instance seeds with the
# reference agent, wall time and peak resident memory (GNU time's maximum
# RSS), for two droidscore binaries run alternately, ROUNDS rounds each, one
# fresh store per run. Quote medians and the ratio of the two, with the
# machine's load (docs/apps.md, "What the apps cost the simulator").
#
#   scripts/sim-cost.sh OLD_BINARY NEW_BINARY [SEEDS=5] [ROUNDS=5] [JOBS=2]
set -euo pipefail
old=$1 new=$2 seeds=${3:-5} rounds=${4:-5} jobs=${5:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'round\tarm\tepisodes\twall_s\tmax_rss_kib\tload1\n'
for round in $(seq "$rounds"); do
    for arm in old new; do
        bin=${!arm}
        rm -f "$work/runs.sqlite"*
        load=$(cut -d' ' -f1 /proc/loadavg)
        /usr/bin/time -f '%e %M' -o "$work/time" \
            "$bin" run --phone sim --agent reference --instances "$seeds" \
            --jobs "$jobs" --store "$work/runs.sqlite" >"$work/out" 2>&1
        read -r wall rss <"$work/time"
        episodes=$(grep -o '[0-9]*/[0-9]* episodes succeeded' "$work/out" | tail -1 | cut -d' ' -f1)
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$arm" "$episodes" "$wall" "$rss" "$load"
    done
done
