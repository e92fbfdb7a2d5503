"""Every kNN estimator equals a brute-force implementation of its published formula.

The references below are written directly from the papers with pairwise distance matrices
(O(N^2), small N only), independently of the engine; agreement is to float rounding.
"""

import numpy as np
import pytest
from scipy.special import digamma, gammaln

import infometer as im

N = 300


def cheb(a: np.ndarray) -> np.ndarray:
    a = a.reshape(len(a), -1)
    return np.abs(a[:, None, :] - a[None, :, :]).max(-1)


def kth_others(d: np.ndarray, k: int) -> np.ndarray:
    d = d.copy()
    np.fill_diagonal(d, np.inf)
    return np.sort(d, axis=1)[:, k - 1]


def ref_ksg2(x, y, k):
    dx, dy = cheb(x), cheb(y)
    dj = np.maximum(dx, dy)
    np.fill_diagonal(dj, np.inf)
    nbr = np.argsort(dj, axis=1, kind="stable")[:, :k]
    rows = np.arange(len(x))[:, None]
    ex, ey = dx[rows, nbr].max(1), dy[rows, nbr].max(1)
    np.fill_diagonal(dx, np.inf)
    np.fill_diagonal(dy, np.inf)
    nx = (dx <= ex[:, None]).sum(1)
    ny = (dy <= ey[:, None]).sum(1)
    n = len(x)
    return digamma(k) - 1 / k + digamma(n) - np.mean(digamma(nx) + digamma(ny))


def ref_fp(x, y, z, k):
    dx, dy, dz = cheb(x), cheb(y), cheb(z)
    eps = kth_others(np.maximum(np.maximum(dx, dy), dz), k)
    for d in (dx, dy, dz):
        np.fill_diagonal(d, np.inf)

    def n(d):
        return (d < eps[:, None]).sum(1)

    nxz, nyz, nz = n(np.maximum(dx, dz)), n(np.maximum(dy, dz)), n(dz)
    return digamma(k) - np.mean(digamma(nxz + 1) + digamma(nyz + 1) - digamma(nz + 1))


def ref_gkov(x, y, k):
    dx, dy = cheb(x), cheb(y)
    dj = np.maximum(dx, dy)
    rho = kth_others(dj, k)
    n = len(x)
    total = 0.0
    for i in range(n):
        if rho[i] == 0:  # counts of exact ties, the point itself included
            kt = np.sum(dj[i] == 0)
            nx, ny = np.sum(dx[i] == 0), np.sum(dy[i] == 0)
        else:
            kt = k
            nx, ny = np.sum(dx[i] < rho[i]), np.sum(dy[i] < rho[i])
        total += digamma(kt) + np.log(n) - digamma(nx) - digamma(ny)
    return total / n


def ref_kl_entropy(x, k, metric):
    x = x.reshape(len(x), -1)
    n, d = x.shape
    if metric == "max":
        dist, logv = cheb(x), d * np.log(2)
    else:
        dist = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
        logv = d / 2 * np.log(np.pi) - gammaln(d / 2 + 1)
    eps = kth_others(dist, k)
    return digamma(n) - digamma(k) + logv + d * np.mean(np.log(eps))


def ref_wkv(p, q, k):
    n, d = p.shape
    dpp = np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(-1))
    dpq = np.sqrt(((p[:, None, :] - q[None, :, :]) ** 2).sum(-1))
    rho = kth_others(dpp, k)
    nu = np.sort(dpq, axis=1)[:, k - 1]
    return d * np.mean(np.log(nu / rho)) + np.log(len(q) / (n - 1))


@pytest.fixture
def data():
    rng = np.random.default_rng(42)
    x = rng.standard_normal((N, 2))
    y = x[:, :1] + rng.standard_normal((N, 1))
    z = x[:, 1:] + 0.5 * rng.standard_normal((N, 1))
    return x, y, z


@pytest.mark.parametrize("k", [1, 3, 6])
def test_ksg2(data, k):
    x, y, _ = data
    got = im.mutual_info(x, y, method="ksg2", k=k, standardize=False).value
    assert abs(got - ref_ksg2(x, y, k)) < 1e-10


@pytest.mark.parametrize("k", [1, 4])
def test_frenzel_pompe(data, k):
    x, y, z = data
    got = im.cond_mutual_info(x, y, z, method="frenzel_pompe", k=k, standardize=False).value
    assert abs(got - ref_fp(x, y, z, k)) < 1e-10


@pytest.mark.parametrize("k", [2, 5])
def test_gkov_with_atoms(k):
    rng = np.random.default_rng(7)
    xd = rng.integers(0, 3, N)
    cont = rng.random(N) < 0.5  # zero-inflated: half the y values are exactly 0
    y = np.where(cont, xd + rng.random(N), 0.0)
    got = im.mutual_info(xd, y, method="gkov", k=k, standardize=False).value
    assert abs(got - ref_gkov(xd.astype(float), y, k)) < 1e-10


@pytest.mark.parametrize("metric", ["max", "euclidean"])
def test_kozachenko_leonenko(data, metric):
    x = data[0]
    got = im.entropy(x, method="kozachenko_leonenko", metric=metric, standardize=False).value
    assert abs(got - ref_kl_entropy(x, 3, metric)) < 1e-10


def test_wkv(data):
    x, y, z = data
    p, q = x, np.column_stack([y, z])[:250] + 0.3
    got = im.kl_divergence(p, q, method="wkv", k=2, standardize=False).value
    assert abs(got - ref_wkv(p, q, 2)) < 1e-10


# --------------------------------------------------------------------- Theiler window
def _window_mask(n: int, w: int) -> np.ndarray:
    i = np.arange(n)
    return np.abs(i[:, None] - i[None, :]) <= w  # includes the diagonal


def ref_fp_theiler(x, y, z, k, w):
    """Frenzel-Pompe with rows |i-j| <= w excluded from neighbours and counts (O(N^2))."""
    dx, dy, dz = cheb(x), cheb(y), cheb(z)
    ban = _window_mask(len(x), w)
    for d in (dx, dy, dz):
        d[ban] = np.inf
    dj = np.maximum(np.maximum(dx, dy), dz)
    eps = np.sort(dj, axis=1)[:, k - 1]

    def n(d):
        return (d < eps[:, None]).sum(1)

    nxz, nyz, nz = n(np.maximum(dx, dz)), n(np.maximum(dy, dz)), n(dz)
    return digamma(k) - np.mean(digamma(nxz + 1) + digamma(nyz + 1) - digamma(nz + 1))


def ref_ksg1_theiler(x, y, k, w):
    dx, dy = cheb(x), cheb(y)
    ban = _window_mask(len(x), w)
    dx[ban] = dy[ban] = np.inf
    eps = np.sort(np.maximum(dx, dy), axis=1)[:, k - 1]
    nx, ny = (dx < eps[:, None]).sum(1), (dy < eps[:, None]).sum(1)
    n_seen = (~ban).sum(1)  # rows each point may see
    return digamma(k) + np.mean(digamma(n_seen + 1)) - np.mean(digamma(nx + 1) + digamma(ny + 1))


def _ar_series(n, seed):
    # strongly autocorrelated rows: neighbours in time are also neighbours in space
    rng = np.random.default_rng(seed)
    e = rng.normal(size=(n, 3))
    s = np.zeros((n, 3))
    for t in range(1, n):
        s[t] = 0.9 * s[t - 1] + e[t]
    s[:, 1] += 0.5 * s[:, 0]
    return s


@pytest.mark.parametrize("w", [1, 5])
def test_theiler_window_matches_brute_force(w):
    s = _ar_series(N, w)
    x, y, z = s[:, :1], s[:, 1:2], s[:, 2:]
    got = im.cond_mutual_info(
        x, y, z, method="frenzel_pompe", k=3, theiler=w, standardize=False
    ).value
    assert abs(got - ref_fp_theiler(x, y, z, 3, w)) < 1e-10
    got = im.mutual_info(x, y, method="ksg1", k=3, theiler=w, standardize=False).value
    assert abs(got - ref_ksg1_theiler(x, y, 3, w)) < 1e-10
    # the window changes the answer on autocorrelated rows (a test that could not fail otherwise)
    assert abs(got - im.mutual_info(x, y, method="ksg1", k=3, standardize=False).value) > 1e-3


def test_theiler_window_validation():
    s = _ar_series(50, 0)
    with pytest.raises(ValueError, match="theiler=30 leaves fewer than k=3"):
        im.mutual_info(s[:, 0], s[:, 1], method="ksg1", theiler=30)
    # the smallest valid sizes: an interior row sees n - 1 - 2 theiler = k rows (n = 4 and
    # theiler = 0 was refused with "theiler=0 leaves fewer than k=3 neighbours")
    for n, w in ((4, 0), (12, 4)):
        x, y, z = s[:n, :1], s[:n, 1:2], s[:n, 2:]
        got = im.mutual_info(x, y, method="ksg1", k=3, theiler=w, standardize=False).value
        assert abs(got - ref_ksg1_theiler(x, y, 3, w)) < 1e-10
        got = im.cond_mutual_info(
            x, y, z, method="frenzel_pompe", k=3, theiler=w, standardize=False
        ).value
        assert abs(got - ref_fp_theiler(x, y, z, 3, w)) < 1e-10
        with pytest.raises(ValueError, match=f"theiler={w + 1} leaves fewer than k=3"):
            im.mutual_info(x, y, method="ksg1", k=3, theiler=w + 1)
    with pytest.raises(ValueError, match="theiler must be >= 0"):
        im.mutual_info(s[:, 0], s[:, 1], method="ksg1", theiler=-1)
