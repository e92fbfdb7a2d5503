"""The 40 tasks of the "Beyond Normal" benchmark (Czyż et al., NeurIPS 2023), from their
definitions.

Ground truth uses four closed forms (Gaussian log-det, Student-t entropies, additive
uniform noise, bivariate normal) plus the invariance of MI under injective maps applied
separately to X and Y (``normal_cdf``, ``half_cube``, ``asinh``, ``wiggly``, the bimodal
inverse-CDF map, ``spiral`` and the swiss-roll embedding).  As in the published workflows,
every sample is finally standardised per column (``standardize=True``), an affine map that
leaves the MI unchanged.

Task ids are the published ``BENCHMARK_TASKS`` keys of the ``bmi`` package.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np
from scipy.linalg import expm
from scipy.special import ndtr

from . import closed_forms as cf
from .base import Task, register_task

__all__ = [
    "normal_cdf",
    "half_cube",
    "asinh",
    "wiggly_x",
    "wiggly_y",
    "bimodal_x",
    "bimodal_y",
    "spiral",
    "so_generator",
    "swissroll2d",
    "standardize",
    "BEYOND_NORMAL",
]

Pair = tuple[np.ndarray, np.ndarray]
Base = Callable[[int, np.random.Generator], Pair]
Map = Callable[[np.ndarray], np.ndarray]

#: Names of the 40 tasks, in the published order.
BEYOND_NORMAL: list[str] = []


# ----------------------------------------------------------------------------- transforms
def normal_cdf(x: np.ndarray) -> np.ndarray:
    """Φ, coordinate-wise (uniform marginals)."""
    return ndtr(x)


def half_cube(x: np.ndarray) -> np.ndarray:
    """t ↦ t·√|t| (heavier tails)."""
    return x * np.sqrt(np.abs(x))


def asinh(x: np.ndarray) -> np.ndarray:
    """asinh, coordinate-wise (lighter tails)."""
    return np.arcsinh(x)


def wiggly_x(x: np.ndarray) -> np.ndarray:
    """x + 0.4 sin x + 0.2 sin(1.7x + 1) + 0.03 sin(3.3x − 2.5); derivative ≥ 0.16 > 0."""
    return x + 0.4 * np.sin(x) + 0.2 * np.sin(1.7 * x + 1) + 0.03 * np.sin(3.3 * x - 2.5)


def wiggly_y(x: np.ndarray) -> np.ndarray:
    """x − 0.4 sin 0.4x + 0.17 sin(1.3x + 3.5) + 0.02 sin(4.3x − 2.5); derivative ≥ 0.53."""
    return x - 0.4 * np.sin(0.4 * x) + 0.17 * np.sin(1.3 * x + 3.5) + 0.02 * np.sin(4.3 * x - 2.5)


def _inverse_cdf(cdf: Callable[[np.ndarray], np.ndarray], u: np.ndarray) -> np.ndarray:
    """Vectorised bisection for ``cdf(x) = u`` (strictly increasing cdf), to ~1e-13."""
    lo, hi = np.full(u.shape, -40.0), np.full(u.shape, 45.0)
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        below = cdf(mid) < u
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return 0.5 * (lo + hi)


def bimodal_x(u: np.ndarray) -> np.ndarray:
    """Inverse CDF of 0.3 N(0, 1) + 0.7 N(5, 1) applied to u ∈ (0, 1)."""
    return _inverse_cdf(lambda t: 0.3 * ndtr(t) + 0.7 * ndtr(t - 5), u)


def bimodal_y(u: np.ndarray) -> np.ndarray:
    """Inverse CDF of ½ N(−1, 1) + ½ N(3, 1) applied to u ∈ (0, 1)."""
    return _inverse_cdf(lambda t: 0.5 * ndtr(t + 1) + 0.5 * ndtr(t - 3), u)


def so_generator(n: int, i: int = 0, j: int = 1) -> np.ndarray:
    """The (i, j) canonical generator of so(n): ``A[i, j] = −1``, ``A[j, i] = 1``."""
    if not 0 <= i < j < n:
        raise ValueError(f"need 0 <= i < j < n, got n={n}, i={i}, j={j}")
    a = np.zeros((n, n))
    a[i, j], a[j, i] = -1.0, 1.0
    return a


def spiral(x: np.ndarray, generator: np.ndarray, speed: float) -> np.ndarray:
    """x ↦ exp(speed · ‖x‖² · A) x, row-wise; a diffeomorphism (it preserves ‖x‖).

    With a canonical generator only the (i, j) plane rotates, by angle ``speed·‖x‖²``.
    """
    r2 = (x * x).sum(1)
    nz = np.nonzero(generator)
    if len(nz[0]) == 2 and np.allclose(generator, -generator.T):
        # canonical generator: rotate the (i, j) plane by θ = speed‖x‖² (closed form of expm)
        i, j = sorted({int(nz[0][0]), int(nz[1][0])})
        sgn = generator[j, i]
        th = speed * r2 * sgn
        out = x.copy()
        c, s = np.cos(th), np.sin(th)
        out[:, i] = c * x[:, i] - s * x[:, j]
        out[:, j] = s * x[:, i] + c * x[:, j]
        return out
    return np.stack([expm(speed * r * generator) @ v for r, v in zip(r2, x, strict=True)])


def swissroll2d(u: np.ndarray) -> np.ndarray:
    """Embed u ∈ [0, 1] (shape (n, 1)) into R²: t = 1.5π(1 + 2u), (t cos t, t sin t)/21."""
    t = 1.5 * math.pi * (1 + 2 * u[:, 0])
    return np.column_stack([t * np.cos(t), t * np.sin(t)]) / 21.0


def standardize(a: np.ndarray) -> np.ndarray:
    """Per-column (a − mean)/sd of the sample itself (an affine map: MI unchanged)."""
    sd = a.std(axis=0)
    return (a - a.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


# ----------------------------------------------------------------------------- base samplers
def _gaussian(cov: np.ndarray, dim_x: int) -> Base:
    chol = np.linalg.cholesky(cov)

    def draw(n: int, rng: np.random.Generator) -> Pair:
        z = rng.standard_normal((n, cov.shape[0])) @ chol.T
        return z[:, :dim_x], z[:, dim_x:]

    return draw


def _student(dispersion: np.ndarray, dim_x: int, df: float) -> Base:
    gauss = _gaussian(dispersion, dim_x)

    def draw(n: int, rng: np.random.Generator) -> Pair:
        x, y = gauss(n, rng)
        w = np.sqrt(df / rng.chisquare(df, size=(n, 1)))
        return x * w, y * w

    return draw


def _additive(eps: float) -> Base:
    def draw(n: int, rng: np.random.Generator) -> Pair:
        x = rng.random((n, 1))
        return x, x + rng.uniform(-eps, eps, size=(n, 1))

    return draw


def _pair_task(
    name: str,
    base: Base,
    truth: float,
    dims: tuple[int, int],
    family: str,
    fx: list[Map] | None = None,
    fy: list[Map] | None = None,
    tags: frozenset[str] = frozenset(),
    description: str = "",
    standardized: bool = True,
    extra: dict | None = None,
) -> Task:
    fx, fy = list(fx or []), list(fy or [])

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        x, y = base(n, rng)
        for f in fx:
            x = f(x)
        for f in fy:
            y = f(y)
        if standardized:
            x, y = standardize(x), standardize(y)
        return {"x": x, "y": y}

    return Task(
        name=name,
        quantity="mutual_info",
        sampler=sampler,
        truth=float(truth),
        dims=dims,
        family=family,
        tags=frozenset(tags),
        discrete=False,
        description=description,
        extra=dict(extra or {}),
    )


def _bn(task: Task) -> None:
    t = replace(task, tags=task.tags | {"beyond-normal"})
    register_task(t)
    BEYOND_NORMAL.append(t.name)


def _spiral_maps(dx: int, dy: int, speed: float = 1.0) -> tuple[Map, Map]:
    gx, gy = so_generator(dx, 0, 1), so_generator(dy, 1, 2)
    return (lambda x: spiral(x, gx, speed / dx)), (lambda y: spiral(y, gy, speed / dy))


def _register() -> None:
    rho = 0.75
    binorm_cov = np.array([[1.0, rho], [rho, 1.0]])
    i_binorm = cf.bivariate_normal_mutual_info(rho)
    binorm = _gaussian(binorm_cov, 1)
    ident = np.eye(2)

    # --- one-dimensional tasks
    _bn(
        _pair_task(
            "1v1-normal-0.75",
            binorm,
            i_binorm,
            (1, 1),
            "normal",
            description="bivariate normal, ρ = 0.75",
        )
    )
    _bn(
        _pair_task(
            "normal_cdf-1v1-normal-0.75",
            binorm,
            i_binorm,
            (1, 1),
            "normal_cdf",
            [normal_cdf],
            [normal_cdf],
            description="uniform margins (Φ of the normal)",
        )
    )
    for eps in (0.1, 0.75):
        _bn(
            _pair_task(
                f"1v1-additive-{eps}",
                _additive(eps),
                cf.additive_uniform_mutual_info(eps),
                (1, 1),
                "additive",
                description=f"Y = X + U(−{eps}, {eps})",
            )
        )
    _bn(
        _pair_task(
            "1v1-bimodal-0.75",
            binorm,
            i_binorm,
            (1, 1),
            "bimodal",
            [normal_cdf, bimodal_x],
            [normal_cdf, bimodal_y],
            description="normal pushed to bimodal margins by inverse mixture CDFs",
        )
    )
    _bn(
        _pair_task(
            "wiggly-1v1-normal-0.75",
            binorm,
            i_binorm,
            (1, 1),
            "wiggly",
            [wiggly_x],
            [wiggly_y],
            description="sine-wiggled normal",
        )
    )
    _bn(
        _pair_task(
            "half_cube-1v1-normal-0.75",
            binorm,
            i_binorm,
            (1, 1),
            "half_cube",
            [half_cube],
            [half_cube],
            description="t·√|t| of the normal",
        )
    )
    st1 = cf.student_t_mutual_info(ident, 1, 1)
    _bn(
        _pair_task(
            "student-identity-1-1-1",
            _student(ident, 1, 1),
            st1,
            (1, 1),
            "student",
            description="Student t, ν = 1, identity dispersion",
        )
    )
    _bn(
        _pair_task(
            "asinh-student-identity-1-1-1",
            _student(ident, 1, 1),
            st1,
            (1, 1),
            "asinh_student",
            [asinh],
            [asinh],
            description="asinh of the Student t",
        )
    )

    # --- embedding
    _bn(
        _pair_task(
            "swissroll_x-normal_cdf-1v1-normal-0.75",
            binorm,
            i_binorm,
            (2, 1),
            "swissroll",
            [normal_cdf, swissroll2d],
            [normal_cdf],
            description="uniform X embedded as a swiss roll in R²",
        )
    )

    # --- multinormal
    for d in (2, 3, 5, 25, 50):
        cov = np.eye(2 * d) * 0.5 + 0.5
        _bn(
            _pair_task(
                f"multinormal-dense-{d}-{d}-0.5",
                _gaussian(cov, d),
                cf.gaussian_mutual_info(cov, d),
                (d, d),
                "multinormal-dense",
                description=f"{d}x{d} normal, all correlations 0.5",
            )
        )
    sparse = {d: cf.lvm_correlation(d, d, 2, lambd=2.0) for d in (2, 3, 5, 25)}
    for d, cov in sparse.items():
        _bn(
            _pair_task(
                f"multinormal-sparse-{d}-{d}-2-2.0",
                _gaussian(cov, d),
                cf.gaussian_mutual_info(cov, d),
                (d, d),
                "multinormal-sparse",
                description=f"{d}x{d} normal, two pairs with ρ = 0.8",
            )
        )

    # --- Student t
    for dx, df in ((2, 1), (2, 2), (3, 2), (3, 3), (5, 2), (5, 3)):
        disp = np.eye(2 * dx)
        _bn(
            _pair_task(
                f"student-identity-{dx}-{dx}-{df}",
                _student(disp, dx, df),
                cf.student_t_mutual_info(disp, dx, df),
                (dx, dx),
                "student",
                description=f"{dx}x{dx} Student t, ν = {df}, identity dispersion",
            )
        )

    # --- transformed sparse multinormals and Student t
    for d in (3, 5, 25):
        cov = sparse[d]
        i = cf.gaussian_mutual_info(cov, d)
        _bn(
            _pair_task(
                f"normal_cdf-multinormal-sparse-{d}-{d}-2-2.0",
                _gaussian(cov, d),
                i,
                (d, d),
                "normal_cdf",
                [normal_cdf],
                [normal_cdf],
            )
        )
    for d in (3, 5, 25):
        cov = sparse[d]
        i = cf.gaussian_mutual_info(cov, d)
        _bn(
            _pair_task(
                f"half_cube-multinormal-sparse-{d}-{d}-2-2.0",
                _gaussian(cov, d),
                i,
                (d, d),
                "half_cube",
                [half_cube],
                [half_cube],
            )
        )
    for d in (3, 5, 25):
        cov = sparse[d]
        sx, sy = _spiral_maps(d, d)
        _bn(
            _pair_task(
                f"spiral-multinormal-sparse-{d}-{d}-2-2.0",
                _gaussian(cov, d),
                cf.gaussian_mutual_info(cov, d),
                (d, d),
                "spiral",
                [sx],
                [sy],
            )
        )
    for d in (3, 5, 25):
        cov = sparse[d]
        sx, sy = _spiral_maps(d, d)
        _bn(
            _pair_task(
                f"spiral-normal_cdf-multinormal-sparse-{d}-{d}-2-2.0",
                _gaussian(cov, d),
                cf.gaussian_mutual_info(cov, d),
                (d, d),
                "spiral",
                [normal_cdf, sx],
                [normal_cdf, sy],
            )
        )
    for dx, df in ((2, 1), (3, 2), (5, 2)):
        disp = np.eye(2 * dx)
        _bn(
            _pair_task(
                f"asinh-student-identity-{dx}-{dx}-{df}",
                _student(disp, dx, df),
                cf.student_t_mutual_info(disp, dx, df),
                (dx, dx),
                "asinh_student",
                [asinh],
                [asinh],
            )
        )


_register()
