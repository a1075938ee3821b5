"""The calls JeffLIrion/adb_shell's README and API show for AdbDeviceTcp,
straight to the virtual phone's adbd port (no adb server): one line per
call, `PASS name: detail` or `FAIL name: error`. Usage:
adb_shell_calls.py HOST PORT WORKDIR.

Run by host/tests/integration/adb/pyclients.rs; needs adb-shell==0.4.4
(scripts/install-pyclients.sh).
"""

import os
import pathlib
import sys
import traceback

from adb_shell.adb_device import AdbDeviceTcp
from adb_shell.auth.keygen import keygen
from adb_shell.auth.sign_pythonrsa import PythonRSASigner

HOST, PORT, WORK = sys.argv[1], int(sys.argv[2]), pathlib.Path(sys.argv[3])
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


# The README's `default_timeout_s=9.` is named default_transport_timeout_s
# in 0.4.4 (adb_shell/adb_device.py, AdbDeviceTcp.__init__).
device1 = AdbDeviceTcp(HOST, PORT, default_transport_timeout_s=9.)
call("connect (no authentication)", lambda: check(device1.connect(auth_timeout_s=0.1) is True, f"maxdata {device1._maxdata}"))

keygen(str(WORK / "adbkey"))
signer = PythonRSASigner("", (WORK / "adbkey").read_text())
device2 = AdbDeviceTcp(HOST, PORT, default_transport_timeout_s=9.)
call("connect (rsa_keys)", lambda: check(device2.connect(rsa_keys=[signer], auth_timeout_s=0.1) is True, "the phone asks for no AUTH"))

call("shell('echo TEST1')", lambda: check((r := device1.shell("echo TEST1")) == "TEST1\n", repr(r)))
call("shell('echo TEST2') (rsa)", lambda: check((r := device2.shell("echo TEST2")) == "TEST2\n", repr(r)))
call("shell getprop", lambda: check(device1.shell("getprop ro.product.model") == "droidscore_sim\n", "droidscore_sim"))
call("shell wm size", lambda: check((r := device1.shell("wm size")) == "Physical size: 1080x2400\n", repr(r)))
call("exec_out screencap -p", lambda: check((png := device1.exec_out("screencap -p", decode=False))[:8] == b"\x89PNG\r\n\x1a\n", f"PNG, {len(png)} bytes"))
call("streaming_shell", lambda: check("".join(device1.streaming_shell("pm list packages")).count("package:com.android.settings\n") == 1, "Settings once"))
(WORK / "small.txt").write_bytes(b"hello adb-shell\n")
call("push small", lambda: (device1.push(str(WORK / "small.txt"), "/data/local/tmp/small.txt"), "16 bytes")[1])
call("pull small", lambda: (device1.pull("/data/local/tmp/small.txt", str(WORK / "small.back")), check((WORK / "small.back").read_bytes() == b"hello adb-shell\n", "same bytes"))[1])
big = os.urandom(300 * 1024)
(WORK / "big.bin").write_bytes(big)
call("push 300 kB", lambda: (device1.push(str(WORK / "big.bin"), "/sdcard/big.bin"), "307200 bytes")[1])
call("pull 300 kB", lambda: (device1.pull("/sdcard/big.bin", str(WORK / "big.back")), check((WORK / "big.back").read_bytes() == big, "same bytes"))[1])
huge = os.urandom(3 * 1024 * 1024)
(WORK / "huge.bin").write_bytes(huge)
call("push 3 MB", lambda: (device2.push(str(WORK / "huge.bin"), "/sdcard/huge.bin"), "3145728 bytes")[1])
call("pull 3 MB", lambda: (device2.pull("/sdcard/huge.bin", str(WORK / "huge.back")), check((WORK / "huge.back").read_bytes() == huge, "same bytes"))[1])
call("stat", lambda: check((s := device1.stat("/sdcard/big.bin"))[1] == len(big) and s[2] > 0, f"mode {s[0]:o}, size {s[1]}, mtime {s[2]}"))
call("list", lambda: check({b"big.bin", b"huge.bin"} <= {bytes(f.filename) for f in device1.list("/sdcard")}, f"{sorted(bytes(f.filename).decode() for f in device1.list('/sdcard'))}"))
call("shell after sync", lambda: check(device1.shell("echo still") == "still\n", "still"))
call("close", lambda: (device1.close(), device2.close(), "closed")[2])
sys.exit(1 if failures else 0)
