"""Permutation tests of independence (MI) and conditional independence (CMI).

* X ⟂ Y: the rows of x are permuted (all of them, or whole blocks of ``block`` rows
  for time series, which keeps the autocorrelation inside each block).
* X ⟂ Y | Z, Z discrete: x is permuted within each stratum of Z (an exact
  conditional permutation).
* X ⟂ Y | Z, Z continuous or mixed: local conditional permutation (Runge 2018): each
  row takes the x of one of the ``n_neighbors`` nearest rows in Z (max-norm on
  rank-standardised columns), drawn so that rows are reused as little as possible.
  This keeps the X–Z dependence that a plain permutation would destroy, so the null
  is right even when Z strongly drives both X and Y.

The p-value is ``(1 + #{null ≥ observed}) / (1 + B)`` (Phipson & Smyth 2010), never 0.

References
----------
* Runge (2018), AISTATS, "Conditional independence testing based on a nearest-neighbor
  estimator of conditional mutual information".
* Phipson & Smyth (2010), Stat. Appl. Genet. Mol. Biol. 9:39.
* Benjamini & Hochberg (1995), JRSS B 57:289; Westfall & Young (1993), *Resampling-Based
  Multiple Testing* (max-statistic); Holm (1979), Scand. J. Stat. 6:65.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core.data import Variable, as_variables, check_choice, check_float, check_int
from infometer.core.estimate import Estimate, _fmt, unit_factor
from infometer.core.progress import progress_bar

__all__ = [
    "IndependenceTest",
    "MultipleTests",
    "independence_test",
    "multipletests",
    "local_permutation",
    "block_permutation",
]


@dataclass(frozen=True, eq=False)
class IndependenceTest:
    """Result of :func:`independence_test`.

    Attributes
    ----------
    statistic
        The MI / CMI estimate on the data (an :class:`Estimate`).
    p_value
        ``(1 + #{null ≥ statistic}) / (1 + n_permutations)``.
    n_permutations
        Number of permuted data sets B.
    scheme
        How the null data were made (e.g. ``"local conditional permutation, k=5"``).
    null
        The statistic on each permuted data set, in ``statistic.unit``.
    """

    statistic: Estimate
    p_value: float
    n_permutations: int
    scheme: str
    null: np.ndarray = field(repr=False)

    @property
    def method(self) -> str:
        """Estimator that computed the statistic."""
        return self.statistic.method

    @property
    def null_summary(self) -> dict[str, float]:
        """Mean, sd and upper quantiles of the null distribution (statistic's unit)."""
        q = np.quantile(self.null, [0.5, 0.95, 0.99])
        return {
            "mean": float(np.mean(self.null)),
            "sd": float(np.std(self.null, ddof=1)),
            "median": float(q[0]),
            "q95": float(q[1]),
            "q99": float(q[2]),
        }

    def rejects(self, alpha: float = 0.05) -> bool:
        """Whether independence is rejected at level ``alpha``."""
        return self.p_value <= check_float(alpha, "alpha", low=0.0, high=1.0)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary (the null values are summarised, not listed)."""
        return {
            "statistic": self.statistic.to_dict(),
            "p_value": self.p_value,
            "n_permutations": self.n_permutations,
            "scheme": self.scheme,
            "null_summary": self.null_summary,
        }

    def __repr__(self) -> str:
        s = self.statistic
        q = "I(x;y|z)" if s.quantity == "cond_mutual_info" else "I(x;y)"
        ns = self.null_summary
        return (
            f"IndependenceTest({q} = {_fmt(s.value)} {s.unit} [{s.method}, n={s.n}], "
            f"p = {self.p_value:.4g}; {self.n_permutations} × {self.scheme}; null mean "
            f"{_fmt(ns['mean'])} ± {_fmt(ns['sd'])}, 95% quantile {_fmt(ns['q95'])})"
        )

    __str__ = __repr__


#: Largest ``n_permutations`` accepted: p-values resolve to 1e-7, and the null values
#: alone take 80 MB (larger values were a MemoryError from numpy, not an error of ours).
MAX_PERMUTATIONS = 10_000_000


# ------------------------------------------------------------------ permutations
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
    """
    starts = np.arange(0, n, block)
    order = rng.permutation(starts.size)
    return np.concatenate([np.arange(s, min(s + block, n)) for s in starts[order]])


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
        from infometer.core.jit import nb

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


def _z_neighbors(z: Variable, k: int) -> np.ndarray:
    from scipy.spatial import cKDTree
    from scipy.stats import rankdata

    zr = rankdata(z.values, axis=0) / z.n
    _, idx = cKDTree(zr).query(zr, k=k, p=np.inf)
    return np.asarray(idx, dtype=np.int64)


def _strata_permutation(rng: np.random.Generator, codes: np.ndarray) -> np.ndarray:
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    bounds = np.flatnonzero(np.diff(sorted_codes)) + 1
    perm = np.empty_like(order)
    for grp in np.split(order, bounds):
        perm[grp] = rng.permutation(grp)
    return perm


# ------------------------------------------------------------------------ test
def permutation_null(
    one: Any,
    n_permutations: int,
    run_params: dict[str, Any],
    seed: int | None,
    desc: str,
    progress: bool | None,
    what: str = "value",
) -> np.ndarray:
    """The null distribution ``[one(b, params) for b in range(B)]`` of a permutation test.

    The shared loop of :func:`independence_test` and
    :func:`infometer.measures.multivariate.multivariate_test`: permuted data set ``b`` runs with
    ``seed + 1 + b`` for an estimator that takes a seed (so the null does not depend on the
    order of evaluation), warnings of the permuted runs are silenced, a progress bar starts
    after the first (timed) draw, and a non-finite null value is an error.
    """
    null = np.empty(n_permutations)
    bar = None
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for b in range(n_permutations):
            if "seed" in run_params:
                run_params["seed"] = None if seed is None else int(seed) + 1 + b
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


def independence_test(
    x: Any,
    y: Any,
    z: Any = None,
    *,
    method: str = "auto",
    n_permutations: int = 199,
    seed: int | None = 0,
    unit: str = "nats",
    discrete: bool | None = None,
    block: int | None = None,
    n_neighbors: int = 5,
    progress: bool | None = None,
    **params: Any,
) -> IndependenceTest:
    """Permutation test of X ⟂ Y (MI) or X ⟂ Y | Z (CMI) with any registered estimator.

    Parameters
    ----------
    x, y, z
        Paired samples; ``z`` (optional) is conditioned on.
    method
        MI / CMI estimator (``"auto"`` picks as :func:`infometer.mutual_info` does).
    n_permutations
        Number of permuted data sets B; the smallest reachable p-value is 1/(B+1).
    seed
        Seed of the permutations (and of the estimator, if it is random).  The same seed
        and n give the same permutations of x, which :func:`multipletests`'s
        ``"maxstat"`` needs for exact family-wise control.
    unit
        Unit of the statistic and the null values.
    discrete
        As for :func:`infometer.mutual_info`.
    block
        Time series: permute blocks of ``block`` consecutive rows of x instead of single
        rows (unconditional test only).
    n_neighbors
        Size of the Z-neighbourhoods of the local conditional permutation (Runge 2018
        suggests 5–10; small values keep X–Z dependence best).
    progress
        Show a progress bar; ``None`` shows one when the run is expected to take over
        5 seconds and stderr is a terminal.
    **params
        The estimator's own parameters.

    Returns
    -------
    IndependenceTest
    """
    n_permutations = check_int(
        n_permutations, "n_permutations", min_value=1, max_value=MAX_PERMUTATIONS
    )
    n_neighbors = check_int(n_neighbors, "n_neighbors", min_value=2)
    if block is not None:
        block = check_int(block, "block", min_value=1)
        if z is not None:
            raise ValueError(
                "block permutation is for the unconditional test; pass z=None or block=None"
            )
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"progress must be True, False or None, got {progress!r}")
    from infometer.core.api import run

    data = {"x": x, "y": y} if z is None else {"x": x, "y": y, "z": z}
    variables = as_variables(data, discrete=discrete)
    quantity = "mutual_info" if z is None else "cond_mutual_info"
    stat = run(quantity, variables, method=method, unit="nats", seed=seed, params=params)
    spec = registry.get(quantity, stat.method)
    run_params = {p: v for p, v in stat.params.items() if p in spec.params}
    xv = variables["x"]
    n = xv.n
    rng = np.random.default_rng(seed)

    if z is None:
        scheme = "permutation" if block is None else f"block permutation, block={block}"

        def draw() -> np.ndarray:
            return rng.permutation(n) if block is None else block_permutation(rng, n, block)
    elif variables["z"].is_discrete:
        codes = variables["z"].codes
        scheme = "permutation within strata of z"

        def draw() -> np.ndarray:
            return _strata_permutation(rng, codes)
    else:
        k = min(n_neighbors, n)
        neighbors = _z_neighbors(variables["z"], k)
        scheme = f"local conditional permutation, k={k}"

        def draw() -> np.ndarray:
            return local_permutation(rng, neighbors)

    rest = [v for name, v in variables.items() if name != "x"]

    def one(b: int, params: dict[str, Any]) -> float:
        return spec.func(xv.select(draw()), *rest, **params).value

    null = permutation_null(one, n_permutations, run_params, seed, "permutations", progress)
    p = (1.0 + np.count_nonzero(null >= stat.value)) / (1.0 + n_permutations)
    f = unit_factor("nats", stat.to(unit).unit)
    return IndependenceTest(
        statistic=stat.to(unit),
        p_value=float(p),
        n_permutations=n_permutations,
        scheme=scheme,
        null=null * f,
    )


# ----------------------------------------------------------- multiple testing
@dataclass(frozen=True)
class MultipleTests:
    """Result of :func:`multipletests`: adjusted p-values and rejections at ``alpha``."""

    p_adjusted: np.ndarray
    reject: np.ndarray
    method: str
    alpha: float

    def __repr__(self) -> str:
        return (
            f"MultipleTests({self.method}, alpha={self.alpha}: {int(self.reject.sum())} of "
            f"{self.reject.size} rejected)"
        )


def _bh(p: np.ndarray) -> np.ndarray:
    m = p.size
    order = np.argsort(p)
    scaled = p[order] * m / np.arange(1, m + 1)
    adj = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def _holm(p: np.ndarray) -> np.ndarray:
    m = p.size
    order = np.argsort(p)
    adj = np.maximum.accumulate(p[order] * (m - np.arange(m)))
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


_ORIENT = {"greater": lambda v: v, "less": np.negative, "two-sided": np.abs}


def multipletests(
    pvals: Sequence[float] | Sequence[IndependenceTest] | np.ndarray,
    method: str = "bh",
    alpha: float = 0.05,
) -> MultipleTests:
    """Correct many p-values (or :class:`IndependenceTest` results) for multiple testing.

    Parameters
    ----------
    pvals
        p-values, or the results of :func:`independence_test` (required for
        ``"maxstat"``).
    method
        ``"bh"`` (Benjamini–Hochberg false discovery rate), ``"holm"`` or
        ``"bonferroni"`` (family-wise error), or ``"maxstat"``: single-step max-statistic
        (Westfall & Young): test i's adjusted p-value is ``(1 + #{b: max_j null_j[b] ≥
        stat_i}) / (1 + B)``.  It needs the tests' nulls from the same permutations (same
        seed, same rows: true for unconditional tests run with one seed) and statistics
        on a common scale (MI in one unit).
    alpha
        Level at which ``reject`` is computed.

    Returns
    -------
    MultipleTests
    """
    check_choice(method, "method", ("bh", "holm", "bonferroni", "maxstat"))
    alpha = check_float(alpha, "alpha", low=0.0, high=1.0, inclusive=(False, True))
    if pvals is None or isinstance(pvals, str | bytes | dict) or not hasattr(pvals, "__iter__"):
        raise TypeError(
            "pvals must be a sequence of p-values or of IndependenceTest results, got "
            f"{type(pvals).__name__}"
        )
    items = list(np.ravel(pvals)) if isinstance(pvals, np.ndarray) else list(pvals)
    if not items:
        raise ValueError("pvals is empty")
    tests = all(isinstance(t, IndependenceTest) for t in items)
    if method == "maxstat":
        if not tests:
            raise TypeError(
                "method='maxstat' needs the IndependenceTest results (their null "
                "distributions), not bare p-values"
            )
        sizes = {t.n_permutations for t in items}
        units = {t.statistic.unit for t in items}
        if len(sizes) > 1 or len(units) > 1:
            raise ValueError(
                "method='maxstat' needs tests with the same n_permutations and "
                f"unit; got n_permutations {sorted(sizes)}, units {sorted(units)}"
            )
        # a test with ``alternative`` (multivariate_test) is oriented so that larger is
        # more extreme: |.| for two-sided, - for "less"
        orient = [_ORIENT[getattr(t, "alternative", "greater")] for t in items]
        mx = np.max(np.vstack([f(t.null) for f, t in zip(orient, items, strict=True)]), axis=0)
        stats_ = np.array([f(t.statistic.value) for f, t in zip(orient, items, strict=True)])
        adj = (1.0 + (mx[None, :] >= stats_[:, None]).sum(axis=1)) / (1.0 + mx.size)
    else:
        try:
            p = np.asarray([t.p_value if tests else t for t in items], dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"pvals must hold numbers in [0, 1] or IndependenceTest results: {exc}"
            ) from exc
        if p.ndim != 1 or np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
            raise ValueError("pvals must be a 1-D sequence of numbers in [0, 1]")
        if method == "bh":
            adj = _bh(p)
        elif method == "holm":
            adj = _holm(p)
        else:
            adj = np.minimum(p * p.size, 1.0)
    return MultipleTests(p_adjusted=adj, reject=adj <= alpha, method=method, alpha=alpha)
