"""What ``method="auto"`` does with tied (rounded) continuous data, shared by every family
whose continuous default is a kNN estimator (entropy, MI, CMI, KL, TE, AIS, entropy rate,
local values, pairwise, Rényi/Tsallis kNN).

The facts come from the one detector, :func:`infometer.core.data.find_ties` (cached per
variable as :attr:`infometer.core.data.Variable.ties`).  The readings (docs/knn.md, "Ties and
rounding"):

* a tied column whose values lie on a grid of step Δ is a rounded continuous variable: it
  is dequantised (each value spread uniformly over its cell, seeded), and an entropy is
  ``h = H(values) + log Δ`` (per column), within ``Δ²·J/24`` of the unrounded variable's
  (``Δ²/(24σ²)`` for a Gaussian); MI, CMI, TE, KL of the dequantised data equal those of
  the recorded values exactly;
* a tied column without a common step gets cells as wide as the smaller gap to its
  neighbours for its tied values (rounding in transformed units, e.g. the log of whole
  numbers), read the same way;
* a column of few distinct values (at most :func:`few_levels_limit`) is treated by GKOV
  as point masses for MI and CMI (the MI of the recorded values); an entropy of such a
  column without a common step is refused (a discrete variable has no density).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core.data import Ties, Variable

__all__: list[str] = []

#: ``k`` of the kNN defaults that ``auto`` picks (the few-levels limit depends on it).
DEFAULT_K = 3


def few_levels_limit(n: int, k: int = DEFAULT_K) -> int:
    """Most distinct values a float column may take to count as point masses (GKOV's
    :func:`~infometer.estimators.knn.estimators.atom_lattice_limit`, ``max(2, sqrt(n/k))``)."""
    return max(2, int(np.sqrt(n / k)))


def tied(variables: dict[str, Variable]) -> dict[str, dict[int, Ties]]:
    """Role -> {column: facts} of the continuous columns that have ties (constant columns
    aside: the constant-column policy answers for them)."""
    out = {}
    for nm, v in variables.items():
        cols = {j: t for j, t in v.ties.items() if t.levels > 1} if v.kind != "discrete" else {}
        if cols:
            out[nm] = cols
    return out


def is_few(t: Ties) -> bool:
    return t.levels <= few_levels_limit(t.n)


def any_tied(variables: dict[str, Variable]) -> bool:
    return bool(tied(variables))


def any_few(variables: dict[str, Variable]) -> bool:
    return any(is_few(t) for cols in tied(variables).values() for t in cols.values())


def any_fine(variables: dict[str, Variable]) -> bool:
    """Some tied column takes more than few values (a rounding lattice: dequantised)."""
    return any(not is_few(t) for cols in tied(variables).values() for t in cols.values())


def facts(variables: dict[str, Variable]) -> str:
    """The ties of every role in words (the user's units and column names)."""
    parts = []
    for nm, cols in tied(variables).items():
        v = variables[nm]
        for j, t in cols.items():
            label = v.labels[j] if v.labels and j < len(v.labels) else (j if v.d > 1 else None)
            who = nm if label is None else f"{nm} column {label!r}"
            parts.append(f"{who}: {t.describe()}")
    shown = parts[:4] + ([f"{len(parts) - 4} more tied columns"] if len(parts) > 4 else [])
    return "; ".join(shown)


def gaussian_excess(variables: dict[str, Variable]) -> float:
    """Sum over the grid columns of ``Δ²/(24 sd²)``: how much a dequantised entropy exceeds
    the unrounded variable's when that variable is Gaussian (nats)."""
    total = 0.0
    for nm, cols in tied(variables).items():
        v = variables[nm]
        for j, t in cols.items():
            sd = float(np.std(v.columns[j]))
            if t.step is not None and sd > 0:
                total += t.step**2 / (24 * sd**2)
    return total


def dequantize_params(variables: dict[str, Variable]) -> dict[str, Any]:
    return {"dequantize": True} if any_fine(variables) else {}


def check_entropy_defined(variables: dict[str, Variable], what: str = "differential entropy"):
    """Refuse a column of few distinct values on no common step: a discrete variable."""
    for nm, cols in tied(variables).items():
        v = variables[nm]
        for j, t in cols.items():
            if t.step is None and is_few(t):
                who = nm if v.d == 1 else f"{nm} column {v.labels[j] if v.labels else j!r}"
                raise ValueError(
                    f"{who} takes only {t.levels} distinct values among {t.n} rows, on no "
                    f"common step: a discrete variable, which has no density to take a "
                    f"{what} of; pass discrete=True for the entropy of its values"
                )


def entropy_reason(variables: dict[str, Variable], estimator: str) -> str:
    """``auto_reason`` of a dequantised entropy (Shannon, Rényi, entropy rate)."""
    excess = gaussian_excess(variables)
    grid = any(t.step is not None for cols in tied(variables).values() for t in cols.values())
    off = any(t.step is None for cols in tied(variables).values() for t in cols.values())
    text = (
        f"continuous data with tied values ({facts(variables)}), read as a continuous "
        "variable rounded to that step: each value is spread uniformly over its step "
        f"(seeded), then {estimator}; the estimate is of h = H(values) + log(step) per "
        "rounded column, the entropy of the rounded variable"
    )
    if grid:
        text += (
            f", above the unrounded variable's by about step^2/(24 sd^2) = {excess:.2g} nats "
            "if it is Gaussian"
        )
    if off:
        text += (
            "; tied values on no common step are spread over the smaller gap to their "
            "neighbours (rounding in transformed units)"
        )
    return text + "; the entropy of the values as symbols: discrete=True"


def info_reason(variables: dict[str, Variable], estimator: str) -> str:
    """``auto_reason`` of a dequantised MI, CMI, TE or divergence."""
    return (
        f"continuous data with tied values ({facts(variables)}): each value is spread "
        f"uniformly over its rounding step (seeded), then {estimator}; the spread values "
        "carry exactly the information of the recorded ones (those are a function of "
        "these), which is that of the unrounded variables less what the rounding lost"
    )
