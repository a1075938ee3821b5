#!/usr/bin/env bash
# Build llama.cpp's llama-bench, llama-perplexity and llama-tokenize, the
# comparison tools behind docs/results.md's llama.cpp figures and
# scripts/tokens-check.sh, and print their directory (LLAMA_CPP_BIN for
# scripts/results.sh, scripts/fidelity.sh and scripts/tokens-check.sh).
# llama.cpp is a comparison tool only: nothing in droidscore links or ships it.
# A directory that already has some of the tools gets only the missing ones
# (the tree is not unpacked again, so nothing already built is rebuilt).
#
# The source is the llama.cpp tree vendored in llama-cpp-python 0.3.36's
# sdist on PyPI (sha256-pinned below), because PyPI is reachable where GitHub
# is not; it is llama.cpp build 0c1e570. Built Release, no curl, for
# x86-64-v3 (AVX2, FMA, F16C, BMI2: GGML_NATIVE=OFF and ggml's defaults), the
# level scripts/build-device.sh builds droidscore-device for, so the two
# engines are compared on one instruction set. GGML_NATIVE=ON is not used:
# on a VM whose CPUID lists AMX but whose kernel traps it, -march=native
# compiles ggml's AMX kernels in and llama-bench dies of SIGILL at the first
# `tilezero` (dmesg: "trap invalid opcode ... in libggml-cpu.so"; issue 16).
# The build directory is build-x86-64-v3, so an older native build is never
# mistaken for this one.
# Usage: scripts/build-llama-cpp.sh [DIR]   (default: target/llama-cpp)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(realpath -m "${1:-${CARGO_TARGET_DIR:-$PWD/target}/llama-cpp}")
sha=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
src="$dir/llama_cpp_python-0.3.36"
build="$src/vendor/llama.cpp/build-x86-64-v3"
bin="$build/bin"
tools=(llama-bench llama-perplexity llama-tokenize)
missing=()
for t in "${tools[@]}"; do [ -x "$bin/$t" ] || missing+=("$t"); done
if [ ${#missing[@]} -eq 0 ]; then
    echo "$bin"
    exit 0
fi
need=()
for p in cmake g++ make; do command -v "$p" >/dev/null || need+=("$p"); done
if [ ${#need[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq >&2
    $sudo apt-get install -y -qq cmake g++ make >&2
fi
mkdir -p "$dir"
tarball="$dir/llama_cpp_python-0.3.36.tar.gz"
if [ -f "$src/vendor/llama.cpp/CMakeLists.txt" ]; then
    : # unpacked before: keep its timestamps (and the build's)
elif ! echo "$sha  $tarball" | sha256sum -c --status 2>/dev/null; then
    # The sdist's URL from PyPI's simple index (pip download would try to build it).
    python3 - "$tarball" <<'EOF'
import re, sys, urllib.request
html = urllib.request.urlopen("https://pypi.org/simple/llama-cpp-python/").read().decode()
url = next(u for u in re.findall(r'href="([^"]+)"', html) if "/llama_cpp_python-0.3.36.tar.gz" in u)
urllib.request.urlretrieve(url.split("#")[0], sys.argv[1])
EOF
    echo "$sha  $tarball" | sha256sum -c >&2
fi
[ -f "$src/vendor/llama.cpp/CMakeLists.txt" ] || tar -xzf "$tarball" -C "$dir"
cmake -S "$src/vendor/llama.cpp" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON \
    -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DLLAMA_CURL=OFF >&2
cmake --build "$build" --target "${missing[@]}" -j "$(nproc)" >&2
echo "$bin"
