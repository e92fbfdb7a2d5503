"""Discrete tasks with exact answers.

* **Symmetric channels** (the InfoSEDD synthetic benchmark, built from its definition):
  ``D`` independent token pairs, ``x_i ~ U{0..V-1}``, ``y_i = π_i(x_i)`` with probability
  ``1 − e`` and otherwise uniform over the ``V − 1`` other symbols, so
  ``I(x_i; y_i) = log V − H_b(e) − e log(V − 1)`` and ``I(X; Y) = Σ_i I(x_i; y_i)``.
* **Markov chains**: entropy rate ``−Σ_i π_i Σ_j P_ij log P_ij`` and the MI of consecutive
  states ``H(π) − rate``.
* **1-D Ising chain** (J = 1, h = 0) as a binary symmetric Markov chain with flip probability
  ``p = 1/(1 + e^{2K})``: entropy per spin ``H_b(p)``, neighbour MI ``log 2 − H_b(p)``.
* **2-D Ising torus** (see :mod:`infometer.measures.truth.ising`): exact entropy and exact samples.
* Small joint tables and pmfs whose MI/entropy come from :mod:`infometer.measures.exact`.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from scipy.optimize import brentq
from scipy.special import xlogy

from infometer.core._deprecation import deprecated_alias
from infometer.core.data import check_float, check_int
from infometer.core.seeding import as_generator
from infometer.core.validation import check_stochastic_matrix
from infometer.measures import exact as _exact

from . import ising
from .base import Task, register_task

__all__ = [
    "binary_entropy",
    "symmetric_channel_mutual_info",
    "symmetric_channel_error",
    "symmetric_channel_table",
    "symmetric_channel_task",
    "sample_symmetric_channel",
    "markov_stationary",
    "markov_entropy_rate",
    "sample_markov_chain",
    "markov_task",
    "ising_chain_flip_probability",
    "ising_chain_task",
    "table_cond_mutual_info_task",
    "ising2d_entropy_task",
    "ising2d_strip_mutual_info_task",
    "table_mutual_info_task",
]


def binary_entropy(p: float) -> float:
    """H_b(p) = −p log p − (1−p) log(1−p), nats."""
    return float(-xlogy(p, p) - xlogy(1 - p, 1 - p))


# ------------------------------------------------------------------ symmetric channels
def symmetric_channel_mutual_info(vocab: int, error: float) -> float:
    """I(x; y) of a V-ary symmetric channel with uniform input and error probability ``error``."""
    vocab = check_int(vocab, "vocab", min_value=2)
    e = check_float(error, "error", low=0.0, high=1.0)
    return math.log(vocab) - binary_entropy(e) - e * math.log(vocab - 1)


def symmetric_channel_error(vocab: int, mi: float) -> float:
    """Error probability ``e ∈ [0, (V−1)/V]`` with ``symmetric_channel_mutual_info(V, e) == mi``.

    The MI decreases strictly from ``log V`` (e = 0) to 0 (e = (V−1)/V), so the root is unique.
    """
    vocab = check_int(vocab, "vocab", min_value=2)
    mi = check_float(mi, "mi", low=0.0, high=math.log(vocab))
    e_max = (vocab - 1) / vocab
    if mi == 0.0:
        return e_max
    if mi >= math.log(vocab):
        return 0.0

    def f(e: float) -> float:
        return symmetric_channel_mutual_info(vocab, e) - mi

    if f(e_max) >= 0.0:  # mi below the round-off of the MI at e_max
        return e_max
    return float(brentq(f, 0.0, e_max, xtol=1e-15, rtol=1e-15))


def symmetric_channel_table(vocab: int, error: float) -> np.ndarray:
    """Joint pmf ``p(x, y)`` (V×V) of one pair with the identity permutation."""
    vocab = check_int(vocab, "vocab", min_value=2)
    e = check_float(error, "error", low=0.0, high=1.0)
    t = np.full((vocab, vocab), e / (vocab - 1) / vocab)
    np.fill_diagonal(t, (1 - e) / vocab)
    return t


def _permutations(n_pairs: int, vocab: int, structure_seed: int) -> np.ndarray:
    rng = as_generator(structure_seed)
    return np.stack([rng.permutation(vocab) for _ in range(n_pairs)])


def sample_symmetric_channel(
    n: int,
    n_pairs: int,
    vocab: int,
    error: float,
    rng: np.random.Generator,
    structure_seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` samples of ``D = n_pairs`` independent symmetric-channel token pairs.

    Returns ``(x, y)``, int64 arrays of shape ``(n, D)``.  The per-position permutations
    ``π_i`` are fixed by ``structure_seed`` (they are part of the distribution).
    """
    n = check_int(n, "n", min_value=1)
    n_pairs = check_int(n_pairs, "n_pairs", min_value=1)
    vocab = check_int(vocab, "vocab", min_value=2)
    e = check_float(error, "error", low=0.0, high=1.0)
    perms = _permutations(n_pairs, vocab, structure_seed)
    x = rng.integers(0, vocab, size=(n, n_pairs))
    flip = rng.random((n, n_pairs)) < e
    # "uniform over the other V−1 symbols": add an offset in 1..V-1 modulo V
    wrong = (x + rng.integers(1, vocab, size=(n, n_pairs))) % vocab
    z = np.where(flip, wrong, x)
    y = perms[np.arange(n_pairs)[None, :], z]
    return x.astype(np.int64), y.astype(np.int64)


def symmetric_channel_task(
    total_mi: float, n_pairs: int, vocab: int = 4, name: str | None = None
) -> Task:
    """A task with ``n_pairs`` independent V-ary symmetric-channel pairs and exact MI ``total_mi``.

    Each pair carries ``total_mi / n_pairs`` nats (must be ≤ log V).
    """
    n_pairs = check_int(n_pairs, "n_pairs", min_value=1)
    vocab = check_int(vocab, "vocab", min_value=2)
    total_mi = check_float(total_mi, "total_mi", low=0.0)
    per = total_mi / n_pairs
    if per > math.log(vocab):
        raise ValueError(
            f"total_mi / n_pairs = {per:.4g} exceeds log(vocab) = {math.log(vocab):.4g}; "
            "use more pairs or a larger vocab"
        )
    e = symmetric_channel_error(vocab, per)
    truth = n_pairs * symmetric_channel_mutual_info(vocab, e)

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        x, y = sample_symmetric_channel(n, n_pairs, vocab, e, rng)
        return {"x": x, "y": y}

    return Task(
        name=name or f"symchannel-{n_pairs}x{vocab}-{total_mi:g}",
        quantity="mutual_info",
        sampler=sampler,
        truth=truth,
        dims=(n_pairs, n_pairs),
        family="symmetric-channel",
        tags=frozenset({"discrete"}),
        discrete=True,
        description=f"{n_pairs} independent {vocab}-ary symmetric channels, error {e:.6f}",
        extra={"n_pairs": n_pairs, "vocab": vocab, "error": e},
    )


# ------------------------------------------------------------------ Markov chains
def _check_transition(p: np.ndarray) -> np.ndarray:
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 2 or p.shape[0] != p.shape[1]:
        raise ValueError(f"transition must be a square matrix, got shape {p.shape}")
    check_stochastic_matrix(p, "transition", what="(from, to)")  # the shared check
    return p


def markov_stationary(transition: np.ndarray) -> np.ndarray:
    """Stationary distribution π (πP = π) of an irreducible chain."""
    p = _check_transition(transition)
    k = p.shape[0]
    a = np.vstack([p.T - np.eye(k), np.ones(k)])
    b = np.zeros(k + 1)
    b[-1] = 1.0
    pi, *_ = np.linalg.lstsq(a, b, rcond=None)
    if np.any(pi < -1e-12):
        raise ValueError("transition has no unique non-negative stationary distribution")
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()


def markov_entropy_rate(transition: np.ndarray) -> float:
    """Entropy rate ``−Σ_i π_i Σ_j P_ij log P_ij`` of the stationary chain, nats."""
    p = _check_transition(transition)
    pi = markov_stationary(p)
    return float(-(pi[:, None] * xlogy(p, p)).sum())


def sample_markov_chain(transition: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """One stationary trajectory of length ``n`` (int64), started from π."""
    p = _check_transition(transition)
    n = check_int(n, "n", min_value=1)
    cum = np.cumsum(p, axis=1)
    out = np.empty(n, dtype=np.int64)
    out[0] = rng.choice(p.shape[0], p=markov_stationary(p))
    u = rng.random(n)
    for t in range(1, n):
        out[t] = min(int(np.searchsorted(cum[out[t - 1]], u[t], side="right")), p.shape[0] - 1)
    return out


def markov_task(transition: np.ndarray, name: str, quantity: str = "entropy_rate") -> Task:
    """Entropy-rate task (one trajectory) or consecutive-state MI task (i.i.d. pairs).

    ``quantity="entropy_rate"``: ``x`` is a single stationary trajectory of length ``n``.
    ``quantity="mutual_info"``: ``n`` i.i.d. pairs ``(x_t, x_{t+1})`` from the stationary chain,
    with exact MI ``H(π) − rate``.
    """
    p = _check_transition(transition)
    pi = markov_stationary(p)
    rate = markov_entropy_rate(p)
    k = p.shape[0]
    if quantity == "entropy_rate":

        def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
            return {"x": sample_markov_chain(p, n, rng).reshape(-1, 1)}

        truth = rate
    elif quantity == "mutual_info":
        joint = pi[:, None] * p
        truth = _exact.mutual_info(joint).value
        cum = np.cumsum(p, axis=1)

        def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
            x = rng.choice(k, size=n, p=pi)
            y = np.minimum((cum[x] < rng.random(n)[:, None]).sum(1), k - 1)
            return {"x": x.reshape(-1, 1), "y": y.reshape(-1, 1)}

    else:
        raise ValueError(f"quantity must be 'entropy_rate' or 'mutual_info', got {quantity!r}")
    return Task(
        name=name,
        quantity=quantity,
        sampler=sampler,
        truth=float(truth),
        dims=(1,) if quantity == "entropy_rate" else (1, 1),
        family="markov",
        tags=frozenset({"discrete", "timeseries"} if quantity == "entropy_rate" else {"discrete"}),
        discrete=True,
        description=f"{k}-state stationary Markov chain",
        extra={"transition": p.tolist()},
    )


def ising_chain_flip_probability(coupling: float) -> float:
    """Flip probability ``1/(1 + e^{2K})`` of the 1-D Ising chain seen as a Markov chain."""
    k = check_float(coupling, "coupling", low=0.0)
    return 1.0 / (1.0 + math.exp(2 * k))


def ising_chain_task(coupling: float, quantity: str = "entropy_rate") -> Task:
    """1-D Ising chain (J=1, h=0): entropy per spin ``log(2 cosh K) − K tanh K`` or neighbour MI."""
    p = ising_chain_flip_probability(coupling)
    t = markov_task(
        np.array([[1 - p, p], [p, 1 - p]]),
        name=f"ising1d-K{coupling:g}-{'rate' if quantity == 'entropy_rate' else 'mi'}",
        quantity=quantity,
    )
    return replace(t, family="ising1d", description=f"1-D Ising chain, K = {coupling:g}")


# ------------------------------------------------------------------ 2-D Ising
def ising2d_entropy_task(rows: int, cols: int, temperature: float) -> Task:
    """Entropy of the ``rows × cols`` Ising torus at temperature T (J = 1), exact samples."""
    k = 1.0 / check_float(temperature, "temperature", low=0.0, inclusive=(False, True))
    ex = ising.exact(rows, cols, k)

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        s = ising.sample(rows, cols, k, n, seed=int(rng.integers(2**63 - 1)))
        return {"x": s.reshape(n, rows * cols).astype(np.int64)}

    return Task(
        name=f"ising2d-{rows}x{cols}-T{temperature:g}",
        quantity="entropy",
        sampler=sampler,
        truth=ex.entropy,
        dims=(rows * cols,),
        family="ising2d",
        tags=frozenset({"discrete", "ising"}),
        discrete=True,
        description=f"{rows}x{cols} Ising torus, T = {temperature:g}, exact by {ex.method}",
        extra={
            "coupling": k,
            "entropy_per_site": ex.entropy_per_site,
            "onsager_per_site": ising.onsager_entropy(k),
        },
    )


def ising2d_strip_mutual_info_task(rows: int, cols: int, temperature: float, top: int) -> Task:
    """I(top ``top`` rows; other rows) of the Ising torus at temperature T, exact samples."""
    k = 1.0 / check_float(temperature, "temperature", low=0.0, inclusive=(False, True))
    truth = ising.strip_mutual_info(rows, cols, k, top)

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        s = ising.sample(rows, cols, k, n, seed=int(rng.integers(2**63 - 1))).astype(np.int64)
        return {"x": s[:, :top].reshape(n, -1), "y": s[:, top:].reshape(n, -1)}

    return Task(
        name=f"ising2d-{rows}x{cols}-T{temperature:g}-rows{top}v{rows - top}",
        quantity="mutual_info",
        sampler=sampler,
        truth=truth,
        dims=(top * cols, (rows - top) * cols),
        family="ising2d",
        tags=frozenset({"discrete", "ising"}),
        discrete=True,
        description=f"MI between {top} and {rows - top} rows of a {rows}x{cols} Ising torus",
        extra={"coupling": k},
    )


# ------------------------------------------------------------------ tables
def table_mutual_info_task(pxy: np.ndarray, name: str) -> Task:
    """I(X;Y) of an explicit joint table (X on axis 0), exact (:mod:`infometer.measures.exact`)."""
    t = np.asarray(pxy, dtype=np.float64)
    truth = _exact.mutual_info(t).value
    flat = t.ravel() / t.sum()
    ny = t.shape[1]

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        c = rng.choice(flat.size, size=n, p=flat)
        return {"x": (c // ny).reshape(-1, 1), "y": (c % ny).reshape(-1, 1)}

    return Task(
        name=name,
        quantity="mutual_info",
        sampler=sampler,
        truth=truth,
        dims=(1, 1),
        family="table",
        tags=frozenset({"discrete"}),
        discrete=True,
        description=f"{t.shape[0]}x{t.shape[1]} joint table",
    )


def pmf_entropy_task(p: np.ndarray, name: str) -> Task:
    """Entropy of an explicit pmf, exact via :mod:`infometer.measures.exact`."""
    q = np.asarray(p, dtype=np.float64)
    truth = _exact.entropy(q).value

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        return {"x": rng.choice(q.size, size=n, p=q).reshape(-1, 1)}

    return Task(
        name=name,
        quantity="entropy",
        sampler=sampler,
        truth=truth,
        dims=(1,),
        family="table",
        tags=frozenset({"discrete"}),
        discrete=True,
        description=f"pmf over {q.size} symbols",
    )


def table_cond_mutual_info_task(pxyz: np.ndarray, name: str, description: str = "") -> Task:
    """I(X;Y|Z) of an explicit joint table with axes (X, Y, Z), exact from the table."""
    t = np.asarray(pxyz, dtype=np.float64)
    truth = _exact.cond_mutual_info(t).value
    flat = t.ravel() / t.sum()
    shape = t.shape

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        ix, iy, iz = np.unravel_index(rng.choice(flat.size, size=n, p=flat), shape)
        return {"x": ix.reshape(-1, 1), "y": iy.reshape(-1, 1), "z": iz.reshape(-1, 1)}

    return Task(
        name=name,
        quantity="cond_mutual_info",
        sampler=sampler,
        truth=truth,
        dims=(1, 1, 1),
        family="cmi-discrete",
        tags=frozenset({"cmi"}),
        discrete=True,
        description=description or f"{shape[0]}x{shape[1]}x{shape[2]} joint table",
    )


def _cmi_tables() -> list[tuple[str, np.ndarray, str]]:
    xor = np.zeros((2, 2, 2))
    for x in (0, 1):
        for y in (0, 1):
            xor[x, y, x ^ y] = 0.25  # I(X;Y) = 0 but I(X;Y|Z) = log 2
    k, keep = 4, 0.7
    copy = keep * np.eye(k) + (1 - keep) / k  # P(x | z): a noisy copy of z
    noisy = np.einsum("zx,zy->xyz", copy, copy) / k  # X, Y noisy copies of Z: I(X;Y|Z) = 0
    rng = as_generator(20261)
    dirichlet = rng.dirichlet(np.ones(27)).reshape(3, 3, 3)
    return [
        ("xor-cmi", xor, "Z = X xor Y, fair bits: I(X;Y|Z) = log 2 although I(X;Y) = 0"),
        ("noisy-copies-cmi-zero", noisy, "X, Y independent noisy copies of a 4-symbol Z: 0"),
        ("table-3x3x3-dirichlet-cmi", dirichlet, "a Dirichlet(1) 3x3x3 joint table"),
    ]


def _register() -> None:
    for name, table, description in _cmi_tables():
        register_task(table_cond_mutual_info_task(table, name, description))
    # InfoSEDD synthetic benchmark: D pairs, 1 nat each, V = 4 (log 4 = 1.386 nats max per pair).
    for d in (5, 10, 20, 30, 40, 50):
        register_task(symmetric_channel_task(float(d), d, 4, name=f"symchannel-{d}pairs-V4-1nat"))
    register_task(symmetric_channel_task(0.5, 1, 2, name="symchannel-1pair-V2-0.5nat"))
    register_task(symmetric_channel_task(2.0, 2, 8, name="symchannel-2pairs-V8-1nat"))
    three = np.array([[0.8, 0.15, 0.05], [0.1, 0.7, 0.2], [0.25, 0.25, 0.5]])
    register_task(markov_task(three, "markov-3state-rate"))
    register_task(markov_task(three, "markov-3state-mi", quantity="mutual_info"))
    for k in (0.2, 0.5, 1.0):
        register_task(ising_chain_task(k, "entropy_rate"))
        register_task(ising_chain_task(k, "mutual_info"))
    for temp in (2.0, 2.5, 3.0, 4.0):
        register_task(ising2d_entropy_task(4, 4, temp))
    register_task(ising2d_entropy_task(3, 3, 2.5))
    register_task(ising2d_entropy_task(8, 8, 3.0))
    register_task(ising2d_strip_mutual_info_task(4, 4, 2.5, 2))
    rng = as_generator(20231)
    register_task(
        table_mutual_info_task(rng.dirichlet(np.ones(20)).reshape(4, 5), "table-4x5-dirichlet")
    )
    ranks = np.arange(1, 101, dtype=np.float64)
    register_task(pmf_entropy_task(ranks**-1.0 / (ranks**-1.0).sum(), "zipf-100"))
    register_task(pmf_entropy_task(np.full(8, 1 / 8), "uniform-8"))


_register()

# The former abbreviated names, deprecated for one release (issue 29).
symmetric_channel_mi = deprecated_alias(symmetric_channel_mutual_info, "symmetric_channel_mi")
ising2d_strip_mi_task = deprecated_alias(ising2d_strip_mutual_info_task, "ising2d_strip_mi_task")
table_mi_task = deprecated_alias(table_mutual_info_task, "table_mi_task")
