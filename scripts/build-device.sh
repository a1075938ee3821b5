#!/usr/bin/env bash
# Build droidscore-device (release) for this machine and print the binary's
# path. candle's x86 quantized kernels are chosen at compile time, so the
# target features are a deliberate choice, not a default:
#   x86-64-v3  AVX2, FMA, F16C (the build we ship for x86-64 hosts that have
#              them; chosen automatically when /proc/cpuinfo lists avx2 and fma)
#   default    rustc's baseline x86-64 (SSE2 only): the comparison arm
# Each choice gets its own target directory, so the two builds never share a
# compiled artifact. Usage: scripts/build-device.sh [auto|x86-64-v3|default]
set -euo pipefail
cd "$(dirname "$0")/.."

choice=${1:-auto}
if [ "$choice" = auto ]; then
    if [ "$(uname -m)" = x86_64 ] && grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
        choice=x86-64-v3
    else
        choice=default
    fi
fi
root=${CARGO_TARGET_DIR:-$PWD/target}
case "$choice" in
    x86-64-v3)
        dir="$root/cpu-x86-64-v3"
        export CARGO_ENCODED_RUSTFLAGS=$'-C\x1ftarget-cpu=x86-64-v3' ;;
    default)
        dir="$root/cpu-default"
        export CARGO_ENCODED_RUSTFLAGS= ;;
    *) echo "build-device.sh: unknown choice $choice (auto, x86-64-v3, default)" >&2; exit 2 ;;
esac
CARGO_TARGET_DIR="$dir" cargo build --release --locked -p droidscore-device >&2
echo "$dir/release/droidscore-device"
