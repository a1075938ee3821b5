#!/usr/bin/env bash
# The PyPI adb clients the integration tests drive the virtual phone with
# (host/tests/integration/adb/pyclients.rs): adbutils through an adb server,
# adb-shell straight to the phone's adbd port; and Pillow, which the
# Mobile-Agent recipe opens its screenshots with as Mobile-Agent does
# (scripts/agents/mobileagent_calls.py). Pinned: the tests' scripts call
# these versions' APIs. Needs python3 with pip.
set -euo pipefail
python3 -m pip install --quiet --disable-pip-version-check \
    adbutils==2.12.0 adb-shell==0.4.4 pillow==13.0.0
python3 -c 'import adbutils, adb_shell, PIL; print("adbutils", adbutils.__version__, "adb-shell", adb_shell.__version__, "pillow", PIL.__version__)'
