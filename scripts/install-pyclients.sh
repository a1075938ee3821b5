#!/usr/bin/env bash
# The PyPI adb clients the integration tests drive the virtual phone with
# (host/tests/integration/adb/pyclients.rs): adbutils through an adb server,
# adb-shell straight to the phone's adbd port; and Pillow, which the
# Mobile-Agent recipe opens its screenshots with as Mobile-Agent does
# (scripts/agents/mobileagent_calls.py); numpy, scipy and statsmodels (with
# pandas and patsy, which statsmodels needs), which tests/stats/check.py
# holds droidscore's paired comparisons against. Pinned: the tests' scripts
# call these versions' APIs. Needs python3 with pip.
set -euo pipefail
python3 -m pip install --quiet --disable-pip-version-check \
    adbutils==2.12.0 adb-shell==0.4.4 pillow==13.0.0 \
    numpy==2.4.6 scipy==1.17.1 statsmodels==0.15.0 pandas==3.1.2 patsy==1.0.3
python3 -c 'import adbutils, adb_shell, PIL; print("adbutils", adbutils.__version__, "adb-shell", adb_shell.__version__, "pillow", PIL.__version__)'
python3 -c 'import numpy, scipy, statsmodels; print("numpy", numpy.__version__, "scipy", scipy.__version__, "statsmodels", statsmodels.__version__)'
