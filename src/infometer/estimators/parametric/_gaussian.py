"""Gaussian (log-det) and Gaussian-copula estimators of H, MI, CMI and KL.

Kernels are pure functions on float arrays (rows = samples); the registered
estimators at the bottom wrap them for :mod:`infometer.core.registry`.

Bias correction (``bias_correct=True``, the default): with ``W`` the scatter matrix of
``n`` centred samples of a d-dimensional Gaussian, ``W ~ Wishart(n - 1, Σ)`` and
``E[log det W] = log det Σ + d log 2 + Σ_{i=1..d} ψ((n - i)/2)`` (e.g. Goodman 1963;
the correction used by GCMI, Ince et al. 2017).  Subtracting the known terms makes
``log det Σ``, hence every entropy, MI and CMI below, exactly unbiased for Gaussian data.

References
----------
* Cover & Thomas (2006), *Elements of Information Theory*, §8.4 (Gaussian entropy).
* Ince, Giordano, Kayser, Rousselet, Gross & Schyns (2017), Hum. Brain Mapp. 38:1541
  (Gaussian-copula MI, bias correction).
* Barnett, Barrett & Seth (2009), Phys. Rev. Lett. 103:238701 (Granger = 2 × Gaussian TE).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from infometer.core._local import LocalRaw
from infometer.core._threads import limit_blas
from infometer.core.data import Variable, scaled_moments
from infometer.core.registry import Raw, register

__all__ = [
    "standardize",
    "copula_normalize",
    "logdet_sigma",
    "gaussian_entropy",
    "gaussian_entropy_terms",
    "gaussian_local_terms",
    "gaussian_kl",
]

_LOG2PIE = np.log(2 * np.pi) + 1.0
#: Eigenvalues of a (standardised) covariance below this fraction of the largest are 0:
#: a column is a linear function of the others to ~13 digits, beyond what float data
#: resolve (the Gaussian MI of one such pair would be ~15 nats).
RESOLUTION = 1e-13
#: MI/CMI above this fraction of the resolution ceiling is flagged.
SATURATION = 0.8


class SingularCovariance(ValueError):
    """The sample covariance of some block is singular (collinear or constant columns)."""


def logdet_sigma(scatter: np.ndarray, n: int, bias_correct: bool) -> float:
    """Estimate ``log det Σ`` from the scatter matrix of ``n`` centred samples.

    Without correction this is the maximum-likelihood ``log det(W / n)``; with it, the
    unbiased ``log det W - d log 2 - Σ ψ((n - i)/2)``.

    Parameters
    ----------
    scatter
        ``W = Σ_t (x_t - x̄)(x_t - x̄)ᵀ``, shape (d, d).
    n
        Number of samples behind ``W``.
    bias_correct
        Unbiased (Wishart) estimate instead of the maximum-likelihood one.

    Returns
    -------
    float

    Raises
    ------
    SingularCovariance
        When ``W`` is not positive definite.
    """
    d = scatter.shape[0]
    if not np.all(np.isfinite(scatter)):
        raise SingularCovariance("sample covariance is not finite")
    ev = np.linalg.eigvalsh(scatter)
    # relative, so that "singular" does not hang on the sign of a rounding error: x with
    # itself gives an exactly singular matrix on one machine and a 1e-17 eigenvalue
    # (18 nats) on another
    if not ev[-1] > 0 or ev[0] <= RESOLUTION * ev[-1]:
        raise SingularCovariance("sample covariance is singular")
    ld = float(np.sum(np.log(ev)))
    if not bias_correct:
        return float(ld - d * np.log(n))
    return float(ld - _wishart_offset(n, d))


@lru_cache(maxsize=1024)
def _wishart_offset(n: int, d: int) -> float:
    """``E[log det W] - log det Σ = d log 2 + Σ_{i=1..d} ψ((n - i)/2)`` for W ~ W_d(n-1, Σ)."""
    from scipy.special import digamma

    i = np.arange(1, d + 1)
    return float(d * np.log(2.0) + digamma((n - i) / 2.0).sum())


def _scatter(a: np.ndarray) -> np.ndarray:
    c = a - a.mean(axis=0)
    return _gram(c)


def gaussian_entropy(a: np.ndarray, bias_correct: bool = True) -> float:
    """Differential entropy ``½ log det(2πe Σ)`` of a Gaussian fit to ``a``, in nats.

    Parameters
    ----------
    a
        Samples, shape (n, d).
    bias_correct
        Use the unbiased log-det (see :func:`logdet_sigma`).

    Returns
    -------
    float
    """
    a = np.asarray(a, dtype=np.float64)
    n, d = a.shape
    return 0.5 * (logdet_sigma(_scatter(a), n, bias_correct) + d * _LOG2PIE)


def gaussian_entropy_terms(
    a: np.ndarray,
    groups: Sequence[Sequence[int]],
    terms: Sequence[tuple[float, Sequence[int]]],
    bias_correct: bool = True,
    scatter: np.ndarray | None = None,
) -> float:
    """Signed sum of Gaussian entropies of column blocks of ``a``.

    ``groups[g]`` lists the columns of variable ``g``; each term ``(sign, (g1, g2, ...))``
    adds ``sign * H(variables g1, g2, ...)``.  One scatter matrix serves every term.

    Parameters
    ----------
    a
        Samples of all variables side by side, shape (n, d).
    groups
        Column indices of each variable.
    terms
        Signed entropy terms (e.g. MI: ``[(1, (0,)), (1, (1,)), (-1, (0, 1))]``).
    bias_correct
        Use the unbiased log-det (see :func:`logdet_sigma`).
    scatter
        The scatter matrix of ``a``, when the caller has it.

    Returns
    -------
    float
        The signed sum in nats.
    """
    a = np.asarray(a, dtype=np.float64)
    n = a.shape[0]
    w = _scatter(a) if scatter is None else scatter
    total = 0.0
    for sign, gs in terms:
        cols = np.concatenate([np.asarray(groups[g], dtype=np.intp) for g in gs])
        block = w[np.ix_(cols, cols)]
        total += sign * 0.5 * (logdet_sigma(block, n, bias_correct) + cols.size * _LOG2PIE)
    return total


def gaussian_local_terms(
    a: np.ndarray,
    groups: Sequence[Sequence[int]],
    terms: Sequence[tuple[float, Sequence[int]]],
    bias_correct: bool = True,
) -> np.ndarray:
    """Per-row version of :func:`gaussian_entropy_terms`: the local values whose mean is it.

    Each term's entropy becomes ``½(log det Σ̂ + d log 2π + q_t)`` with
    ``q_t = c_tᵀ (W/n)⁻¹ c_t`` for the centred row ``c_t``, i.e. ``−log f̂(x_t)`` under the
    maximum-likelihood fit; ``log det Σ̂`` is the same (ML or Wishart-unbiased) log-det as in
    :func:`gaussian_entropy_terms`, so the correction is one constant per term.  Since
    ``mean_t q_t = tr((W/n)⁻¹ W/n) = d``, the mean over rows is the estimate exactly (to
    rounding).

    Parameters
    ----------
    a, groups, terms, bias_correct
        As for :func:`gaussian_entropy_terms`.

    Returns
    -------
    numpy.ndarray
        Shape (n,), nats.
    """
    a = np.asarray(a, dtype=np.float64)
    n = a.shape[0]
    c = a - a.mean(axis=0)
    w = _gram(c)
    total = np.zeros(n)
    for sign, gs in terms:
        cols = np.concatenate([np.asarray(groups[g], dtype=np.intp) for g in gs])
        block = w[np.ix_(cols, cols)]
        ld = logdet_sigma(block, n, bias_correct)
        b = c[:, cols]
        quad = np.einsum("ij,ij->i", b, np.linalg.solve(block / n, b.T).T)
        total += sign * 0.5 * (ld + cols.size * np.log(2 * np.pi) + quad)
    return total


def gaussian_kl(p: np.ndarray, q: np.ndarray, bias_correct: bool = True) -> float:
    """KL divergence ``D(N_p ‖ N_q)`` between Gaussian fits to samples ``p`` and ``q``.

    ``½[tr(Σq⁻¹Σp) + δᵀΣq⁻¹δ − d + log det Σq − log det Σp]`` with ``δ = μq − μp``.
    With ``bias_correct`` every term is replaced by an unbiased estimate under
    Gaussian sampling: the log-dets by the Wishart correction, and, using
    ``E[Sq⁻¹] = (nq−1)/(nq−d−2) Σq⁻¹`` (inverse Wishart) and
    ``E[δ̂δ̂ᵀ] = δδᵀ + Σp/np + Σq/nq``, the trace and the quadratic form.

    Parameters
    ----------
    p, q
        Samples of P (n_p, d) and of Q (n_q, d); n_p ≥ d + 2, n_q ≥ d + 3.
    bias_correct
        Unbiased estimate under Gaussian sampling (else maximum likelihood).

    Returns
    -------
    float
        KL divergence in nats (may be slightly negative when unbiased).
    """
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    n_p, d = p.shape
    n_q = q.shape[0]
    wp, wq = _scatter(p), _scatter(q)
    sp, sq = wp / (n_p - 1), wq / (n_q - 1)
    try:
        sq_inv = np.linalg.inv(sq)
    except np.linalg.LinAlgError as exc:
        raise SingularCovariance("sample covariance of q is singular") from exc
    delta = q.mean(axis=0) - p.mean(axis=0)
    trace = float(np.trace(sq_inv @ sp))
    quad = float(delta @ sq_inv @ delta)
    ld_p = logdet_sigma(wp, n_p, bias_correct)
    ld_q = logdet_sigma(wq, n_q, bias_correct)
    if bias_correct:
        c = (n_q - d - 2) / (n_q - 1)
        trace *= c
        quad = c * quad - trace / n_p - d / n_q
    else:
        # maximum-likelihood covariances throughout
        trace *= (n_p - 1) / n_p * n_q / (n_q - 1)
        quad *= n_q / (n_q - 1)
    return 0.5 * (trace + quad - d + ld_q - ld_p)


def copula_normalize(a: np.ndarray) -> np.ndarray:
    """Each column's ranks mapped to standard normal scores ``Φ⁻¹(rank / (n + 1))``.

    Ties get their average rank.  Strictly increasing transforms of a column leave
    the result unchanged.

    Parameters
    ----------
    a
        Samples, shape (n,) or (n, d).

    Returns
    -------
    numpy.ndarray
        Normal scores, shape (n, d).
    """
    return _copula(a)[0]


def _copula(a: np.ndarray) -> tuple[np.ndarray, int]:
    """Normal scores and the number of tied values (one sort per column)."""
    scores, ties, _ = _copula_scores(a)
    return scores, ties


def _sort_order(col: np.ndarray) -> np.ndarray:
    """``np.argsort(col)`` with equal values in index order, from one sort of 64-bit keys."""
    return _sort_order_runs(col)[0]


def _sort_order_runs(col: np.ndarray) -> tuple[np.ndarray, bool]:
    """A stable argsort of ``col`` and whether any two values may be equal.

    numpy sorts plain integers several times faster than it argsorts, so each value's
    order-preserving integer key has its lowest ``b`` bits replaced by its row (``b`` bits
    hold any row number) and the keys are sorted.  Values whose keys agree above those bits
    may be out of order; each such run is put right with an exact ``lexsort`` on (value,
    row).  The result is exactly a stable argsort.  Equal values have equal keys, so with
    no such run there are no ties (the second result is False).
    """
    n = col.shape[0]
    b = max(1, (n - 1).bit_length())
    low = (1 << b) - 1
    # + 0.0: -0.0 becomes 0.0, an equal value.  An order-preserving signed key of a double:
    # its bits as int64, with the 63 value bits flipped when negative (i ^ (i >> 63) >>> 1)
    key = (col + 0.0).view(np.int64)
    key ^= (key >> 63) & np.int64(0x7FFF_FFFF_FFFF_FFFF)
    key &= np.int64(~low)  # two's complement: clearing low bits keeps the order of the rest
    key |= np.arange(n, dtype=np.int64)
    key.sort()
    packed = key.view(np.uint64)
    order = (key & np.int64(low)) if n else key
    # adjacent keys with equal high bits: their xor fits in the low bits
    same = (packed[1:] ^ packed[:-1]) <= np.uint64(low)
    if not same.any():
        return order, False
    in_run = np.zeros(n, bool)
    in_run[1:] |= same
    in_run[:-1] |= same
    pos = np.flatnonzero(in_run)
    run = np.cumsum(np.concatenate([[True], ~same[pos[:-1]]]))
    rows = order[pos]
    order[pos] = rows[np.lexsort((rows, col[rows], run))]
    return order, True


@lru_cache(maxsize=8)
def _score_table(n: int) -> np.ndarray:
    """``Φ⁻¹(i / (n + 1))`` for ranks ``i = 1..n`` (the scores of a column without ties)."""
    from scipy.special import ndtri

    return ndtri(np.arange(1, n + 1) / (n + 1.0))


def _copula_scores(
    a: np.ndarray | Sequence[np.ndarray], per_column: bool = False
) -> tuple[np.ndarray, Any, np.ndarray]:
    """Normal scores of each column's ranks (ties: average rank), the number of tied
    values (an int array of one count per column when ``per_column``), and each column's
    mean score.

    ``a`` is an (n, d) array or a list of d columns.  A column without ties takes its
    scores from one shared table (no per-value ``ndtri``); columns are processed on two
    threads (sorting releases the GIL).
    """
    from concurrent.futures import ThreadPoolExecutor

    from scipy.special import ndtri

    if isinstance(a, np.ndarray) or not isinstance(a, Sequence):
        a = np.asarray(a, dtype=np.float64)
        a = a[:, None] if a.ndim == 1 else a
        cols = [a[:, j] for j in range(a.shape[1])]
    else:
        cols = list(a)
    n, d = cols[0].shape[0], len(cols)
    # one contiguous row per column (a column of an (n, d) array is strided: scattering
    # the scores into it touched a new cache line per value, ~3x slower); returned as the
    # (n, d) transposed view
    out = np.empty((d, n))
    table = _score_table(n)
    table_mean = float(np.mean(table)) if n else 0.0

    def column(j: int) -> tuple[int, float]:
        col = np.ascontiguousarray(cols[j], dtype=np.float64)
        order, maybe_tied = _sort_order_runs(col)
        row = out[j]
        if maybe_tied:
            srt = col[order]
            tied = srt[1:] == srt[:-1]
            t = int(np.count_nonzero(tied))
        else:
            t = 0
        if not t:  # no ties: the i-th smallest value has rank i + 1
            row[order] = table
            return 0, table_mean
        start = np.flatnonzero(np.concatenate([[True], ~tied]))
        stop = np.append(start[1:], n)
        avg = (start + 1 + stop) / 2.0  # average rank of each group of equal values
        sc = ndtri(np.repeat(avg, stop - start) / (n + 1.0))
        row[order] = sc
        return t, float(np.mean(sc))

    if n >= 100_000 and d > 1:
        with ThreadPoolExecutor(2) as pool:
            res = list(pool.map(column, range(d)))
    else:
        res = [column(j) for j in range(d)]
    out = out.T
    ties = np.array([t for t, _ in res], dtype=np.int64)
    return out, (ties if per_column else int(ties.sum())), np.array([m for _, m in res])


# --------------------------------------------------------------------- registered
_TERMS = {
    1: [(1.0, (0,))],
    2: [(1.0, (0,)), (1.0, (1,)), (-1.0, (0, 1))],
    3: [(1.0, (0, 2)), (1.0, (1, 2)), (-1.0, (0, 1, 2)), (-1.0, (2,))],
}


def _groups(blocks: Sequence[Sequence[np.ndarray]]) -> list[list[int]]:
    groups, start = [], 0
    for b in blocks:
        groups.append(list(range(start, start + len(b))))
        start += len(b)
    return groups


def _gram(a: np.ndarray) -> np.ndarray:
    """``a.T @ a`` with BLAS on one thread: the product is small and memory-bound, and
    BLAS threads that spin on a busy machine made it 30x slower (4.5 s instead of 0.13 s
    for 10^6 x 20 on two loaded cores).  Small products skip the limit: setting it costs
    about 0.02 ms (:func:`~infometer.core._threads.limit_blas`), as much as the product
    below ~10^4 entries."""
    if a.size < 10_000:
        return a.T @ a
    with limit_blas(1):
        return a.T @ a


def _drop_constant(
    vs: Sequence[Variable], constant: Sequence[bool] | None = None
) -> tuple[list[list[np.ndarray]], list[str], list[str]]:
    """Each variable's non-constant columns, the messages, and the names of the variables
    left with no column (a constant carries no information).

    Works on the validated 1-D columns: no stacked (n, d) copy of the data is made here.
    ``constant``: whether each column (of all variables in order) is constant, when the
    caller knows it already (the copula: a column of n - 1 ties).
    """
    blocks, notes, empty = [], [], []
    flags = iter(constant) if constant is not None else None
    for v in vs:
        if flags is None:
            keep = np.array([c.min() != c.max() for c in v.columns], dtype=bool)
        else:
            keep = ~np.array([next(flags) for _ in v.columns], dtype=bool)
        if not keep.all():
            notes.append(
                f"{v.name} columns {np.flatnonzero(~keep).tolist()} are constant; they carry "
                "no information and are dropped"
            )
            if not keep.any():
                empty.append(v.name)
        blocks.append([c for c, k in zip(v.columns, keep, strict=True) if k])
    return blocks, notes, empty


def _check_n(method: str, n: int, d: int, extra: int = 1) -> None:
    if n < d + 1 + extra:
        raise ValueError(
            f"method {method!r} needs more samples than dimensions: got n={n} for "
            f"{d} dimensions (at least {d + 1 + extra})"
        )


def standardize(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Columns centred and scaled to unit sd, and the log of each column's sd.

    The moments are those of :func:`infometer.core.data.scaled_moments` (each column times a
    power of two, exact, that brings it to ``|x| <= 1``), so the mean and sd are computed
    without overflow at 1e300 or underflow at 1e-160; a constant column stays constant
    (log sd 0).
    """
    scale, mu, sd = scaled_moments(a)
    ok = sd > 0
    b = (np.asarray(a, dtype=np.float64) * scale - mu) / np.where(ok, sd, 1.0)
    return b, -np.log2(scale) * np.log(2.0) + np.log(np.where(ok, sd, 1.0))


def _ceiling(
    method: str, n: int, dx: int, dy: int, value: float, diag: dict, warns: list[str]
) -> None:
    """Record the largest MI the method can resolve and flag values near it.

    Gaussian: the float resolution ``RESOLUTION`` of a correlation, ``½ log(1/RESOLUTION)``
    per pair (~15 nats).  Copula: ranks that differ by one adjacent swap of the middle
    pair have ``1 − ρ² ≈ 2 Δs² / Σ s²`` (normal scores s); one nat more than that cannot be
    told from identical ranks (x with itself) at this n.
    """
    if method == "gaussian_copula":
        s = _score_table(n)
        m = n // 2
        per_pair = -0.5 * np.log(2.0 * (s[m] - s[m - 1]) ** 2 / float(np.sum(s**2)))
    else:
        per_pair = -0.5 * np.log(RESOLUTION)
    ceiling = float(min(dx, dy) * per_pair)
    diag["ceiling"] = ceiling
    if value > SATURATION * ceiling:
        diag["near_ceiling"] = True
        warns.append(
            f"{method} estimate {value:.3g} nats is near its ceiling {ceiling:.3g} nats (the "
            "most this method resolves at this n): a column is (nearly) a function of the "
            "others, and the true value may be much larger (infinite for y = x)"
        )


def _combo(method: str, vs: Sequence[Variable], bias_correct: bool, copula: bool) -> Raw:
    if not isinstance(bias_correct, bool):
        raise TypeError(f"bias_correct must be True or False, got {bias_correct!r}")
    diag: dict = {"bias_correct": bias_correct}
    notes: list[str] = []
    scores = None
    if copula:  # the columns as they are: no stacked copy of the raw data
        # ranks of every column first: a constant column is one with n - 1 ties, so the
        # constant check below needs no pass of its own
        scores, col_ties, col_mean = _copula_scores(
            [c for v in vs for c in v.columns], per_column=True
        )
        constant = col_ties == max(vs[0].n - 1, 0) if vs[0].n > 1 else None
    if len(vs) == 1:
        blocks = [list(vs[0].columns)]
        kept = np.arange(vs[0].d)
    else:
        # MI / CMI: a constant column carries no information (kNN drops it too); left in,
        # it would make the covariance singular and the Gaussian MI "infinite"
        blocks, notes, empty = _drop_constant(vs, constant if copula else None)
        if empty and set(empty) & {vs[0].name, vs[1].name}:
            return Raw(
                value=0.0,
                diagnostics={**diag, "constant": empty},
                warnings=[*notes, f"{', '.join(empty)} constant: the information is exactly 0"],
            )
        if empty:  # z is constant: I(X;Y|Z) = I(X;Y)
            blocks = blocks[:2]
            diag["constant"] = empty
        if copula:  # the non-constant columns of the variables kept, in order
            start = np.cumsum([0] + [v.d for v in vs])
            kept = np.concatenate(
                [
                    np.arange(start[i], start[i + 1])[~constant[start[i] : start[i + 1]]]
                    if constant is not None
                    else np.arange(start[i], start[i + 1])
                    for i in range(len(blocks))
                ]
            )
    groups = _groups(blocks)
    n, d = vs[0].n, sum(len(b) for b in blocks)
    _check_n(method, n, d)
    w = None
    if copula:
        full = kept.size == scores.shape[1]
        a = scores if full else scores[:, kept]
        mean = col_mean if full else col_mean[kept]
        ties = int(col_ties[kept].sum())
        if ties:
            diag["tied_values"] = ties
        # normal scores have means near 0, so the scatter is Z'Z - n m m' without a centred
        # copy of Z (and without cancellation)
        w = _gram(a) - n * np.outer(mean, mean)
        log_sd = np.zeros(d)
    else:
        # MI and CMI are scale-free and an entropy moves by sum(log sd): standardising
        # first keeps data at 1e300 (overflow: "singular") or 1e-160 (underflow: -0.00025
        # instead of 0.34) in the range where the covariance is computed exactly enough
        a, log_sd = standardize(
            np.column_stack([c.astype(np.float64, copy=False) for b in blocks for c in b])
        )
    try:
        value = gaussian_entropy_terms(a, groups, _TERMS[len(blocks)], bias_correct, w)
        if len(vs) == 1:
            value += float(np.sum(log_sd))
    except SingularCovariance:
        if len(vs) == 1:
            return Raw(
                value=float("-inf"),
                diagnostics={**diag, "singular_covariance": True},
                warnings=[
                    f"{method}: {vs[0].name} has a singular covariance (constant or "
                    "collinear columns, to float precision); its Gaussian entropy is -inf"
                ],
            )
        return Raw(
            value=float("inf"),
            diagnostics={**diag, "singular_covariance": True},
            warnings=[
                *notes,
                f"{method}: the joint covariance is singular to float precision (a column "
                "is an exact, or to ~13 digits, linear function of others); the Gaussian MI "
                "is infinite or beyond what the data resolve",
            ],
        )
    warns: list[str] = list(notes)
    if len(vs) > 1:
        _ceiling(method, n, len(blocks[0]), len(blocks[1]), value, diag, warns)
    return Raw(value=value, diagnostics=diag, warnings=warns)


@register(
    "gaussian",
    ("entropy", "mutual_info", "cond_mutual_info"),
    kinds=("continuous",),
    family="parametric",
    summary="Gaussian fit (log-det of the covariance), Wishart bias-corrected; "
    "exact for Gaussian data, blind to non-linear dependence",
)
def gaussian(*vs: Variable, bias_correct: bool = True) -> Raw:
    """Entropy / MI / CMI of the Gaussian with the sample covariance."""
    return _combo("gaussian", vs, bias_correct, copula=False)


def gaussian_local(*vs: Variable, bias_correct: bool = True) -> LocalRaw:
    """Local values of :func:`gaussian` (its ``local_values`` hook): the same constant-column
    policy, standardisation and log-dets, per row (see :func:`gaussian_local_terms`)."""
    if not isinstance(bias_correct, bool):
        raise TypeError(f"bias_correct must be True or False, got {bias_correct!r}")
    diag: dict = {"bias_correct": bias_correct}
    n = vs[0].n
    notes: list[str] = []
    if len(vs) == 1:
        blocks = [list(vs[0].columns)]
    else:
        blocks, notes, empty = _drop_constant(vs)
        if empty and set(empty) & {vs[0].name, vs[1].name}:
            why = f"{', '.join(empty)} constant: every local value is exactly 0"
            return LocalRaw(
                np.zeros(n), diagnostics={**diag, "constant": empty}, warnings=[*notes, why]
            )
        if empty:  # z is constant: I(X;Y|Z) = I(X;Y)
            blocks = blocks[:2]
            diag["constant"] = empty
    _check_n("gaussian", n, sum(len(b) for b in blocks))
    a, log_sd = standardize(
        np.column_stack([c.astype(np.float64, copy=False) for b in blocks for c in b])
    )
    try:
        vals = gaussian_local_terms(a, _groups(blocks), _TERMS[len(blocks)], bias_correct)
    except SingularCovariance:
        raise ValueError(
            "gaussian: the covariance of the variables is singular (constant or collinear "
            "columns, to float precision): the local Gaussian values are undefined"
        ) from None
    if len(vs) == 1:
        vals = vals + float(np.sum(log_sd))
    return LocalRaw(vals, diagnostics=diag, warnings=notes)


gaussian.local_values = gaussian_local  # type: ignore[attr-defined]  # read by api.run_local


def _classes(codes: np.ndarray, min_size: int, what: str) -> list[np.ndarray]:
    """Row indices of each class; every class needs ``min_size`` rows."""
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    groups = np.split(order, bounds)
    small = min(len(g) for g in groups)
    if small < min_size:
        raise ValueError(
            f"method 'gaussian_copula': a class of {what} has {small} samples; each needs at "
            f"least {min_size} (more than the continuous dimensions + 1)"
        )
    return groups


def _mi_cd(x: np.ndarray, y_codes: np.ndarray, bias_correct: bool) -> float:
    """I(X;Y), X continuous (already normal scores), Y discrete (GCMI 'cd' model):
    H_G(X) − Σ_y p(y) H_G(X | Y=y) with a Gaussian per class."""
    n, d = x.shape
    total = gaussian_entropy(x, bias_correct)
    for g in _classes(y_codes, d + 2, "the discrete variable"):
        total -= g.size / n * gaussian_entropy(x[g], bias_correct)
    return total


def _copula_mixed(vs: Sequence[Variable], bias_correct: bool) -> Raw:
    """GCMI with discrete variables (Ince et al. 2017, gcmi 'cd' and 'ccd' models)."""
    if any(v.kind == "mixed" for v in vs):
        raise ValueError(
            "method 'gaussian_copula' takes variables that are wholly continuous "
            "or wholly discrete, not mixed columns in one variable"
        )
    x, y = vs[0], vs[1]
    z = vs[2] if len(vs) == 3 else None
    if z is not None and not z.is_discrete:
        raise ValueError(
            "method 'gaussian_copula' with discrete x or y needs a discrete z "
            "(or none); use gkov for mixed data"
        )
    if x.is_discrete and y.is_discrete:
        raise ValueError(
            "method 'gaussian_copula' needs at least one continuous variable "
            "among x, y; use a discrete estimator (e.g. nsb, miller_madow)"
        )
    diag: dict = {"bias_correct": bias_correct}

    def mi(rows: np.ndarray) -> float:
        if x.is_continuous and y.is_continuous:
            a = np.column_stack([_copula(x.values[rows])[0], _copula(y.values[rows])[0]])
            _check_n("gaussian_copula", rows.size, a.shape[1])
            return gaussian_entropy_terms(
                a, [list(range(x.d)), list(range(x.d, a.shape[1]))], _TERMS[2], bias_correct
            )
        c, dv = (x, y) if y.is_discrete else (y, x)
        return _mi_cd(_copula(c.values[rows])[0], dv.codes[rows], bias_correct)

    n = x.n
    if z is None:
        diag["model"] = "cd: Gaussian per class of the discrete variable"
        value = mi(np.arange(n))
    else:
        diag["model"] = "ccd: copula MI within each class of z, weighted by p(z)"
        groups = _classes(z.codes, max(x.d + y.d, 1) + 2, "z")
        value = sum(g.size / n * mi(g) for g in groups)
        diag["z_classes"] = len(groups)
    return Raw(value=float(value), diagnostics=diag)


@register(
    "gaussian_copula",
    ("mutual_info", "cond_mutual_info"),
    kinds=("continuous", "discrete"),
    family="parametric",
    summary="Gaussian-copula MI/CMI (GCMI, Ince et al. 2017): ranks -> normal scores, "
    "then log-det; invariant to monotone transforms",
)
def gaussian_copula(*vs: Variable, bias_correct: bool = True) -> Raw:
    """MI / CMI of the Gaussian copula of the data (normal scores of the ranks).

    Discrete variables follow GCMI's models: MI between continuous X and discrete Y is
    ``H(X) − Σ_y p(y) H(X|Y=y)`` with Gaussian entropies of the copula-normalised X;
    CMI given a discrete Z is ``Σ_z p(z) I(X;Y | Z=z)``, normalising within each class.
    """
    if not isinstance(bias_correct, bool):
        raise TypeError(f"bias_correct must be True or False, got {bias_correct!r}")
    if all(v.is_continuous for v in vs):
        return _combo("gaussian_copula", vs, bias_correct, copula=True)
    return _copula_mixed(vs, bias_correct)


def gaussian_copula_local(*vs: Variable, bias_correct: bool = True) -> LocalRaw:
    """Local values of :func:`gaussian_copula` (its ``local_values`` hook) for continuous
    variables: :func:`gaussian_local` on the normal scores of every column's ranks, which
    is what the estimate is the Gaussian MI of (their mean equals it to rounding)."""
    if not isinstance(bias_correct, bool):
        raise TypeError(f"bias_correct must be True or False, got {bias_correct!r}")
    if not all(v.is_continuous for v in vs):
        raise ValueError(
            "gaussian_copula: local values are defined here for continuous variables only "
            "(GCMI's discrete-variable models are class mixtures); pass method='plugin' for "
            "discrete data"
        )
    scores, ties, _ = _copula_scores([c for v in vs for c in v.columns], per_column=True)
    out, j = [], 0
    for v in vs:
        cols = tuple(np.ascontiguousarray(scores[:, j + i]) for i in range(v.d))
        out.append(dataclasses.replace(v, columns=cols))
        j += v.d
    res = gaussian_local(*out, bias_correct=bias_correct)
    if int(np.sum(ties)):
        res.diagnostics["tied_values"] = int(np.sum(ties))
    return res


gaussian_copula.local_values = gaussian_copula_local  # type: ignore[attr-defined]


@register(
    "gaussian",
    "kl_divergence",
    kinds=("continuous",),
    family="parametric",
    summary="KL divergence between Gaussian fits to p and q (unbiased under Gaussianity)",
)
def gaussian_kl_divergence(p: Variable, q: Variable, *, bias_correct: bool = True) -> Raw:
    """KL divergence between the Gaussians fitted to the samples of p and of q."""
    if not isinstance(bias_correct, bool):
        raise TypeError(f"bias_correct must be True or False, got {bias_correct!r}")
    d = p.d
    _check_n("gaussian", p.n, d, extra=1)
    _check_n("gaussian", q.n, d, extra=2)
    # one affine map for both samples (KL is invariant to it): no overflow at 1e300
    pooled, _ = standardize(np.vstack([p.values, q.values]))
    try:
        value = gaussian_kl(pooled[: p.n], pooled[p.n :], bias_correct)
    except SingularCovariance as exc:
        raise ValueError(
            f"method 'gaussian': {exc} (constant or collinear columns); KL between the "
            "Gaussian fits is undefined"
        ) from exc
    return Raw(value=value, diagnostics={"bias_correct": bias_correct})


def _ml_params(params: dict) -> dict:
    """Parameters of the plug-in (maximum-likelihood) version, for bootstrap centring."""
    return {**params, "bias_correct": False}


for _f in (gaussian, gaussian_copula, gaussian_kl_divergence):
    _f.plugin_params = _ml_params  # type: ignore[attr-defined]
