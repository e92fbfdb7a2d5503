"""The figure of benchmarks/results/extract.md, from the JSON parts of accuracy/extract.py.

.venv/bin/python benchmarks/accuracy/extract_figure.py /tmp/extract-full /tmp/extract-full-chromium
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

full = sys.argv[1] if len(sys.argv) > 1 else "/tmp/extract-full"
chrom = sys.argv[2] if len(sys.argv) > 2 else "/tmp/extract-full-chromium"
out = "docs/img/"
S = json.load(open(f"{full}/scribes.json"))["result"]
L = json.load(open(f"{full}/litecost.json"))["result"]
W = json.load(open(f"{chrom}/liveweb.json"))["result"]
B = json.load(open(f"{full}/bridge.json"))["result"]
fig, axs = plt.subplots(2, 2, figsize=(12, 8))
ax = axs[0, 0]
s = S["summary"]
x = np.arange(len(s))
for k, c in enumerate(["All", "Example", "Holdout"]):
    ax.bar(x + (k - 1) * 0.27, [r[c] for r in s], 0.27, label=c)
ax.set_xticks(x, [r["writer"] for r in s], fontsize=8)
ax.set_ylabel("fuzzy F1 (Hungarian)")
ax.set_ylim(0, 1.15)
ax.legend(frameon=False, ncol=3)
ax.set_title("SCRIBES analogue: 3 seeds x 15 test groups x 5 pages")
ax = axs[0, 1]
bl = L["by_level"]
systems = list(dict.fromkeys(r["system"] for r in bl))
w = 0.8 / len(systems)
for k, sy in enumerate(systems):
    ax.bar(
        np.arange(4) + k * w,
        [
            next(r["AS"] for r in bl if r["system"] == sy and r["level"] == lv)
            for lv in (1, 2, 3, 4)
        ],
        w,
        label=sy,
    )
ax.set_xticks(np.arange(4) + 0.4 - w / 2, ["L1 locate", "L2 compare", "L3 cluster", "L4 chain"])
ax.set_ylabel("AS (0-100, exact check)")
ax.set_ylim(0, 115)
ax.legend(frameon=False, fontsize=8, ncol=2)
ax.set_title("LiteCoST analogue: 3 seeds x 96 test questions")
ax = axs[1, 0]
f1 = W["f1"]
vers = ["v0", "class_rename", "wrapper", "column_order", "grid", "pagination"]
meths = ["vgs", "stale", "per_page"]
w = 0.27
for k, m in enumerate(meths):
    ax.bar(
        np.arange(len(vers)) + (k - 1) * w,
        [next(r["overall"] for r in f1 if r["method"] == m and r["version"] == v) for v in vers],
        w,
        label=m,
    )
ax.set_xticks(np.arange(len(vers)), vers, fontsize=8)
ax.set_ylabel("F1 x100 (set match)")
ax.set_ylim(0, 118)
ax.legend(frameon=False, ncol=3)
ax.set_title("LiveWeb-IE analogue (Chromium regions): overall F1 by version")
ax = axs[1, 1]
rr = [
    r
    for r in B["channel_mi"]
    if r["template"] == "div_grid" and r["extractor"] != "hard-coded (literal)"
]
x = np.arange(len(rr))
ax.bar(x, [r["mi_bits"] for r in rr], color="tab:purple")
for i, r in enumerate(rr):
    ax.text(i, max(r["mi_bits"], 0) + 0.08, f"F1 {r['f1']:.2f}", ha="center", fontsize=8)
ax.axhline(np.log2(12), ls=":", c="gray")
ax.text(-0.4, np.log2(12) + 0.3, "log2 N (N = 12 pages)", fontsize=7)
ax.set_xticks(x, [r["extractor"] for r in rr], rotation=20, fontsize=7, ha="right")
ax.set_ylabel("I(page; extraction), bits")
ax.set_ylim(-0.3, 4.5)
ax.set_title("Channel MI of scripts on a div-grid group (hard-coded: -541 bits)")
fig.tight_layout()
fig.savefig(out + "extract.png", dpi=90)
