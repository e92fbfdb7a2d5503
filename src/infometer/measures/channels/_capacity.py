"""Channel capacity of a given channel matrix by Blahut–Arimoto, with a certified gap."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core._warnings import warn_user
from infometer.core.data import InfometerWarning
from infometer.core.estimate import Estimate, resolve_unit, unit_factor
from infometer.core.plot import finish, new_axes
from infometer.core.results import Result
from infometer.core.uncertainty import make_estimate
from infometer.core.validation import validate_params

from ._blahut import capacity as _capacity
from ._inputs import STOPPING, channel_matrix, tol_iter

__all__ = ["ChannelCapacity", "channel_capacity"]


@dataclass(frozen=True, eq=False, repr=False)
class ChannelCapacity(Result):
    """Capacity of a discrete memoryless channel and an input that achieves it.

    Attributes
    ----------
    capacity
        :class:`~infometer.Estimate` of C = max_p I(X;Y): the value is ``lower``, the
        mutual information the returned input achieves; ``diagnostics`` holds ``lower``,
        ``upper``, ``gap``, ``iterations`` and ``converged``.
    lower, upper
        Certified bounds at the stop, ``lower <= C <= upper`` (in ``unit``).
    gap
        ``upper - lower``.
    input_pmf, output_pmf
        The capacity-achieving input p(x) found and its output pmf p(y) = sum_x p(x) W[x, y].
    iterations, converged
        Blahut–Arimoto iterations and whether ``gap <= tol`` was reached.
    unit
        Unit of ``lower``, ``upper`` and ``gap``.
    """

    capacity: Estimate
    lower: float
    upper: float
    gap: float
    input_pmf: np.ndarray = field(repr=False)
    output_pmf: np.ndarray = field(repr=False)
    iterations: int
    converged: bool
    unit: str

    @property
    def value(self) -> float:
        """The capacity (the ``lower`` bound, achieved by :attr:`input_pmf`)."""
        return self.capacity.value

    def to_frame(self):
        """Tidy frame: one row per input symbol with its capacity-achieving probability."""
        import pandas as pd

        return pd.DataFrame(
            {
                "input": np.arange(self.input_pmf.size),
                "p_input": self.input_pmf,
                "capacity": self.value,
                "gap": self.gap,
                "unit": self.unit,
            }
        )

    def plot(self, ax=None, path=None):
        """Bar chart of the capacity-achieving input pmf; returns the Axes."""
        _, ax = new_axes(ax)
        ax.bar(np.arange(self.input_pmf.size), self.input_pmf, color="tab:blue")
        ax.set_xlabel("input symbol x")
        ax.set_ylabel("p*(x)")
        ax.set_title(f"capacity {self.value:.4g} {self.unit} (gap {self.gap:.1e})", fontsize=10)
        return finish(ax, path)


@validate_params(STOPPING)
def channel_capacity(
    channel: Any,
    *,
    unit: str | None = "nats",
    base: float | None = None,
    tol: float = 1e-10,
    max_iter: int = 100_000,
) -> ChannelCapacity:
    """Capacity ``C = max_p I(X;Y)`` of the channel ``W[x, y] = P(y | x)`` (Blahut–Arimoto).

    The iteration ``p(x) ← p(x) exp(D(W_x ‖ pW)) / Z`` stops when the certified gap
    ``max_x D(W_x ‖ pW) - I(p; W)`` is at most ``tol`` nats (Blahut 1972, Theorem 2:
    ``I(p; W) <= C <= max_x D(W_x ‖ pW)`` for every p).

    Parameters
    ----------
    channel
        Matrix with one row per input symbol, each row a pmf over the outputs.
    unit, base
        Unit of the result (default nats).
    tol
        Gap at which to stop, in nats.
    max_iter
        Iteration limit; when reached the result says ``converged=False`` (the bounds
        are still certified) and the Estimate carries a warning.

    Returns
    -------
    ChannelCapacity

    Examples
    --------
    >>> import infometer as im
    >>> res = im.exact.channel_capacity([[0.9, 0.1], [0.1, 0.9]], unit="bits")
    >>> round(res.value, 6)  # 1 - h(0.1)
    0.531004
    """
    W = channel_matrix(channel, "channel")
    tol, max_iter = tol_iter(tol, max_iter)
    u = resolve_unit(unit, base)
    run = _capacity(W, tol=tol, max_iter=max_iter)
    f = unit_factor("nats", u)
    warns: list[str] = []
    diag: dict[str, Any] = {
        "lower": run.lower * f,
        "upper": run.upper * f,
        "gap": (run.upper - run.lower) * f,
        "iterations": run.iterations,
        "converged": run.converged,
        "input_pmf": run.p.tolist(),
    }
    if not run.converged:
        warns.append(
            f"Blahut-Arimoto stopped after max_iter={max_iter} iterations with gap "
            f"{run.upper - run.lower:.3g} nats > tol={tol:.3g}; the capacity lies in "
            f"[{run.lower:.6g}, {run.upper:.6g}] nats"
        )
        warn_user(warns[0], InfometerWarning)
    est = make_estimate(
        run.lower,
        quantity="channel_capacity",
        method="blahut_arimoto",
        unit=u,
        params={"tol": tol, "max_iter": max_iter},
        diagnostics=diag,
        warnings=warns,
    )
    return ChannelCapacity(
        capacity=est,
        lower=run.lower * f,
        upper=run.upper * f,
        gap=(run.upper - run.lower) * f,
        input_pmf=run.p,
        output_pmf=run.q,
        iterations=run.iterations,
        converged=run.converged,
        unit=u,
    )
