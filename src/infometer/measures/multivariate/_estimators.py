"""Registered estimators of the multivariate quantities (thin specs over :mod:`.kernels`).

Each quantity takes its variables positionally (one :class:`~infometer.core.data.Variable` per
variable, possibly several columns); ``QUANTITY_ROLES`` lists the roles of the
three-variable case (``im.estimate("o_information", {"x": .., "y": .., "z": ..})``), and
the public functions of :mod:`.measures` pass any number of variables to ``api.run``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core.data import Variable, check_float, check_int
from infometer.core.registry import AutoContext, AutoRule, Raw, register, register_auto
from infometer.core.validation import check_budget
from infometer.estimators.discrete import _kernels as dk
from infometer.estimators.discrete._counting import counts, joint_codes
from infometer.estimators.discrete._estimators import ENTROPY_KERNELS, _alphabets
from infometer.estimators.knn._estimators import _check, _prep
from infometer.estimators.knn._prep import takes_prep
from infometer.estimators.parametric._gaussian import _copula, _gram, standardize

from . import _kernels as kernels
from ._reading import flagged_floats, table_reading
from ._terms import MIN_VARIABLES, QUANTITIES, check_count, terms

__all__ = ["DISCRETE_METHODS", "CONTINUOUS_METHODS", "scatter_of", "gaussian_scores"]

_FAMILY = "multivariate"
for _q in QUANTITIES:
    registry.QUANTITY_ROLES.setdefault(_q, ("x", "y", "z"))
    if MIN_VARIABLES[_q] == 2:
        registry.OPTIONAL_ROLES.setdefault(_q, ("z",))
# TC, DTC and S-information are >= 0 by definition (sums of KL divergences / CMIs)
registry.NONNEGATIVE.update({"total_correlation", "dual_total_correlation", "s_information"})

DISCRETE_METHODS = ("plugin", "miller_madow", "chao_shen", "grassberger", "shrinkage", "nsb")
CONTINUOUS_METHODS = ("gaussian", "gaussian_copula", "ksg")


def _index(quantity: str, index, n: int) -> int | None:
    if quantity != "o_information_gradient":
        return None
    index = check_int(index, "index", min_value=0)
    if index >= n:
        raise ValueError(f"index must be a variable number in 0..{n - 1}, got {index}")
    return index


# ---------------------------------------------------------------------- discrete
def _discrete(method: str, quantity: str, vs: Sequence[Variable], alphabet_size, index) -> Raw:

    check_count(quantity, len(vs))
    t = terms(quantity, len(vs), _index(quantity, index, len(vs)))
    kernel, needs_k = ENTROPY_KERNELS[method]
    diag: dict = {"n_variables": len(vs), "n_entropy_terms": len(t)}
    warns: list[str] = []
    ks = [1.0] * len(vs)
    if needs_k:
        ks, estimated = _alphabets(vs, [counts(v.codes) for v in vs], alphabet_size)
        if estimated:
            diag["alphabet_size_estimated"] = "Chao1"
            diag["alphabet_size"] = ks
    elif alphabet_size is not None:  # pragma: no cover - the signature has no such param
        raise TypeError(f"method {method!r} has no parameter 'alphabet_size'")

    def entropy(c: np.ndarray, s: frozenset) -> float:
        k = float(np.prod([ks[i] for i in s]))
        lam = dk.shrinkage_lambda(c, k) if method == "shrinkage" else None
        return kernel(c, k, lam)[0]

    value = kernels.codes_entropy_sum([v.codes for v in vs], t, entropy)
    c_all = counts(joint_codes(*vs))
    n = int(c_all.sum())
    diag["samples_per_symbol"] = n / c_all.size
    if n / c_all.size < 2:
        diag["undersampled"] = True
        warns.append(
            f"undersampled: {n} samples for {c_all.size} distinct joint symbols of the "
            f"{len(vs)} variables; {quantity} from counts is unreliable here whatever the "
            "estimator"
        )
    return Raw(value=value, diagnostics=diag, warnings=warns)


def _make_discrete(method: str, quantity: str) -> Callable[..., Raw]:
    needs_k = method in ("shrinkage", "nsb")
    grad = quantity == "o_information_gradient"
    if needs_k and grad:

        def f(*vs: Variable, alphabet_size=None, index: int = 0) -> Raw:
            return _discrete(method, quantity, vs, alphabet_size, index)

    elif needs_k:

        def f(*vs: Variable, alphabet_size=None) -> Raw:
            return _discrete(method, quantity, vs, alphabet_size, None)

    elif grad:

        def f(*vs: Variable, index: int = 0) -> Raw:
            return _discrete(method, quantity, vs, None, index)

    else:

        def f(*vs: Variable) -> Raw:
            return _discrete(method, quantity, vs, None, None)

    f.__name__ = f"{quantity}_{method}"
    if method != "plugin":
        f.plugin_method = "plugin"  # type: ignore[attr-defined]
    return f


# -------------------------------------------------------------------- Gaussian
def _columns(vs: Sequence[Variable]) -> tuple[list[np.ndarray], list[list[int]], list[str]]:
    """The non-constant columns of all variables, each variable's positions among them,
    and notes about the dropped constant columns (a constant carries no information;
    every quantity here is unchanged when a constant column is removed)."""
    cols, groups, notes = [], [], []
    for v in vs:
        g = []
        dropped = []
        for j, c in enumerate(v.columns):
            if c.min() == c.max():
                dropped.append(j)
                continue
            g.append(len(cols))
            cols.append(c.astype(np.float64, copy=False))
        if dropped:
            notes.append(f"{v.name} columns {dropped} are constant; they are dropped")
        groups.append(g)
    return cols, groups, notes


def scatter_of(a: np.ndarray) -> np.ndarray:
    """``(a - ā)ᵀ(a - ā)`` (one BLAS product)."""
    c = a - a.mean(axis=0)
    return _gram(c)


def gaussian_scores(cols: Sequence[np.ndarray], copula: bool) -> tuple[np.ndarray, int]:
    """Standardised columns (``copula``: normal scores of the ranks) and the tie count."""
    a = np.column_stack(cols)
    if copula:
        return _copula(a)
    return standardize(a)[0], 0


def _gaussian(method: str, quantity: str, vs: Sequence[Variable], bias_correct, index) -> Raw:
    if not isinstance(bias_correct, bool):
        raise TypeError(f"bias_correct must be True or False, got {bias_correct!r}")
    check_count(quantity, len(vs))
    t = terms(quantity, len(vs), _index(quantity, index, len(vs)))
    cols, groups, notes = _columns(vs)
    n = vs[0].n
    diag: dict = {"bias_correct": bias_correct, "n_variables": len(vs), "n_entropy_terms": len(t)}
    if not cols:
        return Raw(value=0.0, diagnostics=diag, warnings=[*notes, "every column is constant"])
    d = len(cols)
    if n < d + 2:
        raise ValueError(
            f"method {method!r} needs more samples than dimensions: got n={n} rows for "
            f"{d} columns of X (at least {d + 2})"
        )
    a, ties = gaussian_scores(cols, method == "gaussian_copula")
    if ties:
        diag["tied_values"] = ties
    value = kernels.gaussian_entropy_sum(scatter_of(a), n, groups, t, bias_correct)
    if not np.isfinite(value):
        raise ValueError(
            f"method {method!r}: the covariance of X's columns is singular to float "
            "precision (a column is a linear function of others), so the Gaussian "
            f"{quantity} is undefined; drop the redundant columns"
        )
    return Raw(value=value, diagnostics=diag, warnings=notes)


def _make_gaussian(method: str, quantity: str) -> Callable[..., Raw]:
    if quantity == "o_information_gradient":

        def f(*vs: Variable, bias_correct: bool = True, index: int = 0) -> Raw:
            return _gaussian(method, quantity, vs, bias_correct, index)

    else:

        def f(*vs: Variable, bias_correct: bool = True) -> Raw:
            return _gaussian(method, quantity, vs, bias_correct, None)

    f.__name__ = f"{quantity}_{method}"
    f.plugin_params = lambda p: {**p, "bias_correct": False}  # type: ignore[attr-defined]
    return f


# ------------------------------------------------------------------------- kNN
#: Default most distance evaluations of one kNN estimate (rows² x the columns of every
#: range count): about a minute of brute-force counting.
MAX_KNN_WORK = 2e10


#: Entropy terms of each quantity on n variables (at most; ``_terms.terms`` builds them).
_N_TERMS = {
    "total_correlation": lambda n: n + 1,
    "dual_total_correlation": lambda n: n + 1,
    "o_information": lambda n: 2 * n + 1,
    "s_information": lambda n: 2 * n + 1,
    "co_information": lambda n: 2**n - 1,
    "o_information_gradient": lambda n: 4 * n + 2,
}


def knn_work(quantity: str, dims: Sequence[int], n: int) -> float:
    """At most the distance evaluations of the KSG-style estimate of ``quantity`` on
    variables of ``dims`` columns and ``n`` rows: the joint search and a range count per
    entropy term, each ``n²`` times the columns it reads (all of them, at most); from the
    counts alone, without building the terms."""
    return float(n) ** 2 * sum(dims) * (1 + _N_TERMS[quantity](len(dims)))


def check_knn_work(work: float, max_work: Any, what: str = "") -> None:
    """Refuse a kNN estimate above ``max_work`` distance evaluations, naming ``X``."""
    check_budget(
        work,
        name="X (its rows² x the columns of every entropy term)",
        limit=check_float(max_work, "max_work", low=1.0),
        what=f"distance evaluations of kNN range counts{what}",
        override="pass max_work=... to allow more, or method='gaussian_copula' (one scatter "
        "matrix for every term)",
    )


def _ksg(
    quantity: str,
    vs: Sequence[Variable],
    k: int,
    index: int | None,
    prep: dict,
    max_work: float = MAX_KNN_WORK,
) -> Raw:

    check_count(quantity, len(vs))
    n = vs[0].n
    check_knn_work(knn_work(quantity, [v.d for v in vs], n), max_work)
    t = terms(quantity, len(vs), _index(quantity, index, len(vs)))
    k = _check(n, k)
    p = _prep({v.name: v for v in vs}, prep)
    if sum(b.shape[1] for b in p.blocks) == 0:
        return Raw(value=0.0, diagnostics=p.diagnostics, warnings=[*p.warnings])
    value, kd = kernels.ksg_entropy_sum(p.blocks, t, k)
    diag = {**p.diagnostics, **kd, "n_variables": len(vs), "n_entropy_terms": len(t)}
    return Raw(value=value, diagnostics=diag, warnings=list(p.warnings))


def _make_ksg(quantity: str) -> Callable[..., Raw]:
    if quantity == "o_information_gradient":

        def f(
            *vs: Variable, k: int = 3, index: int = 0, max_work: float = MAX_KNN_WORK, **prep: Any
        ) -> Raw:
            return _ksg(quantity, vs, k, index, prep, max_work)

    else:

        def f(*vs: Variable, k: int = 3, max_work: float = MAX_KNN_WORK, **prep: Any) -> Raw:
            return _ksg(quantity, vs, k, None, prep, max_work)

    f.__name__ = f"{quantity}_ksg"
    return takes_prep(f)


_SUMMARY = {
    "plugin": "plug-in entropies of the joint symbols (biased when undersampled)",
    "miller_madow": "Miller-Madow corrected entropies",
    "chao_shen": "Chao-Shen coverage-adjusted entropies",
    "grassberger": "Grassberger (2003) entropies",
    "shrinkage": "James-Stein shrinkage entropies (Hausser & Strimmer 2009)",
    "nsb": "NSB entropies (alphabets by Chao1 unless given)",
    "gaussian": "Gaussian fit: log-dets of the covariance blocks, Wishart bias-corrected",
    "gaussian_copula": "Gaussian copula (ranks -> normal scores), log-dets, bias-corrected",
    "ksg": "KSG-style kNN: one joint max-norm search, range counts in every subspace",
}

for _q in QUANTITIES:
    for _m in DISCRETE_METHODS:
        register(_m, _q, kinds=("discrete",), family=_FAMILY, summary=f"{_q}: {_SUMMARY[_m]}")(
            _make_discrete(_m, _q)
        )
    for _m in ("gaussian", "gaussian_copula"):
        register(_m, _q, kinds=("continuous",), family=_FAMILY, summary=f"{_q}: {_SUMMARY[_m]}")(
            _make_gaussian(_m, _q)
        )
    register(
        "ksg",
        _q,
        kinds=("continuous",),
        family=_FAMILY,
        resampling="subsample",
        summary=f"{_q}: {_SUMMARY['ksg']}",
    )(_make_ksg(_q))


def _ratio(ctx: AutoContext) -> float:
    c = counts(joint_codes(*ctx.variables.values()))
    return ctx.n / c.size


def _needs_choice(ctx: AutoContext) -> bool:
    """Mixed kinds, or float columns with few distinct values: ``auto`` makes the user
    choose (:func:`._reading.table_reading` raises the error naming the choices)."""
    if ctx.kinds == {"discrete"}:
        return False
    if ctx.kinds != {"continuous"}:
        return True
    return any(flagged_floats(v) for v in ctx.variables.values())


def _refuse(ctx: AutoContext) -> str:

    table_reading(
        ctx.variables,
        what=ctx.quantity,
        discrete_use="Miller-Madow or NSB entropies of the symbols",
        continuous_use="method='gaussian_copula' or 'ksg'",
    )
    raise AssertionError("unreachable: table_reading refuses these data")  # pragma: no cover


for _q in QUANTITIES:
    register_auto(AutoRule(_q, 150, _needs_choice, _refuse, ""))
    register_auto(
        AutoRule(
            _q,
            100,
            lambda ctx: ctx.kinds == {"discrete"},
            lambda ctx: "miller_madow" if _ratio(ctx) >= 5 else "nsb",
            lambda ctx: (
                f"discrete data with {_ratio(ctx):.1f} samples per joint symbol: "
                + (
                    "well sampled, Miller-Madow entropies"
                    if _ratio(ctx) >= 5
                    else "undersampled (< 5 per joint symbol), NSB entropies"
                )
            ),
        )
    )
    register_auto(
        AutoRule(
            _q,
            200,
            lambda ctx: ctx.kinds == {"continuous"},
            "gaussian_copula",
            "continuous data: the Gaussian copula (as hoi/frites), fast, invariant to "
            "monotone transforms, a lower bound-like estimate blind to non-monotone "
            "dependence; method='ksg' for a non-parametric estimate",
        )
    )
