#!/usr/bin/env bash
# kill-phone.sh BIN [AFTER] : the reference solver over Debian's adb against the
# virtual phone, the phone killed once AFTER (default 20) episodes are in the
# store (the run's progress, not the clock); stderr lines stamped with the
# seconds since the start; then the exit code, the wall time and what the
# store holds. Needs adb (scripts/install-adb.sh) and sqlite3.
set -uo pipefail
bin=$(realpath "$1"); after=${2:-20} # before the cd: BIN may be relative
cd "$(dirname "$0")/.."
source scripts/virtual-phone.sh # stopped when this script exits; sets $HOME
store="$HOME/k.sqlite"
start_virtual_phone "$bin"
[ -n "$serial" ] || { echo "kill-phone.sh: $bin sim serve printed no address: $(cat "$HOME/serve.err")" >&2; exit 1; }
since() { python3 -c "import sys; print(f'{float(sys.argv[1]) - float(sys.argv[2]):.1f}')" "$EPOCHREALTIME" "$start"; }
start=$EPOCHREALTIME
(
    until [ "$(sqlite3 "$store" 'select count(*) from episodes' 2>/dev/null || echo 0)" -ge "$after" ]; do sleep 0.05; done
    kill "$vphone_pid"
    echo "+$(since) s: killed the phone (sim serve, pid $vphone_pid) with $after episodes in the store" >>"$HOME/killed"
) &
timeout 300 "$bin" run --phone adb --serial "$serial" --agent reference --store "$store" --run-id k >"$HOME/out" \
    2> >(while IFS= read -r line; do echo "+$(since) s: $line"; done >"$HOME/err")
rc=$?
took=$(since)
sleep 0.5
echo "rc=$rc after $took s"
cat "$HOME/killed" "$HOME/err"
echo "the store: $(sqlite3 "$store" 'select status, count(*) from episodes group by status' | tr '\n' ' ')"
