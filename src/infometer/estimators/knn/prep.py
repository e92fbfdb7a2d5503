"""Scaling, tie and constant-column policy shared by the kNN estimators (pure; returns messages).

Policy (documented in ``docs/knn.md``):

* **standardise** (default): each continuous column is centred and divided by its
  standard deviation.  The max-norm mixes coordinates, so without this the KSG estimate
  changes when one variable is rescaled; with it the estimate is invariant to rescaling
  any column (exactly for powers of two, up to float rounding otherwise).  Entropy adds
  back ``sum(log sd)``, so it transforms as ``h(aX) = h(X) + log|a|``.
* **constant columns** carry no information: they are reported and dropped (MI with a
  constant variable is exactly 0; a constant column makes a differential entropy -inf).
* **ties** (repeated values in a continuous column) make k-th neighbour distances 0 and
  bias kNN estimates.  Their facts (share of rows tied, distinct values, rounding step)
  come from the one detector, :func:`infometer.core.data.find_ties`.
* **dequantize=True**: each value of a tied column is spread uniformly over the cell it
  stands for (its rounding step; :func:`infometer.core.data.cell_widths`), seeded with
  ``seed``.  The estimate is then that of the continuous variable the rounding came from,
  read as stated in docs/knn.md ("Ties and rounding").
* otherwise, with ``jitter="auto"`` every column with ties gets independent Gaussian
  noise of standard deviation ``jitter_scale`` × the column's sd (seeded with ``seed``)
  and a warning states the facts and the remedy; ``"always"`` jitters every column;
  ``"never"`` only warns.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from infometer.core.data import (
    Ties,
    cell_widths,
    check_choice,
    check_float,
    find_ties,
    scaled_moments,
)
from infometer.core.data import dequantize as spread
from infometer.core.seeding import Seed, as_generator
from infometer.core.validation import check_bool

from .engine import n_threads

__all__ = ["Prepared", "prepare", "JITTER_CHOICES", "PREP_PARAMS", "takes_prep", "check_prep"]

JITTER_CHOICES = ("auto", "always", "never")

#: The preparation parameters of every kNN estimator (of the knn, generalized and
#: multivariate families) and their defaults, declared once: :func:`takes_prep` lists them
#: in each registered function's signature (where the registry reads them) and
#: :func:`check_prep` checks them.
PREP_PARAMS: dict[str, Any] = {
    "standardize": True,
    "jitter": "auto",
    "jitter_scale": 1e-10,
    "seed": 0,
    "dequantize": False,
}

_F = TypeVar("_F", bound=Callable[..., Any])


def takes_prep(func: _F) -> _F:
    """Declare :data:`PREP_PARAMS` on ``func``, which takes them as ``**prep``.

    The signature (``inspect.signature``, read by :func:`infometer.core.registry.register`)
    lists ``func``'s own parameters, then the preparation parameters with their defaults.
    """
    sig = inspect.signature(func)
    own = [p for p in sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    if len(own) == len(sig.parameters) or set(PREP_PARAMS) & {p.name for p in own}:
        raise TypeError(f"{func.__name__} must take the preparation parameters as **prep")
    prep = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
        for name, default in PREP_PARAMS.items()
    ]
    func.__signature__ = sig.replace(parameters=[*own, *prep])  # type: ignore[attr-defined]
    return func


def check_prep(prep: dict[str, Any]) -> dict[str, Any]:
    """The preparation parameters, defaults filled in and checked, as :func:`prepare`
    takes them; an unknown or bad one is an error naming it."""
    unknown = sorted(set(prep) - set(PREP_PARAMS))
    if unknown:
        raise TypeError(f"unknown preparation parameters {unknown}; they are {list(PREP_PARAMS)}")
    p = {**PREP_PARAMS, **prep}
    if not isinstance(p["standardize"], bool | np.bool_):
        raise TypeError(f"standardize must be True or False, got {p['standardize']!r}")
    check_choice(p["jitter"], "jitter", JITTER_CHOICES)
    check_float(p["jitter_scale"], "jitter_scale", low=0.0, inclusive=(False, True))
    check_bool(p["dequantize"], "dequantize")
    return {
        "standardize": bool(p["standardize"]),
        "jitter": p["jitter"],
        "jitter_scale": float(p["jitter_scale"]),
        "seed": p["seed"],
        "dequantize": bool(p["dequantize"]),
    }


@dataclass
class Prepared:
    """Prepared blocks (constant columns dropped), with what was done to them."""

    blocks: list[np.ndarray]
    log_scale: list[float]
    constant: dict[str, list[int]] = field(default_factory=dict)
    diagnostics: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _tie_fraction(col: np.ndarray) -> float:
    s = np.sort(col)
    return float(np.count_nonzero(s[1:] == s[:-1])) / col.shape[0]


#: From this many values in all blocks together, the columns are examined on several threads
#: (``engine.n_threads()``: ``NUMBA_NUM_THREADS`` if set, else the usable cores).
PARALLEL_MIN_CELLS = 200_000


@dataclass
class _Column:
    """What :func:`_examine` found in one column."""

    constant: bool = False
    continuous: bool = True
    sd: float = 1.0
    log_sd: float | None = None  # added to the group's log scale (standardised columns)
    tie_fraction: float = 0.0
    movable: np.ndarray | None = None  # rows whose value may be jittered (atoms excluded)
    n_atoms: int = 0
    lattice: bool = False
    atoms_only: bool = False  # every tied value is an atom
    span_overflows: bool = False  # max - min is not a float64: raw distances would be inf
    ties: Ties | None = None  # the detector's facts (steps in the units of ``col``)
    unit: float = 1.0  # user units per unit of ``col`` (the sd when standardised)
    widths: np.ndarray | None = None  # dequantisation cell of each row (dequantize=True)


def _examine(
    arrays, j, continuous, pooled, standardize, atom_min_count, atom_max_values, dequantize
):
    """Standardise column ``j`` of ``arrays`` in place and find its constancy, ties and atoms."""
    col = np.concatenate([a[:, j] for a in arrays]) if pooled else arrays[0][:, j]
    lo, hi = float(col.min()), float(col.max())
    if lo == hi:
        return _Column(constant=True)
    if not continuous:
        return _Column(continuous=False)
    found = _Column()
    found.span_overflows = not standardize and hi - lo == np.inf
    # mean and sd of col times a power of two (data.scaled_moments): bit for bit np.mean
    # and np.std for ordinary data, and no overflow or underflow near 1e±300.  sd_u > 0:
    # the column is not constant, its scaled values are at most 1 in size, so some
    # deviation from the mean is nonzero and its square (>= 2^-106) does not underflow
    scale, mu_u, sd_u = (float(v) for v in scaled_moments(col))
    with np.errstate(over="ignore"):  # inf past ~1.8e308 (then only used for jitter)
        found.sd = sd = sd_u / scale
    if standardize:
        with np.errstate(under="ignore"):
            for a in arrays:
                a[:, j] = (a[:, j] * scale - mu_u) / sd_u
        # log(sd) itself where sd is an ordinary float (the same rounding as before)
        ordinary = np.isfinite(sd) and sd >= np.finfo(np.float64).tiny
        found.log_sd = float(np.log(sd)) if ordinary else float(np.log(sd_u) - np.log(scale))
    # not pooled: ``col`` is a view, so ties are judged on the standardised values
    tf = found.tie_fraction = _tie_fraction(col)
    if tf > 0:
        found.ties = find_ties(col)
        # ``col`` is standardised in place unless pooled (then it is a raw copy)
        found.unit = sd if standardize and not pooled else 1.0
    if atom_min_count is not None and tf > 0:
        _, inv, cnt = np.unique(col, return_inverse=True, return_counts=True)
        movable = cnt[inv] < atom_min_count
        n_atoms = int(np.count_nonzero(cnt >= atom_min_count))
        if atom_max_values is not None and n_atoms > atom_max_values:
            movable = np.ones(col.shape[0], bool)  # a lattice: rounding ties
            n_atoms = 0
            found.lattice = True
        found.n_atoms = n_atoms
        if movable.all():
            movable = None
        elif np.unique(col[movable]).size == np.count_nonzero(movable):
            found.atoms_only = True
        found.movable = movable
    if dequantize and found.ties is not None and not (found.n_atoms and not found.lattice):
        # GKOV keeps a few heavy values as atoms; every other tied column is dequantised
        # cells in the units of ``col``, applied to the (standardised) arrays
        found.widths = cell_widths(col, found.ties) * (found.unit / (sd if standardize else 1.0))
    return found


def prepare(
    blocks: dict[str, np.ndarray],
    *,
    standardize: bool,
    jitter: str,
    jitter_scale: float,
    seed: Seed,
    continuous: dict[str, np.ndarray] | None = None,
    pooled: bool = False,
    atom_min_count: int | None = None,
    atom_max_values: int | None = None,
    dequantize: bool = False,
) -> Prepared:
    """Apply the scaling / tie / constant-column policy to named (n_i, d) float blocks.

    Parameters
    ----------
    blocks
        Role name -> 2-D float array.
    standardize, jitter, jitter_scale
        The policy (see the module docstring).
    seed
        The policy (see the module docstring). An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    continuous
        Role name -> boolean mask of continuous columns; other columns (discrete codes) are
        left untouched and never jittered.  Default: all columns continuous.
    pooled
        Blocks are samples of the *same* space (KL's p and q): scale, ties and constancy are
        judged on the pooled column and the same affine map is applied to every block.
    atom_min_count
        When given (GKOV), a value repeated at least this many times in a continuous column
        is a discrete atom (an exact zero of zero-inflated data, say): it is standardised
        but never jittered.  Rarer repeats are rounding ties and follow ``jitter``.
    atom_max_values
        When a column has more than this many atom values, they are a lattice of rounded
        values (``np.round(x, 1)``), not point masses: all its ties follow ``jitter``
        (recorded in ``diagnostics["lattice_columns"]``).
    dequantize
        Spread each value of a tied continuous column uniformly over its cell (its rounding
        step) instead of jittering it (see the module docstring); GKOV's atoms stay atoms.
    """
    rng = as_generator(seed)
    names = list(blocks)
    out: dict[str, np.ndarray] = {}
    log_scale: dict[str, float] = {}
    constant: dict[str, list[int]] = {}
    ties: dict[str, dict[int, float]] = {}
    jittered: dict[str, list[int]] = {}
    atom_values: dict[str, dict[str, int]] = {}
    lattice: dict[str, list[int]] = {}
    facts: dict[str, dict[int, tuple[Ties, float]]] = {}
    dequantized: dict[str, list[int]] = {}
    groups = [names] if pooled else [[nm] for nm in names]
    arrays = {nm: np.array(blocks[nm], dtype=np.float64, copy=True) for nm in names}
    tasks = []  # (group, column): each column is scaled and examined on its own
    for group in groups:
        mask = (continuous or {}).get(group[0], np.ones(arrays[group[0]].shape[1], bool))
        tasks += [(group, j, bool(mask[j])) for j in range(arrays[group[0]].shape[1])]

    def examine(task: tuple) -> _Column:
        group, j, cont = task
        return _examine(
            [arrays[nm] for nm in group],
            j,
            cont,
            pooled,
            standardize,
            atom_min_count,
            atom_max_values,
            dequantize,
        )

    cells = sum(arrays[nm].size for nm in names)
    if len(tasks) > 1 and cells >= PARALLEL_MIN_CELLS and n_threads() > 1:
        # numpy's sorts and reductions release the GIL: the columns are examined on
        # several threads (each writes only its own column); jitter follows, in order
        with ThreadPoolExecutor(max_workers=min(len(tasks), n_threads())) as pool:
            found = list(pool.map(examine, tasks))
    else:
        found = [examine(t) for t in tasks]
    for (group, j, _), col in zip(tasks, found, strict=True):
        if col.span_overflows:
            raise ValueError(
                f"{' and '.join(group)} column {j} spans more than float64 can hold "
                "(max - min overflows), so its distances would be infinite; use "
                "standardize=True or rescale the data"
            )
    keeps = {tuple(g): np.ones(arrays[g[0]].shape[1], bool) for g in groups}
    sums = {tuple(g): 0.0 for g in groups}
    for (group, j, _), col in zip(tasks, found, strict=True):
        key = tuple(group)
        if col.constant:
            keeps[key][j] = False
            for nm in group:
                constant.setdefault(nm, []).append(j)
            continue
        if col.log_sd is not None:
            sums[key] += col.log_sd
        tf = col.tie_fraction
        if tf > 0:
            for nm in group:
                ties.setdefault(nm, {})[j] = tf
        if col.lattice:
            for nm in group:
                lattice.setdefault(nm, []).append(j)
        if col.n_atoms:
            for nm in group:
                atom_values.setdefault(nm, {})[str(j)] = col.n_atoms
        if col.ties is not None:
            for nm in group:
                facts.setdefault(nm, {})[j] = (col.ties, col.unit)
        if col.widths is not None:
            start = 0
            for nm in group:
                a = arrays[nm]
                w = col.widths[start : start + a.shape[0]] if pooled else col.widths
                start += a.shape[0]
                a[:, j] = spread(a[:, j], w, rng)
                dequantized.setdefault(nm, []).append(j)
            continue
        if col.atoms_only:
            tf = 0.0  # every tie is an atom: nothing to jitter under "auto"
        if col.continuous and ((jitter == "auto" and tf > 0) or jitter == "always"):
            scale = jitter_scale * (1.0 if standardize else col.sd)
            start = 0
            for nm in group:
                a = arrays[nm]
                noise = scale * rng.standard_normal(a.shape[0])
                if col.movable is not None:
                    noise *= col.movable[start : start + a.shape[0]] if pooled else col.movable
                start += a.shape[0]
                a[:, j] += noise
                jittered.setdefault(nm, []).append(j)
    for group in groups:
        for nm in group:
            keep = keeps[tuple(group)]
            out[nm] = arrays[nm] if keep.all() else np.ascontiguousarray(arrays[nm][:, keep])
            log_scale[nm] = sums[tuple(group)]
    diag: dict = {}
    msgs: list[str] = []
    if constant:
        diag["constant_columns"] = constant
        for nm, cols in constant.items():
            msgs.append(
                f"{nm} columns {cols} are constant; they carry no information and are dropped"
            )
    if atom_values:
        diag["atom_values"] = atom_values
    if lattice:
        diag["lattice_columns"] = lattice
    if ties:
        diag["tie_fraction"] = {nm: {str(j): f for j, f in t.items()} for nm, t in ties.items()}
    if facts:
        diag["ties"] = {
            nm: {str(j): _facts(t, unit) for j, (t, unit) in f.items()} for nm, f in facts.items()
        }
    if dequantized:
        diag["dequantized_columns"] = dequantized
    if jittered:
        diag["jittered_columns"] = jittered
        diag["jitter_scale"] = jitter_scale
        if jitter == "auto":
            for nm, cols in jittered.items():
                msgs.append(tie_warning(nm, cols, facts.get(nm, {}), jitter_scale))
    elif ties and jitter == "never" and not dequantized:
        msgs.append(
            "tied values found and jitter='never': zero neighbour distances bias kNN "
            "estimates; pass dequantize=True to spread each value over its rounding step"
        )
    return Prepared(
        blocks=[out[nm] for nm in names],
        log_scale=[log_scale[nm] for nm in names],
        constant=constant,
        diagnostics=diag,
        warnings=msgs,
    )


def _facts(t: Ties, unit: float) -> dict:
    """The detector's facts of one column, the step in the user's units."""
    return {
        "tied_share": t.tied_share,
        "levels": t.levels,
        "step": None if t.step is None else t.step * unit,
    }


def describe_ties(cols: list[int], facts: dict[int, tuple[Ties, float]]) -> str:
    """The detector's facts of tied columns in words, steps in the user's units."""
    found = [facts[j] for j in cols if j in facts]
    if not found:
        return ""
    if len(found) == 1:
        t, unit = found[0]
        return t.describe(unit)
    shares = sorted(t.tied_share for t, _ in found)
    levels = sorted(t.levels for t, _ in found)
    steps = list(dict.fromkeys(f"{t.step * u:.4g}" for t, u in found if t.step is not None))
    off = sum(t.step is None for t, _ in found)
    grid = f"grids of step {', '.join(steps[:4])}{' ...' if len(steps) > 4 else ''}"
    grid = grid if steps else ""
    if off:
        grid += f"{'; ' if steps else ''}{off} on no common step"
    return (
        f"{shares[0]:.0%} to {shares[-1]:.0%} of rows tied ({levels[0]} to {levels[-1]} "
        f"distinct values among {found[0][0].n}, {grid})"
    )


def tie_warning(name: str, cols: list[int], facts: dict[int, tuple[Ties, float]], scale) -> str:
    """The warning of tied columns broken by jitter: the facts, the bias, the remedy."""
    what = describe_ties(cols, facts)
    return (
        f"{name} columns {cols} have tied values{': ' + what if what else ''}. kNN breaks "
        f"the ties with a tiny seeded jitter ({scale:g} x sd), which does not undo the "
        "rounding: neighbour distances below the step come from the jitter, and the "
        "estimate is biased (most for the entropy of a few columns, which goes towards "
        "-inf). Pass dequantize=True to spread each value uniformly over its rounding step "
        "(the continuous variable that was rounded), or discrete=True to count the values "
        "as symbols"
    )
