"""Continuous and mixed tasks beyond the Beyond Normal set.

* **High-MI staircases**, where estimators are known to saturate (kNN near log(N/k),
  InfoNCE at log batch): Gaussian pairs with d = 1 and d = 20 (``ρ = √(1 − e^{−2I/d})``) at
  0–10 nats, and additive uniform noise down to ε = 0.001 (6.216 nats).
* **Mixed discrete-continuous** (Gao et al., NeurIPS 2017): X ~ U{0..m−1}, Y | X ~ U(X, X+2);
  and zero-inflated Poissonisation of Exp(1) (exact value by quadrature).
* **Gaussian CMI, KL and differential entropy** tasks from closed forms.
"""

from __future__ import annotations

import math

import numpy as np

from infometer.core._deprecation import deprecated_alias
from infometer.core.seeding import as_generator

from . import closed_forms as cf
from .base import Task, register_task

__all__ = [
    "gaussian_pairs_task",
    "additive_uniform_task",
    "discrete_uniform_mixture_task",
    "zero_inflated_poisson_task",
    "gaussian_cond_mutual_info_task",
    "gaussian_kl_task",
    "gaussian_entropy_task",
]


def gaussian_pairs_task(mi: float, n_pairs: int, name: str | None = None) -> Task:
    """``n_pairs`` independent Gaussian pairs (X_i, Y_i) with total MI ``mi``."""
    rho = cf.correlation_for_mutual_info(mi, n_pairs)
    resid = math.exp(-2.0 * mi / n_pairs)  # 1 − ρ², kept exact (ρ → 1 at high MI)
    truth = -0.5 * n_pairs * math.log(resid)

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        x = rng.standard_normal((n, n_pairs))
        y = rho * x + math.sqrt(resid) * rng.standard_normal((n, n_pairs))
        return {"x": x, "y": y}

    return Task(
        name=name or f"gauss-pairs-d{n_pairs}-mi{mi:g}",
        quantity="mutual_info",
        sampler=sampler,
        truth=truth,
        dims=(n_pairs, n_pairs),
        family=f"gauss-staircase-d{n_pairs}",
        tags=frozenset({"high-mi", "staircase"}),
        description=f"{n_pairs} independent Gaussian pairs, ρ = {rho:.6g}",
        extra={"rho": rho, "target_mi": mi},
    )


def additive_uniform_task(epsilon: float) -> Task:
    """X ~ U(0, 1), Y = X + U(−ε, ε) (no standardisation; MI ``ε − log 2ε`` for ε ≤ ½)."""
    truth = cf.additive_uniform_mutual_info(epsilon)

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        x = rng.random((n, 1))
        return {"x": x, "y": x + rng.uniform(-epsilon, epsilon, size=(n, 1))}

    return Task(
        name=f"additive-eps{epsilon:g}",
        quantity="mutual_info",
        sampler=sampler,
        truth=truth,
        dims=(1, 1),
        family="additive-staircase",
        tags=frozenset({"high-mi", "staircase"}),
        description=f"Y = X + U(−{epsilon:g}, {epsilon:g}), X ~ U(0, 1)",
        extra={"epsilon": epsilon},
    )


def discrete_uniform_mixture_task(m: int) -> Task:
    """X ~ U{0..m−1} (integers), Y | X ~ U(X, X + 2); I = log m − ((m−1)/m) log 2."""
    truth = cf.discrete_uniform_mixture_mutual_info(m)

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        x = rng.integers(0, m, size=(n, 1))
        return {"x": x, "y": x + 2.0 * rng.random((n, 1))}

    return Task(
        name=f"mixed-uniform-m{m}",
        quantity="mutual_info",
        sampler=sampler,
        truth=truth,
        dims=(1, 1),
        family="mixed",
        tags=frozenset({"mixed"}),
        discrete=None,
        description=f"discrete X ~ U{{0..{m - 1}}}, continuous Y | X ~ U(X, X+2)",
    )


def zero_inflated_poisson_task(p: float = 0.15) -> Task:
    """X ~ Exp(1), Y | X = p·δ₀ + (1−p)·Poisson(X); exact MI by quadrature.

    The value ``(1 − p)·0.3012`` quoted with the Gao et al. sampler holds only for p = 0
    (zero inflation also blurs the Poisson zeros); see
    :func:`~infometer.measures.truth.closed_forms.zero_inflated_poissonization_mutual_info`.
    """
    truth = cf.zero_inflated_poissonization_mutual_info(p)

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        x = rng.exponential(1.0, size=(n, 1))
        keep = rng.random((n, 1)) >= p
        return {"x": x, "y": np.where(keep, rng.poisson(x), 0).astype(np.int64)}

    return Task(
        name=f"mixed-zip-p{p:g}",
        quantity="mutual_info",
        sampler=sampler,
        truth=truth,
        dims=(1, 1),
        family="mixed",
        tags=frozenset({"mixed"}),
        discrete=None,
        description="continuous X ~ Exp(1), count Y: zero-inflated Poisson(X)",
    )


def _gaussian_draw(cov: np.ndarray):
    chol = np.linalg.cholesky(cov)
    return lambda n, rng: rng.standard_normal((n, cov.shape[0])) @ chol.T


def gaussian_cond_mutual_info_task(name: str, cov: np.ndarray, dims: tuple[int, int, int]) -> Task:
    """I(X;Y|Z) of a Gaussian with coordinates ordered (X, Y, Z)."""
    dx, dy, dz = dims
    truth = cf.gaussian_cond_mutual_info(cov, dx, dy)
    draw = _gaussian_draw(cov)

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        a = draw(n, rng)
        return {"x": a[:, :dx], "y": a[:, dx : dx + dy], "z": a[:, dx + dy :]}

    return Task(
        name=name,
        quantity="cond_mutual_info",
        sampler=sampler,
        truth=truth,
        dims=dims,
        family="gaussian-cmi",
        tags=frozenset({"cmi"}),
        description=f"Gaussian CMI, dims {dx}/{dy}/{dz}",
    )


def gaussian_kl_task(
    name: str, mu0: np.ndarray, cov0: np.ndarray, mu1: np.ndarray, cov1: np.ndarray
) -> Task:
    """KL(N(μ₀, Σ₀) ‖ N(μ₁, Σ₁)); ``p`` and ``q`` are independent samples of size n each."""
    truth = cf.gaussian_kl(mu0, cov0, mu1, cov1)
    d0, d1 = _gaussian_draw(np.atleast_2d(cov0)), _gaussian_draw(np.atleast_2d(cov1))
    m0, m1 = np.atleast_1d(mu0), np.atleast_1d(mu1)

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        return {"p": d0(n, rng) + m0, "q": d1(n, rng) + m1}

    return Task(
        name=name,
        quantity="kl_divergence",
        sampler=sampler,
        truth=truth,
        dims=(m0.size, m1.size),
        family="gaussian-kl",
        tags=frozenset({"kl"}),
        description="KL between two Gaussians",
    )


def gaussian_entropy_task(name: str, cov: np.ndarray) -> Task:
    """Differential entropy of N(0, Σ)."""
    c = np.atleast_2d(cov)
    truth = cf.gaussian_entropy(c)
    draw = _gaussian_draw(c)
    return Task(
        name=name,
        quantity="entropy",
        sampler=lambda n, rng: {"x": draw(n, rng)},
        truth=truth,
        dims=(c.shape[0],),
        family="gaussian-entropy",
        tags=frozenset({"entropy"}),
        description=f"{c.shape[0]}-D Gaussian entropy",
    )


def _register() -> None:
    for mi in (0.0, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0):
        register_task(gaussian_pairs_task(mi, 1))
    for mi in (2.0, 4.0, 6.0, 8.0, 10.0):
        register_task(gaussian_pairs_task(mi, 20))
    for eps in (0.1, 0.03, 0.01, 0.003, 0.001):
        register_task(additive_uniform_task(eps))
    for m in (2, 5, 10):
        register_task(discrete_uniform_mixture_task(m))
    register_task(zero_inflated_poisson_task(0.15))
    # CMI: X = Z + a, Y = Z + b with correlated (a, b): conditioning on Z matters
    c = np.array([[2.0, 1.6, 1.0], [1.6, 2.0, 1.0], [1.0, 1.0, 1.0]])
    register_task(gaussian_cond_mutual_info_task("gauss-cmi-1-1-1", c, (1, 1, 1)))
    rng = as_generator(11)
    a = rng.standard_normal((6, 6))
    register_task(
        gaussian_cond_mutual_info_task("gauss-cmi-2-2-2", a @ a.T + 0.5 * np.eye(6), (2, 2, 2))
    )
    # a 5-D condition that explains most of the dependence
    b = as_generator(12).standard_normal((7, 7))
    register_task(
        gaussian_cond_mutual_info_task("gauss-cmi-1-1-5", b @ b.T + 0.5 * np.eye(7), (1, 1, 5))
    )
    # Markov chain X -> Z -> Y: I(X;Y|Z) = 0 although I(X;Y) > 0
    m = np.array([[1.0, 0.8, 0.64], [0.8, 1.0, 0.8], [0.64, 0.8, 1.0]])[[0, 2, 1]][:, [0, 2, 1]]
    register_task(gaussian_cond_mutual_info_task("gauss-cmi-markov-zero", m, (1, 1, 1)))
    register_task(
        gaussian_kl_task("gauss-kl-1d-shift", np.zeros(1), np.eye(1), np.ones(1), np.eye(1))
    )
    register_task(
        gaussian_kl_task(
            "gauss-kl-3d",
            np.zeros(3),
            np.diag([1.0, 2.0, 0.5]),
            np.array([0.5, -0.5, 0.0]),
            np.eye(3) + 0.3,
        )
    )
    register_task(gaussian_entropy_task("gauss-entropy-1d", np.eye(1)))
    register_task(gaussian_entropy_task("gauss-entropy-5d", np.eye(5) * 0.5 + 0.5))


_register()

# The former abbreviated names, deprecated for one release (issue 29).
gaussian_cmi_task = deprecated_alias(gaussian_cond_mutual_info_task, "gaussian_cmi_task")
