"""Generated data for the model demos and tests (numpy only, nothing downloaded).

* :func:`texture_images`: 32×32 RGB images whose 10 classes differ in the spatial frequency
  and orientation of a faint grating on a class-independent low-frequency background
  (JPEG quantisation of mid/high frequencies then matters to a classifier);
* :func:`pendulum`: frictionless pendulum trajectories observed as ``(cos θ, sin θ, ω)``
  (state manifold S¹ × R);
* :func:`lorenz63`: Lorenz-63 trajectories (σ = 10, ρ = 28, β = 8/3);
* :func:`linear_system`: trajectories of ``x_{t+1} = A x_t``.

ODEs are integrated with classical 4th-order Runge–Kutta.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from infometer.core.data import check_float, check_int
from infometer.core.seeding import Seed, as_generator

__all__ = ["texture_images", "pendulum", "lorenz63", "linear_system", "rk4"]


def texture_images(
    n_per_class: int = 500,
    *,
    n_classes: int = 10,
    size: int = 32,
    noise: float = 0.06,
    seed: Seed = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Images ``(n, 3, size, size)`` in [0, 1] (float32) and labels ``(n,)`` (int64).

    Class ``c`` is a faint grating with orientation ``(c mod 5)·36°`` and spatial frequency
    ``0.22`` (``c < 5``) or ``0.33`` cycles per pixel (``c ≥ 5``), jittered by ±6° and ±8 %,
    with random phase, colour mix and a low contrast (0.04–0.14), on a class-independent
    background that carries most of the image's energy at low frequencies (a colour gradient
    and a Gaussian blob) plus i.i.d. pixel noise of standard deviation ``noise``.  The class
    evidence lives in mid and high DCT frequencies, where JPEG quantises coarsely, so JPEG
    compression changes what a classifier sees.  Rows are shuffled.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    n_per_class = check_int(n_per_class, "n_per_class", min_value=1)
    n_classes = check_int(n_classes, "n_classes", min_value=2, max_value=10)
    size = check_int(size, "size", min_value=8)
    noise = check_float(noise, "noise", low=0.0)
    rng = as_generator(seed)
    n = n_per_class * n_classes
    labels = np.repeat(np.arange(n_classes), n_per_class)
    theta = (labels % 5) * (np.pi / 5) + rng.uniform(-1, 1, n) * np.deg2rad(6)
    freq = np.where(labels < 5, 0.22, 0.33) * (1 + 0.08 * rng.uniform(-1, 1, n))
    phase = rng.uniform(0, 2 * np.pi, n)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64) / size
    u = xx[None] * np.cos(theta)[:, None, None] + yy[None] * np.sin(theta)[:, None, None]
    grating = np.cos(2 * np.pi * size * freq[:, None, None] * u + phase[:, None, None])
    colour = rng.uniform(0.4, 1.0, (n, 3))
    contrast = rng.uniform(0.04, 0.14, n)
    img = (contrast[:, None] * colour)[:, :, None, None] * grating[:, None]
    # class-independent low-frequency background: base colour, a gradient and a blob
    img += rng.uniform(0.3, 0.7, (n, 3))[:, :, None, None]
    gdir = rng.uniform(0, 2 * np.pi, n)
    ramp = xx[None] * np.cos(gdir)[:, None, None] + yy[None] * np.sin(gdir)[:, None, None]
    img += rng.uniform(-0.25, 0.25, (n, 3))[:, :, None, None] * (ramp - ramp.mean())[:, None]
    cx, cy = rng.uniform(0, 1, (2, n))
    width = rng.uniform(0.1, 0.3, n)
    blob = np.exp(
        -((xx[None] - cx[:, None, None]) ** 2 + (yy[None] - cy[:, None, None]) ** 2)
        / (2 * width[:, None, None] ** 2)
    )
    img += rng.uniform(-0.3, 0.3, (n, 3))[:, :, None, None] * blob[:, None]
    img += noise * rng.standard_normal(img.shape)
    img = np.clip(img, 0.0, 1.0).astype(np.float32)
    perm = rng.permutation(n)
    return img[perm], labels[perm].astype(np.int64)


def rk4(f: Callable[[np.ndarray], np.ndarray], x: np.ndarray, dt: float) -> np.ndarray:
    """One classical Runge–Kutta step of ``dx/dt = f(x)`` for a batch of states."""
    k1 = f(x)
    k2 = f(x + 0.5 * dt * k1)
    k3 = f(x + 0.5 * dt * k2)
    k4 = f(x + dt * k3)
    return x + (dt / 6.0) * (k1 + 2 * k2 + 2 * k3 + k4)


def _integrate(
    f: Callable[[np.ndarray], np.ndarray], x0: np.ndarray, steps: int, dt: float, substeps: int
) -> np.ndarray:
    out = np.empty((x0.shape[0], steps, x0.shape[1]))
    x = x0.copy()
    h = dt / substeps
    for t in range(steps):
        out[:, t] = x
        for _ in range(substeps):
            x = rk4(f, x, h)
    return out


def pendulum(
    n_traj: int = 256,
    steps: int = 64,
    *,
    dt: float = 0.1,
    g_over_l: float = 1.0,
    max_energy: float = 1.5,
    seed: Seed = 0,
) -> np.ndarray:
    """Pendulum ``θ'' = −(g/L) sin θ`` observed as ``(cos θ, sin θ, ω)``: ``(n_traj, steps, 3)``.

    Initial states are drawn with energy ``E = ω²/2 + (g/L)(1 − cos θ)`` uniform in
    ``(0.05, max_energy)`` (below 2·g/L: oscillating, not rotating) and a random point on
    the orbit.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    n_traj = check_int(n_traj, "n_traj", min_value=1)
    steps = check_int(steps, "steps", min_value=2)
    dt = check_float(dt, "dt", low=0.0, inclusive=(False, True))
    rng = as_generator(seed)
    energy = rng.uniform(0.05, max_energy, n_traj)
    amp = np.arccos(np.clip(1 - energy / g_over_l, -1, 1))  # turning angle
    th = amp * rng.uniform(-1, 1, n_traj)
    om = np.sqrt(np.maximum(2 * (energy - g_over_l * (1 - np.cos(th))), 0.0))
    om *= rng.choice([-1.0, 1.0], n_traj)

    def f(s: np.ndarray) -> np.ndarray:
        return np.stack([s[:, 1], -g_over_l * np.sin(s[:, 0])], axis=1)

    traj = _integrate(f, np.stack([th, om], axis=1), steps, dt, substeps=4)
    return np.stack([np.cos(traj[..., 0]), np.sin(traj[..., 0]), traj[..., 1]], axis=-1)


def lorenz63(
    n_traj: int = 128,
    steps: int = 64,
    *,
    dt: float = 0.02,
    sigma: float = 10.0,
    rho: float = 28.0,
    beta: float = 8.0 / 3.0,
    burn_in: int = 500,
    seed: Seed = 0,
) -> np.ndarray:
    """Lorenz-63 trajectories on the attractor: ``(n_traj, steps, 3)``.

    Starts near the attractor and discards ``burn_in`` steps so every trajectory is on it.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    n_traj = check_int(n_traj, "n_traj", min_value=1)
    steps = check_int(steps, "steps", min_value=2)
    burn_in = check_int(burn_in, "burn_in", min_value=0)
    dt = check_float(dt, "dt", low=0.0, inclusive=(False, True))
    rng = as_generator(seed)

    def f(s: np.ndarray) -> np.ndarray:
        x, y, z = s[:, 0], s[:, 1], s[:, 2]
        return np.stack([sigma * (y - x), x * (rho - z) - y, x * y - beta * z], axis=1)

    x0 = np.array([1.0, 1.0, 25.0]) + rng.normal(0, 5.0, (n_traj, 3))
    warm = _integrate(f, x0, burn_in + 1, dt, substeps=2)[:, -1] if burn_in else x0
    return _integrate(f, warm, steps, dt, substeps=2)


def linear_system(
    A: np.ndarray, n_traj: int = 64, steps: int = 32, *, noise: float = 0.0, seed: Seed = 0
) -> np.ndarray:
    """Trajectories of ``x_{t+1} = A x_t (+ noise)`` from standard normal starts.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    a = np.asarray(A, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"A must be a square matrix, got shape {a.shape}")
    rng = as_generator(seed)
    x = rng.standard_normal((n_traj, a.shape[0]))
    out = np.empty((n_traj, steps, a.shape[0]))
    for t in range(steps):
        out[:, t] = x
        x = x @ a.T + noise * rng.standard_normal(x.shape)
    return out
