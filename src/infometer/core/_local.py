"""Local (pointwise) values: the result type and the family hook (ground floor).

A registered estimator that admits local values exposes ``func.local_values(*variables,
**params) -> LocalRaw``: the value of each sample (in nats) whose mean is
``func(*variables, **params).value`` to float rounding.  :func:`infometer.core.api.run_local`
calls it for ``im.mutual_info(..., local=True)`` and every other ``local=True`` entry
point; derived quantities (transfer entropy, active information storage) expose the hook
of the MI / CMI estimator they embed.  This module imports nothing above the ground floor,
so the dispatcher and every family can use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core.estimate import Estimate, unit_factor
from infometer.core.results import Result

__all__ = ["LocalRaw", "LocalValues"]


@dataclass(frozen=True)
class LocalRaw:
    """What a family's ``local_values`` hook returns (nats, one value per sample).

    Attributes
    ----------
    values
        Local values in nats; their mean is the estimator's value.
    times
        For embedded series (TE, AIS): the time index of each value's present sample.
    diagnostics
        Facts from the estimator.
    params
        Parameters the hook resolved (e.g. a history chosen by ``k="auto"``).
    warnings
        Messages for the user, as in :class:`~infometer.core.registry.Raw` (the dispatcher
        emits them once and records them in ``diagnostics["warnings"]``).
    """

    values: np.ndarray
    times: np.ndarray | None = None
    diagnostics: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True, eq=False, repr=False)
class LocalValues(Result):
    """Local values of one quantity, one per sample (row of the embedding).

    Attributes
    ----------
    values
        The local values in ``unit``; their mean is the estimate.
    quantity, method, unit
        What was computed, by which estimator, in which unit.
    times
        For TE and AIS: the time index of the present sample of each value.
    diagnostics
        Facts from the estimator (e.g. mean neighbour counts, the chosen history).
    params
        The estimator's parameters (a re-run with them gives the same values).
    """

    values: np.ndarray
    quantity: str
    method: str
    unit: str = "nats"
    times: np.ndarray | None = None
    diagnostics: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def mean(self) -> float:
        """The average of the local values: the estimate."""
        return float(np.mean(self.values))

    def estimate(
        self, ci: float | None = None, *, seed: int | None = 0, n_resamples: int = 200
    ) -> Estimate:
        """The average as an :class:`~infometer.Estimate`; with ``ci=`` (a level) an
        interval that respects serial dependence: block subsampling of the local values in
        their order (the ``"block"`` scheme of :func:`infometer.core.resample.error_bars`,
        :func:`infometer.core.resample.summary_interval`).  The local values are the
        estimator's influence function up to a constant (the local MI i(x; y) − I is the
        influence function of I), so the spread of their block means is the spread of the
        estimate; the interval does not re-fit the density or neighbour counts.

        Examples
        --------
        >>> import numpy as np, infometer as im
        >>> x = np.random.default_rng(0).integers(0, 2, 3000); y = np.roll(x, 1)
        >>> lv = im.transfer_entropy(x, y, method="plugin", local=True)
        >>> e = lv.estimate(ci=0.95)
        >>> bool(e.ci[0] < e.value < e.ci[1])
        True
        """
        from infometer.core.resample import summary_interval
        from infometer.core.uncertainty import make_estimate
        from infometer.core.validation import check_float

        f = unit_factor(self.unit, "nats")
        stderr = interval = None
        diag = dict(self.diagnostics)
        if ci is not None:
            ci = check_float(ci, "ci", low=0.0, high=1.0, inclusive=(False, False))
            se, (lo, hi), d = summary_interval(
                self.values * f, level=ci, seed=seed, n_resamples=n_resamples
            )
            stderr, interval = se, (lo, hi)
            diag.update(d)
        return make_estimate(
            self.mean * f,
            quantity=self.quantity,
            method=self.method,
            unit=self.unit,
            n=int(self.values.size),
            stderr=stderr,
            ci=interval,
            ci_level=ci,
            params={**self.params, "local": True},
            diagnostics=diag,
        )

    def to_frame(self):
        """Tidy DataFrame: ``time`` (or ``row``) and ``local`` value."""
        import pandas as pd

        idx = self.times if self.times is not None else np.arange(self.values.size)
        name = "time" if self.times is not None else "row"
        return pd.DataFrame({name: idx, "local": self.values})

    def plot(self, ax=None, path=None):
        """Local values against time (or row), with their mean."""
        from infometer.core.plot import finish, new_axes

        _, ax = new_axes(ax, figsize=(7.0, 3.0))
        idx = self.times if self.times is not None else np.arange(self.values.size)
        ax.plot(idx, self.values, lw=0.6, color="#3b75af")
        ax.axhline(self.mean, color="#c0392b", lw=1.0, label=f"mean {self.mean:.3g} {self.unit}")
        ax.axhline(0.0, color="black", lw=0.5)
        ax.set_xlabel("time" if self.times is not None else "row")
        ax.set_ylabel(f"local {self.quantity} ({self.unit})")
        ax.set_title(f"local {self.quantity} [{self.method}]", fontsize=10)
        ax.legend(fontsize=8, loc="upper right")
        return finish(ax, path)

    def __len__(self) -> int:
        return int(self.values.size)
