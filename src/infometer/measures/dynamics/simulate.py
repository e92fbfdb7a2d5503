"""Simulated systems with known graphs and exact information values (for tests and benchmarks).

* :func:`var`: a linear Gaussian VAR(p) and its true edges; :func:`var_lagged_cov`: the
  exact covariance of any lagged samples (companion form + discrete Lyapunov equation),
  from which every Gaussian AIS / TE / CMI is a closed form (:func:`gaussian_cond_mutual_info`).
* :func:`logistic_network`: coupled logistic maps (Novelli et al. 2019's benchmark).
* :func:`boolean_network`: a random Boolean network with noise.
* :func:`markov_chain`: a discrete Markov chain and its exact entropy rate.
"""

from __future__ import annotations

import numpy as np

from infometer.core._deprecation import deprecated_alias
from infometer.core.seeding import Seed, as_generator
from infometer.core.validation import check_float, check_int

__all__ = [
    "random_var",
    "var",
    "var_lagged_cov",
    "gaussian_cond_mutual_info",
    "logistic_network",
    "boolean_network",
    "markov_chain",
    "markov_entropy_rate",
]


def random_var(
    n_nodes: int, n_edges: int, lags: tuple[int, ...] = (1, 2, 3), *, seed: Seed = 0
) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """A stable random VAR: self-coupling 0.4 at lag 1, ``n_edges`` links of ±(0.3–0.5).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Returns
    -------
    (coefs, edges)
        ``coefs[l-1][target, source]`` (shape (p, n, n)) and ``(source, target, lag)``.
    """
    rng = as_generator(seed)
    p = max(lags)
    a = np.zeros((p, n_nodes, n_nodes))
    a[0][np.diag_indices(n_nodes)] = 0.4
    pairs = [(i, j) for i in range(n_nodes) for j in range(n_nodes) if i != j]
    pick = rng.choice(len(pairs), size=n_edges, replace=False)
    edges = []
    for q in pick:
        s, t = pairs[q]
        lag = int(rng.choice(lags))
        a[lag - 1, t, s] = rng.choice([-1, 1]) * rng.uniform(0.3, 0.5)
        edges.append((s, t, lag))
    if not _stable(a):
        a *= 0.9 / _radius(a)
    return a, sorted(edges)


def _companion(a: np.ndarray) -> np.ndarray:
    p, n, _ = a.shape
    c = np.zeros((n * p, n * p))
    c[:n] = np.concatenate(list(a), axis=1)
    c[n:, :-n] = np.eye(n * (p - 1))
    return c


def _radius(a: np.ndarray) -> float:
    return float(np.max(np.abs(np.linalg.eigvals(_companion(a)))))


def _stable(a: np.ndarray) -> bool:
    return _radius(a) < 0.95


def var(
    coefs: np.ndarray, n: int, *, noise: float | np.ndarray = 1.0, seed: Seed = 0, burn: int = 500
) -> np.ndarray:
    """Samples of x_t = Σ_l A_l x_{t-l} + e_t, e_t ~ N(0, diag(noise²)), shape (n, nodes).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    coefs = np.asarray(coefs, dtype=np.float64)
    if coefs.ndim == 2:
        coefs = coefs[None]
    p, d, _ = coefs.shape
    rng = as_generator(seed)
    e = rng.normal(size=(n + burn, d)) * np.asarray(noise)
    x = np.zeros((n + burn, d))
    for t in range(p, n + burn):
        acc = e[t].copy()
        for lag in range(1, p + 1):
            acc += coefs[lag - 1] @ x[t - lag]
        x[t] = acc
    return x[burn:]


def var_lagged_cov(
    coefs: np.ndarray, items: list[tuple[int, int]], noise: float | np.ndarray = 1.0
) -> np.ndarray:
    """Exact covariance of the samples ``x_i(t - lag)`` for ``(i, lag)`` in ``items``.

    The companion state s_t = (x_t, …, x_{t-p+1}) is a VAR(1) with matrix C; its
    stationary covariance solves Σ = C Σ Cᵀ + Q (discrete Lyapunov) and
    Cov(s_{t+h}, s_t) = C^h Σ.
    """
    from scipy.linalg import solve_discrete_lyapunov

    coefs = np.asarray(coefs, dtype=np.float64)
    if coefs.ndim == 2:
        coefs = coefs[None]
    p, d, _ = coefs.shape
    c = _companion(coefs)
    q = np.zeros((d * p, d * p))
    q[:d, :d] = np.diag(np.broadcast_to(np.asarray(noise, dtype=np.float64) ** 2, (d,)))
    s0 = solve_discrete_lyapunov(c, q)
    out = np.empty((len(items), len(items)))
    for a_, (i, li) in enumerate(items):
        for b_, (j, lj) in enumerate(items):
            h = lj - li  # x_i(t - li) is h steps after x_j(t - lj)
            if h >= 0:
                g = np.linalg.matrix_power(c, h) @ s0
                out[a_, b_] = g[i, j]
            else:
                g = np.linalg.matrix_power(c, -h) @ s0
                out[a_, b_] = g[j, i]
    return out


def gaussian_cond_mutual_info(
    cov: np.ndarray, ix: list[int], iy: list[int], iz: list[int]
) -> float:
    """I(X; Y | Z) in nats of a Gaussian with covariance ``cov`` (index lists)."""

    def ld(idx: list[int]) -> float:
        return float(np.linalg.slogdet(cov[np.ix_(idx, idx)])[1]) if idx else 0.0

    return 0.5 * (ld(ix + iz) + ld(iy + iz) - ld(ix + iy + iz) - ld(iz))


def logistic_network(
    n_nodes: int,
    edges: list[tuple[int, int, int]],
    n: int,
    *,
    coupling: float = 0.5,
    noise: float = 0.1,
    r: float = 4.0,
    seed: Seed = 0,
    burn: int = 500,
) -> np.ndarray:
    """Coupled logistic maps with noise (Novelli et al. 2019).

    x_j(t) = f((1 − c) x_j(t−1) + c · mean_{(i,l)→j} x_i(t−l)) + η, wrapped to [0, 1)
    (nodes without parents use c = 0), f(u) = r u (1 − u), η ~ N(0, noise²).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    n_nodes = check_int(n_nodes, "n_nodes", min_value=1)
    coupling = check_float(coupling, "coupling", low=0.0, high=1.0)
    rng = as_generator(seed)
    p = max([lag for *_, lag in edges], default=1)
    x = np.zeros((n + burn, n_nodes))
    x[:p] = rng.random((p, n_nodes))
    parents: dict[int, list[tuple[int, int]]] = {j: [] for j in range(n_nodes)}
    for s, t, lag in edges:
        parents[t].append((s, lag))
    for t in range(p, n + burn):
        for j in range(n_nodes):
            if parents[j]:
                drive = np.mean([x[t - lag, s] for s, lag in parents[j]])
                u = (1 - coupling) * x[t - 1, j] + coupling * drive
            else:
                u = x[t - 1, j]
            x[t, j] = (r * u * (1 - u) + noise * rng.normal()) % 1.0
    return x[burn:]


def boolean_network(
    n_nodes: int,
    n_inputs: int,
    n: int,
    *,
    flip: float = 0.05,
    seed: Seed = 0,
) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """A random Boolean network: each node is a random Boolean function of ``n_inputs``
    other nodes at lag 1, each output flipped with probability ``flip``.

    The functions are drawn until every input changes the output's mean on its own
    (no parity / XOR-like functions): a purely synergistic input carries no information by
    itself, and greedy selection (IDTxl's and this package's) cannot find its first input.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Returns
    -------
    (states, edges)
        int array (n, nodes) of 0/1 and the true ``(source, target, 1)`` edges.
    """
    rng = as_generator(seed)
    inputs = []
    tables = []
    edges = []
    for j in range(n_nodes):
        src = rng.choice([i for i in range(n_nodes) if i != j], size=n_inputs, replace=False)
        while True:
            tab = rng.integers(0, 2, size=2**n_inputs)
            idx = np.arange(2**n_inputs)
            if all(
                tab[(idx >> b) & 1 == 1].mean() != tab[(idx >> b) & 1 == 0].mean()
                for b in range(n_inputs)
            ):
                break
        inputs.append(src)
        tables.append(tab)
        edges += [(int(s), j, 1) for s in src]
    x = np.zeros((n + 100, n_nodes), dtype=np.int64)
    x[0] = rng.integers(0, 2, size=n_nodes)
    weights = 1 << np.arange(n_inputs)
    for t in range(1, n + 100):
        for j in range(n_nodes):
            code = int(x[t - 1, inputs[j]] @ weights)
            x[t, j] = tables[j][code] ^ int(rng.random() < flip)
    return x[100:], sorted(edges)


def markov_chain(p: np.ndarray, n: int, *, seed: Seed = 0) -> np.ndarray:
    """A sample path of the first-order chain with transition matrix ``p`` (rows sum to 1).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    p = np.asarray(p, dtype=np.float64)
    rng = as_generator(seed)
    cum = np.cumsum(p, axis=1)
    u = rng.random(n)
    x = np.zeros(n, dtype=np.int64)
    for t in range(1, n):
        x[t] = min(int(np.searchsorted(cum[x[t - 1]], u[t], side="right")), p.shape[0] - 1)
    return x


def markov_entropy_rate(p: np.ndarray) -> float:
    """Exact entropy rate −Σ_i π_i Σ_j P_ij log P_ij (nats) of an ergodic chain."""
    p = np.asarray(p, dtype=np.float64)
    w, v = np.linalg.eig(p.T)
    pi = np.real(v[:, np.argmin(np.abs(w - 1))])
    pi = pi / pi.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(p), 0.0)
    return float(-(pi @ terms.sum(axis=1)))


# The former abbreviated names, deprecated for one release (issue 29).
gaussian_cmi = deprecated_alias(gaussian_cond_mutual_info, "gaussian_cmi")
