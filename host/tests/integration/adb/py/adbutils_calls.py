"""The calls openatx/adbutils' README shows, against the virtual phone
through an adb server: one line per call, `PASS name: detail` or
`FAIL name: error`. Usage: adbutils_calls.py ADB_PORT SERIAL WORKDIR.

Run by host/tests/integration/adb/pyclients.rs; needs adbutils==2.12.0
(scripts/install-pyclients.sh).
"""

import io
import os
import pathlib
import sys
import traceback

import adbutils
from adbutils import AdbClient

PORT, SERIAL, WORK = int(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
failures = 0


def call(name, fn):
    """Run one call; its check raises (AssertionError or the library's own) to fail."""
    global failures
    try:
        detail = fn()
        print(f"PASS {name}: {detail}", flush=True)
    except Exception as e:  # every failure is reported, none stops the rest
        failures += 1
        where = traceback.extract_tb(e.__traceback__)[-1]
        print(f"FAIL {name}: {type(e).__name__}: {e} (line {where.lineno})", flush=True)


def check(condition, what):
    if not condition:
        raise AssertionError(what)
    return what


adb = AdbClient(host="127.0.0.1", port=PORT)
d = adb.device(serial=SERIAL)

# Connect ADB Server / list devices
call("AdbClient.list", lambda: check(any(i.serial == SERIAL and i.state == "device" for i in adb.list()), f"{SERIAL} device"))
call("AdbClient.device_list", lambda: check([x.serial for x in adb.device_list()] == [SERIAL], f"[{SERIAL}]"))
call("AdbClient(socket_timeout=10).device_list", lambda: check(len(AdbClient(host="127.0.0.1", port=PORT, socket_timeout=10).device_list()) == 1, "1 device"))
call("adb.device()", lambda: check(adb.device().serial == SERIAL, "the only device"))
# Connect remote device
call("adb.connect", lambda: check("connected to" in adb.connect(SERIAL), adb.connect(SERIAL)))
call("adb.connect(timeout=3.0)", lambda: check("connected to" in adb.connect(SERIAL, timeout=3.0), "connected"))
call("adb.wait_for(state=device)", lambda: (adb.wait_for(SERIAL, state="device", timeout=10), "online")[1])
# forward
def forward():
    local = d.forward_port(7912)
    items = [(i.serial, i.local, i.remote) for i in adb.forward_list()]
    check((SERIAL, f"tcp:{local}", "tcp:7912") in items, f"{items}")
    return f"tcp:{local} -> tcp:7912 listed"
call("forward_port + forward_list", forward)
call("forward_list(serial)", lambda: check(all(i.serial == SERIAL for i in d.forward_list()), "only this device's"))
call("reverse_list", lambda: check(d.reverse_list() == [], "[] (no reverse forwards)"))
def track():
    for event in adb.track_devices():
        check(event.present and event.serial == SERIAL and event.status == "device", repr(event))
        return repr(event)
call("track_devices (first event)", track)
# Create socket connection to the device
def tcp_connection():
    # The virtual phone's loopback is this machine's: play the phone's server.
    import socket, threading
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    def answer():
        conn, _ = server.accept()
        conn.recv(500)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        conn.close()
    threading.Thread(target=answer, daemon=True).start()
    c = d.create_connection("tcp", server.getsockname()[1])
    c.send(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
    reply = b""
    while len(reply) < 40 and (chunk := c.recv(500)):
        reply += chunk
    c.close()
    check(reply.startswith(b"HTTP/1.1 200 OK") and reply.endswith(b"ok"), repr(reply))
    return repr(reply[:15])
call("create_connection(tcp, PORT)", tcp_connection)
def unix_connection():
    try:
        d.create_connection("unix", "minitouch")
    except adbutils.AdbError as e:
        return f"refused, as a phone without minitouch refuses: {e}"
    raise AssertionError("a connection to a minitouch that is not there")
call("create_connection(unix, minitouch)", unix_connection)
def dev_connection():
    d.sync.push(b"hello dev", "/data/local/tmp/hello.txt")
    with d.create_connection(adbutils.Network.DEV, "/data/local/tmp/hello.txt") as c:
        data = c.recv(500)
    check(data == b"hello dev", repr(data))
    return repr(data)
call("create_connection(Network.DEV, FILE)", dev_connection)
# Run shell command
call("d.serial", lambda: check(d.serial == SERIAL, d.serial))
call("shell([getprop, ro.serial])", lambda: repr(d.shell(["getprop", "ro.serial"])))
call("shell('getprop ro.serial')", lambda: repr(d.shell("getprop ro.serial")))
def timeout():
    try:
        d.shell("sleep 1", timeout=0.5)
    except adbutils.AdbTimeout as e:
        return f"AdbTimeout: {e}"
    raise AssertionError("no AdbTimeout")
call("shell(timeout=0.5)", timeout)
call("shell2('echo 1')", lambda: check((r := d.shell2("echo 1")).returncode == 0 and r.output == "1\n", repr(r)))
call("shell2 exit status", lambda: check((r := d.shell2("false")).returncode == 1, repr(r)))
call("prop.name", lambda: check(d.prop.name == "droidscore_sim", d.prop.name))
call("prop.model", lambda: check(d.prop.model == "droidscore_sim", d.prop.model))
call("prop.device", lambda: check(d.prop.device == "droidscore_sim", d.prop.device))
call("prop.get(ro.product.model)", lambda: check(d.prop.get("ro.product.model") == "droidscore_sim", "droidscore_sim"))
call("prop.get(cache=True)", lambda: check(d.prop.get("ro.product.model", cache=True) == "droidscore_sim", "cached"))
call("getprop (full list)", lambda: check("[ro.build.version.sdk]: [34]" in (o := d.shell("getprop")), f"{len(o.splitlines())} lines"))
call("get_serialno", lambda: repr(d.get_serialno()))
call("get_devpath", lambda: repr(d.get_devpath()))
call("get_state", lambda: check(d.get_state() == "device", "device"))
def screencap():
    png = d.shell("screencap -p", encoding=None)
    check(png[:8] == b"\x89PNG\r\n\x1a\n", f"{png[:8]!r}")
    (WORK / "p.png").write_bytes(png)
    return f"PNG, {len(png)} bytes"
call("shell('screencap -p', encoding=None)", screencap)
# Transfer files
call("sync.push(bytes)", lambda: f"{d.sync.push(b'Hello Android', '/data/local/tmp/hi.txt')} bytes")
call("sync.push(BytesIO)", lambda: f"{d.sync.push(io.BytesIO(b'Hello Android'), '/data/local/tmp/hi.txt')} bytes")
(WORK / "hi.txt").write_bytes(b"Hello Android")
call("sync.push(str path)", lambda: f"{d.sync.push(str(WORK / 'hi.txt'), '/data/local/tmp/hi.txt')} bytes")
call("sync.push(Path)", lambda: f"{d.sync.push(WORK / 'hi.txt', '/data/local/tmp/hi.txt')} bytes")
call("sync.iter_content", lambda: check(b"".join(d.sync.iter_content("/data/local/tmp/hi.txt")) == b"Hello Android", "Hello Android"))
call("sync.push + read_text", lambda: (d.sync.push(b"Hello world", "/data/local/tmp/hi.txt"), check(d.sync.read_text("/data/local/tmp/hi.txt", encoding="utf-8") == "Hello world", "Hello world"))[1])
call("sync.read_bytes", lambda: check(d.sync.read_bytes("/data/local/tmp/hi.txt") == b"Hello world", "b'Hello world'"))
call("sync.pull", lambda: (d.sync.pull("/data/local/tmp/hi.txt", str(WORK / "pulled.txt")), check((WORK / "pulled.txt").read_bytes() == b"Hello world", "11 bytes"))[1])
big = os.urandom(300 * 1024)
call("sync.push 300 kB", lambda: check(d.sync.push(big, "/sdcard/big.bin", check=True) == len(big), "307200 bytes, size checked"))
call("sync.read_bytes 300 kB", lambda: check(d.sync.read_bytes("/sdcard/big.bin") == big, "same bytes"))
call("sync.stat", lambda: check((s := d.sync.stat("/sdcard/big.bin")).size == len(big) and s.mtime is not None, repr(s)))
call("sync.exists", lambda: check(d.sync.exists("/sdcard/big.bin") and not d.sync.exists("/sdcard/nope"), "True, then False"))
call("sync.list", lambda: check("big.bin" in (names := [f.path for f in d.sync.list("/sdcard")]), f"{names}"))
call("sync.push to a directory", lambda: (d.sync.push(WORK / "hi.txt", "/sdcard/"), check(d.sync.read_bytes("/sdcard/hi.txt") == b"Hello Android", "/sdcard/hi.txt"))[1])
call("app_info (package_info)", lambda: check((i := d.app_info("com.android.settings")) is not None and i.version_name == "14", repr(i)))
call("package_info", lambda: check(d.package_info("com.android.settings")["version_code"] == 34, "version_code 34"))
# Extended Functions
call("screenshot", lambda: check((im := d.screenshot()).size == (1080, 2400), f"{im.mode} {im.size}"))
call("app_start (monkey)", lambda: (d.app_start("com.android.settings"), check(d.app_current().package == "com.android.settings", "Settings in front"))[1])
call("app_current", lambda: check((a := d.app_current()).package == "com.android.settings" and a.activity, repr(a)))
call("app_stop", lambda: (d.app_stop("com.android.settings"), "am force-stop")[1])
call("click(100, 100)", lambda: (d.click(100, 100), "input tap 100 100")[1])
call("click(0.5, 0.5)", lambda: (d.click(0.5, 0.5), "input tap at the centre")[1])
call("swipe(10, 10, 200, 200, 0.5)", lambda: (d.swipe(10, 10, 200, 200, 0.5), "input swipe")[1])
def packages():
    names = d.list_packages()
    check(len(names) == len(set(names)), f"duplicates in {names}")
    check("com.android.settings" in names and "com.google.android.deskclock" in names, f"{names}")
    return f"{len(names)} packages, each once"
call("list_packages", packages)
call("list_packages(['-3'])", lambda: check(d.list_packages(["-3"]) == [], "[] (every app here is a system app)"))
call("list_packages(['-f'])", lambda: check(all("=" in p for p in d.list_packages(["-f"])), f"{len(d.list_packages(['-f']))} with paths"))
call("window_size", lambda: check(tuple(d.window_size()) == (1080, 2400), repr(d.window_size())))
call("rotation", lambda: check(d.rotation() == 0, "0"))
def keyevent():
    d.app_start("com.android.settings")
    d.keyevent("HOME")
    current = d.app_current().package
    check(current == "com.google.android.apps.nexuslauncher", f"in front after HOME: {current}")
    return "the launcher in front"
call("keyevent('HOME')", keyevent)
call("send_keys", lambda: (d.send_keys("hello world"), "input text")[1])
call("open_browser", lambda: (d.open_browser("https://www.baidu.com"), "am start -a VIEW -d URL")[1])
call("is_screen_on", lambda: check(d.is_screen_on() is True, "True"))
def root():
    # A userdebug build (the emulator image AndroidWorld uses): adbd
    # restarts as root and the connection drops; the adb server reconnects.
    said = d.root()
    check("restarting adbd as root" in said, repr(said))
    adb.wait_for(SERIAL, state="device", timeout=20)
    check(d.shell("whoami").strip() == "root", "whoami after root")
    return f"{said.strip()}; whoami: root"
call("root", root)
call("battery", lambda: check(d.battery().level == 100, repr(d.battery())))
def logcat():
    evt = d.logcat(str(WORK / "logcat.txt"), clear=True, re_filter=".*FA.*")
    evt.stop(timeout=3)
    return "logcat --clear, then logcat -v time to a file, stopped"
call("logcat + stop", logcat)
# Disconnect last: the calls above need the phone.
call("adb.disconnect", lambda: (adb.disconnect(SERIAL), "disconnected")[1])
call("adb.wait_for(state=disconnect)", lambda: (adb.wait_for(SERIAL, state="disconnect", timeout=10), "gone")[1])
def disconnect_absent():
    try:
        adb.disconnect(SERIAL, raise_error=True)
    except adbutils.AdbError as e:
        return f"AdbError: {e}"
    raise AssertionError("no AdbError for an absent device")
call("adb.disconnect(raise_error=True)", disconnect_absent)
call("adb.connect again", lambda: check("connected to" in adb.connect(SERIAL, timeout=10) and adb.device(SERIAL).shell("echo back") == "back", "back"))
sys.exit(1 if failures else 0)
