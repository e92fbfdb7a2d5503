"""Channel capacity estimated from samples of (input, output) pairs (a registered quantity).

Method ``plugin``: the empirical channel of the observed inputs, ``Ŵ[x, y] = n(x, y) /
n(x)``, then Blahut–Arimoto on Ŵ.  The capacity of the empirical channel is biased upward
at small counts (like plug-in MI, which it maximises); the input alphabet is the set of
inputs that were observed.  ``ci=`` bootstraps the pairs (rows with replacement).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core.api import quantity_function
from infometer.core.data import Variable
from infometer.core.estimate import Estimate
from infometer.core.registry import (
    EXAMPLES,
    NONNEGATIVE,
    QUANTITY_ROLES,
    AutoRule,
    Raw,
    register,
    register_auto,
)
from infometer.core.seeding import Seed
from infometer.core.validation import check_float, check_int, check_memory

from ._blahut import capacity as _capacity
from ._inputs import TABLE_COPIES

__all__ = ["channel_capacity_from_samples"]

QUANTITY = "channel_capacity"
QUANTITY_ROLES[QUANTITY] = ("x", "y")
NONNEGATIVE.add(QUANTITY)


def _example(rng: np.random.Generator) -> dict[str, np.ndarray]:
    x = rng.integers(0, 3, 120)
    flip = rng.random(120) < 0.2
    return {"x": x, "y": np.where(flip, (x + 1) % 3, x)}


EXAMPLES[QUANTITY] = _example


def empirical_channel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row-normalised count matrix of the observed (input, output) codes."""
    _, xi = np.unique(x, return_inverse=True)
    _, yi = np.unique(y, return_inverse=True)
    nx, ny = int(xi.max()) + 1, int(yi.max()) + 1
    check_memory(
        float(nx) * ny * 8 * TABLE_COPIES,
        what=f"empirical channel of {nx} input x {ny} output symbols and its working copies",
        name="x, y",
        override="bin or merge rare symbols first (a plug-in capacity needs many rows per "
        "input symbol anyway)",
    )
    c = np.zeros((nx, ny))
    np.add.at(c, (xi, yi), 1.0)
    return c / c.sum(axis=1, keepdims=True)


@register(
    "plugin",
    QUANTITY,
    kinds=("discrete",),
    family="channels",
    resampling="bootstrap",
    summary="Blahut-Arimoto capacity of the empirical channel n(x,y)/n(x) (biased up)",
)
def plugin_capacity(x: Variable, y: Variable, *, tol: float = 1e-10, max_iter: int = 100_000):
    """Capacity of the empirical channel of the observed inputs (Blahut–Arimoto)."""
    tol = check_float(tol, "tol", low=0.0, inclusive=(False, True))
    max_iter = check_int(max_iter, "max_iter", min_value=1)
    W = empirical_channel(x.codes, y.codes)
    run = _capacity(W, tol=tol, max_iter=max_iter)
    counts = np.bincount(np.unique(x.codes, return_inverse=True)[1])
    diag: dict[str, Any] = {
        "n_inputs_observed": int(W.shape[0]),
        "n_outputs_observed": int(W.shape[1]),
        "min_count_per_input": int(counts.min()),
        "gap": run.upper - run.lower,
        "iterations": run.iterations,
        "input_pmf": run.p.tolist(),
    }
    warns = []
    if not run.converged:
        warns.append(f"Blahut-Arimoto did not reach tol={tol:g} in max_iter={max_iter}")
    if counts.min() < 5 * W.shape[1]:
        warns.append(
            f"some input was seen only {int(counts.min())} times for {W.shape[1]} outputs: "
            "the plug-in capacity is biased upward at such counts"
        )
    return Raw(value=run.lower, diagnostics=diag, warnings=warns)


register_auto(
    AutoRule(
        QUANTITY,
        100,
        lambda ctx: ctx.kinds == {"discrete"},
        "plugin",
        "discrete input and output: plug-in channel + Blahut-Arimoto",
    )
)


@quantity_function(QUANTITY, ("x", "y"), fixed={"discrete": True})
def channel_capacity_from_samples(
    x: Any,
    y: Any,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    **params: Any,
) -> Estimate:
    """Capacity of the channel X → Y estimated from paired samples of input and output.

    The method ``"plugin"`` builds the empirical channel ``n(x, y) / n(x)`` over the
    observed inputs and maximises I(X;Y) over the input pmf by Blahut–Arimoto; the
    estimate is biased upward when inputs are seen few times per output symbol.

    Parameters
    ----------
    x, y
        Paired samples of the channel's input and output (discrete symbols).
    method
        ``"auto"`` or ``"plugin"``.
    unit, base
        Unit of the result.
    ci
        Confidence level for a bootstrap interval over the pairs, or None.
    seed
        Seed of the bootstrap. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    **params
        ``tol``, ``max_iter`` of Blahut–Arimoto.

    Returns
    -------
    Estimate

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> rng = np.random.default_rng(0)
    >>> x = rng.integers(0, 2, 5000)
    >>> y = np.where(rng.random(5000) < 0.1, 1 - x, x)
    >>> round(im.channel_capacity_from_samples(x, y, unit="bits").value, 1)
    0.5
    """
