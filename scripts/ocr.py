#!/usr/bin/env python3
"""OCR legibility of simulator screens: for each screen (NAME.png beside
NAME.xml, a uiautomator dump), the share of the dump's element texts that
Debian's tesseract recovers from the PNG. A text counts as recovered when,
without accents, lowercased, with everything but letters, digits and
spaces removed, it is a
substring of the OCR output normalised the same way. Prints one row per
directory given (a condition, or before/after), pooled over its screens,
with a Wilson 95 % interval. A screen shown twice (the same PNG bytes)
counts once.

Usage: [OCR_PSM=N] scripts/ocr.py DIR [DIR ...]   (needs `tesseract`: apt-get install tesseract-ocr)

OCR_PSM is tesseract's page segmentation mode (default 11, sparse text;
12 adds orientation detection). The directories are `droidscore sim gallery --out` ones (PNG files with
their dumps beside them), e.g. each condition of `--conditions all`."""
import hashlib
import math
import os
import re
import subprocess
import sys
import unicodedata
import xml.etree.ElementTree as ET


def norm(text):
    # Accents off first (Tomás and an OCR's Tomas are the same name).
    plain = "".join(
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
    )
    return " ".join(re.sub(r"[^0-9a-z ]+", " ", plain.lower()).split())


def wilson(k, n, z=1.96):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def texts(xml_path):
    root = ET.parse(xml_path).getroot()
    out = []
    for node in root.iter("node"):
        t = norm(node.get("text", ""))
        if t:
            out.append(t)
    return out


def ocr(png_path):
    res = subprocess.run(
        ["tesseract", png_path, "-", "--psm", os.environ.get("OCR_PSM", "11")],
        capture_output=True, text=True, check=True,
    )
    return norm(res.stdout)


def main(dirs):
    print(f"{'screens':>8} {'texts':>6} {'recovered':>10}  share [95% CI]   dir")
    for d in dirs:
        screens = total = found = 0
        missed = {}
        seen = set()
        for base, _, files in sorted(os.walk(d)):
            for f in sorted(files):
                if not f.endswith(".png"):
                    continue
                xml = os.path.join(base, f[:-4] + ".xml")
                if not os.path.exists(xml):
                    continue
                with open(os.path.join(base, f), "rb") as fh:
                    digest = hashlib.sha256(fh.read()).hexdigest()
                if digest in seen:
                    continue
                seen.add(digest)
                want = texts(xml)
                got = ocr(os.path.join(base, f))
                screens += 1
                total += len(want)
                for t in want:
                    if t in got:
                        found += 1
                    else:
                        missed[t] = missed.get(t, 0) + 1
        lo, hi = wilson(found, total)
        share = found / total if total else 0.0
        print(f"{screens:>8} {total:>6} {found:>10}  {share:6.1%} [{lo:.1%}, {hi:.1%}]  {d}")
        worst = sorted(missed.items(), key=lambda kv: -kv[1])[:8]
        print("         most missed: " + "; ".join(f"{t!r}×{n}" for t, n in worst))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
