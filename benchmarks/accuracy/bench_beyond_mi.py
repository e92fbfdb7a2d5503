"""Tables of a `infometer bench` sweep beyond MI, peers included: one markdown file and one
JSON file of every run (the report's per-family tables, without the figures).

The sweep itself is the CLI's (resumable, stored in DIR/results.sqlite):

    infometer bench --suite beyond-mi --peers all --peer-dir /work/peers -j 2 --out DIR
    PYTHONPATH=src .venv/bin/python benchmarks/accuracy/bench_beyond_mi.py DIR \\
        --command "..." --load "..." --out benchmarks/results/bench_beyond_mi
"""

from __future__ import annotations

import argparse
import json
import math
import platform
from pathlib import Path

from infometer.workflows.bench.report import family_table, load, winners


def _fmt(v, spec):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    return spec.format(v) if isinstance(v, int | float) else str(v)


def markdown(directory: str, command: str, load_text: str) -> str:
    df, meta = load(directory)
    lines = [
        "# Benchmarks beyond MI, with the peers in the same table (issue 38 §3)",
        "",
        f"Command: `{command}`" if command else "",
        "",
        f"Machine: {platform.machine()}, {meta.get('cpus')} cores shared with other work; "
        f"load (1, 5, 15 min) {load_text}. CPU time is the claim (the load varied); each "
        "peer ran in its own interpreter, its start, imports and one warm-up call not counted.",
        "",
        f"{len(df)} runs, {int((df['status'] != 'ok').sum())} failed, on "
        f"{df['task'].nunique()} tasks × {df['method'].nunique()} contenders, n = "
        f"{', '.join(map(str, sorted(df['n'].unique())))}, seeds {meta.get('seeds')}. "
        "Errors in nats (estimate − truth); spread: sd over seeds; network families: the "
        "estimate is the F1 of the recovered links (truth 1).",
        "",
        "## Winner per task family",
        "",
        "| family | tasks | winner | median abs err | runner-up | auto chose |",
        "|---|---|---|---|---|---|",
    ]
    for _, r in winners(df).iterrows():
        ru = r["runner-up"]
        if ru != "–":
            ru = f"{ru} ({_fmt(r['runner-up |err|'], '{:.3f}')})"
        lines.append(
            f"| {r['family']} | {r['tasks']} | {r['winner']} | "
            f"{_fmt(r['median |err|'], '{:.3f}')} | {ru} | {r['auto chose']} |"
        )
    lines += ["", "## Every contender per task family", ""]
    fmts = {
        "median |err|": "{:.3f}",
        "bias": "{:+.3f}",
        "spread (sd)": "{:.3f}",
        "median CPU (s)": "{:.4f}",
        "precision": "{:.2f}",
        "recall": "{:.2f}",
        "FPR": "{:.3f}",
    }
    for fam in sorted(df["family"].dropna().unique()):
        ft = family_table(df, fam)
        q = ", ".join(sorted(df[df["family"] == fam]["quantity"].unique()))
        lines += [f"### {fam} ({q})", ""]
        cols = [c.replace("|err|", "abs err") for c in ft.columns]
        lines += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for _, r in ft.iterrows():
            lines.append(
                "| " + " | ".join(_fmt(r[c], fmts.get(c, "{}")) for c in ft.columns) + " |"
            )
        lines.append("")
    bad = df[df["status"] != "ok"]
    if len(bad):
        lines += [
            "## Failures",
            "",
            "| contender | status | runs | first message |",
            "|---|---|---|---|",
        ]
        for (m, s), d in bad.groupby(["method", "status"]):
            msg = str(d["message"].iloc[0] or "").replace("|", "/").replace("\n", " ")[:160]
            lines.append(f"| {m} | {s} | {len(d)} | {msg} |")
    return "\n".join(lines) + "\n"


def rows_json(directory: str) -> list[dict]:
    df, _ = load(directory)
    keep = ["task", "family", "quantity", "method", "n", "seed", "truth", "estimate", "error",
            "status", "message", "resolved_method", "cpu_s", "wall_s", "precision", "recall",
            "fpr"]  # fmt: skip
    out = []
    for r in df[keep].to_dict("records"):
        out.append({k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                    for k, v in r.items()})  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("directory")
    ap.add_argument("--out", required=True, help="path stem: writes STEM.md and STEM.json")
    ap.add_argument("--command", default="")
    ap.add_argument("--load", default="")
    a = ap.parse_args()
    stem = Path(a.out)
    stem.with_suffix(".md").write_text(markdown(a.directory, a.command, a.load))
    with open(stem.with_suffix(".json"), "w") as f:
        json.dump(rows_json(a.directory), f, indent=0, allow_nan=False, default=str)
    print(stem.with_suffix(".md"), stem.with_suffix(".json"))


if __name__ == "__main__":
    main()
