"""Intervals, standard errors and the one constructor of an :class:`Estimate` from nats.

Every interval in infometer is built here:

* from a standard error: ``value ± z·se`` (normal), or ``value ± t·se`` with the Student
  t quantile on ``dof`` degrees of freedom when the standard error itself was estimated
  from few replicates (``dof = k - 1`` for k seeds, re-runs or items);
* from k replicates (seeds, re-runs, items): mean ± t_{k-1}·sd/√k;
* widened by a **bias check** (:func:`bias_check`, :func:`widen_by_bias`): a trained
  estimator (InfoSEDD, the neural bounds) measures its own model error at the user's
  sample size on a reference whose answer is known (shuffled pairs, where MI is 0; a
  Gaussian surrogate of known MI; the held-out likelihood form of the same quantity).
  Every interval of such an estimate is widened by ``|bias check|`` on both sides, and the
  check is flagged (``bias_check_large``, with a warning) when it is not small next to
  the value: ``|b| > max(BIAS_RELATIVE·|value|, BIAS_FLOOR)``.  A noisy check is not
  excused by its noise: the value it judges was trained with the same settings on as
  many rows, so its error is of the same size.
* and, for a quantity that is ≥ 0 by definition (``registry.NONNEGATIVE``: MI, CMI, KL,
  TE, AIS, TC, DTC, capacity, ...), one policy for the bound (:func:`respect_bounds`,
  applied by :func:`infometer.core.api.run` and :func:`make_estimate`): a lower bound below 0
  is raised to 0, and the estimate records ``diagnostics["ci_clipped"]`` with the bounds
  before (``ci_unclipped_nats``); an interval wholly below 0 is kept and flagged
  ``ci_below_zero``.  The truth lies in [0, ∞), so the clipped interval
  covers it whenever the unclipped one does (same coverage, never longer); the point
  estimate itself is never clipped (a negative value is the estimator's error, shown).

The quantiles come from :mod:`scipy.special` (``ndtri``, ``stdtrit``: the functions
behind ``norm.ppf`` and ``t.ppf``, without the slow import of :mod:`scipy.stats`).

Examples
--------
>>> from infometer.core.uncertainty import interval_from_stderr, replicate_summary
>>> lo, hi = interval_from_stderr(1.0, 0.1, 0.95)
>>> round(hi - 1.0, 4)
0.196
>>> mean, se, (lo, hi) = replicate_summary([1.0, 1.2, 1.1], 0.95)
>>> round(mean, 6), round(se, 6), round(hi - mean, 4)
(1.1, 0.057735, 0.2484)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from infometer.core.estimate import Estimate, resolve_unit

__all__ = [
    "normal_quantile",
    "t_quantile",
    "interval_from_stderr",
    "replicate_summary",
    "make_estimate",
    "bias_check",
    "widen_by_bias",
    "BIAS_RELATIVE",
    "BIAS_FLOOR",
    "respect_bounds",
    "exact_estimate",
]

#: A bias check is small next to the value when within this share of it ...
BIAS_RELATIVE = 0.1
#: ... or below this many nats (a check of an estimate near 0 is judged in nats).
BIAS_FLOOR = 0.02


def _level(level: Any) -> float:
    from infometer.core.validation import check_float

    return check_float(level, "ci", low=0.0, high=1.0, inclusive=(False, False))


def normal_quantile(level: float) -> float:
    """Two-sided normal quantile z with P(|Z| <= z) = ``level`` (1.96 at 0.95).

    Examples
    --------
    >>> round(normal_quantile(0.95), 4)
    1.96
    """
    from scipy.special import ndtri

    return float(ndtri(0.5 + _level(level) / 2))


def t_quantile(level: float, dof: int) -> float:
    """Two-sided Student t quantile on ``dof`` degrees of freedom (4.303 at 0.95, dof 2).

    Examples
    --------
    >>> round(t_quantile(0.95, 2), 3)
    4.303
    """
    from scipy.special import stdtrit

    from infometer.core.validation import check_int

    dof = check_int(dof, "dof", min_value=1)
    return float(stdtrit(dof, 0.5 + _level(level) / 2))


def interval_from_stderr(
    value: float, stderr: float, level: float, *, dof: int | None = None
) -> tuple[float, float]:
    """``value ± q·stderr``: q the normal quantile, or the t quantile on ``dof`` degrees of
    freedom when the standard error was estimated from ``dof + 1`` replicates.

    Examples
    --------
    >>> interval_from_stderr(0.0, 1.0, 0.95, dof=2)[1] > 4.3
    True
    """
    se = float(stderr)
    if not math.isfinite(se) or se < 0:
        raise ValueError(f"stderr must be a finite number >= 0, got {stderr!r}")
    q = normal_quantile(level) if dof is None else t_quantile(level, dof)
    v = float(value)
    return (v - q * se, v + q * se)


def replicate_summary(
    values: Sequence[float], level: float
) -> tuple[float, float, tuple[float, float]]:
    """Mean, standard error of the mean and the t interval (k − 1 degrees of freedom) of k
    replicate values (seeds, re-runs, items).

    Examples
    --------
    >>> replicate_summary([2.0, 4.0], 0.95)[:2]
    (3.0, 1.0)
    """
    import numpy as np

    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size < 2:
        raise ValueError(f"an interval from replicates needs at least 2 of them, got {v.size}")
    if not np.all(np.isfinite(v)):
        raise ValueError("replicate values contain NaN or inf; no interval")
    mean = float(v.mean())
    se = float(v.std(ddof=1) / math.sqrt(v.size))
    return mean, se, interval_from_stderr(mean, se, level, dof=v.size - 1)


def bias_check(
    value: float,
    bias: float,
    *,
    method: str,
    what: str,
    se: float | None = None,
    reference: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """Diagnostics and warnings of a trained estimator's check of its own bias.

    Parameters
    ----------
    value
        The estimate (nats).
    bias
        The check (nats): the estimate on a reference minus the reference's known answer
        (or the score form minus the likelihood form of the same quantity).
    method
        ``diagnostics["bias_check_method"]``, e.g. ``"shuffled_pairs"``.
    what
        The check in words, for the warning ("the estimate on shuffled pairs, whose MI
        is 0, was 0.31 nats").
    se
        Standard error of the check (Monte Carlo noise), if known.
    reference
        Facts about the reference (its answer, the estimate on it), recorded as
        ``diagnostics["bias_check_reference"]``.

    Returns
    -------
    tuple
        ``(diagnostics, warnings)``: ``bias_check``, ``bias_check_se``,
        ``bias_check_method``, ``bias_check_large`` (and the reference); one warning when
        the check is large (never for a non-finite value, which has its own).

    Examples
    --------
    >>> d, w = bias_check(2.43, 2.40, method="shuffled_pairs", what="the check gave 2.40")
    >>> d["bias_check_large"], len(w)
    (True, 1)
    >>> bias_check(1.0, 0.01, method="shuffled_pairs", what="")[0]["bias_check_large"]
    False
    """
    b, v = float(bias), float(value)
    large = bool(
        math.isfinite(v)
        and (not math.isfinite(b) or abs(b) > max(BIAS_RELATIVE * abs(v), BIAS_FLOOR))
    )
    diag: dict[str, Any] = {
        "bias_check": b,
        "bias_check_se": None if se is None else float(se),
        "bias_check_method": method,
        "bias_check_large": large,
    }
    if reference is not None:
        diag["bias_check_reference"] = dict(reference)
    warns = []
    if large:
        warns.append(
            f"the model's own error is not small at this sample size: {what}, a bias check "
            f"of {b:+.3g} nats next to the estimate {v:.3g} nats (more than "
            f"{BIAS_RELATIVE:.0%} of it); the value may be off by about that much and "
            "intervals are widened by it. Use more rows or a classical estimator"
        )
    return diag, warns


def widen_by_bias(interval: tuple[float, float], bias: float | None) -> tuple[float, float]:
    """``(low − |bias|, high + |bias|)``: an interval that also holds the model error a bias
    check measured (``bias`` None or NaN: unchanged; infinite: unbounded).

    Examples
    --------
    >>> widen_by_bias((1.0, 2.0), -0.5)
    (0.5, 2.5)
    """
    lo, hi = float(interval[0]), float(interval[1])
    if bias is None or math.isnan(bias):
        return (lo, hi)
    b = abs(float(bias))
    return (lo - b, hi + b)


def respect_bounds(
    quantity: str | None, interval: tuple[float, float] | None
) -> tuple[tuple[float, float] | None, dict[str, Any]]:
    """The interval of a quantity that is ≥ 0 by definition, with bounds below 0 raised to
    0, and the diagnostics that say so; any other interval as given.

    The one policy of infometer for intervals of non-negative quantities (the set
    ``registry.NONNEGATIVE``, which each family extends): intersecting a confidence
    interval with the parameter space [0, ∞) keeps its coverage, since the truth lies
    there.  When the whole interval is below 0 the intersection is empty: no interval of
    possible values is left, so the interval is kept as built and flagged
    ``ci_below_zero`` (the estimator's error exceeds its spread there; a zero-width (0, 0)
    would claim a certainty the data do not give).

    Examples
    --------
    >>> respect_bounds("mutual_info", (-0.0019, 0.0148))
    ((0.0, 0.0148), {'ci_clipped': 'lower', 'ci_unclipped_nats': [-0.0019, 0.0148]})
    >>> respect_bounds("mutual_info", (-0.8, -0.3))
    ((-0.8, -0.3), {'ci_below_zero': True})
    >>> respect_bounds("entropy", (-1.0, 2.0))  # differential entropy may be < 0
    ((-1.0, 2.0), {})
    """
    if interval is None or quantity is None:
        return interval, {}
    lo, hi = float(interval[0]), float(interval[1])
    if not lo < 0:
        return (lo, hi), {}
    from infometer.core import registry

    if quantity not in registry.NONNEGATIVE:
        registry._ensure_loaded()  # families add their quantities on import
        if quantity not in registry.NONNEGATIVE:
            return (lo, hi), {}
    if hi < 0:
        return (lo, hi), {"ci_below_zero": True}
    return (0.0, hi), {"ci_clipped": "lower", "ci_unclipped_nats": [lo, hi]}


def make_estimate(
    value_nats: float,
    *,
    quantity: str,
    method: str,
    unit: str | None = "nats",
    base: float | None = None,
    n: int | None = None,
    stderr: float | None = None,
    ci: tuple[float, float] | None = None,
    ci_level: float | None = None,
    params: dict[str, Any] | None = None,
    diagnostics: dict[str, Any] | None = None,
    warnings: Sequence[str] | None = None,
) -> Estimate:
    """The one way to turn a value in nats (with its stderr and interval in nats) into an
    :class:`Estimate` in the requested unit, outside :func:`infometer.core.api.run`.

    ``warnings`` are recorded in ``diagnostics["warnings"]`` (emitting them is the
    caller's business, at the user's line).  An interval without a standard error is
    refused: wherever an interval is reported, the standard error behind it is too.  The
    interval of a non-negative quantity goes through :func:`respect_bounds`.

    Examples
    --------
    >>> e = make_estimate(0.6931471805599453, quantity="entropy", method="exact", unit="bits")
    >>> e.value, e.unit
    (1.0, 'bits')
    """
    if ci is not None and stderr is None:
        raise ValueError(f"{method}: an interval was given without the standard error behind it")
    if (ci is None) != (ci_level is None):
        raise ValueError(f"{method}: ci and ci_level must be given together")
    unit_name = resolve_unit(unit, base)
    diag = dict(diagnostics or {})
    ci, clipped = respect_bounds(quantity, ci)
    diag.update(clipped)
    if warnings:
        diag["warnings"] = list(diag.get("warnings", [])) + list(warnings)
    est = Estimate(
        value=value_nats,
        unit="nats",
        method=method,
        quantity=quantity,
        params=dict(params or {}),
        n=n,
        stderr=stderr,
        ci=ci,
        ci_level=ci_level,
        diagnostics=diag,
    )
    return est if unit_name == "nats" else est.to(unit_name)


def exact_estimate(
    value_nats: float, quantity: str, unit: str | None = "nats", base: float | None = None
) -> Estimate:
    """An exact value of a given pmf (no sampling error) as an :class:`Estimate` with
    ``method="exact"``: the constructor that every ``exact`` function shares
    (:mod:`infometer.measures.exact` and the families' exact modules).

    Examples
    --------
    >>> exact_estimate(0.6931471805599453, "entropy", unit="bits").value
    1.0
    """
    return make_estimate(value_nats, quantity=quantity, method="exact", unit=unit, base=base)
