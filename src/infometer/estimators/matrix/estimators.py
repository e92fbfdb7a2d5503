"""Registered matrix-based estimators and the public helpers of the family.

``method="matrix_renyi"`` for ``entropy``, ``mutual_info`` and ``cond_mutual_info``:

* entropy ``S_α(A)``;
* mutual information ``I_α(X;Y) = S_α(A) + S_α(B) − S_α(A∘B / tr(A∘B))``;
* conditional MI ``I_α(X;Y|Z) = S_α(A∘C) + S_α(B∘C) − S_α(A∘B∘C) − S_α(C)`` (each joint
  normalised to unit trace; Yu, Sánchez Giraldo, Jenssen & Príncipe 2019).

Continuous variables use the kernel named by ``kernel=`` (``"rbf"``: Gaussian with the median
heuristic bandwidth unless ``sigma=`` is given; ``"linear"``: centred linear kernel, the
covariance form); discrete variables always use the delta kernel, for which every matrix
entropy is the plug-in Rényi entropy of the symbols.

These are functionals of the normalised kernel spectrum, **not** estimators of Shannon
(differential) entropy: values lie in ``[0, log n]`` and depend on the kernel and ``σ``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from infometer.core.data import Variable, as_variable, check_choice, check_float
from infometer.core.estimate import Estimate
from infometer.core.registry import Raw, register
from infometer.core.seeding import Seed

from . import kernels as K

__all__ = [
    "von_neumann_entropy",
    "effective_rank",
]

_FAMILY = "matrix"
KERNELS = ("rbf", "linear")
#: Above this many rows a Gram-matrix (O(n³)) computation warns.
LARGE_GRAM = 4000
#: ``y`` counts as a copy of ``x`` when their unit-trace kernels differ by less than this
#: (relative Frobenius norm, squared: a difference of 0.1 %).
COPY_TOL_SQ = 1e-6


def _alpha(alpha: Any) -> float:
    return check_float(alpha, "alpha", low=0.0, inclusive=(False, True))


def _sigmas(sigma: Any, variables: Sequence[Variable]) -> list[float | None]:
    """One bandwidth per variable: ``None`` (median heuristic), a number, or a sequence."""
    if sigma is None:
        return [None] * len(variables)
    if isinstance(sigma, list | tuple | np.ndarray):
        vals = list(sigma)
        if len(vals) != len(variables):
            raise ValueError(
                f"sigma has {len(vals)} values but there are {len(variables)} variables; "
                "pass one bandwidth, or one per variable"
            )
    else:
        vals = [sigma] * len(variables)
    return [
        None if s is None else check_float(s, "sigma", low=0.0, inclusive=(False, True))
        for s in vals
    ]


def _check_memory(variables: Sequence[Variable], kernel: str) -> None:
    """Refuse, before allocating, kernels that would not fit: an RBF kernel is an n x n
    Gram matrix per variable (plus their product and the eigensolver's copy), a delta
    kernel an n x K one-hot table (10^5 rows asked 74.5 GiB and raised a MemoryError)."""
    from infometer.core.validation import check_memory

    n = variables[0].n
    grams = sum(1 for v in variables if not v.is_discrete and kernel == "rbf")
    onehot = sum(
        8.0 * n * min(n, math.prod(c or 1 for c in v.cardinalities))
        for v in variables
        if v.is_discrete
    )
    need = 8.0 * n * n * (grams + 2 if grams else 0) + onehot
    check_memory(
        need,
        what=f"kernel matrices of {n} rows ({grams} n x n Gram matrices)",
        name=", ".join(v.name for v in variables),
        override="subsample rows, or use kernel='linear' (n x d features) for continuous data",
    )


def _reps(
    variables: Sequence[Variable], kernel: str, sigma: Any
) -> tuple[list[K.KernelRep], list[float | None], list[str]]:
    kernel = check_choice(kernel, "kernel", KERNELS)
    sig = _sigmas(sigma, variables)
    _check_memory(variables, kernel)
    reps, used, warns = [], [], []
    for v, s in zip(variables, sig, strict=True):
        if v.is_discrete:
            reps.append(K.delta_rep(v.codes))
            used.append(None)
        elif kernel == "linear":
            reps.append(K.linear_rep(v.values))
            used.append(None)
        else:
            if s is None:
                s = K.median_sigma(v.values)
                if s == 0.0:  # every row equal: any bandwidth gives the all-ones kernel
                    s = 1.0
            reps.append(K.rbf_rep(v.values, s))
            used.append(s)
    n = variables[0].n
    if n > LARGE_GRAM and any(r.gram is not None for r in reps):
        warns.append(
            f"{n} rows: the n×n Gram matrix costs O(n³) time and O(n²) memory; "
            "subsample rows or use kernel='linear' for speed"
        )
    return reps, used, warns


def _entropy_of(reps: Sequence[K.KernelRep], alpha: float, name: str) -> float:
    try:
        return K.renyi_entropy(K.hadamard(reps), alpha)
    except ValueError as exc:
        raise ValueError(
            f"{name} is constant: {exc}; the matrix entropy of constant data is 0 under "
            "kernel='rbf'"
        ) from None


def _raw(
    value: float,
    variables: Sequence[Variable],
    alpha: float,
    kernel: str,
    used: list[float | None],
    warns: list[str],
) -> Raw:
    diag: dict[str, Any] = {
        "alpha": alpha,
        "kernels": ["delta" if v.is_discrete else kernel for v in variables],
        "max_entropy": math.log(variables[0].n),
    }
    params: dict[str, Any] = {}
    if any(s is not None for s in used):
        diag["sigma"] = used
        params["sigma"] = used  # resamples reuse the bandwidths of the full sample
    return Raw(value=value, diagnostics=diag, warnings=warns, params=params)


_SUMMARY = (
    "matrix-based Rényi α-entropy of normalised kernel matrices (Sánchez Giraldo et al. 2014)"
)


@register(
    "matrix_renyi",
    "entropy",
    kinds=("continuous", "discrete"),
    family=_FAMILY,
    resampling="bootstrap",
    summary=_SUMMARY,
)
def matrix_renyi_entropy(
    x: Variable, *, alpha: float = 1.0, kernel: str = "rbf", sigma: Any = None
) -> Raw:
    """Matrix-based Rényi entropy ``S_α(A)`` of ``x`` (α = 1: von Neumann)."""
    a = _alpha(alpha)
    reps, used, warns = _reps([x], kernel, sigma)
    return _raw(_entropy_of(reps, a, x.name), [x], a, kernel, used, warns)


@register(
    "matrix_renyi",
    "mutual_info",
    kinds=("continuous", "discrete"),
    family=_FAMILY,
    resampling="bootstrap",
    summary=_SUMMARY,
)
def matrix_renyi_mi(
    x: Variable, y: Variable, *, alpha: float = 1.0, kernel: str = "rbf", sigma: Any = None
) -> Raw:
    """Matrix-based ``I_α(X;Y) = S_α(A) + S_α(B) − S_α(A∘B / tr(A∘B))``."""
    a = _alpha(alpha)
    reps, used, warns = _reps([x, y], kernel, sigma)
    rx, ry = reps
    sx, sy = _entropy_of([rx], a, x.name), _entropy_of([ry], a, y.name)
    value = sx + sy - _entropy_of([rx, ry], a, f"({x.name},{y.name})")
    raw = _raw(value, [x, y], a, kernel, used, warns)
    _copy_flag(raw, rx, ry, min(sx, sy), x.is_continuous or y.is_continuous)
    return raw


def _copy_flag(raw: Raw, rx: K.KernelRep, ry: K.KernelRep, ceiling: float, flag: bool) -> None:
    """Record the ceiling ``min(S(A), S(B))`` (``S(A∘B) ≥ max(S(A), S(B))``) and flag copies.

    The matrix MI of a continuous ``x`` with itself is ``2 S(A) − S(A∘A)``, well below the
    ceiling (about 0.7 of it for RBF kernels with the median bandwidth), so saturation is
    detected from the kernels: ``y`` whose normalised kernel equals ``x``'s is a copy at the
    kernel's resolution, and the Shannon MI may be far larger (infinite for an exact copy).
    """
    raw.diagnostics["ceiling"] = float(ceiling)
    if flag and K.relative_difference_sq(rx, ry) < COPY_TOL_SQ:
        raw.diagnostics["near_ceiling"] = True
        raw.warnings.append(
            f"the kernel matrices of the two variables coincide (y is a copy of x at the "
            f"kernel's resolution): the matrix-based MI {raw.value:.3g} nats is that of a "
            "variable with itself; the Shannon MI may be much larger (infinite for an exact "
            "copy)"
        )


@register(
    "matrix_renyi",
    "cond_mutual_info",
    kinds=("continuous", "discrete"),
    family=_FAMILY,
    resampling="bootstrap",
    summary=_SUMMARY,
)
def matrix_renyi_cmi(
    x: Variable,
    y: Variable,
    z: Variable,
    *,
    alpha: float = 1.0,
    kernel: str = "rbf",
    sigma: Any = None,
) -> Raw:
    """Matrix-based ``I_α(X;Y|Z) = S(A∘C) + S(B∘C) − S(A∘B∘C) − S(C)``."""
    a = _alpha(alpha)
    reps, used, warns = _reps([x, y, z], kernel, sigma)
    rx, ry, rz = reps
    value = (
        _entropy_of([rx, rz], a, f"({x.name},{z.name})")
        + _entropy_of([ry, rz], a, f"({y.name},{z.name})")
        - _entropy_of([rx, ry, rz], a, f"({x.name},{y.name},{z.name})")
        - _entropy_of([rz], a, z.name)
    )
    return _raw(value, [x, y, z], a, kernel, used, warns)


def von_neumann_entropy(
    z: Any,
    *,
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
) -> Estimate:
    """Von Neumann entropy of a representation's normalised covariance ``ρ = Σ / tr Σ``.

    ``S = −Σ λ_i log λ_i`` over the eigenvalues of ρ: ``0`` for a collapsed (rank-1)
    representation, ``log d`` for an isotropic one.  It equals
    ``im.entropy(z, method="matrix_renyi", kernel="linear")`` (the Gram and covariance forms
    have the same non-zero spectrum).  ``diagnostics["effective_rank"]`` is ``exp(S)``.

    Parameters
    ----------
    z
        Representations, one row per sample (n, d).
    unit, base, ci
        As for :func:`infometer.entropy`.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Returns
    -------
    Estimate
    """
    from dataclasses import replace

    from infometer.core.api import entropy
    from infometer.core.estimate import resolve_unit

    est = entropy(
        z, method="matrix_renyi", kernel="linear", alpha=1.0, discrete=False, ci=ci, seed=seed
    )
    est = replace(est, diagnostics={**est.diagnostics, "effective_rank": math.exp(est.value)})
    u = resolve_unit(unit, base)
    return est if u == "nats" else est.to(u)


def effective_rank(z: Any, *, spectrum: str = "singular") -> float:
    """Effective rank ``exp(H(p))`` of a representation (Roy & Vetterli 2007).

    Parameters
    ----------
    z
        Representations, one row per sample (n, d); columns are centred first.
    spectrum
        ``"singular"`` (default): ``p_i = σ_i / Σ σ_j`` over the singular values of the
        centred data, Roy & Vetterli's definition (used by RankMe).  ``"covariance"``:
        ``p_i = λ_i / Σ λ_j`` over the covariance eigenvalues (``λ = σ²``), i.e.
        ``exp`` of :func:`von_neumann_entropy`.

    Returns
    -------
    float
        A number of dimensions in ``[1, min(n, d)]`` (not an information quantity, so a
        plain float rather than an :class:`~infometer.Estimate`).
    """
    spectrum = check_choice(spectrum, "spectrum", ("singular", "covariance"))
    v = as_variable(z, "z", discrete=False, min_samples=2)
    try:
        lam = K.covariance_spectrum(v.values)
    except ValueError:
        raise ValueError("z is constant: its effective rank is undefined") from None
    if spectrum == "singular":
        s = np.sqrt(lam)
        lam = s / s.sum()
    return K.effective_rank_from_spectrum(lam)
