"""Network inference on an MI matrix (ARACNE, CLR) and the plots of matrices and networks.

The public functions: they read a :class:`~.result.PairwiseResult` or a user's matrix and
call the kernels of ``_infer.py`` and the drawing of ``_plots.py``.

* **ARACNE** (Margolin et al. 2006): in every triangle of edges the weakest one is taken
  for an indirect interaction and removed, by the data-processing inequality: if X–Z acts
  only through Y then I(X;Z) <= min(I(X;Y), I(Y;Z)).  Edge (i, j) is removed when some k
  has ``I_ij < (1 - tolerance) * min(I_ik, I_jk)``; all decisions use the original matrix
  (the result does not depend on the order of the triangles).  On a tree of Gaussian or
  discrete Markov dependencies with exact MI, ARACNE returns exactly the tree.
* **CLR** (Faith et al. 2007): each MI is compared with the background of both its
  variables: ``z_i(j) = max(0, (I_ij - mean_i) / sd_i)`` over the other columns of row i,
  and the score is ``sqrt(z_i(j)^2 + z_j(i)^2)``.

Both take a :class:`~.result.PairwiseResult` (then, by default, only the pairs that passed
its permutation test enter) or a square labelled matrix.

Negative MI estimates (estimation error near independence) are kept, as in the matrix, and
counted in ``Network.diagnostics["negative_pairs"]``: ARACNE never keeps a negative edge
(and a negative side of a triangle removes nothing), so its result is that of the clipped
matrix; CLR's background mean and sd of each variable are those of its estimates as they
are, negative ones included, since they describe the estimator's spread around the null.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core.plot import close_and_path, deprecated_path_form
from infometer.core.seeding import Seed

from . import _plots
from ._infer import Network, aracne_network, clr_network, weights
from ._plots import MAX_PLOT_NODES
from ._plots import cluster_order as cluster_order  # importable from here, as before
from .result import PairwiseResult

__all__ = ["Network", "aracne", "clr", "plot_heatmap", "plot_network", "MAX_PLOT_NODES"]


def _mi_frame(obj: Any) -> Any:
    """A user's MI matrix as a float DataFrame (NaN allowed: pairwise's diagonal), or a
    ``TypeError``/``ValueError`` naming ``obj``."""
    import pandas as pd

    from infometer.core.data import _as_array

    if obj is None:
        raise TypeError(
            "obj is None; pass a PairwiseResult (infometer.pairwise(data)) or a square MI matrix"
        )
    arr = _as_array(obj.to_numpy() if isinstance(obj, pd.DataFrame) else obj, "obj")
    if arr.dtype.kind not in "iuf":
        raise TypeError(
            f"obj must be a PairwiseResult or a matrix of real numbers, got {arr.dtype} values"
        )
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
        raise ValueError(f"obj must be a square MI matrix, got shape {arr.shape}")
    if isinstance(obj, pd.DataFrame):
        return pd.DataFrame(arr.astype(np.float64), index=obj.index, columns=obj.columns)
    return pd.DataFrame(arr.astype(np.float64))


def _weights(obj: Any, significant: bool | None) -> tuple[Any, np.ndarray, dict]:
    """Labelled matrix and a float copy: NaN -> 0 (negative kept), optionally failed tests -> 0."""
    if isinstance(obj, PairwiseResult):
        return (obj.matrix, *obj._network_weights(significant))
    frame = _mi_frame(obj)
    if significant:
        raise ValueError("significant=True needs a PairwiseResult with a permutation test")
    return (frame, *weights(frame))


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

    Examples
    --------
    >>> m = np.array([[0, 1.0, 0.5], [1.0, 0, 0.9], [0.5, 0.9, 0]])  # a chain 0 - 1 - 2
    >>> aracne(m).edges[["x", "y"]].values.tolist()
    [[0, 1], [1, 2]]
    """
    return aracne_network(*_weights(obj, significant), tolerance)


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

    Examples
    --------
    >>> m = np.array([[0, 1.0, 0.1], [1.0, 0, 0.2], [0.1, 0.2, 0]])
    >>> round(float(clr(m).edges["value"].iloc[0]), 3)
    1.414
    """
    return clr_network(*_weights(obj, bool(significant)), threshold)


def plot_heatmap(
    obj: Any, ax: Any = None, path: Any = None, *, cluster: bool = True, title: str | None = None
) -> Any:
    """Draw an MI matrix as a heatmap, rows and columns in clustered order: what
    :meth:`PairwiseResult.heatmap` draws (same parameters), for a result or for a square
    labelled matrix (DataFrame, in nats).

    Examples
    --------
    >>> import pandas as pd
    >>> m = pd.DataFrame([[np.nan, 0.4], [0.4, np.nan]], index=["a", "b"], columns=["a", "b"])
    >>> plot_heatmap(m).get_title()
    'pairwise MI (clustered order)'
    """
    ax, path, old = deprecated_path_form(ax, path, "plot_heatmap")
    if isinstance(obj, PairwiseResult):
        ax = obj.heatmap(ax, path, cluster=cluster, title=title)
    else:
        ax = _plots.draw_heatmap(_mi_frame(obj), "nats", ax, path, cluster=cluster, title=title)
    return close_and_path(ax, path) if old else ax


def plot_network(
    net: Network, ax: Any = None, path: Any = None, *, title: str | None = None, seed: Seed = 0
) -> Any:
    """Draw a small network: what :meth:`Network.plot` draws, as a function; at most
    :data:`MAX_PLOT_NODES` connected variables; needs networkx (extra ``network``).

    Parameters
    ----------
    net
        A :class:`Network` (from :func:`aracne` or :func:`clr`).
    ax
        Matplotlib axes to draw on (default: a new figure).
    path
        Also save the figure there as a PNG (folder created).
    title
        Title (default: method and number of edges).
    seed
        Seed of networkx's spring layout. An int >= 0 (the same int gives the same
        numbers), a numpy.random.Generator (drawn from as it is) or None (fresh entropy
        from the operating system).

    Returns
    -------
    matplotlib.axes.Axes
        (The previous release's ``plot_network(net, path)`` still saves there and returns
        the path, with a ``DeprecationWarning``.)

    Examples
    --------
    >>> net = clr(np.array([[0, 1.0, 0.1], [1.0, 0, 0.2], [0.1, 0.2, 0]]))
    >>> plot_network(net).get_title()
    'clr: 2 edges'
    """
    if not isinstance(net, Network):
        raise TypeError(f"net must be a Network (from aracne or clr), got {type(net).__name__}")
    ax, path, old = deprecated_path_form(ax, path, "plot_network")
    ax = net.plot(ax, path, title=title, seed=seed)
    return close_and_path(ax, path) if old else ax
