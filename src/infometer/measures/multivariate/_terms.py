"""Multivariate quantities as signed sums of joint entropies (pure, no data).

Every quantity here is ``sum_S c_S H(X_S)`` over subsets ``S`` of the variables
``0..n-1``; a term list is ``{frozenset S: c_S}``.  Each variable's coefficients sum to
zero in all of them ("balanced"), which is why log-volume and scale terms cancel in the
Gaussian and kNN estimators.

* total correlation  TC  = sum_i H(X_i) - H(X)                       (Watanabe 1960)
* dual total corr.   DTC = sum_i H(X_{-i}) - (n - 1) H(X)             (Han 1978)
* O-information      Ω   = TC - DTC = (n - 2) H(X) + sum_i [H(X_i) - H(X_{-i})]
* S-information      Σ   = TC + DTC
* co-information     I(X_1;...;X_n) = -sum_{S ≠ ∅} (-1)^{|S|} H(X_S)  (Bell 2003):
  I(X;Y) for n = 2, I(X;Y) - I(X;Y|Z) for n = 3 (positive: redundancy, XOR: -1 bit)
* gradient O-information  ∂_i Ω = Ω(X) - Ω(X_{-i})                  (Scagliarini et al. 2023)
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

__all__ = ["QUANTITIES", "MIN_VARIABLES", "terms", "check_count"]

Terms = dict[frozenset, float]

#: The quantities, each with the fewest variables it is defined for.
MIN_VARIABLES: dict[str, int] = {
    "total_correlation": 2,
    "dual_total_correlation": 2,
    "o_information": 3,
    "s_information": 2,
    "co_information": 2,
    "o_information_gradient": 3,
}
QUANTITIES = tuple(MIN_VARIABLES)
#: co-information has 2^n - 1 terms: refused above this many variables.
MAX_CO_INFORMATION_VARIABLES = 20


def _add(out: Terms, coef: float, subset) -> None:
    out[frozenset(subset)] += coef


def _tc(idx: tuple[int, ...]) -> Terms:
    out: Terms = defaultdict(float)
    for i in idx:
        _add(out, 1.0, (i,))
    _add(out, -1.0, idx)
    return out


def _dtc(idx: tuple[int, ...]) -> Terms:
    out: Terms = defaultdict(float)
    for i in idx:
        _add(out, 1.0, tuple(j for j in idx if j != i))
    _add(out, -(len(idx) - 1.0), idx)
    return out


def _combine(*parts: tuple[float, Terms]) -> Terms:
    out: Terms = defaultdict(float)
    for c, t in parts:
        for s, v in t.items():
            out[s] += c * v
    return out


def _o(idx: tuple[int, ...]) -> Terms:
    if len(idx) < 3:  # TC = DTC = I(X;Y) for two variables: Ω = 0
        return {}
    return _combine((1.0, _tc(idx)), (-1.0, _dtc(idx)))


def check_count(quantity: str, n: int) -> None:
    """Refuse too few (or, for co-information, too many) variables, naming ``X``."""
    need = MIN_VARIABLES[quantity]
    if n < need:
        raise ValueError(
            f"X has {n} variable(s); {quantity} needs at least {need} "
            "(pass a table with one column, or column group, per variable)"
        )
    if quantity == "co_information" and n > MAX_CO_INFORMATION_VARIABLES:
        raise ValueError(
            f"X has {n} variables; co_information sums 2^n - 1 = {2**n - 1} entropies, "
            f"more than the limit of {2**MAX_CO_INFORMATION_VARIABLES - 1} "
            f"({MAX_CO_INFORMATION_VARIABLES} variables)"
        )


def terms(quantity: str, n: int, index: int | None = None) -> Terms:
    """The signed entropy terms ``{subset: coefficient}`` of ``quantity`` on ``n`` variables.

    ``index``: the variable of ``o_information_gradient``.  Zero coefficients are dropped.

    Examples
    --------
    >>> t = terms("total_correlation", 2)
    >>> sorted((sorted(s), c) for s, c in t.items())
    [([0], 1.0), ([0, 1], -1.0), ([1], 1.0)]
    """
    check_count(quantity, n)
    idx = tuple(range(n))
    if quantity == "total_correlation":
        out = _tc(idx)
    elif quantity == "dual_total_correlation":
        out = _dtc(idx)
    elif quantity == "o_information":
        out = _o(idx)
    elif quantity == "s_information":
        out = _combine((1.0, _tc(idx)), (1.0, _dtc(idx)))
    elif quantity == "co_information":
        out = defaultdict(float)
        for r in range(1, n + 1):
            for s in combinations(idx, r):
                _add(out, -((-1.0) ** r), s)
    elif quantity == "o_information_gradient":
        if index is None or not 0 <= index < n:
            raise ValueError(f"index must be a variable number in 0..{n - 1}, got {index!r}")
        rest = tuple(j for j in idx if j != index)
        out = _combine((1.0, _o(idx)), (-1.0, _o(rest)))
    else:  # pragma: no cover - callers pass known names
        raise ValueError(f"unknown quantity {quantity!r}")
    return {s: c for s, c in out.items() if c != 0.0 and s}
