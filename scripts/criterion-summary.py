#!/usr/bin/env python3
"""Summarise criterion's saved results as median and spread.

criterion's console line is a confidence interval of the mean; results here are
quoted as the median of the per-iteration sample times with the median absolute
deviation (MAD), min and max, and the throughput at the median where criterion
recorded one. Usage: scripts/criterion-summary.py [TARGET_DIR]
"""
import json
import os
import statistics
import sys
from pathlib import Path

target = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CARGO_TARGET_DIR", "target"))
root = target / "criterion"
if not root.is_dir():
    sys.exit(f"no criterion results under {root}: run cargo bench first")


def fmt_time(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


print("| benchmark | median | MAD | min | max | n | throughput at median |")
print("|---|---|---|---|---|---|---|")
for sample_file in sorted(root.glob("**/new/sample.json")):
    bench = sample_file.parent.parent
    sample = json.loads(sample_file.read_text())
    per_iter = [t / i for t, i in zip(sample["times"], sample["iters"])]
    med = statistics.median(per_iter)
    mad = statistics.median(abs(x - med) for x in per_iter)
    info = json.loads((sample_file.parent / "benchmark.json").read_text())
    thrpt = ""
    if info.get("throughput") and "Bytes" in info["throughput"]:
        nbytes = info["throughput"]["Bytes"]
        thrpt = f"{nbytes / (med / 1e9) / 1e6:.0f} MB/s (min {nbytes / (max(per_iter) / 1e9) / 1e6:.0f}, max {nbytes / (min(per_iter) / 1e9) / 1e6:.0f})"
    name = info.get("full_id", str(bench.relative_to(root)))
    print(f"| {name} | {fmt_time(med)} | {fmt_time(mad)} | {fmt_time(min(per_iter))} | {fmt_time(max(per_iter))} | {len(per_iter)} | {thrpt} |")
