"""Network inference on a weight matrix: the :class:`Network` result, ARACNE's
data-processing-inequality pruning and CLR's background correction.

Works on a labelled matrix and plain arrays only, so that both the public functions
(``network.py``, which read a user's matrix or a :class:`~.result.PairwiseResult`) and the
result's own ``.aracne()`` / ``.clr()`` methods (``result.py``) call it without an import
loop.  The methods are described in ``network.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core._threads import cap_numba
from infometer.core.jit import nb
from infometer.core.plot import close_and_path, deprecated_path_form
from infometer.core.results import Result
from infometer.core.seeding import Seed

from . import _plots


@dataclass(eq=False)
class Network(Result):
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
        ``negative_pairs``: how many pairs had a negative MI estimate (kept, see
        :mod:`infometer.workflows.allpairs.network`).
    """

    edges: Any
    matrix: Any
    method: str
    params: dict
    diagnostics: dict = field(default_factory=dict)

    def to_frame(self) -> Any:
        """The kept edges (:attr:`edges`, a copy)."""
        return self.edges.copy()

    def plot(self, ax: Any = None, path: Any = None, *, title: str | None = None, seed: Seed = 0):
        """Draw the network (small graphs): nodes, edges with widths by weight, a seeded
        spring layout; see :func:`infometer.workflows.allpairs.plot_network`.

        Parameters
        ----------
        ax
            Matplotlib axes to draw on (default: a new figure).
        path
            Also save the figure there as a PNG (folder created).
        title
            Title (default: method and number of edges).
        seed
            Seed of the layout. An int >= 0 (the same int gives the same numbers), a
            numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
            system).

        Returns
        -------
        matplotlib.axes.Axes
            (The previous release's ``net.plot(path)`` still saves there and returns the
            path, with a ``DeprecationWarning``.)

        Examples
        --------
        >>> import numpy as np
        >>> from infometer.workflows.allpairs import clr
        >>> net = clr(np.array([[0, 1.0, 0.1], [1.0, 0, 0.2], [0.1, 0.2, 0]]))
        >>> net.plot().get_title()
        'clr: 2 edges'
        """
        ax, path, old = deprecated_path_form(ax, path, "Network.plot", result=False)
        ax = _plots.draw_network(
            self.matrix, self.method, len(self.edges), ax, path, title=title, seed=seed
        )
        return close_and_path(ax, path) if old else ax

    def __repr__(self) -> str:
        return (
            f"Network({self.method}, {len(self.edges)} edges among "
            f"{self.matrix.shape[0]} variables)"
        )


def weights(
    frame: Any, q_values: Any = None, alpha: float | None = None
) -> tuple[np.ndarray, dict[str, Any]]:
    """A float copy of the labelled MI matrix ``frame``: non-finite -> 0, diagonal 0,
    negative values kept (counted); with ``q_values``, pairs above ``alpha`` -> 0."""
    w = frame.to_numpy(dtype=np.float64, copy=True)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"the MI matrix must be square, got shape {w.shape}")
    if not np.allclose(np.nan_to_num(w), np.nan_to_num(w.T), rtol=1e-10, atol=1e-12):
        raise ValueError("the MI matrix must be symmetric")
    w[~np.isfinite(w)] = 0.0
    np.fill_diagonal(w, 0.0)
    info: dict[str, Any] = {"negative_pairs": int(np.count_nonzero(np.triu(w < 0, 1)))}
    if q_values is not None:
        q = q_values.to_numpy()
        w[~(np.nan_to_num(q, nan=1.0) <= alpha)] = 0.0
        info["alpha"] = alpha
        info["significant_only"] = True
    return w, info


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


def aracne_network(frame: Any, w: np.ndarray, info: dict[str, Any], tolerance: float) -> Network:
    """ARACNE on the weights ``w`` of ``frame`` (from :func:`weights`)."""
    import pandas as pd

    from infometer.core.validation import check_float

    tolerance = check_float(tolerance, "tolerance", low=0.0, high=1.0, inclusive=(True, False))
    cap_numba()  # numba's pool: the physical cores, not every logical CPU
    keep = _dpi(np.ascontiguousarray(w), 1.0 - tolerance)
    keep = keep | keep.T
    m = np.where(keep, w, 0.0)
    mat = pd.DataFrame(m, index=frame.index, columns=frame.columns)
    info = dict(info)
    diag = {"negative_pairs": info.pop("negative_pairs")}
    return Network(_edges(frame, m), mat, "aracne", {"tolerance": tolerance, **info}, diag)


def clr_network(frame: Any, w: np.ndarray, info: dict[str, Any], threshold: float) -> Network:
    """CLR on the weights ``w`` of ``frame`` (from :func:`weights`)."""
    import pandas as pd

    from infometer.core.validation import check_float

    threshold = check_float(threshold, "threshold", low=0.0)
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
    info = dict(info)
    diag = {"negative_pairs": info.pop("negative_pairs")}
    return Network(_edges(frame, score), mat, "clr", {"threshold": threshold, **info}, diag)
