"""The two statements of the FleS paper that can be checked in numbers (numpy / scipy only).

**Theorem 3.1 (convergence limitation).**  A gate ρ with a fixed positive limit M
(ρ(a) → M as a → ∞) cannot tell large responses apart: for every ε > 0 there is an X with
|ρ(a) − ρ(b)| < ε for all a, b ≥ X.  For the sigmoid gate of slope κ (SiLU / FleS with a
fixed κ_ho) the smallest such X is exact: sup_{a,b ≥ X} |σ(κa) − σ(κb)| = 1 − σ(κX), so

    X(ε) = log((1 − ε) / ε) / κ,

and for GELU's gate Φ it is Φ⁻¹(1 − ε) / κ.  A larger κ_ho makes the gate saturate sooner;
a κ_ho set from the data moves X.

**Proposition 4.1.**  For x̃ ~ N(μ, σ²), the ratio of the gate weight on the negative side to
that on the positive side,

    R(μ, σ) = E[ρ(κ x̃) · 1{x̃ < 0}] / E[ρ(κ x̃) · 1{x̃ ≥ 0}],

tends to 0 as σ grows (the brief's wording; "gate weight" read as the expected gate value,
inferred).  For the sigmoid and μ = 0 the leading term is exact:
R ≈ a / (1/2 − a) with a = log 2 / (κ σ √(2π)), an O(1/σ²) relative error.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from infometer.core.data import check_choice, check_float, check_int
from infometer.core.seeding import Seed, as_generator
from infometer.core.validation import check_budget

__all__ = [
    "convergence_threshold",
    "gate_function",
    "max_gate_gap",
    "negative_gate_ratio",
    "negative_gate_ratio_mc",
    "negative_gate_ratio_asymptotic",
]

_GATES = ("sigmoid", "gelu")


#: Most draws (or grid points) one call holds in memory, a few float64 arrays of each.
MAX_DRAWS = 100_000_000


def gate_function(gate: str = "sigmoid"):
    """The gate ρ as a numpy function: σ (SiLU / FleS) or Φ (GELU).

    Examples
    --------
    >>> float(gate_function("gelu")(np.array(0.0)))
    0.5
    """
    from scipy.special import expit, ndtr

    return {"sigmoid": expit, "gelu": ndtr}[check_choice(gate, "gate", _GATES)]


def convergence_threshold(eps: float, *, kappa_ho: float = 1.0, gate: str = "sigmoid") -> float:
    """The smallest X with |ρ(κa) − ρ(κb)| ≤ ε for all a, b ≥ X (Theorem 3.1).

    Examples
    --------
    >>> round(convergence_threshold(0.01), 4)  # log(99)
    4.5951
    """
    eps = check_float(eps, "eps", low=0.0, high=0.5, inclusive=(False, False))
    kappa_ho = check_float(kappa_ho, "kappa_ho", low=0.0, inclusive=(False, True))
    check_choice(gate, "gate", _GATES)
    if gate == "sigmoid":
        return math.log((1.0 - eps) / eps) / kappa_ho
    return NormalDist().inv_cdf(1.0 - eps) / kappa_ho


def max_gate_gap(
    x0: float, *, kappa_ho: float = 1.0, gate: str = "sigmoid", width: float = 1e3, n: int = 20001
) -> float:
    """max |ρ(κa) − ρ(κb)| over a grid of a, b in [x0, x0 + width] (a numeric sup).

    Examples
    --------
    >>> round(max_gate_gap(4.5951), 4)
    0.01
    """
    n = check_int(n, "n", min_value=2)
    check_budget(n, name="n", limit=MAX_DRAWS, what="grid points", override="a coarser grid")
    rho = gate_function(gate)
    g = rho(kappa_ho * np.linspace(x0, x0 + width, n))
    return float(g.max() - g.min())


def _sides(mu: float, sigma: float, kappa_ho: float, gate: str) -> tuple[float, float]:
    from scipy.integrate import quad
    from scipy.stats import norm

    rho = gate_function(gate)
    z0 = -mu / sigma  # x̃ = μ + σz < 0  <=>  z < z0

    def f(z: float) -> float:
        return float(rho(kappa_ho * (mu + sigma * z))) * norm.pdf(z)

    # split at the gate's transition (x̃ = 0) and at z = 0 so that quad sees smooth pieces
    lo = quad(f, -np.inf, z0, limit=200, epsabs=0, epsrel=1e-11)[0]
    hi = quad(f, z0, np.inf, limit=200, epsabs=0, epsrel=1e-11)[0]
    return lo, hi


def negative_gate_ratio(
    mu: float, sigma: float, *, kappa_ho: float = 1.0, gate: str = "sigmoid"
) -> float:
    """R(μ, σ) of Proposition 4.1 by numerical integration (relative error ~1e-10).

    Examples
    --------
    >>> round(negative_gate_ratio(0.0, 1.0), 4)
    0.4818
    """
    mu = check_float(mu, "mu")
    sigma = check_float(sigma, "sigma", low=0.0, inclusive=(False, True))
    kappa_ho = check_float(kappa_ho, "kappa_ho", low=0.0, inclusive=(False, True))
    lo, hi = _sides(mu, sigma, kappa_ho, check_choice(gate, "gate", _GATES))
    return lo / hi


def negative_gate_ratio_asymptotic(sigma: float, *, kappa_ho: float = 1.0) -> float:
    """Leading large-σ term of R(0, σ) for the sigmoid gate: a / (1/2 − a), a = log2/(κσ√2π).

    Examples
    --------
    >>> round(negative_gate_ratio_asymptotic(100.0), 5)
    0.00556
    """
    sigma = check_float(sigma, "sigma", low=0.0, inclusive=(False, True))
    a = math.log(2.0) / (kappa_ho * sigma * math.sqrt(2 * math.pi))
    return a / (0.5 - a)


def negative_gate_ratio_mc(
    mu: float,
    sigma: float,
    *,
    n: int = 200_000,
    kappa_ho: float = 1.0,
    gate: str = "sigmoid",
    seed: Seed = 0,
) -> tuple[float, float]:
    """Monte Carlo R(μ, σ) from ``n`` draws of x̃ ~ N(μ, σ²), with its delta-method stderr.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> r, se = negative_gate_ratio_mc(0.0, 1.0, n=20000, seed=0)
    >>> abs(r - negative_gate_ratio(0.0, 1.0)) < 4 * se
    True
    """
    mu = check_float(mu, "mu")
    sigma = check_float(sigma, "sigma", low=0.0, inclusive=(False, True))
    n = check_int(n, "n", min_value=2)
    check_budget(n, name="n", limit=MAX_DRAWS, what="Monte Carlo draws", override="fewer draws")
    rho = gate_function(gate)
    x = as_generator(seed).normal(mu, sigma, size=n)
    g = rho(kappa_ho * x)
    a = np.where(x < 0, g, 0.0)  # negative-side gate weight per draw
    b = np.where(x >= 0, g, 0.0)
    ma, mb = a.mean(), b.mean()
    r = ma / mb
    # delta method for a ratio of means: Var(r) ≈ Var(a - r b) / (n mb²)
    se = float(np.std(a - r * b, ddof=1) / (math.sqrt(n) * mb))
    return float(r), se
