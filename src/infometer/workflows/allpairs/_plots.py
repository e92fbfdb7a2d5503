"""Drawing of all-pairs results: the MI heatmap and the network picture.

Pure drawing on a labelled matrix (no result classes: ``result.py``, ``_infer.py`` and
``network.py`` all call these), in the ``plot_x(result, ax=None, path=None) -> Axes``
convention of :mod:`infometer.core.plot` (whose ``deprecated_path_form`` serves the calls of
the previous release, which passed the PNG path where ``ax`` now goes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core.seeding import as_generator

#: The network plot is for small graphs; larger ones are read as edge lists or heatmaps.
MAX_PLOT_NODES = 80


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
) -> Any:
    """The MI matrix ``frame`` (labelled DataFrame, values in ``unit``) as a heatmap on
    ``ax`` (a new figure if None), rows and columns in clustered order; saved at ``path``."""
    from infometer.core.plot import finish, new_axes

    m = frame.to_numpy(dtype=float)
    order = cluster_order(m) if cluster else np.arange(m.shape[0])
    m = m[np.ix_(order, order)]
    labels = [str(frame.columns[i]) for i in order]
    p = m.shape[0]
    size = min(12.0, max(4.5, 0.22 * p + 2.5))
    _, ax = new_axes(ax, figsize=(size + 1.2, size))
    shown = np.where(np.isfinite(m), m, np.nan)
    hi = np.nanpercentile(shown, 99) if np.isfinite(shown).any() else 1.0
    top = np.nanmax(shown) if np.isfinite(shown).any() else hi
    capped = bool(top > hi * (1 + 1e-9))  # a few strong pairs would wash the rest out
    im = ax.imshow(shown, cmap="viridis", vmin=0.0, vmax=max(hi, 1e-12), interpolation="nearest")
    if p <= 60:
        ax.set_xticks(range(p))
        ax.set_yticks(range(p))
        ax.set_xticklabels(labels, rotation=90, fontsize=7)
        ax.set_yticklabels(labels, fontsize=7)
    else:
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_xlabel(f"{p} variables (clustered order)" if cluster else f"{p} variables")
    label = f"MI [{unit}]"
    if capped:  # say so: the brightest colour also stands for every larger value
        label += f", capped at the 99th percentile {hi:.3g} (max {top:.3g})"
    ax.figure.colorbar(
        im, ax=ax, fraction=0.046, pad=0.04, label=label, extend="max" if capped else "neither"
    )
    ax.set_title(title or f"pairwise MI ({'clustered' if cluster else 'input'} order)", fontsize=10)
    return finish(ax, path)


def spring_layout(w: np.ndarray, seed: int, iters: int = 300) -> np.ndarray:
    """Fruchterman-Reingold layout (seeded): edges attract by weight, nodes repel."""
    p = w.shape[0]
    rng = as_generator(seed)
    ang = 2 * np.pi * np.arange(p) / max(p, 1)
    pos = np.column_stack([np.cos(ang), np.sin(ang)]) + 0.05 * rng.standard_normal((p, 2))
    k = 1.0 / np.sqrt(max(p, 1))
    wn = w / w.max() if w.max() > 0 else w
    temp = 0.1
    for _ in range(iters):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.maximum(np.sqrt((delta**2).sum(-1)), 1e-3)
        force = k * k / dist**2 - wn * dist / k
        np.fill_diagonal(force, 0.0)
        disp = (delta * force[:, :, None]).sum(1)
        length = np.maximum(np.sqrt((disp**2).sum(1)), 1e-9)
        pos += disp / length[:, None] * np.minimum(length, temp)[:, None]
        temp *= 0.985
    return pos


def draw_network(
    matrix: Any,
    method: str,
    n_edges: int,
    ax: Any = None,
    path: Any = None,
    *,
    title: str | None = None,
    seed: int = 0,
) -> Any:
    """A small network (labelled matrix of kept edge weights, 0 = no edge) on ``ax``:
    nodes with edges, widths by weight, spring layout; saved at ``path``."""
    from infometer.core.plot import finish, new_axes

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
        pos = spring_layout(w, seed)
        top = w.max()
        ia, ib = np.nonzero(np.triu(w, 1))
        for i, j in zip(ia, ib, strict=True):
            ax.plot(*pos[[i, j]].T, color="#3b75af", lw=0.6 + 4.0 * w[i, j] / top, alpha=0.75)
        ax.scatter(pos[:, 0], pos[:, 1], s=180, color="#f2a541", edgecolor="#333333", zorder=3)
        for (px, py), lab in zip(pos, labels, strict=True):
            ax.annotate(lab, (px, py), fontsize=8, ha="center", va="center", zorder=4)
    else:
        ax.text(0.5, 0.5, "no edges", ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    ax.set_title(title or f"{method}: {n_edges} edges", fontsize=10)
    return finish(ax, path)
