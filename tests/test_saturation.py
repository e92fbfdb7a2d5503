"""Numbers that need a warning or a better default (issue 9 §4): KL with disjoint or
shared samples, the Gaussian family at extreme scales, and every estimator's ceiling."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import infometer as im
from infometer.core import registry

RNG = np.random.default_rng(0)


def quiet(f, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k)


# --------------------------------------------------------------------------- KL
def test_kl_with_nearly_disjoint_supports_says_lower_bound():
    # issue 9: auto (wkv) on N(0,1) vs N(100,1) returned 10.5 nats for a true 5000, silently
    p, q = RNG.normal(size=1000), RNG.normal(size=1000) + 100
    with pytest.warns(im.InfometerWarning, match="lower bound at best"):
        e = im.kl_divergence(p, q)
    assert e.method == "wkv" and e.diagnostics["disjoint_supports"] is True
    assert e.diagnostics["overlap"] == 0.0 and e.value < 5000
    # shift 4 (truth 8 nats, wkv ~5): flagged; shift 1 (truth 0.5): not
    assert quiet(im.kl_divergence, p, RNG.normal(size=1000) + 4).diagnostics["disjoint_supports"]
    ok = quiet(im.kl_divergence, p, RNG.normal(size=1000) + 1)
    assert "disjoint_supports" not in ok.diagnostics and ok.diagnostics["overlap"] > 0.5


def test_kl_of_one_sample_with_itself_is_flagged():
    # issue 9: the same array as p and q gave -0.49 with no word about why
    p = RNG.normal(size=1000)
    with pytest.warns(im.InfometerWarning, match="same sample passed twice"):
        e = im.kl_divergence(p, p)
    assert e.diagnostics["shared_rows"] == 1.0
    indep = quiet(im.kl_divergence, p, RNG.normal(size=1000))
    assert "shared_rows" not in indep.diagnostics


# --------------------------------------------------------------- extreme scales
@pytest.mark.parametrize("scale", [1e300, 1e-160, 1e-300, 2.0**-1070 * 1e10])
def test_gaussian_family_is_scale_free_at_extreme_scales(scale):
    # issue 9: MI = inf ("singular covariance") at 1e+-300 and -0.00025 instead of 0.34
    # at 1e-160: the covariance over- or underflowed.  Columns are now standardised first.
    x = RNG.normal(size=2000)
    y = x + RNG.normal(size=2000)
    z = RNG.normal(size=2000)
    ref = im.mutual_info(x, y, method="gaussian").value
    assert ref == pytest.approx(0.5 * math.log(2), abs=0.05)  # sd ~ 0.7/sqrt(2000) = 0.016
    assert im.mutual_info(x * scale, y * scale, method="gaussian").value == pytest.approx(
        ref, abs=1e-9
    )
    assert im.cond_mutual_info(
        x * scale, y * scale, z * scale, method="gaussian"
    ).value == pytest.approx(im.cond_mutual_info(x, y, z, method="gaussian").value, abs=1e-9)
    # h(sX) = h(X) + log s, also where s**2 overflows or underflows
    assert im.entropy(x * scale, method="gaussian").value == pytest.approx(
        im.entropy(x, method="gaussian").value + math.log(scale), abs=1e-9
    )
    p, q = RNG.normal(size=500), RNG.normal(size=500) + 1
    assert im.kl_divergence(p * scale, q * scale, method="gaussian").value == pytest.approx(
        im.kl_divergence(p, q, method="gaussian").value, abs=1e-9
    )


# -------------------------------------------------------------------- ceilings
_CONTINUOUS_MI = [
    s.name
    for s in registry.specs("mutual_info")
    # trained estimators (seconds per call) are left out: InfoNCE's log(batch) ceiling is
    # tested in tests/neural; the other bounds have no finite ceiling to flag
    if "continuous" in s.kinds and s.family not in ("diffusion", "neural")
]


@pytest.mark.parametrize("method", _CONTINUOUS_MI)
@pytest.mark.parametrize("noise", [0.0, 1e-6])
def test_every_estimator_reports_its_ceiling(method, noise):
    # issue 9: gaussian_copula (18.4 nats) and histogram (2.48) said nothing for MI of x
    # with itself, while kNN warned about its ceiling.  Every continuous MI estimator now
    # returns inf with a warning (the Gaussian fits: singular to float precision, on any
    # machine), or flags diagnostics["near_ceiling"] with its own ceiling.
    x = RNG.normal(size=1000)
    y = x + noise * RNG.normal(size=1000)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        e = im.mutual_info(x, y, method=method)
    assert caught, "no warning at all"
    if math.isinf(e.value):
        assert e.diagnostics["singular_covariance"] is True
    else:
        assert e.diagnostics["near_ceiling"] is True
        # (GKOV uses log N where KSG has psi(N): up to 1/(2N) above the kNN ceiling)
        assert e.value <= e.diagnostics["ceiling"] + 0.01
    # and an ordinary dependence is not flagged
    ordinary = quiet(im.mutual_info, x, x + RNG.normal(size=1000), method=method)
    assert "near_ceiling" not in ordinary.diagnostics
