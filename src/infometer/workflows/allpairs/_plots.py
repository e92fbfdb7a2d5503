"""Drawing of all-pairs results: the MI heatmap and the network picture.

Pure drawing on a labelled matrix (no result classes: ``result.py``, ``_infer.py`` and
``network.py`` all call these), in the ``plot_x(result, ax=None, path=None) -> Axes``
convention of :mod:`infometer.core.plot` (whose ``deprecated_path_form`` serves the calls of
the previous release, which passed the PNG path where ``ax`` now goes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core.seeding import Seed, resolve_seed

#: The network plot is for small graphs; larger ones are read as edge lists or heatmaps.
MAX_PLOT_NODES = 80

#: Heatmaps of at most this many variables write each cell's value in it.
MAX_CELL_NUMBERS = 12


def cluster_order(m: np.ndarray) -> np.ndarray:
    """Leaf order of average-linkage clustering with distance ``max(M) - M``.

    Examples
    --------
    >>> m = np.array([[0, 0.1, 1.0], [0.1, 0, 0.1], [1.0, 0.1, 0]])  # 0 and 2 go together
    >>> order = cluster_order(m).tolist()
    >>> abs(order.index(0) - order.index(2))
    1
    """
    from scipy.cluster.hierarchy import leaves_list, linkage
    from scipy.spatial.distance import squareform

    p = m.shape[0]
    if p < 3:
        return np.arange(p)
    w = np.nan_to_num(m, nan=0.0)
    w = np.maximum((w + w.T) / 2, 0.0)
    d = w.max() - w
    np.fill_diagonal(d, 0.0)
    return leaves_list(linkage(squareform(d, checks=False), method="average"))


def draw_heatmap(
    frame: Any,
    unit: str,
    ax: Any = None,
    path: Any = None,
    *,
    cluster: bool = True,
    title: str | None = None,
    significant: Any = None,
    test: str | None = None,
) -> Any:
    """The MI matrix ``frame`` (labelled DataFrame, values in ``unit``) as a heatmap on
    ``ax`` (a new figure if None), rows and columns in clustered order; saved at ``path``.

    ``significant``: a boolean matrix of the same labels (a permutation test's pairs with
    ``q <= alpha``), marked with a dot, ``test`` saying which test (in the legend).  Up to
    :data:`MAX_CELL_NUMBERS` variables each cell also shows its value."""
    from infometer.core.plot import finish, new_axes

    m = frame.to_numpy(dtype=float)
    order = cluster_order(m) if cluster else np.arange(m.shape[0])
    m = m[np.ix_(order, order)]
    labels = [str(frame.columns[i]) for i in order]
    p = m.shape[0]
    size = min(12.0, max(5.5, 0.45 * p + 2.5))
    _, ax = new_axes(ax, figsize=(size + 1.4, size))
    shown = np.where(np.isfinite(m), m, np.nan)
    hi = np.nanpercentile(shown, 99) if np.isfinite(shown).any() else 1.0
    top = np.nanmax(shown) if np.isfinite(shown).any() else hi
    capped = bool(top > hi * (1 + 1e-9))  # a few strong pairs would wash the rest out
    vmax = max(hi, 1e-12)
    im = ax.imshow(shown, cmap="viridis", vmin=0.0, vmax=vmax, interpolation="nearest")
    font = 10 if p <= 20 else (8 if p <= 40 else 7)
    if p <= 60:
        ax.set_xticks(range(p))
        ax.set_yticks(range(p))
        ax.set_xticklabels(labels, rotation=90, fontsize=font)
        ax.set_yticklabels(labels, fontsize=font)
    else:
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_xlabel(f"{p} variables (clustered order)" if cluster else f"{p} variables")
    if p <= MAX_CELL_NUMBERS:  # the numbers, dark on the bright cells and light on the dark
        for i in range(p):
            for j in range(p):
                if np.isfinite(shown[i, j]):
                    light = shown[i, j] < 0.6 * vmax
                    ax.text(
                        j,
                        i,
                        f"{shown[i, j]:.2g}",
                        ha="center",
                        va="top" if significant is not None else "center",
                        fontsize=8 if p <= 8 else 7,
                        color="white" if light else "black",
                    )
    legend = None
    if significant is not None:
        sig = np.asarray(significant, dtype=bool)[np.ix_(order, order)]
        ii, jj = np.nonzero(sig)
        ax.scatter(jj, ii - 0.18, s=30, marker="o", color="#ff3b30", edgecolor="white", lw=0.8)
        legend = f"dot: significant pair ({test or 'permutation test'}); {ii.size // 2} pairs"
    label = f"MI [{unit}]"
    if capped:  # say so: the brightest colour also stands for every larger value
        label += f", capped at the 99th percentile {hi:.3g} (max {top:.3g})"
    ax.figure.colorbar(
        im, ax=ax, fraction=0.046, pad=0.04, label=label, extend="max" if capped else "neither"
    )
    head = title or f"pairwise MI ({'clustered' if cluster else 'input'} order)"
    ax.set_title(head + (f"\n{legend}" if legend else ""), fontsize=11)
    return finish(ax, path)


def draw_network(
    matrix: Any,
    method: str,
    n_edges: int,
    ax: Any = None,
    path: Any = None,
    *,
    title: str | None = None,
    seed: Seed = 0,
) -> Any:
    """A small network (labelled matrix of kept edge weights, 0 = no edge) on ``ax``:
    nodes with edges, widths by weight, networkx's seeded spring layout (edges pull by
    weight); saved at ``path``.  Needs networkx (extra ``network``)."""
    from infometer.core._extras import require
    from infometer.core.plot import finish, new_axes

    nx = require("networkx", "the network drawing")
    m = matrix.to_numpy(dtype=float)
    used = np.flatnonzero((m > 0).any(axis=0))
    if used.size > MAX_PLOT_NODES:
        raise ValueError(
            f"the network has {used.size} connected variables; the drawing is for at most "
            f"{MAX_PLOT_NODES} (read net.edges, or plot the heatmap)"
        )
    labels = [str(matrix.columns[i]) for i in used]
    w = m[np.ix_(used, used)]
    _, ax = new_axes(ax, figsize=(7, 7))
    if used.size:
        g = nx.Graph()
        g.add_nodes_from(range(used.size))
        ia, ib = np.nonzero(np.triu(w, 1))
        top = w.max()
        g.add_weighted_edges_from(
            (int(i), int(j), w[i, j] / top) for i, j in zip(ia, ib, strict=True)
        )
        pos = nx.spring_layout(g, weight="weight", seed=resolve_seed(seed))
        widths = [0.6 + 4.0 * d["weight"] for _, _, d in g.edges(data=True)]
        nx.draw_networkx_edges(g, pos, ax=ax, width=widths, edge_color="#3b75af", alpha=0.75)
        nx.draw_networkx_nodes(
            g, pos, ax=ax, node_size=420, node_color="#f2a541", edgecolors="#333333"
        )
        nx.draw_networkx_labels(g, pos, dict(enumerate(labels)), ax=ax, font_size=11)
    else:
        ax.text(0.5, 0.5, "no edges", ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    ax.set_title(title or f"{method}: {n_edges} edges", fontsize=12)
    return finish(ax, path)
