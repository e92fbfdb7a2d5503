"""Marginal-information-gain context compression, after COMI (Tang et al., ICLR 2026).

"Information" here is a cosine heuristic, not Shannon information: the marginal
information gain (MIG) of a unit u (a token, a group, a sentence) with respect to a
query q and the other units is

    MIG(u) = α · cos(u, q) − β · max_{v ≠ u} cos(u, v)        (relevance − redundancy)

Coarse stage (group reallocation), with nominal group size g (the compression rate) and
n token vectors h_1..h_n:

1. G = ceil(n / g) groups of g consecutive tokens (the last may be shorter);
2. each group's relevance is the largest cos(h_t, q) in it, its representative the token
   that attains it;
3. its redundancy is the largest cosine between its representative and another's;
4. sizes s = n · softmax(−MIG) rounded by largest remainder so that Σ s = n (a high-MIG
   group gets *fewer* tokens: less compression); ties in the remainders go to the earlier
   group;
5. the sequence is re-cut contiguously with sizes s_1..s_G; empty groups are dropped.

Fine stage (token merging): inside each new group S, w = softmax_t(α·cos(h_t, q) −
β·max_{t'≠t ∈ S} cos(h_t, h_t')) and the memory vector is Σ_t w_t h_t (a one-token group
keeps its token).  At most ceil(n / g) memory vectors come out.

Sentence stage (:func:`select_units`): greedy selection under a token budget by the gain
relative to what is already kept, α·cos(s, q) − β·max_{kept t} cos(s, t).

β = 0 gives relevance-only merging, α = β = 0 mean pooling over ceil(n/g) nearly equal
groups: the baselines of the needle evaluation (:mod:`infometer.systems.text.needle`).

Departures from the authors' code (github.com/Twilightaaa/COMI, ``modeling_comi.py``,
commit d175a44): there, padding positions of a group shorter than the longest one enter
the fine-stage redundancy as cosine 0, so a token's redundancy is floored at 0 in short
groups but not in the longest; here it is the maximum over the group's real tokens
(0 for a one-token group) everywhere.  Without the coarse stage the code uses
round(n / g) equal groups; :func:`compress` does the same when ``coarse=False``.

Reference: Tang, Liu, Zhang, Yuan, Zheng, Su & Zheng (2026), "COMI: Coarse-to-fine Context
Compression via Marginal Information Gain", arXiv:2602.01719 (ICLR 2026).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from infometer.core.data import check_float, check_int

from .embed import normalize_rows

__all__ = [
    "mig_scores",
    "largest_remainder",
    "group_sizes",
    "spans",
    "merge_weights",
    "compress",
    "Compressed",
    "select_units",
    "softmax",
]


def softmax(x: np.ndarray) -> np.ndarray:
    """Numerically stable softmax of a 1-D array."""
    z = np.exp(x - np.max(x))
    return z / z.sum()


def _check_units(units: np.ndarray, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    u = np.asarray(units, dtype=np.float64)
    q = np.asarray(query, dtype=np.float64).reshape(-1)
    if u.ndim != 2 or u.shape[0] == 0:
        raise ValueError(f"units must be a non-empty (n, d) array, got shape {u.shape}")
    if q.shape[0] != u.shape[1]:
        raise ValueError(f"query has {q.shape[0]} dimensions but units have {u.shape[1]}")
    if not (np.all(np.isfinite(u)) and np.all(np.isfinite(q))):
        raise ValueError("units and query must be finite (no NaN or inf)")
    return u, q


def _max_other(sim: np.ndarray) -> np.ndarray:
    """Row-wise max over the off-diagonal entries (0 for a 1 x 1 matrix)."""
    if sim.shape[0] == 1:
        return np.zeros(1)
    s = sim.copy()
    np.fill_diagonal(s, -np.inf)
    return s.max(axis=1)


def mig_scores(
    units: np.ndarray, query: np.ndarray, *, alpha: float = 1.0, beta: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Relevance, redundancy and MIG = α·relevance − β·redundancy of each unit.

    Parameters
    ----------
    units
        (n, d) vectors (need not be unit length).
    query
        (d,) query vector.
    alpha, beta
        Weights.

    Returns
    -------
    tuple
        ``(relevance, redundancy, mig)``, each (n,); a single unit has redundancy 0.
    """
    u, q = _check_units(units, query)
    un = normalize_rows(u)
    qn = normalize_rows(q[None, :])[0]
    rel = un @ qn
    red = _max_other(un @ un.T)
    return rel, red, alpha * rel - beta * red


def largest_remainder(quotas: np.ndarray, total: int) -> np.ndarray:
    """Integers ``s`` with ``Σ s = total`` closest to ``quotas`` (Hamilton's method).

    Floors first; the ``total − Σ floor`` leftover units go to the largest fractional parts
    (ties to the earlier index).
    """
    q = np.asarray(quotas, dtype=np.float64)
    floors = np.floor(q).astype(np.int64)
    left = int(total - floors.sum())
    if left < 0 or left > q.shape[0]:
        raise ValueError(f"quotas sum to {q.sum():.6g}, not to total={total}")
    order = np.argsort(-(q - floors), kind="stable")
    floors[order[:left]] += 1
    return floors


def group_sizes(
    h: np.ndarray, query: np.ndarray, rate: int, *, alpha: float = 1.0, beta: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """Coarse stage: new sizes of the ceil(n/rate) groups (Σ = n) and each group's MIG."""
    h, q = _check_units(h, query)
    rate = check_int(rate, "rate", min_value=1)
    n = h.shape[0]
    n_groups = math.ceil(n / rate)
    if n_groups <= 1:
        return np.array([n]), np.zeros(1)
    hn = normalize_rows(h)
    rel_t = hn @ normalize_rows(q[None, :])[0]
    pad = np.full(n_groups * rate, -np.inf)
    pad[:n] = rel_t
    blocks = pad.reshape(n_groups, rate)
    rep = np.arange(n_groups) * rate + np.argmax(blocks, axis=1)
    rel = rel_t[rep]
    red = _max_other(hn[rep] @ hn[rep].T)
    mig = alpha * rel - beta * red
    return largest_remainder(n * softmax(-mig), n), mig


def spans(sizes: np.ndarray) -> list[tuple[int, int]]:
    """Contiguous ``(start, stop)`` of the non-empty groups of the given sizes."""
    stops = np.cumsum(sizes)
    starts = stops - sizes
    return [(int(a), int(b)) for a, b, s in zip(starts, stops, sizes, strict=True) if s > 0]


def merge_weights(
    h: np.ndarray, query: np.ndarray, *, alpha: float = 1.0, beta: float = 1.0
) -> np.ndarray:
    """Fine stage: softmax over the group's tokens of α·relevance − β·redundancy."""
    _, _, mig = mig_scores(h, query, alpha=alpha, beta=beta)
    return softmax(mig)


@dataclass(frozen=True)
class Compressed:
    """The result of :func:`compress`.

    Attributes
    ----------
    memory
        (m, d) memory vectors, m <= ceil(n / rate).
    sizes
        Sizes of all groups after the coarse stage (zeros included; Σ = n).
    spans
        ``(start, stop)`` token range of each memory vector.
    weights
        Merge weights of the tokens of each memory vector.
    group_mig
        MIG of each original group (coarse stage; zeros without it).
    """

    memory: np.ndarray
    sizes: np.ndarray
    spans: list[tuple[int, int]]
    weights: list[np.ndarray] = field(default_factory=list)
    group_mig: np.ndarray | None = None


def compress(
    h: np.ndarray,
    query: np.ndarray,
    rate: int,
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    coarse: bool = True,
    fine: bool = True,
) -> Compressed:
    """Compress n token vectors into at most ceil(n/rate) memory vectors (COMI).

    Parameters
    ----------
    h
        (n, d) token vectors of the context.
    query
        (d,) query vector (e.g. the mean of the query's token vectors).
    rate
        Nominal group size g, the compression rate.
    alpha, beta
        Weights of relevance and redundancy (both stages).
    coarse
        Reallocate group sizes by MIG; otherwise round(n/rate) nearly equal groups.
    fine
        Merge by MIG weights; otherwise average each group.
    """
    h, q = _check_units(h, query)
    rate = check_int(rate, "rate", min_value=1)
    alpha = check_float(alpha, "alpha")
    beta = check_float(beta, "beta")
    n = h.shape[0]
    if coarse:
        sizes, gmig = group_sizes(h, q, rate, alpha=alpha, beta=beta)
    else:
        g = max(1, round(n / rate))
        sizes = np.full(g, n // g) + (np.arange(g) < n % g)
        gmig = np.zeros(g)
    cut = spans(sizes)
    mem, ws = [], []
    for a, b in cut:
        w = (
            merge_weights(h[a:b], q, alpha=alpha, beta=beta)
            if fine
            else np.full(b - a, 1.0 / (b - a))
        )
        ws.append(w)
        mem.append(w @ h[a:b])
    keep = max(1, math.ceil(n / rate))
    return Compressed(
        memory=np.stack(mem)[:keep],
        sizes=sizes,
        spans=cut[:keep],
        weights=ws[:keep],
        group_mig=gmig,
    )


def select_units(
    units: np.ndarray,
    query: np.ndarray,
    cost: np.ndarray,
    budget: float,
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
) -> np.ndarray:
    """Greedy selection by marginal information gain under a budget.

    At each step every unit not yet kept that still fits has gain
    ``α·cos(u, q) − β·max_{kept t} cos(u, t)`` (no redundancy term while nothing is kept);
    the largest gain is kept (ties to the earlier unit) until none fits.  The gain is
    relative to the kept set, not to all other units: the static MIG would drop both copies
    of a duplicated fact.

    Returns
    -------
    numpy.ndarray
        Indices of the kept units, ascending.
    """
    u, q = _check_units(units, query)
    c = np.asarray(cost, dtype=np.float64)
    if c.shape != (u.shape[0],) or (c < 0).any() or not np.all(np.isfinite(c)):
        raise ValueError(f"cost must hold {u.shape[0]} non-negative numbers, one per unit")
    un = normalize_rows(u)
    rel = un @ normalize_rows(q[None, :])[0]
    sim = un @ un.T
    red = np.full(u.shape[0], -np.inf)
    kept: list[int] = []
    left = float(budget)
    free = np.ones(u.shape[0], dtype=bool)
    while True:
        ok = free & (c <= left)
        if not ok.any():
            break
        gain = alpha * rel - beta * (np.where(np.isfinite(red), red, 0.0) if kept else 0.0)
        gain = np.where(ok, gain, -np.inf)
        best = int(np.argmax(gain))
        kept.append(best)
        free[best] = False
        left -= c[best]
        red = np.maximum(red, sim[:, best])
    return np.array(sorted(kept), dtype=np.int64)
