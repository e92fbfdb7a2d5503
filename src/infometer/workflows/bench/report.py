"""Self-contained HTML report of a benchmark directory (the ``bench.html.j2`` template of
:mod:`infometer.core.report`; figures embedded as PNG data URIs).

Sections: the sweep's settings and the command that made it; the winner per task family;
per task family, every contender (infometer's estimators and the peers) side by side:
median |error|, bias, spread over seeds, CPU time, failures (network families: precision,
recall, false-positive rate), a figure of estimate − truth per task and the tasks' exact
values and descriptions; a summary per contender; the failing (task, contender) pairs;
CPU time per contender; run errors grouped by message; the full error table (collapsed).
"""

from __future__ import annotations

import datetime as _dt
import shlex
from pathlib import Path

import numpy as np
import pandas as pd

from infometer.workflows.bench import figures

from .store import DB_NAME, Store

__all__ = [
    "load",
    "aggregate",
    "winners",
    "family_table",
    "completeness",
    "write_report",
]

#: Median |error| values closer than this (nats) are a tie for the winner of a family.
TIE_NATS = 1e-9


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
    diag = df["diagnostics"] if "diagnostics" in df else pd.Series([None] * len(df))
    for c in ("cpu_s", "precision", "recall", "fpr"):  # CPU time; a network's scores
        df[c] = pd.to_numeric(
            [d.get(c) if isinstance(d, dict) else None for d in diag], errors="coerce"
        )
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
        cpu_s=("cpu_s", "median"),
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


def family_table(df: pd.DataFrame, family: str) -> pd.DataFrame:
    """Every contender of one task family side by side, best first.

    One row per contender (infometer's estimators, ``auto`` and the peers): ``runs``,
    ``failed`` (errored or non-finite), ``tasks`` it ran on, ``median |err|`` and ``bias``
    (mean error) over its finished runs, ``spread (sd)`` (the sd of its estimates over
    seeds, averaged over tasks and n: the run-to-run scatter, not an interval), ``median
    CPU (s)`` per estimate; for a network family the mean ``precision``, ``recall`` and
    ``FPR`` of the recovered links.  Sorted by median |error|, then mean |error| (failures
    last).
    """
    fd = df[df["family"].fillna("(none)") == family]
    net = (fd["quantity"] == "network").any()
    rows = []
    for m, d in fd.groupby("method"):
        o = d[(d["status"] == "ok") & np.isfinite(d["error"])]
        row = {
            "contender": m,
            "runs": len(d),
            "failed": len(d) - len(o),
            "tasks": f"{o['task'].nunique()}/{fd['task'].nunique()}",
            "median |err|": o["abs_error"].median() if len(o) else np.nan,
            "bias": o["error"].mean() if len(o) else np.nan,
            "spread (sd)": o.groupby(["task", "n"])["estimate"].std().mean(),
            "median CPU (s)": o["cpu_s"].median() if len(o) else np.nan,
        }
        if net:
            row.update(
                precision=o["precision"].mean(), recall=o["recall"].mean(), FPR=o["fpr"].mean()
            )
        rows.append(row)
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    key = out["median |err|"].fillna(np.inf) + np.where(out["failed"] >= out["runs"], np.inf, 0)
    mean_abs = {m: d["abs_error"].mean() for m, d in fd.groupby("method")}
    out = out.assign(_k=key, _m=out["contender"].map(mean_abs).fillna(np.inf))
    return out.sort_values(["_k", "_m", "contender"]).drop(columns=["_k", "_m"])


def _family_plots(agg: pd.DataFrame) -> dict[str, str]:
    """The estimate − truth panel of each task family (:func:`figures.family_panels`)."""
    from infometer.core.report import figure_uri

    return {fam: figure_uri(fig, dpi=figures.DPI) for fam, fig in figures.family_panels(agg)}


def _cpu_plot(df: pd.DataFrame) -> str | None:
    """Median CPU time per estimate and contender (:func:`figures.timing`)."""
    from infometer.core.report import figure_uri

    fig = figures.timing(df, column="cpu_s")
    return None if fig is None else figure_uri(fig, dpi=figures.DPI)


def _pass_classes(passes: list[bool], columns: tuple[str, ...]):
    """Cell classes: ``ok``/``fail`` by each row's pass in ``columns``."""
    return lambda i, c: ("ok" if passes[i] else "fail") if c in columns else None


def _descriptions(tasks) -> dict[str, str]:
    from infometer.measures import truth

    out = {}
    for t in tasks:
        try:
            out[t] = truth.get_task(t).description
        except ValueError:
            out[t] = ""
    return out


def _command(meta: dict) -> str:
    argv = meta.get("argv")
    if isinstance(argv, list) and argv:
        return "infometer " + " ".join(shlex.quote(str(a)) for a in argv)
    return ""


def write_report(directory: str | Path, output: str | Path, tolerance: float = 0.1) -> Path:
    """Write the HTML report of ``directory`` to ``output``; return its path."""
    from infometer import __version__
    from infometer.core.report import anchor, table, write

    df, meta = load(directory)
    agg = aggregate(df, tolerance)
    info = completeness(directory)
    notes = [m for m in (incomplete_message(info), info["note"]) if m]
    missing = ", ".join(f"{t} × {m} (n = {n}, seed {sd})" for t, m, n, sd in info["missing"][:10])
    if len(info["missing"]) > 10:
        missing += f" and {len(info['missing']) - 10} more"
    f3, p3 = "{:+.3f}", "{:.3f}"

    win = winners(df)
    win_t = table(
        win,
        formats={"median |err|": p3, "runner-up |err|": p3},
        classes=lambda i, c: (
            ("ok" if win["median |err|"].iloc[i] <= tolerance else "fail")
            if c == "median |err|"
            else None
        ),
        left=("family", "winner", "runner-up", "auto chose"),
    )
    plots = _family_plots(agg)
    descriptions = _descriptions(df["task"].unique())
    families = []
    for fam in sorted(df["family"].fillna("(none)").unique()):
        ft = family_table(df, fam)
        fd = df[df["family"].fillna("(none)") == fam]
        net = (fd["quantity"] == "network").any()
        best = ft["median |err|"].iloc[0] if len(ft) else np.nan
        tasks = (
            fd.groupby("task", sort=False)
            .agg(quantity=("quantity", "first"), truth=("truth", "first"))
            .reset_index()
        )
        tasks["description"] = tasks["task"].map(descriptions)
        cells = agg[agg["family"].fillna("(none)") == fam].sort_values(["task", "n", "bias"])
        families.append(
            {
                "name": fam,
                "id": anchor("family " + str(fam)),
                "quantity": ", ".join(sorted(fd["quantity"].dropna().unique())),
                "n_tasks": fd["task"].nunique(),
                "network": bool(net),
                "table": table(
                    ft,
                    formats={
                        "median |err|": p3,
                        "bias": f3,
                        "spread (sd)": p3,
                        "median CPU (s)": "{:.4f}",
                        "precision": "{:.2f}",
                        "recall": "{:.2f}",
                        "FPR": "{:.3f}",
                    },
                    classes=lambda i, c, ft=ft, best=best: (
                        "fail"
                        if (c == "failed" and ft["failed"].iloc[i] > 0)
                        else "best"
                        if c == "median |err|" and ft["median |err|"].iloc[i] == best
                        else None
                    ),
                    left=("contender", "tasks"),
                ),
                "figure": plots.get(str(fam)),
                "tasks": table(
                    tasks, formats={"truth": "{:.4f}"}, left=("task", "quantity", "description")
                ),
                "cells": table(
                    cells[["task", "method", "n", "truth", "mean", "sd", "bias", "runs", "failed"]],
                    formats={"truth": "{:.4f}", "mean": "{:.4f}", "sd": "{:.4f}", "bias": f3},
                    classes=_pass_classes(cells["pass"].tolist(), ("bias",)),
                ),
            }
        )

    ok = df[df["status"] == "ok"]
    summ = []
    for m, d in df.groupby("method"):
        o = ok[ok["method"] == m]
        c = agg[agg["method"] == m]
        summ.append(
            {
                "contender": m,
                "runs": len(d),
                "failed": int((d["status"] != "ok").sum()),
                "families": d["family"].nunique(),
                "bias": o["error"].mean(),
                "spread (sd)": o.groupby(["task", "n"])["estimate"].std().mean(),
                "median |err|": o["abs_error"].median(),
                f"within {tolerance:g}": float((o["abs_error"] <= tolerance).mean())
                if len(o)
                else np.nan,
                "tasks passed": f"{int(c['pass'].sum())}/{len(c)}",
                "median CPU (s)": o["cpu_s"].median(),
                "peak MB": o["peak_mem_mb"].max(),
            }
        )
    summary = table(
        pd.DataFrame(summ),
        formats={
            "bias": f3,
            "spread (sd)": p3,
            "median |err|": p3,
            f"within {tolerance:g}": "{:.0%}",
            "median CPU (s)": "{:.4f}",
            "peak MB": "{:.1f}",
        },
        left=("contender", "tasks passed"),
    )
    failing = agg[~agg["pass"]].sort_values("bias", key=lambda s: -s.abs())
    cols = ["task", "method", "n", "truth", "mean", "bias"]
    if failing["failed"].any():
        cols.append("failed")
    failing_t = table(
        failing[cols],
        formats={"truth": "{:.4f}", "mean": "{:.4f}", "bias": f3},
        classes=lambda i, c: "fail" if c in ("bias", "failed") else None,
    )
    bad = df[df["status"] != "ok"].copy()
    if len(bad):
        bad["message"] = bad["message"].fillna("").astype(str).str.slice(0, 300)
        bad = (
            bad.groupby(["method", "status", "message"], sort=False)
            .agg(runs=("task", "size"), tasks=("task", lambda s: ", ".join(sorted(set(s))[:4])))
            .reset_index()
            .sort_values(["method", "runs"], ascending=[True, False])
        )
    errors_t = table(
        bad,
        left=("method", "status", "message", "tasks"),
        classes=lambda i, c: "fail" if c == "status" else None,
    )
    full = agg[["task", "method", "n", "truth", "mean", "sd", "bias", "runs", "failed", "cpu_s"]]
    full = full.sort_values(["task", "method", "n"], kind="stable").reset_index(drop=True)
    full_pass = agg.sort_values(["task", "method", "n"], kind="stable")["pass"].reset_index(
        drop=True
    )
    full_t = table(
        full,
        formats={
            "truth": "{:.4f}",
            "mean": "{:.4f}",
            "sd": "{:.4f}",
            "bias": f3,
            "cpu_s": "{:.4f}",
        },
        classes=_pass_classes(full_pass.tolist(), ("bias", "mean")),
    )

    settings = [
        (k, ", ".join(map(str, v)) if isinstance(v, list) else str(v))
        for k, v in meta.items()
        if k != "argv"
    ]
    peers = sorted(m for m in df["method"].unique() if str(m).startswith("peer:"))
    toc = [
        ("winners", "Winner per task family"),
        ("families", "Contenders side by side, per task family"),
        *[(f["id"], f"— {f['name']}") for f in families],
        ("summary", "Summary per estimator"),
        ("failing", f"Failing tasks ({len(failing)})"),
        ("cpu", "Time per estimator"),
    ]
    if len(bad):
        toc.append(("errors", "Run errors"))
    toc.append(("table", "Error table"))
    return write(
        output,
        "bench.html.j2",
        title="infometer benchmark report",
        toc=toc,
        n_runs=len(df),
        n_errors=int((df["status"] != "ok").sum()),
        n_tasks=df["task"].nunique(),
        n_methods=df["method"].nunique(),
        peers=peers,
        version=__version__,
        written=_dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        command=_command(meta),
        settings=settings,
        tolerance=f"{tolerance:g}",
        notes=notes,
        missing=missing,
        winners=win_t,
        families=families,
        summary=summary,
        failing=failing_t,
        n_failing=len(failing),
        cpu=_cpu_plot(df),
        errors=errors_t if len(bad) else None,
        full=full_t,
    )
