"""Exact 2-D Ising results: three independent routes must agree with each other and with
published/independently computed values (brief §3.5 and §8.2, computed by separate scripts)."""

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp
from tests._tol import sqrt0

from infometer.measures.truth import ising

KC = ising.CRITICAL_COUPLING

# Entropy per site from the survey's independent script (enumeration L<=4, TM L=6..10).
REFERENCE = {
    0.2: {2: 0.605888, 3: 0.633463, 4: 0.644490, 6: 0.648557, 8: 0.648860, 10: 0.648883},
    KC: {2: 0.347636, 3: 0.292191, 4: 0.280170, 6: 0.279077, 8: 0.282392, 10: 0.285542},
    0.6: {2: 0.241970, 3: 0.143587, 4: 0.108692, 6: 0.084028, 8: 0.075523, 10: 0.071614},
}
ONSAGER = {
    0.1: 0.682894,
    0.2: 0.648885,
    0.3: 0.579209,
    KC: 0.3064702,
    0.5: 0.153011,
    0.6: 0.064681,
    1.0: 0.003188,
}


@pytest.mark.parametrize("k", list(REFERENCE))
def test_enumeration_matches_reference(k):
    for size in (2, 3, 4):
        # the reference is rounded to 6 decimals
        assert ising.enumerate_exact(size, size, k).entropy_per_site == pytest.approx(
            REFERENCE[k][size], abs=1e-6
        )


@pytest.mark.parametrize("k,size", [(k, s) for k in REFERENCE for s in (6, 8)] + [(KC, 10)])
def test_transfer_matrix_matches_reference(k, size):
    assert ising.transfer_matrix_exact(size, size, k).entropy_per_site == pytest.approx(
        REFERENCE[k][size], abs=1e-6
    )


@pytest.mark.parametrize("shape", [(2, 3), (3, 4), (4, 3), (1, 4), (4, 4), (2, 5)])
@pytest.mark.parametrize("k", [0.0, 0.25, KC, 0.9])
def test_transfer_matrix_equals_enumeration(shape, k):
    r, c = shape
    a, b = ising.enumerate_exact(r, c, k), ising.transfer_matrix_exact(r, c, k)
    # both exact; only float round-off separates them
    assert b.log_z == pytest.approx(a.log_z, abs=1e-9)
    assert b.mean_bonds == pytest.approx(a.mean_bonds, abs=1e-8)
    assert b.entropy == pytest.approx(a.entropy, abs=1e-8)


def test_infinite_temperature_and_totals():
    # K = 0: all 2^N states equally likely
    assert ising.exact(3, 5, 0.0).entropy == pytest.approx(15 * math.log(2), abs=1e-12)
    # brief §8.2: 4x4 total entropy at T = 1.5, 2.5, 4.0 (independent script)
    for t, s in [(1.5, 1.31016), (2.5, 5.73475), (4.0, 9.69933)]:
        assert ising.exact(4, 4, 1 / t).entropy == pytest.approx(s, abs=1e-5)


@pytest.mark.parametrize("k", list(ONSAGER))
def test_onsager(k):
    assert ising.onsager_entropy(k) == pytest.approx(ONSAGER[k], abs=1e-6)


def test_onsager_is_the_large_lattice_limit():
    # far from K_c finite-size corrections decay exponentially in L (8-wide strip, 40 rows;
    # the 8x8 torus is 2.5e-5 below Onsager)
    s = ising.transfer_matrix_exact(40, 8, 0.2).entropy_per_site
    assert abs(s - ising.onsager_entropy(0.2)) < 5e-5
    assert abs(s - ising.onsager_entropy(0.2)) < abs(REFERENCE[0.2][4] - ising.onsager_entropy(0.2))


def _enum_probs(rows, cols, k):
    idx = np.arange(1 << (rows * cols), dtype=np.int64)
    s = ((idx[:, None] >> np.arange(rows * cols)) & 1).reshape(-1, rows, cols) * 2 - 1
    logw = k * ising.bond_sum(s)
    return s, np.exp(logw - logsumexp(logw))


def test_exact_sampler_matches_boltzmann_distribution():
    rows, cols, k = 3, 3, 0.35
    states, p = _enum_probs(rows, cols, k)
    n = 60_000
    x = ising.sample(rows, cols, k, n, seed=3)
    assert x.shape == (n, rows, cols) and set(np.unique(x)) <= {0, 1}
    code = (x.reshape(n, -1).astype(np.int64) << np.arange(rows * cols)).sum(1)
    obs = np.bincount(code, minlength=p.size)
    # pool states by bond sum (the sufficient statistic) for a well-powered chi-square test
    b = ising.bond_sum(states)
    vals = np.unique(b)
    o = np.array([obs[b == v].sum() for v in vals])
    e = np.array([p[b == v].sum() * n for v in vals])
    keep = e > 5
    chi2 = (((o - e) ** 2 / e)[keep]).sum()
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-3
    # per-state check on the two ground states, which hold most mass at this K
    top = np.argsort(p)[-2:]
    for j in top:
        assert abs(obs[j] - n * p[j]) < 5 * sqrt0(n * p[j] * (1 - p[j]), "binomial variance")


def test_exact_sampler_mean_energy_4x4():
    ex = ising.exact(4, 4, 1 / 2.5)
    x = ising.sample(4, 4, 1 / 2.5, 20_000, seed=0) * 2 - 1
    e = -ising.bond_sum(x)
    # 5 standard errors of the sample mean
    assert abs(e.mean() - ex.mean_energy) < 5 * e.std() / math.sqrt(e.size)


def test_strip_mutual_info_matches_enumeration():
    rows, cols, k = 4, 4, 1 / 2.5
    states, p = _enum_probs(rows, cols, k)
    bits = ((states + 1) // 2).reshape(len(p), -1)
    top = (bits[:, :8] << np.arange(8)).sum(1)
    bot = (bits[:, 8:] << np.arange(8)).sum(1)
    pj = np.zeros((256, 256))
    np.add.at(pj, (top, bot), p)
    px, py = pj.sum(1), pj.sum(0)
    m = pj > 0
    mi = float((pj[m] * np.log(pj[m] / np.outer(px, py)[m])).sum())
    assert ising.strip_mutual_info(rows, cols, k, 2) == pytest.approx(mi, abs=1e-10)
    assert mi == pytest.approx(0.6921, abs=1e-4)  # brief §9 (independent script)


def test_validation():
    with pytest.raises(ValueError, match="rows\\*cols"):
        ising.enumerate_exact(6, 5, 0.3)
    with pytest.raises(ValueError, match="cols"):
        ising.transfer_matrix_exact(4, 13, 0.3)
    with pytest.raises(ValueError, match="coupling"):
        ising.exact(4, 4, -1.0)
    with pytest.raises(TypeError, match="rows"):
        ising.exact(4.0, 4, 0.3)
    with pytest.raises(ValueError, match="top"):
        ising.strip_mutual_info(4, 4, 0.3, 4)
