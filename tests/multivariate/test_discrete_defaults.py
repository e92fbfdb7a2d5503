"""Discrete data given to the functions whose continuous default is Gaussian or
Gaussian-copula (issue 35 §2): symbols get a count-based reading, floats with few
distinct values and mixed tables get an error naming the choices, never a Gaussian number
on bits.

Ground truths: the gates' exact PIDs and multivariate values (XOR: S = 1 bit, O = -1 bit;
AND: MMI R = 1.5 - 0.75 log2 3, S = 0.5 bit) on balanced samples, whose empirical pmf *is*
the gate's pmf (so the plug-in is exact); Miller-Madow values against the discrete
family's own Miller-Madow estimators (an independent code path: counts through
``discrete.kernels``, not the sorted block codes).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import infometer as im
from infometer.measures import exact

LOG2_3 = float(np.log2(3.0))
R_AND = 1.5 - 0.75 * LOG2_3


def _balanced(f, reps=250, extra=0, seed=0):
    """Every (a, b) input pair ``reps`` times (the empirical pmf is the gate's), shuffled;
    ``extra`` independent fair-bit columns appended."""
    rng = np.random.default_rng(seed)
    ab = np.array([[a, b] for a in (0, 1) for b in (0, 1)] * reps)
    ab = ab[rng.permutation(len(ab))]
    cols = [ab[:, 0], ab[:, 1], f(ab[:, 0], ab[:, 1])]
    cols += [rng.integers(0, 2, len(ab)) for _ in range(extra)]
    return np.column_stack(cols)


XOR = _balanced(lambda a, b: a ^ b)
AND = _balanced(lambda a, b: a & b)


# ------------------------------------------------------------------------- pid_pairs
def test_pid_pairs_xor_is_synergy_from_counts():
    # the case: Gaussian copula on XOR bits gave synergy ~ 0
    r = im.pid_pairs(XOR[:, :2], XOR[:, 2], unit="bits")
    assert r.method == "miller_madow"
    assert "discrete" in r.diagnostics["auto_reason"]
    # balanced design: plug-in I(S1,S2;T) = 1 bit exactly, I(Si;T) = 0.  Miller-Madow adds
    # (K_x + K_y - K_xy - 1) / 2n nats to each MI: +1/2n for the pair (K = 4, 2, 4), -1/2n
    # for a single source (K = 2, 2, 4); so R = min(I1, I2) = -1/2n, U = 0 and
    # S = I12 - R = 1 bit + 2/2n
    mm = 1 / (2 * 1000 * np.log(2))  # 1/2n nats in bits, n = 1000
    assert r.values["synergy"][0] == pytest.approx(1 + 2 * mm, abs=1e-12)
    assert r.values["redundancy"][0] == pytest.approx(-mm, abs=1e-12)
    assert r.values["unique_i"][0] == pytest.approx(0.0, abs=1e-12)
    p = im.pid_pairs(XOR[:, :2], XOR[:, 2], method="plugin", unit="bits")
    assert p.values["synergy"][0] == pytest.approx(1.0, abs=1e-12)
    assert abs(p.values["redundancy"][0]) < 1e-12


@pytest.mark.parametrize("measure", ["mmi", "broja", "imin", "ccs", "dep", "isx"])
def test_pid_pairs_and_gate_every_measure(measure):
    # each pair's PID of its empirical pmf is the exact PID of the gate (balanced design)
    x = _balanced(lambda a, b: a & b, extra=1)
    r = im.pid_pairs(x[:, [0, 1, 3]], x[:, 2], measure=measure, method="plugin", unit="bits")
    want = exact.pid(_gate_pmf(lambda a, b: a & b), measure=measure, unit="bits")
    got = [r.values[k][0] for k in ("redundancy", "unique_i", "unique_j", "synergy")]
    assert got == pytest.approx(
        [want.redundancy.value, *(u.value for u in want.unique), want.synergy.value], abs=1e-9
    )
    if measure in ("mmi", "imin", "broja"):
        assert got == pytest.approx([R_AND, 0, 0, 0.5], abs=1e-9)
    # pairs with the independent bit (column 2 of X) carry what one source carries alone
    assert r.values["mutual_info"][1] == pytest.approx(R_AND, abs=2e-3)


def _gate_pmf(f):
    p = np.zeros((2, 2, 2))
    for a in (0, 1):
        for b in (0, 1):
            p[a, b, f(a, b)] = 0.25
    return p


def test_pid_pairs_miller_madow_equals_the_discrete_family():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, size=(600, 4))
    t = (x[:, 0] + x[:, 1] * (rng.random(600) < 0.6)) % 3
    r = im.pid_pairs(x, t)
    for k in range(4):
        want = im.mutual_info(x[:, k], t, method="miller_madow").value
        assert r.single[k] == pytest.approx(want, abs=1e-12)
    for p, (i, j) in enumerate(r.pairs):
        want = im.mutual_info(x[:, [i, j]], t, method="miller_madow").value
        assert r.values["mutual_info"][p] == pytest.approx(want, abs=1e-12)


def test_pid_pairs_ci_on_symbols():
    r = im.pid_pairs(XOR[:200, :2], XOR[:200, 2], method="plugin", ci=0.9, unit="bits")
    lo, hi = r.intervals["synergy"][0]
    assert lo <= r.values["synergy"][0] <= hi
    assert "plugin" in r.diagnostics["ci_method"]


def test_pid_pairs_refusals_name_the_choices():
    xf = XOR.astype(float)
    with pytest.raises(ValueError, match="2 distinct values.*discrete=True"):
        im.pid_pairs(xf[:, :2], xf[:, 2])
    r = im.pid_pairs(xf[:, :2], xf[:, 2], discrete=True, unit="bits")
    assert r.values["synergy"][0] > 0.99
    # the Gaussian reading stays available by name (and by discrete=False)
    g = im.pid_pairs(xf[:, :2], xf[:, 2], method="gaussian_copula", unit="bits")
    assert abs(g.values["synergy"][0]) < 0.01
    g2 = im.pid_pairs(xf[:, :2], xf[:, 2], discrete=False, unit="bits")
    assert g2.method == "gaussian_copula"
    mixed = pd.DataFrame({"a": XOR[:, 0], "b": XOR[:, 1]})
    with pytest.raises(ValueError, match="discrete=True.*discrete=False"):
        im.pid_pairs(mixed, XOR[:, 2] + 0.1 * np.random.default_rng(0).normal(size=len(XOR)))
    with pytest.raises(ValueError, match="bias_correct"):
        im.pid_pairs(XOR[:, :2], XOR[:, 2], bias_correct=True)
    with pytest.raises(ValueError, match="mmi"):
        im.pid_pairs(XOR[:, :2], XOR[:, 2], method="miller_madow", measure="broja")
    with pytest.raises(ValueError, match="discrete=True"):
        im.pid_pairs(
            np.random.default_rng(0).normal(size=(50, 2)), np.arange(50.0), method="plugin"
        )


# ------------------------------------------------------------------------ multiplets
def test_multiplets_read_symbols():
    x = _balanced(lambda a, b: a ^ b, extra=2)
    r = im.multiplets(x, sizes=(3, 4), n_permutations=19, seed=1)
    assert r.method == "miller_madow" and "discrete" in r.diagnostics["auto_reason"]
    top = r.frame.iloc[0]
    assert set(top["multiplet"][:3]) <= {"x0", "x1", "x2", "x3", "x4"}
    # every multiplet: the value of im.o_information on those columns (discrete family)
    for m, v in zip(r.frame["multiplet"], r.frame["value"], strict=True):
        cols = [int(c[1:]) for c in m]
        want = im.o_information(x[:, cols], method="miller_madow").value
        assert v == pytest.approx(want, abs=1e-12)
    # the XOR triplet: plug-in O-information -1 bit exactly (balanced design)
    p = im.multiplets(x[:, :3], sizes=3, method="plugin", unit="bits")
    assert p.frame["value"].iloc[0] == pytest.approx(-1.0, abs=1e-12)
    xor_row = r.frame[r.frame["multiplet"] == ("x0", "x1", "x2")]
    assert float(xor_row["p_value"].iloc[0]) == pytest.approx(1 / 20)


def test_multiplets_search_and_store_on_symbols(tmp_path):
    x = _balanced(lambda a, b: a ^ b, extra=3)
    ex = im.multiplets(x, sizes=(3, 4), n_permutations=9)
    st = im.multiplets(x, sizes=(3, 4), n_permutations=9, store=tmp_path / "s")
    assert np.array_equal(ex.frame["value"], st.frame["value"])
    assert np.array_equal(ex.frame["p_value"], st.frame["p_value"])
    g = im.multiplets(x, sizes=3, search="greedy")
    assert set(g.frame["multiplet"].iloc[0]) == {"x0", "x1", "x2"}


def test_multiplets_refusals():
    xf = XOR.astype(float)
    with pytest.raises(ValueError, match="distinct values.*discrete=True"):
        im.multiplets(xf, sizes=3)
    assert im.multiplets(xf, sizes=3, discrete=True).method == "miller_madow"
    assert im.multiplets(xf, sizes=3, discrete=False).method == "gaussian_copula"
    with pytest.raises(ValueError, match="bias_correct"):
        im.multiplets(XOR, sizes=3, bias_correct=False)


# ------------------------------------------------- the registry's multivariate quantities
@pytest.mark.parametrize(
    "name, bits",
    [
        ("o_information", -1.0),
        ("total_correlation", 1.0),
        ("dual_total_correlation", 2.0),
        ("s_information", 3.0),
        ("co_information", -1.0),
    ],
)
def test_quantities_on_float_bits(name, bits):
    f = getattr(im, name)
    xf = XOR.astype(float)
    with pytest.raises(ValueError, match="x0 takes 2 distinct values.*discrete=True"):
        f(xf)
    got = f(xf, discrete=True, method="plugin", unit="bits")
    assert got.value == pytest.approx(bits, abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kept = f(xf, discrete=False)  # the Gaussian reading, chosen by the user
    assert kept.method == "gaussian_copula"


def test_mixed_table_and_gradient_and_test():
    mixed = pd.DataFrame({"a": XOR[:, 0], "b": XOR[:, 1], "c": XOR[:, 2] + 0.5})
    for f in (im.o_information, im.total_correlation):
        with pytest.raises(ValueError, match="'c' is continuous.*discrete=True"):
            f(mixed)
    with pytest.raises(ValueError, match="discrete=True"):
        im.gradient_o_information(XOR.astype(float))
    with pytest.raises(ValueError, match="discrete=True"):
        im.multivariate_test(XOR.astype(float), n_permutations=9)
    t = im.multivariate_test(XOR.astype(float), n_permutations=19, discrete=True)
    assert t.statistic.value == pytest.approx(-np.log(2), abs=5e-3)


# ------------------------------------------------------------------------------- pid
def test_pid_on_float_bits():
    xf = XOR.astype(float)
    with pytest.raises(ValueError, match="discrete=True"):
        im.pid(xf[:, :2], xf[:, 2])
    r = im.pid(xf[:, :2], xf[:, 2], discrete=True, unit="bits")
    assert r.method == "plugin" and r.synergy.value == pytest.approx(1.0, abs=1e-9)
    assert "discrete" in r.diagnostics["auto_reason"]


# ---------------------------------------------------------------- network, local values
def _copy_panel(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    b = np.r_[0, a[:-1]]  # b copies a with lag 1: TE = 1 bit
    c = rng.integers(0, 2, n)
    return np.column_stack([a, b, c])


def test_infer_network_refuses_float_bits_and_mixed_panels():
    x = _copy_panel()
    with pytest.raises(ValueError, match="takes 2 distinct values.*discrete=True"):
        im.infer_network(x.astype(float), max_lag=1, n_permutations=20)
    mixed = pd.DataFrame({"a": x[:, 0], "b": x[:, 1].astype(float) + 0.3, "c": x[:, 2]})
    with pytest.raises(ValueError, match="integer or boolean series.*discrete=True"):
        im.infer_network(mixed, max_lag=1, n_permutations=20)
    net = im.infer_network(
        x.astype(float), max_lag=1, n_permutations=50, discrete=True, unit="bits"
    )
    assert (0, 1, 1) in net.edge_set()
    e = net.edges[(net.edges["source"] == "x0") & (net.edges["target"] == "x1")]
    assert float(e["estimate"].iloc[0]) == pytest.approx(1.0, abs=0.02)  # plug-in TE: 1 bit


def test_local_values_of_symbols_under_auto():
    from infometer.measures.dynamics import local_transfer_entropy

    x = _copy_panel()
    lv = local_transfer_entropy(x[:, 0], x[:, 1])
    assert lv.method == "plugin"
    want = im.transfer_entropy(x[:, 0], x[:, 1], method="plugin").value
    assert float(np.mean(lv.values)) == pytest.approx(want, abs=1e-12)


def test_auto_error_hints_discrete_for_float_symbols():
    xf = XOR[:, 0].astype(float)
    with pytest.raises(ValueError, match="few distinct values: discrete=True"):
        im.renyi_mutual_info(xf, XOR[:, 2].astype(float))


def test_entropy_increment_refuses_symbols():
    from infometer.systems.models import entropy_increment

    x = np.random.default_rng(0).integers(0, 3, size=(200, 2))
    with pytest.raises(ValueError, match="x is discrete.*im.entropy"):
        entropy_increment(x, x[:, ::-1])
