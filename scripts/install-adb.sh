#!/usr/bin/env bash
# Debian's adb (1:29.0.6): the real adb client and server that the adb
# backend's tests, the virtual phone's checks and the main job drive.
# Installed every time, so a machine without it is never what we tested on.
set -euo pipefail
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq adb >/dev/null
adb version | head -n 1
