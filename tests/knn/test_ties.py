"""Rounded and tied continuous data under ``method="auto"`` and explicit kNN methods
(issue 35 §1): the reading stated in ``diagnostics["auto_reason"]`` and the value checked
against exact truths of rounded data (``infometer.measures.truth._quantised``).

Tolerances: the dequantised Kozachenko-Leonenko estimate has sd about 1.2/sqrt(N) nats in
1-D at these N (0.077 at N = 200, 0.03 at 1000, 0.013 at 5000: docs/knn.md, "Ties and
rounding", from ``benchmarks/dev/ties.py entropy``) and no bias beyond 0.03; KSG-1 and
GKOV on rounded pairs sd about 1/sqrt(N) (0.027 at N = 1000, 0.010 at 5000) and bias
within 0.015 from N = 1000 (``ties.py mi``).  Each tolerance below is >= 4 sd + bias.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infometer as im
from infometer.core import registry
from infometer.core.data import InfometerWarning, find_ties
from infometer.measures.truth._quantised import (
    rounded_gaussian_entropy,
    rounded_gaussian_pair_mutual_info,
    rounded_gaussian_pmf,
)


def quiet(f, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k)


def rounded(n, step, sd=1.0, seed=0, offset=0.0):
    y = np.random.default_rng(seed).normal(0, sd, n)
    return offset + step * np.round((y - offset) / step)


def rounded_pair(n, step, rho=0.6, seed=0):
    z = np.random.default_rng(seed).multivariate_normal([0, 0], [[1, rho], [rho, 1]], n)
    q = step * np.round(z / step)
    return q[:, 0], q[:, 1]


def test_truths_of_rounded_gaussians():
    # entropy: exact cell sum; against the fine-step limit and the Delta^2/24 excess
    h = 0.5 * math.log(2 * math.pi * math.e)
    assert rounded_gaussian_entropy(1e-3) == pytest.approx(h, abs=1e-6)
    for step in (0.1, 0.5):  # D(p_Y || p_X') ~ step^2 / 24 for a unit Gaussian
        assert rounded_gaussian_entropy(step) - h == pytest.approx(step**2 / 24, rel=0.02)
    # MI: the unrounded limit, the data-processing bound, and a Monte Carlo plug-in
    mi = -0.5 * math.log(1 - 0.36)
    assert rounded_gaussian_pair_mutual_info(0.6, 0.01) == pytest.approx(mi, abs=1e-5)
    assert rounded_gaussian_pair_mutual_info(0.6, 1.0) < mi
    x, y = rounded_pair(2_000_000, 1.0, seed=1)
    _, ix = np.unique(x, return_inverse=True)
    _, iy = np.unique(y, return_inverse=True)
    t = np.zeros((ix.max() + 1, iy.max() + 1))
    np.add.at(t, (ix, iy), 1.0)
    t /= t.sum()
    nz = t > 0
    plug = float((t[nz] * np.log(t[nz] / np.outer(t.sum(1), t.sum(0))[nz])).sum())
    # plug-in bias ~ (cells)/(2n) = 1e-4; sd ~ 1e-3 at 2e6 rows
    assert plug == pytest.approx(rounded_gaussian_pair_mutual_info(0.6, 1.0), abs=5e-3)


# --------------------------------------------------------------------- entropy
@pytest.mark.parametrize("step", [0.05, 0.3, 1.0, 2.0])
def test_auto_entropy_of_a_rounded_gaussian(step):
    sd, n = 2.0, 2000
    x = rounded(n, step * sd, sd=sd, seed=int(step * 100))
    est = im.entropy(x)
    assert est.method == "kozachenko_leonenko" and est.params["dequantize"] is True
    reason = est.diagnostics["auto_reason"]
    assert "rounded" in reason and f"step {step * sd:g}" in reason
    assert "H(values) + log(step)" in reason and "discrete=True" in reason
    truth = rounded_gaussian_entropy(step * sd, sd=sd)  # h(X') = H(X) + log step
    assert est.value == pytest.approx(truth, abs=0.12)  # sd 0.027 at N = 2000
    # the Gaussian upper bound of a variable with the dequantised variance
    assert (
        est.value <= 0.5 * math.log(2 * math.pi * math.e * (sd**2 + (step * sd) ** 2 / 12)) + 0.12
    )
    # the stated excess over the unrounded variable: step^2 / (24 sd^2), with the sample sd
    import re

    stated = float(re.search(r"= ([\d.e+-]+) nats if it is Gaussian", reason).group(1))
    if step <= 1.0:  # a first-order term: 0.134 in truth at step = 2 sd
        assert stated == pytest.approx(step**2 / 24, rel=0.15)
    assert est.diagnostics["dequantized_columns"] == {"x": [0]}
    assert "warnings" not in est.diagnostics  # a stated reading, nothing to warn about


def test_auto_entropy_of_a_uniform_lattice():
    # X uniform on K points k*step: h(X') = log(K step) exactly (uniform on K cells)
    k, step, n = 40, 0.25, 4000
    x = step * np.random.default_rng(3).integers(0, k, n)
    est = im.entropy(x)
    # KL on a uniform density: boundary bias O(k/N) on top of sd 0.016 at N = 4000
    assert est.value == pytest.approx(math.log(k * step), abs=0.08)


def test_entropy_shifts_by_log_a_under_scaling():
    x = rounded(1500, 0.1, seed=4)
    h = im.entropy(x).value
    # a > 0: the same standardised values, so the same cells and the same seeded draws
    for a, tol in ((4.0, 1e-9), (0.125, 1e-9), (3.7, 1e-6), (1e3, 1e-6)):
        assert im.entropy(a * x + 11.0).value - h == pytest.approx(math.log(abs(a)), abs=tol)
    # a < 0 mirrors the data, so the draws fall differently: within the estimator's error
    assert im.entropy(-2.5 * x).value - h == pytest.approx(math.log(2.5), abs=0.12)


def test_joint_entropy_of_rounded_columns_adds_log_steps():
    # two independent rounded Gaussians: h = sum of the marginal truths
    x = np.column_stack([rounded(3000, 0.5, seed=5), rounded(3000, 0.2, sd=2.0, seed=6)])
    truth = rounded_gaussian_entropy(0.5) + rounded_gaussian_entropy(0.2, sd=2.0)
    est = im.entropy(x)
    assert est.params["dequantize"] and est.value == pytest.approx(truth, abs=0.12)


def test_a_few_values_on_no_grid_are_refused_for_entropy():
    x = np.random.default_rng(7).choice([0.13, 0.57, 0.91], 500)
    with pytest.raises(ValueError, match="discrete=True"):
        im.entropy(x)
    assert im.entropy(x, discrete=True).value == pytest.approx(math.log(3), abs=0.02)


def test_ties_without_a_grid_are_spread_over_the_gaps():
    # the log of rounded data: no common step; cells between the neighbouring values
    x = rounded(3000, 0.2, sd=1.0, seed=8, offset=0.1) + 5.0  # on (4.1 + 0.2k), all > 0
    est = im.entropy(np.log(x))
    assert "no common step" in est.diagnostics["auto_reason"]
    # h(log X') ~ h(X') - E[X'] stand-in: h(g(X)) = h(X) + E log g'(X) = h(X) - E log X
    expect = rounded_gaussian_entropy(0.2) - float(np.mean(np.log(x)))
    assert est.value == pytest.approx(expect, abs=0.1)


# -------------------------------------------------------------------- MI, CMI
@pytest.mark.parametrize(("step", "method"), [(0.1, "ksg1"), (0.2, "ksg1"), (1.0, "gkov")])
def test_auto_mi_of_a_rounded_gaussian_pair(step, method):
    n = 2000
    x, y = rounded_pair(n, step, seed=int(10 * step))
    est = im.mutual_info(x, y)
    assert est.method == method
    truth = rounded_gaussian_pair_mutual_info(0.6, step)
    assert est.value == pytest.approx(truth, abs=0.1)  # sd 0.02, bias < 0.015 at N = 2000
    reason = est.diagnostics["auto_reason"]
    if method == "ksg1":
        assert est.params["dequantize"] is True
        assert "spread uniformly over its rounding step" in reason
        assert "exactly the information of the recorded ones" in reason
    else:
        assert "point masses" in reason


def test_shuffled_pairs_give_zero():
    x, y = rounded_pair(3000, 0.2, seed=11)
    ys = np.random.default_rng(0).permutation(y)
    assert abs(im.mutual_info(x, ys).value) < 0.05  # sd 0.01 near 0 at N = 3000


def test_mi_invariant_to_monotone_transforms_and_scaling():
    x, y = rounded_pair(3000, 0.2, seed=12)
    base = im.mutual_info(x, y).value
    # scaling and shifts: the same dequantised, standardised data up to float rounding
    assert im.mutual_info(3.7 * x - 2.0, 0.01 * y + 5).value == pytest.approx(base, abs=1e-6)
    # non-linear monotone maps: no common step any more (cells between neighbours); the
    # MI of the recorded values is the same, the estimate within KSG's error (sd 0.015)
    truth = rounded_gaussian_pair_mutual_info(0.6, 0.2)
    for gx, gy in ((np.exp(x), y), (x**3 + x, np.arctan(y)), (np.exp(x), np.exp(-y))):
        est = im.mutual_info(gx, gy)
        assert est.value == pytest.approx(truth, abs=0.07)
        assert est.value == pytest.approx(base, abs=0.07)


def test_cmi_with_an_independent_rounded_condition_is_the_mi():
    x, y = rounded_pair(3000, 0.2, seed=13)
    z = rounded(3000, 0.2, seed=14)  # ~35 values: a lattice, not GKOV's few point masses
    est = im.cond_mutual_info(x, y, z)
    assert est.method == "frenzel_pompe" and est.params["dequantize"]
    assert est.value == pytest.approx(rounded_gaussian_pair_mutual_info(0.6, 0.2), abs=0.08)


def test_kl_of_rounded_samples_is_the_kl_of_their_cells():
    step, n = 0.2, 4000
    p = rounded(n, step, seed=15)
    q = rounded(n, step, seed=16) + 0.6  # N(0.6, 1) rounded to the same grid
    vp, pp = rounded_gaussian_pmf(step)
    vq, pq = rounded_gaussian_pmf(step, mean=0.6)
    common, ip, iq = np.intersect1d(np.round(vp / step), np.round(vq / step), return_indices=True)
    pp, pq = pp[ip], pq[iq]
    keep = (pp > 0) & (pq > 0)
    truth = float((pp[keep] * np.log(pp[keep] / pq[keep])).sum())  # D(P_X || Q_X), ~0.18
    assert truth == pytest.approx(0.18, abs=0.01)  # 0.6^2 / 2 less what the rounding loses
    est = im.kl_divergence(p, q)
    assert est.method == "wkv" and est.params["dequantize"]
    # rounded samples share values by chance: not "the same sample passed twice"
    assert not any("passed twice" in w for w in est.diagnostics.get("warnings", []))
    assert est.value == pytest.approx(truth, abs=0.06)  # WKV sd ~0.012 at N = 4000


def test_transfer_entropy_and_ais_forward_the_reading():
    rng = np.random.default_rng(17)
    x = np.zeros(3000)
    for t in range(1, 3000):
        x[t] = 0.8 * x[t - 1] + rng.normal()
    xr = np.round(x, 1)
    y = np.round(rng.normal(size=3000), 1)  # independent of x
    te = im.transfer_entropy(xr, y)
    assert te.params["dequantize"] is True and "rounding step" in te.diagnostics["auto_reason"]
    assert abs(te.value) < 0.05  # TE between independent series: 0, sd ~0.01
    ais = im.active_info_storage(xr)
    # AR(1), phi = 0.8: I(X_t; X_{t-1}) = -1/2 log(1 - 0.64) = 0.51 (rounding to 0.06 sd)
    assert ais.params["dequantize"] and ais.value == pytest.approx(0.511, abs=0.08)


def test_local_values_follow_the_auto_reading():
    x, y = rounded_pair(1500, 0.2, seed=18)
    loc = im.mutual_info(x, y, local=True)
    est = im.mutual_info(x, y)
    assert loc.params["dequantize"] and np.mean(loc.values) == pytest.approx(est.value, abs=1e-9)


def test_pairwise_dequantises_tied_columns_under_auto():
    import pandas as pd

    x, y = rounded_pair(2000, 0.2, seed=19)
    df = pd.DataFrame({"a": x, "b": y, "c": np.random.default_rng(1).normal(size=2000)})
    res = quiet(im.pairwise, df)
    val = float(res.matrix.loc["a", "b"])
    assert val == pytest.approx(rounded_gaussian_pair_mutual_info(0.6, 0.2), abs=0.08)
    with pytest.warns(InfometerWarning, match="dequantize=True"):
        im.pairwise(df, method="ksg")


# ------------------------------------------------------------ explicit methods
def _knn_specs():
    """Every registered estimator with the kNN tie policy (a ``jitter`` parameter)."""
    return [s for s in registry.specs() if "jitter" in s.params]


def test_every_knn_estimator_takes_dequantize():
    specs = _knn_specs()
    assert len(specs) >= 10
    missing = [(s.quantity, s.name) for s in specs if "dequantize" not in s.params]
    assert not missing, missing


@pytest.mark.parametrize(
    ("call", "what"),
    [
        (lambda x, y: im.entropy(x, method="kozachenko_leonenko"), "entropy"),
        (lambda x, y: im.mutual_info(x, y, method="ksg1"), "ksg1"),
        (lambda x, y: im.mutual_info(x, y, method="ksg2"), "ksg2"),
        (lambda x, y: im.mutual_info(x, y, method="gkov"), "gkov"),
        (lambda x, y: im.cond_mutual_info(x, y, y[::-1], method="frenzel_pompe"), "fp"),
        (lambda x, y: im.kl_divergence(x, y, method="wkv"), "wkv"),
        (lambda x, y: im.entropy(x, order=2, method="lps"), "lps"),
        (lambda x, y: im.o_information(np.column_stack([x, y, x + y]), method="ksg"), "oinfo"),
    ],
)
def test_explicit_methods_warn_true_facts_and_a_remedy_that_exists(call, what):
    x, y = rounded_pair(1500, 0.1, seed=20)
    x = 5.0 + x  # a rounded measurement: 0.1 step, not centred
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        est = call(x, y)
    msgs = [str(m.message) for m in w if "tied values" in str(m.message)]
    assert msgs, [str(m.message) for m in w]
    t = find_ties(x)
    assert f"{t.tied_share:.0%} of rows tied" in msgs[0]
    assert "step 0.1" in msgs[0] and "dequantize=True" in msgs[0]
    assert "fine for rounding" not in " ".join(msgs)
    assert "dequantize" in registry.get(est.quantity, est.method).params  # the remedy exists
    with warnings.catch_warnings(record=True) as w2:  # and silences the tie warning
        warnings.simplefilter("always")
        im.estimate(est.quantity, _roles(est.quantity, x, y), method=est.method, dequantize=True)
    assert not [m for m in w2 if "tied values" in str(m.message)]


def _roles(quantity, x, y):
    return {
        "entropy": {"x": x},
        "renyi_entropy": {"x": x},
        "mutual_info": {"x": x, "y": y},
        "cond_mutual_info": {"x": x, "y": y, "z": y[::-1]},
        "kl_divergence": {"p": x, "q": y},
        "o_information": {"x": x, "y": y, "z": x + y},
    }[quantity]


def test_explicit_kozachenko_leonenko_keeps_its_old_number():
    # the default of an explicit method is unchanged (tiny jitter): -15.1 on iris-like data
    x = rounded(150, 0.1, sd=0.8, seed=21) + 5.8
    a = quiet(im.entropy, x, method="kozachenko_leonenko")
    b = quiet(im.entropy, x, method="kozachenko_leonenko", dequantize=True)
    assert a.value < -5 and b.value == pytest.approx(im.entropy(x).value, abs=1e-12)


def test_sample_entropy_on_a_grid_warns_and_dequantises():
    rng = np.random.default_rng(22)
    x = np.zeros(2000)
    for t in range(1, 2000):
        x[t] = 0.7 * x[t - 1] + rng.normal()
    cont = im.complexity(x, "sample").value
    xr = 0.3 * np.round(x / 0.3)  # a step larger than the tolerance r*sd = 0.28
    with pytest.warns(InfometerWarning, match="exact matches only"):
        raw = im.complexity(xr, "sample").value
    assert abs(raw - cont) > 0.3  # the defect the warning is about
    deq = im.complexity(xr, "sample", dequantize=True)
    # spreading over 0.3 (0.21 sd) changes distances by O(step^2): within 0.05 of the
    # continuous signal's value (both from the same sample; sd of SampEn here ~0.04)
    assert deq.value == pytest.approx(cont, abs=0.05)
    assert deq.diagnostics["dequantized_columns"] == {"x": [0]}
    assert im.complexity(xr, "sample", dequantize=True, seed=1).value != deq.value
    ms = quiet(im.multiscale, xr, "sample", scales=2, dequantize=True)
    assert ms.to_frame()["value"].iloc[0] == pytest.approx(deq.value, abs=1e-12)


# ------------------------------------------------------------------ property
@settings(max_examples=25, deadline=None)
@given(
    rel_step=st.floats(-1.5, 0.4),  # log10 of step / sd: 0.03 sd to 2.5 sd
    scale=st.floats(-3, 3),  # log10 of sd
    offset=st.floats(-100, 100),  # in sd
    n=st.integers(200, 3000),
    seed=st.integers(0, 2**31 - 1),
)
def test_property_auto_reading_of_rounded_data(rel_step, scale, offset, n, seed):
    """Random step, scale, offset and N >= 200: the auto entropy states the rounded
    reading and is within 5 sd (1.2/sqrt(N) each) + 0.03 of bias of h(X') = H(X) + log
    step; the auto MI of a rounded pair (any reading: dequantised KSG-1 or GKOV's point
    masses) within 5/sqrt(N) + 0.07 (GKOV's plug-in bias at N = 200) of the exact MI of
    the rounded values."""
    sd = 10.0**scale
    step = sd * 10.0**rel_step
    rng = np.random.default_rng(seed)
    y = rng.normal(0, sd, n)
    x = offset * sd + step * np.round(y / step)  # the grid k*step, shifted
    est = quiet(im.entropy, x)
    assert est.params.get("dequantize") is True
    assert "rounded" in est.diagnostics["auto_reason"]
    truth = rounded_gaussian_entropy(step, sd=sd)
    assert est.value == pytest.approx(truth, abs=5 * 1.2 / math.sqrt(n) + 0.03)
    z = rng.multivariate_normal([0, 0], [[1, 0.6], [0.6, 1]], n)
    rel = step / sd
    qx, qy = rel * np.round(z[:, 0] / rel), rel * np.round(z[:, 1] / rel)
    mi = quiet(im.mutual_info, sd * qx + offset, qy)
    reason = mi.diagnostics["auto_reason"]
    assert "rounding step" in reason or "point masses" in reason
    exact = rounded_gaussian_pair_mutual_info(0.6, rel)
    assert mi.value == pytest.approx(exact, abs=5 / math.sqrt(n) + 0.07)


def test_entropy_rate_of_a_rounded_ar1():
    # AR(1), phi = 0.8, unit innovations, rounded to 0.1 (0.06 sd): the dequantised rate
    # h(X'_t | X'_{t-1}) = H(X_t | X_{t-1}) + log 0.1 is that of the unrounded process,
    # 1/2 log(2 pi e) = 1.419, up to the rounding's O(step^2) (here < 0.01); KL difference
    # of two 1-D/2-D entropies at N = 4000: sd ~0.03
    rng = np.random.default_rng(23)
    x = np.zeros(4000)
    for t in range(1, 4000):
        x[t] = 0.8 * x[t - 1] + rng.normal()
    est = im.entropy_rate(np.round(x, 1))
    assert est.params["dequantize"] is True and "rounded" in est.diagnostics["auto_reason"]
    assert est.value == pytest.approx(0.5 * math.log(2 * math.pi * math.e), abs=0.12)
