"""Self-consistency tasks usable with any estimator (Song & Ermon, ICLR 2020, §2.2 of the brief).

Built from a base task with a known MI ``I``:

* :func:`independent` — Y rows permuted: X ⟂ Y, so the truth is 0;
* :func:`injective` — X replaced by ``[X, g(X)]`` with g injective: the truth stays ``I``;
* :func:`lossy_gaussian` — only the first coordinates of a Gaussian X kept: the truth drops
  (recomputed from the covariance);
* :func:`doubled` — two independent copies side by side: the truth is ``2 I``.

Each task records ``extra = {"base": ..., "relation": "zero" | "equal" | "less" | "double"}``
so reports can show the estimate ratio to the base estimate.
"""

from __future__ import annotations

import numpy as np

from . import closed_forms as cf
from .base import Task, get_task, register_task

__all__ = ["independent", "injective", "lossy_gaussian", "doubled"]


def _derived(base: Task, suffix: str, sampler, truth: float, dims, relation: str) -> Task:
    return Task(
        name=f"{base.name}~{suffix}",
        quantity=base.quantity,
        sampler=sampler,
        truth=truth,
        dims=dims,
        family=f"consistency-{relation}",
        tags=frozenset({"consistency"}),
        truth_se=base.truth_se,
        discrete=base.discrete,
        description=f"{suffix} of {base.name}",
        extra={"base": base.name, "relation": relation},
    )


def independent(base: Task) -> Task:
    """Permute the rows of Y: the truth becomes exactly 0."""
    if base.quantity != "mutual_info":
        raise ValueError(f"base must be a mutual_info task, got {base.quantity}")

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        s = base.sampler(n, rng)
        return {"x": s["x"], "y": s["y"][rng.permutation(n)]}

    return _derived(base, "independent", sampler, 0.0, base.dims, "zero")


def injective(base: Task) -> Task:
    """X ↦ [X, g(X)] with ``g = x³`` (numbers) or ``x mod 2`` (symbols): I unchanged."""
    if base.quantity != "mutual_info":
        raise ValueError(f"base must be a mutual_info task, got {base.quantity}")

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        s = base.sampler(n, rng)
        x = s["x"]
        g = x % 2 if np.issubdtype(x.dtype, np.integer) else x**3
        return {"x": np.column_stack([x, g]), "y": s["y"]}

    dims = (2 * base.dims[0],) + tuple(base.dims[1:])
    return _derived(base, "injective", sampler, base.truth, dims, "equal")


def lossy_gaussian(cov: np.ndarray, dim_x: int, keep: int, name: str) -> Task:
    """Gaussian (X, Y) with X cut to its first ``keep`` coordinates: I drops (data processing)."""
    full = cf.gaussian_mutual_info(cov, dim_x)
    idx = np.r_[np.arange(keep), np.arange(dim_x, cov.shape[0])]
    sub = cov[np.ix_(idx, idx)]
    chol = np.linalg.cholesky(cov)

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        z = rng.standard_normal((n, cov.shape[0])) @ chol.T
        return {"x": z[:, :keep], "y": z[:, dim_x:]}

    return Task(
        name=f"{name}~lossy",
        quantity="mutual_info",
        sampler=sampler,
        truth=cf.gaussian_mutual_info(sub, keep),
        dims=(keep, cov.shape[0] - dim_x),
        family="consistency-less",
        tags=frozenset({"consistency"}),
        description=f"first {keep} of {dim_x} X coordinates of {name} (full MI {full:.4f})",
        extra={"base": name, "relation": "less"},
    )


def doubled(base: Task) -> Task:
    """Two independent copies side by side: I([X₁,X₂];[Y₁,Y₂]) = 2 I."""
    if base.quantity != "mutual_info":
        raise ValueError(f"base must be a mutual_info task, got {base.quantity}")

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        a, b = base.sampler(n, rng), base.sampler(n, rng)
        return {k: np.column_stack([a[k], b[k]]) for k in ("x", "y")}

    dims = tuple(2 * d for d in base.dims)
    return _derived(base, "doubled", sampler, 2 * base.truth, dims, "double")


def _register() -> None:
    for name in (
        "1v1-normal-0.75",
        "multinormal-sparse-3-3-2-2.0",
        "symchannel-1pair-V2-0.5nat",
        "table-4x5-dirichlet",
        "mixed-uniform-m5",
    ):
        base = get_task(name)
        register_task(independent(base))
        register_task(injective(base))
        register_task(doubled(base))
    cov = cf.lvm_correlation(3, 3, 2, lambd=2.0)
    register_task(lossy_gaussian(cov, 3, 1, "multinormal-sparse-3-3-2-2.0"))


_register()
