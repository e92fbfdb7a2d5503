"""Ground truth for the signal, generalised-entropy and channel families.

Each task fixes which estimators its truth belongs to (``Task.methods``): the measures of
the ``complexity`` quantity each have their own value on the same signal (permutation
entropy of white noise is log m!, its dispersion entropy log c^m), so a permutation-entropy
truth is never scored against a sample-entropy estimate.

* **White Gaussian noise**, 1-D: permutation entropy of order 3 (plain, weighted and
  modified) ``log 3! = log 6`` (the ordinal pattern of i.i.d. values is uniform and
  independent of the window's spread, so weighting changes nothing); dispersion entropy
  with 6 classes and order 2, ``log 36``; sample entropy with ``r = 0.2`` sd and order 2,
  ``-log(2 Φ(r/√2) - 1)`` (a match in one more coordinate has probability
  P(|X - Y| <= r), X - Y ~ N(0, 2)); SVD entropy of order 3, ``log 3`` (the limit as
  N → ∞: the embedding's singular values become equal).
* **A Gaussian AR(1) process** x_t = φ x_{t-1} + e_t: permutation entropy of order 3 from
  Bandt & Shiha (2007): the increments of a stationary Gaussian process are bivariate
  normal with correlation ``r = (2ρ₁ − ρ₂ − 1) / (2(1 − ρ₁))`` (``= −(1 − φ)/2`` for
  AR(1)), so each monotone pattern has probability ``q = ¼ + arcsin(r)/(2π)`` and each of
  the four others ``(1 − 2q)/4``; φ = 0 gives back log 3!.  White noise at orders 4 and 5
  (log 4!, log 5!) and sample entropy at other tolerances r (the same closed form in r).
* **Rényi and Tsallis entropies of order 2**: a standard Gaussian,
  ``½ log 2π + ½ log 2``; a 10-symbol geometric pmf, ``-log Σ p²`` and ``1 - Σ p²``.
* **Channel capacity from samples**: a binary symmetric channel with crossover 0.1 and
  uniform inputs, ``log 2 - h(0.1)``.
"""

from __future__ import annotations

import math

import numpy as np

from .base import Task, register_task

__all__ = ["SIGNAL_TASKS", "permutation_entropy_ar1"]


def _white(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": rng.standard_normal(n)}


def _geometric_pmf() -> np.ndarray:
    p = 0.6 ** np.arange(10)
    return p / p.sum()


def _geometric(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": rng.choice(10, size=n, p=_geometric_pmf())}


def _gauss(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": rng.standard_normal((n, 1))}


def _bsc(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    x = rng.integers(0, 2, size=n)
    return {"x": x, "y": x ^ (rng.random(n) < 0.1).astype(x.dtype)}


def _ar1(phi: float):
    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        e = rng.standard_normal(n + 200)
        x = np.empty_like(e)
        x[0] = e[0] / math.sqrt(1 - phi**2)
        for t in range(1, e.size):
            x[t] = phi * x[t - 1] + e[t]
        return {"x": x[200:]}

    return sampler


def permutation_entropy_ar1(phi: float) -> float:
    """Permutation entropy (order 3, nats) of a stationary Gaussian AR(1) with coefficient φ.

    Examples
    --------
    >>> round(permutation_entropy_ar1(0.0), 12) == round(math.log(6), 12)
    True
    """
    r = -(1.0 - phi) / 2.0
    q = 0.25 + math.asin(r) / (2 * math.pi)
    rest = (1.0 - 2 * q) / 4
    return -(2 * q * math.log(q) + 4 * rest * math.log(rest))


def _sampen_white(r: float) -> float:
    from scipy.special import ndtr

    return -math.log(2.0 * float(ndtr(r / math.sqrt(2.0))) - 1.0)


_h01 = -(0.1 * math.log(0.1) + 0.9 * math.log(0.9))
_sq = float(np.sum(_geometric_pmf() ** 2))

_SPECS = [
    ("white-permutation-m3", "complexity", _white, math.log(6.0), ("permutation",),
     "permutation entropy (order 3) of white Gaussian noise: log 3!"),
    ("white-weighted-permutation-m3", "complexity", _white, math.log(6.0),
     ("weighted_permutation",), "weighted permutation entropy (order 3) of white noise: log 3!"),
    ("white-modified-permutation-m3", "complexity", _white, math.log(6.0),
     ("modified_permutation",), "modified permutation entropy (order 3) of white noise: log 3!"),
    ("white-dispersion-c6-m2", "complexity", _white, math.log(36.0), ("dispersion",),
     "dispersion entropy (6 classes, order 2) of white Gaussian noise: log 6^2"),
    ("white-sample-r0.2-m2", "complexity", _white, _sampen_white(0.2), ("sample",),
     "sample entropy (order 2, r = 0.2 sd) of white Gaussian noise: -log(2Φ(r/√2) - 1)"),
    ("white-svd-m3", "complexity", _white, math.log(3.0), ("svd",),
     "SVD entropy (order 3) of white noise: log 3 as N grows"),
    ("white-permutation-m4", "complexity", _white, math.log(24.0), ("permutation",),
     "permutation entropy (order 4) of white Gaussian noise: log 4!"),
    ("white-permutation-m5", "complexity", _white, math.log(120.0), ("permutation",),
     "permutation entropy (order 5) of white Gaussian noise: log 5!"),
    ("ar1-neg0.8-permutation-m3", "complexity", _ar1(-0.8), permutation_entropy_ar1(-0.8),
     ("permutation",), "permutation entropy (order 3) of a Gaussian AR(1), φ = -0.8"),
    ("ar1-0.9-permutation-m3", "complexity", _ar1(0.9), permutation_entropy_ar1(0.9),
     ("permutation",), "permutation entropy (order 3) of a Gaussian AR(1), φ = 0.9"),
    ("white-sample-r0.1-m2", "complexity", _white, _sampen_white(0.1), ("sample",),
     "sample entropy (order 2, r = 0.1 sd) of white Gaussian noise: -log(2Φ(r/√2) - 1)"),
    ("white-sample-r0.3-m2", "complexity", _white, _sampen_white(0.3), ("sample",),
     "sample entropy (order 2, r = 0.3 sd) of white Gaussian noise: -log(2Φ(r/√2) - 1)"),
    ("gauss-renyi2", "renyi_entropy", _gauss, 0.5 * math.log(2 * math.pi) + 0.5 * math.log(2),
     (), "Rényi entropy of order 2 of N(0, 1): ½ log 2π + ½ log 2"),
    ("geometric10-renyi2", "renyi_entropy", _geometric, -math.log(_sq), (),
     "Rényi entropy of order 2 of a 10-symbol geometric pmf (ratio 0.6): -log Σp²"),
    ("geometric10-tsallis2", "tsallis_entropy", _geometric, 1.0 - _sq, (),
     "Tsallis entropy of order 2 of the same pmf: 1 - Σp²"),
    ("bsc0.1-capacity", "channel_capacity", _bsc, math.log(2.0) - _h01, (),
     "capacity of a binary symmetric channel (crossover 0.1) from uniform-input samples"),
]  # fmt: skip


def _params(name: str, methods: tuple[str, ...]) -> dict:
    """The complexity settings of a task (its name ends in ``-m<order>``, maybe ``-r<r>``)."""
    if not methods or methods[0] not in _DEFAULT_PARAMS:
        return {}
    p = dict(_DEFAULT_PARAMS[methods[0]])
    p["order"] = int(name.rsplit("-m", 1)[1])
    if "-r" in name:
        p["r"] = float(name.split("-r")[1].split("-")[0])
    return p


_DEFAULT_PARAMS = {
    "permutation": {"delay": 1},
    "weighted_permutation": {"delay": 1},
    "modified_permutation": {"delay": 1},
    "dispersion": {"delay": 1, "classes": 6},
    "sample": {"delay": 1, "r": 0.2},
    "svd": {"delay": 1},
}


def _register() -> list[Task]:
    out = []
    for name, quantity, sampler, truth, methods, description in _SPECS:
        discrete = quantity == "channel_capacity" or name.startswith("geometric")
        dims = (1, 1) if quantity == "channel_capacity" else (1,)
        tags = {"signals"} | ({"complexity"} if quantity == "complexity" else set())
        out.append(
            register_task(
                Task(
                    name=name,
                    quantity=quantity,
                    sampler=sampler,
                    truth=truth,
                    dims=dims,
                    family=f"complexity-{methods[0]}" if quantity == "complexity" else quantity,
                    tags=frozenset(tags),
                    discrete=discrete,
                    description=description,
                    methods=methods,
                    params=_params(name, methods),
                )
            )
        )
    return out


SIGNAL_TASKS = _register()
