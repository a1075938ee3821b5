#!/usr/bin/env python3
"""Record a paired table from a run store, for tests/stats/ (issue 50).

    paired-table.py STORE A B offline MATCHER[,MATCHER...]   > table.json
    paired-table.py STORE A B online  success,reached,sub-sr   > table.json

Reads the store with sqlite3 alone (a second reading of the pairing, beside
droidscore's own): offline, the steps both runs were scored on (episodes
that ran to the end), keyed by (task, variant, seed, step index), one row
per matcher; online, the episodes both runs scored, keyed by (task,
variant, condition, instance, repeat). Each unit is [template, a, b,
trials], the template by its index in
`clusters`. tests/stats/check.py judges the tables with statsmodels and
scipy; host/tests/integration/stats.rs with droidscore's own statistics.
"""
import json
import sqlite3
import sys


def offline(db, a, b, matchers):
    def steps(run):
        q = """SELECT s.task, s.variant, s.instance_seed, s.idx, s.step_json
               FROM offline_steps s JOIN offline_episodes e
                 ON e.run_id = s.run_id AND e.task = s.task AND e.variant = s.variant
                AND e.instance_seed = s.instance_seed
               WHERE s.run_id = ? AND json_extract(e.end_json, '$.end') = 'done'"""
        out = {}
        for task, variant, seed, idx, js in db.execute(q, (run,)):
            out[(task, variant, seed, idx)] = dict(
                (n, v["correct"]) for n, v in json.loads(js)["verdicts"])
        return out

    sa, sb = steps(a), steps(b)
    rows = []
    for m in matchers:
        units = [[k[0], int(sa[k][m]), int(sb[k][m]), 1]
                 for k in sorted(sa) if k in sb and m in sa[k] and m in sb[k]]
        rows.append({"name": m, "yes_no": True, "units": units})
    return rows


def online(db, a, b, measures):
    return [row for m in measures for row in online_one(db, a, b, m)]


def online_one(db, a, b, measure):
    def episodes(run):
        q = """SELECT task, variant, condition, instance_seed, repeat, status, progress_json
               FROM episodes WHERE run_id = ? AND status IN ('success', 'failure')"""
        return {r[:5]: (r[5], json.loads(r[6]) if r[6] else None) for r in db.execute(q, (run,))}

    def value(status, progress):
        ok = status == "success"
        if measure == "success":
            return int(ok), 1
        if progress is None:
            return None
        m = progress["milestones"]
        if measure == "reached":
            return int(ok or progress["reached_any"] > 0), 1
        return (m if ok else progress["reached_any"]), m

    ea, eb = episodes(a), episodes(b)
    units = []
    for k in sorted(ea, key=repr):
        if k not in eb:
            continue
        va, vb = value(*ea[k]), value(*eb[k])
        if va is None or vb is None or va[1] != vb[1] or va[1] == 0:
            continue
        units.append([k[0], va[0], vb[0], va[1]])
    return [{"name": measure, "yes_no": measure != "sub-sr", "units": units}]


def main():
    store, a, b, kind, what = sys.argv[1:6]
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    rows = (offline if kind == "offline" else online)(db, a, b, what.split(","))
    # Templates by index, to keep the file small: a unit is [index, a, b, trials].
    clusters = sorted({u[0] for r in rows for u in r["units"]})
    at = {c: i for i, c in enumerate(clusters)}
    for r in rows:
        r["units"] = [[at[u[0]]] + u[1:] for u in r["units"]]
    json.dump({"source": f"{a} vs {b} ({kind})", "clusters": clusters, "rows": rows},
              sys.stdout, separators=(",", ":"))
    print()


if __name__ == "__main__":
    main()
