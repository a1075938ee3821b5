#!/usr/bin/env bash
# The measurements of docs/scores.md: step accuracy offline and success,
# sub-goals, efficiency and side effects online, for the lexical floor, the
# built-in baselines, SmolLM2-135M and Qwen2.5-Coder-0.5B, at both
# instruction levels; then --reason full|short|off side by side. About an
# hour on 2 cores (the models' steps are most of it). Prints every report.
#   STORE   the run store (default: scores.sqlite, created)
#   PARTS   which parts (default: "floor smol online reason qwen"); "suite"
#           (not in the default: about 5 hours here) runs the offline runs over
#           the whole suite, SmolLM2-135M on every variant and the 0.5B model on
#           every base variant, both levels, beside the baselines; each resumes
#           where a stopped one left off, so run it again to go on. "rescore"
#           runs nothing: it judges every offline run the store holds again
#           under both versions of each peer rule (issue 49) and compares the
#           pairs docs/scores.md ranks under both. "paired" (issue 50) makes
#           the 135M model's offline runs on the base variants and both
#           models' online runs (the 0.5B model on every 4th template: its
#           167 took 80 min), then compares every pair docs/scores.md ranks
#           under the paired rule (each report also names the verdicts the
#           old overlap rule gave otherwise), with a plan for 3 points
set -euo pipefail
cd "$(dirname "$0")/.."
store=${STORE:-scores.sqlite}
parts=${PARTS:-floor smol online reason qwen}

cargo build --release --locked -p droidscore
bin=${CARGO_TARGET_DIR:-target}/release/droidscore
dev=$(bash scripts/build-device.sh auto)
"$dev" fetch-model qwen2.5-coder-0.5b >/dev/null

# Slices: every k-th task file in name order, so each spans the apps.
slices=$(mktemp -d)
trap 'rm -rf "$slices"' EXIT
mkdir "$slices/4" "$slices/12"
ls tasks/*.toml | awk 'NR%4==1' | xargs -I{} cp {} "$slices/4/"
ls tasks/*.toml | awk 'NR%12==1' | xargs -I{} cp {} "$slices/12/"

steps() { echo "\$ droidscore steps $*"; "$bin" steps --store "$store" "$@"; echo; }
run() { echo "\$ droidscore run $*"; "$bin" run --store "$store" "$@" | tail -3; "$bin" report --store "$store" "${@: -1}" | sed -n 1,10p; echo; }
smol=(--device-bin "$dev" --device-weights f16 --constrain schema)
qwen=(--device-bin "$dev" --device-model qwen2.5-coder-0.5b --device-weights f16 --constrain schema)
main=(--phone sim --tasks '[ab]*_on' --variants base --max-steps 8)

for part in $parts; do case $part in
floor)
    for l in goal steps; do
        steps --agent lexical --variants all --instructions $l --run-id off-lexical-all-$l
        steps --suite "$slices/4" --variants base --agent lexical --instructions $l --run-id off-lexical-s4-$l
    done
    for a in random noop; do steps --suite "$slices/4" --variants base --agent $a --run-id off-$a-s4; done ;;
smol)
    for l in goal steps; do
        steps --suite "$slices/4" --variants base "${smol[@]}" --instructions $l --run-id off-smol-s4-$l
    done
    "$bin" report --store "$store" off-lexical-s4-goal off-smol-s4-goal
    "$bin" report --store "$store" off-smol-s4-steps off-smol-s4-goal ;;
online)
    for l in goal steps; do
        run "${main[@]}" --agent reference --instructions $l --run-id on-main-reference-$l
        run "${main[@]}" --agent lexical --instructions $l --run-id on-main-lexical-$l
        run "${main[@]}" "${smol[@]}" --instructions $l --run-id on-main-smol-$l
        run "${main[@]}" "${qwen[@]}" --instructions $l --run-id on-main-qwen-$l
        run --phone sim --variants base --agent lexical --instructions $l --run-id on-base-lexical-$l
    done
    for a in reference noop random; do run --phone sim --variants base --agent $a --run-id on-base-$a; done ;;
reason)
    # Interleaved task by task, so that the three arms see the same load.
    for t in $(ls "$slices/12" | sed 's/\.toml$//'); do
        for r in full short off; do
            steps --suite "$slices/12" --tasks "$t" --variants base "${smol[@]}" --reason $r --run-id reason-$r-$t
        done
    done
    python3 scripts/reason-times.py "$store" reason ;;
qwen)
    for l in goal steps; do
        steps --suite "$slices/12" --variants base "${qwen[@]}" --instructions $l --run-id off-qwen-s12-$l
    done
    for l in goal steps; do
        steps --suite "$slices/12" --variants base "${smol[@]}" --instructions $l --run-id off-smol-s12-$l
    done
    "$bin" report --store "$store" off-qwen-s12-goal off-smol-s12-goal
    "$bin" report --store "$store" off-qwen-s12-steps off-smol-s12-steps ;;
suite)
    # A run already in the store is resumed (`--resume`), not started again.
    go() {
        id=$1; shift
        if "$bin" report --store "$store" "$id" >/dev/null 2>&1; then
            steps "$@" --resume "$id"
        else
            steps "$@" --run-id "$id"
        fi
    }
    go rand-all-goal --variants all --agent random
    go noop-all-goal --variants all --agent noop
    for l in goal steps; do
        go lex-all-$l --variants all --agent lexical --instructions $l
        go off-smol-all-$l --variants all "${smol[@]}" --instructions $l
        go off-qwen-base-$l --variants base "${qwen[@]}" --instructions $l
    done
    for other in rand-all-goal lex-all-goal noop-all-goal; do
        "$bin" report --store "$store" off-smol-all-goal $other
    done
    "$bin" report --store "$store" off-smol-all-steps off-smol-all-goal
    "$bin" report --store "$store" off-smol-all-steps lex-all-steps
    # Base variants against every variant: compared on the base ones.
    for l in goal steps; do
        for other in off-smol-all-$l rand-all-goal lex-all-goal lex-all-steps noop-all-goal; do
            "$bin" report --store "$store" off-qwen-base-$l $other
        done
    done
    "$bin" report --store "$store" off-qwen-base-steps off-qwen-base-goal
    "$bin" report --store "$store" off-qwen-base-goal off-smol-all-steps ;;
rescore)
    both=droidscore@1,aitw@1,aitw@2,androidcontrol@1,androidcontrol@2,qwen-box@1,gui-odyssey@1,gui-odyssey@2
    offline_runs=$(python3 -c 'import sqlite3, sys, json
for (i, c) in sqlite3.connect(sys.argv[1]).execute("select id, config from runs order by id"):
    if json.loads(c or "{}").get("mode") == "steps": print(i)' "$store")
    for id in $offline_runs; do
        echo "\$ droidscore report $id --matchers $both"
        "$bin" report --store "$store" "$id" --matchers "$both" | sed -n 1,13p
        "$bin" report --store "$store" "$id" --matchers "$both" --format json | python3 scripts/matcher-flips.py; echo
    done
    for pair in "off-lexical-s4-goal off-random-s4" "off-lexical-s4-goal off-smol-s4-goal" \
        "off-smol-s4-steps off-smol-s4-goal" "off-random-s4 off-smol-s4-steps" \
        "off-qwen-base-goal rand-all-goal" "off-qwen-base-steps rand-all-goal" \
        "off-qwen-base-steps off-qwen-base-goal" "lex-all-goal rand-all-goal" \
        "off-qwen-s12-goal off-smol-s12-goal" "off-qwen-s12-steps off-smol-s12-steps"; do
        set -- $pair
        if "$bin" report --store "$store" "$1" >/dev/null 2>&1 && "$bin" report --store "$store" "$2" >/dev/null 2>&1; then
            echo "\$ droidscore report $1 $2 --matchers $both"
            "$bin" report --store "$store" "$1" "$2" --matchers "$both"; echo
        fi
    done ;;
paired)
    for l in goal steps; do
        "$bin" report --store "$store" off-smol-base-$l >/dev/null 2>&1 ||
            steps --variants base "${smol[@]}" --instructions $l --run-id off-smol-base-$l
    done
    "$bin" report --store "$store" on-smol-base8-goal >/dev/null 2>&1 ||
        run --phone sim --variants base --max-steps 8 "${smol[@]}" --run-id on-smol-base8-goal
    "$bin" report --store "$store" on-qwen-s4-base8-goal >/dev/null 2>&1 ||
        run --suite "$slices/4" --phone sim --variants base --max-steps 8 "${qwen[@]}" --run-id on-qwen-s4-base8-goal
    for pair in "off-qwen-base-goal off-smol-base-goal" "off-qwen-base-steps off-smol-base-steps" \
        "off-qwen-base-steps off-qwen-base-goal" "off-smol-base-steps off-smol-base-goal" \
        "off-qwen-base-goal rand-all-goal" "off-qwen-base-goal lex-all-goal" \
        "off-qwen-base-steps rand-all-goal" "off-qwen-base-steps lex-all-steps" \
        "off-smol-base-goal rand-all-goal" "off-smol-base-goal lex-all-goal" \
        "off-smol-base-steps rand-all-goal" "off-smol-base-steps lex-all-steps" \
        "on-qwen-s4-base8-goal on-smol-base8-goal"; do
        echo "\$ droidscore report $pair"
        "$bin" report --store "$store" $pair; echo
    done
    echo "\$ droidscore report off-smol-base-goal --plan 3"
    "$bin" report --store "$store" off-smol-base-goal --plan 3 | sed -n '/^plan for/,$p' ;;
*) echo "scores.sh: unknown part $part (floor smol online reason qwen suite rescore paired)" >&2; exit 2 ;;
esac; done
