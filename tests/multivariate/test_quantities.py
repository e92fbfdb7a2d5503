"""TC, DTC, O-, S-, co-information and gradient O-information: exact pmfs, identities
against the core's exact MI/CMI, closed forms for Gaussians, estimator consistency."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import infometer as im
from infometer.measures import exact

LN2 = np.log(2.0)
QUANTITIES = [
    "total_correlation",
    "dual_total_correlation",
    "o_information",
    "s_information",
    "co_information",
]


def _xor() -> np.ndarray:
    p = np.zeros((2, 2, 2))
    for a in (0, 1):
        for b in (0, 1):
            p[a, b, a ^ b] = 0.25
    return p


def _copy3() -> np.ndarray:
    p = np.zeros((2, 2, 2))
    p[0, 0, 0] = p[1, 1, 1] = 0.5
    return p


# values in bits from the definitions (e.g. Rosas et al. 2019, Table 1 for XOR/COPY)
KNOWN = {
    "xor": (
        _xor,
        {
            "total_correlation": 1,
            "dual_total_correlation": 2,
            "o_information": -1,
            "s_information": 3,
            "co_information": -1,
        },
    ),
    "copy": (
        _copy3,
        {
            "total_correlation": 2,
            "dual_total_correlation": 1,
            "o_information": 1,
            "s_information": 3,
            "co_information": 1,
        },
    ),
    "independent": (lambda: np.full((2, 3, 2), 1 / 12), dict.fromkeys(QUANTITIES, 0)),
}


@pytest.mark.parametrize("case", sorted(KNOWN))
@pytest.mark.parametrize("quantity", QUANTITIES)
def test_exact_known_values(case, quantity):
    make, want = KNOWN[case]
    got = getattr(exact, quantity)(make(), unit="bits").value
    assert got == pytest.approx(want[quantity], abs=1e-12)


def _random_pmf(shape, seed):
    p = np.random.default_rng(seed).dirichlet(np.full(int(np.prod(shape)), 0.7))
    return p.reshape(shape)


@pytest.mark.parametrize("seed", range(4))
def test_exact_identities_against_core_mi_and_cmi(seed):
    p = _random_pmf((2, 3, 2), seed)
    # co-information of three variables = I(X;Y) - I(X;Y|Z), from the core functions
    ixy = exact.mutual_info(p.sum(2)).value
    ixy_z = exact.cond_mutual_info(p).value
    assert exact.co_information(p).value == pytest.approx(ixy - ixy_z, abs=1e-12)
    tc, dtc = exact.total_correlation(p).value, exact.dual_total_correlation(p).value
    assert exact.o_information(p).value == pytest.approx(tc - dtc, abs=1e-12)
    # S-information = sum_i I(X_i; X_{-i})
    s = sum(exact.mutual_info(np.moveaxis(p, i, 0).reshape(p.shape[i], -1)).value for i in range(3))
    assert exact.s_information(p).value == pytest.approx(s, abs=1e-12)
    # TC of three = I(X;Y) + I(XY;Z); DTC = H(X,Y,Z) - sum_i H(X_i|X_-i)
    assert tc == pytest.approx(ixy + exact.mutual_info(p.reshape(6, 2)).value, abs=1e-12)
    # gradient: Ω of three minus Ω of two (0)
    grads = exact.gradient_o_information(p)
    assert [g.value for g in grads] == pytest.approx([tc - dtc] * 3, abs=1e-12)


def test_exact_gradient_four_variables():
    p = _random_pmf((2, 2, 3, 2), 5)
    grads = exact.gradient_o_information(p)
    full = exact.o_information(p).value
    for i, g in enumerate(grads):
        assert g.value == pytest.approx(full - exact.o_information(p.sum(axis=i)).value, abs=1e-12)


def test_co_information_of_two_is_mutual_information():
    p = _random_pmf((3, 4), 1)
    assert exact.co_information(p).value == pytest.approx(exact.mutual_info(p).value, abs=1e-12)


# ----------------------------------------------------------------- discrete samples
def _samples_of(p, n, seed):
    rng = np.random.default_rng(seed)
    flat = rng.choice(p.size, size=n, p=p.ravel())
    return np.column_stack(np.unravel_index(flat, p.shape))


@pytest.mark.parametrize("quantity", QUANTITIES)
def test_plugin_is_the_exact_value_of_the_empirical_pmf(quantity):
    x = _samples_of(_random_pmf((2, 3, 2), 2), 300, 0)
    emp = np.zeros((2, 3, 2))
    np.add.at(emp, tuple(x.T), 1.0 / len(x))
    got = getattr(im, quantity)(x, method="plugin").value
    assert got == pytest.approx(getattr(exact, quantity)(emp).value, abs=1e-12)


def test_miller_madow_adds_the_first_order_corrections():
    x = _samples_of(_random_pmf((2, 3, 2), 3), 200, 1)
    n = len(x)
    plug = im.o_information(x, method="plugin").value
    # Ω = 1*H(all) + sum_i [H(X_i) - H(X_-i)] for n = 3; MM adds (m_S - 1)/2N to each H
    m = lambda cols: len({tuple(r) for r in x[:, cols]})  # noqa: E731
    corr = (m([0, 1, 2]) - 1) + sum(
        (m([i]) - 1) - (m([j for j in range(3) if j != i]) - 1) for i in range(3)
    )
    got = im.o_information(x, method="miller_madow").value
    assert got == pytest.approx(plug + corr / (2 * n), abs=1e-12)


@pytest.mark.parametrize(
    "method", ["plugin", "miller_madow", "chao_shen", "grassberger", "shrinkage", "nsb"]
)
def test_discrete_methods_on_xor_samples(method):
    # 4000 rows of XOR: every joint symbol seen ~1000 times, so each bias-corrected entropy
    # is within ~1e-3 bits of the plug-in one, which is within ~2e-3 of the truth
    x = _samples_of(_xor(), 4000, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = im.o_information(x, method=method, unit="bits").value
    assert got == pytest.approx(-1.0, abs=0.01)


# --------------------------------------------------------------- continuous samples
def _exchangeable(n_vars, rho, n, seed):
    c = rho * np.ones((n_vars, n_vars)) + (1 - rho) * np.eye(n_vars)
    return np.random.default_rng(seed).multivariate_normal(np.zeros(n_vars), c, size=n)


def _closed_form(n_vars, rho):
    """TC, DTC of an exchangeable Gaussian: det R_m = (1 - ρ)^(m-1) (1 + (m - 1) ρ)."""
    ld = lambda m: np.log((1 - rho) ** (m - 1) * (1 + (m - 1) * rho))  # noqa: E731
    tc = -0.5 * ld(n_vars)
    dtc = n_vars * 0.5 * ld(n_vars - 1) - (n_vars - 1) * 0.5 * ld(n_vars)
    return {
        "total_correlation": tc,
        "dual_total_correlation": dtc,
        "o_information": tc - dtc,
        "s_information": tc + dtc,
    }


@pytest.mark.parametrize("method", ["gaussian", "gaussian_copula"])
@pytest.mark.parametrize(
    "quantity", ["total_correlation", "dual_total_correlation", "o_information", "s_information"]
)
def test_gaussian_closed_forms(method, quantity):
    # sd over 20 seeds at n = 2000 was 0.032 (TC), 0.016 (DTC, Ω), 0.045 (S) nats;
    # at n = 20000 they shrink by sqrt(10): 0.04 nats is >= 4 sd for every quantity
    z = _exchangeable(4, 0.5, 20000, 0)
    want = _closed_form(4, 0.5)[quantity]
    assert getattr(im, quantity)(z, method=method).value == pytest.approx(want, abs=0.04)


@pytest.mark.parametrize(
    "quantity", ["total_correlation", "o_information", "dual_total_correlation"]
)
def test_ksg_closed_forms(quantity):
    # over 20 seeds at n = 2000 the KSG sd was 0.031 (TC), 0.025 (Ω), 0.032 (DTC) nats and
    # the bias +0.012 (TC, DTC), 0 (Ω); at n = 4000 a tolerance of 0.08 is > 3.5 sd + bias
    z = _exchangeable(4, 0.5, 4000, 1)
    want = _closed_form(4, 0.5)[quantity]
    assert getattr(im, quantity)(z, method="ksg").value == pytest.approx(want, abs=0.08)


def test_ksg_total_correlation_of_two_is_ksg1_mutual_information():
    x = np.random.default_rng(1).normal(size=(500, 2))
    x[:, 1] += x[:, 0]
    tc = im.total_correlation(x, method="ksg").value
    assert tc == pytest.approx(im.mutual_info(x[:, 0], x[:, 1], method="ksg1").value, rel=1e-12)


@pytest.mark.parametrize("method", ["gaussian", "gaussian_copula"])
def test_groups_match_the_core_gaussian_mi(method):
    z = _exchangeable(3, 0.4, 3000, 2)
    tc = im.total_correlation(z, groups=[[0, 1], [2]], method=method).value
    mi = im.mutual_info(z[:, :2], z[:, 2], method=method).value
    assert tc == pytest.approx(mi, rel=1e-9, abs=1e-12)


def test_copula_is_invariant_to_monotone_maps():
    z = _exchangeable(4, 0.3, 1000, 3)
    moved = z.copy()
    moved[:, 0] = np.exp(moved[:, 0])
    moved[:, 2] = moved[:, 2] ** 3
    a = im.o_information(z, method="gaussian_copula").value
    assert im.o_information(moved, method="gaussian_copula").value == pytest.approx(a, abs=1e-12)


@pytest.mark.parametrize("method", ["gaussian", "gaussian_copula", "ksg"])
def test_independent_variables_give_zero(method):
    # independent columns: the bias-corrected Gaussian estimates are unbiased (sd ~0.0015
    # nats at n = 5000 for Ω of 4); KSG's sd is ~0.01; tolerance 0.04 is > 4 sd
    z = np.random.default_rng(4).normal(size=(5000, 4))
    for q in ("total_correlation", "o_information", "co_information"):
        assert getattr(im, q)(z, method=method).value == pytest.approx(0.0, abs=0.04)


def test_ci_goes_through_the_shared_resampling():
    z = _exchangeable(3, 0.5, 800, 5)
    e = im.o_information(z, method="gaussian", ci=0.9, seed=3)
    lo, hi = e.ci
    assert lo < e.value < hi and e.stderr > 0
    again = im.o_information(z, method="gaussian", ci=0.9, seed=3)
    assert again.ci == e.ci


def test_auto_choices_are_recorded():
    z = _exchangeable(3, 0.5, 300, 6)
    assert im.total_correlation(z).method == "gaussian_copula"
    x = _samples_of(_xor(), 400, 1)
    e = im.total_correlation(x)
    assert e.method == "miller_madow" and "auto_reason" in e.diagnostics


def test_gradient_result_frame_and_plot(tmp_path):
    x = _samples_of(_xor(), 400, 2)
    g = im.gradient_o_information(x, method="plugin", unit="bits")
    df = g.to_frame()
    assert list(df["variable"]) == ["x0", "x1", "x2"]
    # XOR: the empirical pmf is close to XOR's, so each contribution is near -1 bit
    assert np.allclose(df["value"], -1.0, atol=0.02)
    ax = g.plot(path=tmp_path / "g.png")
    assert (tmp_path / "g.png").exists() and ax is not None


def test_estimate_with_three_named_roles():
    x = _samples_of(_copy3(), 200, 3)
    e = im.estimate("o_information", {"x": x[:, 0], "y": x[:, 1], "z": x[:, 2]}, method="plugin")
    # three copies of one bit: Ω = H(bit) of the sample (ln 2 when balanced)
    want = im.entropy(x[:, 0], method="plugin").value
    assert e.value == pytest.approx(want, abs=1e-12) and want == pytest.approx(LN2, abs=0.01)


def test_dataframe_labels_name_the_variables():
    pd = pytest.importorskip("pandas")
    z = _exchangeable(3, 0.5, 200, 7)
    df = pd.DataFrame(z, columns=["a", "b", "c"])
    g = im.gradient_o_information(df, method="gaussian")
    assert g.names == ("a", "b", "c")
    tc = im.total_correlation(df, groups=[["a", "b"], ["c"]], method="gaussian").value
    assert tc == pytest.approx(im.mutual_info(z[:, :2], z[:, 2], method="gaussian").value)


# ----------------------------------------------------------------------- bad input
BAD = [
    (lambda: im.total_correlation(np.zeros((10, 1))), ValueError, "X"),
    (lambda: im.o_information(np.random.default_rng(0).normal(size=(10, 2))), ValueError, "X"),
    (lambda: exact.total_correlation(np.full((2, 2), 0.3)), ValueError, "p"),
    (lambda: exact.o_information(np.full((2, 2), 0.25)), ValueError, "p"),
    (
        lambda: im.total_correlation(np.zeros((10, 3)), groups=[[0, 1], [1, 2]]),
        ValueError,
        "groups",
    ),
    (lambda: im.total_correlation(np.zeros((10, 3)), groups=[[0], [5]]), ValueError, "groups"),
    (
        lambda: im.total_correlation(np.random.default_rng(0).normal(size=(9, 3)), method="nsb"),
        ValueError,
        "method",
    ),
    (
        lambda: im.total_correlation(np.arange(30).reshape(10, 3), method="nope"),
        ValueError,
        "method",
    ),
    (
        lambda: im.total_correlation(
            np.random.default_rng(0).normal(size=(9, 3)), method="gaussian", bias_correct=1
        ),
        TypeError,
        "bias_correct",
    ),
    (lambda: im.co_information(np.zeros((5, 21), int)), ValueError, "co_information"),
]


@pytest.mark.parametrize("call,exc,word", BAD)
def test_bad_input_names_the_argument(call, exc, word):
    with pytest.raises(exc, match=word):
        call()


def test_singular_gaussian_is_a_clear_error():
    z = np.random.default_rng(0).normal(size=(50, 2))
    x = np.column_stack([z, z[:, 0] + z[:, 1]])
    with pytest.raises(ValueError, match="singular"):
        im.o_information(x, method="gaussian")
