"""The two-source PID (and interaction information) of every pair of sources with one
target, batched: ``im.pid_pairs(X, target)``.

Every pair (i, j) needs only I(S_i;T), I(S_j;T) and I(S_i,S_j;T), and for the Gaussian and
Gaussian-copula estimators each is a sum of entropies of blocks of one scatter matrix of
all columns (the normal scores for the copula).  The blocks of one shape are evaluated at
once by :func:`.kernels.gaussian_block_entropies` (batched LU log-dets; no Python loop per
pair, no pass over the rows per pair), with the Wishart bias correction of
``im.pid(method="gaussian")``.  The MMI atoms follow in closed form:

    R = min(I_i, I_j),  U_i = I_i - R,  U_j = I_j - R,  S = I_ij - (R + U_i + U_j),

and the co-information is ``I_i + I_j - I_ij = R - S`` (frites' interaction information is
its negative).  For a scalar target the Gaussian BROJA PID equals the MMI PID (Barrett
2015), so ``measure="broja"`` gives the same atoms.

Discrete columns are read as symbols (a Gaussian model of bits sees their linear
dependence only: 0 synergy on XOR): the entropies of all pairs' joint symbols come from
sorted joint codes at once (:func:`.kernels.codes_block_entropies`, plug-in or
Miller-Madow), other measures from each pair's empirical pmf as ``im.pid(method="plugin")``.
``method="auto"`` refuses tables that mix the two kinds, and float columns with few
distinct values (:mod:`._reading`).
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np

from infometer.core._warnings import warn_user
from infometer.core.results import Result
from infometer.core.seeding import Seed, resolve_seed
from infometer.core.validation import (
    Flag,
    Interval,
    Options,
    check_budget,
    check_choice,
    check_int,
    check_memory,
    validate_params,
)

__all__ = ["pid_pairs", "PairPIDResult", "pair_mutual_info", "MAX_PAIRS", "MAX_CI_RERUNS"]

#: Measures of the Gaussian methods (for discrete data every measure of ``im.pid``).
MEASURES = ("mmi", "broja")
_ALL_MEASURES = ("imin", "mmi", "broja", "ccs", "dep", "isx")
METHODS = ("auto", "gaussian_copula", "gaussian", "plugin", "miller_madow")
DISCRETE_METHODS = ("plugin", "miller_madow")
#: Default most pairs (the result keeps a few (pairs,) float64 vectors and (d, d) matrices).
MAX_PAIRS = 2_000_000
#: Default most bootstrap re-runs for ``ci=`` (pairs x 4 atoms x 200 re-runs).
MAX_CI_RERUNS = 200_000
#: Bytes of block matrices built at once (pairs x block size²).
CHUNK_BYTES = 32 * 2**20
_ATOMS = ("redundancy", "unique_i", "unique_j", "synergy")


# ------------------------------------------------------------------------ kernel
def pair_mutual_info(
    scatter: np.ndarray,
    n: int,
    target: np.ndarray,
    pairs: np.ndarray,
    bias_correct: bool,
    *,
    chunk: int | None = None,
    bar: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian I(S_k;T) of every source column and I(S_i,S_j;T) of every pair (nats).

    Parameters
    ----------
    scatter
        (D, D) scatter matrix of all columns (sources and target).
    n
        Rows behind ``scatter``.
    target
        Column indices of the target.
    pairs
        (P, 2) source column indices.
    bias_correct
        Wishart-unbiased log-determinants (as ``im.pid(method="gaussian")``).
    chunk, bar
        Pairs per batch (default from :data:`CHUNK_BYTES`); a progress bar to update.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``single`` (D,) with I(S_k;T) for every column k (NaN for target columns) and
        ``joint`` (P,) with I(S_i,S_j;T); NaN where a block is singular.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[1.0, 0, 0.5], [0, 1, 0.5], [0.5, 0.5, 1]]) * 1000
    >>> single, joint = pair_mutual_info(w, 1000, np.array([2]), np.array([[0, 1]]), False)
    >>> round(float(single[0]), 6), round(float(joint[0]), 6)  # -½log(1-ρ²), -½log(1-ρ²ᵢ-ρ²ⱼ) here
    (0.143841, 0.346574)
    """
    from .kernels import gaussian_block_entropies as blocks_h

    target = np.asarray(target, dtype=np.intp)
    d = scatter.shape[0]
    t = target.size
    h_t = float(blocks_h(scatter, n, target[None, :], bias_correct)[0])
    cols = np.arange(d, dtype=np.intp)[:, None]
    h_k = blocks_h(scatter, n, cols, bias_correct)
    h_kt = blocks_h(scatter, n, np.hstack([cols, np.tile(target, (d, 1))]), bias_correct)
    single = h_k + h_t - h_kt  # the order of terms of im.pid's gaussian_entropy_sum
    single[target] = np.nan
    p = pairs.shape[0]
    if chunk is None:
        chunk = max(1, CHUNK_BYTES // (8 * 3 * (2 + t) ** 2))
    joint = np.empty(p)
    for start in range(0, p, chunk):
        blk = pairs[start : start + chunk]
        h_ij = blocks_h(scatter, n, blk, bias_correct)
        tt = np.tile(target, (blk.shape[0], 1))
        h_ijt = blocks_h(scatter, n, np.hstack([blk, tt]), bias_correct)
        joint[start : start + blk.shape[0]] = h_ij + h_t - h_ijt
        if bar is not None:
            bar.update(blk.shape[0])
    return single, joint


def mmi_atoms(i_i: np.ndarray, i_j: np.ndarray, i_ij: np.ndarray) -> dict[str, np.ndarray]:
    """MMI atoms of many pairs from their mutual informations (the Möbius inversion of
    ``_pid.mmi_from_mutual_info`` for two sources, in the same order of operations)."""
    red = np.minimum(i_i, i_j)
    u_i = i_i - red
    u_j = i_j - red
    syn = i_ij - ((red + u_i) + u_j)
    return {"redundancy": red, "unique_i": u_i, "unique_j": u_j, "synergy": syn}


# ------------------------------------------------------------------------ result
@dataclass(frozen=True, eq=False, repr=False)
class PairPIDResult(Result):
    """The two-source PID of every pair of sources with one target.

    Attributes
    ----------
    names
        Source names (columns of ``X``).
    target
        The target's name.
    measure, method, unit, n
        What was computed, on how many rows.
    pairs
        (P, 2) source indices (i < j), in the order of ``itertools.combinations``.
    values
        ``{"redundancy", "unique_i", "unique_j", "synergy", "mutual_info",
        "co_information"}`` -> (P,) arrays in ``unit``; ``mutual_info`` is I(S_i,S_j;T).
    single
        (d,) I(S_k;T) of every source, in ``unit``.
    intervals
        With ``ci=``: ``{atom: (P, 2)}`` lower and upper bounds of the four atoms.
    diagnostics
        Bias correction, singular pairs, identity residuals, the ``ci`` scheme.
    """

    names: tuple[str, ...]
    target: str
    measure: str
    method: str
    unit: str
    n: int
    pairs: np.ndarray = field(repr=False)
    values: dict = field(repr=False)
    single: np.ndarray = field(repr=False)
    intervals: dict | None = field(default=None, repr=False)
    ci_level: float | None = None
    diagnostics: dict = field(default_factory=dict, compare=False, repr=False)

    def to_frame(self):
        """Tidy DataFrame, one row per pair: ``source_i``, ``source_j``, ``redundancy``,
        ``unique_i``, ``unique_j``, ``synergy``, ``mutual_info`` (I(S_i,S_j;T)),
        ``co_information`` (R − S), ``unit`` and, with ``ci=``, ``<atom>_ci_low`` /
        ``<atom>_ci_high``."""
        import pandas as pd

        nm = np.asarray(self.names, dtype=object)
        cols: dict[str, Any] = {
            "source_i": nm[self.pairs[:, 0]],
            "source_j": nm[self.pairs[:, 1]],
        }
        for k in (*_ATOMS, "mutual_info", "co_information"):
            cols[k] = self.values[k]
        cols["unit"] = self.unit
        if self.intervals is not None:
            for k in _ATOMS:
                cols[f"{k}_ci_low"] = self.intervals[k][:, 0]
                cols[f"{k}_ci_high"] = self.intervals[k][:, 1]
        return pd.DataFrame(cols)

    def matrix(self, quantity: str = "synergy") -> np.ndarray:
        """(d, d) matrix of one quantity, NaN on the diagonal.

        ``redundancy``, ``synergy``, ``mutual_info``, ``co_information`` and
        ``synergy_minus_redundancy`` are symmetric; ``unique``: entry [i, j] is the
        unique information of source i in the pair (i, j).
        """
        quantity = check_choice(
            quantity,
            "quantity",
            ("redundancy", "unique", "synergy", "mutual_info", "co_information")
            + ("synergy_minus_redundancy",),
        )
        d = len(self.names)
        out = np.full((d, d), np.nan)
        i, j = self.pairs[:, 0], self.pairs[:, 1]
        if quantity == "unique":
            out[i, j] = self.values["unique_i"]
            out[j, i] = self.values["unique_j"]
            return out
        if quantity == "synergy_minus_redundancy":
            v = self.values["synergy"] - self.values["redundancy"]
        else:
            v = self.values[quantity]
        out[i, j] = v
        out[j, i] = v
        return out

    def plot(self, ax=None, path=None):
        """Heat map of synergy − redundancy (frites' interaction information) of every
        pair: red where the pair is synergistic about the target, blue where redundant."""
        from infometer.core.plot import finish, new_axes

        d = len(self.names)
        _, ax = new_axes(ax, figsize=(6.0, 5.0))
        mat = self.matrix("synergy_minus_redundancy")
        lim = float(np.nanmax(np.abs(mat))) if np.isfinite(mat).any() else 1.0
        import matplotlib as mpl

        # the diagonal and singular pairs: grey, not "zero"
        cmap = mpl.colormaps["RdBu_r"].with_extremes(bad="0.85")
        im = ax.imshow(np.ma.masked_invalid(mat), cmap=cmap, vmin=-lim, vmax=lim)
        fs = 7 if d <= 40 else 5
        if d <= 60:
            ax.set_xticks(range(d), self.names, rotation=90, fontsize=fs)
            ax.set_yticks(range(d), self.names, fontsize=fs)
        ax.figure.colorbar(im, ax=ax, label=f"synergy − redundancy ({self.unit})")
        ax.set_title(
            f"{self.measure.upper()} PID of every pair about {self.target} "
            f"({self.method}, n={self.n})",
            fontsize=10,
        )
        return finish(ax, path)


# ------------------------------------------------------------------------ public
@validate_params(
    {
        "measure": [Options(*_ALL_MEASURES)],
        "method": [Options(*METHODS)],
        "progress": [Flag(), None],
        "bias_correct": [Flag(), None],
        "discrete": [Flag(), None],
        "max_pairs": [Interval(numbers.Integral, 1)],
    }
)
def pid_pairs(
    X: Any,
    target: Any,
    *,
    measure: str = "mmi",
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    progress: bool | None = None,
    bias_correct: bool | None = None,
    discrete: bool | None = None,
    max_pairs: int = MAX_PAIRS,
) -> PairPIDResult:
    """Two-source PID (redundancy, unique, synergy) and co-information of every pair of
    columns of ``X`` with ``target``: from one scatter matrix (continuous data) or from
    the counts of each pair's joint symbols (discrete data).

    Parameters
    ----------
    X
        Samples, one column per source (array or DataFrame), at least 2.
    target
        Samples of the target (rows paired with ``X``); one column, or several
        for ``measure="mmi"`` (joint symbols when discrete).
    measure
        ``mmi`` (minimum mutual information, as frites' ``conn_pid``) or ``broja``
        (for a scalar continuous target the Gaussian BROJA PID is the MMI PID, Barrett
        2015); for discrete data also ``imin``, ``ccs``, ``dep`` and ``isx`` (each pair's
        PID of its empirical pmf, as ``im.pid(method="plugin")``).
    method
        ``auto`` (default): every column discrete (integers, booleans, strings,
        categoricals, or ``discrete=True``) → ``miller_madow`` for ``mmi``, ``plugin`` for
        the other measures; every column continuous → ``gaussian_copula``; a table mixing
        the two, or float columns with few distinct values (e.g. 0.0/1.0), is refused
        with the choices named (a Gaussian reading of bits misses their synergy).
        ``gaussian_copula`` (normal scores of each column's ranks, as frites'
        ``gcrn=True``) and ``gaussian`` read the columns as numbers; ``plugin`` (the PID
        of each pair's empirical pmf) and ``miller_madow`` (``mmi`` from Miller-Madow
        corrected mutual informations) read them as symbols.
    unit, base, progress
        The usual.
    seed
        Drives the bootstrap of ``ci=``. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    ci
        Confidence level of each atom's bootstrap interval: the shared resampling of
        ``im.pid(..., ci=...)`` run per pair (``method="gaussian"`` on the normal scores
        for the copula, ``method="plugin"`` for symbols: intervals of a bias-corrected
        value are centred on the plug-in, as everywhere), so it costs 4 x 200 re-runs per
        pair (budget :data:`MAX_CI_RERUNS`).
    bias_correct
        For ``gaussian`` / ``gaussian_copula``: Wishart-unbiased log-determinants
        (``None``: True, the default of ``im.pid(method="gaussian")``).  The discrete
        methods say their correction by name; passing it with them is an error.
    discrete
        ``True``: every column is symbols; ``False``: numbers; ``None``: by dtype.
    max_pairs
        Refuse more pairs (d (d − 1) / 2), checked before anything is allocated.

    Returns
    -------
    PairPIDResult
        ``diagnostics["auto_reason"]`` says which reading ``auto`` chose and why.

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(2000, 4)); y = x[:, 0] + x[:, 1] + 0.5 * rng.normal(size=2000)
    >>> r = im.pid_pairs(x, y, method="gaussian")
    >>> f = r.to_frame()
    >>> f.iloc[0][["source_i", "source_j"]].tolist()
    ['x0', 'x1']
    >>> bool(f.iloc[0]["synergy"] > 0.5 > abs(f.iloc[5]["synergy"]))
    True

    Bits: XOR is all synergy (1 bit), read from the counts.

    >>> b = rng.integers(0, 2, size=(4000, 2))
    >>> r = im.pid_pairs(b, b[:, 0] ^ b[:, 1], unit="bits")
    >>> r.method, round(float(r.values["synergy"][0]), 2)
    ('miller_madow', 1.0)
    """
    from infometer.core.data import as_variable, check_same_length
    from infometer.core.estimate import Estimate, resolve_unit
    from infometer.core.progress import check_progress

    from ._reading import table_reading
    from .measures import split_variables

    method = check_choice(method, "method", METHODS)
    measure = check_choice(measure, "measure", _ALL_MEASURES)
    max_pairs = check_int(max_pairs, "max_pairs", min_value=1)
    progress = check_progress(progress)
    if bias_correct is not None and not isinstance(bias_correct, bool):
        raise TypeError(f"bias_correct must be True, False or None, got {bias_correct!r}")
    u = resolve_unit(unit, base)
    vs = split_variables(X, discrete=discrete)
    if any(v.d != 1 for v in vs.values()):
        raise ValueError("X for pid_pairs must have one column per source")
    names = tuple(vs)
    d = len(names)
    count = comb(d, 2)
    check_budget(
        count,
        name="X",
        limit=max_pairs,
        what=f"pairs of {d} sources",
        override="pass max_pairs=... to allow more, or fewer columns",
    )
    # per pair: 6 float64 values, 2 indices, ~2 more vectors while the atoms are formed
    check_memory(count * 8 * 10, what=f"the values of {count} pairs", name="X")
    tname = "target"
    while tname in vs:
        tname = "_" + tname
    tv = as_variable(target, tname, discrete=discrete)
    check_same_length(*vs.values(), tv)
    diag: dict = {}
    if method == "auto":
        reading, diag["auto_reason"] = table_reading(
            {**vs, tname: tv},
            what="pid_pairs",
            discrete_use=(
                "each pair's PID from the counts of its joint symbols"
                + (", Miller-Madow mutual informations" if measure == "mmi" else "")
            ),
            continuous_use="method='gaussian_copula'",
        )
        if reading == "discrete":
            method = "miller_madow" if measure == "mmi" else "plugin"
        else:
            method = "gaussian_copula"
    ci_level = _check_ci(ci, count)
    if method in DISCRETE_METHODS:
        if bias_correct is not None:
            raise ValueError(
                f"bias_correct is for the Gaussian methods; method {method!r} reads symbols "
                "(plugin: the empirical pmf's PID; miller_madow: mmi from Miller-Madow "
                "corrected mutual informations)"
            )
        if method == "miller_madow" and measure != "mmi":
            raise ValueError(
                f"method 'miller_madow' corrects mutual informations, which only measure "
                f"'mmi' is made of; for {measure!r} use method='plugin' (the PID of each "
                "pair's empirical pmf)"
            )
        bad = [nm for nm, v in {**vs, tname: tv}.items() if v.kind != "discrete"]
        if bad:
            raise ValueError(
                f"method {method!r} reads symbols but {bad} are continuous; pass "
                "discrete=True to treat the numbers as symbols, or a Gaussian method"
            )
        vals, single, intervals, more = _discrete_pairs(
            vs, tv, measure, method, ci_level, seed, progress
        )
        diag.update(more)
        n = tv.n
    else:
        if measure not in MEASURES:
            raise ValueError(
                f"measure {measure!r} is not defined for continuous data here; use 'mmi' or "
                "'broja' (Gaussian), or discrete=True for the PID of the symbols"
            )
        if discrete is True:
            raise ValueError(
                f"method {method!r} reads numbers but discrete=True was passed; use "
                "method='auto' or 'plugin' for symbols"
            )
        if any(v.kind != "continuous" for v in (*vs.values(), tv)):
            # the Gaussian reading of integer columns, asked for by name
            vs = split_variables(X, discrete=False)
            tv = as_variable(target, tname, discrete=False)
        bc = True if bias_correct is None else bias_correct
        vals, single, intervals, more = _gaussian_pairs(
            vs, tv, tname, measure, method, bc, ci_level, seed, progress
        )
        diag.update(more)
        n = tv.n
    factor = Estimate(value=1.0, unit="nats").to(u).value
    vals = {k: v * factor for k, v in vals.items()}
    if intervals is not None:
        intervals = {k: v * factor for k, v in intervals.items()}
    pairs = np.column_stack(np.triu_indices(d, 1)).astype(np.intp)
    return PairPIDResult(
        names=names,
        target=_target_name(target, tname),
        measure=measure,
        method=method,
        unit=u,
        n=n,
        pairs=pairs,
        values=vals,
        single=single * factor,
        intervals=intervals,
        ci_level=ci_level,
        diagnostics=diag,
    )


def _check_ci(ci: Any, count: int) -> float | None:
    if ci is None:
        return None
    from infometer.core.validation import check_float

    level = check_float(ci, "ci")
    if not 0.0 < level < 1.0:
        raise ValueError(f"ci must be in (0, 1), got {ci!r}")
    check_budget(
        count * 4 * 200,
        name="ci",
        limit=MAX_CI_RERUNS,
        what=f"bootstrap re-runs ({count} pairs x 4 atoms x 200)",
        override="pass ci=None for the values alone, or fewer columns",
    )
    return level


def _identities(vals: dict, single_i, joint, diag: dict) -> None:
    """The PID identities, checked as im.pid checks them."""
    ok = np.isfinite(joint)
    if ok.any():
        s = (vals["redundancy"] + vals["unique_i"] + vals["unique_j"] + vals["synergy"])[ok]
        diag["identities"] = {
            "max_sum_atoms_minus_mi": float(np.abs(s - joint[ok]).max()),
            "max_below_i_minus_mi": float(
                np.abs(vals["redundancy"] + vals["unique_i"] - single_i)[ok].max()
            ),
        }


def _gaussian_pairs(vs, tv, tname, measure, method, bias_correct, ci_level, seed, progress):
    from infometer.core.progress import progress_bar

    from .estimators import gaussian_scores, scatter_of

    names = tuple(vs)
    d = len(names)
    count = comb(d, 2)
    if tv.kind != "continuous":
        raise ValueError(f"target must be continuous for method {method!r}, got {tv.kind}")
    if measure == "broja" and tv.d > 1:
        raise ValueError(
            f"measure 'broja' of a {tv.d}-column target is not the MMI PID; use "
            "im.pid(..., measure='broja') per pair (the optimised Gaussian BROJA PID) or "
            "measure='mmi'"
        )
    cols = [v.columns[0].astype(np.float64, copy=False) for v in vs.values()]
    const = [nm for nm, c in zip(names, cols, strict=True) if c.min() == c.max()]
    if const:
        raise ValueError(f"X has constant columns {const}: drop them (no information)")
    tcols = [c.astype(np.float64, copy=False) for c in tv.columns]
    if any(c.min() == c.max() for c in tcols):
        raise ValueError("target has a constant column: there is no information to decompose")
    n = tv.n
    if n < 2 + tv.d + 2:
        raise ValueError(f"X has {n} rows; a pair and the target need at least {tv.d + 4}")
    scores, ties = gaussian_scores([*cols, *tcols], method == "gaussian_copula")
    w = scatter_of(scores)
    tidx = np.arange(d, d + tv.d, dtype=np.intp)
    pairs = np.column_stack(np.triu_indices(d, 1)).astype(np.intp)  # combinations order
    with progress_bar(total=count, desc="pairs", unit="pair", progress=progress) as bar:
        single, joint = pair_mutual_info(w, n, tidx, pairs, bias_correct, bar=bar)
    single = single[:d]
    i_i, i_j = single[pairs[:, 0]], single[pairs[:, 1]]
    vals = mmi_atoms(i_i, i_j, joint)
    vals["mutual_info"] = joint
    vals["co_information"] = (i_i + i_j) - joint
    diag: dict = {"bias_correct": bias_correct, "pairs": int(count)}
    if ties:
        diag["tied_values"] = int(ties)
    bad = ~np.isfinite(joint)
    if bad.any() or not np.isfinite(single).all():
        diag["singular_pairs"] = int(bad.sum())
        warn_user(
            f"{int(bad.sum())} of {count} pairs of X have a singular covariance with "
            f"{tname} (collinear or duplicated columns): their values are NaN",
            _warning_class(),
        )
    _identities(vals, i_i, joint, diag)
    if measure == "broja":
        diag["broja"] = "scalar target: the Gaussian BROJA PID is the MMI PID (Barrett 2015)"
    intervals = None
    if ci_level is not None:
        intervals = _intervals(
            scores, scores[:, tidx], pairs, measure, "gaussian", ci_level, seed, progress
        )
        diag["ci_method"] = (
            "im.pid(method='gaussian', ci=...) per pair: the shared bootstrap of each atom"
            + (
                " on the normal scores (ranks not recomputed per resample)"
                if method == "gaussian_copula"
                else ""
            )
        )
    return vals, single, intervals, diag


def _discrete_pairs(vs, tv, measure, method, ci_level, seed, progress):
    """Every pair's PID from counts: ``mmi`` from the block entropies of all pairs at
    once (:func:`.kernels.codes_block_entropies`), other measures from each pair's
    empirical pmf (:func:`._pid.decompose`, as ``im.pid(method="plugin")``)."""
    from infometer.core.progress import progress_bar

    from .decomposition import MAX_TABLE_CELLS
    from .kernels import codes_block_entropies

    d = len(vs)
    count = comb(d, 2)
    n = tv.n
    codes = [np.unique(v.codes, return_inverse=True)[1].reshape(-1) for v in vs.values()]
    tcode = np.unique(tv.codes, return_inverse=True)[1].reshape(-1)
    cards = np.array([int(c.max()) + 1 for c in [*codes, tcode]], dtype=np.int64)
    big = np.sort(cards[:d])[-2:].prod() * cards[d]
    check_budget(
        float(big),
        name="X",
        limit=MAX_TABLE_CELLS,
        what="cells of the joint table of a pair of sources and the target",
    )
    c = np.column_stack([*codes, tcode]).astype(np.int64)
    pairs = np.column_stack(np.triu_indices(d, 1)).astype(np.intp)
    mm = method == "miller_madow"
    diag: dict = {"pairs": int(count), "bias_correct": "miller_madow" if mm else False}
    t = np.full((d, 1), d, dtype=np.intp)
    ks = np.arange(d, dtype=np.intp)[:, None]
    h_t = float(codes_block_entropies(c, cards, np.array([[d]]), mm)[0])
    single = (
        codes_block_entropies(c, cards, ks, mm)
        + h_t
        - codes_block_entropies(c, cards, np.hstack([ks, t]), mm)
    )
    if measure == "mmi":
        joint = np.empty(count)
        chunk = max(1, (32 * 2**20) // (8 * 3 * n))
        with progress_bar(total=count, desc="pairs", unit="pair", progress=progress) as bar:
            for a in range(0, count, chunk):
                blk = pairs[a : a + chunk]
                tt = np.full((blk.shape[0], 1), d, dtype=np.intp)
                joint[a : a + blk.shape[0]] = (
                    codes_block_entropies(c, cards, blk, mm)
                    + h_t
                    - codes_block_entropies(c, cards, np.hstack([blk, tt]), mm)
                )
                bar.update(blk.shape[0])
        i_i, i_j = single[pairs[:, 0]], single[pairs[:, 1]]
        vals = mmi_atoms(i_i, i_j, joint)
    else:
        from . import _pid

        vals = {k: np.empty(count) for k in _ATOMS}
        joint = np.empty(count)
        notes: list[str] = []
        with progress_bar(total=count, desc="pairs", unit="pair", progress=progress) as bar:
            for p, (i, j) in enumerate(pairs):
                shape = (int(cards[i]), int(cards[j]), int(cards[d]))
                tab = np.zeros(shape)
                np.add.at(tab, (c[:, i], c[:, j], c[:, d]), 1.0)
                atoms, dg = _pid.decompose(tab / n, measure)
                notes += dg.get("notes", [])
                for k, v in zip(_ATOMS, atoms.values(), strict=True):
                    vals[k][p] = v
                joint[p] = sum(atoms.values())
                bar.update(1)
        for note in dict.fromkeys(notes):
            warn_user(note, _warning_class())
        i_i, i_j = single[pairs[:, 0]], single[pairs[:, 1]]
    vals["mutual_info"] = joint
    vals["co_information"] = (i_i + i_j) - joint
    _identities(vals, i_i, joint, diag)
    cells = float(np.sort(cards[:d])[-2:].prod() * cards[d])
    diag["min_samples_per_cell"] = n / cells
    if n / cells < 5:
        warn_user(
            f"{n} rows for up to {int(cells)} joint symbols of a pair of X's columns and the "
            "target (< 5 per symbol): the plug-in mutual informations of those pairs are "
            "biased upward, and the atoms with them",
            _warning_class(),
        )
    intervals = None
    if ci_level is not None:
        intervals = _intervals(c, c[:, d], pairs, measure, "plugin", ci_level, seed, progress)
        diag["ci_method"] = (
            "im.pid(method='plugin', ci=...) per pair: the shared bootstrap of each atom"
            + (" (centred on the plug-in value)" if mm else "")
        )
    return vals, single, intervals, diag


def _target_name(target: Any, default: str) -> str:
    name = getattr(target, "name", None)  # a pandas Series keeps its column name
    return name if isinstance(name, str) and name else default


def _warning_class():
    from infometer.core.data import InfometerWarning

    return InfometerWarning


def _intervals(src, tgt, pairs, measure, method, level, seed, progress) -> dict:
    """Each atom's bootstrap interval through ``im.pid`` (the shared resampling) on the
    columns ``src[:, [i, j]]`` of every pair and the target ``tgt``: ``method="gaussian"``
    on (normal scores of) numbers, ``"plugin"`` on symbols."""
    from infometer.core.progress import progress_bar

    from .decomposition import pid

    keys = {"{0}{1}": "redundancy", "{0}": "unique_i", "{1}": "unique_j", "{01}": "synergy"}
    out = {k: np.full((pairs.shape[0], 2), np.nan) for k in keys.values()}
    seed = resolve_seed(seed)  # every pair's intervals from the same root
    tgt = tgt[:, 0] if tgt.ndim == 2 and tgt.shape[1] == 1 else tgt
    with progress_bar(
        total=pairs.shape[0], desc="pair intervals", unit="pair", progress=progress
    ) as bar:
        for p, (i, j) in enumerate(pairs):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = pid(
                    src[:, [i, j]],
                    tgt,
                    measure=measure,
                    method=method,
                    ci=level,
                    seed=seed,
                    discrete=method == "plugin",
                )
            for lab, e in zip(r.labels, r.atoms, strict=True):
                out[keys[lab]][p] = e.ci
            bar.update(1)
    return out
