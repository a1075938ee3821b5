#!/usr/bin/env bash
# Debian's Slurm (slurmctld, slurmd, the client commands) and MUNGE, for
# scripts/slurm-test.sh: a one-node cluster started inside the test.
set -euo pipefail
if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null; then
    exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
