"""Exact ground truth for the 2-D Ising model on a torus, and exact i.i.d. sampling.

Model (J = 1, no field): spins ``s`` in ``{-1, +1}`` on a ``rows x cols`` periodic lattice,
``p(s) ∝ exp(K · B(s))`` with ``B(s) = Σ_i s_i (s_right(i) + s_down(i))`` (the ``np.roll``
convention, so a 2-wide torus counts each horizontal pair twice) and coupling
``K = J / T``.  The entropy is ``S = ln Z − K ⟨B⟩`` (nats, whole lattice).

Three independent routes:

* :func:`enumerate_exact` — brute force over all ``2^(rows·cols)`` states (≤ 25 sites);
* :func:`transfer_matrix_exact` — row-to-row transfer matrix ``T`` (width ``cols`` ≤ 12),
  ``Z = Tr T^rows`` and ``⟨B⟩`` by Hellmann–Feynman on the eigenvectors of ``T``;
* :func:`onsager_entropy` — Onsager's infinite-lattice entropy per site.

:func:`sample` draws exact i.i.d. configurations by forward sampling through the transfer
matrix around the torus (no MCMC, no burn-in).  :func:`strip_mutual_info` gives the exact
mutual information between the top ``a`` rows and the remaining rows.

References
----------
L. Onsager, Phys. Rev. 65, 117 (1944).  Kramers & Wannier, Phys. Rev. 60, 252 (1941).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import quad
from scipy.special import ellipk, logsumexp

from infometer.core.data import check_float, check_int
from infometer.core.seeding import Seed, as_generator

__all__ = [
    "CRITICAL_COUPLING",
    "IsingExact",
    "enumerate_exact",
    "transfer_matrix_exact",
    "exact",
    "onsager_entropy",
    "sample",
    "strip_mutual_info",
    "bond_sum",
]

#: K_c = ½ ln(1 + √2), the critical coupling of the square lattice.
CRITICAL_COUPLING = 0.5 * math.log1p(math.sqrt(2.0))

_MAX_ENUM_SITES = 25
_MAX_TM_WIDTH = 12


@dataclass(frozen=True)
class IsingExact:
    """Exact thermodynamics of a finite torus.

    Attributes
    ----------
    rows, cols
        Lattice shape.
    coupling
        K = J/T.
    log_z
        ln Z.
    mean_bonds
        ⟨B⟩ = ⟨Σ s_i (s_right + s_down)⟩ (the energy is ``-J B``).
    entropy
        Total entropy ``ln Z − K ⟨B⟩`` in nats.
    method
        ``"enumeration"`` or ``"transfer_matrix"``.
    """

    rows: int
    cols: int
    coupling: float
    log_z: float
    mean_bonds: float
    entropy: float
    method: str

    @property
    def entropy_per_site(self) -> float:
        """Entropy per spin, nats."""
        return self.entropy / (self.rows * self.cols)

    @property
    def mean_energy(self) -> float:
        """⟨E⟩ with J = 1."""
        return -self.mean_bonds


def _check(rows: int, cols: int, coupling: float) -> tuple[int, int, float]:
    rows = check_int(rows, "rows", min_value=1)
    cols = check_int(cols, "cols", min_value=1)
    coupling = check_float(coupling, "coupling", low=0.0)
    return rows, cols, coupling


def _bits(idx: np.ndarray, width: int) -> np.ndarray:
    """Spins (±1, int8) of the low ``width`` bits of each integer in ``idx``."""
    b = (idx[:, None] >> np.arange(width, dtype=np.int64)) & 1
    return (2 * b - 1).astype(np.int8)


def bond_sum(spins: np.ndarray) -> np.ndarray:
    """B(s) = Σ s_i (s_right(i) + s_down(i)) for configurations of shape ``(..., rows, cols)``."""
    s = np.asarray(spins, dtype=np.int64)
    return (s * np.roll(s, -1, axis=-1) + s * np.roll(s, -1, axis=-2)).sum(axis=(-1, -2))


def _enum_bonds(rows: int, cols: int, chunk: int = 1 << 20):
    """Yield bond sums of all states, chunked, in index order (bit j·cols+i = site (j, i))."""
    n_states = 1 << (rows * cols)
    for start in range(0, n_states, chunk):
        idx = np.arange(start, min(start + chunk, n_states), dtype=np.int64)
        s = _bits(idx, rows * cols).reshape(-1, rows, cols)
        yield bond_sum(s)


def enumerate_exact(rows: int, cols: int, coupling: float) -> IsingExact:
    """Exact ln Z, ⟨B⟩ and entropy by summing over all ``2^(rows·cols)`` states.

    Parameters
    ----------
    rows, cols
        Torus shape; ``rows * cols`` must be ≤ 25 (5×5 takes about a minute).
    coupling
        K = J/T ≥ 0.

    Returns
    -------
    IsingExact
    """
    rows, cols, k = _check(rows, cols, coupling)
    if rows * cols > _MAX_ENUM_SITES:
        raise ValueError(
            f"rows*cols = {rows * cols} is too large to enumerate (max {_MAX_ENUM_SITES}); "
            "use transfer_matrix_exact"
        )
    # Bond sums take few distinct values: histogram them, then sum exactly.
    counts: dict[int, int] = {}
    for b in _enum_bonds(rows, cols):
        vals, cnt = np.unique(b, return_counts=True)
        for v, c in zip(vals.tolist(), cnt.tolist(), strict=True):
            counts[v] = counts.get(v, 0) + c
    b = np.array(sorted(counts), dtype=np.float64)
    g = np.array([counts[int(v)] for v in b], dtype=np.float64)
    logw = np.log(g) + k * b
    log_z = float(logsumexp(logw))
    p = np.exp(logw - log_z)
    mean_b = float((p * b).sum())
    return IsingExact(rows, cols, k, log_z, mean_b, log_z - k * mean_b, "enumeration")


def _row_tables(cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row states (2^cols × cols spins), in-row bond sums R(a) and inter-row sums I(a, b)."""
    s = _bits(np.arange(1 << cols, dtype=np.int64), cols).astype(np.int64)
    r = (s * np.roll(s, -1, axis=1)).sum(1)
    inter = s @ s.T
    return s, r, inter


def _transfer(cols: int, k: float) -> tuple[np.ndarray, np.ndarray]:
    """Bond-count matrix ``W_ab = ½R(a) + I(a,b) + ½R(b)`` and ``exp(K (W − max W))``.

    The true transfer matrix is the second array times ``exp(K max W)``.
    """
    _, r, inter = _row_tables(cols)
    w = 0.5 * r[:, None] + inter + 0.5 * r[None, :]
    return w.astype(np.float64), np.exp(k * (w - w.max()))


def transfer_matrix_exact(rows: int, cols: int, coupling: float) -> IsingExact:
    """Exact ln Z, ⟨B⟩ and entropy by the row-to-row transfer matrix (``Z = Tr T^rows``).

    Parameters
    ----------
    rows
        Number of rows (any ≥ 1).
    cols
        Width of a row; ≤ 12 (the matrix is ``2^cols × 2^cols``).
    coupling
        K = J/T ≥ 0.

    Returns
    -------
    IsingExact
    """
    rows, cols, k = _check(rows, cols, coupling)
    if cols > _MAX_TM_WIDTH:
        raise ValueError(f"cols = {cols} is too wide for the transfer matrix (max {_MAX_TM_WIDTH})")
    w, t = _transfer(cols, k)
    shift = k * w.max()
    lam, v = np.linalg.eigh(t)
    lmax = float(np.abs(lam).max())
    mu = lam / lmax
    z_scaled = float((mu**rows).sum())  # Z / (lmax e^shift)^rows
    log_z = float(math.log(z_scaled) + rows * (math.log(lmax) + shift))
    # Hellmann–Feynman: dλ_i/dK = v_iᵀ (W ∘ T) v_i;  ⟨B⟩ = rows Σ λ_i^(rows-1) λ_i' / Σ λ_i^rows.
    dlam = (v * ((w * t) @ v)).sum(0) / lmax
    mean_b = float(rows * (mu ** (rows - 1) * dlam).sum() / z_scaled)
    return IsingExact(rows, cols, k, log_z, mean_b, log_z - k * mean_b, "transfer_matrix")


def exact(rows: int, cols: int, coupling: float) -> IsingExact:
    """Exact result by the cheapest exact route (transfer matrix along the narrower side)."""
    rows, cols, k = _check(rows, cols, coupling)
    if min(rows, cols) <= _MAX_TM_WIDTH:
        # The torus is symmetric under transposition, so use the narrow side as the width.
        a, b = max(rows, cols), min(rows, cols)
        r = transfer_matrix_exact(a, b, k)
        return IsingExact(rows, cols, k, r.log_z, r.mean_bonds, r.entropy, r.method)
    raise ValueError(f"a {rows}x{cols} torus is too large for exact results (narrow side ≤ 12)")


def onsager_entropy(coupling: float) -> float:
    """Onsager's entropy per site of the infinite square lattice (nats), K = J/T > 0.

    ``s = −βf + K u`` with ``−βf = ln(2 cosh 2K) + (1/π)∫₀^{π/2} ln[(1+√(1−κ² sin²θ))/2] dθ``,
    ``κ = 2 sinh 2K / cosh² 2K`` and ``u = −coth 2K [1 + (2/π)(2 tanh² 2K − 1) K₁(κ)]``.
    """
    k = check_float(coupling, "coupling", low=0.0, inclusive=(False, True))
    kappa = 2.0 * math.sinh(2 * k) / math.cosh(2 * k) ** 2
    kap2 = min(kappa * kappa, 1.0)

    def integrand(th: float) -> float:
        return math.log((1.0 + math.sqrt(max(0.0, 1.0 - kap2 * math.sin(th) ** 2))) / 2.0)

    integral, _ = quad(integrand, 0.0, math.pi / 2, limit=200, epsabs=1e-13, epsrel=1e-12)
    mbf = math.log(2.0 * math.cosh(2 * k)) + integral / math.pi
    t2 = math.tanh(2 * k) ** 2
    if abs(2 * t2 - 1) < 1e-14 or kap2 >= 1.0:
        # at K_c the factor (2 tanh² 2K − 1) vanishes; K₁ diverges only logarithmically
        elliptic_term = 0.0
    else:
        elliptic_term = (2.0 / math.pi) * (2 * t2 - 1) * float(ellipk(kap2))
    u = -(1.0 / math.tanh(2 * k)) * (1.0 + elliptic_term)
    return mbf + k * u


def sample(
    rows: int, cols: int, coupling: float, n: int, seed: Seed = 0, chunk: int = 20000
) -> np.ndarray:
    """Exact i.i.d. configurations of the torus (spins in ``{0, 1}``, shape ``(n, rows, cols)``).

    Forward sampling around the cycle of rows: ``r₁ ∝ (T^M)_{r₁r₁}``, then
    ``r_{k+1} ∝ T[r_k, ·] (T^{M−k})[·, r₁]``.  Requires ``cols ≤ 12``.

    Parameters
    ----------
    rows, cols
        Torus shape.
    coupling
        K = J/T ≥ 0.
    n
        Number of configurations.
    seed
        Random seed. An int >= 0 (the same int gives the same numbers), a numpy.random.Generator
        (drawn from as it is) or None (fresh entropy from the operating system).
    chunk
        Samples processed at once (memory ``chunk · 2^cols`` floats).
    """
    rows, cols, k = _check(rows, cols, coupling)
    n = check_int(n, "n", min_value=0)
    if cols > _MAX_TM_WIDTH:
        raise ValueError(f"cols = {cols} is too wide to sample exactly (max {_MAX_TM_WIDTH})")
    rng = as_generator(seed)
    spins, _, _ = _row_tables(cols)
    _, t = _transfer(cols, k)
    lmax = float(np.linalg.eigvalsh(t).max())
    t = t / lmax
    powers = [np.eye(t.shape[0])]
    for _ in range(rows):
        powers.append(powers[-1] @ t)  # non-negative by construction
    out = np.empty((n, rows, cols), dtype=np.int8)

    def draw(weights: np.ndarray) -> np.ndarray:
        c = np.cumsum(weights, axis=1)
        u = rng.random(weights.shape[0]) * c[:, -1]
        return np.minimum((c < u[:, None]).sum(1), weights.shape[1] - 1)

    diag = np.diag(powers[rows]).copy()
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        r1 = rng.choice(t.shape[0], size=m, p=diag / diag.sum())
        rs = [r1]
        for step in range(1, rows):
            wts = t[rs[-1]] * powers[rows - step][:, r1].T
            rs.append(draw(wts))
        idx = np.stack(rs, axis=1)
        out[start : start + m] = ((spins[idx] + 1) // 2).astype(np.int8)
    return out


def strip_mutual_info(rows: int, cols: int, coupling: float, top: int) -> float:
    """Exact I(top ``top`` rows ; the other rows) on the torus, nats.

    Enumerates the ``2^(cols·top)`` and ``2^(cols·(rows−top))`` strip states (each ≤ 2^22)
    and weights each by the transfer matrix for the rest of the torus.
    """
    rows, cols, k = _check(rows, cols, coupling)
    top = check_int(top, "top", min_value=1, max_value=rows - 1)
    tot = transfer_matrix_exact(rows, cols, k)
    w, t = _transfer(cols, k)
    shift = k * w.max()
    lmax = float(np.linalg.eigvalsh(t).max())
    ts = t / lmax
    log_scale = math.log(lmax) + shift  # T_true = ts * e^{log_scale}

    def strip_entropy(a: int) -> float:
        if cols * a > 22:
            raise ValueError(f"a strip of {a} rows x {cols} columns is too large to enumerate")
        rest = np.linalg.matrix_power(ts, rows - a + 1)
        n_row = 1 << cols
        # every strip of a rows; weight Π ts[x_j, x_{j+1}] · rest[x_a, x_1]
        grids = np.indices((n_row,) * a).reshape(a, -1)
        logw = np.log(rest[grids[-1], grids[0]])
        for j in range(a - 1):
            logw = logw + np.log(ts[grids[j], grids[j + 1]])
        logp = logw + rows * log_scale - tot.log_z
        return float(-(np.exp(logp) * logp).sum())

    return strip_entropy(top) + strip_entropy(rows - top) - tot.entropy
