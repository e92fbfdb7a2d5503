"""Public functions: :func:`complexity`, :func:`multiscale`, :func:`complexity_entropy_plane`."""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core._warnings import warn_user
from infometer.core.api import estimate
from infometer.core.data import InfometerWarning, _matrix_variable, as_variable
from infometer.core.estimate import Estimate
from infometer.core.plot import finish, new_axes
from infometer.core.progress import progress_bar
from infometer.core.results import Result
from infometer.core.seeding import Seed
from infometer.core.uncertainty import t_quantile
from infometer.core.validation import (
    Flag,
    Interval,
    Many,
    Options,
    Size,
    check_int,
    check_real_array,
    validate_params,
)

from . import _measures as measures
from ._estimators import DISTANCE_MEASURES, IMAGE_QUANTITY, QUANTITY, _grid_check
from ._measures import K

__all__ = ["complexity", "multiscale", "MultiscaleResult", "complexity_entropy_plane"]

_UNITLESS = "a normalised value (a fraction of its maximum) has no unit"


def _check_unit(measure: str, params: dict, unit: Any, base: Any) -> None:
    if (params.get("normalize") or measure == "statistical_complexity") and (
        unit not in (None, "nats") or base is not None
    ):
        raise ValueError(f"unit/base: {_UNITLESS}; pass normalize=False for a value in {unit}")


def complexity(
    x: Any,
    measure: str = "permutation",
    *,
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    **params: Any,
) -> Estimate:
    """Complexity of a signal (or an image) by one measure, as an :class:`Estimate`.

    Parameters
    ----------
    x
        1-D signal (a 2-D image for ``measure="permutation_2d"``).
    measure
        ``permutation``, ``weighted_permutation``, ``modified_permutation``,
        ``dispersion``, ``sample``, ``approximate``, ``fuzzy``, ``spectral``, ``svd``,
        ``statistical_complexity`` or ``permutation_2d``.
    unit, base
        Unit of an unnormalised entropy (default nats).
    ci
        Confidence level of a block-subsampling interval (``stderr_blocks`` blocks, 10 by
        default), or None.
    seed
        Unused by these deterministic measures; accepted for a uniform API. An int >= 0 (the same
        int gives the same numbers), a numpy.random.Generator (drawn from as it is) or None (fresh
        entropy from the operating system).
    **params
        The measure's parameters: ``order`` (embedding dimension), ``delay``, ``normalize``,
        ``r`` (tolerance as a multiple of the signal's sd), ``classes``, ``psd``
        (``periodogram``/``welch``) ... (``infometer.core.registry.get("complexity",
        measure).params``).

    Returns
    -------
    Estimate
        In nats, or a fraction in [0, 1] with ``normalize=True`` (recorded as
        ``diagnostics["normalized"]``).

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> x = np.random.default_rng(0).normal(size=20_000)
    >>> round(im.complexity(x, "permutation", order=3, normalize=True).value, 3)
    1.0
    >>> im.complexity(np.arange(100.0), "permutation", order=4).value  # monotone: one pattern
    0.0
    """
    if not isinstance(measure, str):
        raise TypeError(f"measure must be a string, got {type(measure).__name__}")
    if "discrete" in params:
        raise TypeError(
            "complexity() takes no discrete=: a signal's complexity is computed from its "
            "numbers (integers included); pass the signal as numbers"
        )
    m = measure.lower()
    if m != "auto" and not (registry._has(QUANTITY, m) or registry._has(IMAGE_QUANTITY, m)):
        known = ["auto", *registry.methods(QUANTITY), *registry.methods(IMAGE_QUANTITY)]
        raise ValueError(f"measure must be one of {known}, got {measure!r}")
    _check_unit(measure, params, unit, base)
    params.setdefault("stderr_blocks", 10 if ci is not None else 0)
    quantity = IMAGE_QUANTITY if m == "permutation_2d" else QUANTITY
    if quantity == IMAGE_QUANTITY:  # one image, not a table of columns to look at one by one
        x = _matrix_variable(check_real_array(x, "x", ndim=2), "x")
    return estimate(
        quantity,
        {"x": x},
        method=measure,
        unit=unit,
        base=base,
        ci=ci,
        seed=seed,
        discrete=False,
        **params,
    )


@dataclass(frozen=True, eq=False, repr=False)
class MultiscaleResult(Result):
    """A measure at several coarse-graining scales.

    Attributes
    ----------
    measure, method
        The measure and the multiscale scheme (``standard``, ``composite``, ``refined``).
    scales, values
        Scale factors and the measure at each (nats, or fractions with ``normalize``).
    stderr
        Block-subsampling standard errors (``standard`` with ``ci=``), else NaN.
    unit
        ``"nats"`` or ``"normalized"``.
    """

    measure: str
    method: str
    scales: np.ndarray = field(repr=False)
    values: np.ndarray = field(repr=False)
    stderr: np.ndarray = field(repr=False)
    unit: str
    params: dict = field(default_factory=dict, repr=False)

    @property
    def complexity_index(self) -> float:
        """The sum of the values over the scales (Costa et al. 2005's complexity index)."""
        return float(np.nansum(self.values))

    def to_frame(self):
        """Tidy frame: scale, value, stderr, measure, method, unit."""
        import pandas as pd

        return pd.DataFrame(
            {
                "scale": self.scales,
                "value": self.values,
                "stderr": self.stderr,
                "measure": self.measure,
                "method": self.method,
                "unit": self.unit,
            }
        )

    def plot(self, ax=None, path=None):
        """The measure against the scale, with 95% CI bars where a stderr is known (the t
        quantile on blocks - 1 degrees of freedom, as the estimates' own intervals); returns
        the Axes."""
        _, ax = new_axes(ax)
        q = t_quantile(0.95, int(self.params.get("stderr_blocks", 10)) - 1)
        se = np.where(np.isfinite(self.stderr), self.stderr, 0.0) * q
        ax.errorbar(self.scales, self.values, yerr=se, fmt="o-", ms=3, capsize=2)
        if np.isfinite(self.stderr).any():
            ax.text(0.99, 0.01, "bars: 95% CI", transform=ax.transAxes, ha="right", fontsize=7)
        ax.set_xlabel("scale factor")
        ax.set_ylabel(f"{self.measure} entropy [{self.unit}]")
        ax.set_title(f"multiscale {self.measure} ({self.method})", fontsize=10)
        return finish(ax, path)


@validate_params(
    {
        "scales": [
            Interval(numbers.Integral, 1),
            Many(Interval(numbers.Integral, 1), distinct=True, what="scale factors"),
        ],
        "method": [Options("standard", "composite", "refined")],
        "progress": [Flag(), None],
    }
)
def multiscale(
    x: Any,
    measure: str = "sample",
    *,
    scales: Any = 20,
    method: str = "standard",
    ci: float | None = None,
    progress: bool | None = None,
    **params: Any,
) -> MultiscaleResult:
    """Multiscale entropy: the measure of the coarse-grained signal at each scale.

    ``standard`` (Costa, Goldberger & Peng 2002): the means of non-overlapping windows of
    ``scale`` samples; ``composite`` (Wu et al. 2013): the mean of the measure over the
    ``scale`` offsets of the coarse-graining; ``refined`` (refined composite, Wu et al.
    2014, sample entropy only): ``-log(sum A / sum B)`` over the offsets.  The tolerance of
    sample, approximate and fuzzy entropy is fixed at ``r · sd(x)`` of the original signal.

    Parameters
    ----------
    x
        1-D signal.
    measure
        Any 1-D measure of :func:`complexity`.
    scales
        An int S (scales 1..S) or a list of scale factors.
    method
        ``"standard"``, ``"composite"`` or ``"refined"``.
    ci
        With ``standard``: block-subsampling error bars at this level (in ``stderr``).
    progress
        Progress bar over the scales (None: the shared default).
    **params
        The measure's parameters.

    Returns
    -------
    MultiscaleResult

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> x = np.random.default_rng(1).normal(size=3000)
    >>> res = im.multiscale(x, "sample", scales=3)
    >>> list(res.to_frame()["scale"])
    [1, 2, 3]
    """

    if measure not in measures.MEASURES:
        raise ValueError(f"measure must be one of {sorted(measures.MEASURES)}, got {measure!r}")
    if method == "refined" and measure != "sample":
        raise ValueError("method='refined' (refined composite) is defined for measure='sample'")
    s = check_real_array(x, "x", ndim=1)
    if measure in measures.SCALE_FREE:  # where squares of x would overflow
        s = measures.rescaled(s)[0]
    most = s.size // measures.MIN_SAMPLES
    top = scales if isinstance(scales, int) else int(np.max(scales))
    if top > most:
        raise ValueError(
            f"scales: the largest, {top}, leaves fewer than {measures.MIN_SAMPLES} samples of "
            f"the coarse-grained signal ({s.size} samples); the limit here is scale {most} "
            f"(signal length / {measures.MIN_SAMPLES}): pass scales <= {most} or a longer signal"
        )
    sc = np.arange(1, scales + 1) if isinstance(scales, int) else np.asarray(scales)
    fn = measures.MEASURES[measure][0]
    params = dict(params)
    distance = measure in DISTANCE_MEASURES
    dequantize = params.pop("dequantize", False) if distance else False
    seed = params.pop("seed", 0) if distance else 0
    if "r" in _own_params(fn):
        # the tolerance is fixed at r * sd of the original signal for every scale (Costa)
        r = params.pop("r", 0.2)
        if params.get("r_abs") is None:
            params["r_abs"] = measures._tolerance(s, r, None)
            if not math.isfinite(params["r_abs"]):
                raise ValueError(
                    f"x: the tolerance r·sd(x) of {measure} entropy overflows float64 and the "
                    "measure depends on the signal's scale; standardise x first (x / x.std())"
                )
    if distance:  # a rounded signal: dequantised once, or one warning (not one per scale)
        s, warns, _ = _grid_check(measure, as_variable(s), s, dict(params), dequantize, seed)
        for w in warns:
            warn_user(w, InfometerWarning)
    # the inner calls see the signal as it now is (dequantised once, or warned about once)
    inner = {**params, "dequantize": False} if distance else params
    values, ses = [], []
    for scale in progress_bar(
        list(sc), desc=f"multiscale {measure}", unit="scale", progress=progress
    ):
        scale = int(scale)
        if method == "standard":
            with warnings.catch_warnings():  # the ties were stated once, above
                warnings.filterwarnings("ignore", message="x has tied values")
                e = complexity(K.coarse_grain(s, scale), measure, ci=ci, **inner)
            values.append(e.value)
            ses.append(np.nan if e.stderr is None else e.stderr)
        elif method == "composite":
            vals = [fn(K.coarse_grain(s, scale, k), **params) for k in range(scale)]
            values.append(float(np.mean(vals)))
            ses.append(np.nan)
        else:
            m, tau = measures.check_embedding(
                s.size // scale, params.get("order", 2), params.get("delay", 1), extra=1
            )
            A = B = 0.0
            for k in range(scale):
                a, b = measures.sample_counts(K.coarse_grain(s, scale, k), m, tau, params["r_abs"])
                A, B = A + a, B + b
            values.append(math.inf if A == 0 or B == 0 else -math.log(A / B))
            ses.append(np.nan)
    unit = (
        "normalized" if params.get("normalize") or measure == "statistical_complexity" else "nats"
    )
    if distance:
        params = {**params, "dequantize": dequantize, "seed": seed}
    return MultiscaleResult(
        measure, method, sc.astype(int), np.array(values), np.array(ses), unit, params
    )


def _own_params(fn) -> set[str]:
    import inspect

    return set(inspect.signature(fn).parameters)


@dataclass(frozen=True, eq=False, repr=False)
class ComplexityEntropyPlane(Result):
    """Points of the complexity–entropy plane (normalised PE, statistical complexity)."""

    labels: tuple[str, ...]
    entropy: np.ndarray = field(repr=False)
    complexity: np.ndarray = field(repr=False)
    order: int

    def to_frame(self):
        """Tidy frame: label, entropy (H/log m!), complexity."""
        import pandas as pd

        return pd.DataFrame(
            {"label": self.labels, "entropy": self.entropy, "complexity": self.complexity}
        )

    def plot(self, ax=None, path=None):
        """The points with the plane's lower and upper limits; returns the Axes."""
        _, ax = new_axes(ax)
        lo, hi = plane_limits(math.factorial(self.order))
        ax.plot(lo[0], lo[1], "-", color="grey", lw=1)
        ax.plot(hi[0], hi[1], "-", color="grey", lw=1)
        ax.scatter(self.entropy, self.complexity, zorder=3)
        for lab, h, c in zip(self.labels, self.entropy, self.complexity, strict=True):
            ax.annotate(lab, (h, c), fontsize=8, xytext=(3, 3), textcoords="offset points")
        ax.set_xlabel("normalised permutation entropy H")
        ax.set_ylabel("statistical complexity C")
        ax.set_xlim(0, 1.02)
        ax.set_ylim(bottom=0)
        ax.set_title(f"complexity-entropy plane (order={self.order})", fontsize=10)
        return finish(ax, path)


#: Most states of the plane's limit curves (7! patterns: the upper curve takes n² work).
MAX_PLANE_STATES = 5040


@validate_params(
    {
        "n": [Size(2, limit=MAX_PLANE_STATES, what="states (patterns, order!)")],
        "points": [Size(2, limit=100_000, what="points per curve")],
    }
)
def plane_limits(n: int, points: int = 200) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Lower and upper limit curves of (H, C) for pmfs on n states (Martin, Plastino &
    Rosso 2006): the lower one from ``(p, (1-p)/(n-1), ...)``, the upper one from ``j``
    zeros and ``(p, (1-p)/(n-j-1), ...)`` pieces."""
    lo_h, lo_c = [], []
    for p in np.linspace(1.0 / n, 1.0, points):
        q = np.full(n, (1 - p) / (n - 1))
        q[0] = p
        h, c = measures.complexity_of_pmf(q)
        lo_h.append(h)
        lo_c.append(c)
    hi_h, hi_c = [], []
    for j in range(n - 1):
        for p in np.linspace(0.0, 1.0 / (n - j), max(4 * points // n, 20)):
            q = np.zeros(n)
            q[j + 1 :] = (1 - p) / (n - j - 1)
            q[j] = p
            h, c = measures.complexity_of_pmf(q)
            hi_h.append(h)
            hi_c.append(c)
    order = np.argsort(hi_h)
    return (np.array(lo_h), np.array(lo_c)), (np.array(hi_h)[order], np.array(hi_c)[order])


def complexity_entropy_plane(
    signals: Any, *, order: int = 4, delay: int = 1, labels: Any = None
) -> ComplexityEntropyPlane:
    """Place signals on the complexity–entropy plane (Rosso et al. 2007).

    Parameters
    ----------
    signals
        A 1-D signal, a list of them, or a dict label -> signal.
    order, delay
        Embedding of the ordinal patterns.
    labels
        Names of the signals (default: the dict keys or 0, 1, ...).

    Returns
    -------
    ComplexityEntropyPlane

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> rng = np.random.default_rng(0)
    >>> plane = im.complexity_entropy_plane({"noise": rng.normal(size=5000)}, order=3)
    >>> round(float(plane.entropy[0]), 2), round(float(plane.complexity[0]), 2)
    (1.0, 0.0)
    """
    order = check_int(order, "order", min_value=2, max_value=measures.MAX_ORDER)
    if isinstance(signals, dict):
        labels = tuple(str(k) for k in signals) if labels is None else tuple(labels)
        signals = list(signals.values())
    elif isinstance(signals, np.ndarray) and signals.ndim == 1:
        signals = [signals]
    if isinstance(signals, str | bytes) or not hasattr(signals, "__len__"):
        raise TypeError(
            f"signals must be a 1-D signal, a list of them or a dict label -> signal, got "
            f"{type(signals).__name__}"
        )
    if len(signals) == 0:
        raise ValueError("signals is empty: pass at least one signal")
    sigs = [measures.rescaled(check_real_array(s, "signals", ndim=1))[0] for s in signals]
    labels = tuple(str(i) for i in range(len(sigs))) if labels is None else tuple(labels)
    if len(labels) != len(sigs):
        raise ValueError(f"labels has {len(labels)} names for {len(sigs)} signals")
    hs, cs = [], []
    for s in sigs:
        c = measures.ordinal_counts(s, order, delay)
        h, comp = measures.complexity_of_pmf(c / c.sum())
        hs.append(h)
        cs.append(comp)
    return ComplexityEntropyPlane(labels, np.array(hs), np.array(cs), int(order))
