#!/usr/bin/env bash
# The PyPI adb clients the integration tests drive the virtual phone with
# (host/tests/integration/adb/pyclients.rs): adbutils through an adb server,
# adb-shell straight to the phone's adbd port. Pinned: the tests' scripts
# call these versions' APIs. Needs python3 with pip.
set -euo pipefail
python3 -m pip install --quiet --disable-pip-version-check \
    adbutils==2.12.0 adb-shell==0.4.4
python3 -c 'import adbutils, adb_shell; print("adbutils", adbutils.__version__, "adb-shell", adb_shell.__version__)'
