"""The home of permutation nulls: draws, p-values and the max-statistic.

Every permutation test in infometer takes its null draws and its p-values from here, so
that one formula and one spelling serve them all (``tests/stats/test_nulls_home.py``
walks the source for stray copies).

Draws (row orders: row ``i`` of the null data takes row ``order[i]``)
    :func:`permutation` (exchangeable rows), :func:`block_permutation` (serial data:
    blocks of ``block`` consecutive rows shuffled, autocorrelation kept inside blocks),
    :func:`circular_shift` (serial data: one rotation, all autocorrelation kept except
    across the seam), :func:`strata_permutation` (within the strata of a discrete
    condition), :func:`local_permutation` (Runge 2018: within neighbourhoods of a
    continuous condition), :func:`permutation_table` (B orders at once) and
    :func:`independent_orders` (one order per variable: mutual independence).
p-values
    :func:`p_value` / :func:`p_values` / :func:`p_from_counts`:
    ``(1 + #{null at least as extreme}) / (1 + B)`` (Phipson & Smyth 2010), never 0,
    smallest reachable 1/(B + 1); valid (P(p ≤ u) ≤ u under the null) because the
    observed data set is one more exchangeable draw.
Max-statistic
    :func:`maxstat_p_values` (single step) and :func:`stepdown_maxstat` (Westfall & Young
    step-down): family-wise adjusted p-values from nulls drawn with the same
    permutations for every test.
Loop
    :func:`permutation_null`: the null of any estimator call, seeded per draw.

Seeds: :func:`make_rng` makes the null's generator through :mod:`infometer.core.seeding`,
the one home of seeds.

References
----------
* Phipson & Smyth (2010), Stat. Appl. Genet. Mol. Biol. 9:39.
* Westfall & Young (1993), *Resampling-Based Multiple Testing*.
* Runge (2018), AISTATS (local conditional permutation).
* Künsch (1989), Ann. Stat. 17:1217 (blocks); Quiroga et al. (2002), Phys. Rev. E 65:041903
  (circularly shifted surrogates).
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np

from infometer.core.data import check_int
from infometer.core.progress import progress_bar
from infometer.core.seeding import Seed, as_generator, derive, resolve_seed
from infometer.core.validation import check_memory

__all__ = [
    "MAX_PERMUTATIONS",
    "make_rng",
    "check_n_permutations",
    "permutation",
    "block_permutation",
    "circular_shift",
    "strata_permutation",
    "local_permutation",
    "conditional_sampler",
    "z_neighbors",
    "permutation_table",
    "independent_orders",
    "orient",
    "p_value",
    "p_values",
    "p_from_counts",
    "maxstat_p_values",
    "stepdown_maxstat",
    "permutation_null",
]

#: Largest ``n_permutations`` accepted: p-values resolve to 1e-7, and the null values
#: alone take 80 MB (larger values were a MemoryError from numpy, not an error of ours).
MAX_PERMUTATIONS = 10_000_000

ALTERNATIVES = ("greater", "less", "two-sided")


# ------------------------------------------------------------------------- seeds
def make_rng(seed: Seed, *stream: int) -> np.random.Generator:
    """The generator of a null, made by the seeds' home :mod:`infometer.core.seeding`:
    ``seed`` itself when it is a ``numpy.random.Generator`` and no stream is named, else
    the keyed stream :func:`~infometer.core.seeding.derive` of the call's root
    (:func:`~infometer.core.seeding.resolve_seed`).  Stream numbers (e.g. a target index)
    give independent, reproducible streams for parts of one analysis.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    *stream
        Ints >= 0 naming the part of the analysis.

    ``seed`` is the call's seed. An int >= 0 (the same int gives the same numbers), a
    numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
    system).

    Examples
    --------
    >>> a = make_rng(3, 1).permutation(5); b = make_rng(3, 1).permutation(5)
    >>> bool((a == b).all())
    True
    """
    if not stream:
        return as_generator(seed)
    return derive(resolve_seed(seed), *stream)


def check_n_permutations(value: Any, name: str = "n_permutations", min_value: int = 1) -> int:
    """``value`` as a count of permuted data sets in ``[min_value, MAX_PERMUTATIONS]``."""
    return check_int(value, name, min_value=min_value, max_value=MAX_PERMUTATIONS)


# ------------------------------------------------------------------------- draws
def permutation(rng: np.random.Generator, n: int) -> np.ndarray:
    """A uniformly random permutation of ``0..n-1``."""
    return rng.permutation(n)


def block_permutation(rng: np.random.Generator, n: int, block: int) -> np.ndarray:
    """Row order that keeps blocks of ``block`` consecutive rows and shuffles the blocks.

    Parameters
    ----------
    rng
        Random generator.
    n
        Number of rows.
    block
        Block length (the last block may be shorter).

    Returns
    -------
    numpy.ndarray
        A permutation of ``0..n-1``.

    Examples
    --------
    >>> o = block_permutation(np.random.default_rng(0), 7, 3)
    >>> sorted(o.tolist()) == list(range(7))
    True
    """
    starts = np.arange(0, n, block)
    order = rng.permutation(starts.size)
    return np.concatenate([np.arange(s, min(s + block, n)) for s in starts[order]])


def circular_shift(rng: np.random.Generator, n: int, min_shift: int = 1) -> np.ndarray:
    """Row order of a circular shift by a uniform ``s`` in ``[min_shift, n - min_shift]``.

    The serial structure of the shifted series is kept everywhere but at the seam; a
    shift of at least the dependence length makes it independent of the other series.

    Examples
    --------
    >>> o = circular_shift(np.random.default_rng(0), 5, 2)
    >>> sorted(o.tolist()) == list(range(5)) and int((o[1] - o[0]) % 5)
    1
    """
    if not 1 <= min_shift <= n - min_shift:
        raise ValueError(f"min_shift={min_shift} leaves no shift of {n} rows")
    s = int(rng.integers(min_shift, n - min_shift + 1))
    return (np.arange(n) + s) % n


def strata_permutation(rng: np.random.Generator, codes: np.ndarray) -> np.ndarray:
    """A permutation of the rows within each stratum of ``codes`` (a discrete condition)."""
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    bounds = np.flatnonzero(np.diff(sorted_codes)) + 1
    perm = np.empty_like(order)
    for grp in np.split(order, bounds):
        perm[grp] = rng.permutation(grp)
    return perm


def _local_perm(neighbors: np.ndarray, order: np.ndarray, shuffles: np.ndarray) -> np.ndarray:
    n, k = neighbors.shape
    used = np.zeros(n, dtype=np.bool_)
    perm = np.empty(n, dtype=np.int64)
    for t in range(n):
        i = order[t]
        done = False
        for s in range(k):
            j = neighbors[i, shuffles[i, s]]
            if not used[j]:
                perm[i] = j
                used[j] = True
                done = True
                break
        if not done:
            perm[i] = neighbors[i, shuffles[i, 0]]
    return perm


_COMPILED: dict = {}


def _jit(f):
    """``numba.njit(cache=True)(f)``, made on first use (``import infometer`` skips numba)."""
    if f not in _COMPILED:
        from infometer.core._jit import nb

        _COMPILED[f] = nb.njit(cache=True)(f)
    return _COMPILED[f]


def local_permutation(rng: np.random.Generator, neighbors: np.ndarray) -> np.ndarray:
    """One local conditional permutation (Runge 2018, Algorithm 1).

    ``neighbors[i]`` holds the indices of the k nearest rows to row i in Z (itself
    included).  Rows are visited in random order; each takes a random unused row among
    its neighbours, or a random neighbour when all are used (a few repeats).

    Parameters
    ----------
    rng
        Random generator.
    neighbors
        (n, k) int array of neighbour indices in Z-space.

    Returns
    -------
    numpy.ndarray
        Row ``i`` of the permuted data takes x from row ``perm[i]``.
    """
    n, k = neighbors.shape
    order = rng.permutation(n)
    shuffles = np.argsort(rng.random((n, k)), axis=1)
    return _jit(_local_perm)(neighbors, order, shuffles)


def z_neighbors(z: Any, k: int) -> np.ndarray:
    """(n, k) indices of each row's k nearest rows of the variable ``z`` (max-norm on
    rank-standardised columns, the row itself included): the neighbourhoods of
    :func:`local_permutation`."""
    from scipy.spatial import cKDTree
    from scipy.stats import rankdata

    zr = rankdata(z.values, axis=0) / z.n
    _, idx = cKDTree(zr).query(zr, k=k, p=np.inf)
    return np.asarray(idx, dtype=np.int64)


def conditional_sampler(z: Any, n_neighbors: int = 5) -> tuple[Any, str]:
    """``(draw, scheme)``: ``draw(rng)`` is one row order that keeps the dependence on the
    condition ``z`` (a ``Variable``): a permutation within the strata of a discrete ``z``,
    a local conditional permutation within ``n_neighbors``-neighbourhoods of a continuous
    one; ``scheme`` says which, in words."""
    if z.is_discrete:
        codes = z.codes
        return (lambda rng: strata_permutation(rng, codes)), "permutation within strata of z"
    k = min(int(n_neighbors), z.n)
    nb = z_neighbors(z, k)
    return (lambda rng: local_permutation(rng, nb)), f"local conditional permutation, k={k}"


def permutation_table(rng: np.random.Generator, n: int, count: int) -> np.ndarray:
    """(count, n): ``count`` independent random permutations of ``range(n)``, the memory
    checked before it is allocated."""
    check_memory(
        8.0 * count * n,
        what=f"table of {count} permutations of {n} rows",
        name="n_permutations",
        override="pass a smaller n_permutations",
    )
    # shuffled in place in C order: the same permutations as permuting a broadcast arange
    # (which returns a column-major copy), but each permutation's row contiguous, so that
    # gathering rows by one and inverting the table run at memory speed
    table = np.tile(np.arange(n), (count, 1))
    rng.permuted(table, axis=1, out=table)
    return table


def independent_orders(
    rng: np.random.Generator, n: int, k: int, block: int | None = None
) -> list[np.ndarray]:
    """``k`` independent row orders of ``n`` rows, one per variable (the null of mutual
    independence: every marginal kept, every dependence destroyed).

    Examples
    --------
    >>> o = independent_orders(np.random.default_rng(0), 6, 2, block=3)
    >>> [sorted(p.tolist()) == list(range(6)) for p in o]
    [True, True]
    """
    if block is None:
        return [rng.permutation(n) for _ in range(k)]
    return [block_permutation(rng, n, block) for _ in range(k)]


# ---------------------------------------------------------------------- p-values
def p_from_counts(hits: Any, n_permutations: int) -> Any:
    """``(1 + hits) / (1 + B)``: the permutation p-value from the count of null values at
    least as extreme as the observed one (array or scalar in, the same out)."""
    return (1.0 + np.asarray(hits, dtype=np.float64)) / (1.0 + n_permutations)


def orient(values: Any, alternative: str) -> Any:
    """``values`` oriented so that larger is more extreme: as is (``"greater"``), negated
    (``"less"``), absolute (``"two-sided"``)."""
    if alternative == "greater":
        return values
    if alternative == "less":
        return np.negative(values)
    return np.abs(values)


def p_value(observed: float, null: np.ndarray, alternative: str = "greater") -> float:
    """``(1 + #{null at least as extreme as observed}) / (1 + B)``.

    "At least as extreme": ``≥`` (``"greater"``), ``≤`` (``"less"``), ``|null| ≥
    |observed|`` (``"two-sided"``).

    Examples
    --------
    >>> p_value(1.0, np.array([0.1, 1.0, 2.0]))
    0.75
    >>> p_value(-1.0, np.array([0.1, -0.2, 1.5]), "two-sided")
    0.5
    """
    null = np.asarray(null, dtype=np.float64)
    hits = np.count_nonzero(orient(null, alternative) >= orient(observed, alternative))
    return float(p_from_counts(hits, null.size))


def p_values(observed: np.ndarray, null: np.ndarray, alternative: str = "greater") -> np.ndarray:
    """Per-test p-values: ``observed`` (m,) against the columns of ``null`` (B, m), or
    against one shared 1-D null of B values.

    Examples
    --------
    >>> p_values(np.array([0.5, 3.0]), np.array([0.0, 1.0, 2.0]))
    array([0.75, 0.25])
    """
    obs = orient(np.asarray(observed, dtype=np.float64), alternative)
    nul = orient(np.asarray(null, dtype=np.float64), alternative)
    if nul.ndim == 1:
        srt = np.sort(nul)
        hits = srt.size - np.searchsorted(srt, obs, side="left")
        return p_from_counts(hits, srt.size)
    return p_from_counts((nul >= obs[None, :]).sum(axis=0), nul.shape[0])


def maxstat_p_values(observed: np.ndarray, null: np.ndarray) -> np.ndarray:
    """Single-step max-statistic adjusted p-values (Westfall & Young): test ``i`` against
    the per-draw maximum over all tests, ``null`` (B, m) drawn with the same permutations
    for every test (statistics oriented so that larger is more extreme).  Controls the
    family-wise error in the strong sense under subset pivotality.

    Examples
    --------
    >>> maxstat_p_values(np.array([3.0, 0.5]), np.array([[1.0, 0.2], [0.1, 2.0]]))
    array([0.33333333, 1.        ])
    """
    mx = np.asarray(null, dtype=np.float64).max(axis=1)
    obs = np.asarray(observed, dtype=np.float64)
    return p_from_counts((mx[None, :] >= obs[:, None]).sum(axis=1), mx.size)


def stepdown_maxstat(observed: np.ndarray, null: np.ndarray) -> np.ndarray:
    """Step-down max-statistic adjusted p-values (Westfall & Young 1993, Algorithm 2.8):
    the largest statistic against the maximum over all tests, the next against the
    maximum over the rest, ..., made monotone.  ``null`` is (B, m) from the same
    permutations for every test.  Never larger than :func:`maxstat_p_values`.

    Examples
    --------
    >>> stepdown_maxstat(np.array([3.0, 0.5]), np.array([[1.0, 0.2], [0.1, 2.0]]))
    array([0.33333333, 0.66666667])
    """
    obs = np.asarray(observed, dtype=np.float64)
    nul = np.asarray(null, dtype=np.float64)
    order = np.argsort(-obs, kind="stable")
    p = np.empty(obs.size)
    prev = 0.0
    for rank, i in enumerate(order):
        mx = nul[:, order[rank:]].max(axis=1)
        prev = max(prev, float(p_from_counts(np.count_nonzero(mx >= obs[i]), mx.size)))
        p[i] = prev
    return p


# -------------------------------------------------------------------------- loop
def permutation_null(
    one: Any,
    n_permutations: int,
    run_params: dict[str, Any],
    seed: Seed,
    desc: str,
    progress: bool | None,
    what: str = "value",
) -> np.ndarray:
    """The null distribution ``[one(b, params) for b in range(B)]`` of a permutation test.

    The shared loop of :func:`infometer.independence_test` and
    :func:`infometer.multivariate_test`: permuted data set ``b`` runs with
    ``seed + 1 + b`` for an estimator that takes a seed (so the null does not depend on the
    order of evaluation), warnings of the permuted runs are silenced, a progress bar starts
    after the first (timed) draw, and a non-finite null value is an error.

    Parameters
    ----------
    one
        ``one(b, run_params)``: the statistic on permuted data set ``b``.
    n_permutations
        Number of permuted data sets.
    run_params
        The estimator's parameters (``"seed"`` in it is set per draw).
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    desc, progress
        The progress bar's label and switch.
    what
        What a non-finite value is called in the error.
    """
    seed = resolve_seed(seed)
    null = np.empty(n_permutations)
    bar = None
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for b in range(n_permutations):
            if "seed" in run_params:
                run_params["seed"] = seed + 1 + b
            null[b] = one(b, run_params)
            if b == 0 and progress is not False:
                bar = progress_bar(
                    total=n_permutations,
                    initial=1,
                    desc=desc,
                    progress=progress,
                    expected_seconds=(time.perf_counter() - t0) * n_permutations,
                )
            elif bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    bad = ~np.isfinite(null)
    if bad.any():
        raise ValueError(
            f"the estimator returned a non-finite {what} on {int(bad.sum())} permuted data "
            "sets; the permutation null is undefined"
        )
    return null
