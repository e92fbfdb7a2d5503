"""Shared plotting helpers (matplotlib, headless)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

__all__ = ["bar_with_errors", "new_axes", "save"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


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
    n = len(labels)
    fig, ax = plt.subplots(figsize=(7.5, max(3.0, 0.28 * n + 1.2)), dpi=110)
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
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p)
    plt.close(fig)
    return p


def new_axes(ax=None, path=None, figsize=(6.0, 4.0)):
    """``(figure or None, axes)``: a new Agg figure unless ``ax`` is given."""
    plt = _pyplot()
    if ax is not None:
        return None, ax
    fig, ax = plt.subplots(figsize=figsize, dpi=110)
    return fig, ax


def save(fig, path) -> Path | None:
    """Save ``fig`` (from :func:`new_axes`) as a PNG at ``path`` and close it; no-op if None."""
    if fig is None or path is None:
        return None
    plt = _pyplot()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(p)
    plt.close(fig)
    return p
