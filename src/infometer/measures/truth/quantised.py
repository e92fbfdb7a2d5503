"""Rounded (quantised) data: the measurements people actually have.

``X = round(Z, d)`` with ``Z ~ N(0, 1)`` is a discrete variable on a lattice of spacing
``δ = 10^-d``, with ``P(X = v) = Φ(v + δ/2) − Φ(v − δ/2)``; ``Y = X + σ ε``.

* ``Y`` continuous: ``I(X; Y) = h(Y) − h(σ ε)`` where ``Y`` is the Gaussian mixture
  ``Σ_v P(X = v) N(v, σ²)``; ``h(Y)`` by adaptive quadrature (error < 1e-9).
* ``Y`` rounded too (``round(Y, d_y)``): both variables are discrete and the MI is the
  finite sum ``Σ_{x,y} p(x) q(y|x) log(q(y|x)/q(y))`` with
  ``q(y|x) = Φ((y + δ_y/2 − x)/σ) − Φ((y − δ_y/2 − x)/σ)``.

Lattices are truncated at ±9 (mass beyond < 1e-18).  Estimators must not mistake a
lattice of rounded values for point masses (issue 9: GKOV gave 0.39 nats for a true
0.347 on the first task at n = 2000).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import quad
from scipy.special import ndtr, xlogy

from infometer.core._deprecation import deprecated_alias

from .base import Task, register_task

__all__ = [
    "quantised_gaussian_task",
    "lattice_pmf",
    "quantised_gaussian_mutual_info",
    "rounded_gaussian_pmf",
    "rounded_gaussian_entropy",
    "rounded_gaussian_pair_mutual_info",
]

_HALF_RANGE = 9.0


def lattice_pmf(decimals: int) -> tuple[np.ndarray, np.ndarray]:
    """Values ``v`` and probabilities of ``round(Z, decimals)``, ``Z ~ N(0, 1)``."""
    step = 10.0**-decimals
    m = int(round(_HALF_RANGE / step))
    v = np.arange(-m, m + 1) * step
    p = ndtr(v + step / 2) - ndtr(v - step / 2)
    return v, p / p.sum()


def rounded_gaussian_pmf(step: float, mean: float = 0.0, sd: float = 1.0, offset: float = 0.0):
    """Cells ``offset + k·step`` and probabilities of ``Y ~ N(mean, sd²)`` rounded to them
    (to the nearest grid point), over ±12 sd (mass beyond < 1e-32)."""
    lo = math.floor((mean - 12 * sd - offset) / step)
    hi = math.ceil((mean + 12 * sd - offset) / step)
    v = offset + np.arange(lo, hi + 1) * step
    p = ndtr((v + step / 2 - mean) / sd) - ndtr((v - step / 2 - mean) / sd)
    return v, p


def rounded_gaussian_entropy(step: float, sd: float = 1.0) -> float:
    """``h(X') = H(X) + log(step)`` (nats) of ``X = step·round(Y/step)``, ``Y ~ N(0, sd²)``,
    spread uniformly over its cells: the differential entropy of the rounded variable.
    It exceeds ``h(Y) = ½ log(2πe sd²)`` by ``D(p_Y ‖ p_X')``, about ``step²/(24 sd²)``."""
    _, p = rounded_gaussian_pmf(step, sd=sd)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum() + math.log(step))


def rounded_gaussian_pair_mutual_info(rho: float, step: float, nodes: int = 24) -> float:
    """Exact ``I(X; Y)`` (nats) of a standard bivariate Gaussian pair with correlation
    ``rho``, both rounded to ``step`` (cells ``k·step``).

    ``P(X = i, Y = j) = ∫_{cell i} φ(x) [Φ((b_j − ρx)/s) − Φ((a_j − ρx)/s)] dx`` with
    ``s = sqrt(1 − ρ²)``, by ``nodes``-point Gauss–Legendre quadrature on each cell of x
    (the integrand is smooth: error below 1e-12 for ``step`` up to 2).
    """
    v, px = rounded_gaussian_pmf(step)
    keep = px > 1e-300
    v = v[keep]
    s = math.sqrt(1.0 - rho * rho)
    t, w = np.polynomial.legendre.leggauss(nodes)
    xs = v[:, None] + t[None, :] * step / 2  # nodes in each x cell
    wx = (w[None, :] * step / 2) * np.exp(-0.5 * xs**2) / math.sqrt(2 * math.pi)
    a = (v - step / 2)[None, None, :]
    b = (v + step / 2)[None, None, :]
    m = (rho * xs)[:, :, None]
    cond = ndtr((b - m) / s) - ndtr((a - m) / s)  # P(Y in cell j | x)
    joint = np.einsum("in,inj->ij", wx, cond)
    joint /= joint.sum()
    outer = np.outer(joint.sum(1), joint.sum(0))
    nz = joint > 0
    return float((joint[nz] * np.log(joint[nz] / outer[nz])).sum())


def quantised_gaussian_mutual_info(decimals: int, noise_sd: float, y_decimals: int | None) -> float:
    """Exact ``I(round(Z, d); Y)`` for ``Y = X + σ ε`` (rounded to ``y_decimals`` if given)."""
    v, p = lattice_pmf(decimals)
    s = float(noise_sd)
    if y_decimals is None:

        def neg_f_log_f(y: float) -> float:
            f = float(np.dot(p, np.exp(-0.5 * ((y - v) / s) ** 2))) / (s * math.sqrt(2 * math.pi))
            return -f * math.log(f) if f > 0 else 0.0

        lo, hi = v[0] - 12 * s, v[-1] + 12 * s
        # the mixture is smooth; split at the bulk so quad resolves both tails
        edges = [lo, -4.0 - 4 * s, 0.0, 4.0 + 4 * s, hi]
        h_y = sum(
            quad(neg_f_log_f, a, b, limit=400, epsabs=1e-12, epsrel=1e-12)[0]
            for a, b in zip(edges[:-1], edges[1:], strict=True)
        )
        return h_y - 0.5 * math.log(2 * math.pi * math.e * s * s)
    sy = 10.0**-y_decimals
    if (v[-1] - v[0] + 24 * s) / sy * v.size > 5e7:
        raise ValueError("quantised_gaussian_mutual_info: the (x, y) lattice is too fine to sum")
    w = np.arange(math.floor((v[0] - 12 * s) / sy), math.ceil((v[-1] + 12 * s) / sy) + 1) * sy
    q = ndtr((w[None, :] + sy / 2 - v[:, None]) / s) - ndtr((w[None, :] - sy / 2 - v[:, None]) / s)
    joint = p[:, None] * q
    qy = joint.sum(0)
    return float(xlogy(joint, q).sum() - xlogy(qy, qy).sum())


def quantised_gaussian_task(
    decimals: int, noise_sd: float = 1.0, y_decimals: int | None = None
) -> Task:
    """``X = round(Z, decimals)``, ``Y = X + noise_sd·ε`` (``round(Y, y_decimals)`` if given)."""
    truth = quantised_gaussian_mutual_info(decimals, noise_sd, y_decimals)

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        x = np.round(rng.standard_normal((n, 1)), decimals)
        y = x + noise_sd * rng.standard_normal((n, 1))
        return {"x": x, "y": y if y_decimals is None else np.round(y, y_decimals)}

    ytag = "" if y_decimals is None else f"-yr{y_decimals}"
    return Task(
        name=f"quantised-gauss-r{decimals}-noise{noise_sd:g}{ytag}",
        quantity="mutual_info",
        sampler=sampler,
        truth=truth,
        dims=(1, 1),
        family="quantised",
        tags=frozenset({"quantised"}),
        description=(
            f"X = round(N(0,1), {decimals}), Y = X + N(0, {noise_sd:g}²)"
            + ("" if y_decimals is None else f" rounded to {y_decimals} decimals")
        ),
        extra={"decimals": decimals, "noise_sd": noise_sd, "y_decimals": y_decimals},
    )


def _register() -> None:
    register_task(quantised_gaussian_task(1))  # the audit's case: 0.3468 nats
    register_task(quantised_gaussian_task(0))  # integers stored as floats
    register_task(quantised_gaussian_task(1, 1.0, 1))  # both sides rounded
    register_task(quantised_gaussian_task(2, 0.3))  # fine rounding, higher MI


_register()

# The former abbreviated names, deprecated for one release (issue 29).
quantised_gaussian_mi = deprecated_alias(quantised_gaussian_mutual_info, "quantised_gaussian_mi")
