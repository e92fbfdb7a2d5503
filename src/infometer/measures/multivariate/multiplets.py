"""Higher-order search: a quantity of every multiplet of variables, ranked, with
significance from surrogates shared by all multiplets.

The Gaussian and Gaussian-copula estimators need only the scatter matrix of all columns:
the entropy of a multiplet is the log-determinant of its block, and every quantity is a
signed sum of the entropies of subsets of the multiplet, so each distinct subset's entropy
is computed once for the whole sweep (:mod:`._subsets`): every k-subset's log-determinant
from its (k-1)-prefix's Cholesky factor by one forward substitution, all subsets of a size
at once (:func:`.kernels.gaussian_tree_entropies`; no Python loop per multiplet, no pass
over the rows per multiplet), then gathered for each multiplet by the subsets' ranks.
Surrogates permute every column independently (all dependence destroyed, the marginals
kept); the same surrogates serve every multiplet, which also gives a family-wise
(max-statistic) p-value.

Discrete columns are read as symbols (``method="auto"``: Miller-Madow): each multiplet's
entropies come from the sorted joint codes of all its rows, a chunk of multiplets at once
(:func:`.kernels.codes_block_entropies`), through the same chunks, surrogates, searches and
store as the Gaussian path (:class:`._search.Counts` stands where the scatter matrix does).
"""

from __future__ import annotations

import contextlib
import numbers
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations, islice
from math import comb
from typing import Any

import numpy as np

from infometer.core.parallel import Execution
from infometer.core.results import Result
from infometer.core.seeding import Seed, as_generator, resolve_seed
from infometer.core.validation import (
    Flag,
    Instance,
    Interval,
    Options,
    Pair,
    Size,
    check_budget,
    check_choice,
    check_int,
    validate_params,
)
from infometer.measures.stats import nulls
from infometer.measures.stats.correction import CORRECTIONS

from . import _search
from ._search import (
    OBJECTIVES,
    beam_search,
    chunk_stats,
    multiplet_values,
    search_cost,
    subset_entropies,
)
from ._subsets import lex_combinations

__all__ = ["multiplets", "MultipletResult", "MEASURES", "METHODS", "multiplet_values"]

MEASURES = (
    "o_information",
    "total_correlation",
    "dual_total_correlation",
    "s_information",
    "co_information",
)
METHODS = ("auto", "gaussian_copula", "gaussian", "plugin", "miller_madow")
DISCRETE_METHODS = ("plugin", "miller_madow")
#: Default most multiplets evaluated (each size's values are (count,) float64 arrays).
MAX_MULTIPLETS = 20_000_000
#: Bytes of block matrices built at once (multiplets x surrogates x size²).
CHUNK_BYTES = 32 * 2**20
#: The search strategies.
SEARCHES = ("exhaustive", "greedy", "beam")


def _chunks(d: int, s: int, size: int) -> Iterator[np.ndarray]:
    if comb(d, s) <= size:  # one chunk: built by columns, not from the iterator
        yield lex_combinations(d, s)
        return
    it = combinations(range(d), s)
    while True:
        block = list(islice(it, size))
        if not block:
            return
        yield np.array(block, dtype=np.intp).reshape(len(block), s)


@dataclass(frozen=True, eq=False, repr=False)
class MultipletResult(Result):
    """Every multiplet's estimate, ranked.

    Attributes
    ----------
    frame
        DataFrame sorted by ``|value|`` (the most redundant and most synergistic first):
        ``multiplet`` (tuple of names), ``size``, ``value``, ``unit``, and with surrogates
        ``p_value`` (per multiplet), ``p_fwer`` (max-statistic over all multiplets of the
        same size), ``p_corrected`` (by ``correction``) and ``significant``
        (``p_corrected ≤ alpha``).
    measure, method, unit, n, n_permutations, names, correction, alpha
        What was computed.
    """

    frame: Any
    measure: str
    method: str
    unit: str
    n: int
    n_permutations: int
    names: tuple[str, ...]
    diagnostics: dict = field(default_factory=dict, compare=False)
    correction: str = "fwer"
    alpha: float = 0.05

    def to_frame(self):
        """The ranked DataFrame."""
        return self.frame.copy()

    def top(self, k: int = 10):
        """The ``k`` lowest (most synergistic for O-information) and ``k`` highest rows."""
        f = self.frame.sort_values("value")
        return {
            "lowest": f.head(k).reset_index(drop=True),
            "highest": f.tail(k)[::-1].reset_index(drop=True),
        }

    def pair_matrix(self) -> np.ndarray:
        """Mean value of the multiplets that contain each pair of variables (d, d)."""
        d = len(self.names)
        tot = np.zeros((d, d))
        cnt = np.zeros((d, d))
        pos = {nm: i for i, nm in enumerate(self.names)}
        for mult, v in zip(self.frame["multiplet"], self.frame["value"], strict=True):
            ii = [pos[m] for m in mult]
            for a in ii:
                for b in ii:
                    if a != b:
                        tot[a, b] += v
                        cnt[a, b] += 1
        with np.errstate(invalid="ignore"):
            return np.where(cnt > 0, tot / np.where(cnt > 0, cnt, 1), np.nan)

    def plot(self, ax=None, path=None, *, kind: str = "bars", top: int = 20):
        """``kind="bars"``: the ``top`` multiplets by |value| (red < 0, blue > 0, both in
        the legend; with permutations a dot marks the significant ones, and the legend names
        the null, mutual independence: a small value can be far from that null and still be
        small); ``"pairs"``: heat map of :meth:`pair_matrix`."""
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        from infometer.core.plot import finish, new_axes

        kind = check_choice(kind, "kind", ("bars", "pairs"))
        if kind == "pairs":
            _, ax = new_axes(ax, figsize=(6.5, 5.5))
            mat = self.pair_matrix()
            lim = float(np.nanmax(np.abs(mat))) if np.isfinite(mat).any() else 1.0
            im = ax.imshow(mat, cmap="RdBu", vmin=-lim, vmax=lim)  # red < 0, as the bars
            ax.set_xticks(range(len(self.names)), self.names, rotation=90, fontsize=9)
            ax.set_yticks(range(len(self.names)), self.names, fontsize=9)
            ax.figure.colorbar(im, ax=ax, label=f"mean {self.measure} ({self.unit})")
            ax.set_title(f"{self.measure}: mean over multiplets holding each pair", fontsize=11)
            return finish(ax, path)
        f = self.frame.head(top)
        _, ax = new_axes(ax, figsize=(7.5, max(3.0, 0.32 * len(f) + 1.8)))
        y = np.arange(len(f))[::-1]
        vals = f["value"].to_numpy()
        ax.barh(y, vals, color=np.where(vals < 0, "tab:red", "tab:blue"))
        ax.set_yticks(y, [",".join(map(str, m)) for m in f["multiplet"]], fontsize=9)
        signs = {"o_information": ("synergy-dominated", "redundancy-dominated")}
        below, above = signs.get(self.measure, ("", ""))
        handles = [
            Patch(color="tab:red", label=f"< 0 {below}".strip()),
            Patch(color="tab:blue", label=f"> 0 {above}".strip()),
        ]
        if "significant" in f:
            sig = f["significant"].to_numpy(dtype=bool)
            ax.plot(vals[sig], y[sig], "k.", ms=8)
            handles.append(
                Line2D(
                    [],
                    [],
                    color="k",
                    marker=".",
                    ms=8,
                    ls="none",
                    label=f"significant against mutual independence\n({self.correction} "
                    f"{self.alpha:g}, {self.n_permutations} permutations)",
                )
            )
        # the bars shrink down the list (sorted by |value|): the lower right stays free
        ax.legend(handles=handles, loc="lower right", fontsize=9, framealpha=0.9)
        ax.axvline(0, color="k", lw=0.8)
        ax.set_xlabel(f"{self.measure} ({self.unit})", fontsize=10)
        ax.set_title(
            f"top {len(f)} multiplets by |{self.measure}| ({self.method}, n={self.n})", fontsize=11
        )
        return finish(ax, path)


def _sizes(sizes: Any, d: int) -> tuple[int, int]:
    if isinstance(sizes, int | np.integer) and not isinstance(sizes, bool):
        lo = hi = int(sizes)
    else:
        try:
            lo, hi = (int(check_int(s, "sizes")) for s in sizes)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"sizes must be an int or a pair (smallest, largest), got {sizes!r}"
            ) from exc
    if not 3 <= lo <= hi:
        raise ValueError(f"sizes must satisfy 3 <= smallest <= largest, got {(lo, hi)}")
    if hi > d:
        raise ValueError(f"sizes asks for multiplets of {hi} variables but X has {d} columns")
    return lo, hi


#: Most permuted data sets (each one permutation of every column and one scatter matrix).
MAX_PERMUTED_SETS = 1_000_000


@validate_params(
    {
        "measure": [Options(*MEASURES)],
        "sizes": [Interval(numbers.Integral, 3), Pair(Interval(numbers.Integral, 3))],
        "method": [Options(*METHODS)],
        "n_permutations": [Size(0, limit=MAX_PERMUTED_SETS, what="permuted data sets")],
        "correction": [Options(*CORRECTIONS)],
        "alpha": [Interval(numbers.Real, 0, 1, closed="right")],
        "progress": [Flag(), None],
        "bias_correct": [Flag(), None],
        "discrete": [Flag(), None],
        "max_multiplets": [Interval(numbers.Integral, 1)],
        "search": [Options(*SEARCHES)],
        "beam_width": [Interval(numbers.Integral, 1)],
        "objective": [Options(*OBJECTIVES)],
        "store": [Instance(str, os.PathLike, what="a folder path (str or os.PathLike)"), None],
    }
)
def multiplets(
    X: Any,
    *,
    measure: str = "o_information",
    sizes: int | tuple[int, int] = (3, 3),
    method: str = "auto",
    n_permutations: int = 0,
    correction: str = "fwer",
    alpha: float = 0.05,
    unit: str | None = "nats",
    base: float | None = None,
    seed: Seed = 0,
    progress: bool | None = None,
    bias_correct: bool | None = None,
    discrete: bool | None = None,
    max_multiplets: int = MAX_MULTIPLETS,
    search: str = "exhaustive",
    beam_width: int = 10,
    objective: str = "synergy",
    n_jobs: int = 1,
    client: Any = None,
    store: str | os.PathLike | None = None,
    execution: Execution | None = None,
) -> MultipletResult:
    """``measure`` of every multiplet of ``sizes`` variables of ``X`` (or of the best ones
    a greedy/beam search finds), ranked.

    Parameters
    ----------
    X
        Samples, one column per variable (array or DataFrame).
    measure
        ``o_information`` (default), ``total_correlation``, ``dual_total_correlation``,
        ``s_information`` or ``co_information``.
    sizes
        One size, or ``(smallest, largest)`` inclusive (at least 3).
    method
        ``auto`` (default): every column discrete (integers, booleans, strings,
        categoricals, or ``discrete=True``) → ``miller_madow``; every column continuous →
        ``gaussian_copula`` (as hoi's ``gc``); a table mixing the two kinds, or float
        columns with few distinct values (e.g. 0.0/1.0), is refused naming the choices.
        ``gaussian_copula`` and ``gaussian`` read numbers (log-determinants of one scatter
        matrix); ``plugin`` and ``miller_madow`` read symbols (entropies of the joint
        symbols of each multiplet, the values of ``im.o_information(X[:, cols],
        method=...)``).
    n_permutations
        Surrogate data sets (each column permuted independently, the same surrogates for
        every multiplet); 0: no p-values.
    correction
        Multiple-testing correction behind ``p_corrected`` and ``significant`` (the one
        policy of :mod:`infometer.measures.stats.correction`): ``"fwer"`` (default: the
        max-statistic within each size, ``p_fwer``, times the number of sizes: P(any
        multiplet significant on null data) ≤ ``alpha``), ``"fdr_bh"`` / ``"fdr_by"``
        (over every multiplet of an exhaustive sweep) or ``"none"`` (``p_value``).
    alpha
        Level of the ``significant`` column.
    unit, base, seed, progress
        The usual; ``seed`` drives the surrogates.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    bias_correct
        Wishart-unbiased log-determinants of the Gaussian methods (``None``: True); the
        discrete methods say their correction by name (passing it is an error).
    discrete
        ``True``: every column is symbols; ``False``: numbers; ``None``: by dtype.
    max_multiplets
        Refuse a search with more multiplets (checked before anything is allocated).
    search
        ``"exhaustive"`` (every multiplet), ``"greedy"`` (the best triplet, grown one
        variable at a time by the variable that most improves ``objective``) or
        ``"beam"`` (the ``beam_width`` best multiplets of each size are all grown).
    beam_width
        Multiplets kept per size by ``"beam"`` (``"greedy"`` is width 1).
    objective
        What the greedy/beam search seeks: ``"synergy"`` (the lowest values: the most
        negative O-information) or ``"redundancy"`` (the highest); ``"min"``/``"max"``
        say the same for any measure.
    n_jobs, client, store
        Run the chunks of an exhaustive sweep (a greedy/beam search: its searches of the
        surrogates, one job each) on ``n_jobs`` local processes, or on a Dask ``client``
        (a ``distributed.Client`` or an address), through
        :func:`infometer.core.parallel.run_jobs`; ``store`` (exhaustive only): a folder
        keeping every finished chunk, so an interrupted sweep resumes where it stopped.
        The values and p-values are bit for bit those of the in-process run.
    execution
        The same as an :class:`infometer.Execution` (``n_jobs``, ``scheduler``, ``store``),
        the execution object :func:`infometer.pairwise`, :func:`infometer.infer_network`
        and ``bench`` take; ``n_jobs=``, ``client=`` and ``store=`` are its shorthands (one
        of them beside ``execution=`` is a ``TypeError``).

    Returns
    -------
    MultipletResult

    Notes
    -----
    The surrogate p-values test the null that the variables of a multiplet are mutually
    independent (what permuting each column preserves: the marginals), not that the
    measure is 0: a multiplet with pairwise dependence only can be "significant" with
    Ω ≈ 0.  For an interval on one multiplet's value use e.g.
    ``im.o_information(X[:, cols], method="gaussian_copula", ci=0.95)``; for one
    multiplet's test :func:`infometer.multivariate_test`.

    After a greedy/beam search, ``p_value`` is one-sided in the direction of
    ``objective`` and ``p_fwer`` is adjusted for the search itself: the same search is
    run on every surrogate, and its best value of each size is the null of the best.
    Either way ``p_fwer`` controls the family-wise error within one size (on null data
    "some multiplet of that size has ``p_fwer`` <= α" has probability <= α; tested for
    the exhaustive, greedy and beam searches); over several sizes divide α by their count.

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(500, 5)); x[:, 1] += x[:, 0]; x[:, 2] += x[:, 0]
    >>> r = im.multiplets(x, sizes=3)
    >>> r.frame.iloc[0]["multiplet"]  # the redundant triplet on top
    ('x0', 'x1', 'x2')
    >>> g = im.multiplets(x, sizes=(3, 4), search="greedy", objective="redundancy")
    >>> g.frame["multiplet"].tolist()  # the best of each size, best first
    [('x0', 'x1', 'x2', 'x3'), ('x0', 'x1', 'x2')]
    """
    from infometer.core.estimate import Estimate, resolve_unit
    from infometer.core.progress import check_progress

    from .measures import split_variables

    ex = Execution.from_keywords(
        execution,
        "multiplets",
        {"n_jobs": 1},
        n_jobs=("n_jobs", n_jobs, 1),
        client=("scheduler", client, None),
        store=("store", store, None),
    )
    store = ex.store
    n_permutations = nulls.check_n_permutations(n_permutations, min_value=0)
    from infometer.measures.stats.correction import check_alpha, check_correction

    correction = check_correction(correction)
    alpha = check_alpha(alpha)
    if search != "exhaustive" and correction in ("fdr_bh", "fdr_by"):
        raise ValueError(
            f"correction={correction!r} adjusts the p-values of every multiplet tested, "
            f"but a {search} search tests only the ones it found (their p_value ignores "
            "the search); use correction='fwer' (the same search on every permuted data "
            "set) or search='exhaustive'"
        )
    max_multiplets = check_int(max_multiplets, "max_multiplets", min_value=1)
    progress = check_progress(progress)
    seed = resolve_seed(seed)  # one root: the surrogates of every chunk and search
    if store is not None and not isinstance(store, str | os.PathLike):
        raise TypeError(
            f"store must be a folder path (str or os.PathLike), got {type(store).__name__}"
        )
    if bias_correct is not None and not isinstance(bias_correct, bool):
        raise TypeError(f"bias_correct must be True, False or None, got {bias_correct!r}")
    parallel = ex.workers > 1 or ex.scheduler is not None or store is not None
    if search != "exhaustive" and store is not None:
        raise ValueError(
            f"store is for search='exhaustive'; a {search} search keeps no chunks to "
            "resume (n_jobs=/client= spread its surrogate searches)"
        )
    u = resolve_unit(unit, base)
    vs = split_variables(X, discrete=discrete)
    if any(v.d != 1 for v in vs.values()):
        raise ValueError("X for multiplets must have one column per variable")
    auto_reason = None
    if method == "auto":
        from ._reading import table_reading

        reading, auto_reason = table_reading(
            vs,
            what="multiplets",
            discrete_use="method='miller_madow', entropies of the joint symbols",
            continuous_use="method='gaussian_copula'",
        )
        method = "miller_madow" if reading == "discrete" else "gaussian_copula"
    symbols = method in DISCRETE_METHODS
    if symbols:
        if bias_correct is not None:
            raise ValueError(
                f"bias_correct is for the Gaussian methods; method {method!r} reads symbols "
                "(plugin or miller_madow say the correction by name)"
            )
        bad = [nm for nm, v in vs.items() if v.kind != "discrete"]
        if bad:
            raise ValueError(
                f"method {method!r} reads symbols but {bad[:6]} are continuous; pass "
                "discrete=True to treat the numbers as symbols, or a Gaussian method"
            )
    else:
        if discrete is True:
            raise ValueError(
                f"method {method!r} reads numbers but discrete=True was passed; use "
                "method='auto', 'plugin' or 'miller_madow' for symbols"
            )
        if any(v.kind != "continuous" for v in vs.values()):
            vs = split_variables(X, discrete=False)  # numbers, asked for by name
        bias_correct = True if bias_correct is None else bias_correct
    names = tuple(vs)
    d = len(names)
    lo, hi = _sizes(sizes, d)
    width = 1 if search == "greedy" else beam_width
    if search == "exhaustive":
        count = sum(comb(d, s) for s in range(lo, hi + 1))
        check_budget(
            count,
            name="sizes",
            limit=max_multiplets,
            what=f"multiplets of {d} variables",
            override=(
                "pass max_multiplets=... to allow more, search='greedy' or "
                "search='beam' (beam_width=...) to grow the best triplets instead, or "
                "n_jobs=/client= with store= to spread the sweep"
            ),
        )
    else:
        count = search_cost(d, lo, hi, width)
        check_budget(
            count,
            name="beam_width",
            limit=max_multiplets,
            what=f"multiplet evaluations of a {search} search of {d} variables",
            override="pass max_multiplets=... to allow more, or a smaller beam_width",
        )
    check_budget(
        float(count) * (n_permutations + 1),
        name="n_permutations",
        limit=max(max_multiplets, 1) * 100,
        what="multiplet evaluations (multiplets x (surrogates + 1))",
    )
    _check_cost(search, d, lo, hi, width, count, n_permutations, max_multiplets, vs)
    if symbols:
        w, ws, n, notes = _counts(vs, hi, n_permutations, seed, method == "miller_madow")
    else:
        w, ws, n = _scatters(vs, hi, n_permutations, seed, method == "gaussian_copula")
        notes = []
    cfg = dict(w=w, ws=ws, n=n, d=d, lo=lo, hi=hi, measure=measure, bias_correct=bias_correct)
    cfg["input"] = [v.codes if symbols else v.columns[0] for v in vs.values()]  # for a store
    if search == "exhaustive":
        sweep = _exhaustive_parallel if parallel else _exhaustive
        rows_idx, rows_val, rows_p, rows_fwer = sweep(
            cfg, progress, ex=ex, store=store, method=method, seed=seed
        )
    else:
        rows_idx, rows_val, rows_p, rows_fwer, evaluated = _searched(
            cfg, width, OBJECTIVES[objective], progress=progress, ex=ex
        )
    factor = Estimate(value=1.0, unit="nats").to(u).value
    frame, diag = _frame(rows_idx, rows_val, rows_p, rows_fwer, names, factor, u)
    if rows_p:
        frame["p_corrected"] = _corrected(frame, correction, hi - lo + 1)
        frame["significant"] = frame["p_corrected"] <= alpha
    diag.update(multiplets=int(count), search=search)
    if auto_reason is not None:
        diag["auto_reason"] = auto_reason
    if notes:
        from infometer.core._warnings import warn_user

        diag["warnings"] = list(notes)
        for note in notes:
            warn_user(note)
    if diag.get("singular_multiplets"):
        from infometer.core._warnings import warn_user

        bad = frame["multiplet"][np.isnan(frame["value"])].tolist()
        msg = (
            f"{len(bad)} multiplet(s) of X have a singular covariance (a column is a linear "
            f"function of others), so their {measure} is undefined and left NaN, e.g. "
            f"{bad[0]}; drop the redundant columns"
        )
        diag["warnings"] = [*diag.get("warnings", []), msg]
        warn_user(msg)
    if search != "exhaustive":
        # "multiplets": the budgeted bound; "evaluated": what the search on X computed
        diag.update(beam_width=width, objective=objective, evaluated=int(evaluated))
    frame = _ranked(frame, None if search == "exhaustive" else OBJECTIVES[objective], u)
    return MultipletResult(
        frame=frame,
        measure=measure,
        method=method,
        unit=u,
        n=n,
        n_permutations=n_permutations,
        names=names,
        correction=correction,
        alpha=alpha,
        diagnostics=diag,
    )


def _check_cost(search, d, lo, hi, width, count, n_permutations, max_multiplets, vs) -> None:
    """What the sweep costs beyond its multiplet count, refused before anything is built:
    the ranked table (one row per multiplet), the surrogates' scatter matrices (or symbol
    tables) and, for large multiplets, the eigen-decompositions (a multiplet of s
    variables costs (s / 3)³ triplets' worth)."""
    from infometer.core.validation import check_memory

    n = next(iter(vs.values())).n
    rows = count if search == "exhaustive" else (hi - lo + 1) * width
    check_memory(
        float(rows) * 8 * (hi + 4) * 2,
        what=f"table of {float(rows):.3g} ranked multiplets of up to {hi} variables",
        name="sizes",
        override="ask for fewer or smaller multiplets (sizes=), or search='greedy'/'beam'",
    )
    check_memory(
        float(n_permutations) * max(d * d, n * d) * 8,
        what=f"{n_permutations} permuted data sets of {n} rows x {d} columns",
        name="n_permutations",
        override="pass fewer n_permutations (999 give p-values down to 0.001)",
    )
    if search == "exhaustive":
        weighted = sum(comb(d, s) * (s / 3) ** 3 for s in range(lo, hi + 1))
    else:
        weighted = sum(min(width * d, comb(d, s)) * (s / 3) ** 3 for s in range(lo, hi + 1))
    check_budget(
        weighted * (n_permutations + 1),
        name="sizes",
        limit=max_multiplets * 100,
        what=f"triplet-equivalent evaluations (multiplets of up to {hi} variables cost "
        "(size / 3)³ each, times surrogates + 1)",
        override="pass max_multiplets=... to allow more, or smaller sizes",
    )


def _scatters(vs, hi: int, n_permutations: int, seed, copula: bool):
    """Scatter matrix of the (normal scores of the) columns and of each surrogate."""
    from .estimators import gaussian_scores

    names = tuple(vs)
    cols = [v.columns[0].astype(np.float64, copy=False) for v in vs.values()]
    const = [nm for nm, c in zip(names, cols, strict=True) if c.min() == c.max()]
    if const:
        raise ValueError(f"X has constant columns {const}: drop them (no information)")
    n, d = cols[0].shape[0], len(cols)
    if n < hi + 2:
        raise ValueError(f"X has {n} rows; multiplets of {hi} need at least {hi + 2}")
    if copula:
        a, _ = gaussian_scores(cols, copula)
    else:
        # each column times a power of two near 1 / max |x| (exact; no overflow of the
        # squares near 1e±300); the scatter matrix is scaled to unit variances below
        a = np.column_stack(cols)  # a fresh array: scaled in place
        top = np.maximum(a.max(axis=0), -a.min(axis=0))
        a *= np.ldexp(1.0, -np.clip(np.frexp(top)[1], -1000, 1000))
    w = _unit_scatter(a, copula)
    ws = None
    if n_permutations:
        rng = as_generator(seed)
        ws = np.empty((n_permutations, d, d))
        for b in range(n_permutations):
            orders = nulls.independent_orders(rng, n, d)
            perm = np.column_stack([a[o, j] for j, o in enumerate(orders)])
            ws[b] = _unit_scatter(perm, copula)
    return w, ws, n


def _unit_scatter(a: np.ndarray, copula: bool) -> np.ndarray:
    """Scatter matrix of the columns of ``a``; unless ``copula`` (normal scores, already
    on one scale) scaled to ``n`` on the diagonal: that of the standardised columns, so
    that the singular rule compares like with like, at the cost of one pass over the rows
    fewer than standardising them."""
    from .estimators import scatter_of

    w = scatter_of(a)
    if copula:
        return w
    sd = np.sqrt(np.diagonal(w) / a.shape[0])
    return w / sd[:, None] / sd[None, :]


def _counts(vs, hi: int, n_permutations: int, seed, miller_madow: bool):
    """:class:`._search.Counts` of the symbols and of each surrogate (the same row orders
    as the Gaussian surrogates), and a note when the largest multiplets are undersampled."""
    from infometer.core.validation import check_memory

    from ._search import Counts

    names = tuple(vs)
    codes = [np.unique(v.codes, return_inverse=True)[1].reshape(-1) for v in vs.values()]
    cards = np.array([int(c.max()) + 1 for c in codes], dtype=np.int64)
    const = [nm for nm, k in zip(names, cards, strict=True) if k == 1]
    if const:
        raise ValueError(f"X has constant columns {const}: drop them (no information)")
    top = np.sort(cards)[::-1][:hi].astype(float)
    if float(np.prod(top)) >= 2.0**62:
        raise ValueError(
            f"multiplets of {hi} of X's columns have up to {np.prod(top):.3g} joint symbols, "
            "beyond one int64 code; use fewer or smaller alphabets"
        )
    a = np.column_stack(codes).astype(np.int64)
    n, d = a.shape
    notes = []
    if n / np.prod(top) < 5:
        notes.append(
            f"{n} rows for up to {np.prod(top):.0f} joint symbols of a multiplet of {hi} "
            "columns (< 5 per symbol): the entropies of the largest multiplets are biased "
            "(plug-in entropies downward, and the measures made of them), whatever the "
            "correction; use smaller multiplets or more rows"
        )
    ws = None
    if n_permutations:
        check_memory(
            float(n_permutations) * n * d * 8,
            what="the surrogate symbol tables",
            name="n_permutations",
        )
        rng = as_generator(seed)
        stack = np.empty((n_permutations, n, d), dtype=np.int64)
        for b in range(n_permutations):
            orders = nulls.independent_orders(rng, n, d)
            stack[b] = np.column_stack([a[o, j] for j, o in enumerate(orders)])
        ws = Counts(stack, cards, miller_madow)
    return Counts(a, cards, miller_madow), ws, n, notes


def _exhaustive(cfg: dict, progress, **_: Any):
    from infometer.core.progress import progress_bar

    w, ws, n, d = cfg["w"], cfg["ws"], cfg["n"], cfg["d"]
    b_count = 0 if ws is None else ws.shape[0]
    total = sum(comb(d, s) for s in range(cfg["lo"], cfg["hi"] + 1))
    rows_idx, rows_val, rows_p, rows_fwer = [], [], [], []
    # each distinct subset's entropy once for the whole sweep (where its memo fits)
    caches = (
        subset_entropies(w, n, cfg["bias_correct"]),
        None if ws is None else subset_entropies(ws, n, cfg["bias_correct"]),
    )
    for c in caches:
        if c is not None:
            c.complete(cfg["hi"])
    with progress_bar(
        total=total, desc=f"{cfg['measure']} multiplets", unit="multiplet", progress=progress
    ) as bar:
        for s in range(cfg["lo"], cfg["hi"] + 1):
            parts = []
            for idx in _chunks(d, s, _per_chunk(s, b_count, cfg)):
                parts.append(
                    chunk_stats(w, ws, n, idx, cfg["measure"], cfg["bias_correct"], caches)
                )
                rows_idx.append(idx)
                bar.update(idx.shape[0])
            _collect(parts, b_count, rows_val, rows_p, rows_fwer)
    return rows_idx, rows_val, rows_p, rows_fwer


def _per_chunk(s: int, b_count: int, cfg: dict) -> int:
    """Multiplets per chunk: block matrices (Gaussian) or joint codes of every row
    (symbols) of at most :data:`CHUNK_BYTES`."""
    from ._search import Counts

    if isinstance(cfg["w"], Counts):
        return max(1, CHUNK_BYTES // (8 * cfg["n"]))
    return max(1, CHUNK_BYTES // (8 * s * s * (b_count + 1)))


def _collect(parts: list[dict], b_count: int, rows_val, rows_p, rows_fwer) -> None:
    """One size's chunk results -> values, per-multiplet and max-statistic p-values."""
    vals = np.concatenate([p["value"] for p in parts])
    rows_val.append(vals)
    if b_count:
        hits = np.concatenate([p["hits"] for p in parts])
        null_max = np.max(np.vstack([p["null_max"] for p in parts]), axis=0)
        rows_p.append(nulls.p_from_counts(hits, b_count))
        rows_fwer.append(nulls.maxstat_p_values(np.abs(vals), null_max[:, None]))


def _run(func: Any, jobs: dict, sink: Any, ex: Execution, progress: bool | None) -> None:
    """``func`` on every job through :func:`infometer.core.parallel.run_jobs` on ``ex``."""
    from infometer.core.parallel import run_jobs

    outcome = run_jobs(
        func, jobs, sink, execution=ex, progress=True if progress else None, interruptible=False
    )
    outcome.raise_if_incomplete()


def _exhaustive_parallel(cfg: dict, progress, *, ex: Execution, store, method, seed):
    from infometer.core.parallel import MemorySink

    w, ws, d = cfg["w"], cfg["ws"], cfg["d"]
    b_count = 0 if ws is None else ws.shape[0]
    jobs, plan = {}, {}
    for s in range(cfg["lo"], cfg["hi"] + 1):
        per, total = _per_chunk(s, b_count, cfg), comb(d, s)
        plan[s] = [
            (i, start, min(per, total - start)) for i, start in enumerate(range(0, total, per))
        ]
        for i, start, cnt in plan[s]:
            jobs[(s, i)] = {
                "w": w,
                "ws": ws,
                "n": cfg["n"],
                "d": d,
                "size": s,
                "start": start,
                "count": cnt,
                "measure": cfg["measure"],
                "bias_correct": cfg["bias_correct"],
            }
    if store is None:
        sink = MemorySink()
        _run(_search.chunk_job, jobs, sink, ex, progress)
        return _assemble(cfg, plan, b_count, sink.results.__getitem__)
    with _chunk_store(store, cfg, b_count, method, seed) as (st, sink):
        _run(_search.chunk_job, jobs, sink, ex, progress)
        counts = {(s, i): cnt for s in plan for i, _, cnt in plan[s]}
        return _assemble(
            cfg, plan, b_count, lambda key: sink.get(key, shapes={"value": (counts[key],)})
        )


def _assemble(cfg: dict, plan: dict, b_count: int, get) -> tuple:
    """The sweep's rows from its chunks (``get((size, chunk))``), in the order computed."""
    d = cfg["d"]
    rows_idx, rows_val, rows_p, rows_fwer = [], [], [], []
    for s in range(cfg["lo"], cfg["hi"] + 1):
        rows_idx.append(lex_combinations(d, s))
        _collect([get((s, i)) for i, _, _ in plan[s]], b_count, rows_val, rows_p, rows_fwer)
    return rows_idx, rows_val, rows_p, rows_fwer


@contextlib.contextmanager
def _chunk_store(store, cfg: dict, b_count: int, method: str, seed: Any):
    """The resumable folder of a sweep: one ``chunks/s{size}_c{chunk}.npz`` per finished
    chunk, in the one store service (identity, checksums, lock)."""
    from infometer.core.store import KeyedSink, ResultStore, fingerprint

    with ResultStore(
        store,
        kind="multiplets",
        data=fingerprint(*cfg["input"]),
        params={
            "measure": cfg["measure"],
            "method": method,
            "sizes": [cfg["lo"], cfg["hi"]],
            "n_permutations": b_count,
            "seed": seed,
            "bias_correct": cfg["bias_correct"],
            "chunk_bytes": CHUNK_BYTES,
        },
        files={"chunks": r"s\d+_c\d+\.npz"},
    ) as st:
        sink = KeyedSink(
            st,
            "chunks",
            name=lambda key: f"s{key[0]}_c{key[1]}.npz",
            key=lambda name: tuple(int(t[1:]) for t in name[:-4].split("_")),
            format="npz",
            required=("value", "hits", "null_max") if b_count else ("value",),
        )
        yield st, sink


def _searched(cfg: dict, width: int, sign: float, *, progress=None, ex: Execution):
    w, ws = cfg["w"], cfg["ws"]
    args = (cfg["n"], cfg["lo"], cfg["hi"], width, cfg["measure"], sign, cfg["bias_correct"])
    kept, evaluated = beam_search(w, *args)
    rows_idx = [k[0] for k in kept]
    rows_val = [k[1] for k in kept]
    rows_p, rows_fwer = [], []
    if ws is not None:
        best = _surrogate_bests(cfg, width, sign, progress, ex)
        for j, (idx, v) in enumerate(kept):
            nv = sign * multiplet_values(ws, cfg["n"], idx, cfg["measure"], cfg["bias_correct"])
            rows_p.append(nulls.p_values(sign * v, nv))
            rows_fwer.append(nulls.maxstat_p_values(sign * v, best[:, j][:, None]))
    return rows_idx, rows_val, rows_p, rows_fwer, evaluated


def _surrogate_bests(cfg: dict, width: int, sign: float, progress, ex: Execution):
    """(B, sizes): the same search on every surrogate, its best of each size (the null of
    the best); one job per surrogate on ``run_jobs`` when ``ex`` asks for workers."""
    from infometer.core.progress import progress_bar

    ws = cfg["ws"]
    keys = ("n", "lo", "hi", "measure", "bias_correct")
    jobs = {
        b: {"w": ws[b], "width": width, "sign": sign, **{k: cfg[k] for k in keys}}
        for b in range(ws.shape[0])
    }
    if ex.workers > 1 or ex.scheduler is not None:
        from infometer.core.parallel import MemorySink

        sink = MemorySink()
        _run(_search.best_of_search, jobs, sink, ex, progress)
        return np.vstack([sink.results[b] for b in jobs])
    with progress_bar(
        jobs.values(),
        total=len(jobs),
        desc="surrogate searches",
        unit="surrogate",
        progress=progress,
    ) as bar:
        return np.vstack([_search.best_of_search(job) for job in bar])


def _frame(rows_idx, rows_val, rows_p, rows_fwer, names, factor, u):
    """The columns of the result (numpy arrays, in the order computed; ``multiplet`` an
    object array of name tuples) and diagnostics about the values."""
    vals = np.concatenate(rows_val)
    cols = {
        "multiplet": _name_tuples(rows_idx, names),
        "size": np.concatenate([np.full(len(i), i.shape[1]) for i in rows_idx]),
        "value": vals * factor,
    }
    diag: dict = {}
    if np.isnan(vals).any():
        diag["singular_multiplets"] = int(np.isnan(vals).sum())
    if rows_p:
        cols["p_value"] = np.concatenate(rows_p)
        cols["p_fwer"] = np.concatenate(rows_fwer)
    return cols, diag


def _name_tuples(rows_idx: list[np.ndarray], names: tuple[str, ...]) -> np.ndarray:
    """Each multiplet's tuple of names, as an object array (zip over columns of names: no
    Python loop per name)."""
    arr = np.empty(len(names), dtype=object)
    arr[:] = names
    total = sum(idx.shape[0] for idx in rows_idx)

    def rows():
        for idx in rows_idx:
            yield from zip(*(arr[idx[:, j]] for j in range(idx.shape[1])), strict=True)

    return np.fromiter(rows(), dtype=object, count=total)


def _corrected(frame, correction: str, n_sizes: int) -> np.ndarray:
    """``p_corrected`` by ``correction``: the per-size max-statistic times the number of
    sizes (``"fwer"``), BH / BY over every multiplet, or the plain p-value."""
    from infometer.measures.stats.correction import adjust

    if correction == "fwer":
        return np.minimum(frame["p_fwer"] * n_sizes, 1.0)
    return adjust(frame["p_value"], correction)


def _ranked(cols: dict, sign: float | None, unit: str):
    """The result's DataFrame, ranked.  Exhaustive (``sign=None``): by |value|; a search:
    best in its direction first."""
    import pandas as pd

    vals = cols["value"]
    if sign is None:
        key = -np.abs(np.nan_to_num(vals, nan=0.0))
    else:
        key = -sign * np.nan_to_num(vals, nan=-sign * np.inf)
    order = np.argsort(key)  # a stable sort only where some keys tie (several x slower)
    if key.size > 1 and not np.all(np.diff(key[order]) != 0):
        order = np.argsort(key, kind="stable")
    data = {"rank": np.arange(1, len(vals) + 1)}
    for name, col in cols.items():
        data[name] = col[order]
        if name == "value":
            data["unit"] = unit
    return pd.DataFrame(data)
