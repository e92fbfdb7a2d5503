"""Greedy candidate selection and the permutation statistics of IDTxl (numpy in, numpy out).

All p-values are :func:`infometer.measures.stats.nulls.p_value` (``(1 + #{surrogates >= observed})
/ (1 + S)`` for S permutations: never exactly 0, the smallest reachable 1/(S+1)).

* :func:`include`: greedy forward selection; at each step the candidate with the largest
  I(c; y | selected) is tested by the **maximum statistic** (its value against the
  per-permutation maximum over all remaining candidates, one shared set of
  permutations), and included while significant.
* :func:`prune`: the **minimum statistic**: the selected candidate with the smallest
  I(c; y | all other selected) is tested against the per-permutation minimum over the
  selected candidates, and removed while not significant.
* :func:`omnibus`: I(all selected sources; y | selected target past) against joint
  permutations of the sources.
* :func:`sequential_maxstat`: step-down maximum statistic (Westfall & Young) over the
  selected sources' individual conditional values: the family-wise p-value of each.

References
----------
* Lizier & Rubinov (2012), MPI preprint 25/2012; Faes, Nollo & Porta (2011), Phys. Rev. E
  83:051112 (non-uniform embedding).
* Novelli, Wollstadt, Mediano, Wibral & Lizier (2019), Netw. Neurosci. 3:827 (the
  multivariate TE algorithm and its statistics).
* Westfall & Young (1993), *Resampling-Based Multiple Testing*.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.measures.stats import nulls

__all__ = [
    "Perms",
    "pool_perms",
    "permutations",
    "include",
    "prune",
    "omnibus",
    "sequential_maxstat",
]


class Perms:
    """Row permutations ``p`` (S × N) and, computed once when needed, their inverses."""

    def __init__(self, p: np.ndarray, parent: Perms | None = None) -> None:
        self.p = p
        self._inv: np.ndarray | None = None
        self._parent = parent

    @property
    def inv(self) -> np.ndarray:
        if self._inv is None and self._parent is not None:
            self._inv = self._parent.inv[: len(self)]
        if self._inv is None:
            inv = np.empty_like(self.p)
            np.put_along_axis(inv, self.p, np.arange(self.p.shape[1])[None, :], axis=1)
            self._inv = inv
        return self._inv

    def __len__(self) -> int:
        return int(self.p.shape[0])

    def head(self, count: int) -> Perms:
        return Perms(self.p[:count], parent=self)


def permutations(rng: np.random.Generator, n: int, count: int) -> Perms:
    """``count`` independent random permutations of ``range(n)``.

    One pool per engine serves every test of a target (``engine.pool``): each test's null
    is valid on its own; only the tests' dependence on one another changes.
    """
    return Perms(nulls.permutation_table(rng, n, count))


def pool_perms(engine: Any, rng: np.random.Generator, count: int) -> Perms:
    pool = getattr(engine, "pool", None)
    if pool is None or len(pool) < count:
        pool = permutations(rng, engine.n, count)
        engine.pool = pool
    return pool.head(count)


@dataclass
class Step:
    """One greedy step: the best candidate, its value and max-statistic p-value."""

    candidate: int
    value: float
    p_value: float
    included: bool


@dataclass
class Selection:
    selected: list[int]
    steps: list[Step] = field(default_factory=list)


def include(
    engine: Any,
    cands: list[int],
    selected: list[int],
    *,
    n_permutations: int,
    alpha: float,
    rng: np.random.Generator,
    tick: Any = None,
) -> Selection:
    """Greedy forward selection from ``cands`` given the already ``selected`` columns."""
    selected = list(selected)
    remaining = [c for c in cands if c not in selected]
    out = Selection(selected)
    while remaining:
        vals = engine.single(remaining, selected)
        best = int(np.argmax(vals))
        perms = pool_perms(engine, rng, n_permutations)
        null = engine.single_surrogates(remaining, selected, perms).max(axis=1)
        p = nulls.p_value(float(vals[best]), null)
        ok = p <= alpha
        out.steps.append(Step(remaining[best], float(vals[best]), p, ok))
        if tick is not None:
            tick()
        if not ok:
            break
        selected.append(remaining.pop(best))
    out.selected = selected
    return out


def prune(
    engine: Any,
    sources: list[int],
    fixed: list[int],
    *,
    n_permutations: int,
    alpha: float,
    rng: np.random.Generator,
) -> tuple[list[int], list[int]]:
    """Minimum-statistic pruning of ``sources`` (conditioning on ``fixed`` and the others).

    Returns ``(kept, removed)``.
    """
    kept = list(sources)
    removed: list[int] = []
    while kept:
        vals = np.array(
            [float(engine.single([c], fixed + [o for o in kept if o != c])[0]) for c in kept]
        )
        perms = pool_perms(engine, rng, n_permutations)
        surr = np.column_stack(
            [
                engine.single_surrogates([c], fixed + [o for o in kept if o != c], perms)[:, 0]
                for c in kept
            ]
        )
        worst = int(np.argmin(vals))
        p = nulls.p_value(float(vals[worst]), surr.min(axis=1))
        if p <= alpha:
            break
        removed.append(kept.pop(worst))
    return kept, removed


def omnibus(
    engine: Any,
    sources: list[int],
    fixed: list[int],
    *,
    n_permutations: int,
    rng: np.random.Generator,
) -> tuple[float, float]:
    """I(sources; y | fixed) and its p-value against joint permutations of the sources."""
    value = float(engine.joint(sources, fixed))
    perms = pool_perms(engine, rng, n_permutations)
    return value, nulls.p_value(value, engine.joint_surrogates(sources, fixed, perms))


def sequential_maxstat(
    engine: Any,
    sources: list[int],
    fixed: list[int],
    *,
    n_permutations: int,
    rng: np.random.Generator,
    others: dict[int, list[int]] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Each source's I(s; y | fixed, other sources) and its step-down max-statistic p-value.

    ``others[s]`` overrides the sources conditioned on for ``s`` (bivariate TE: only the
    same process's selected lags).
    """
    if not sources:
        return np.zeros(0), np.zeros(0)

    def cond(c: int) -> list[int]:
        rest = others[c] if others is not None else [o for o in sources if o != c]
        return fixed + [o for o in rest if o != c]

    vals = np.array([float(engine.single([c], cond(c))[0]) for c in sources])
    perms = pool_perms(engine, rng, n_permutations)
    surr = np.column_stack([engine.single_surrogates([c], cond(c), perms)[:, 0] for c in sources])
    return vals, nulls.stepdown_maxstat(vals, surr)
