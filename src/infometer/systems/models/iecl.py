"""Entropy increment of a transformation (IE-CL; numpy only).

"Maximizing incremental information entropy for contrastive learning" (Zhang et al., ICLR
2026) measures the entropy a transformation adds to the input, ``ΔH = H(X') − H(X)``
(differential entropies).  For an invertible linear map ``X' = AX`` the change of variables
gives ``ΔH = log |det A|`` for *any* distribution with a density; isometries (rotations,
flips, permutations) add nothing.  For a general map ``ΔH`` is estimated as the difference
of two entropy estimates (the Gaussian plug-in ``½ log det(2πe Σ̂)`` by default, which for a
linear map returns ``log |det A|`` exactly, since ``Σ̂_{AX} = A Σ̂_X Aᵀ``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core.data import as_variable
from infometer.core.estimate import Estimate
from infometer.core.seeding import Seed, resolve_seed
from infometer.core.uncertainty import make_estimate

__all__ = ["entropy_increment", "linear_entropy_increment"]


def linear_entropy_increment(
    A: Any, *, unit: str | None = "nats", base: float | None = None
) -> Estimate:
    """Exact ``ΔH = log |det A|`` of the linear map ``x ↦ A x``.

    Parameters
    ----------
    A
        Square, finite, non-singular matrix.
    unit, base
        Unit of the result.

    Returns
    -------
    Estimate
        ``method="exact"``, ``quantity="entropy_increment"``.
    """
    try:
        a = np.asarray(A, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"A must be a numeric matrix: {exc}") from None
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.size == 0:
        raise ValueError(f"A must be a square matrix, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("A contains NaN or inf")
    sign, logdet = np.linalg.slogdet(a)
    if sign == 0 or not np.isfinite(logdet):
        raise ValueError("A is singular: A x has no density, so ΔH = −∞")
    return make_estimate(
        float(logdet),
        method="exact",
        quantity="entropy_increment",
        unit=unit,
        base=base,
        diagnostics={"dim": int(a.shape[0])},
    )


def entropy_increment(
    x: Any,
    x_new: Any,
    *,
    method: str = "gaussian",
    unit: str | None = "nats",
    base: float | None = None,
    seed: Seed = 0,
    **params: Any,
) -> Estimate:
    """Estimated ``ΔH = H(X') − H(X)`` from samples before and after a transformation.

    Parameters
    ----------
    x, x_new
        Samples of X and of X' = g(X), rows = samples, the same number of columns;
        floats (integer, boolean or text columns are symbols, without a density: refused).
    method
        Any entropy method of :func:`infometer.entropy` for continuous data (default
        ``"gaussian"``: the log-det plug-in; ``"kozachenko_leonenko"``: kNN).
    unit, base
        As for :func:`infometer.entropy`.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    **params
        Parameters of the entropy method.

    Returns
    -------
    Estimate
        ``diagnostics["h_x"]`` and ``diagnostics["h_x_new"]`` hold the two entropies (nats).
        No interval is given for the difference: the two estimates are dependent (the same
        inputs), so their separate intervals do not combine.
    """
    from infometer.core.api import entropy

    for name, arg in (("x", x), ("x_new", x_new)):
        kind = as_variable(arg, name).kind
        if kind != "continuous":  # symbols have no density; Gaussian log-dets of them mislead
            raise ValueError(
                f"{name} is {kind} (integers, booleans, strings or categories): the entropy "
                "increment compares differential entropies of densities; for symbols take "
                "im.entropy(x_new) - im.entropy(x) (discrete entropies), or pass floats to "
                "read the values as numbers"
            )
    vx = as_variable(x, "x", discrete=False)
    vn = as_variable(x_new, "x_new", discrete=False)
    if vx.d != vn.d:
        raise ValueError(
            f"x_new has {vn.d} columns but x has {vx.d}: the entropy increment compares "
            "densities on the same space"
        )
    seed = resolve_seed(seed)  # one root for both entropies
    hx = entropy(vx, method=method, seed=seed, **params)
    hn = entropy(vn, method=method, seed=seed, **params)
    warns = [*hx.warnings, *hn.warnings]
    diag: dict[str, Any] = {"h_x": hx.value, "h_x_new": hn.value, "entropy_method": hx.method}
    if warns:
        diag["warnings"] = warns
    return make_estimate(
        hn.value - hx.value,
        method=hx.method,
        quantity="entropy_increment",
        unit=unit,
        base=base,
        params=dict(hx.params),
        n=vx.n,
        diagnostics=diag,
    )
