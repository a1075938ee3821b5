#!/usr/bin/env python3
"""The steps whose verdict changed between two versions of a peer rule.

Reads `droidscore report RUN --format json --matchers ...` (an offline run's
stored steps judged again under both versions) on stdin and prints, per
rule, how many steps went from right to wrong and from wrong to right, with
up to three of each: the same steps under two rules, compared paired.

    droidscore report RUN --format json \
        --matchers aitw@1,aitw@2,androidcontrol@1,androidcontrol@2,gui-odyssey@1,gui-odyssey@2 \
        | python3 scripts/matcher-flips.py
"""
import json
import sys


def describe(act):
    out = act["kind"]
    if "point" in act:
        out += " (%d, %d)" % tuple(act["point"])
    if "end" in act:
        out += " → (%d, %d)" % tuple(act["end"])
    for key in ("text", "app"):
        if key in act:
            out += " %s" % json.dumps(act[key], ensure_ascii=False)
    return out


def main():
    run = json.load(sys.stdin)
    steps = [(e, s) for e in run["episodes"] for s in e["steps"]]
    names = [n for n, _ in steps[0][1]["verdicts"]] if steps else []
    rules = sorted({n.split("@")[0] for n in names if n.endswith("@1") and n.replace("@1", "@2") in names})
    print("run %s: %d steps" % (run["run_id"], len(steps)))
    for rule in rules:
        lost, gained = [], []
        for episode, step in steps:
            verdicts = dict(step["verdicts"])
            old, new = verdicts[rule + "@1"]["correct"], verdicts[rule + "@2"]["correct"]
            if old != new:
                where = "%s/%s step %d: %s for %s" % (
                    episode["task"], episode["variant"], step["index"],
                    describe(step["answer"]), describe(step["reference"]["act"]))
                (lost if old else gained).append(where)
        print("  %s: %d right under @1 and wrong under @2, %d wrong under @1 and right under @2"
              % (rule, len(lost), len(gained)))
        for where in lost[:3]:
            print("    lost:   " + where)
        for where in gained[:3]:
            print("    gained: " + where)


if __name__ == "__main__":
    main()
