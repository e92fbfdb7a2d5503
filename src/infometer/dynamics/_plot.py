"""Network figure: nodes on a circle, directed edges weighted by TE, lags as labels."""

from __future__ import annotations

from typing import Any

import numpy as np


def plot_network(result: Any, ax=None, path=None):
    """Draw ``result`` (a :class:`~infometer.dynamics.network.NetworkResult`)."""
    from matplotlib.patches import FancyArrowPatch

    from ..plot import finish, new_axes

    _, ax = new_axes(ax, figsize=(5.5, 5.5))
    names = list(result.nodes)
    n = len(names)
    ang = np.pi / 2 - 2 * np.pi * np.arange(n) / max(n, 1)
    pos = {nm: (np.cos(a), np.sin(a)) for nm, a in zip(names, ang, strict=True)}
    e = result.edges
    groups: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for s, t, g, v in zip(e["source"], e["target"], e["lag"], e["estimate"], strict=True):
        groups.setdefault((s, t), []).append((int(g), float(v)))
    top = max((max(v for _, v in grp) for grp in groups.values()), default=1.0) or 1.0
    for (s, t), grp in groups.items():
        w = max(v for _, v in grp)
        (x0, y0), (x1, y1) = pos[s], pos[t]
        arrow = FancyArrowPatch(
            (x0, y0),
            (x1, y1),
            arrowstyle="-|>",
            mutation_scale=14,
            lw=0.8 + 4.0 * w / top,
            color="#3b75af",
            alpha=0.85,
            shrinkA=16,
            shrinkB=16,
            connectionstyle="arc3,rad=0.15",
        )
        ax.add_patch(arrow)
        # label near the middle of the (curved) edge, offset to its side
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        dx, dy = x1 - x0, y1 - y0
        mx, my = mx + 0.08 * dy, my - 0.08 * dx
        lags = ",".join(str(g) for g, _ in sorted(grp))
        ax.text(mx, my, lags, fontsize=8, ha="center", va="center", color="#7a2e0b")
    for nm, (x, y) in pos.items():
        ax.scatter([x], [y], s=700, color="#f3f3f3", edgecolor="#333333", zorder=3)
        ax.text(x, y, nm, ha="center", va="center", fontsize=9, zorder=4)
    ax.set_xlim(-1.35, 1.35)
    ax.set_ylim(-1.35, 1.35)
    ax.set_aspect("equal")
    ax.axis("off")
    unit = "CMI" if result.method == "pcmci" else "TE"
    ax.set_title(
        f"{result.method} ({result.cmi}), alpha={result.alpha}: edge width = {unit} "
        f"({result.diagnostics.get('unit', 'nats')}), labels = lags",
        fontsize=9,
    )
    return finish(ax, path)
