"""Shared plotting helpers (matplotlib, headless).

Every figure the library draws follows one convention::

    def plot_x(result, ax=None, path=None) -> matplotlib.axes.Axes:
        fig, ax = new_axes(ax, figsize=(6, 4))
        ...draw on ax...
        return finish(ax, path)

``ax`` draws into the caller's axes; ``path`` also saves the figure as a PNG (its folder
is created); the axes are returned either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

__all__ = ["bar_with_errors", "bars_beside_map", "new_axes", "finish", "save"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _ranked_bars(ax, labels, values, lows, highs, *, title: str, xlabel: str) -> None:
    """Horizontal bars, largest on top, with asymmetric error bars, on ``ax``."""
    n = len(labels)
    ypos = list(range(n))[::-1]
    xerr = None
    if lows is not None and highs is not None:
        xerr = [
            [max(v - lo, 0.0) for v, lo in zip(values, lows, strict=True)],
            [max(hi - v, 0.0) for v, hi in zip(values, highs, strict=True)],
        ]
    ax.barh(ypos, values, xerr=xerr, color="#3b75af", ecolor="#333333", capsize=2.5)
    ax.set_yticks(ypos)
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.axvline(0, color="black", lw=0.6)
    ax.grid(axis="x", alpha=0.3)


def _save(fig, path: str | Path) -> Path:
    plt = _pyplot()
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p)
    plt.close(fig)
    return p


def bar_with_errors(
    labels: Sequence[str],
    values: Sequence[float],
    lows: Sequence[float] | None,
    highs: Sequence[float] | None,
    *,
    title: str,
    xlabel: str,
    path: str | Path,
) -> Path:
    """Horizontal bar chart (largest on top) with asymmetric error bars; returns the PNG path."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, max(3.0, 0.28 * len(labels) + 1.2)), dpi=110)
    _ranked_bars(ax, labels, values, lows, highs, title=title, xlabel=xlabel)
    return _save(fig, path)


def bars_beside_map(
    labels: Sequence[str],
    values: Sequence[float],
    lows: Sequence[float] | None,
    highs: Sequence[float] | None,
    grid: Sequence[Sequence[float]],
    *,
    title: str,
    xlabel: str,
    map_title: str,
    unit: str,
    path: str | Path,
) -> Path:
    """Ranked bars (left) beside a heat map of the same quantity laid out on a grid (right).

    For image data: ``grid[r][c]`` is the value of pixel (r, c), drawn with its number in
    each cell and a colour bar in ``unit``.  Returns the PNG path.
    """
    import numpy as np

    plt = _pyplot()
    g = np.asarray(grid, dtype=float)
    if g.ndim != 2:
        raise ValueError(f"grid must be 2-D, got shape {g.shape}")
    height = max(4.5, 0.28 * len(labels) + 1.2)
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(13.0, height), dpi=110, gridspec_kw={"width_ratios": [1.15, 1.0]}
    )
    _ranked_bars(left, labels, values, lows, highs, title=title, xlabel=xlabel)
    top = float(np.nanmax(g)) if np.isfinite(g).any() else 1.0
    im = right.imshow(g, cmap="viridis", vmin=0.0, vmax=max(top, 1e-12))
    for (r, c), v in np.ndenumerate(g):
        if np.isfinite(v):
            right.text(
                c,
                r,
                f"{v:.2f}",
                ha="center",
                va="center",
                fontsize=7,
                color="white" if v < 0.6 * top else "black",
            )
    right.set_xticks(range(g.shape[1]))
    right.set_yticks(range(g.shape[0]))
    right.set_xlabel("column")
    right.set_ylabel("row")
    right.set_title(map_title, fontsize=10)
    fig.colorbar(im, ax=right, fraction=0.046, pad=0.04, label=unit)
    return _save(fig, path)


def new_axes(ax=None, path=None, figsize=(6.0, 4.0)):
    """``(figure or None, axes)``: a new Agg figure unless ``ax`` is given."""
    plt = _pyplot()
    if ax is not None:
        return None, ax
    fig, ax = plt.subplots(figsize=figsize, dpi=110)
    return fig, ax


def finish(ax, path: str | Path | None = None):
    """Return ``ax``; with ``path``, first save its figure as a PNG there (folder created).

    The end of every ``plot_x(result, ax=None, path=None) -> Axes`` function.
    """
    if path is not None:
        fig = ax.figure
        fig.tight_layout()
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(p)
    return ax


def save(fig, path) -> Path | None:
    """Save ``fig`` (from :func:`new_axes`) as a PNG at ``path`` and close it; no-op if None."""
    if fig is None or path is None:
        return None
    return _save(fig, path)
