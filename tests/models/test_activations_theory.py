"""Theorem 3.1 and Proposition 4.1 of the FleS paper, checked in numbers.

Ground truths: for a sigmoid gate, sup_{a,b ≥ X} |σ(κa) − σ(κb)| = 1 − σ(κX) exactly (σ
increases to 1), so the threshold is log((1 − ε)/ε)/κ; for Φ it is Φ⁻¹(1 − ε)/κ.  The
ratio R(μ, σ) is integrated numerically (quad, ~1e-10) and, for μ = 0 and large σ, has the
closed leading term a/(1/2 − a), a = log 2/(κσ√2π), with relative error O(1/σ²).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import expit, ndtr

pytest.importorskip("torch")

from infometer.systems.models.activations import theory as th  # noqa: E402


@pytest.mark.parametrize("gate", ["sigmoid", "gelu"])
@pytest.mark.parametrize("kappa", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("eps", [1e-2, 1e-4, 1e-6])
def test_convergence_limitation(gate, kappa, eps):
    x = th.convergence_threshold(eps, kappa_ho=kappa, gate=gate)
    rho = {"sigmoid": expit, "gelu": ndtr}[gate]
    assert rho(kappa * x) == pytest.approx(1 - eps, abs=1e-12)
    # beyond X every pair of gate values is within eps (grid sup, far past X)...
    assert th.max_gate_gap(x, kappa_ho=kappa, gate=gate) <= eps * (1 + 1e-9)
    # ...and X is the smallest such point: from 0.9 X the gap exceeds eps
    assert th.max_gate_gap(0.9 * x, kappa_ho=kappa, gate=gate) > eps
    # a larger slope saturates sooner: X scales as 1/κ
    assert x * kappa == pytest.approx(th.convergence_threshold(eps, gate=gate), rel=1e-12)


def test_fixed_gate_collapses_large_responses():
    # the theorem's content: the top responses of a wide distribution get nearly one gate value
    rng = np.random.default_rng(0)
    xt = rng.normal(0, 10, 100_000)
    top = xt[xt >= np.quantile(xt, 0.9)]  # top decile, x̃ ≥ ~12.8
    spread = expit(top).max() - expit(top).min()
    assert spread < 1 - expit(np.quantile(xt, 0.9)) + 1e-12 < 3e-6


@pytest.mark.parametrize("mu", [-1.0, 0.0, 1.5])
def test_proposition_4_1_monte_carlo(mu):
    sigmas = [1.0, 3.0, 10.0, 30.0, 100.0, 1000.0]
    exact = [th.negative_gate_ratio(mu, s) for s in sigmas]
    for s, r in zip(sigmas, exact, strict=True):
        r_mc, se = th.negative_gate_ratio_mc(mu, s, n=200_000, seed=1)
        assert abs(r_mc - r) < 4.5 * se  # MC and quadrature agree within 4.5 standard errors
    assert exact[-1] < 1e-3  # tends to 0
    assert all(a > b for a, b in zip(exact[2:], exact[3:], strict=False))  # decreasing for σ ≥ 10
    if mu <= 0:
        assert all(a > b for a, b in zip(exact, exact[1:], strict=False))


@pytest.mark.parametrize("sigma", [30.0, 100.0, 1000.0])
def test_proposition_4_1_asymptotic(sigma):
    r = th.negative_gate_ratio(0.0, sigma)
    # relative error of the leading term is O(1/σ²); 2/σ² bounds it from σ = 30 on
    assert r == pytest.approx(th.negative_gate_ratio_asymptotic(sigma), rel=2 / sigma**2 + 1e-8)


def test_ratio_known_at_zero_mean_unit_scale():
    # symmetric check without the ratio's formula: by σ(−x) = 1 − σ(x) and symmetry of N(0,1),
    # E[σ(x)1{x<0}] = 1/2 − E[σ(x)1{x≥0}], so R = (1/2 − h)/h with h = E[σ(x)1{x≥0}]
    from scipy.integrate import quad

    h = quad(lambda z: expit(z) * math.exp(-z * z / 2) / math.sqrt(2 * math.pi), 0, np.inf)[0]
    assert th.negative_gate_ratio(0.0, 1.0) == pytest.approx((0.5 - h) / h, rel=1e-9)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: th.convergence_threshold(0.0), "eps"),
        (lambda: th.convergence_threshold(0.7), "eps"),
        (lambda: th.convergence_threshold(0.1, kappa_ho=0), "kappa_ho"),
        (lambda: th.convergence_threshold(0.1, gate="relu"), "gate"),
        (lambda: th.negative_gate_ratio(0.0, -1.0), "sigma"),
        (lambda: th.negative_gate_ratio_mc(0.0, 1.0, n=1), "n"),
        (lambda: th.negative_gate_ratio(float("nan"), 1.0), "mu"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
