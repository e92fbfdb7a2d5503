"""Continuous PID: the Gaussian BROJA union information (a convex program over the noise
cross covariance).  Ground truths: for a scalar target it is max(I(M;X), I(M;Y)) (Barrett
2015), from closed-form log-determinants; for a vector target an independent optimiser
(Nelder-Mead on the raw cross covariance) and the Markov case M -> X -> Y, where
UI = I(M; X) exactly."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

import infometer as im
from infometer.measures.multivariate._gaussian_broja import (
    _objective,
    union_information,
    whitened_channel,
)


def _ld(c):
    return np.linalg.slogdet(c)[1]


def _mi(cov, a, b):
    ab = list(a) + list(b)
    return 0.5 * (_ld(cov[np.ix_(a, a)]) + _ld(cov[np.ix_(b, b)]) - _ld(cov[np.ix_(ab, ab)]))


def _random_cov(rng, d):
    lo = rng.normal(size=(d, d))
    return lo @ lo.T + 0.3 * np.eye(d)


def _groups(dx, dy, dm):
    return (
        list(range(dx)),
        list(range(dx, dx + dy)),
        list(range(dx + dy, dx + dy + dm)),
    )


@pytest.mark.parametrize(("dx", "dy"), [(1, 1), (2, 1), (2, 3)])
def test_scalar_target_is_mmi(dx, dy):
    # the Newton iteration stops at a decrement < 2e-12, i.e. < 1e-12 nats above the
    # optimum of a smooth convex function: 1e-9 leaves room for rounding
    rng = np.random.default_rng(dx * 10 + dy)
    for _ in range(4):
        cov = _random_cov(rng, dx + dy + 1)
        gx, gy, gm = _groups(dx, dy, 1)
        ui, info = union_information(cov, gx, gy, gm)
        assert info["converged"]
        assert ui == pytest.approx(max(_mi(cov, gx, gm), _mi(cov, gy, gm)), abs=1e-9)


def _nelder_mead(cov, gx, gy, gm, rng):
    a, _ = whitened_channel(cov, gx, gy, gm)
    shape = (len(gx), len(gy))

    def f(z):
        c = z.reshape(shape)
        if np.linalg.svd(c, compute_uv=False)[0] >= 1:
            return 1e6
        return _objective(c, a)[0]

    opts = {"xatol": 1e-12, "fatol": 1e-14, "maxiter": 40_000, "maxfev": 40_000}
    return min(
        minimize(
            f, rng.uniform(-0.3, 0.3, size=shape[0] * shape[1]), method="Nelder-Mead", options=opts
        ).fun
        for _ in range(3)
    )


def test_vector_target_matches_an_independent_optimiser():
    rng = np.random.default_rng(0)
    above_mmi = 0
    for _ in range(4):
        cov = _random_cov(rng, 6)
        gx, gy, gm = _groups(2, 2, 2)
        ui, info = union_information(cov, gx, gy, gm)
        ref = _nelder_mead(cov, gx, gy, gm, rng)
        # Newton stops < 1e-12 nats above the optimum, Nelder-Mead (fatol 1e-14, three
        # starts) close to it; 1e-8 bounds both with room
        assert info["converged"] and ui == pytest.approx(ref, abs=1e-8)
        i0, i1, i01 = _mi(cov, gx, gm), _mi(cov, gy, gm), _mi(cov, gx + gy, gm)
        assert max(i0, i1) - 1e-12 <= ui <= i01 + 1e-12  # the BROJA bounds
        above_mmi += ui > max(i0, i1) + 1e-3  # a vector target is not MMI
    assert above_mmi >= 1


def test_markov_chain_has_no_unique_information_in_the_degraded_source():
    # M -> X -> Y: I(M; X, Y) = I(M; X), and UI >= I(M; X) for every q, so UI = I(M; X):
    # Y's unique information and the synergy are 0, the redundancy is I(M; Y)
    rng = np.random.default_rng(3)
    h = rng.normal(size=(2, 2))
    g = rng.normal(size=(2, 2))
    cov_m = np.eye(2)
    cov_x = h @ cov_m @ h.T + np.eye(2)
    cov_y = g @ cov_x @ g.T + 0.5 * np.eye(2)
    cov = np.block(
        [
            [cov_x, cov_x @ g.T, h @ cov_m],
            [g @ cov_x, cov_y, g @ h @ cov_m],
            [cov_m @ h.T, cov_m @ h.T @ g.T, cov_m],
        ]
    )
    gx, gy, gm = _groups(2, 2, 2)
    ui, info = union_information(cov, gx, gy, gm)
    assert info["converged"]
    assert ui == pytest.approx(_mi(cov, gx, gm), abs=1e-9)


def test_pid_broja_scalar_target_equals_mmi():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3000, 3))
    y = x[:, 0] + 0.5 * x[:, 1] - 0.3 * x[:, 2] + rng.normal(size=3000)
    src = {"a": x[:, :2], "b": x[:, 2:]}
    b = im.pid(src, y, measure="broja", method="gaussian")
    m = im.pid(src, y, measure="mmi", method="gaussian")
    assert [e.value for e in b.atoms] == [e.value for e in m.atoms]
    assert b.measure == "broja" and "Barrett" in b.diagnostics["broja"]


def test_pid_broja_vector_target_population_values():
    # samples from a known covariance: the plug-in atoms' sd at n = 20000 with 6 columns
    # is about sqrt(2 * 6 / n) / 2 ≈ 0.012 nats per log-det term; 0.05 is > 4 sd of the
    # atoms (each a difference of a few such terms), and the plug-in bias d/(2n) ≈ 2e-4
    rng = np.random.default_rng(4)
    cov = _random_cov(rng, 6)
    gx, gy, gm = _groups(2, 2, 2)
    z = rng.multivariate_normal(np.zeros(6), cov, size=20000)
    r = im.pid({"x": z[:, gx], "y": z[:, gy]}, z[:, gm], measure="broja", method="gaussian")
    ui, _ = union_information(cov, gx, gy, gm)
    i0, i1, i01 = _mi(cov, gx, gm), _mi(cov, gy, gm), _mi(cov, gx + gy, gm)
    want = (i0 + i1 - ui, ui - i1, ui - i0, i01 - ui)
    got = (r.redundancy.value, r.unique[0].value, r.unique[1].value, r.synergy.value)
    assert got == pytest.approx(want, abs=0.05)
    assert r.diagnostics["bias_correct"] is False
    assert r.diagnostics["broja_optimiser"]["converged"]
    assert min(got) >= -1e-12  # BROJA atoms are non-negative


@pytest.mark.parametrize(
    ("call", "word"),
    [
        (lambda s, t: im.pid(s[:, :2], t, measure="broja", bias_correct=True), "bias_correct"),
        (
            lambda s, t: im.pid(
                {"a": s[:, 0], "b": s[:, 1], "c": s[:, 2]}, t[:, 0], measure="broja"
            ),
            "2 sources",
        ),
        (lambda s, t: im.pid(s, t[:, 0], measure="isx", method="gaussian"), "broja"),
    ],
)
def test_undefined_continuous_measures_are_refused(call, word):
    rng = np.random.default_rng(0)
    s, t = rng.normal(size=(200, 3)), rng.normal(size=(200, 2))
    with pytest.raises(ValueError, match=word):
        call(s, t)


def test_pid_broja_vector_target_ci():
    # ci= bootstraps every atom through the shared resampling (each resample re-solves
    # the union information); the intervals bracket the point estimates
    rng = np.random.default_rng(6)
    z = rng.multivariate_normal(np.zeros(5), _random_cov(rng, 5), size=600)
    r = im.pid({"x": z[:, :2], "y": z[:, 2:3]}, z[:, 3:], measure="broja", ci=0.9)
    for e in r.atoms:
        assert e.ci is not None and e.ci[0] <= e.value <= e.ci[1]
