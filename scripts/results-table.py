#!/usr/bin/env python3
"""Every figure scripts/results.sh measured, as Markdown tables.

Usage:
  scripts/results-table.py OUT          the tables of one run
  scripts/results-table.py OUT1 OUT2    the two runs side by side: for each
                                        figure, whether each run's median lies
                                        inside the other run's [min–max]

A figure is (section, name, median, min, max, unit, note). Counts (k/n) and
figures measured once have min = max = median; their "spread" is stated in the
note (deterministic, Wilson 95 %, one process).
"""
import json
import re
import statistics
import sys
from pathlib import Path


def load(path):
    with open(path) as f:
        return json.load(f)


class Figures:
    def __init__(self):
        self.rows = []

    def add(self, section, name, median, lo=None, hi=None, unit="", note="", kind=None):
        """kind: "range" (a spread), "exact" (a count or verdict that must
        repeat exactly) or "single" (one reading, no spread)."""
        kind = kind or ("range" if lo is not None else "exact")
        lo = median if lo is None else lo
        hi = median if hi is None else hi
        self.rows.append({"section": section, "name": name, "median": median, "min": lo, "max": hi,
                          "unit": unit, "note": note, "kind": kind})


def rate(section, name, report, figs, note=""):
    o = report["overall"]  # droidscore report's own Wilson 95 % bounds
    lo, hi = o["low"], o["high"]
    figs.add(section, name, o["successes"], unit=f"of {o['n']}",
             note=f"{100 * o['successes'] / max(o['n'], 1):.1f} %, Wilson 95 % [{100 * lo:.1f}, {100 * hi:.1f}] %"
             + (f"; {report['skipped']} skipped" if report.get("skipped") else "") + (f"; {note}" if note else ""))


def suite(d, figs):
    for agent in ("reference", "noop"):
        rate("suite", f"{agent}, every task variant on the simulator", load(d / f"{agent}.report.json"), figs,
             "deterministic")
    lines = (d / "check.txt").read_text().strip().splitlines()
    rows = [l for l in lines[2:-1] if l.strip()]  # after the header and rule, before the summary
    bad = sum(1 for l in rows if not l.rstrip().endswith(" ok"))
    figs.add("suite", "tasks check", bad, unit="violations", note=f"{len(rows)} task variants checked; {lines[-1]}")


def host(d, figs):
    root = d / "criterion"
    for sample_file in sorted(root.glob("**/new/sample.json")):
        sample = load(sample_file)
        per_iter = [t / i / 1e3 for t, i in zip(sample["times"], sample["iters"])]  # µs
        med = statistics.median(per_iter)
        mad = statistics.median(abs(x - med) for x in per_iter)
        info = load(sample_file.parent / "benchmark.json")
        note = f"MAD {mad:.3g} µs, n={len(per_iter)} criterion samples" if mad < 1000 else f"MAD {mad / 1e3:.3g} ms, n={len(per_iter)} criterion samples"
        tp = info.get("throughput") or {}
        if "Bytes" in tp:
            b = tp["Bytes"]
            note += f"; {b / med:.0f} MB/s at the median ({b / max(per_iter):.0f}–{b / min(per_iter):.0f})"
        scale, unit = (1e3, "ms") if med >= 1000 else (1.0, "µs")
        figs.add("host", info.get("full_id", sample_file.parent.parent.name), med / scale, min(per_iter) / scale,
                 max(per_iter) / scale, unit, note)


def adb(d, figs):
    rate("adb", "reference solver through the adb server (virtual phone)", load(d / "adb.report.json"), figs,
         "deterministic")
    first = (d / "verdict-diff.txt").read_text().splitlines()[0]
    different = int(re.search(r"(\d+) different", first).group(1))
    figs.add("adb", "verdicts against the simulator's", different, unit="different", note=first)
    lat = load(d / "latency.json")
    for p in lat["parts"]:
        s = p["ms"]
        figs.add("adb", f"observation: {p['part']}", s["median"], s["min"], s["max"], "ms",
                 f"MAD {s['mad']:.3g} ms, n={s['n']}, {100 * p['share']:.0f} % of the total")


def bench_keys(section, bench, figs, label=lambda key, arm: f"{key}, {arm}", unit=""):
    for arm in bench["arms"]:
        for key, k in arm["keys"].items():
            contended = sum(1 for s in k["samples"] if s.get("contended"))
            figs.add(section, label(key, arm["tag"]), k["median"], k["min"], k["max"], unit, f"{len(k['samples'])} passes" + (f", {contended} contended" if contended else ""))
    for r in bench.get("rankings", []):
        if len(r["order"]) < 2:
            continue  # one arm: a verdict with nothing to compare
        places = {}
        for o in r["order"]:
            places.setdefault(o["place"], []).append(o["tag"])
        shared = lambda tags: tags[0] if len(tags) == 1 else " = ".join(sorted(tags)) + " (not separated)"
        verdict = "NOT A RANKING" if r["not_a_ranking"] else "ranked: " + " > ".join(
            shared(tags) for _, tags in sorted(places.items()))
        figs.add(section, f"verdict on {r['metric']}", 0, unit="", note=verdict + (
            f" ({r['reason']})" if r.get("reason") and r["not_a_ranking"] else ""))


def speed_tests(path):
    tests = {}
    for t in load(path):
        name = f"pp{t['n_prompt']}" if t["n_prompt"] else f"tg{t['n_gen']}"
        tests[name] = t
    return tests


def speed(d, figs):
    bench = load(d / "bench.json")
    bench_keys("speed", bench, figs, unit="t/s")
    med = {(a["tag"], k): v["median"] for a in bench["arms"] for k, v in a["keys"].items()}
    rng = {(a["tag"], k): (v["min"], v["max"]) for a in bench["arms"] for k, v in a["keys"].items()}
    for key in ("pp512_ts", "tg128_ts"):
        if ("llama-bench", key) in med:
            for arm in ("ours f32", "ours bf16"):
                a, b = rng[(arm, key)], rng[("llama-bench", key)]
                figs.add("speed", f"{key}: {arm} / llama-bench", med[(arm, key)] / med[("llama-bench", key)],
                         a[0] / b[1], a[1] / b[0], "×",
                         "ratio of medians, one bench run; range: worst and best pairing of the two ranges")
        else:
            figs.add("speed", f"{key}: llama-bench", 0, unit="", note="not run: LLAMA_CPP_BIN was not set")
    default, shipped = speed_tests(d / "default-flags.json"), speed_tests(d / "shipped.json")
    for name in ("pp512", "tg128"):
        for tag, tests in (("default flags", default), ("shipped x86-64-v3", shipped)):
            ts = sorted(tests[name]["samples_ts"])
            figs.add("speed", f"{name}, {tag} build, one process", statistics.median(ts), ts[0], ts[-1], "t/s",
                     f"{len(ts)} repetitions inside one process; features "
                     + (",".join(tests[name].get("target_features", [])) or "baseline"))
        sh, de = shipped[name]["samples_ts"], default[name]["samples_ts"]
        figs.add("speed", f"{name}: shipped / default flags", statistics.median(sh) / statistics.median(de),
                 min(sh) / max(de), max(sh) / min(de), "×",
                 "ratio of medians, back to back; range: worst and best pairing")


def memory(d, figs):
    bench = load(d / "bench.json")
    bench_keys("memory", bench, figs, label=lambda key, arm: key,
               unit="")  # KiB, except context.prompt_tokens (tokens): named in the key
    arm = bench["arms"][0]["keys"]
    ready = arm["at_ready.rss_anon_kib"]["samples"]
    after = arm["context.tree.rss_anon_kib"]["samples"]
    deltas = sorted((a["value"] - r["value"]) / 1024 for r, a in zip(ready, after))
    figs.add("memory", "RssAnon after the request − at ready, same pass", statistics.median(deltas), deltas[0],
             deltas[-1], "MiB", f"{len(deltas)} passes")
    ledger = load(d / "ledger.json")
    for cat, c in sorted(ledger["categories"].items()):
        figs.add("memory", f"ledger at ready: {cat}", c["rss_kib"], unit="KiB Rss",
                 note=f"{c['mappings']} mappings, one reading", kind="exact" if cat == "model" else "single")


def agent(d, figs):
    rate("agent", "reference solver, [ab]*_on base, 8 steps", load(d / "reference.report.json"), figs,
         "deterministic")
    r = load(d / "model.report.json")
    u = r["usage"]
    rate("agent", "default model (SmolLM2-135M Q4_1) on this CPU, same slice", r, figs)
    figs.add("agent", "model: valid actions taken", r["steps"], unit="actions",
             note=f"{r['invalid_steps']} invalid answers, {u['steps']} model calls")
    lat = u["latency_ms"]
    figs.add("agent", "model: step latency", lat["median"] / 1e3, lat["min"] / 1e3, lat["max"] / 1e3, "s",
             f"over {u['steps']} model calls; p10–p90 {lat['p10'] / 1e3:.1f}–{lat['p90'] / 1e3:.1f} s")
    for what in ("prompt", "completion"):
        t = u.get(f"{what}_tokens")
        if t:
            figs.add("agent", f"model: {what} tokens per call", t["median"], unit="tokens",
                     note=f"median over {t['steps']} calls, {t['total']:,} in all", kind="single")


def fourbit(d, figs):
    for path in sorted(d.glob("kld-*.json")):
        k = load(path)
        figs.add("fourbit", f"KLD, {path.stem[4:].replace('_', ' ')}", k["kld_mean"], unit="",
                 note=f"± {k['kld_uncertainty']:.4f}; same top {k['same_top']:.4f}")
    for path in sorted(d.glob("speed*.json")):
        bench_keys("fourbit", load(path), figs)


PARTS = {"suite": suite, "host": host, "adb": adb, "speed": speed, "memory": memory, "agent": agent,
         "fourbit": fourbit}


def collect(out):
    figs = Figures()
    for part, fn in PARTS.items():
        if (out / part).is_dir():
            try:
                fn(out / part, figs)
            except (OSError, KeyError, ValueError, IndexError, TypeError) as e:
                figs.add(part, "(part unreadable)", 0, note=f"{type(e).__name__}: {e}")
    return figs.rows


def num(x):
    if float(x).is_integer() and abs(x) < 1e6:
        return f"{int(x):,}" if abs(x) >= 1000 else str(int(x))
    a = abs(x)
    if a >= 1000:
        return f"{x:,.0f}"
    if a >= 100:
        return f"{x:.1f}"
    if a >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def cell(r):
    if r["unit"] == "" and r["median"] == 0:
        return "—"
    if r["min"] == r["max"]:
        return f"{num(r['median'])} {r['unit']}".strip()
    return f"{num(r['median'])} [{num(r['min'])}–{num(r['max'])}] {r['unit']}".strip()


def one(out):
    prov = out / "provenance.txt"
    if prov.exists():
        print("```\n" + prov.read_text().strip() + "\n```\n")
    section = None
    for r in collect(out):
        if r["section"] != section:
            section = r["section"]
            print(f"\n### {section}\n\n| figure | median [min–max] | spread, n |\n|---|---:|---|")
        print(f"| {r['name']} | {cell(r)} | {r['note']} |")


def two(a, b):
    ra = {(r["section"], r["name"]): r for r in collect(a)}
    rb = {(r["section"], r["name"]): r for r in collect(b)}
    inside = outside = 0
    section = None
    keys = list(ra) + [k for k in rb if k not in ra]
    order = {}
    for k in keys:
        order.setdefault(k[0], len(order))
    for key in sorted(keys, key=lambda k: order[k[0]]):  # stable: one table a section
        x, y = ra.get(key), rb.get(key)
        if key[0] != section:
            section = key[0]
            print(f"\n### {section}\n\n| figure | run 1 | run 2 | each median inside the other's range? |\n|---|---:|---:|---|")
        if x is None or y is None:
            print(f"| {key[1]} | {cell(x) if x else '—'} | {cell(y) if y else '—'} | only in one run |")
            continue
        if key[1] == "(part unreadable)":
            outside += 1
            print(f"| {key[1]} | {x['note']} | {y['note']} | **unreadable** |")
            continue
        if x["unit"] == "" and x["median"] == 0 == y["median"]:  # verdict and text rows
            # A verdict repeats when its outcome does; which two arms tie may change.
            same = x["note"].split(" (")[0] == y["note"].split(" (")[0]
            inside += same
            outside += not same
            print(f"| {key[1]} | {x['note']} | {y['note']} | {'same' if same else '**differs**'} |")
            continue
        if x["kind"] == "exact":
            same = x["median"] == y["median"]
            inside += same
            outside += not same
            print(f"| {key[1]} | {cell(x)} | {cell(y)} | {'same (exact)' if same else '**differs**'} |")
            continue
        if x["kind"] == "single":
            d = 100 * (y["median"] - x["median"]) / x["median"] if x["median"] else float("nan")
            print(f"| {key[1]} | {cell(x)} | {cell(y)} | one reading each: {d:+.1f} % |")
            continue
        ok = x["min"] <= y["median"] <= x["max"] and y["min"] <= x["median"] <= y["max"]
        inside += ok
        outside += not ok
        print(f"| {key[1]} | {cell(x)} | {cell(y)} | {'yes' if ok else '**no**'} |")
    print(f"\n{inside} figures reproduce (within the other run's range, or exactly where exact); {outside} do not.")


if __name__ == "__main__":
    args = [Path(p) for p in sys.argv[1:]]
    if len(args) == 1:
        one(args[0])
    elif len(args) == 2:
        two(*args)
    else:
        sys.exit(__doc__)
