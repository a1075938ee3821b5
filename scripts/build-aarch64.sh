#!/usr/bin/env bash
# Cross-build droidscore-device for aarch64-unknown-linux-gnu, statically
# linked, then (with --run) load the default model under qemu-aarch64-static
# and ask it one chat question. A static aarch64 Linux binary runs on Android
# from /data/local/tmp; the NDK route (aarch64-linux-android) is in
# docs/device.md.
#
# Not part of the test command: a cold build of mistral.rs for aarch64 takes
# about half an hour on two cores, and the answer under qemu minutes more.
#
# Route (Debian 12): rustup cannot download a target here, so the compiler is
# Debian's rustc-web with its arm64 standard library; cargo is whichever is on
# PATH. Build scripts and proc-macros are built by the same rustc for the host.
#
# Usage: scripts/build-aarch64.sh [--run]
# Prints the binary's path on stdout; everything else goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

run=false
case "${1:-}" in
    --run) run=true ;;
    "") ;;
    *) echo "build-aarch64.sh: unknown argument $1 (only --run)" >&2; exit 2 ;;
esac

need=()
[ -x /usr/bin/rustc ] || need+=(rustc-web)
[ -d /usr/lib/rustlib/aarch64-unknown-linux-gnu ] || need+=(libstd-rust-web-dev:arm64)
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu)
command -v aarch64-linux-gnu-g++ >/dev/null || need+=(g++-aarch64-linux-gnu)  # esaxx-rs (tokenizers) is C++
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
command -v file >/dev/null || need+=(file)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
    echo "build-aarch64.sh: installing ${need[*]}" >&2
    sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo dpkg --add-architecture arm64
    $sudo apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${need[@]}" >&2
fi

# Debian's rustc for this build only (it has the arm64 std; rustup's has not):
# exported, it would also rebuild the host binaries below from scratch.
rustc=/usr/bin/rustc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export CXX_aarch64_unknown_linux_gnu=aarch64-linux-gnu-g++
export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
# Only the target gets +crt-static: with --target, RUSTFLAGS do not reach
# build scripts, which run on this machine.
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS="-C target-feature=+crt-static"
unset CARGO_ENCODED_RUSTFLAGS RUSTFLAGS
dir=${CARGO_TARGET_DIR:-$PWD/target}/aarch64-static
echo "build-aarch64.sh: $($rustc --version), target dir $dir" >&2
RUSTC=$rustc CARGO_TARGET_DIR="$dir" cargo build --release --locked -p droidscore-device \
    --target aarch64-unknown-linux-gnu >&2
bin="$dir/aarch64-unknown-linux-gnu/release/droidscore-device"
file "$bin" >&2

if $run; then
    # The aarch64 binary fetches (or finds in the cache and checks) the
    # default model itself; pip, an x86-64 program, runs natively.
    model=$(qemu-aarch64-static "$bin" fetch-model)
    log=$(mktemp)
    qemu-aarch64-static "$bin" serve --model "$model" --listen 127.0.0.1:0 --threads 2 >"$log" 2>&1 &
    pid=$!
    trap 'kill $pid 2>/dev/null || true' EXIT
    url=
    for _ in $(seq 1 600); do
        url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/v1' "$log" | head -1 || true)
        [ -n "$url" ] && break
        kill -0 $pid 2>/dev/null || { cat "$log" >&2; echo "build-aarch64.sh: the server exited before it was ready" >&2; exit 1; }
        sleep 1
    done
    [ -n "$url" ] || { cat "$log" >&2; echo "build-aarch64.sh: not ready after 600 s" >&2; exit 1; }
    echo "build-aarch64.sh: ready at $url (under qemu-aarch64-static)" >&2
    curl -sS "${url%/v1}/health" >&2; echo >&2
    # One chat request with the model's own id; an error body or a reply
    # without text or usage fails the script.
    python3 - "$url" >&2 <<'PY'
import json, sys, urllib.request
url = sys.argv[1]
def call(path, body=None):
    req = urllib.request.Request(url + path, data=body and json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.load(r)
model = call("/models")["data"][0]["id"]
reply = call("/chat/completions", {"model": model, "temperature": 0, "max_tokens": 24,
    "messages": [{"role": "user", "content": "What is the capital of France?"}]})
print(json.dumps(reply))
text = reply["choices"][0]["message"]["content"]
usage = reply["usage"]
assert text.strip(), "empty answer"
assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0, usage
print(f"answer under qemu-aarch64-static: {text!r} (usage {usage})")
PY
fi
echo "$bin"
