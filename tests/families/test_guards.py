"""Huge requests refused up front, and values at a ceiling or of a point mass (issue 30).

Every size a user can type that multiplies into memory or time is checked before anything
is allocated (``validation.check_budget`` / ``check_memory``): each guard below must raise
a ``ValueError`` naming the argument and stating the limit, in milliseconds (the inputs are
tiny; only the requested size is huge).  The sweep also checks that requests just inside
each limit are accepted (where that is cheap).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import infometer as im
from infometer.systems.decision import persuade
from infometer.systems.probes import imagemaps
from infometer.systems.probes.decoding import fano_bound

RNG = np.random.default_rng(0)
SMALL = RNG.normal(size=(30, 3))


def _fisher(**kw):
    torch = pytest.importorskip("torch")
    return im.fisher_information(torch.nn.Linear(3, 2), np.zeros((2, 3)), **kw)


def _big_fisher_matrix():
    torch = pytest.importorskip("torch")
    model = torch.nn.Linear(600, 600)  # 360,600 parameters: a 1 TB matrix
    return im.fisher_information(model, np.zeros((1, 600)), matrix=True)


#: name -> (call, argument named in the message)
GUARDS = {
    "pairwise 1e5 columns": (lambda: im.pairwise(np.zeros((3, 100_000))), "data"),
    "pairwise 2e4 DataFrame columns": (
        lambda: im.pairwise(pd.DataFrame(np.zeros((3, 20_000)))),
        "data",
    ),
    "pairwise max_pairs": (lambda: im.pairwise(SMALL, max_pairs=2), "max_pairs"),
    "pairwise permutations 1e12": (
        lambda: im.pairwise(SMALL, n_permutations=10**12),
        "permutations",
    ),
    "pairwise permutations x rows": (
        lambda: im.pairwise(np.zeros((2_000_000, 2)), n_permutations=10**6),
        "permutations",
    ),
    "independence_test n_permutations": (
        lambda: im.independence_test(SMALL[:, 0], SMALL[:, 1], n_permutations=10**12),
        "n_permutations",
    ),
    "histogram bins": (lambda: im.entropy(SMALL[:, 0], method="histogram", bins=10**9), "bins"),
    "matrix_renyi 1e5 rows": (
        lambda: im.entropy(RNG.normal(size=(100_000, 1)), method="matrix_renyi"),
        "x",
    ),
    "matrix_renyi MI 5e4 rows": (
        lambda: im.mutual_info(
            RNG.normal(size=50_000), RNG.normal(size=50_000), method="matrix_renyi"
        ),
        "x",
    ),
    "fisher matrix=True": (_big_fisher_matrix, "matrix"),
    "fisher probes": (lambda: _fisher(method="hutchinson", probes=10**9), "probes"),
    "persuade 1e4 states": (
        lambda: persuade(np.full(10_000, 1e-4), np.eye(2, 10_000), np.eye(2, 10_000)),
        "prior",
    ),
    "persuade 500 actions": (
        lambda: persuade([0.5, 0.5], np.ones((500, 2)), np.ones((500, 2))),
        "prior",
    ),
    "info_ordered_walk exact": (
        lambda: imagemaps.info_ordered_walk(RNG.random((6, 6)), method="exact"),
        "scores",
    ),
    "info_ordered_walk exact, max_exact_cells": (
        lambda: imagemaps.info_ordered_walk(RNG.random((3, 3)), method="exact", max_exact_cells=4),
        "scores",
    ),
    "quantize bins": (lambda: imagemaps.quantize(RNG.random((8, 8)), 10**9), "bins"),
}


@pytest.mark.parametrize("case", sorted(GUARDS))
def test_size_guard(case):
    call, name = GUARDS[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as info:
            call()
    msg = str(info.value)
    assert name in msg, msg
    assert "limit" in msg or "<=" in msg, msg  # states the limit


@pytest.mark.parametrize(
    "call",
    [
        lambda: im.pairwise(SMALL, max_pairs=3, method="gaussian_copula"),  # exactly 3 pairs
        lambda: imagemaps.info_ordered_walk(RNG.random((2, 2)), method="exact", max_exact_cells=4),
        lambda: persuade(np.full(100, 0.01), np.eye(2, 100), np.eye(2, 100)),
    ],
)
def test_just_inside_the_limits_is_accepted(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call()


# ------------------------------------------------------------------ ceilings
@pytest.mark.parametrize("method", ["ksg1", "ksg2", "auto"])
@pytest.mark.parametrize("n", [50, 200])
def test_pairwise_flags_copies_at_the_knn_ceiling(method, n):
    df = pd.DataFrame(np.random.default_rng(n).normal(size=(n, 3)), columns=list("abc"))
    with pytest.warns(im.InfometerWarning, match="kNN ceiling"):
        res = im.pairwise(df.assign(d=df.a), method=method)
    assert res.diagnostics["near_ceiling_pairs"] == 1
    # the same pair through mutual_info is flagged too: one rule
    one = im.mutual_info(df.a, df.a, method="ksg1" if method == "auto" else method)
    assert one.diagnostics.get("near_ceiling")


def test_pairwise_independent_columns_not_flagged():
    res = im.pairwise(np.random.default_rng(1).normal(size=(200, 4)), method="ksg1")
    assert "near_ceiling_pairs" not in res.diagnostics


# ------------------------------------------------------------------ constants
CONSTANTS = [0.0, 1.0, -3.5, 1e10, 1.5e308, -1.5e308, 5e-324, 1e-300]


@pytest.mark.parametrize("c", CONSTANTS)
def test_histogram_constant_column_is_minus_inf_whatever_the_constant(c):
    with pytest.warns(im.InfometerWarning, match="point mass"):
        e = im.entropy(np.full(100, c), method="histogram")
    assert e.value == -math.inf
    # a constant column beside a varying one: the joint has no density either
    x = np.column_stack([np.random.default_rng(0).normal(size=100), np.full(100, c)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert im.entropy(x, method="histogram").value == -math.inf
        # as symbols, a constant has entropy exactly 0
        assert im.entropy(np.full(100, c), discrete=True, method="plugin").value == 0.0


@pytest.mark.parametrize("spread", [1e-320, 1e-310, 1e-200])
def test_histogram_subnormal_spread_is_finite(spread):
    x = np.r_[np.arange(60) * spread, [1.5e308] * 3]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = im.entropy(x, method="histogram")
    assert math.isfinite(e.value)


# --------------------------------------------------------------- large alpha
def _renyi_exact(lam, a):
    return math.log(sum(v**a for v in lam)) / (1 - a)


@pytest.mark.parametrize("alpha", [0.5, 2.0, 3.0, 10.0, 100.0, 700.0])
def test_matrix_renyi_spectrum_matches_the_formula(alpha):
    from infometer.estimators.matrix.kernels import renyi_from_spectrum

    lam = np.array([0.5, 0.25, 0.125, 0.125])
    assert renyi_from_spectrum(lam, alpha) == pytest.approx(_renyi_exact(lam, alpha), rel=1e-12)


@pytest.mark.parametrize("alpha", [1e3, 1e4, 1e6, 1e12, 1e300])
def test_matrix_renyi_large_alpha_tends_to_min_entropy(alpha):
    from infometer.estimators.matrix.kernels import renyi_from_spectrum

    lam = np.array([0.5, 0.25, 0.25])
    v = renyi_from_spectrum(lam, alpha)
    # S_a = a/(a-1) (-log l_max) - log(1 + 2 (1/2)^a)/(a-1): within 1e-3 of -log l_max
    # at a = 1e3 and closer beyond, never NaN or inf (it was, from 0^a underflow)
    assert math.isfinite(v)
    assert v == pytest.approx(math.log(2) * alpha / (alpha - 1), rel=1e-12, abs=1e-15)


def test_matrix_renyi_is_non_increasing_in_alpha_through_the_api():
    x = np.random.default_rng(0).normal(size=(150, 2))
    vals = [
        im.entropy(x, method="matrix_renyi", alpha=a).value for a in (0.5, 2, 10, 1e3, 1e6, 1e300)
    ]
    assert all(np.isfinite(vals))
    assert all(b <= a + 1e-9 for a, b in zip(vals, vals[1:], strict=False))


# ---------------------------------------------------------------- saturation
@pytest.mark.parametrize("ceiling", [math.log(16), math.log(256), math.log(4096)])
def test_saturation_rule_boundary(ceiling):
    from infometer.core.saturation import SATURATION_GAP, ceiling_flags

    eps = 1e-9
    assert ceiling_flags(ceiling - SATURATION_GAP - eps, ceiling)["saturated"] is False
    assert ceiling_flags(ceiling - SATURATION_GAP + eps, ceiling)["saturated"] is True
    # at the boundary the value moves half a nat per nat of MI
    assert ceiling_flags(ceiling - SATURATION_GAP, ceiling)["sensitivity"] == pytest.approx(0.5)


def test_saturation_sensitivity_is_the_slope_of_the_optimal_infonce():
    """d/dI of log B - log(1 + (B-1) e^-I), by finite differences, equals 1 - e^v / B."""
    from infometer.core.saturation import ceiling_flags

    b = 256
    for i in (0.5, 3.0, 5.0, 7.83):
        v = math.log(b) - math.log1p((b - 1) * math.exp(-i))
        h = 1e-6
        v2 = math.log(b) - math.log1p((b - 1) * math.exp(-(i + h)))
        assert ceiling_flags(v, math.log(b))["sensitivity"] == pytest.approx((v2 - v) / h, rel=1e-4)
    assert ceiling_flags(5.34, 5.55)["saturated"]  # the audit's case


def test_infonce_probe_uses_the_rule():
    from infometer.systems.probes.alignment import infonce_bound

    n = 64
    z = np.random.default_rng(0).normal(size=(n, 8))
    with pytest.warns(im.InfometerWarning, match="log 2"):
        e = infonce_bound(z_a=z, z_b=z, unit="nats")
    assert e.diagnostics["saturated"] and e.diagnostics["sensitivity"] < 0.5


def test_fano_bound_counts_are_whole():
    assert fano_bound(148 / 300, 3, n_trials=300).n == 300
