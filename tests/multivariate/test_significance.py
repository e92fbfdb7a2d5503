"""im.multivariate_test: calibrated under mutual independence (rejection rate at 0.05
inside its binomial interval), powerful on planted synergy (XOR, sum) and redundancy
(copies, common driver), reproducible, with clear errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

import infometer as im
from infometer.measures.stats.nulls import independent_orders, p_value


def _rate_interval(k: int, alpha: float = 0.05, level: float = 0.999) -> tuple[int, int]:
    # rejections of a valid level-alpha test over k independent data sets: Binomial(k, a)
    lo, hi = binom.interval(level, k, alpha)
    return int(lo), int(hi)


def test_calibration_continuous_exact_level():
    # Continuous statistic (no ties), B = 19: P(p <= 0.05) = P(observed ranks first of
    # 20 exchangeable values) = 1/20 exactly, so the 300 rejections are Binomial(300, .05)
    k = 300
    rej = 0
    for s in range(k):
        x = np.random.default_rng(1000 + s).normal(size=(40, 3))
        t = im.multivariate_test(x, method="gaussian", n_permutations=19, seed=s)
        rej += t.rejects(0.05)
    lo, hi = _rate_interval(k)
    assert lo <= rej <= hi, (rej, lo, hi)


@pytest.mark.parametrize("measure", ["total_correlation", "co_information"])
def test_calibration_discrete_is_conservative(measure):
    # Discrete plug-in statistics have ties, which only make (1+#{>=})/(1+B) larger:
    # the rate is at most 0.05, so the count is below Binomial(200, .05)'s upper bound.
    k = 200
    rej = 0
    for s in range(k):
        x = np.random.default_rng(5000 + s).integers(0, 2, size=(30, 3))
        t = im.multivariate_test(x, measure=measure, method="plugin", n_permutations=19, seed=s)
        rej += t.rejects(0.05)
    assert rej <= _rate_interval(k)[1]


def _xor(n=200, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, size=(n, 2))
    return np.column_stack([a, a[:, 0] ^ a[:, 1]])


def _copies(n=200, seed=0, flip=0.1):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, size=n)
    return np.column_stack([a ^ (rng.random(n) < flip) for _ in range(3)])


def test_power_on_xor_and_copies():
    # XOR: Ω = -1 bit = -0.69 nats, copies: Ω > 0.1 nats; at n = 200 the permutation null
    # of Ω has sd ≈ 0.003 nats, so no permuted value comes close: p = 1/(B+1)
    t = im.multivariate_test(_xor(), measure="o_information", method="plugin", n_permutations=99)
    assert t.statistic.value < -0.5 and t.p_value == pytest.approx(0.01)
    t = im.multivariate_test(_copies(), method="plugin", n_permutations=99)
    assert t.statistic.value > 0.1 and t.p_value == pytest.approx(0.01)
    for m in ("total_correlation", "dual_total_correlation", "s_information"):
        assert im.multivariate_test(_xor(), measure=m, n_permutations=49).p_value == 0.02


def test_power_continuous_synergy_and_redundancy():
    rng = np.random.default_rng(3)
    n = 300
    a = rng.normal(size=(n, 2))
    syn = np.column_stack([a, a.sum(1) + 0.5 * rng.normal(size=n)])
    t = im.multivariate_test(syn, method="gaussian", n_permutations=99, alternative="less")
    assert t.statistic.value < 0 and t.p_value == pytest.approx(0.01)
    red = a[:, :1] + 0.7 * rng.normal(size=(n, 3))
    t = im.multivariate_test(red, n_permutations=99)
    assert t.statistic.value > 0 and t.p_value == pytest.approx(0.01)
    # the wrong one-sided alternative finds nothing
    t = im.multivariate_test(red, n_permutations=99, alternative="less")
    assert t.p_value == pytest.approx(1.0)


def test_gradient_ksg_and_groups():
    g = im.multivariate_test(
        _xor(120), measure="gradient_o_information", method="plugin", index=2, n_permutations=29
    )
    assert g.statistic.quantity == "o_information_gradient" and g.p_value == pytest.approx(1 / 30)
    rng = np.random.default_rng(0)
    y = rng.normal(size=(150, 4))
    y[:, 3] = y[:, 0] + y[:, 2] + 0.3 * rng.normal(size=150)
    t = im.multivariate_test(
        y, measure="total_correlation", method="ksg", groups=[[0, 1], [2], [3]], n_permutations=19
    )
    assert t.p_value == pytest.approx(0.05)  # TC >> null: the smallest p-value


def test_same_seed_same_p_and_units():
    x = np.random.default_rng(7).normal(size=(60, 4))
    a = im.multivariate_test(x, n_permutations=39, seed=3)
    b = im.multivariate_test(x, n_permutations=39, seed=3)
    c = im.multivariate_test(x, n_permutations=39, seed=4)
    assert a.p_value == b.p_value and np.array_equal(a.null, b.null)
    assert not np.array_equal(a.null, c.null)
    bits = im.multivariate_test(x, n_permutations=39, seed=3, unit="bits")
    np.testing.assert_allclose(bits.null, a.null / np.log(2), rtol=1e-12)
    assert bits.p_value == a.p_value and bits.statistic.unit == "bits"
    assert "p = " in repr(a) and a.to_dict()["alternative"] == "two-sided"
    # multipletests takes the results; maxstat needs the common permutations (same seed)
    mt = im.multipletests([a, bits], correction="holm")
    assert mt.p_adjusted.shape == (2,)


def test_block_permutation_orders_and_null():
    rng = np.random.default_rng(0)
    for p in independent_orders(rng, 10, 3, block=4):
        assert sorted(p.tolist()) == list(range(10))
        breaks = np.flatnonzero(np.diff(p) != 1) + 1  # a jump lands only on a block start
        assert np.all(p[breaks] % 4 == 0) and p[0] % 4 == 0
    # two independent AR(1) series, strongly autocorrelated: permuting rows destroys the
    # autocorrelation, blocks keep it; both give valid p-values in [1/(B+1), 1]
    n = 200
    e = rng.normal(size=(n, 3))
    x = np.zeros((n, 3))
    for t in range(1, n):
        x[t] = 0.9 * x[t - 1] + e[t]
    t = im.multivariate_test(x, measure="total_correlation", block=20, n_permutations=19)
    assert "blocks of 20" in t.scheme and 0.05 <= t.p_value <= 1.0


def test_p_value_convention():
    null = np.array([0.5, -2.0, 1.0, 0.0])
    assert p_value(1.0, null, "greater") == pytest.approx(2 / 5)
    assert p_value(1.0, null, "less") == pytest.approx(5 / 5)
    assert p_value(-1.0, null, "two-sided") == pytest.approx(3 / 5)


@pytest.mark.parametrize(
    ("kw", "exc", "word"),
    [
        ({"measure": "entropy"}, ValueError, "measure"),
        ({"n_permutations": 0}, ValueError, "n_permutations"),
        ({"alternative": "bigger"}, ValueError, "alternative"),
        ({"block": 100}, ValueError, "block"),
        ({"block": 0}, ValueError, "block"),
        ({"progress": "yes"}, TypeError, "progress"),
        ({"unit": "furlongs"}, ValueError, "unit"),
    ],
)
def test_errors_name_the_argument(kw, exc, word):
    x = np.random.default_rng(0).normal(size=(50, 3))
    with pytest.raises(exc, match=word):
        im.multivariate_test(x, n_permutations=kw.pop("n_permutations", 9), **kw)


def test_too_few_variables():
    with pytest.raises(ValueError, match="variables|at least"):
        im.multivariate_test(np.random.default_rng(0).normal(size=(50, 2)))


def test_frame_and_plot(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    t = im.multivariate_test(_xor(), method="plugin", n_permutations=49)
    f = t.to_frame()
    assert f.loc[0, "p_value"] == t.p_value and f.loc[0, "quantity"] == "o_information"
    ax = t.plot(path=tmp_path / "null.png")
    assert (tmp_path / "null.png").stat().st_size > 0
    # the observed Ω (-0.69 nats) is far outside the null (sd ~0.003): drawn as arrows
    # at the edges of a zoomed axis, not as a line that would squash the histogram
    texts = [a.get_text() for a in ax.texts]
    assert any("observed" in s and "null sd away" in s for s in texts)
    assert ax.get_xlim()[0] > t.statistic.value
    y = np.random.default_rng(0).normal(size=(100, 3))
    ax = im.multivariate_test(y, n_permutations=49).plot()  # observed inside the null
    assert any("observed" in lab for lab in ax.get_legend_handles_labels()[1])


def _ar1(rng, n, d, phi):
    e = rng.normal(size=(n, d))
    x = np.zeros((n, d))
    for t in range(1, n):
        x[t] = phi * x[t - 1] + e[t]
    return x


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:gaussian estimate is negative")
def test_block_permutation_on_serial_data():
    # three independent AR(1) series (phi = 0.9, n = 200): permuting single rows destroys
    # their autocorrelation, so the null is too narrow and independence is rejected far
    # more often than 5% (measured: ~80%); blocks of 25 rows keep it within blocks and
    # bring the rate close to the level (measured: ~14%; not exact: 8 blocks, and the
    # autocorrelation is cut at block edges).  Over 100 data sets a rate of 0.8 vs 0.14
    # is ~10 binomial standard errors apart; the bounds below are > 4 of them.
    k = 100
    rates = {}
    for block in (None, 25):
        rej = 0
        for s in range(k):
            x = _ar1(np.random.default_rng(s), 200, 3, 0.9)
            t = im.multivariate_test(
                x,
                measure="total_correlation",
                method="gaussian",
                n_permutations=19,
                block=block,
                seed=s,
            )
            rej += t.rejects(0.05)
        rates[block] = rej / k
    assert rates[None] > 0.5
    assert rates[25] < 0.3


def test_maxstat_orients_two_sided_and_less_tests():
    # three tests on the same permutations (same seed, same rows): XOR's Ω is negative;
    # a two-sided max-statistic must compare |Ω| with the |null| maxima (the raw maxima
    # would call a hugely negative Ω "not extreme": adjusted p = 1)
    x = _xor()
    tests = [
        im.multivariate_test(x, method="plugin", n_permutations=49, seed=1),
        im.multivariate_test(x, method="plugin", n_permutations=49, seed=1, alternative="less"),
        im.multivariate_test(
            x, measure="total_correlation", method="plugin", n_permutations=49, seed=1
        ),
    ]
    mt = im.multipletests(tests, correction="maxstat")
    np.testing.assert_allclose(mt.p_adjusted, [0.02, 0.02, 0.02])
