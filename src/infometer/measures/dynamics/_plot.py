"""Network figure: nodes on a circle, directed edges weighted by TE, lags as labels."""

from __future__ import annotations

from typing import Any

import numpy as np

#: arrow style, colour and line style of each link mark
_STYLE = {
    "-->": ("-|>", "#3b75af", "-"),
    "o-o": ("-", "#5a8f3c", "-"),
    "x-x": ("-", "#c0392b", "--"),
}


def plot_network(result: Any, ax=None, path=None):
    """Draw ``result`` (a :class:`~infometer.measures.dynamics.network.NetworkResult`)."""
    from matplotlib.patches import FancyArrowPatch

    from infometer.core.plot import finish, new_axes

    _, ax = new_axes(ax, figsize=(5.5, 5.5))
    names = list(result.nodes)
    n = len(names)
    ang = np.pi / 2 - 2 * np.pi * np.arange(n) / max(n, 1)
    pos = {nm: (np.cos(a), np.sin(a)) for nm, a in zip(names, ang, strict=True)}
    e = result.edges
    marks = e["link"] if "link" in e else ["-->"] * len(e)
    groups: dict[tuple[str, str, str], list[tuple[int, float]]] = {}
    for s, t, g, v, m in zip(e["source"], e["target"], e["lag"], e["estimate"], marks, strict=True):
        groups.setdefault((s, t, str(m)), []).append((int(g), float(v)))
    top = max((max(v for _, v in grp) for grp in groups.values()), default=1.0) or 1.0
    for (s, t, m), grp in groups.items():
        w = max(v for _, v in grp)
        (x0, y0), (x1, y1) = pos[s], pos[t]
        # PCMCI+'s unoriented (o-o) contemporaneous links: no head, straight;
        # conflicting (x-x): dashed red, no head
        arrow = FancyArrowPatch(
            (x0, y0),
            (x1, y1),
            arrowstyle=_STYLE[m][0],
            mutation_scale=14,
            lw=0.8 + 4.0 * w / top,
            color=_STYLE[m][1],
            linestyle=_STYLE[m][2],
            alpha=0.85,
            shrinkA=16,
            shrinkB=16,
            connectionstyle="arc3,rad=0.15" if m == "-->" else "arc3,rad=0",
        )
        arrow.set_gid(m)
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
    unit = "CMI" if result.method in ("pcmci", "pcmciplus") else "TE"
    extra = ""
    if result.method == "pcmciplus":
        extra = "\nlag 0 = contemporaneous; green: o-o unoriented, red dashed: x-x conflict"
    ax.set_title(
        f"{result.method} ({result.cmi}), alpha={result.alpha}: edge width = {unit} "
        f"({result.diagnostics.get('unit', 'nats')}), labels = lags{extra}",
        fontsize=9,
    )
    return finish(ax, path)
