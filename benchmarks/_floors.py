"""The floor of each summary task: the simplest correct program for it, numpy / scipy only.

Each function computes the same quantity as the infometer call it stands beside (nats),
written plainly, with no input checks, no error bars and no generality it does not need
(alphabets and shapes are the task's, known in advance).  A script times it interleaved
with infometer and the peers (``benchmarks/_timing.py``); ``infometer / floor`` says how
much infometer pays for being a library.

* ``plugin_mi``: plug-in I(X;Y) from one joint ``np.bincount`` (alphabets known).
* ``plugin_h``: plug-in joint entropy of integer columns: mixed-radix code, ``np.bincount``,
  ``-sum p log p``.
* ``ksg1_mi``: KSG-1 (k nearest neighbours in the max-norm joint space, strict marginal
  counts) on scipy's ``cKDTree``, on standardised columns (the program of
  ``benchmarks/speed/limits.py``).  A sort and two ``np.searchsorted`` would count a 1-D
  marginal faster, but ``x_i + r`` rounds onto the neighbour at exactly eps and miscounts
  (~45% of the points at N = 2000): not a correct program.
* ``ksg1_mi_brute``: the same estimate by brute force (chunked ``cdist``), the faster
  plain program in tens of dimensions, where a kd-tree prunes nothing.
* ``ksg_te``: transfer entropy X -> Y (history 1) as the Frenzel-Pompe CMI
  I(Y_t+1; X_t | Y_t), the same kNN program in the 3-D joint space.
* ``pairwise_ksg1``: the all-pairs KSG-1 matrix as a loop of ``ksg1_mi`` over the pairs
  (the sum of the single-pair floors).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist
from scipy.special import digamma


def _entropy_of_counts(c: np.ndarray) -> float:
    c = c[c > 0]
    n = c.sum()
    return float(np.log(n) - (c * np.log(c)).sum() / n)


def plugin_mi(x: np.ndarray, y: np.ndarray, kx: int, ky: int) -> float:
    """Plug-in I(X;Y) of integer columns with values in ``range(kx)`` and ``range(ky)``."""
    j = np.bincount(x * ky + y, minlength=kx * ky).reshape(kx, ky)
    return (
        _entropy_of_counts(j.sum(1)) + _entropy_of_counts(j.sum(0)) - _entropy_of_counts(j.ravel())
    )


def plugin_h(cols: np.ndarray, k: int) -> float:
    """Plug-in joint entropy of the integer columns of ``cols`` (values in ``range(k)``)."""
    code = cols[:, 0].copy()
    for j in range(1, cols.shape[1]):
        code *= k
        code += cols[:, j]
    return _entropy_of_counts(np.bincount(code, minlength=k ** cols.shape[1]))


def _count_strict(a: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """Points j != i with max-norm distance to i strictly below eps[i], per i."""
    r = np.nextafter(eps, 0)
    return cKDTree(a).query_ball_point(a, r, p=np.inf, return_length=True) - 1


def _standard(a: np.ndarray) -> np.ndarray:
    a = a.reshape(len(a), -1)
    return (a - a.mean(0)) / a.std(0)


def _kth_distance(joint: np.ndarray, k: int) -> np.ndarray:
    return cKDTree(joint).query(joint, k=k + 1, p=np.inf)[0][:, k]


def ksg1_mi(x: np.ndarray, y: np.ndarray, k: int = 3) -> float:
    """KSG-1 I(X;Y) on standardised columns (as infometer's ``ksg1``), ``x`` and ``y`` of
    shape (n, d) or (n,)."""
    x, y = _standard(x), _standard(y)
    n = len(x)
    eps = _kth_distance(np.hstack([x, y]), k)
    nx, ny = _count_strict(x, eps), _count_strict(y, eps)
    return float(digamma(k) + digamma(n) - np.mean(digamma(nx + 1)) - np.mean(digamma(ny + 1)))


def ksg1_mi_brute(x: np.ndarray, y: np.ndarray, k: int = 3, rows: int = 500) -> float:
    """KSG-1 I(X;Y) by brute force: max-norm distances of ``rows`` points at a time to all
    (``scipy.spatial.distance.cdist``).  O(N^2 d), but in tens of dimensions, where a
    kd-tree prunes nothing, it is the faster plain program."""
    x, y = _standard(x), _standard(y)
    n = len(x)
    xy = np.hstack([x, y])
    nx, ny = np.empty(n, np.int64), np.empty(n, np.int64)
    for s in range(0, n, rows):
        e = slice(s, min(s + rows, n))
        d = cdist(xy[e], xy, "chebyshev")
        eps = np.partition(d, k, axis=1)[:, k]  # column 0 is the point itself (distance 0)
        nx[e] = (cdist(x[e], x, "chebyshev") < eps[:, None]).sum(1) - 1
        ny[e] = (cdist(y[e], y, "chebyshev") < eps[:, None]).sum(1) - 1
    return float(digamma(k) + digamma(n) - np.mean(digamma(nx + 1)) - np.mean(digamma(ny + 1)))


def ksg_te(x: np.ndarray, y: np.ndarray, k: int = 3) -> float:
    """TE X -> Y with history 1: Frenzel-Pompe I(Y_t+1; X_t | Y_t), each embedded column
    standardised (as infometer's ``ksg1`` transfer entropy)."""
    yf, xp, yp = _standard(y[1:]), _standard(x[:-1]), _standard(y[:-1])
    eps = _kth_distance(np.hstack([yf, xp, yp]), k)
    n_fz = _count_strict(np.hstack([yf, yp]), eps)
    n_xz = _count_strict(np.hstack([xp, yp]), eps)
    n_z = _count_strict(yp, eps)
    return float(digamma(k) - np.mean(digamma(n_fz + 1) + digamma(n_xz + 1) - digamma(n_z + 1)))


def pairwise_ksg1(x: np.ndarray, k: int = 3) -> np.ndarray:
    """The symmetric matrix of KSG-1 MI of every pair of columns (diagonal NaN)."""
    p = x.shape[1]
    out = np.full((p, p), np.nan)
    for i in range(p):
        for j in range(i + 1, p):
            out[i, j] = out[j, i] = ksg1_mi(x[:, i], x[:, j], k)
    return out
