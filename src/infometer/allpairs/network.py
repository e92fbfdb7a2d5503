"""Network inference on an MI matrix (ARACNE, CLR) and the plots of matrices and networks.

* **ARACNE** (Margolin et al. 2006): in every triangle of edges the weakest one is taken
  for an indirect interaction and removed, by the data-processing inequality: if X–Z acts
  only through Y then I(X;Z) <= min(I(X;Y), I(Y;Z)).  Edge (i, j) is removed when some k
  has ``I_ij < (1 - tolerance) * min(I_ik, I_jk)``; all decisions use the original matrix
  (the result does not depend on the order of the triangles).  On a tree of Gaussian or
  discrete Markov dependencies with exact MI, ARACNE returns exactly the tree.
* **CLR** (Faith et al. 2007): each MI is compared with the background of both its
  variables: ``z_i(j) = max(0, (I_ij - mean_i) / sd_i)`` over the other columns of row i,
  and the score is ``sqrt(z_i(j)^2 + z_j(i)^2)``.

Both take a :class:`~.matrix.PairwiseResult` (then, by default, only the pairs that passed
its permutation test enter) or a square labelled matrix.

Negative MI estimates (estimation error near independence) are kept, as in the matrix, and
counted in ``Network.diagnostics["negative_pairs"]``: ARACNE never keeps a negative edge
(and a negative side of a triangle removes nothing), so its result is that of the clipped
matrix; CLR's background mean and sd of each variable are those of its estimates as they
are, negative ones included, since they describe the estimator's spread around the null.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..jit import nb

__all__ = ["Network", "aracne", "clr", "plot_heatmap", "plot_network", "MAX_PLOT_NODES"]

#: The network plot is for small graphs; larger ones are read as edge lists or heatmaps.
MAX_PLOT_NODES = 80


@dataclass
class Network:
    """Edges kept by a network-inference method.

    Attributes
    ----------
    edges
        DataFrame ``x``, ``y``, ``value`` (MI for ARACNE, the CLR score for CLR), strongest
        first.
    matrix
        The P x P matrix of kept edge weights (0 elsewhere).
    method
        ``"aracne"`` or ``"clr"``.
    params
        The method's settings.
    diagnostics
        ``negative_pairs``: how many pairs had a negative MI estimate (kept, see above).
    """

    edges: Any
    matrix: Any
    method: str
    params: dict
    diagnostics: dict = field(default_factory=dict)

    def plot(self, path: str | os.PathLike, *, title: str | None = None, seed: int = 0) -> Path:
        """Save a PNG drawing of the network (small graphs); see :func:`plot_network`."""
        return plot_network(self, path, title=title, seed=seed)

    def __repr__(self) -> str:
        return (
            f"Network({self.method}, {len(self.edges)} edges among "
            f"{self.matrix.shape[0]} variables)"
        )


def _is_result(obj: Any) -> bool:
    """Whether ``obj`` is a :class:`~.matrix.PairwiseResult`, told by its fields, so that
    this module need not import the one that imports it (no import loop, issue 29)."""
    return all(hasattr(obj, a) for a in ("matrix", "edges", "q_values", "fdr", "unit"))


def _weights(obj: Any, significant: bool | None) -> tuple[Any, np.ndarray, dict]:
    """Labelled matrix and a float copy: NaN -> 0 (negative kept), optionally failed tests -> 0."""
    import pandas as pd

    info: dict = {}
    if _is_result(obj):
        frame = obj.matrix
        if significant is None:
            significant = obj.q_values is not None
        if significant:
            if obj.q_values is None:
                raise ValueError(
                    "significant=True needs a permutation test: pairwise(..., permutations=B)"
                )
            info["fdr"] = obj.fdr
    else:
        frame = obj if isinstance(obj, pd.DataFrame) else pd.DataFrame(np.asarray(obj, float))
        if significant:
            raise ValueError("significant=True needs a PairwiseResult with a permutation test")
        significant = False
    w = frame.to_numpy(dtype=np.float64, copy=True)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"the MI matrix must be square, got shape {w.shape}")
    if not np.allclose(np.nan_to_num(w), np.nan_to_num(w.T), rtol=1e-10, atol=1e-12):
        raise ValueError("the MI matrix must be symmetric")
    w[~np.isfinite(w)] = 0.0
    np.fill_diagonal(w, 0.0)
    info["negative_pairs"] = int(np.count_nonzero(np.triu(w < 0, 1)))
    if significant:
        q = obj.q_values.to_numpy()
        w[~(np.nan_to_num(q, nan=1.0) <= obj.fdr)] = 0.0
        info["significant_only"] = True
    return frame, w, info


@nb.njit(parallel=True, cache=True)
def _dpi(w: np.ndarray, factor: float) -> np.ndarray:
    p = w.shape[0]
    keep = np.zeros((p, p), np.bool_)
    for i in nb.prange(p):
        for j in range(i + 1, p):
            wij = w[i, j]
            if wij <= 0.0:
                continue
            ok = True
            for k in range(p):
                if k != i and k != j and wij < factor * min(w[i, k], w[j, k]):
                    ok = False
                    break
            keep[i, j] = ok
    return keep


def _edges(frame: Any, m: np.ndarray) -> Any:
    import pandas as pd

    labels = list(frame.columns)
    ia, ib = np.nonzero(np.triu(m, 1))
    e = pd.DataFrame(
        {"x": [labels[i] for i in ia], "y": [labels[j] for j in ib], "value": m[ia, ib]}
    )
    return e.sort_values("value", ascending=False, kind="stable").reset_index(drop=True)


def aracne(obj: Any, *, tolerance: float = 0.0, significant: bool | None = None) -> Network:
    """ARACNE: remove the weakest edge of every triangle (data-processing inequality).

    Parameters
    ----------
    obj
        A :class:`PairwiseResult` or a symmetric labelled MI matrix (DataFrame or array).
    tolerance
        Fraction in [0, 1): an edge is removed only when it is below ``(1 - tolerance)``
        times the weaker of the other two (0 = plain DPI; larger keeps more edges).
    significant
        Keep only pairs that passed the permutation test before pruning (default: when
        ``obj`` has one).  Negative and non-finite values count as no edge.

    Returns
    -------
    Network
    """
    import pandas as pd

    from ..data import check_float

    tolerance = check_float(tolerance, "tolerance", low=0.0, high=1.0, inclusive=(True, False))
    frame, w, info = _weights(obj, significant)
    keep = _dpi(np.ascontiguousarray(w), 1.0 - tolerance)
    keep = keep | keep.T
    m = np.where(keep, w, 0.0)
    mat = pd.DataFrame(m, index=frame.index, columns=frame.columns)
    diag = {"negative_pairs": info.pop("negative_pairs")}
    return Network(_edges(frame, m), mat, "aracne", {"tolerance": tolerance, **info}, diag)


def clr(obj: Any, *, threshold: float = 0.0, significant: bool | None = None) -> Network:
    """CLR: MI z-scored against each variable's background, ``sqrt(z_i^2 + z_j^2)``.

    Parameters
    ----------
    obj
        A :class:`PairwiseResult` or a symmetric labelled MI matrix.
    threshold
        Keep edges whose CLR score exceeds this (0 keeps every positive score).
    significant
        Zero the pairs that failed the permutation test first (default: False for CLR,
        whose own background correction plays that role).

    Returns
    -------
    Network
    """
    import pandas as pd

    from ..data import check_float

    threshold = check_float(threshold, "threshold", low=0.0)
    frame, w, info = _weights(obj, bool(significant))
    p = w.shape[0]
    off = ~np.eye(p, dtype=bool)
    mu = np.array([w[i, off[i]].mean() if p > 1 else 0.0 for i in range(p)])
    sd = np.array([w[i, off[i]].std() if p > 1 else 0.0 for i in range(p)])
    z = np.zeros_like(w)
    ok = sd > 0
    z[ok] = (w[ok] - mu[ok, None]) / sd[ok, None]
    z = np.maximum(z, 0.0)
    score = np.sqrt(z**2 + z.T**2)
    np.fill_diagonal(score, 0.0)
    score[score <= threshold] = 0.0
    mat = pd.DataFrame(score, index=frame.index, columns=frame.columns)
    diag = {"negative_pairs": info.pop("negative_pairs")}
    return Network(_edges(frame, score), mat, "clr", {"threshold": threshold, **info}, diag)


# ------------------------------------------------------------------------------- plots
def _pyplot():
    from ..plot import _pyplot as pp

    return pp()


def cluster_order(m: np.ndarray) -> np.ndarray:
    """Leaf order of average-linkage clustering with distance ``max(M) - M``."""
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


def plot_heatmap(
    obj: Any, path: str | os.PathLike, *, cluster: bool = True, title: str | None = None
) -> Path:
    """Save the MI matrix as a heatmap PNG, rows and columns in clustered order."""
    frame = obj.matrix if _is_result(obj) else obj
    unit = obj.unit if _is_result(obj) else "nats"
    m = frame.to_numpy(dtype=float)
    order = cluster_order(m) if cluster else np.arange(m.shape[0])
    m = m[np.ix_(order, order)]
    labels = [str(frame.columns[i]) for i in order]
    plt = _pyplot()
    p = m.shape[0]
    size = min(12.0, max(4.5, 0.22 * p + 2.5))
    fig, ax = plt.subplots(figsize=(size + 1.2, size), dpi=110)
    shown = np.where(np.isfinite(m), m, np.nan)
    hi = np.nanpercentile(shown, 99) if np.isfinite(shown).any() else 1.0
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
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label=f"MI [{unit}]")
    ax.set_title(title or f"pairwise MI ({'clustered' if cluster else 'input'} order)", fontsize=10)
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)
    return out


def _spring(w: np.ndarray, seed: int, iters: int = 300) -> np.ndarray:
    """Fruchterman-Reingold layout (seeded): edges attract by weight, nodes repel."""
    p = w.shape[0]
    rng = np.random.default_rng(seed)
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


def plot_network(
    net: Network, path: str | os.PathLike, *, title: str | None = None, seed: int = 0
) -> Path:
    """Save a PNG of a small network: nodes with edges, widths by weight, spring layout."""
    m = net.matrix.to_numpy(dtype=float)
    used = np.flatnonzero((m > 0).any(axis=0))
    if used.size > MAX_PLOT_NODES:
        raise ValueError(
            f"the network has {used.size} connected variables; the drawing is for at most "
            f"{MAX_PLOT_NODES} (read net.edges, or plot the heatmap)"
        )
    labels = [str(net.matrix.columns[i]) for i in used]
    w = m[np.ix_(used, used)]
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 7), dpi=110)
    if used.size:
        pos = _spring(w, seed)
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
    ax.set_title(title or f"{net.method}: {len(net.edges)} edges", fontsize=10)
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)
    return out
