"""Pure kNN estimator kernels: float arrays in, nats out (no validation, no warnings).

All distances in the joint spaces of KSG, Frenzel-Pompe and GKOV are max-norms, so the
max-norm ball of a joint space is the product of the marginal balls.  Counts ``n_x``
etc. exclude the point itself.  See ``docs/knn.md`` for the formulas and references.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import digamma, gammaln

from ._engine import (
    KDTree,
    RangeCounter,
    brute_chosen,
    knn_counts,
    kth_distance_to,
    kth_neighbours,
    shares_knn_index,
    start,
)

__all__ = [
    "log_unit_ball",
    "kozachenko_leonenko",
    "ksg",
    "ksg_local",
    "frenzel_pompe",
    "frenzel_pompe_local",
    "wkv",
    "gkov",
    "brute_counts",
]


def log_unit_ball(d: int, metric: str) -> float:
    """log volume of the unit-radius ball in R^d (max-norm: the cube [-1, 1]^d)."""
    if metric == "max":
        return d * np.log(2.0)
    return d / 2 * np.log(np.pi) - float(gammaln(d / 2 + 1))


def kozachenko_leonenko(x: np.ndarray, k: int, metric: str = "max") -> tuple[float, dict]:
    """Kozachenko-Leonenko entropy ``psi(N) - psi(k) + log V_d + d <log eps_k>`` (nats).

    ``eps_k`` is each point's distance to its k-th nearest other point.  Raises
    ``ValueError`` when a distance is zero (tied points), where the estimate is ``-inf``.
    """
    n, d = x.shape
    eps, _ = kth_neighbours(x, k, metric)
    if np.any(eps <= 0):
        raise ValueError(
            f"{int(np.sum(eps <= 0))} points have {k} or more exact duplicates, so their "
            "k-th neighbour distance is 0 and the entropy estimate is -inf; use jitter='auto'"
        )
    h = digamma(n) - digamma(k) + log_unit_ball(d, metric) + d * float(np.mean(np.log(eps)))
    return float(h), {"mean_log_eps": float(np.mean(np.log(eps)))}


def _psi_mean(counts: np.ndarray) -> float:
    return float(np.mean(digamma(counts)))


def _structures(joint: np.ndarray, *blocks: np.ndarray, head: bool = False) -> list:
    """Getters for the joint kd-tree and a :class:`RangeCounter` per block, built concurrently.

    A block without columns gets ``None`` (its counts need no structure).  ``head``: the
    first block is the first columns of ``joint`` (KSG's x in (x, y)); where
    :func:`engine.shares_knn_index` says so, its counter is then made from the joint
    search's bitset index when first asked for, instead of building a second index.
    """
    n = joint.shape[0]

    def counter(b: np.ndarray):
        return (lambda: RangeCounter(b)) if b.shape[1] else (lambda: None)

    share = head and blocks[0].shape[1] > 0
    share = share and shares_knn_index(n, joint.shape[1], blocks[0].shape[1])
    makers = [counter(b) for b in (blocks[1:] if share else blocks)]
    tree_get, *getters = start(n, lambda: KDTree(joint, metric="max"), *makers)
    if not share:
        return [tree_get, *getters]
    built: list[KDTree] = []

    def tree() -> KDTree:  # the getter of an unstarted build would build again
        if not built:
            built.append(tree_get())
        return built[0]

    return [tree, lambda: RangeCounter(blocks[0], joint=tree()), *getters]


def neighbours(
    points: np.ndarray, k: int, theiler: int = 0, tree: KDTree | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Max-norm k-th neighbour distance and the k nearest indices, excluding ``|i - j| <= theiler``.

    Rows are time-ordered samples; the Theiler window keeps temporally close (hence
    dependent) rows out of each other's neighbourhoods.  At most ``2 * theiler`` other rows
    are excluded, so the ``k + 2 * theiler`` nearest contain the k nearest allowed ones: the
    result is exact.  ``tree`` is a prebuilt :class:`KDTree` of ``points``.
    """
    tree = KDTree(points, metric="max") if tree is None else tree
    n = points.shape[0]
    if theiler == 0:
        d, idx = tree.knn_self(k, "max")
        return d[:, k - 1].copy(), idx
    m = min(k + 2 * theiler, n - 1)
    d, idx = tree.knn_self(m, "max")
    ok = np.abs(idx - np.arange(n)[:, None]) > theiler
    rank = np.cumsum(ok, axis=1)
    pos = np.argmax(rank >= k, axis=1)
    order = np.argsort(~ok, axis=1, kind="stable")[:, :k]  # first k allowed, nearest first
    return d[np.arange(n), pos], np.take_along_axis(idx, order, axis=1)


def _window_count(block: np.ndarray, radii: np.ndarray, theiler: int, strict: bool) -> np.ndarray:
    """For each row, how many rows with ``0 < |i - j| <= theiler`` lie within ``radii``."""
    n = block.shape[0]
    out = np.zeros(n, np.int64)
    for o in range(1, min(theiler, n - 1) + 1):
        d = np.abs(block[o:] - block[:-o]).max(axis=1) if block.shape[1] else np.zeros(n - o)
        for sl, r in ((slice(None, -o), radii[:-o]), (slice(o, None), radii[o:])):
            out[sl] += d < r if strict else d <= r
    return out


def _count(
    block: np.ndarray,
    radii: np.ndarray,
    theiler: int,
    strict: bool,
    counter: RangeCounter | None = None,
) -> np.ndarray:
    """Range counts in ``block`` minus the rows inside the Theiler window (exact).

    ``counter`` is a prebuilt :class:`RangeCounter` of ``block``.
    """
    if block.shape[1] == 0:  # the empty space: every other row is within any radius
        c = np.full(block.shape[0], block.shape[0] - 1, np.int64)
    else:
        c = (counter or RangeCounter(block)).count(radii, strict=strict)
    return c - _window_count(block, radii, theiler, strict) if theiler else c


def _counts(*jobs: tuple, theiler: int, strict: bool) -> list[np.ndarray]:
    """:func:`_count` for each ``(block, radii, counter getter)``, run concurrently (from
    ``PARALLEL_MIN`` points): a grid count lays its grid out on one thread before counting
    on all of them, so one block's layout overlaps the other's count."""
    getters = start(
        len(jobs[0][1]),
        *(lambda b=b, r=r, c=c: _count(b, r, theiler, strict, c()) for b, r, c in jobs),
    )
    return [g() for g in getters]


def brute_counts(
    blocks: list[np.ndarray], spaces: list[list[int]], k: int, theiler: int = 0, variant: int = 1
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The joint k-th distances and the counts in each space by the engine's brute force
    (:func:`engine.knn_counts`), where :func:`engine.brute_chosen` picks it.

    ``spaces``: lists of indices into ``blocks``.  Variables without columns leave the
    joint space; a space without columns gets the counts of :func:`_count` on an empty
    block, as on the tree path.  ``variant`` 1: strict counts inside ``eps``; 2: KSG-2's
    ``<=`` the space's largest distance among the k neighbours.
    """
    n = blocks[0].shape[0]
    live = [v for v, b in enumerate(blocks) if b.shape[1]]
    renum = {v: i for i, v in enumerate(live)}
    inner = [[renum[v] for v in sp if v in renum] for sp in spaces]
    eps, cnt = knn_counts(
        [blocks[v] for v in live], [sp for sp in inner if sp], k, theiler=theiler, ksg2=variant == 2
    )
    rows = iter(cnt)
    empty = np.empty((n, 0))
    radius = eps if variant == 1 else np.zeros(n)
    return eps, [next(rows) if sp else _count(empty, radius, theiler, variant == 1) for sp in inner]


def _joint_counts(
    blocks: list[np.ndarray], spaces: list[list[int]], k: int, theiler: int, variant: int
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The joint k-th neighbour distances and the counts of KSG (``variant`` 1 or 2) or
    Frenzel-Pompe (1) in each space (lists of indices into ``blocks``): by brute force
    where the engine chooses it, else with the joint kd-tree (or bitset index) and a range
    counter per space; both give the same numbers."""
    n = blocks[0].shape[0]
    if brute_chosen(n, sum(b.shape[1] for b in blocks)):
        return brute_counts(blocks, spaces, k, theiler, variant)
    joint = np.hstack(blocks)
    margs = [np.hstack([blocks[v] for v in sp]) if sp else np.empty((n, 0)) for sp in spaces]
    tree, *counters = _structures(joint, *margs, head=spaces[0] == [0])
    eps, nbr = neighbours(joint, k, theiler, tree())
    # free the joint tree before the marginal counts (peak memory), unless the first
    # space's counts use its bitset index (then its counter holds it: one index, not two)
    del tree
    radii = [eps] * len(margs) if variant == 1 else [_block_radius(m, nbr) for m in margs]
    jobs = zip(margs, radii, counters, strict=True)
    return eps, _counts(*jobs, theiler=theiler, strict=variant == 1)


def _ksg_counts(
    x: np.ndarray, y: np.ndarray, k: int, variant: int, theiler: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """KSG's marginal counts ``n_x``, ``n_y`` and, with a Theiler window, each point's
    count of visible rows (``None`` without one: every point sees N - 1)."""
    eps, (nx, ny) = _joint_counts([x, y], [[0], [1]], k, theiler, variant)
    visible = _count(np.empty((x.shape[0], 0)), eps, theiler, True) if theiler else None
    return nx, ny, visible


def ksg(
    x: np.ndarray, y: np.ndarray, k: int, variant: int = 1, theiler: int = 0
) -> tuple[float, dict]:
    """Kraskov-Stoegbauer-Grassberger MI (2004), algorithm 1 or 2 (nats).

    * KSG-1: ``psi(k) + psi(N) - <psi(n_x + 1) + psi(n_y + 1)>`` with ``n_x`` the number
      of other points strictly closer than the k-th joint neighbour distance ``eps``.
    * KSG-2: ``psi(k) - 1/k + psi(N) - <psi(n_x) + psi(n_y)>`` with ``n_x`` the number of
      other points within ``eps_x`` (inclusive), the largest x-distance among the k
      joint neighbours.

    With a Theiler window ``w > 0``, rows with ``|i - j| <= w`` are excluded from every
    neighbour search and count, and ``psi(N)`` becomes the mean of ``psi`` of the number of
    rows each point may see (plus one).
    """
    n = x.shape[0]
    nx, ny, visible = _ksg_counts(x, y, k, variant, theiler)
    psi_n = _psi_mean(visible + 1) if theiler else float(digamma(n))
    if variant == 1:
        val = digamma(k) + psi_n - _psi_mean(nx + 1) - _psi_mean(ny + 1)
    else:
        val = digamma(k) - 1.0 / k + psi_n - _psi_mean(nx) - _psi_mean(ny)
    diag = {"mean_n_x": float(np.mean(nx)), "mean_n_y": float(np.mean(ny))}
    return float(val), diag


def ksg_local(
    x: np.ndarray, y: np.ndarray, k: int, variant: int = 1, theiler: int = 0
) -> tuple[np.ndarray, dict]:
    """Local KSG values, one per point, whose mean is :func:`ksg` (nats).

    KSG-1: ``psi(k) + psi(N) - psi(n_x + 1) - psi(n_y + 1)``; KSG-2:
    ``psi(k) - 1/k + psi(N) - psi(n_x) - psi(n_y)`` (Kraskov et al. 2004, eqs. 8-9 before
    averaging; Lizier 2014).  Same searches and counts as :func:`ksg`.
    """
    n = x.shape[0]
    nx, ny, visible = _ksg_counts(x, y, k, variant, theiler)
    psi_n = digamma(visible + 1) if theiler else digamma(n)
    if variant == 1:
        vals = digamma(k) + psi_n - digamma(nx + 1) - digamma(ny + 1)
    else:
        vals = digamma(k) - 1.0 / k + psi_n - digamma(nx) - digamma(ny)
    vals = np.broadcast_to(vals, (n,)).astype(np.float64)
    return vals, {"mean_n_x": float(np.mean(nx)), "mean_n_y": float(np.mean(ny))}


def _block_radius(block: np.ndarray, nbr: np.ndarray) -> np.ndarray:
    """Largest max-norm distance from each point to its listed neighbours within ``block``."""
    out = np.zeros(block.shape[0])
    for j in range(nbr.shape[1]):  # k is small: O(n d) memory per step
        np.maximum(out, np.abs(block[nbr[:, j]] - block).max(axis=1), out=out)
    return out


def _fp_counts(
    x: np.ndarray, y: np.ndarray, z: np.ndarray, k: int, theiler: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Frenzel-Pompe's counts ``n_xz``, ``n_yz``, ``n_z`` inside the joint k-th distance."""
    _, (nxz, nyz, nz) = _joint_counts([x, y, z], [[0, 2], [1, 2], [2]], k, theiler, 1)
    return nxz, nyz, nz


def frenzel_pompe(
    x: np.ndarray, y: np.ndarray, z: np.ndarray, k: int, theiler: int = 0
) -> tuple[float, dict]:
    """Frenzel-Pompe (2007) / KSG-1-style conditional MI I(X;Y|Z) (nats).

    ``psi(k) - <psi(n_xz + 1) + psi(n_yz + 1) - psi(n_z + 1)>``, counts strictly inside
    the k-th neighbour distance in the joint (x, y, z) space.  With no columns in ``z``
    it is exactly KSG-1 (``n_z + 1 = N``).  ``theiler`` as in :func:`ksg`.
    """
    nxz, nyz, nz = _fp_counts(x, y, z, k, theiler)
    psi_z = _psi_mean(nz + 1)
    val = digamma(k) - _psi_mean(nxz + 1) - _psi_mean(nyz + 1) + psi_z
    return float(val), {"mean_n_xz": float(np.mean(nxz)), "mean_n_yz": float(np.mean(nyz))}


def frenzel_pompe_local(
    x: np.ndarray, y: np.ndarray, z: np.ndarray, k: int, theiler: int = 0
) -> tuple[np.ndarray, dict]:
    """Local Frenzel-Pompe values ``psi(k) - psi(n_xz + 1) - psi(n_yz + 1) + psi(n_z + 1)``,
    one per point, whose mean is :func:`frenzel_pompe` (nats)."""
    nxz, nyz, nz = _fp_counts(x, y, z, k, theiler)
    vals = digamma(k) - digamma(nxz + 1) - digamma(nyz + 1) + digamma(nz + 1)
    return vals, {"mean_n_xz": float(np.mean(nxz)), "mean_n_yz": float(np.mean(nyz))}


def wkv(p: np.ndarray, q: np.ndarray, k: int, metric: str = "euclidean") -> tuple[float, dict]:
    """Wang-Kulkarni-Verdu (2009) kNN estimate of D(P||Q) (nats).

    ``d <log(nu_k / rho_k)> + log(m / (n - 1))`` where ``rho_k`` is the k-th neighbour
    distance of each P point among the other P points and ``nu_k`` its k-th neighbour
    distance among the m points of Q.
    """
    n, d = p.shape
    m = q.shape[0]
    rho, _ = kth_neighbours(p, k, metric)
    nu = kth_distance_to(q, p, k, metric)
    zero = int(np.sum(rho <= 0)) + int(np.sum(nu <= 0))
    if zero:
        raise ValueError(
            f"{zero} k-th neighbour distances are 0 (duplicated points), so the KL estimate "
            "is undefined; use jitter='auto'"
        )
    val = d * float(np.mean(np.log(nu) - np.log(rho))) + np.log(m / (n - 1))
    return float(val), {"overlap": _overlap(rho, nu, n, m, k)}


def _overlap(rho: np.ndarray, nu: np.ndarray, n: int, m: int, k: int) -> float:
    """How much the samples mix, relative to P = Q (1 when they mix as if P = Q, 0 when no
    P point has k Q points nearer than its k-th P neighbour).

    Under P = Q the 2k − 1 nearest pooled neighbours of a P point are Q points with
    probability π = m / (n − 1 + m) each, so ``nu_k < rho_k`` (at least k of them are Q)
    has probability ``P(Binomial(2k − 1, π) >= k)``.
    """
    pi = m / (n - 1 + m)
    expected = sum(
        math.comb(2 * k - 1, j) * pi**j * (1 - pi) ** (2 * k - 1 - j) for j in range(k, 2 * k)
    )
    return float(np.mean(nu < rho)) / expected


def gkov(x: np.ndarray, y: np.ndarray, z: np.ndarray | None, k: int) -> tuple[float, dict]:
    """Gao-Kannan-Oh-Viswanath (2017) MI / CMI for discrete-continuous mixtures (nats).

    For each point, ``rho`` is the k-th neighbour distance in the joint space.  If
    ``rho > 0``, ``k~ = k`` and the marginal counts are strictly inside ``rho``; if
    ``rho = 0`` (a discrete atom), ``k~`` and the marginal counts are the numbers of exact
    ties.  Counts include the point itself, as in the authors' code.

    * MI: ``< psi(k~) + log N - psi(n_x) - psi(n_y) >``
    * CMI: ``< psi(k~) - psi(n_xz) - psi(n_yz) + psi(n_z) >``
    """
    n = x.shape[0]
    blocks = [x, y] if z is None else [x, y, z]
    joint = np.hstack(blocks)
    marginals = [x, y] if z is None else [np.hstack([x, z]), np.hstack([y, z]), z]
    tree, *counters = _structures(joint, *marginals)
    rho, _ = neighbours(joint, k, 0, tree())
    del tree
    atom = rho <= 0
    radius = np.where(atom, 0.0, np.nextafter(rho, 0))
    kt = np.full(n, float(k))
    if atom.any():
        kt[atom] = _tie_counts(joint, atom)

    psi = [
        _psi_mean(_count(b, radius, 0, False, c()) + 1)
        for b, c in zip(marginals, counters, strict=True)
    ]
    if z is None:
        val = np.mean(digamma(kt)) + np.log(n) - psi[0] - psi[1]
    else:
        val = np.mean(digamma(kt)) - psi[0] - psi[1] + psi[2]
    return float(val), {"atom_fraction": float(np.mean(atom))}


def _tie_counts(joint: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Number of rows identical to each selected row (itself included)."""
    _, inv, cnt = np.unique(joint, axis=0, return_inverse=True, return_counts=True)
    return cnt[inv.reshape(-1)][rows].astype(float)
