"""Rate–distortion function R(D) of a discrete source by Blahut's algorithm."""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core.estimate import Estimate, resolve_unit, unit_factor
from infometer.core.plot import finish, new_axes
from infometer.core.progress import progress_bar
from infometer.core.results import Result
from infometer.core.uncertainty import make_estimate
from infometer.core.validation import (
    Flag,
    Interval,
    Many,
    Size,
    check_float,
    validate_params,
)

from ._blahut import rd_point
from ._inputs import STOPPING, distortion_matrix, pmf, tol_iter

#: Most slopes of a curve.
MAX_BETAS = 100_000

__all__ = ["RateDistortionPoint", "RateDistortionCurve", "rate_distortion", "rate_distortion_curve"]


@dataclass(frozen=True, eq=False, repr=False)
class RateDistortionPoint(Result):
    """One point of R(D) at slope ``-beta``.

    Attributes
    ----------
    rate
        :class:`~infometer.Estimate` of R(D) at ``distortion``: the rate ``I(X; X^)`` of
        the returned test channel, achievable at that distortion (an upper bound on R(D)).
    lower
        Certified lower bound on R(``distortion``) (``rate - lower`` is the gap).
    distortion
        Expected distortion E d(X, X^) of the test channel.
    beta
        Lagrange multiplier: R(D) has slope ``-beta`` (per nat) at this point.
    test_channel, reproduction_pmf
        Q(x^ | x) and the output pmf q(x^).
    """

    rate: Estimate
    lower: float
    distortion: float
    beta: float
    test_channel: np.ndarray = field(repr=False)
    reproduction_pmf: np.ndarray = field(repr=False)
    iterations: int
    converged: bool
    unit: str

    @property
    def value(self) -> float:
        return self.rate.value


@dataclass(frozen=True, eq=False, repr=False)
class RateDistortionCurve(Result):
    """R(D) sampled at several slopes; from ``(D_max, 0)`` down to small distortions.

    Attributes
    ----------
    beta, distortion, rate, lower
        Arrays (one entry per point, sorted by distortion): the slope parameter, the
        distortion, the achievable rate and its certified lower bound (in ``unit``).
    max_distortion
        ``D_max = min_x^ E d(X, x^)``: R(D) = 0 for every D >= D_max.
    """

    beta: np.ndarray = field(repr=False)
    distortion: np.ndarray = field(repr=False)
    rate: np.ndarray = field(repr=False)
    lower: np.ndarray = field(repr=False)
    max_distortion: float
    unit: str

    def to_frame(self):
        """Tidy frame with columns beta, distortion, rate, rate_lower, unit."""
        import pandas as pd

        return pd.DataFrame(
            {
                "beta": self.beta,
                "distortion": self.distortion,
                "rate": self.rate,
                "rate_lower": self.lower,
                "unit": self.unit,
            }
        )

    def plot(self, ax=None, path=None):
        """R(D) against D (line), with the certified lower bounds; returns the Axes."""
        _, ax = new_axes(ax)
        ax.plot(self.distortion, self.rate, "-", color="tab:blue", label="R(D) (achievable)")
        ax.plot(self.distortion, self.lower, ".", color="tab:orange", ms=3, label="lower bound")
        ax.set_xlabel("distortion D")
        ax.set_ylabel(f"rate R(D) [{self.unit}]")
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
        ax.set_title("rate-distortion function (Blahut-Arimoto)", fontsize=10)
        return finish(ax, path)


def _setup(p_x: Any, distortion: Any, tol: Any, max_iter: Any):
    p = pmf(p_x, "p_x")
    d = distortion_matrix(distortion, p.size, "distortion")
    tol, max_iter = tol_iter(tol, max_iter)
    return p, d, tol, max_iter


def _point(p, d, beta, tol, max_iter, u, q0=None) -> RateDistortionPoint:
    run = rd_point(p, d, beta, q0=q0, tol=tol, max_iter=max_iter)
    f = unit_factor("nats", u)
    diag = {
        "distortion": run.distortion,
        "lower": run.lower * f,
        "gap": (run.rate - run.lower) * f,
        "beta": beta,
        "iterations": run.iterations,
        "converged": run.converged,
    }
    est = make_estimate(
        run.rate,
        quantity="rate_distortion",
        method="blahut_arimoto",
        unit=u,
        params={"beta": beta, "tol": tol, "max_iter": max_iter},
        diagnostics=diag,
    )
    return RateDistortionPoint(
        rate=est,
        lower=run.lower * f,
        distortion=run.distortion,
        beta=beta,
        test_channel=run.channel,
        reproduction_pmf=run.q,
        iterations=run.iterations,
        converged=run.converged,
        unit=u,
    )


@validate_params(
    {
        **STOPPING,
        "beta": [Interval(numbers.Real, 0), None],
        "max_distortion": [Interval(numbers.Real), None],
    }
)
def rate_distortion(
    p_x: Any,
    distortion: Any,
    *,
    beta: float | None = None,
    max_distortion: float | None = None,
    unit: str | None = "nats",
    base: float | None = None,
    tol: float = 1e-10,
    max_iter: int = 100_000,
) -> RateDistortionPoint:
    """R(D) of a discrete source ``p_x`` under the distortion matrix ``d[x, x^]``.

    Give ``beta`` (the slope ``-beta`` of R(D), in nats per unit of distortion) for the
    point of R(D) with that slope, or ``max_distortion`` for R at that distortion (found by
    bisection on beta; the returned ``distortion`` is within ``1e-9`` relative of it).

    Parameters
    ----------
    p_x
        Source pmf.
    distortion
        Matrix ``d[x, x^] >= 0``, one row per source symbol.
    beta, max_distortion
        Exactly one of them.
    unit, base
        Unit of the rate (default nats).
    tol
        Certified gap (nats) at which Blahut's iteration stops.
    max_iter
        Iteration limit per point.

    Returns
    -------
    RateDistortionPoint

    Examples
    --------
    >>> import infometer as im
    >>> pt = im.exact.rate_distortion([0.5, 0.5], [[0, 1], [1, 0]], max_distortion=0.11,
    ...                               unit="bits")
    >>> round(pt.value, 2)  # h(0.5) - h(0.11) = 0.50007 bits
    0.5
    """
    p, d, tol, max_iter = _setup(p_x, distortion, tol, max_iter)
    u = resolve_unit(unit, base)
    if (beta is None) == (max_distortion is None):
        raise ValueError("give exactly one of beta= (the slope) and max_distortion= (the D)")
    if beta is not None:
        beta = check_float(beta, "beta", low=0.0)
        return _point(p, d, beta, tol, max_iter, u)
    target = check_float(max_distortion, "max_distortion", low=0.0)
    d_min = float(p @ d.min(axis=1))
    d_max = float((p @ d).min())
    if target < d_min:
        raise ValueError(
            f"max_distortion={target:.6g} is below the smallest achievable distortion "
            f"E min_x^ d(X, x^) = {d_min:.6g}: R(D) is infinite (no code reaches it)"
        )
    if target >= d_max:
        return _point(p, d, 0.0, tol, max_iter, u, q0=_corner(p, d))
    # D(beta) decreases in beta: bracket, then bisect on log beta
    scale = 1.0 / max(float(np.mean(d[d > 0])), 1e-300)
    lo, hi = 0.0, scale
    while _point(p, d, hi, tol, max_iter, "nats").distortion > target:
        lo, hi = hi, hi * 4.0
        if hi > 1e12 * scale:
            break
    best = None
    for _ in range(200):
        mid = 0.5 * (lo + hi) if lo == 0 else float(np.sqrt(lo * hi))
        best = _point(p, d, mid, tol, max_iter, "nats")
        if abs(best.distortion - target) <= 1e-9 * max(target, 1e-12):
            break
        if best.distortion > target:
            lo = mid
        else:
            hi = mid
    return _point(p, d, best.beta, tol, max_iter, u)


def _corner(p: np.ndarray, d: np.ndarray) -> np.ndarray:
    """The output pmf at D_max: all mass on the best single reproduction symbol."""
    q = np.zeros(d.shape[1])
    q[int(np.argmin(p @ d))] = 1.0
    return q


@validate_params(
    {
        **STOPPING,
        "betas": [Many(Interval(numbers.Real, 0), limit=MAX_BETAS, what="slopes (betas)"), None],
        "n_points": [Size(2, limit=MAX_BETAS, what="slopes")],
        "progress": [Flag(), None],
    }
)
def rate_distortion_curve(
    p_x: Any,
    distortion: Any,
    *,
    betas: Any = None,
    n_points: int = 60,
    unit: str | None = "nats",
    base: float | None = None,
    progress: bool | None = None,
    tol: float = 1e-10,
    max_iter: int = 100_000,
) -> RateDistortionCurve:
    """The whole R(D) curve: Blahut's iteration at a range of slopes, warm-started.

    Parameters
    ----------
    p_x, distortion
        Source pmf and distortion matrix, as in :func:`rate_distortion`.
    betas
        Slopes to evaluate (>= 0); default ``n_points`` log-spaced values spanning
        ``0.05 / d̄ .. 30 / d̄`` (d̄ the mean positive distortion), plus ``(D_max, 0)``.
    n_points
        Number of default slopes.
    unit, base, tol, max_iter
        As in :func:`rate_distortion`.
    progress
        Progress bar over the slopes (None: the shared default).

    Returns
    -------
    RateDistortionCurve

    Examples
    --------
    >>> import infometer as im
    >>> curve = im.exact.rate_distortion_curve([0.5, 0.5], [[0, 1], [1, 0]], n_points=5)
    >>> float(curve.rate.max()) <= 0.6932
    True
    """
    p, d, tol, max_iter = _setup(p_x, distortion, tol, max_iter)
    u = resolve_unit(unit, base)
    if betas is None:
        scale = 1.0 / max(float(np.mean(d[d > 0])) if np.any(d > 0) else 1.0, 1e-300)
        bs = np.geomspace(0.05, 30.0, n_points) * scale
    else:
        bs = np.sort(np.asarray(betas, dtype=np.float64))

    pts = []
    q0 = None
    for b in progress_bar(bs, desc="rate-distortion", unit="beta", progress=progress):
        pt = _point(p, d, float(b), tol, max_iter, "nats", q0=q0)
        q0 = np.maximum(pt.reproduction_pmf, 1e-12)
        q0 /= q0.sum()
        pts.append(pt)
    d_max = float((p @ d).min())
    f = unit_factor("nats", u)
    beta = np.array([0.0] + [pt.beta for pt in pts])
    dist = np.array([d_max] + [pt.distortion for pt in pts])
    rate = np.array([0.0] + [pt.value for pt in pts]) * f
    lower = np.array([0.0] + [pt.lower for pt in pts]) * f
    # small slopes from a uniform start can land beyond D_max, where R = 0 is known
    keep = np.r_[True, dist[1:] < d_max]
    beta, dist, rate, lower = beta[keep], dist[keep], rate[keep], lower[keep]
    order = np.argsort(dist, kind="stable")
    return RateDistortionCurve(beta[order], dist[order], rate[order], lower[order], d_max, u)
