"""Network figure: nodes on a circle, directed edges weighted by TE, lags as labels; drawn
by networkx (extra ``network``)."""

from __future__ import annotations

from typing import Any

#: arrow style, colour and line style of each link mark
_STYLE = {
    "-->": ("-|>", "#3b75af", "solid"),
    "o-o": ("-", "#5a8f3c", "solid"),
    "x-x": ("-", "#c0392b", "dashed"),
}


def plot_network(result: Any, ax=None, path=None):
    """Draw ``result`` (a :class:`~infometer.measures.dynamics.network.NetworkResult`):
    the series on a circle, one arrow per (source, target, link) with the width of its
    largest estimate and its lags written on it in a boxed label of 12 points."""
    from infometer.core._extras import require
    from infometer.core.plot import finish, new_axes

    nx = require("networkx", "NetworkResult.plot")
    _, ax = new_axes(ax, figsize=(6.5, 6.5))
    names = list(result.nodes)
    g = nx.DiGraph()
    g.add_nodes_from(names)
    pos = nx.circular_layout(names)
    pos = {nm: (float(y), float(x)) for nm, (x, y) in pos.items()}  # first node on top
    e = result.edges
    marks = e["link"] if "link" in e else ["-->"] * len(e)
    groups: dict[tuple[str, str, str], list[tuple[int, float]]] = {}
    for s, t, lag, v, m in zip(
        e["source"], e["target"], e["lag"], e["estimate"], marks, strict=True
    ):
        groups.setdefault((s, t, str(m)), []).append((int(lag), float(v)))
    top = max((max(v for _, v in grp) for grp in groups.values()), default=1.0) or 1.0
    for (s, t, m), grp in groups.items():
        arrow, colour, style = _STYLE[m]
        # PCMCI+'s unoriented (o-o) contemporaneous links: no head, straight;
        # conflicting (x-x): dashed red, no head
        bend = "arc3,rad=0.15" if m == "-->" else "arc3,rad=0"
        drawn = nx.draw_networkx_edges(
            g,
            pos,
            edgelist=[(s, t)],
            ax=ax,
            arrows=True,
            arrowstyle=arrow,
            arrowsize=18,
            width=0.8 + 4.0 * max(v for _, v in grp) / top,
            edge_color=colour,
            style=style,
            alpha=0.85,
            node_size=2000,
            connectionstyle=bend,
        )
        for patch in drawn:
            patch.set_gid(m)
        lags = ",".join(str(lag) for lag, _ in sorted(grp))
        nx.draw_networkx_edge_labels(
            g,
            pos,
            edge_labels={(s, t): lags},
            ax=ax,
            font_size=12,
            font_color="#7a2e0b",
            rotate=False,
            connectionstyle=bend,
            bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "#7a2e0b", "lw": 0.6},
        )
    nx.draw_networkx_nodes(
        g, pos, ax=ax, node_size=2200, node_color="#f3f3f3", edgecolors="#333333"
    )
    nx.draw_networkx_labels(g, pos, ax=ax, font_size=11)
    ax.set_xlim(-1.3, 1.3)
    ax.set_ylim(-1.3, 1.3)
    ax.set_aspect("equal")
    ax.axis("off")
    unit = "CMI" if result.method in ("pcmci", "pcmciplus") else "TE"
    extra = ""
    if result.method == "pcmciplus":
        extra = "\nlag 0 = contemporaneous; green: o-o unoriented, red dashed: x-x conflict"
    ax.set_title(
        f"{result.method} ({result.cmi}), alpha={result.alpha}\nedge width = {unit} "
        f"({result.diagnostics.get('unit', 'nats')}); boxed numbers = lags{extra}",
        fontsize=11,
    )
    return finish(ax, path)
