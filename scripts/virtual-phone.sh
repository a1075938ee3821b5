# Sourced by main.sh and results.sh: the simulator served as a virtual phone
# behind a private adb server (its own port and HOME), both on ports outside
# adb's emulator scan (5555-5585), and stopped when the calling shell exits.
# Usage: source scripts/virtual-phone.sh; start_virtual_phone DROIDSCORE_BIN
# Sets $serial (the phone as `adb devices` lists it) and $HOME.

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

start_virtual_phone() {
    export ANDROID_ADB_SERVER_PORT
    ANDROID_ADB_SERVER_PORT=$(free_port)
    HOME=$(mktemp -d)
    export HOME
    unset ANDROID_SERIAL
    "$1" sim serve --listen "127.0.0.1:$(free_port)" >"$HOME/serve.out" 2>"$HOME/serve.err" &
    vphone_pid=$!
    trap 'kill $vphone_pid 2>/dev/null; adb kill-server 2>/dev/null; rm -rf "$HOME"' EXIT
    for _ in $(seq 50); do [ -s "$HOME/serve.out" ] && break; sleep 0.1; done
    serial=$(head -n 1 "$HOME/serve.out")
    adb start-server >&2
    adb connect "$serial" >&2
    adb -s "$serial" wait-for-device
}
