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
* ``broja_slsqp``: the BROJA PID of a pmf by the textbook primal program, scipy's SLSQP.
* ``network_floor``: the conditional-independence tests a Gaussian network search made
  (mTE, PCMCI, PCMCI+; recorded by ``benchmarks/_netrecord.py``), replayed as a loop with
  no search logic: per test one QR of the conditioning columns, explicit least-squares
  residuals, the partial correlation, -1/2 log(1 - r^2) and its p-value (Student t, or
  the permutation test with the search's permutations).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist
from scipy.special import digamma, stdtr


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


# ------------------------------------------------------------------ network searches
def _residuals(q: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Least-squares residuals of ``a`` (rows: time) on the orthonormal columns ``q``."""
    return a - q @ (q.T @ a)


def _basis(z: np.ndarray) -> np.ndarray:
    return np.linalg.qr(z)[0] if z.shape[1] else np.zeros((len(z), 0))


def _gauss_cmi(r2: np.ndarray) -> np.ndarray:
    """Gaussian I(x; y | z) = -1/2 log(1 - r^2), r^2 the squared partial correlation (or
    R^2 of y on several x given z): the log-det form 1/2 log(|S_xz| |S_yz| / (|S_xyz| |S_z|))."""
    return -0.5 * np.log1p(-np.minimum(r2, 1.0))


def _perm_p(observed: float, null: np.ndarray) -> float:
    return float((1 + np.count_nonzero(null >= observed)) / (1 + null.size))


def _stepdown(obs: np.ndarray, null: np.ndarray) -> list[float]:
    """Westfall-Young step-down max-statistic p-values."""
    order = np.argsort(-obs, kind="stable")
    p, prev = np.empty(obs.size), 0.0
    for rank, i in enumerate(order):
        prev = max(prev, _perm_p(obs[i], null[:, order[rank:]].max(axis=1)))
        p[i] = prev
    return p.tolist()


def _draw_permutations(state: dict, n: int, count: int) -> np.ndarray:
    """The permutation table a search drew, from its generator's recorded state."""
    g = np.random.Generator(getattr(np.random, state["bit_generator"])())
    g.bit_generator.state = state
    table = np.tile(np.arange(n), (count, 1))  # C order: each permutation a contiguous row
    g.permuted(table, axis=1, out=table)
    return table


def network_floor(
    data, engines, pools, steps, projected: bool = False
) -> list[tuple[list[float], Any, list[float]]]:
    """Replay a network search's tests (``benchmarks/_netrecord.py``) as plain numpy.

    ``engines[k] = (target, items, max_lag)``: the lag matrix ``data[t - lag, process]``
    of the (process, lag) ``items`` and the target ``data[t, target]``, t = max_lag ..
    T - 1, each column centred.  Per step, whatever its kind: one QR of the conditioning
    columns per conditioning set, explicit residuals of the target and the candidates,
    partial correlation r, I = -1/2 log(1 - r^2); the surrogates permute the candidate's
    rows (``x[p]``) and redo the residuals and the correlation for every permutation (the
    omnibus test: the sources jointly, R^2 of a least-squares fit).  P-values:
    ``"parcorr"`` two-sided Student t on T' - 2 - |Z| degrees of freedom (``scipy.special.stdtr``,
    which ``scipy.stats.t.sf`` calls behind 30 us of argument handling); ``"max"`` /
    ``"min"`` the best / worst value against the per-permutation max / min over the step's
    candidates; ``"stepdown"`` Westfall-Young; ``"omnibus"`` plain.  The permutation
    tables are the search's (drawn once per table from the recorded generator state).

    ``projected=True``: the surrogates of the single-candidate tests skip the explicit
    residual of the permuted candidate: r_y is orthogonal to the conditions' basis Q, so
    r_y . r_xp = r_y . xp and |r_xp|^2 = |x|^2 - |Q^T xp|^2 (one product per permutation
    instead of two; the projection identity infometer's engine uses).

    Returns per step ``(values, surrogates or None, p-values)``.
    """
    mats = []
    for target, items, max_lag in engines:
        t = np.arange(max_lag, data.shape[0])
        proc = np.array([i for i, _ in items])
        lag = np.array([g for _, g in items])
        x = data[t[:, None] - lag[None, :], proc[None, :]]
        y = data[t, target]
        mats.append((y - y.mean(), x - x.mean(axis=0)))
    tables: dict[int, np.ndarray] = {}
    out: list[tuple[list[float], Any, list[float]]] = []
    for st in steps:
        y, x = mats[st.engine]
        n = len(y)
        perms = None
        if st.pool is not None:
            if st.pool not in tables:
                tables[st.pool] = _draw_permutations(*pools[st.pool])
            perms = tables[st.pool][: st.n_perm]
        if st.kind == "parcorr":
            z = st.conds[0]
            q = _basis(x[:, z])
            ry, rx = _residuals(q, y), _residuals(q, x[:, st.cands[0]])
            r = float(ry @ rx / np.sqrt((ry @ ry) * (rx @ rx)))
            dof = n - 2 - len(z)
            tstat = abs(r) * np.sqrt(dof / (1.0 - min(r * r, 1.0 - 1e-16)))
            out.append(([float(_gauss_cmi(np.array(r * r)))], None, [2 * stdtr(dof, -tstat)]))
        elif st.kind == "omnibus":
            q = _basis(x[:, st.conds[0]])
            ry = _residuals(q, y)
            xs = x[:, st.cands]

            def r2(a, q=q, ry=ry):
                ra = _residuals(q, a)
                fit = ra @ np.linalg.lstsq(ra, ry, rcond=None)[0]
                return (ry @ fit) / (ry @ ry)

            val = float(_gauss_cmi(np.array(r2(xs))))
            null = _gauss_cmi(np.array([r2(xs[p]) for p in perms]))
            out.append(([val], null[:, None], [_perm_p(val, null)]))
        elif st.kind == "max":  # one conditioning set for all the remaining candidates
            q = _basis(x[:, st.conds[0]])
            ry = _residuals(q, y)
            ny = np.sqrt(ry @ ry)
            xs = x[:, st.cands]
            rx = _residuals(q, xs)
            vals = _gauss_cmi(((ry @ rx) / ny) ** 2 / (rx * rx).sum(axis=0))
            null = np.empty((len(perms), len(st.cands)))
            xx = (xs * xs).sum(axis=0)  # a permutation keeps each column's norm
            for s, p in enumerate(perms):
                if projected:  # r_y is orthogonal to Q: r_y . r_xp = r_y . xp
                    xp = xs[p]
                    qx = q.T @ xp
                    num, den = ry @ xp, xx - (qx * qx).sum(axis=0)
                else:
                    rp = _residuals(q, xs[p])
                    num, den = ry @ rp, (rp * rp).sum(axis=0)
                null[s] = _gauss_cmi((num / ny) ** 2 / den)
            out.append((vals.tolist(), null, [_perm_p(vals.max(), null.max(axis=1))]))
        else:  # "min", "stepdown": each candidate given its own conditioning set
            vals = np.empty(len(st.cands))
            null = np.empty((len(perms), len(st.cands)))
            for k, (c, z) in enumerate(zip(st.cands, st.conds, strict=True)):
                q = _basis(x[:, z])
                ry = _residuals(q, y)
                ny = np.sqrt(ry @ ry)
                rx = _residuals(q, x[:, c])
                vals[k] = _gauss_cmi(np.array((ry @ rx / ny) ** 2 / (rx @ rx)))
                xp = x[:, c][perms]  # (S, T'): every permuted copy of the candidate
                if projected:
                    qx = xp @ q
                    num, den = xp @ ry, x[:, c] @ x[:, c] - (qx * qx).sum(axis=1)
                else:
                    rp = xp - (xp @ q) @ q.T
                    num, den = rp @ ry, (rp * rp).sum(axis=1)
                null[:, k] = _gauss_cmi((num / ny) ** 2 / den)
            if st.kind == "min":
                p = [_perm_p(vals.min(), null.min(axis=1))]
            else:
                p = _stepdown(vals, null)
            out.append((vals.tolist(), null, p))
    return out


# ------------------------------------------------------------------------ BROJA
def broja_slsqp(p: np.ndarray) -> tuple[float, float, float, float]:
    """BROJA's ``(shared, unique S1, unique S2, synergy)`` in nats of a pmf ``p[s1, s2, t]``
    by the textbook program (Bertschinger et al. 2014): minimise ``I_q(T; S1, S2)`` over the
    pmfs ``q`` with the pairs ``(S1, T)`` and ``(S2, T)`` distributed as under ``p``, here
    with scipy's general SLSQP on the primal (``q >= 0``, the linear marginal constraints
    less the one redundant row per target value), from the feasible product
    ``p(s1, t) p(s2, t) / p(t)``; then ``UI1 = I_q(T; S1 | S2)``, ``UI2`` likewise,
    ``SI = I(T; S1) - UI1`` and ``CI = I_p(T; S1, S2) - I_q(T; S1, S2)``.  No dual, no
    cone, no interior point: the simplest correct program, not a fast one."""
    from scipy.optimize import minimize

    k1, k2, kt = p.shape
    p13, p23, pt = p.sum(1), p.sum(0), p.sum((0, 1))
    q0 = p13[:, None, :] * p23[None, :, :] / np.where(pt > 0, pt, 1.0)
    rows, b = [], []
    for a in range(k1):  # sum over s2 of q(a, s2, t) = p(a, t)
        for t in range(kt):
            m = np.zeros((k1, k2, kt))
            m[a, :, t] = 1.0
            rows.append(m.ravel())
            b.append(p13[a, t])
    for c in range(k2 - 1):  # sum over s1 of q(s1, c, t) = p(c, t); the last c is implied
        for t in range(kt):
            m = np.zeros((k1, k2, kt))
            m[:, c, t] = 1.0
            rows.append(m.ravel())
            b.append(p23[c, t])
    A, b = np.array(rows), np.array(b)

    def f(v):
        q = np.maximum(v.reshape(k1, k2, kt), 1e-300)
        q12 = q.sum(2, keepdims=True)
        lq = np.log(q) - np.log(q12)
        return float((q * lq).sum()), lq.ravel()

    res = minimize(
        f,
        q0.ravel(),
        jac=True,
        method="SLSQP",
        bounds=[(0.0, 1.0)] * q0.size,
        constraints=[{"type": "eq", "fun": lambda v: A @ v - b, "jac": lambda v: A}],
        options={"ftol": 1e-14, "maxiter": 2000},
    )
    q = np.maximum(res.x.reshape(k1, k2, kt), 0.0)

    def h(a: np.ndarray) -> float:
        a = a[a > 0]
        return float(-(a * np.log(a)).sum())

    # I(T; S1 | S2) = H(S2, T) + H(S1, S2) - H(S2) - H(S1, S2, T), under q
    ui1 = h(q.sum(0)) + h(q.sum(2)) - h(q.sum((0, 2))) - h(q)
    ui2 = h(q.sum(1)) + h(q.sum(2)) - h(q.sum((1, 2))) - h(q)
    i1 = h(p13.sum(1)) + h(pt) - h(p13)  # I(T; S1), the same under p and q
    i_p = h(p.sum(2)) + h(pt) - h(p)  # I(T; S1, S2) under p
    i_q = h(q.sum(2)) + h(pt) - h(q)
    return i1 - ui1, ui1, ui2, i_p - i_q
