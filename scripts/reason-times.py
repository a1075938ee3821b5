#!/usr/bin/env python3
"""Per `--reason` arm: offline steps, the agent's time a step (median and
p90, nearest rank), completion tokens (median) and steps right under
droidscore@1, pooled over the runs named PREFIX-<arm>-<task> that
scripts/scores.sh makes (the arms interleaved task by task).

Usage: scripts/reason-times.py STORE [PREFIX]   (PREFIX: reason)"""
import json
import math
import sqlite3
import statistics
import sys

store = sys.argv[1]
prefix = sys.argv[2] if len(sys.argv) > 2 else "reason"
db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
arms = {}
for run, text in db.execute(
    "select run_id, step_json from offline_steps where run_id like ?", (prefix + "-%",)
):
    arm = run[len(prefix) + 1:].split("-")[0]
    step = json.loads(text)
    a = arms.setdefault(arm, {"ms": [], "tokens": [], "right": 0, "runs": set()})
    a["runs"].add(run)
    a["ms"].append(step.get("latency_ms", 0.0))
    a["tokens"].append(step.get("completion_tokens") or 0)
    verdicts = dict(step.get("verdicts", []))
    a["right"] += bool(verdicts.get("droidscore@1", {}).get("correct"))


def p90(values):
    values = sorted(values)
    return values[max(1, math.ceil(0.9 * len(values))) - 1]


print("reason  runs  steps  ms median  ms p90  completion tokens median  right (droidscore@1)")
for arm in ("full", "short", "off"):
    a = arms.get(arm)
    if a:
        n = len(a["ms"])
        print(
            f"{arm:6}  {len(a['runs']):4}  {n:5}  {statistics.median(a['ms']):9.0f}  "
            f"{p90(a['ms']):6.0f}  {statistics.median(a['tokens']):24.0f}  {a['right']}/{n}"
        )
