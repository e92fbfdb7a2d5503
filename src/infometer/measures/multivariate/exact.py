"""Exact multivariate information of given joint pmfs (also as ``infometer.measures.exact.*``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core.estimate import Estimate
from infometer.core.uncertainty import exact_estimate

from ._exact import pmf_quantity

__all__ = [
    "total_correlation",
    "dual_total_correlation",
    "o_information",
    "s_information",
    "co_information",
    "gradient_o_information",
    "pid",
]


def _multi(quantity: str, p: Any, unit, base, index: int | None = None) -> Estimate:

    return exact_estimate(pmf_quantity(p, quantity, index), quantity, unit, base)


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
    return tuple(_multi("o_information_gradient", p, unit, base, i) for i in range(max(a.ndim, 3)))


def pid(p: Any, *, measure: str = "broja", unit: str | None = "nats", base: float | None = None):
    """Partial information decomposition of a joint pmf (sources first, target last axis).

    Measures: ``imin``, ``mmi``, ``broja``, ``ccs``, ``dep`` (2 sources), ``isx``.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.zeros((2, 2, 2)); p[0, 0, 0] = p[1, 1, 1] = 0.5  # RDN
    >>> round(pid(p, measure="broja", unit="bits").redundancy.value, 6)
    1.0
    """
    from .decomposition import pid_of_pmf

    return pid_of_pmf(p, measure=measure, unit=unit, base=base)
