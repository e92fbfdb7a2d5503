"""Signal complexity measures against known answers (issue 26 §2)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.special import ndtr

import infometer as im
from infometer.measures.complexity import _measures as measures
from infometer.measures.complexity._api import plane_limits

EULER = 0.5772156649015329


def white(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=n)


@pytest.mark.parametrize("m", [3, 4, 5])
def test_permutation_entropy_of_white_noise_is_log_m_factorial(m):
    n = 50_000
    e = im.complexity(white(n), "permutation", order=m)
    # plug-in bias is -(m! - 1) / (2 N) <= 1.2e-3 nats; the sd is ~sqrt(m!/N)/N-ish, far
    # below: 3e-3 nats covers both
    assert e.value == pytest.approx(math.log(math.factorial(m)), abs=3e-3)
    en = im.complexity(white(n), "permutation", order=m, normalize=True)
    assert en.value == pytest.approx(1.0, abs=3e-3 / math.log(math.factorial(m)))
    assert en.diagnostics["normalized"]


@pytest.mark.parametrize("measure", ["permutation", "weighted_permutation", "modified_permutation"])
@pytest.mark.parametrize("m", [2, 3, 5])
def test_monotone_and_constant_series_have_zero_ordinal_entropy(measure, m):
    assert im.complexity(np.arange(200.0), measure, order=m).value == 0.0
    assert im.complexity(-np.exp(np.linspace(0, 3, 200)), measure, order=m).value == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a float signal with one distinct value
        assert im.complexity(np.full(200, 3.0), measure, order=m).value == 0.0


def test_modified_equals_plain_pe_without_ties_and_differs_with_them():
    x = white(3000, 1)
    assert im.complexity(x, "modified_permutation", order=4).value == pytest.approx(
        im.complexity(x, "permutation", order=4).value, abs=1e-15
    )
    t = np.round(x)  # many ties
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mod = im.complexity(t, "modified_permutation", order=3).value
        pe = im.complexity(t, "permutation", order=3).value
    assert mod > pe  # ties split into their own patterns
    assert measures.fubini(3) == 13 and measures.fubini(4) == 75


def test_weighted_permutation_on_white_noise():
    e = im.complexity(white(50_000, 2), "weighted_permutation", order=3, normalize=True)
    assert e.value == pytest.approx(1.0, abs=5e-3)


def test_dispersion_entropy_of_white_noise():
    # the normal-CDF map makes the classes equiprobable for Gaussian noise, so the
    # patterns are uniform over c^m: log(c^m) minus the plug-in bias (c^m - 1) / 2N
    n, c, m = 50_000, 6, 2
    e = im.complexity(white(n, 3), "dispersion", order=m, classes=c)
    assert e.value == pytest.approx(m * math.log(c), abs=3e-3)


def sampen_white(r: float) -> float:
    """SampEn of iid Gaussian noise at tolerance r·sd: -log P(|X - Y| <= r sd)."""
    return -math.log(2 * ndtr(r / math.sqrt(2)) - 1)


@pytest.mark.parametrize("r", [0.15, 0.2, 0.3])
def test_sample_entropy_of_white_noise(r):
    # at N = 8000 the block-subsampling sd is ~0.015 here; 0.06 is 4 sd
    assert im.complexity(white(8000, 4), "sample", r=r).value == pytest.approx(
        sampen_white(r), abs=0.06
    )


def test_sample_and_approximate_entropy_of_constant_and_periodic_series():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # r = 0.2 sd = 0 and every template matches every other: -log(B/B) = 0
        assert im.complexity(np.full(300, 2.0), "sample").value == 0.0
        assert im.complexity(np.full(300, 2.0), "approximate").value == pytest.approx(0, abs=1e-12)
    s = np.sin(2 * np.pi * np.arange(2000) / 25)
    assert im.complexity(s, "sample").value < 0.5  # white noise: 2.2 (predictable: small)
    assert im.complexity(s, "approximate").value < 0.5
    assert im.complexity(white(2000, 5), "approximate").value > 1.5


def test_sample_entropy_matches_brute_force():
    x = white(300, 6)
    m, tol = 2, 0.2 * np.std(x)
    T = len(x) - m
    emb = lambda k: np.array([x[i : i + k] for i in range(T)])  # noqa: E731

    def pairs(k):
        e = emb(k)
        d = np.abs(e[:, None, :] - e[None, :, :]).max(-1)
        return (d <= tol).sum() - T

    want = -math.log(pairs(m + 1) / pairs(m))
    assert im.complexity(x, "sample").value == pytest.approx(want, rel=1e-12)


def test_fuzzy_entropy_matches_brute_force_and_orders():
    x = white(200, 7)
    m, tol = 2, 0.2 * np.std(x)
    T = len(x) - m

    def phi(k):
        e = np.array([x[i : i + k] - x[i : i + k].mean() for i in range(T)])
        d = np.abs(e[:, None, :] - e[None, :, :]).max(-1)
        s = np.exp(-(d**2) / tol)
        return (s.sum() - T) / (T * (T - 1))

    want = math.log(phi(m)) - math.log(phi(m + 1))
    assert im.complexity(x, "fuzzy").value == pytest.approx(want, rel=1e-10)


@pytest.mark.slow
def test_spectral_entropy_white_noise_and_sine():
    n = 8192
    e = im.complexity(white(n, 8), "spectral", normalize=True).value
    # periodogram ordinates of white noise are iid exponential: E H = log K - (1 - gamma)
    # to O(1/K), K = n/2 + 1 frequencies; sd ~ 1/sqrt(K) / log K ~ 2e-3
    k = n // 2 + 1
    assert e == pytest.approx(1 - (1 - EULER) / math.log(k), abs=0.01)
    s = np.sin(2 * np.pi * 64 * np.arange(n) / n)  # an exact Fourier frequency
    assert im.complexity(s, "spectral", normalize=True).value < 0.01
    w = im.complexity(white(n, 8), "spectral", psd="welch", normalize=True).value
    assert 0.9 < w <= 1.0


def test_svd_entropy():
    x = white(20_000, 9)
    assert im.complexity(x, "svd", order=3, normalize=True).value == pytest.approx(1, abs=1e-3)
    s = np.sin(np.arange(5000) * 0.3)  # rank 2 embedding: two singular values
    assert im.complexity(s, "svd", order=5).value <= math.log(2) + 1e-9


def test_statistical_complexity_and_plane():
    x = white(50_000, 10)
    assert im.complexity(x, "statistical_complexity", order=4).value < 0.01
    assert im.complexity(np.arange(500.0), "statistical_complexity").value == 0.0
    # every pmf lies between the plane's limit curves
    n = math.factorial(3)
    (lh, lc), (hh, hc) = plane_limits(n, points=400)
    rng = np.random.default_rng(11)
    for _ in range(30):
        p = rng.dirichlet(np.full(n, 0.3))
        h, c = measures.complexity_of_pmf(p)
        assert np.interp(h, lh, lc) - 2e-3 <= c <= np.interp(h, hh, hc) + 2e-3
    logistic = np.empty(5000)
    logistic[0] = 0.4
    for t in range(1, 5000):
        logistic[t] = 4 * logistic[t - 1] * (1 - logistic[t - 1])
    plane = im.complexity_entropy_plane({"noise": x, "logistic": logistic}, order=4)
    df = plane.to_frame()
    # chaos sits at lower entropy and higher complexity than noise (Rosso et al. 2007)
    assert df.entropy[1] < df.entropy[0] and df.complexity[1] > df.complexity[0] + 0.2


def test_two_dimensional_permutation_entropy():
    rng = np.random.default_rng(12)
    e = im.complexity(rng.normal(size=(200, 200)), "permutation_2d", normalize=True)
    assert e.value == pytest.approx(1.0, abs=3e-3)
    ramp = np.add.outer(np.arange(50.0), 2 * np.arange(60.0))
    assert im.complexity(ramp, "permutation_2d", order=(2, 2)).value == 0.0


def test_units_and_error_bars():
    x = white(5000, 13)
    nat = im.complexity(x, "sample")
    bit = im.complexity(x, "sample", unit="bits")
    assert bit.value == pytest.approx(nat.value / math.log(2))
    assert nat.stderr is None  # no error bar unless asked
    e = im.complexity(x, "permutation", ci=0.9)
    assert e.stderr > 0 and e.ci[0] < e.value < e.ci[1]


def test_block_stderr_tracks_the_spread_over_replicates():
    # AR(1) signals: the sd of PE over 40 independent replicates vs the mean block stderr
    # of one replicate; the block estimate has 9 dof, so agreement within a factor 1.8
    phi, n = 0.5, 4000
    vals, ses = [], []
    for s in range(40):
        e = np.random.default_rng(100 + s).normal(size=n)
        x = np.empty(n)
        x[0] = e[0]
        for t in range(1, n):
            x[t] = phi * x[t - 1] + e[t]
        est = im.complexity(x, "permutation", order=3, ci=0.9)
        vals.append(est.value)
        ses.append(est.stderr)
    ratio = np.mean(ses) / np.std(vals, ddof=1)
    assert 1 / 1.8 < ratio < 1.8


@pytest.mark.parametrize(
    "measure, x, kw, match",
    [
        ("permutation", np.arange(100.0), {"order": 5}, "order"),  # 5! = 120 > 100
        ("permutation", np.arange(100.0), {"order": 3, "delay": 50}, "delay"),
        ("permutation", np.arange(100.0), {"order": 0}, "order"),
        ("permutation", np.arange(100.0), {"order": 11}, "order"),
        ("permutation", np.arange(100.0), {"delay": 0}, "delay"),
        ("dispersion", np.arange(100.0), {"classes": 1}, "classes"),
        ("dispersion", np.arange(100.0), {"classes": 6, "order": 3}, "order"),  # 216 > 100
        ("sample", np.arange(100.0), {"r": 0}, "r"),
        ("sample", np.arange(100.0), {"delay": 60}, "delay"),
        ("fuzzy", np.arange(100.0), {"max_pairs": 10}, "max_pairs"),
        ("spectral", np.arange(100.0), {"psd": "burg"}, "psd"),
        ("permutation", np.arange(100.0), {"normalize": True, "unit": "bits"}, "unit"),
        ("permutation", np.arange(100.0), {"stderr_blocks": 1}, "stderr_blocks"),
        ("permutation", np.ones((100, 2)), {}, "x"),
        ("permutation", np.r_[np.arange(10.0), np.nan], {}, "x"),
        ("permutation", "abc", {}, "x"),
        ("lempel_ziv", np.arange(100.0), {}, "lempel_ziv"),
        ("permutation_2d", np.ones((5, 5)), {"order": (3, 3)}, "order"),
        ("permutation_2d", np.arange(10.0), {}, "x"),
    ],
)
def test_bad_input(measure, x, kw, match):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((ValueError, TypeError), match=match):
            im.complexity(x, measure, **kw)


@pytest.mark.parametrize("m", [1, 2, 3, 5, 8, 9])
@pytest.mark.parametrize("tau", [1, 3])
def test_fast_ordinal_histograms_match_the_reference_codes(m, tau):
    # the digit-update kernels (generic and unrolled) against plain per-window Lehmer codes,
    # on data with many ties (broken by time in both)
    from infometer.measures.complexity import _kernels as K
    from infometer.measures.complexity._ordinal_unrolled import HIST

    x = np.round(np.random.default_rng(14).normal(size=2000), 1)
    want = np.bincount(K.ordinal_codes(x, m, tau), minlength=math.factorial(m))
    if m in HIST:
        np.testing.assert_array_equal(HIST[m](x, tau), want)
    np.testing.assert_array_equal(K.ordinal_histogram(x, m, tau, math.factorial(m)), want)


@pytest.mark.parametrize("n", [40, 1001, 9000])  # each lag's diagonal slides over n rows
@pytest.mark.parametrize("signal", ["noise", "walk", "sine"])
def test_gram_singular_values_match_the_svd(signal, n):
    rng = np.random.default_rng(15)
    x = {
        "noise": rng.normal(size=n),
        "walk": rng.normal(size=n).cumsum(),
        "sine": np.sin(np.arange(n) * 0.3),  # rank 2: falls back to the SVD
    }[signal]
    for m, tau in ((3, 1), (6, 1), (4, 3)):
        rows = x.size - (m - 1) * tau
        emb = np.column_stack([x[i * tau : i * tau + rows] for i in range(m)])
        s = np.linalg.svd(emb, compute_uv=False)
        np.testing.assert_allclose(
            measures._singular_values(x, m, tau, rows), s, rtol=0, atol=1e-12 * s[0]
        )


@pytest.mark.parametrize("n", [1000, 1001])
def test_fast_periodogram_is_scipys_up_to_a_constant(n):
    from scipy.signal import periodogram

    x = np.random.default_rng(16).normal(size=n) + 3.0
    a = periodogram(x)[1]
    b = measures._periodogram(x)
    np.testing.assert_allclose(b / b.sum(), a / a.sum(), rtol=1e-10, atol=1e-18)


def test_im_complexity_is_callable_whatever_was_imported_first():
    # the package infometer.measures.complexity and the function share the name: importing the
    # families first (any registry lookup) binds the package, which must still be callable
    import subprocess
    import sys

    code = (
        "import numpy as np, infometer as im; im.methods('entropy');"
        "import infometer.measures.complexity._measures;"
        "print(im.complexity(np.arange(50.0), 'permutation').value)"
    )
    import os
    from pathlib import Path

    src = str(Path(im.__file__).resolve().parents[1])  # this checkout's code
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "0.0"


def test_multiscale_plot_bars_are_t_intervals_of_the_block_stderr():
    # the bars are the 95% interval of each scale's block-subsampling stderr on
    # blocks - 1 = 9 degrees of freedom (t = 2.262), read back from the drawn artist
    import matplotlib

    matplotlib.use("Agg")
    from scipy import stats

    x = np.random.default_rng(3).normal(size=20_000)
    r = im.multiscale(x, "sample", scales=3, ci=0.95)
    ax = r.plot()
    bars = ax.containers[0]
    segs = bars.lines[2][0].get_segments()
    half = np.array([(s[1][1] - s[0][1]) / 2 for s in segs])
    assert half == pytest.approx(stats.t.ppf(0.975, 9) * r.stderr, rel=1e-9)


def _dispersion_reference(x: np.ndarray, m: int, tau: int, c: int) -> float:
    """The definition, one normal CDF per value (Rostaghi & Azami 2016)."""
    y = ndtr((x - x.mean()) / np.std(x))
    z = np.clip(np.round(c * y + 0.5), 1, c).astype(np.int64) - 1
    rows = x.size - (m - 1) * tau
    codes = sum(z[i * tau : i * tau + rows] * c ** (m - 1 - i) for i in range(m))
    counts = np.bincount(codes, minlength=c**m)
    p = counts[counts > 0] / rows
    return float(-(p * np.log(p)).sum())


@pytest.mark.parametrize("m,tau,c", [(2, 1, 6), (3, 2, 4), (1, 1, 9), (2, 3, 2)])
def test_dispersion_thresholds_give_the_cdf_classes_even_on_the_boundaries(m, tau, c):
    x = white(4000, 11) + 0.05 * np.arange(4000) / 4000
    mu, sd = x.mean(), np.std(x)
    from scipy.special import ndtri

    # values exactly on (and one ulp beside) every class boundary take the exact map
    edges = mu + sd * ndtri(np.arange(1, c) / c)
    x[: 3 * (c - 1)] = np.concatenate(
        [edges, np.nextafter(edges, -np.inf), np.nextafter(edges, np.inf)]
    )
    got = measures.dispersion(x, order=m, delay=tau, classes=c)
    assert got == pytest.approx(_dispersion_reference(x, m, tau, c), rel=1e-13, abs=1e-15)


@pytest.mark.parametrize("n,r,m,tau", [(400, 0.2, 2, 1), (1500, 0.5, 3, 2), (6000, 0.2, 2, 1)])
def test_sample_counts_scan_and_range_counts_agree(n, r, m, tau):
    from infometer.estimators.knn._engine import count_within
    from infometer.measures.complexity import _kernels

    x = np.round(white(n, 12).cumsum() * 0.1 + white(n, 13), 2)  # ties on a 0.01 grid too
    tol = r * float(np.std(x))
    rows = n - m * tau
    emb = lambda k: np.column_stack([x[i * tau : i * tau + rows] for i in range(k)])  # noqa: E731
    rad = np.full(rows, tol)
    want = (float(count_within(emb(m + 1), rad).sum()), float(count_within(emb(m), rad).sum()))
    assert _kernels.template_pair_counts(x, m, tau, tol, np.inf) == want
    assert measures.sample_counts(x, m, tau, tol) == want
    assert _kernels.template_pair_counts(x, m, tau, tol, 0.0) == (-1.0, -1.0)  # over budget


@pytest.mark.parametrize("size", [1, 7, 4096, 4097, 50_000])  # compiled pass / numpy sums
def test_entropy_of_counts_is_the_plug_in_entropy(size):
    from infometer.measures.complexity import _kernels as K

    # k equal counts (zeros between them): exactly log k
    c = np.zeros(size, np.int64)
    k = max(1, size // 3)
    c[:: max(1, size // k)][:k] = 5
    k = int(np.count_nonzero(c))
    assert K.entropy_of_counts(c) == pytest.approx(math.log(k), rel=1e-13, abs=1e-15)
    # weights: the definition -sum p log p, summed in another order
    w = np.random.default_rng(size).exponential(size=size) * (np.arange(size) % 5 != 0)
    if w.sum() > 0:
        p = w[w > 0] / w.sum()
        assert K.entropy_of_counts(w) == pytest.approx(-math.fsum(p * np.log(p)), rel=1e-12)


def test_few_distinct_values_are_said_in_the_familys_terms():
    # the reader's advice for a float column of few values (discrete=True) means nothing
    # to a signal's complexity: ordinal measures say how their ties are ordered, the others
    # keep the facts and stay quiet; and discrete= itself is refused by name
    x = np.round(np.random.default_rng(3).normal(size=500))  # 8 integer levels
    with pytest.warns(im.InfometerWarning, match="orders tied values by time") as rec:
        e = im.complexity(x, "permutation")
    assert not any("discrete=True" in str(w.message) for w in rec)
    assert e.diagnostics["ties"]["x"]["0"]["step"] == pytest.approx(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for measure in ("svd", "spectral", "modified_permutation", "dispersion"):
            e = im.complexity(x, measure)
            assert e.diagnostics["ties"]["x"]["0"]["levels"] == np.unique(x).size
        im.complexity(np.random.default_rng(3).normal(size=500), "permutation")  # no ties
    with pytest.raises(TypeError, match="discrete="):
        im.complexity(x, "permutation", discrete=True)


@pytest.mark.parametrize("n_zeros", [0, 5, 5000])  # the compiled pass and numpy's sums
def test_one_positive_weight_has_entropy_exactly_zero(n_zeros):
    # log(s) - w log(w) / s came out -2.2e-16 for some w (a monotone series' weighted
    # permutation entropy, found on numpy 1.26; these three w do it in plain Python too);
    # sum p log(1/p) has no negative term
    from infometer.measures.complexity import _kernels as K

    for w in (1.0, 0.1, 44.538719405480144, 22.876222127045263, 38.12042376882124, 1e300):
        c = np.zeros(n_zeros + 1)
        c[n_zeros // 2] = w
        assert K.entropy_of_counts(c) == 0.0
    rng = np.random.default_rng(n_zeros)
    for _ in range(50):
        assert K.entropy_of_counts(rng.exponential(size=n_zeros + 2) ** 8) >= 0.0
