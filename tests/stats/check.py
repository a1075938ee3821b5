#!/usr/bin/env python3
"""droidscore's paired comparisons against statsmodels and scipy (issue 50).

    check.py TABLES_DIR RESULTS_JSON

TABLES_DIR holds paired tables recorded from real run stores
(scripts/paired-table.py); RESULTS_JSON is what droidscore's own statistics
(host/src/report/paired.rs) made of each, written by
host/tests/integration/stats.rs. For every row this computes, with
well-kept implementations:

- the difference A - B and its cluster-robust interval: a constant
  regressed on the paired differences, WLS with the trials as weights,
  `cov_type="cluster"` by template, `use_t=True` (statsmodels);
- McNemar's exact test on the discordant units (statsmodels `mcnemar`),
  or for other outcomes the sign test on templates (`sign_test`);
- Holm's correction across the rows of one table (statsmodels
  `multipletests`), and the verdict;
- the smallest difference detectable at 80 % power, (t + z) * SE (scipy);
- a paired cluster bootstrap over templates (numpy, 10,000 resamples,
  seed 20261207), a second, different estimate of the interval.

Every figure is compared as droidscore prints it (points to one decimal,
p-values to three); the bootstrap's verdict must agree on every row, and
its bounds be within 1 point of the analytic ones where at least 10
templates differ. Prints one line per
row and exits 1 on any difference.
Needs numpy==2.4.6 scipy==1.17.1 statsmodels==0.15.0 (scripts/install-pyclients.sh).
"""
import json
import pathlib
import sys

import numpy as np
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.descriptivestats import sign_test
from statsmodels.stats.multitest import multipletests

ALPHA = 0.05


def fmt_p(p):
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def pts(x):
    return f"{100 * x:+.1f}"


def verdict(p_holm, diff, clusters):
    if p_holm >= ALPHA or clusters < 2 or diff == 0:
        return "NOT A RANKING"
    return "A" if diff > 0 else "B"


def analytic(units, yes_no):
    g, a, b, m = (np.array([u[i] for u in units], dtype=float) for i in range(4))
    fit = sm.WLS((a - b) / m, np.ones(len(m)), weights=m).fit(
        cov_type="cluster", cov_kwds={"groups": g.astype(int)}, use_t=True)
    clusters = len(set(g.astype(int)))
    low, high = fit.conf_int(alpha=ALPHA)[0]
    out = {
        "difference": fit.params[0], "low": max(low, -1.0), "high": min(high, 1.0),
        "p_interval": fit.pvalues[0], "clusters": clusters,
        "detectable": (stats.t.ppf(1 - ALPHA / 2, clusters - 1) + stats.norm.ppf(0.8)) * fit.bse[0],
    }
    p = fit.pvalues[0]
    if not yes_no:
        # The sign test on templates (statsmodels' sign_test on each
        # template's difference of totals; same trials in both runs).
        d = [(a[g == k] - b[g == k]).sum() for k in sorted(set(g.astype(int)))]
        pos, neg = sum(x > 0 for x in d), sum(x < 0 for x in d)
        st = sign_test(np.array(d), 0)[1] if pos + neg else 1.0
        out.update(t_a=pos, t_b=neg, sign=st)
        p = max(p, st)
    if yes_no:
        a_only, b_only = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
        mc = mcnemar([[0, a_only], [b_only, 0]], exact=True).pvalue
        out.update(a_only=a_only, b_only=b_only, mcnemar=mc)
        p = max(p, mc)
    out["p"] = p
    return out


def bootstrap(units, rng, resamples=10_000):
    by = {}
    for g, a, b, m in units:
        s = by.setdefault(g, [0.0, 0.0, 0.0])
        s[0] += a
        s[1] += b
        s[2] += m
    sums = np.array(list(by.values()))
    idx = rng.integers(0, len(sums), size=(resamples, len(sums)))
    picked = sums[idx]
    diff = (picked[:, :, 0].sum(1) - picked[:, :, 1].sum(1)) / picked[:, :, 2].sum(1)
    return np.percentile(diff, [2.5, 97.5])


def main():
    tables, results = pathlib.Path(sys.argv[1]), json.load(open(sys.argv[2]))
    rng = np.random.default_rng(20261207)
    bad, checked = 0, 0
    for path in sorted(tables.glob("*.json")):
        table = json.load(open(path))
        ours = results[path.name]
        theirs = [analytic(r["units"], r["yes_no"]) for r in table["rows"]]
        holm = multipletests([t["p"] for t in theirs], method="holm")[1]
        for row, t, h, o in zip(table["rows"], theirs, holm, ours):
            want = {
                "difference": pts(t["difference"]), "low": pts(t["low"]), "high": pts(t["high"]),
                "p_interval": fmt_p(t["p_interval"]), "p": fmt_p(t["p"]), "p_holm": fmt_p(h),
                "detectable": f"{100 * t['detectable']:.1f}",
                "verdict": verdict(h, t["difference"], t["clusters"]),
            }
            got = {
                "difference": pts(o["difference"]), "low": pts(o["low"]), "high": pts(o["high"]),
                "p_interval": fmt_p(o["p_interval"]), "p": fmt_p(o["p"]),
                "p_holm": fmt_p(o["p_holm"]), "detectable": f"{100 * o['detectable']:.1f}",
                "verdict": o["verdict"],
            }
            if row["yes_no"]:
                want["discordant"] = f"{t['a_only']} / {t['b_only']} p {fmt_p(t['mcnemar'])}"
                d = o["discordant"]
                got["discordant"] = f"{d['a_only']} / {d['b_only']} p {fmt_p(d['p'])}"
            else:
                want["templates"] = f"{t['t_a']} / {t['t_b']} p {fmt_p(t['sign'])}"
                d = o["templates"]
                got["templates"] = f"{d['a_only']} / {d['b_only']} p {fmt_p(d['p'])}"
            lo, hi = bootstrap(row["units"], rng)
            boot_ranks = lo > 0 or hi < 0
            ours_ranks = o["low"] > 0 or o["high"] < 0
            # The bounds are held to 1 point only where at least 10
            # templates differ: below that, both the t interval and the
            # bootstrap misstate a rare outcome's spread (the bootstrap
            # cannot go below 0 with no template the other way), which is
            # why a ranking needs the exact test too. The verdict is held
            # everywhere.
            by = {}
            for u in row["units"]:
                by[u[0]] = by.get(u[0], 0) + u[1] - u[2]
            differing = sum(1 for v in by.values() if v != 0)
            near = differing < 10 or (abs(lo - o["low"]) <= 0.01 and abs(hi - o["high"]) <= 0.01)
            diffs = [k for k in want if want[k] != got[k]]
            ok = not diffs and boot_ranks == ours_ranks and near
            bad += not ok
            checked += 1
            print(f"{'ok' if ok else 'DIFFERS'}  {path.stem} {row['name']}: "
                  f"{got['difference']} [{got['low']}, {got['high']}] p {got['p']} "
                  f"(Holm {got['p_holm']}) {got['verdict']}; "
                  f"bootstrap [{pts(lo)}, {pts(hi)}]"
                  + "".join(f"\n    {k}: droidscore {got[k]!r}, statsmodels {want[k]!r}" for k in diffs)
                  + ("" if boot_ranks == ours_ranks else "\n    the bootstrap's verdict differs")
                  + ("" if near else "\n    the bootstrap's bounds are more than 1 point away")
                  + (f" ({differing} templates differ)" if differing < 10 else ""))
    print(f"checked {checked} rows against statsmodels and a numpy cluster bootstrap: {bad} differ")
    sys.exit(1 if bad or checked == 0 else 0)


if __name__ == "__main__":
    main()
