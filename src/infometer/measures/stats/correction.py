"""Multiple-testing corrections: the one home of BH, BY, Holm and Bonferroni.

``correction=`` means the same everywhere it appears (:func:`infometer.infer_network`,
:func:`infometer.pairwise`, :func:`infometer.multiplets`, :func:`multipletests`, the CLI's
``--correction``):

``"fdr_bh"``
    Benjamini–Hochberg false discovery rate over every tested unit (target, pair,
    multiplet): FDR ≤ α for independent or positively dependent (PRDS) p-values.
``"fdr_by"``
    Benjamini–Yekutieli: BH with the constant c(m) = Σ 1/i, FDR ≤ α under any dependence.
``"fwer"``
    Family-wise error over the whole analysis: P(any false discovery) ≤ α.  How each
    analysis builds it (max-statistic, Holm, a per-target level of α/m) is stated with the
    analysis.
``"none"``
    Each unit at its own level α (per-target / per-pair error only).

BH and BY are :func:`scipy.stats.false_discovery_control`; Holm and Bonferroni are the few
lines below (:func:`adjust`).

References
----------
* Benjamini & Hochberg (1995), JRSS B 57:289; Benjamini & Yekutieli (2001), Ann. Stat.
  29:1165; Holm (1979), Scand. J. Stat. 6:65; Westfall & Young (1993), *Resampling-Based
  Multiple Testing* (max-statistic).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from infometer.core.results import Result
from infometer.core.validation import check_choice, check_float
from infometer.measures.stats.independence import IndependenceTest
from infometer.measures.stats.nulls import maxstat_p_values, orient

__all__ = [
    "CORRECTIONS",
    "ADJUSTMENTS",
    "check_correction",
    "check_alpha",
    "adjust",
    "multipletests",
    "MultipleTests",
    "permutation_floor",
]

#: The choices of every ``correction=`` of an analysis.
CORRECTIONS = ("fdr_bh", "fdr_by", "fwer", "none")
#: p-value adjustments :func:`adjust` computes from p-values alone.
ADJUSTMENTS = ("fdr_bh", "fdr_by", "holm", "bonferroni", "none")


def check_correction(correction: Any, choices: Sequence[str] = CORRECTIONS) -> str:
    """``correction`` checked against ``choices`` (a ``ValueError`` listing them)."""
    return check_choice(correction, "correction", tuple(choices))


def check_alpha(alpha: Any, name: str = "alpha") -> float:
    """A significance level in (0, 1]."""
    return check_float(alpha, name, low=0.0, high=1.0, inclusive=(False, True))


def adjust(p: Any, method: str) -> np.ndarray:
    """Adjusted p-values of the 1-D p-values ``p`` (reject where ``adjusted ≤ α``).

    ``"fdr_bh"`` / ``"fdr_by"``: :func:`scipy.stats.false_discovery_control`;
    ``"holm"``: step-down ``max_{j≤i} (m − j + 1) p_(j)``; ``"bonferroni"``: ``m p``;
    ``"none"``: ``p``.  All clipped to 1.

    Examples
    --------
    >>> adjust([0.03, 1, 1, 1, 1], "fdr_bh")
    array([0.15, 1.  , 1.  , 1.  , 1.  ])
    >>> adjust([0.01, 0.04, 0.03], "holm")
    array([0.03, 0.06, 0.06])
    """
    method = check_choice(method, "method", ADJUSTMENTS)
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1 or np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("p-values must be a 1-D sequence of numbers in [0, 1]")
    m = p.size
    if m == 0 or method == "none":
        return p.copy()
    if method in ("fdr_bh", "fdr_by"):
        from scipy.stats import false_discovery_control

        return np.minimum(false_discovery_control(p, method=method[-2:]), 1.0)
    if method == "bonferroni":
        return np.minimum(p * m, 1.0)
    order = np.argsort(p, kind="stable")
    out = np.empty(m)
    out[order] = np.minimum(np.maximum.accumulate(p[order] * (m - np.arange(m))), 1.0)
    return out


def permutation_floor(
    n_permutations: int, m: int, alpha: float, adjustment: str, what: str = "tests"
) -> str | None:
    """What to say when ``n_permutations`` cannot make any of ``m`` tests significant.

    A permutation p-value is at least ``1/(B+1)``; the smallest level one discovery needs
    is ``alpha/m`` under ``"fdr_bh"``, ``"holm"`` and ``"bonferroni"``, ``alpha/(m c(m))``
    under ``"fdr_by"`` (c(m) = Σ 1/i) and ``alpha`` under ``"none"``.  Where ``1/(B+1)`` is
    above it, a lone discovery is impossible whatever the data (under BH a group of k
    tests all at the floor still passes where ``1/(B+1) <= k alpha/m``): the message says
    so and names the smallest ``n_permutations`` that lifts the floor (``what``: the
    tests' plural noun, e.g. ``"pairs"``).  None where it is
    reachable (or no test was run).

    Examples
    --------
    >>> permutation_floor(50, 15, 0.05, "fdr_bh", "pairs")[:37]
    'n_permutations=50 gives p-values of 1'
    >>> permutation_floor(299, 15, 0.05, "fdr_bh") is None
    True
    """
    adjustment = check_choice(adjustment, "adjustment", ADJUSTMENTS)
    if n_permutations <= 0 or m <= 0:
        return None
    level = alpha if adjustment == "none" else alpha / m
    if adjustment == "fdr_by":
        level /= float(np.sum(1.0 / np.arange(1, m + 1)))
    floor = 1.0 / (n_permutations + 1)
    if floor <= level * (1 + 1e-12):
        return None
    need = int(np.ceil(1.0 / level - 1e-9)) - 1
    if adjustment.startswith("fdr"):  # k tests all at the floor pass where floor <= k level
        k = int(np.ceil(floor / level - 1e-9))
        few = (
            f"only {k} or more {what} together at that floor can be significant"
            if k <= m
            else f"no {what[:-1]} can be significant"
        )
    else:
        few = f"no {what[:-1]} can be significant"
    return (
        f"n_permutations={n_permutations} gives p-values of 1/{n_permutations + 1} = "
        f"{floor:.3g} at the smallest, above the {level:.3g} that one significant "
        f"{what[:-1]} needs ({adjustment} over {m} {what} at alpha {alpha:g}): {few}, "
        f"whatever the data; n_permutations={need} or more lifts this floor"
    )


@dataclass(frozen=True, eq=False)
class MultipleTests(Result):
    """Result of :func:`multipletests`: adjusted p-values and rejections at ``alpha``."""

    p_adjusted: np.ndarray
    reject: np.ndarray
    method: str
    alpha: float

    def to_frame(self) -> Any:
        """One row per test: ``p_adjusted``, ``reject``."""
        import pandas as pd

        return pd.DataFrame({"p_adjusted": self.p_adjusted, "reject": self.reject})

    def __repr__(self) -> str:
        return (
            f"MultipleTests({self.method}, alpha={self.alpha}: {int(self.reject.sum())} of "
            f"{self.reject.size} rejected)"
        )


_METHODS = ("fdr_bh", "fdr_by", "fwer", "holm", "bonferroni", "maxstat", "none")


def multipletests(
    pvals: Sequence[float] | Sequence[IndependenceTest] | np.ndarray,
    correction: str = "fdr_bh",
    alpha: float = 0.05,
) -> MultipleTests:
    """Correct many p-values (or :class:`IndependenceTest` results) for multiple testing.

    Parameters
    ----------
    pvals
        p-values, or the results of :func:`infometer.independence_test` /
        :func:`infometer.multivariate_test` (required for ``"maxstat"``).
    correction
        ``"fdr_bh"`` (Benjamini–Hochberg), ``"fdr_by"`` (Benjamini–Yekutieli, any
        dependence), ``"holm"`` or ``"bonferroni"`` (family-wise error), ``"maxstat"``:
        single-step max-statistic (Westfall & Young): test i's adjusted p-value is
        ``(1 + #{b: max_j null_j[b] ≥ stat_i}) / (1 + B)``, which needs the tests' nulls
        from the same permutations (same seed, same rows: true for unconditional tests run
        with one seed) and statistics on a common scale (MI in one unit); ``"fwer"``:
        ``"maxstat"`` for test results with nulls of one size and unit, else ``"holm"``;
        ``"none"``.
    alpha
        Level at which ``reject`` is computed.

    Returns
    -------
    MultipleTests

    Examples
    --------
    >>> import infometer as im
    >>> im.multipletests([0.03, 1, 1, 1, 1], correction="fdr_bh").reject.tolist()
    [False, False, False, False, False]
    """
    check_choice(correction, "correction", _METHODS)
    alpha = check_alpha(alpha)
    if pvals is None or isinstance(pvals, str | bytes | dict) or not hasattr(pvals, "__iter__"):
        raise TypeError(
            "pvals must be a sequence of p-values or of IndependenceTest results, got "
            f"{type(pvals).__name__}"
        )
    items = list(np.ravel(pvals)) if isinstance(pvals, np.ndarray) else list(pvals)
    if not items:
        raise ValueError("pvals is empty")
    tests = all(isinstance(t, IndependenceTest) for t in items)
    method = correction
    if correction == "fwer":
        same = tests and (
            len({t.n_permutations for t in items}) == 1
            and len({t.statistic.unit for t in items}) == 1
        )
        method = "maxstat" if same else "holm"
    if method == "maxstat":
        if not tests:
            raise TypeError(
                "correction='maxstat' needs the IndependenceTest results (their null "
                "distributions), not bare p-values"
            )
        sizes = {t.n_permutations for t in items}
        units = {t.statistic.unit for t in items}
        if len(sizes) > 1 or len(units) > 1:
            raise ValueError(
                "correction='maxstat' needs tests with the same n_permutations and "
                f"unit; got n_permutations {sorted(sizes)}, units {sorted(units)}"
            )
        # a test with ``alternative`` (multivariate_test) is oriented so that larger is
        # more extreme: |.| for two-sided, - for "less"
        alts = [getattr(t, "alternative", "greater") for t in items]
        null = np.column_stack([orient(t.null, a) for t, a in zip(items, alts, strict=True)])
        stats_ = np.array([orient(t.statistic.value, a) for t, a in zip(items, alts, strict=True)])
        adj = maxstat_p_values(stats_, null)
    else:
        try:
            p = np.asarray([t.p_value if tests else t for t in items], dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"pvals must hold numbers in [0, 1] or IndependenceTest results: {exc}"
            ) from exc
        if p.ndim != 1 or np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
            raise ValueError("pvals must be a 1-D sequence of numbers in [0, 1]")
        adj = adjust(p, method)
    return MultipleTests(p_adjusted=adj, reject=adj <= alpha, method=correction, alpha=alpha)
