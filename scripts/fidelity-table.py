#!/usr/bin/env python3
"""The fidelity table of scripts/fidelity.sh's OUT_DIR, as Markdown: for each
candidate, its layout (from the file that ran), and KLD, top-1 agreement and
ln(PPL ratio) with llama-perplexity's uncertainties — ours against our base,
llama.cpp's against its own base, ours against llama.cpp's base — whichever
of them the directory holds."""
import json
import pathlib
import re
import sys

out = pathlib.Path(sys.argv[1])
TAGS = ["q4_1 as shipped", "q8_0 head same", "q4_0 head kept", "q4_0 head quantized",
        "q4k head kept", "q4k head quantized"]
ORDER = [t.replace(" ", "_") for t in TAGS]


def ours(path):
    if not path.exists():
        return None
    v = json.loads(path.read_text().strip().splitlines()[-1])
    return {
        "kld": (v["kld_mean"], v["kld_uncertainty"]),
        "top": (100 * v["same_top"], 100 * v["same_top_uncertainty"]),
        "ln": (v["ln_ppl_ratio"], v["ln_ppl_ratio_uncertainty"]),
        "n": v["positions"],
        "model": v["model"],
    }


def llama(path):
    if not path.exists():
        return None
    text = path.read_text()

    def pm(label):
        m = re.search(re.escape(label) + r"\s*(-?[0-9.]+)\s*±\s*([0-9.]+)", text)
        return (float(m.group(1)), float(m.group(2))) if m else None

    kld, top, ln = pm("Mean    KLD:"), pm("Same top p:"), pm("Mean ln(PPL(Q)/PPL(base)):")
    if kld is None:
        return {"error": text.strip().splitlines()[-1] if text.strip() else "empty log"}
    return {"kld": kld, "top": top, "ln": ln}


def fmt(pair, digits):
    return f"{pair[0]:.{digits}f} ± {pair[1]:.{digits}f}" if pair else "—"


rows = []
header = ("| candidate | body → head (tensors by type) | bytes/weight, matrices | "
          "KLD, ours | same top %, ours | ln PPL ratio, ours | "
          "KLD, llama.cpp | same top %, llama.cpp | KLD, ours on llama.cpp's base |")
rows.append(header)
rows.append("|" + " --- |" * 9)
for slug in ORDER:
    o = ours(out / f"kld-{slug}.json")
    if o is None:
        continue
    lay = o["model"]["layout"] or {}
    types = ", ".join(f"{t} {c['tensors']}" for t, c in sorted(lay.get("by_type", {}).items()))
    head = f"head {lay.get('output_head_type', '?')}"
    l = llama(out / f"llama-kld-{slug}.log")
    x = ours(out / f"cross-{slug}.json")
    lk = "—" if l is None else (l.get("error") if "error" in l else fmt(l["kld"], 6))
    lt = "—" if l is None or "error" in l else fmt(l["top"], 2)
    rows.append(
        f"| {TAGS[ORDER.index(slug)]} | {types}; {head} | {lay.get('matrix_bytes_per_weight', 0):.4f} | "
        f"{fmt(o['kld'], 6)} | {fmt(o['top'], 2)} | {fmt(o['ln'], 4)} | {lk} | {lt} | "
        f"{fmt(x['kld'], 6) if x else '—'} |"
    )
print("\n".join(rows))
first = ours(out / f"kld-{ORDER[0]}.json")
if first:
    print(f"\n{first['n']} scored positions; reference: the default model's Q4_1 weights "
          "dequantized (as shipped), not its original weights.")
