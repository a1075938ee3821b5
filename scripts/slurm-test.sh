#!/usr/bin/env bash
# docs/cluster.md's Slurm array on a real Slurm cluster: Debian's slurm-wlm
# started as a one-node cluster here (slurmctld, slurmd and munged as root,
# in a scratch directory, on ports of their own), `sbatch --array=1-4` of
# scripts/slurm/droidscore.sbatch, each shard reading its place from Slurm's
# SLURM_ARRAY_TASK_* variables; then `report --merge` of the four stores and
# the merged run compared, episode by episode, with one unsharded run. Prints
# the jobs as `sacct` lists them. Fails on any difference.
#   DROIDSCORE  a built binary (default: cargo builds one)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
# The script docs/cluster.md shows is the one run here.
python3 -c 'import sys; sys.exit(open("scripts/slurm/droidscore.sbatch").read() not in open("docs/cluster.md").read())' ||
    { echo "slurm-test: docs/cluster.md no longer shows scripts/slurm/droidscore.sbatch as it is" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "slurm-test: slurmd must run as root (CI does)" >&2; exit 1; }
bash scripts/install-slurm.sh
bin=${DROIDSCORE:-}
if [ -z "$bin" ]; then
    cargo build --locked -p droidscore
    bin=$repo/${CARGO_TARGET_DIR:-target}/debug/droidscore
fi
bin=$(realpath "$bin")
work=$(mktemp -d)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
host=$(hostname -s)
mkdir -p "$work/spool" "$work/state" "$work/munge"
cat >"$work/slurm.conf" <<CONF
ClusterName=droidscore
SlurmctldHost=$host(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmdSpoolDir=$work/spool
StateSaveLocation=$work/state
SlurmUser=root
SlurmctldPort=$(port)
SlurmdPort=$(port)
ReturnToService=2
JobCompType=jobcomp/filetxt
JobCompLoc=$work/jobcomp.txt
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
stop() {
    for pid in "$work"/slurmd.pid "$work"/slurmctld.pid "$work"/munged.pid; do
        [ -e "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
    done
    sleep 1
    rm -rf "$work"
}
trap stop EXIT
# MUNGE with a key of its own, on a socket of its own.
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
    --pid-file="$work/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
    sinfo -h -o %t 2>/dev/null | grep -q idle && break
    sleep 0.5
done
sinfo
args="--agent reference --tasks wifi_*"
echo "== one unsharded run"
"$bin" run $args --variants all --repeat 1 --store "$work/one.sqlite" --run-id suite-1 >/dev/null
echo "== sbatch --array=1-4 scripts/slurm/droidscore.sbatch"
mkdir -p "$work/jobs"
(cd "$work/jobs" && DROIDSCORE="$bin" DROIDSCORE_AGENT="$args" DROIDSCORE_REPEAT=1 \
    sbatch --wait --export=ALL "$repo/scripts/slurm/droidscore.sbatch")
for out in "$work"/jobs/droidscore-*.out; do
    echo "-- $(basename "$out"):"
    grep -E "^shard |agent reference:" "$out" || cat "$out"
done
echo "== sacct --completion"
sacct --completion -o JobID,JobName,Partition,State,ExitCode 2>/dev/null
echo "== report --merge"
"$bin" report --store "$work/all.sqlite" --merge "$work/jobs/results" suite-1
python3 - "$work/one.sqlite" "$work/all.sqlite" <<'PY'
import sqlite3, sys
def verdicts(path):
    rows = sqlite3.connect(path).execute(
        "SELECT task, variant, repeat, status FROM episodes WHERE run_id = 'suite-1'")
    return {r[:3]: r[3] for r in rows}
one, merged = verdicts(sys.argv[1]), verdicts(sys.argv[2])
differ = [k for k in set(one) | set(merged) if one.get(k) != merged.get(k)]
print(f"slurm: {len(merged)} episodes merged from the array, {len(one)} unsharded; "
      f"{len(one) - len(differ)} equal, {len(differ)} different")
for k in sorted(differ):
    print(f"  DIFFERS {'/'.join(map(str, k))}: {one.get(k)} -> {merged.get(k)}")
sys.exit(1 if differ or not one else 0)
PY
