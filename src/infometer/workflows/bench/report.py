"""Self-contained HTML report of a benchmark directory (figures embedded as PNG data URIs).

Sections: summary per estimator (bias, spread, median |error|, fraction within the tolerance,
time, memory, failures); a heat map of mean error per task × estimator; estimate − truth
plots per task family (as in the Beyond Normal figures); time per estimator; the full error
table with failing cells highlighted; and the list of failing (task, estimator) pairs.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
from pathlib import Path

import numpy as np
import pandas as pd

from infometer.workflows.bench import figures

from .store import DB_NAME, Store

__all__ = ["load", "aggregate", "winners", "completeness", "write_report"]

#: Median |error| values closer than this (nats) are a tie for the winner of a family.
TIE_NATS = 1e-9

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;
max-width:1200px;color:#222;background:#fff;padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th{background:#f0f3f7}td.l,th.l{text-align:left}
td.fail{background:#f8d0d0;font-weight:600}td.ok{background:#dff3df}
.note{color:#555;font-size:.9em}img{max-width:100%;border:1px solid #eee;margin:.4em 0}
.grid{display:flex;flex-wrap:wrap;gap:1em}.grid figure{margin:0;flex:1 1 520px}
figcaption{font-size:.85em;color:#444}
.warn{background:#fff3cd;border:1px solid #e0b000;padding:.6em 1em;margin:1em 0}
"""


def load(directory: str | Path) -> tuple[pd.DataFrame, dict]:
    """All runs of a benchmark directory as a DataFrame, and the sweep settings.

    The store is opened read-only, so a directory without write permission can be read.
    """
    if not (Path(directory) / DB_NAME).is_file():
        raise ValueError(f"{directory} has no finished runs yet (no {DB_NAME})")
    with Store(directory, readonly=True) as st:
        rows, meta = st.rows(), st.meta()
    df = pd.DataFrame(rows)
    if df.empty:
        raise ValueError(f"{directory} has no finished runs yet")
    for c in ("truth", "truth_se", "estimate", "error", "stderr", "wall_s", "peak_mem_mb"):
        df[c] = pd.to_numeric(df[c], errors="coerce")
    df["abs_error"] = df["error"].abs()
    return df, meta


def completeness(directory: str | Path) -> dict:
    """How much of the planned sweep a directory holds.

    Returns ``{"planned": P, "stored": S, "missing": [(task, method, n, seed), ...],
    "note": str | None}``; ``planned`` is 0 for stores written before plans were
    recorded (then nothing can be said about what is missing).
    """
    with Store(directory, readonly=True) as st:
        planned = st.planned_keys()
        missing = sorted(planned - st.done_keys())
        return {
            "planned": len(planned),
            "stored": len(planned) - len(missing),
            "missing": missing,
            "note": st.note,
        }


def incomplete_message(info: dict) -> str | None:
    """One sentence on what a partial sweep lacks (``None`` when nothing is missing)."""
    miss = info["missing"]
    if not miss:
        return None
    by = pd.Series([m for _, m, _, _ in miss]).value_counts()
    per = ", ".join(f"{m}: {k}" for m, k in by.items())
    return (
        f"the sweep is incomplete: {len(miss)} of {info['planned']} planned runs are "
        f"missing ({per}); run the same `infometer bench` command again to finish it"
    )


def aggregate(df: pd.DataFrame, tolerance: float = 0.1) -> pd.DataFrame:
    """Per (task, method, n): truth, mean/sd of estimates, bias, failures, time, pass/fail.

    A cell *fails* when its mean error exceeds ``tolerance`` (plus twice the Monte Carlo
    standard error of the truth) in absolute value, or when any run errored.
    """
    ok = df[df["status"] == "ok"]
    g = ok.groupby(["task", "method", "n"], sort=False)
    agg = g.agg(
        family=("family", "first"),
        quantity=("quantity", "first"),
        truth=("truth", "first"),
        truth_se=("truth_se", "first"),
        mean=("estimate", "mean"),
        sd=("estimate", "std"),
        bias=("error", "mean"),
        mae=("abs_error", "mean"),
        runs=("estimate", "size"),
        time_s=("wall_s", "median"),
        mem_mb=("peak_mem_mb", "max"),
        flagged=("flags", lambda s: int(sum(bool(f) for f in s))),
    ).reset_index()
    bad = (
        df[df["status"] != "ok"]
        .groupby(["task", "method", "n"])
        .size()
        .rename("failed")
        .reset_index()
    )
    agg = agg.merge(bad, on=["task", "method", "n"], how="outer")
    agg["failed"] = agg["failed"].fillna(0).astype(int)
    agg["runs"] = agg["runs"].fillna(0).astype(int)
    first = df.groupby("task")[["family", "quantity", "truth", "truth_se"]].first()
    for c in ("family", "quantity", "truth", "truth_se"):
        agg[c] = agg[c].fillna(agg["task"].map(first[c]))
    lim = tolerance + 2 * agg["truth_se"].fillna(0.0)
    agg["pass"] = (agg["bias"].abs() <= lim) & (agg["failed"] == 0)
    return agg


def winners(df: pd.DataFrame) -> pd.DataFrame:
    """The estimator to trust on each task family: the lowest median absolute error.

    For each ``family``, every estimator except ``auto`` competes on its runs of that
    family (all tasks, sample sizes and seeds).  A run that errored or returned a
    non-finite value counts as an infinite error, so an estimator that fails on half
    of its runs or more cannot win.  Only estimators that ran on every (task, n) of the
    family that any estimator ran on compete; when none covers them all, those with the
    widest coverage do, and ``coverage`` says how much that is.  Estimators whose median
    |error| is within :data:`TIE_NATS` of the best share the win (``"a = b"``).
    ``auto_chose`` is what ``auto`` resolved to there, when it ran.
    """
    out = []
    fams = df["family"].fillna("(none)")
    for fam in sorted(fams.unique()):
        fd = df[(fams == fam) & (df["method"] != "auto")]
        if fd.empty:
            continue
        cells = set(zip(fd["task"], fd["n"], strict=True))
        cover = {m: set(zip(d["task"], d["n"], strict=True)) for m, d in fd.groupby("method")}
        widest = max(len(c) for c in cover.values())
        scores = {}
        for m, c in cover.items():
            if len(c) < widest:
                continue
            d = fd[fd["method"] == m]
            good = (d["status"] == "ok") & np.isfinite(d["abs_error"])
            scores[m] = float(np.median(np.where(good, d["abs_error"], np.inf)))
        ranked = sorted(scores.items(), key=lambda kv: (kv[1], kv[0]))
        best = ranked[0][1]
        if np.isfinite(best):
            tied = [m for m, v in ranked if v - best <= TIE_NATS]
            winner = " = ".join(tied)
        else:
            tied, winner = [m for m, _ in ranked], "none (every estimator failed)"
        rest = [(m, v) for m, v in ranked if m not in tied]
        auto = df[(fams == fam) & (df["method"] == "auto")]["resolved_method"].dropna()
        out.append(
            {
                "family": fam,
                "tasks": len({t for t, _ in cells}),
                "winner": winner,
                "median |err|": best,
                "runner-up": rest[0][0] if rest else "–",
                "runner-up |err|": rest[0][1] if rest else np.nan,
                "compared": len(scores),
                "coverage": f"{widest}/{len(cells)}",
                "auto chose": ", ".join(auto.value_counts().index[:2]) if len(auto) else "–",
            }
        )
    return pd.DataFrame(out)


def _png(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=figures.DPI, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _table(frame: pd.DataFrame, fmt: dict[str, str], cls=None, left=("task", "method")) -> str:
    head = "".join(
        f'<th class="{"l" if c in left else ""}">{html.escape(str(c))}</th>' for c in frame.columns
    )
    body = []
    for i, (_, r) in enumerate(frame.iterrows()):
        cells = []
        for c in frame.columns:
            v = r[c]
            if isinstance(v, float) and not np.isfinite(v):
                s = "–"
            elif c in fmt and v is not None and not (isinstance(v, float) and np.isnan(v)):
                s = fmt[c].format(v)
            else:
                s = str(v)
            k = "l" if c in left else ""
            if cls is not None:
                k += " " + (cls(i, c) or "")
            cells.append(f'<td class="{k.strip()}">{html.escape(s)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def write_report(directory: str | Path, output: str | Path, tolerance: float = 0.1) -> Path:
    """Write the HTML report of ``directory`` to ``output``; return its path."""
    df, meta = load(directory)
    agg = aggregate(df, tolerance)
    info = completeness(directory)
    notes = [m for m in (incomplete_message(info), info["note"]) if m]
    banner = ""
    if notes:
        first = ", ".join(f"{t} × {m} (n = {n}, seed {sd})" for t, m, n, sd in info["missing"][:10])
        more = f" and {len(info['missing']) - 10} more" if len(info["missing"]) > 10 else ""
        banner = (
            '<div class="warn"><strong>'
            + html.escape(notes[0][0].upper() + notes[0][1:])
            + ".</strong> "
            + (f"Missing: {html.escape(first)}{more}. " if first else "")
            + " ".join(html.escape(x) + "." for x in notes[1:])
            + "</div>"
        )
    win = winners(df)
    win_html = "<p>No runs to compare.</p>"
    if len(win):
        win_html = _table(
            win,
            {"median |err|": "{:.3f}", "runner-up |err|": "{:.3f}"},
            lambda i, c: (
                ("ok" if win["median |err|"].iloc[i] <= tolerance else "fail")
                if c == "median |err|"
                else None
            ),
            left=("family", "winner", "runner-up", "auto chose"),
        )
    from infometer import __version__

    ok = df[df["status"] == "ok"]
    summ = []
    for m, d in df.groupby("method"):
        o = ok[ok["method"] == m]
        cells = agg[agg["method"] == m]
        summ.append(
            {
                "method": m,
                "runs": len(d),
                "errors": int((d["status"] != "ok").sum()),
                "bias": o["error"].mean(),
                "spread (sd)": o.groupby(["task", "n"])["estimate"].std().mean(),
                "median |err|": o["abs_error"].median(),
                f"within {tolerance:g}": float((o["abs_error"] <= tolerance).mean())
                if len(o)
                else np.nan,
                "tasks passed": f"{int(cells['pass'].sum())}/{len(cells)}",
                "median time (s)": o["wall_s"].median(),
                "peak MB": o["peak_mem_mb"].max(),
                "flagged": int(sum(bool(f) for f in o["flags"])),
            }
        )
    summ_df = pd.DataFrame(summ)
    f3 = "{:+.3f}"
    summary_html = _table(
        summ_df,
        {
            "bias": f3,
            "spread (sd)": "{:.3f}",
            "median |err|": "{:.3f}",
            f"within {tolerance:g}": "{:.0%}",
            "median time (s)": "{:.4f}",
            "peak MB": "{:.1f}",
        },
    )

    tab = agg[
        ["task", "method", "n", "truth", "mean", "sd", "bias", "runs", "failed", "time_s", "pass"]
    ].copy()
    tab = tab.sort_values(["task", "method", "n"], kind="stable").reset_index(drop=True)
    passes = tab["pass"].tolist()
    tab = tab.drop(columns="pass")

    def cls(i: int, c: str) -> str | None:
        if c in ("bias", "mean"):
            return "ok" if passes[i] else "fail"
        return None

    err_html = _table(
        tab,
        {"truth": "{:.4f}", "mean": "{:.4f}", "sd": "{:.4f}", "bias": f3, "time_s": "{:.4f}"},
        cls,
    )
    failing = agg[~agg["pass"]].sort_values("bias", key=lambda s: -s.abs())
    fail_html = "<p>None: every (task, estimator, n) is within tolerance.</p>"
    if len(failing):
        fail_html = _table(
            failing[["task", "method", "n", "truth", "mean", "bias", "failed"]].reset_index(
                drop=True
            ),
            {"truth": "{:.4f}", "mean": "{:.4f}", "bias": f3},
            lambda i, c: "fail" if c == "bias" else None,
        )
    errors = df[df["status"] != "ok"][["task", "method", "n", "seed", "message"]]
    errors_html = (
        _table(errors.head(50).reset_index(drop=True), {}, left=("task", "method", "message"))
        if len(errors)
        else ""
    )

    figs = "".join(
        f'<figure><img alt="{html.escape(f)}: estimate − truth" src="{src}"><figcaption>'
        f"{html.escape(f)}: estimate − truth per task (0 = exact), one colour per "
        "estimator, bars ± 1 sd of the estimates over seeds (their spread, not an "
        "interval)</figcaption></figure>"
        for f, src in ((f, _png(fig)) for f, fig in figures.family_panels(agg))
    )
    heat_fig, timing_fig = figures.error_heatmap(agg), figures.timing(df)
    heat = _png(heat_fig) if heat_fig is not None else None
    timing = _png(timing_fig) if timing_fig is not None else None
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    settings = html.escape(", ".join(f"{k}={v}" for k, v in meta.items() if k != "argv"))
    doc = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>infometer benchmark report</title>
<style>{_CSS}</style></head><body>
<h1>infometer benchmark report</h1>
<p class="note">{len(df)} runs ({int((df["status"] != "ok").sum())} errors) on
{df["task"].nunique()} tasks × {df["method"].nunique()} estimators; infometer {__version__};
written {now}. Sweep: {settings}.
A cell fails when |mean error| &gt; {tolerance:g} nats (+2 Monte Carlo s.e. of the truth)
or any run errored. Wall time covers the estimate only (not sampling); peak memory is the
Python-tracked peak (tracemalloc) during the estimate.</p>
{banner}
<h2>Winner per task family</h2>
<p class="note">The estimator with the lowest median |error| over the family's runs (all
tasks, n and seeds); a run that errored or returned a non-finite value counts as an
infinite error; only estimators that ran on every task of the family compete; equal
medians share the win; <code>auto</code> does not compete (its choice is shown).
Green: the winner's median |error| is within {tolerance:g} nats.</p>{win_html}
<h2>Summary per estimator</h2>{summary_html}
<h2>Failing tasks ({len(failing)})</h2>{fail_html}
<h2>Mean error per task and estimator</h2>
{f'<img alt="error heat map" src="{heat}">' if heat else ""}
<h2>Error of the estimates (estimate − truth), per task family</h2><div class="grid">{figs}</div>
<h2>Time per estimator</h2>{f'<img alt="timing" src="{timing}">' if timing else ""}
<h2>Error table</h2>{err_html}
{"<h2>Run errors (first 50)</h2>" + errors_html if errors_html else ""}
</body></html>
"""
    out = Path(output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(doc, encoding="utf-8")
    return out
