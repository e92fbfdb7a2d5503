"""Exact information quantities of given pmfs and joint probability tables.

These are the ground truth the sample estimators are tested against.  Every function
validates its table (non-negative, finite, sums to one within ``atol``) and returns an
:class:`~infometer.Estimate` with ``method="exact"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._estimate import Estimate
from .uncertainty import make_estimate
from .validation import check_pmf

__all__ = [
    "entropy",
    "joint_entropy",
    "cond_entropy",
    "mutual_info",
    "cond_mutual_info",
    "kl_divergence",
    "cross_entropy",
    "total_correlation",
    "dual_total_correlation",
    "o_information",
    "s_information",
    "co_information",
    "gradient_o_information",
    "pid",
]


def _pmf(p: Any, name: str, ndim: int | None = None, atol: float | None = None) -> np.ndarray:
    """Validate a pmf / joint table (:func:`infometer.validation.check_pmf`)."""
    return check_pmf(p, name, ndim=ndim, atol=atol)


def _h(a: np.ndarray) -> float:
    from scipy.special import xlogy  # here, not at import: keeps `import infometer` light

    return float(-xlogy(a, a).sum())


def _wrap(value: float, quantity: str, unit: str | None, base: float | None) -> Estimate:
    return make_estimate(value, quantity=quantity, method="exact", unit=unit, base=base)


def entropy(p: Any, *, unit: str | None = "nats", base: float | None = None) -> Estimate:
    """Shannon entropy ``-sum p log p`` of a pmf (any shape: all cells form one variable)."""
    return _wrap(_h(_pmf(p, "p")), "entropy", unit, base)


def joint_entropy(pxy: Any, *, unit: str | None = "nats", base: float | None = None) -> Estimate:
    """Joint entropy of a table (same as :func:`entropy` on its cells)."""
    return _wrap(_h(_pmf(pxy, "pxy")), "entropy", unit, base)


def cond_entropy(pxy: Any, *, unit: str | None = "nats", base: float | None = None) -> Estimate:
    """H(Y|X) = H(X,Y) - H(X) for a 2-D table with X on axis 0."""
    a = _pmf(pxy, "pxy", 2)
    return _wrap(_h(a) - _h(a.sum(1)), "cond_entropy", unit, base)


def mutual_info(pxy: Any, *, unit: str | None = "nats", base: float | None = None) -> Estimate:
    """I(X;Y) of a 2-D joint table (X on axis 0, Y on axis 1)."""
    a = _pmf(pxy, "pxy", 2)
    v = _h(a.sum(1)) + _h(a.sum(0)) - _h(a)
    return _wrap(max(v, 0.0), "mutual_info", unit, base)


def cond_mutual_info(
    pxyz: Any, *, unit: str | None = "nats", base: float | None = None
) -> Estimate:
    """I(X;Y|Z) of a 3-D joint table with axes (X, Y, Z)."""
    a = _pmf(pxyz, "pxyz", 3)
    v = _h(a.sum(1)) + _h(a.sum(0)) - _h(a) - _h(a.sum((0, 1)))
    return _wrap(max(v, 0.0), "cond_mutual_info", unit, base)


def _pq(p: Any, q: Any) -> tuple[np.ndarray, np.ndarray]:
    a, b = _pmf(p, "p"), _pmf(q, "q")
    if a.shape != b.shape:
        raise ValueError(f"p has shape {a.shape} but q has shape {b.shape}")
    return a.ravel(), b.ravel()


def kl_divergence(
    p: Any, q: Any, *, unit: str | None = "nats", base: float | None = None
) -> Estimate:
    """D(P‖Q) = sum p log(p/q); ``inf`` when q is 0 where p is not."""
    a, b = _pq(p, q)
    s = a > 0
    v = float("inf") if np.any(b[s] == 0) else float((a[s] * np.log(a[s] / b[s])).sum())
    return _wrap(v, "kl_divergence", unit, base)


def cross_entropy(
    p: Any, q: Any, *, unit: str | None = "nats", base: float | None = None
) -> Estimate:
    """Cross-entropy ``-sum p log q``."""
    a, b = _pq(p, q)
    s = a > 0
    v = float("inf") if np.any(b[s] == 0) else float(-(a[s] * np.log(b[s])).sum())
    return _wrap(v, "cross_entropy", unit, base)


# ------------------------------------------------------------ multivariate (thin)
def _multi(quantity: str, p: Any, unit, base, index: int | None = None) -> Estimate:
    from .multivariate._exact import pmf_quantity

    return _wrap(pmf_quantity(p, quantity, index), quantity, unit, base)


def total_correlation(p: Any, *, unit: str | None = "nats", base: float | None = None) -> Estimate:
    """Total correlation ``Σ H(X_i) - H(X)`` of a joint pmf with one axis per variable.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.zeros((2, 2)); p[0, 0] = p[1, 1] = 0.5
    >>> round(total_correlation(p, unit="bits").value, 12)
    1.0
    """
    return _multi("total_correlation", p, unit, base)


def dual_total_correlation(
    p: Any, *, unit: str | None = "nats", base: float | None = None
) -> Estimate:
    """Dual total correlation ``Σ H(X_{-i}) - (n-1) H(X)`` of a joint pmf (one axis each).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.zeros((2, 2, 2)); p[0, 0, 0] = p[1, 1, 1] = 0.5
    >>> round(dual_total_correlation(p, unit="bits").value, 12)
    1.0
    """
    return _multi("dual_total_correlation", p, unit, base)


def o_information(p: Any, *, unit: str | None = "nats", base: float | None = None) -> Estimate:
    """O-information ``TC - DTC`` of a joint pmf with one axis per variable (n >= 3).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.zeros((2, 2, 2)); p[0, 0, 0] = p[0, 1, 1] = p[1, 0, 1] = p[1, 1, 0] = 0.25
    >>> round(o_information(p, unit="bits").value, 12)  # XOR: synergy
    -1.0
    """
    return _multi("o_information", p, unit, base)


def s_information(p: Any, *, unit: str | None = "nats", base: float | None = None) -> Estimate:
    """S-information ``TC + DTC`` of a joint pmf with one axis per variable.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.zeros((2, 2, 2)); p[0, 0, 0] = p[0, 1, 1] = p[1, 0, 1] = p[1, 1, 0] = 0.25
    >>> round(s_information(p, unit="bits").value, 12)
    3.0
    """
    return _multi("s_information", p, unit, base)


def co_information(p: Any, *, unit: str | None = "nats", base: float | None = None) -> Estimate:
    """Co-information ``-Σ_{S≠∅} (-1)^{|S|} H(X_S)`` (I(X;Y) - I(X;Y|Z) for three axes).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.zeros((2, 2, 2)); p[0, 0, 0] = p[0, 1, 1] = p[1, 0, 1] = p[1, 1, 0] = 0.25
    >>> round(co_information(p, unit="bits").value, 12)
    -1.0
    """
    return _multi("co_information", p, unit, base)


def gradient_o_information(
    p: Any, *, unit: str | None = "nats", base: float | None = None
) -> tuple[Estimate, ...]:
    """Each variable's ``Ω(X) - Ω(X_{-i})`` of a joint pmf (one axis per variable).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.zeros((2, 2, 2)); p[0, 0, 0] = p[0, 1, 1] = p[1, 0, 1] = p[1, 1, 0] = 0.25
    >>> [round(e.value, 12) for e in gradient_o_information(p, unit="bits")]
    [-1.0, -1.0, -1.0]
    """
    a = np.asarray(p)
    return tuple(
        _multi("o_information_gradient", p, unit, base, i) for i in range(max(a.ndim, 3))
    )


def pid(
    p: Any, *, measure: str = "broja", unit: str | None = "nats", base: float | None = None
):
    """Partial information decomposition of a joint pmf (sources first, target last axis).

    Measures: ``imin``, ``mmi``, ``broja``, ``ccs``, ``dep`` (2 sources), ``isx``.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.zeros((2, 2, 2)); p[0, 0, 0] = p[1, 1, 1] = 0.5  # RDN
    >>> round(pid(p, measure="broja", unit="bits").redundancy.value, 6)
    1.0
    """
    from .multivariate.decomposition import pid_of_pmf

    return pid_of_pmf(p, measure=measure, unit=unit, base=base)
# Channels and generalised entropies (issue 26), loaded on first use (their packages
# register estimators and import scipy): name -> module.
_ELSEWHERE = {
    "channel_capacity": ".channels",
    "rate_distortion": ".channels",
    "rate_distortion_curve": ".channels",
    "information_bottleneck": ".channels",
    "ib_curve": ".channels",
    "renyi_entropy": ".generalized.exact",
    "tsallis_entropy": ".generalized.exact",
    "renyi_divergence": ".generalized.exact",
    "jensen_shannon_divergence": ".generalized.exact",
    "jensen_renyi_divergence": ".generalized.exact",
}


__all__ += list(_ELSEWHERE)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_ELSEWHERE))


def __getattr__(name: str) -> Any:
    if name not in _ELSEWHERE:
        raise AttributeError(f"module 'infometer.exact' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_ELSEWHERE[name], "infometer"), name)
    globals()[name] = value
    return value
