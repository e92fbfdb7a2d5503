"""The benchmark's figures: error per task family, the error heat map, time per estimator.

Each function returns a matplotlib ``Figure`` (or None when there is nothing to draw); the
report module embeds them.  They are drawn to be read at the width a browser shows them
(800 px and up): 10-point ticks and legends at 100 dpi, heat-map numbers of 12 points, every
mark says what it is -- the bars of the family panels are the spread of the estimates over
seeds (one sd), not an interval, and the legend says so.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["DPI", "method_styles", "family_panels", "error_heatmap", "timing"]

#: Resolution the report embeds the figures at.
DPI = 100
_FONT = 10


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def method_styles(methods: list[str]) -> dict[str, dict]:
    """One colour and marker per estimator, none shared (tab10, then the light halves of
    tab20, then markers); ``auto`` is a black star, never the colour of its pick."""
    plt = _plt()
    palette = [plt.cm.tab10(i) for i in range(10)] + [plt.cm.tab20(2 * i + 1) for i in range(10)]
    markers = ["o", "s", "^", "D", "v", "P", "X"]
    styles, k = {}, 0
    for m in methods:
        if m == "auto":
            styles[m] = {"color": "black", "marker": "*", "ms": 10}
            continue
        styles[m] = {
            "color": palette[k % len(palette)],
            "marker": markers[(k // len(palette)) % len(markers)] if k >= len(palette) else "o",
            "ms": 6,
        }
        k += 1
    return styles


def _short(task: str, limit: int = 30) -> str:
    return task if len(task) <= limit else task[: limit - 1] + "…"


def family_panels(agg: pd.DataFrame) -> list[tuple[str, Any]]:
    """Per task family, at the largest n: mean estimate − truth per task and estimator,
    bars of ± one sd of the estimates over seeds (their spread, not an interval of the
    mean), so tasks of 0.3 and 3.7 nats share an axis without hiding their errors.  An axis
    whose errors span more than 30x between estimators is symlog (linear within the
    smallest visible error), so a small error is not a flat line under a large one."""
    plt = _plt()
    out = []
    n_max = agg["n"].max()
    sub = agg[agg["n"] == n_max]
    for fam, fd in sub.groupby("family", sort=True):
        methods = sorted(fd["method"].unique())
        # colours per panel: a sweep with peers has ~40 contenders, a family ~10
        styles = method_styles(methods)
        tasks = list(dict.fromkeys(fd["task"]))
        runs = int(fd["runs"].max()) if "runs" in fd else 1
        fig, ax = plt.subplots(figsize=(min(9.0, max(6.0, 0.7 * len(tasks) + 3.5)), 4.6))
        xs = np.arange(len(tasks))
        ax.axhline(0.0, color="black", lw=1, label="truth (error 0)", zorder=1)
        shown = [m for m in methods if fd.loc[fd["method"] == m, "mean"].notna().any()]
        w = 0.7 / max(1, len(shown))
        errs = []
        for i, m in enumerate(shown):
            md = fd[fd["method"] == m].set_index("task")
            idx = [j for j, t in enumerate(tasks) if t in md.index and pd.notna(md.loc[t, "mean"])]
            vals = md.loc[[tasks[j] for j in idx]]
            err = (vals["mean"] - vals["truth"]).to_numpy(dtype=float)
            errs.append(np.abs(err[np.isfinite(err)]))
            st = styles[m]
            ax.errorbar(
                xs[idx] - 0.35 + (i + 0.5) * w,
                err,
                yerr=vals["sd"].fillna(0).to_numpy(dtype=float) if runs > 1 else None,
                fmt=st["marker"],
                ms=st["ms"],
                mec="white",
                mew=0.6,
                color=st["color"],
                elinewidth=1.6,
                label=m,
                capsize=3,
                zorder=3,
            )
        every = np.concatenate(errs) if errs else np.array([])
        every = every[every > 0]
        if every.size and every.max() > 30 * max(np.median(every), 1e-12):
            ax.set_yscale("symlog", linthresh=float(max(np.median(every), 1e-6)))
        for j in range(1, len(tasks)):  # task boundaries
            ax.axvline(j - 0.5, color="#dddddd", lw=0.6, zorder=0)
        ax.set_xticks(xs)
        ax.set_xticklabels([_short(t) for t in tasks], rotation=30, ha="right", fontsize=_FONT)
        ax.tick_params(axis="y", labelsize=_FONT)
        ax.set_xlim(-0.5, len(tasks) - 0.5)
        net = "quantity" in fd and (fd["quantity"] == "network").any()
        what = "F1 − 1 (0: the true graph)" if net else "estimate − truth (nats)"
        ax.set_ylabel(what, fontsize=_FONT)
        spread = f"bars: ± 1 sd over {runs} seeds (spread, not an interval)" if runs > 1 else ""
        ax.set_title(f"{fam}, n = {n_max}\n{spread}".strip(), fontsize=_FONT + 1)
        ax.legend(fontsize=_FONT, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        ax.grid(axis="y", alpha=0.3)
        out.append((str(fam), fig))
    return out


def error_heatmap(agg: pd.DataFrame) -> Any:
    """Mean error (estimate − truth) per task × estimator at the largest n, each cell's
    value written in it (12 points, dark on light cells and light on dark)."""
    n_max = agg["n"].max()
    piv = agg[agg["n"] == n_max].pivot_table(
        index="task", columns="method", values="bias", sort=False
    )
    if piv.empty:
        return None
    plt = _plt()
    # shown ~800 px wide in a report: 12-point numbers stay >= 11 px with a dozen estimators
    fig, ax = plt.subplots(figsize=(3.4 + 0.8 * piv.shape[1], 1.6 + 0.42 * piv.shape[0]))
    finite = np.isfinite(piv.values)
    lim = max(0.5, float(np.nanmax(np.abs(piv.values))) if finite.any() else 1.0)
    im = ax.imshow(piv.values, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
    ax.set_xticks(range(piv.shape[1]))
    ax.set_xticklabels(piv.columns, rotation=30, ha="right", fontsize=12)
    ax.set_yticks(range(piv.shape[0]))
    ax.set_yticklabels([_short(t, 36) for t in piv.index], fontsize=12)
    for (i, j), v in np.ndenumerate(piv.values):
        if np.isfinite(v):
            ax.text(
                j,
                i,
                "0.00" if abs(v) < 0.005 else f"{v:+.2f}",  # no "-0.00"
                ha="center",
                va="center",
                fontsize=12,
                color="black" if abs(v) <= 0.55 * lim else "white",
            )
    bar = fig.colorbar(im, ax=ax, shrink=0.7)
    bar.set_label("mean error (nats)", fontsize=12)
    bar.ax.tick_params(labelsize=11)
    ax.set_title(
        f"mean error (estimate − truth), n = {n_max}; blank: estimator not applicable",
        fontsize=13,
    )
    return fig


def timing(df: pd.DataFrame, column: str = "wall_s") -> Any:
    """Median wall time (``column="wall_s"``) or CPU time (``"cpu_s"``) per estimate, per
    estimator and n (log axis)."""
    if column not in df:
        return None
    ok = df[(df["status"] == "ok") & df[column].notna()]
    if ok.empty:
        return None
    plt = _plt()
    t = ok.groupby(["method", "n"])[column].median().unstack("n").sort_index(ascending=False)
    t = t.clip(lower=1e-5)  # a 0-second bar has no log length
    fig, ax = plt.subplots(figsize=(7.5, 1.0 + 0.45 * len(t)))
    h = 0.8 / t.shape[1]
    for i, n in enumerate(t.columns):
        ax.barh(np.arange(len(t)) + i * h, t[n].values, height=h, label=f"n = {n}")
    ax.set_yticks(np.arange(len(t)) + 0.4 - h / 2)
    ax.set_yticklabels(t.index, fontsize=_FONT)
    ax.tick_params(axis="x", labelsize=_FONT)
    ax.set_xscale("log")
    what = "CPU time (a peer's: its call alone)" if column == "cpu_s" else "wall time"
    ax.set_xlabel(f"median {what} per estimate (s)", fontsize=_FONT)
    ax.legend(fontsize=_FONT)
    return fig
