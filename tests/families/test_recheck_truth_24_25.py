"""Outside re-check (issue 30r) of issues 24, 25 and 29: exact answers the team's own
tests did not use, and seeds.

* Gaussian TC / DTC / O- / S- / co-information / gradient O-information on samples whose
  sample covariance *is* a chosen Σ (built by exact whitening), against the closed forms
  from log-determinants of Σ's blocks (½ Σᵢ log Σᵢᵢ − ½ log det Σ, ...): equal to rounding
  with ``bias_correct=False`` (every quantity is scale-free, so the covariance's
  normalisation 1/n or 1/(n−1) does not matter).
* Gaussian BROJA for a *vector* target in two configurations derived by hand (below).
* Local MI / CMI / TE / AIS: pointwise against log-density ratios computed here with
  scipy from the sample moments (exact to rounding), and against the true model's
  log-density ratios (statistically).
* PCMCI+ on five small SCMs whose Markov equivalence class is derived by hand in each
  test's comment (and the same graph as Tigramite 5.2's ``run_pcmciplus`` mark for mark on
  these data sets, checked once outside the suite with /work/peers-25).
* ``multivariate_test`` p-values under exchangeability: exactly uniform on
  {1, ..., B+1}/(B+1) for a continuous statistic.
* The same seed gives the same number everywhere; another seed another null.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import infometer as im


def exact_cov_sample(sigma: np.ndarray, n: int, seed: int, ddof: int = 1) -> np.ndarray:
    """n rows with mean exactly 0 and sample covariance (divisor n - ddof) exactly sigma."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, sigma.shape[0]))
    z -= z.mean(0)
    c = z.T @ z / (n - ddof)
    z = z @ np.linalg.inv(np.linalg.cholesky(c)).T
    return z @ np.linalg.cholesky(sigma).T


def logdet(a: np.ndarray) -> float:
    return float(np.linalg.slogdet(a)[1])


def minor(a: np.ndarray, i: int) -> np.ndarray:
    return np.delete(np.delete(a, i, 0), i, 1)


SIGMA = np.array(
    [[1, 0.6, 0.3, 0.2], [0.6, 1, 0.5, 0.1], [0.3, 0.5, 1, -0.4], [0.2, 0.1, -0.4, 1.0]]
)


def closed_tc(s):
    return 0.5 * (np.log(np.diag(s)).sum() - logdet(s))


def closed_dtc(s):
    d = s.shape[0]
    return 0.5 * (sum(logdet(minor(s, i)) for i in range(d)) - (d - 1) * logdet(s))


def closed_o(s):
    return closed_tc(s) - closed_dtc(s)


# ------------------------------------------------------------- Gaussian multivariate
@pytest.mark.parametrize("ddof", [0, 1])
def test_gaussian_multivariate_quantities_closed_form(ddof):
    x = exact_cov_sample(SIGMA, 500, 0, ddof)
    kw = {"method": "gaussian", "bias_correct": False}
    tc, dtc = closed_tc(SIGMA), closed_dtc(SIGMA)
    # rounding only: the sample covariance equals SIGMA to ~1e-15; log-dets of a
    # well-conditioned 4x4 matrix carry ~1e-14 relative error
    assert im.total_correlation(x, **kw).value == pytest.approx(tc, abs=1e-11)
    assert im.dual_total_correlation(x, **kw).value == pytest.approx(dtc, abs=1e-11)
    assert im.o_information(x, **kw).value == pytest.approx(tc - dtc, abs=1e-11)
    assert im.s_information(x, **kw).value == pytest.approx(tc + dtc, abs=1e-11)
    # co-information of three: -sum_{S} (-1)^|S| H(X_S); the 2 pi e constants cancel
    s3 = SIGMA[:3, :3]

    def h(idx):
        return 0.5 * logdet(s3[np.ix_(idx, idx)])

    co = h([0]) + h([1]) + h([2]) - h([0, 1]) - h([0, 2]) - h([1, 2]) + h([0, 1, 2])
    assert im.co_information(x[:, :3], **kw).value == pytest.approx(co, abs=1e-11)
    g = im.gradient_o_information(x, **kw).to_frame()["value"].to_numpy()
    want = [closed_o(SIGMA) - closed_o(minor(SIGMA, i)) for i in range(4)]
    np.testing.assert_allclose(g, want, atol=1e-11)
    # in bits: the factor ln 2
    assert im.o_information(x, unit="bits", **kw).value == pytest.approx(
        (tc - dtc) / np.log(2), abs=1e-11
    )


def test_gaussian_o_information_unbiased_on_fresh_samples():
    # the Wishart-corrected estimate on 20 independent samples of N(0, SIGMA), n = 4000:
    # the mean of 20 lies within 4 standard errors of the closed form (sd of one
    # estimate measured ~0.0036 nats, so 4 * sd / sqrt(20) ~ 0.0033)
    rng = np.random.default_rng(1)
    vals = [
        im.o_information(rng.multivariate_normal(np.zeros(4), SIGMA, size=4000), method="gaussian")
        for _ in range(20)
    ]
    v = np.array([e.value for e in vals])
    se = v.std(ddof=1) / np.sqrt(len(v))
    assert abs(v.mean() - closed_o(SIGMA)) < 4 * se + 1e-12


# -------------------------------------------------------------- Gaussian BROJA, vector T
def _broja(d):
    r = im.pid(d[:, :2], d[:, 2:], method="gaussian", measure="broja", bias_correct=False)
    return r.redundancy, r.unique, r.synergy, r


def test_broja_vector_target_independent_channels():
    # T = (T1, T2) independent N(0, 1); S1 = T1 + s1 n1, S2 = T2 + s2 n2.  Over Gaussian q
    # with p's (T, S1), (T, S2) marginals the only freedom is r = corr(n1, n2 | T), and
    # I_q(T; S) = ½ log[((1+s1²)(1+s2²) − r² s1² s2²) / (s1² s2² (1 − r²))] is increasing
    # in r² (derivative at 0 of the log: 1 − s1²s2²/((1+s1²)(1+s2²)) > 0), so UI = I(T;S)
    # = I1 + I2: no redundancy, no synergy, U_i = I(T; S_i) = ½ log(1 + 1/s_i²).
    s1, s2 = 0.5, 1.5
    sig = np.array([[1 + s1**2, 0, 1, 0], [0, 1 + s2**2, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1.0]])
    red, uni, syn, r = _broja(exact_cov_sample(sig, 3000, 4))
    # the optimiser reaches ~1e-13 nats (docs); exact moments: rounding only
    assert red == pytest.approx(0.0, abs=1e-9)
    assert syn == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(
        uni, [0.5 * np.log(1 + 1 / s1**2), 0.5 * np.log(1 + 1 / s2**2)], atol=1e-9
    )


def test_broja_vector_target_with_an_irrelevant_component():
    # T = (T1, T2), both sources about T1 only: S_i = T1 + s_i n_i, T2 independent of all.
    # Then the problem is the scalar one (T2 drops out of every I_q) and BROJA = MMI:
    # R = min(I1, I2), U_strong = |I1 − I2|, U_weak = 0, S = I12 − max(I1, I2), with
    # I_i = ½ log(1 + 1/s_i²), I12 = ½ log(1 + 1/s1² + 1/s2²).
    s1, s2 = 0.5, 1.5
    sig = np.array([[1 + s1**2, 1, 1, 0], [1, 1 + s2**2, 1, 0], [1, 1, 1, 0], [0, 0, 0, 1.0]])
    red, uni, syn, _ = _broja(exact_cov_sample(sig, 3000, 5))
    i1, i2 = 0.5 * np.log(1 + 1 / s1**2), 0.5 * np.log(1 + 1 / s2**2)
    i12 = 0.5 * np.log(1 + 1 / s1**2 + 1 / s2**2)
    assert red == pytest.approx(i2, abs=1e-9)
    np.testing.assert_allclose(uni, [i1 - i2, 0.0], atol=1e-9)
    assert syn == pytest.approx(i12 - i1, abs=1e-9)


# ------------------------------------------------------------------------ local values
def _gauss_logpdf(data: np.ndarray, cols: list[int]) -> np.ndarray:
    """log N(data[:, cols]; sample mean, sample covariance with divisor n)."""
    a = data[:, cols]
    cov = np.atleast_2d(np.cov(a.T, ddof=0))
    return stats.multivariate_normal(a.mean(0), cov).logpdf(a)


def test_local_mi_and_cmi_pointwise_plugin_closed_form():
    rng = np.random.default_rng(7)
    d = rng.multivariate_normal(np.zeros(3), [[1, 0.5, 0.6], [0.5, 1, 0.4], [0.6, 0.4, 1]], 800)
    x, y, z = d.T
    lv = im.mutual_info(x, y, method="gaussian", local=True, bias_correct=False)
    want = _gauss_logpdf(d, [0, 1]) - _gauss_logpdf(d, [0]) - _gauss_logpdf(d, [1])
    # rounding only (one 2x2 inverse and log-det)
    np.testing.assert_allclose(lv.values, want, atol=1e-9)
    lv = im.cond_mutual_info(x, y, z, method="gaussian", local=True, bias_correct=False)
    want = (
        _gauss_logpdf(d, [0, 1, 2])
        + _gauss_logpdf(d, [2])
        - _gauss_logpdf(d, [0, 2])
        - _gauss_logpdf(d, [1, 2])
    )
    np.testing.assert_allclose(lv.values, want, atol=1e-9)
    # with the Wishart correction: the same values shifted by one constant
    lv = im.cond_mutual_info(x, y, z, method="gaussian", local=True)
    shift = np.asarray(lv.values) - want
    assert np.ptp(shift) < 1e-9


def _ar_pair(n, a, c, sig, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = np.zeros(n)
    e = rng.normal(size=n)
    for t in range(1, n):
        y[t] = a * y[t - 1] + c * x[t - 1] + sig * e[t]
    return x, y


def test_local_te_pointwise_plugin_and_true_model():
    a, c, sig = 0.5, 0.8, 0.6
    x, y = _ar_pair(5000, a, c, sig, 2)
    lv = im.transfer_entropy(x, y, method="gaussian", local=True, bias_correct=False)
    # embedded rows (y_{t+1}, y_t, x_t), t = 0..n-2, as the documented k = l = 1 embedding
    d = np.c_[y[1:], y[:-1], x[:-1]]
    assert len(lv.values) == len(d)
    want = (
        _gauss_logpdf(d, [0, 1, 2])
        + _gauss_logpdf(d, [1])
        - _gauss_logpdf(d, [1, 2])
        - _gauss_logpdf(d, [0, 1])
    )
    np.testing.assert_allclose(lv.values, want, atol=1e-9)
    # against the true model: te(t) = log N(y'; a y + c x, sig²) − log N(y'; a y, c² + sig²)
    # (x_t is independent of y_t); parameters estimated from 5000 rows are off by
    # ~1/sqrt(5000) = 0.014 relative, so the mean absolute pointwise gap is a few 0.01 nats
    true = stats.norm.logpdf(d[:, 0], a * d[:, 1] + c * d[:, 2], sig) - stats.norm.logpdf(
        d[:, 0], a * d[:, 1], np.sqrt(c**2 + sig**2)
    )
    assert np.mean(np.abs(np.asarray(lv.values) - true)) < 0.05
    # the average is the TE, ½ log(1 + c²/sig²) = 0.5108 nats, within 4 standard errors
    se = np.std(true) / np.sqrt(len(true))
    assert abs(np.mean(lv.values) - 0.5 * np.log(1 + c**2 / sig**2)) < 4 * se


def test_local_ais_pointwise_plugin():
    _, y = _ar_pair(3000, 0.8, 0.0, 1.0, 3)
    lv = im.active_info_storage(y, method="gaussian", local=True, bias_correct=False)
    d = np.c_[y[1:], y[:-1]]
    want = _gauss_logpdf(d, [0, 1]) - _gauss_logpdf(d, [0]) - _gauss_logpdf(d, [1])
    np.testing.assert_allclose(lv.values, want, atol=1e-9)
    # AR(1), phi = 0.8: AIS = I(y_t; y_{t-1}) = −½ log(1 − phi²) = 0.5108 nats; the local
    # values' sd is ~1 nat and they are autocorrelated, so allow 6 naive standard errors
    se = np.std(want) / np.sqrt(len(want))
    assert abs(np.mean(lv.values) - (-0.5 * np.log(1 - 0.64))) < 6 * se


# ------------------------------------------------------------------------------ PCMCI+
def _scm(kind: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    e = rng.normal(size=(n + 100, 4))
    x = np.zeros((n + 100, 4))
    for t in range(1, n + 100):
        if kind == "collider_lagged_parents":
            x[t, 0] = 0.5 * x[t - 1, 0] + e[t, 0]
            x[t, 1] = 0.5 * x[t - 1, 1] + e[t, 1]
            x[t, 2] = 0.6 * x[t, 0] + 0.6 * x[t, 1] + e[t, 2]
            x[t, 3] = e[t, 3]
        elif kind == "chain_white":
            x[t, 0] = e[t, 0]
            x[t, 1] = 0.7 * x[t, 0] + e[t, 1]
            x[t, 2] = 0.7 * x[t, 1] + e[t, 2]
            x[t, 3] = e[t, 3]
        elif kind == "lag_orients":
            x[t, 0] = e[t, 0]
            x[t, 1] = 0.7 * x[t - 1, 0] + e[t, 1]
            x[t, 2] = 0.6 * x[t, 1] + e[t, 2]
            x[t, 3] = e[t, 3]
        elif kind == "collider_then_r1":
            x[t, 0] = e[t, 0]
            x[t, 2] = e[t, 2]
            x[t, 1] = 0.6 * x[t, 0] + 0.6 * x[t, 2] + e[t, 1]
            x[t, 3] = 0.7 * x[t, 1] + e[t, 3]
        elif kind == "triangle":
            x[t, 0] = e[t, 0]
            x[t, 1] = 0.6 * x[t, 0] + e[t, 1]
            x[t, 2] = 0.5 * x[t, 0] + 0.5 * x[t, 1] + e[t, 2]
            x[t, 3] = 0.6 * x[t - 1, 3] + e[t, 3]
    return x[100:]


# the Markov equivalence classes, as Tigramite's graph entries {(i, j, tau): mark}
# (i at t - tau, j at t; a contemporaneous link appears as (i, j, 0) and (j, i, 0))
MEC = {
    # X0 -> X2 <- X1 at lag 0 with X0, X1 non-adjacent: an unshielded collider, oriented;
    # the autodependences X0(t-1) -> X0(t), X1(t-1) -> X1(t) are lagged (time orders them)
    "collider_lagged_parents": {
        (0, 0, 1): "-->",
        (1, 1, 1): "-->",
        (0, 2, 0): "-->",
        (2, 0, 0): "<--",
        (1, 2, 0): "-->",
        (2, 1, 0): "<--",
    },
    # X0 - X1 - X2 at lag 0, no lagged neighbour and no collider: nothing can be oriented
    "chain_white": {(0, 1, 0): "o-o", (1, 0, 0): "o-o", (1, 2, 0): "o-o", (2, 1, 0): "o-o"},
    # X0(t-1) -> X1(t) - X2(t), X0(t-1), X2(t) non-adjacent and X1 in their sepset: no
    # collider, so rule R1 orients X1(t) -> X2(t)
    "lag_orients": {(0, 1, 1): "-->", (1, 2, 0): "-->", (2, 1, 0): "<--"},
    # the collider X0 -> X1 <- X2 (oriented), then X0 -> X1 - X3 with X0, X3 non-adjacent:
    # R1 gives X1 -> X3
    "collider_then_r1": {
        (0, 1, 0): "-->",
        (1, 0, 0): "<--",
        (2, 1, 0): "-->",
        (1, 2, 0): "<--",
        (1, 3, 0): "-->",
        (3, 1, 0): "<--",
    },
    # a complete contemporaneous triangle: no unshielded triple, every link stays o-o;
    # X3 only has its autodependence
    "triangle": {
        **{(i, j, 0): "o-o" for i in range(3) for j in range(3) if i != j},
        (3, 3, 1): "-->",
    },
}


@pytest.mark.parametrize("kind", sorted(MEC))
def test_pcmciplus_markov_equivalence_class(kind):
    # n = 1000 Gaussian rows, effects >= 0.5 (partial correlations ~0.4-0.6: every true
    # link p < 1e-30), alpha = 0.01: an absent link survives only if every one of its
    # tests rejects, checked on these fixed data (and identical to Tigramite's graph)
    net = im.infer_network(
        _scm(kind, 1000, 0), method="pcmciplus", tau_min=0, max_lag=1, alpha=0.01
    )
    g = net.graph
    got = {
        (i, j, t): str(g[i, j, t])
        for i in range(4)
        for j in range(4)
        for t in range(2)
        if g[i, j, t] != ""
    }
    assert got == MEC[kind]
    # the edge list agrees with the graph: one row per contemporaneous pair
    links = net.edges
    n_contemp = sum(1 for (i, j, t) in MEC[kind] if t == 0) // 2
    assert (links["lag"] == 0).sum() == n_contemp


# ----------------------------------------------------------- multivariate_test null
def test_multivariate_test_p_values_uniform_under_exchangeability():
    # independent columns: the observed data set is exchangeable with its B permuted
    # copies, so for a continuous statistic (no ties) p = rank/(B+1) is exactly uniform
    # on {1, ..., B+1}/(B+1).  400 data sets, B = 9: each of the 10 values has count
    # Binomial(400, 0.1) (mean 40); the chi-square statistic on 9 df exceeds 27.9 with
    # probability 0.001
    b = 9
    ps = []
    for s in range(400):
        x = np.random.default_rng(1000 + s).normal(size=(25, 3))
        t = im.multivariate_test(
            x, measure="o_information", method="gaussian", n_permutations=b, seed=s
        )
        ps.append(t.p_value)
    ps = np.array(ps)
    k = np.rint(ps * (b + 1)).astype(int)
    np.testing.assert_allclose(ps * (b + 1), k, atol=1e-9)  # on the lattice
    counts = np.bincount(k, minlength=b + 2)[1:]
    assert counts.sum() == 400
    chi2 = ((counts - 40.0) ** 2 / 40.0).sum()
    assert chi2 < 27.9, counts


# ---------------------------------------------------------------------------- seeds
def test_same_seed_same_numbers_other_seed_other_null():
    rng = np.random.default_rng(11)
    x = rng.normal(size=(80, 4))
    x[:, 3] += x[:, 0] * x[:, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t1 = im.multivariate_test(x, n_permutations=19, seed=5)
        t2 = im.multivariate_test(x, n_permutations=19, seed=5)
        t3 = im.multivariate_test(x, n_permutations=19, seed=6)
        assert t1.p_value == t2.p_value and np.array_equal(t1.null, t2.null)
        assert not np.array_equal(t1.null, t3.null)
        # the unit changes the numbers, not the permutations
        tb = im.multivariate_test(x, n_permutations=19, seed=5, unit="bits")
        assert tb.p_value == t1.p_value
        np.testing.assert_allclose(tb.null * np.log(2), t1.null, rtol=1e-12)

        m1 = im.multiplets(x, n_permutations=19, seed=5).frame
        m2 = im.multiplets(x, n_permutations=19, seed=5).frame
        m3 = im.multiplets(x, n_permutations=19, seed=6).frame
        assert m1.equals(m2)
        assert not np.array_equal(m1["p_fwer"], m3["p_fwer"]) or not np.array_equal(
            m1["p_value"], m3["p_value"]
        )
        g1 = im.multiplets(x, n_permutations=19, seed=5, search="greedy").frame
        g2 = im.multiplets(x, n_permutations=19, seed=5, search="greedy").frame
        assert g1.equals(g2)

        p1 = im.pid(
            x[:, :2],
            x[:, 2:],
            method="gaussian",
            measure="broja",
            bias_correct=False,
            ci=0.9,
            seed=5,
        )
        p2 = im.pid(
            x[:, :2],
            x[:, 2:],
            method="gaussian",
            measure="broja",
            bias_correct=False,
            ci=0.9,
            seed=5,
        )
        p3 = im.pid(
            x[:, :2],
            x[:, 2:],
            method="gaussian",
            measure="broja",
            bias_correct=False,
            ci=0.9,
            seed=6,
        )
        assert p1.to_frame().equals(p2.to_frame())
        assert not p1.to_frame()["ci_low"].equals(p3.to_frame()["ci_low"])

        s, y = _ar_pair(400, 0.5, 0.6, 1.0, 12)
        e1 = im.transfer_entropy(s, y, k="auto", l="auto", method="ksg1", n_permutations=19, seed=5)
        e2 = im.transfer_entropy(s, y, k="auto", l="auto", method="ksg1", n_permutations=19, seed=5)
        assert e1.value == e2.value and e1.params["k"] == e2.params["k"]
        assert e1.diagnostics == e2.diagnostics
        l1 = im.transfer_entropy(s, y, method="ksg1", local=True, seed=5)
        l2 = im.transfer_entropy(s, y, method="ksg1", local=True, seed=5)
        assert np.array_equal(l1.values, l2.values)
