"""Network inference from multivariate time series: ``im.infer_network``.

Methods
-------
``"mte"``
    IDTxl's multivariate transfer entropy (Novelli et al. 2019).  Per target: the
    target's own past is selected greedily (max statistic), then source pasts
    (every process at lags ``min_lag..max_lag``) greedily, each conditioned on the
    target's past and the sources already selected; the selection is pruned by the
    minimum statistic; the selected sources together are tested by the omnibus test and
    each by the sequential max statistic; the network-level ``correction`` then decides
    which targets keep their sources (see :func:`infer_network`).
``"bivariate_te"``
    The same with each source process considered on its own (conditioned on the
    target's past only): IDTxl's bivariate TE.
``"pcmci"``
    PCMCI (Runge et al. 2019): PC1 condition selection of each target's lagged parents
    at ``pc_alpha``, then the momentary conditional independence (MCI) test of every
    lagged link X_i(t−τ) → X_j(t) conditioned on the parents of both ends.  Gaussian:
    partial correlation with a Student t test (Tigramite's ParCorr); other CMI methods:
    permutation tests.
``"pcmciplus"``
    PCMCI+ (Runge 2020) with contemporaneous links (``min_lag``/``tau_min`` = 0, the
    default): PC1 lagged parents, then the MCI skeleton (lagged and contemporaneous links
    tested with conditions from the target's contemporaneous adjacencies plus both ends'
    lagged parents), collider orientation by the majority rule and Meek's rules R1–R3, as
    Tigramite's ``run_pcmciplus``; links ``-->``, ``o-o`` (unoriented) and ``x-x``
    (conflicting), every test at ``alpha`` (Tigramite's ``pc_alpha``).

References
----------
* Novelli, Wollstadt, Mediano, Wibral & Lizier (2019), Netw. Neurosci. 3:827.
* Wollstadt et al. (2019), J. Open Source Softw. 4:1081 (IDTxl).
* Runge, Nowack, Kretschmer, Flaxman & Sejdinovic (2019), Sci. Adv. 5:eaau4996 (PCMCI).
* Runge (2020), UAI, PMLR 124:1388 (PCMCI+).
* Benjamini & Hochberg (1995), J. R. Stat. Soc. B 57:289; Benjamini & Yekutieli (2001),
  Ann. Stat. 29:1165; Holm (1979), Scand. J. Stat. 6:65.
"""

from __future__ import annotations

import contextlib
import numbers
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core._warnings import warn_user
from infometer.core.data import InfometerWarning
from infometer.core.estimate import resolve_unit, unit_factor
from infometer.core.parallel import Execution, MemorySink, run_jobs
from infometer.core.progress import progress_bar as bar
from infometer.core.results import Result
from infometer.core.seeding import Seed, resolve_seed
from infometer.core.store import KeyedSink, ResultStore, fingerprint
from infometer.core.validation import (
    Flag,
    Instance,
    Interval,
    Many,
    Options,
    Size,
    check_budget,
    check_choice,
    check_float,
    check_int,
    check_memory,
    validate_params,
)
from infometer.measures.stats.correction import CORRECTIONS, adjust, check_correction
from infometer.measures.stats.nulls import MAX_PERMUTATIONS
from infometer.measures.timeseries._embed import MIN_ROWS

from ._algorithms import LinkTests, mci_target, pc_target, te_target
from ._input import as_panel
from ._pcmciplus import pcmciplus_graph
from ._plot import plot_network

__all__ = ["infer_network", "NetworkResult", "MAX_CANDIDATES", "MAX_LAG_MATRIX"]

#: Source-past candidates per target above which inference is refused (each greedy step
#: evaluates all of them with every permutation).
MAX_CANDIDATES = 2000
#: Entries (rows × columns) of one target's lag matrix above which inference is refused.
MAX_LAG_MATRIX = 200_000_000

_EDGE_COLUMNS = ["source", "target", "lag", "estimate", "p_value", "p_corrected"]
#: Subsets of a triple's neighbours above which PCMCI+'s majority rule is refused.
MAX_COLLIDER_SUBSETS = 2**14


@dataclass(frozen=True, eq=False)
class NetworkResult(Result):
    """Inferred directed, lagged network.

    Attributes
    ----------
    edges
        Tidy DataFrame, one row per significant (source, target, lag): ``estimate``
        (in ``diagnostics["unit"]``, nats by default: the conditional TE of that source
        lag for mTE / bivariate TE, the MCI CMI for PCMCI), ``p_value`` (sequential max
        statistic, or the MCI test) and
        ``p_corrected`` (the p-value adjusted by ``correction`` that decided the edge).  PCMCI+ adds
        ``link``: ``"-->"`` (directed; lag 0: contemporaneous), ``"o-o"`` (a
        contemporaneous link left unoriented: source and target in column order) or
        ``"x-x"`` (contemporaneous, conflicting orientations); its ``p_value`` is the
        largest p-value of the link's skeleton tests (Tigramite's ``p_matrix``), which
        decided it at ``alpha``, and ``p_corrected`` is it adjusted by ``correction``
        (``"none"``, the default for PCMCI+, repeats it).
    nodes
        Process names, in column order.
    method, cmi, max_lag, alpha, correction
        The settings.
    targets
        DataFrame per target: the target's selected own lags, omnibus TE and p-values
        (mTE / bivariate TE), or PCMCI's selected parents.
    diagnostics
        Warnings, constant series dropped, rows used, timings (PCMCI+: ``p_matrix``,
        ``val_matrix``, ``ambiguous_triples``, ``n_tests``).
    graph_array
        PCMCI+: the (n, n, max_lag + 1) graph it returned (see :attr:`graph`).
    """

    edges: Any
    nodes: tuple[str, ...]
    method: str
    cmi: str
    max_lag: int
    alpha: float
    targets: Any = None
    diagnostics: dict[str, Any] = field(default_factory=dict)
    graph_array: Any = field(default=None, repr=False)
    correction: str = "fdr_bh"

    def _links(self):
        """(source index, target index, lag, estimate, link) per edge row."""
        idx = {nm: i for i, nm in enumerate(self.nodes)}
        e = self.edges
        marks = e["link"] if "link" in e else ["-->"] * len(e)
        for s, t, g, v, m in zip(
            e["source"], e["target"], e["lag"], e["estimate"], marks, strict=True
        ):
            yield idx[s], idx[t], int(g), float(v), str(m)

    @property
    def adjacency(self) -> np.ndarray:
        """(n, n) float array: [i, j] = largest edge estimate from i to j (0: no edge).
        An unoriented (``o-o``) or conflicting (``x-x``) contemporaneous link counts in
        both directions."""
        n = len(self.nodes)
        a = np.zeros((n, n))
        for i, j, _, v, m in self._links():
            for s, t in ((i, j), (j, i)) if m != "-->" else ((i, j),):
                a[s, t] = max(a[s, t], v, 1e-300)
        return a

    @property
    def lag_adjacency(self) -> np.ndarray:
        """(n, n, max_lag + 1) bool array: [i, j, lag] is True for each edge (both
        [i, j, 0] and [j, i, 0] for an ``o-o`` or ``x-x`` link)."""
        n = len(self.nodes)
        a = np.zeros((n, n, self.max_lag + 1), dtype=bool)
        for i, j, g, _, m in self._links():
            a[i, j, g] = True
            if m != "-->":
                a[j, i, g] = True
        return a

    @property
    def graph(self) -> np.ndarray:
        """(n, n, max_lag + 1) string array, Tigramite's graph: [i, j, lag] = ``"-->"``
        for X_i(t − lag) → X_j(t); at lag 0 a directed link also has the mirror entry
        [j, i, 0] = ``"<--"``, and ``"o-o"`` / ``"x-x"`` appear in both; ``""``: no
        link.  PCMCI and PCMCI+ include the autodependence links [i, i, lag]; the
        target's own past selected by mTE / bivariate TE is an embedding, not a link."""
        if self.graph_array is not None:
            return np.array(self.graph_array, dtype="<U3")
        n = len(self.nodes)
        g = np.full((n, n, self.max_lag + 1), "", dtype="<U3")
        for i, j, lag, _, _ in self._links():
            g[i, j, lag] = "-->"
        if self.method == "pcmci" and self.targets is not None and "self_lags" in self.targets:
            idx = {nm: i for i, nm in enumerate(self.nodes)}
            for t, lags in zip(self.targets["target"], self.targets["self_lags"], strict=True):
                for lag in lags:
                    g[idx[t], idx[t], int(lag)] = "-->"
        return g

    def edge_set(self) -> set[tuple[int, int, int]]:
        """``{(source index, target index, lag)}`` of the edges."""
        idx = {nm: i for i, nm in enumerate(self.nodes)}
        return {
            (idx[s], idx[t], int(g))
            for s, t, g in zip(
                self.edges["source"], self.edges["target"], self.edges["lag"], strict=True
            )
        }

    def to_frame(self):
        """The edge list (a copy)."""
        return self.edges.copy()

    def to_networkx(self):
        """A ``networkx.MultiDiGraph``: one edge per (source, target, lag) with attributes
        ``lag``, ``weight`` (the estimate), ``p_value``, ``p_corrected`` and ``link``
        (``"-->"``; PCMCI+'s ``"o-o"`` and ``"x-x"`` links are added in both directions).
        """
        try:
            import networkx as nx
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "to_networkx() needs networkx: pip install 'infometer[network]' (or networkx)"
            ) from exc
        g = nx.MultiDiGraph()
        g.add_nodes_from(self.nodes)
        for row in self.edges.itertuples(index=False):
            link = str(getattr(row, "link", "-->"))
            ends = [(row.source, row.target)]
            if link != "-->":
                ends.append((row.target, row.source))
            for s, t in ends:
                g.add_edge(
                    s,
                    t,
                    key=int(row.lag),
                    lag=int(row.lag),
                    weight=float(row.estimate),
                    p_value=float(row.p_value),
                    p_corrected=float(row.p_corrected),
                    link=link,
                )
        return g

    def plot(self, ax=None, path=None):
        """Nodes on a circle, directed edges with width ∝ estimate, lags as labels."""
        return plot_network(self, ax=ax, path=path)

    def __repr__(self) -> str:
        if "link" in self.edges:
            n0 = int((self.edges["lag"] == 0).sum())
            what = f"{len(self.edges)} links ({n0} contemporaneous)"
        else:
            what = f"{len(self.edges)} lagged edges"
        return (
            f"NetworkResult({self.method}, cmi={self.cmi}: {len(self.nodes)} nodes, "
            f"{what}, alpha={self.alpha}, correction={self.correction})"
        )


def _run(func, payloads: dict, ex: Execution, desc: str, store=None) -> dict:
    """Run per-target jobs in process (one local job) or through ``parallel.run_jobs`` on
    ``ex``; with a ``store`` (a :class:`~infometer.core.store.KeyedSink`) finished targets are
    kept and skipped.  Ctrl-C is a ``KeyboardInterrupt`` (finished targets stay stored)."""
    progress = ex.progress
    if ex.workers == 1 and ex.resolve_backend("processes") != "dask" and store is None:
        out = {}
        with bar(total=len(payloads), desc=desc, unit="target", progress=progress) as pb:
            for key, payload in payloads.items():
                out[key] = func(payload)
                pb.update(1)
        return out

    sink = MemorySink() if store is None else store
    todo = len(set(payloads) - set(sink.done_keys()))
    with bar(total=todo, desc=desc, unit="target", progress=progress) as pb:
        outcome = run_jobs(
            func,
            payloads,
            sink,
            execution=ex,
            progress=lambda pr: pb.update(1),
        )
    if outcome.interrupted:
        outcome.raise_if_incomplete()  # KeyboardInterrupt when a target is missing
    if outcome.missing:
        raise RuntimeError(f"target jobs did not finish: {outcome.describe()}")
    if store is None:
        return dict(sink.results)
    return {key: store.get(key) for key in payloads}


@validate_params(
    {
        "method": [Options("mte", "bivariate_te", "pcmci", "pcmciplus")],
        "max_lag": [Interval(numbers.Integral, 1)],
        "min_lag": [Interval(numbers.Integral, 0), None],
        "tau_min": [Interval(numbers.Integral, 0), None],
        "max_lag_target": [Interval(numbers.Integral, 1), None],
        "cmi": [Instance(str, what="a CMI method name ('auto', 'gaussian', 'ksg1', ...)")],
        "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
        "correction": [Options(*CORRECTIONS), None],
        "n_permutations": [Size(1, limit=MAX_PERMUTATIONS, what="permutations")],
        "n_permutations_omnibus": [Size(1, limit=MAX_PERMUTATIONS, what="permutations")],
        "null": [Options("permutation", "local")],
        "pc_alpha": [Interval(numbers.Real, 0, 1, closed="right"), None],
        "max_conds_dim": [Interval(numbers.Integral, 0), None],
        "max_conds_px": [Interval(numbers.Integral, 0), None],
        "trials": [Interval(numbers.Integral, 1)],
        "targets": [
            Many(Instance(str, numbers.Integral, what="a series name or index"), what="targets"),
            None,
        ],
        "discrete": [Flag(), None],
        "progress": [Flag(), None],
        "max_candidates": [Interval(numbers.Integral, 1)],
    }
)
def infer_network(
    data: Any,
    *,
    method: str = "mte",
    max_lag: int = 5,
    min_lag: int | None = None,
    tau_min: int | None = None,
    max_lag_target: int | None = None,
    cmi: str = "auto",
    alpha: float = 0.05,
    correction: str | None = None,
    n_permutations: int = 200,
    n_permutations_omnibus: int = 500,
    null: str = "permutation",
    pc_alpha: float | None = None,
    max_conds_dim: int | None = None,
    max_conds_px: int | None = None,
    trials: int = 1,
    targets: list[Any] | None = None,
    discrete: bool | None = None,
    n_jobs: int = 1,
    seed: Seed = 0,
    progress: bool | None = None,
    max_candidates: int = MAX_CANDIDATES,
    store: str | None = None,
    unit: str | None = "nats",
    execution: Execution | None = None,
    **cmi_params: Any,
) -> NetworkResult:
    """Infer a directed, lagged network from multivariate time series.

    Parameters
    ----------
    data
        DataFrame (columns = processes, rows = time), dict of equal-length series, or a
        2-D array.  Integer / boolean columns are symbols (discrete estimators).
    method
        ``"mte"`` (multivariate TE, IDTxl), ``"bivariate_te"``, ``"pcmci"`` (lagged
        links) or ``"pcmciplus"`` (PCMCI+: lagged and contemporaneous links).
    max_lag, min_lag
        Source lags tried: ``min_lag..max_lag`` (PCMCI: ``tau_min..tau_max``).  Default
        ``min_lag``: 1, PCMCI+ 0 (contemporaneous links, which only PCMCI+ can have).
    tau_min
        Tigramite's name for ``min_lag`` (give one of them), in ``[0, max_lag]``.
    max_lag_target
        Largest lag of the target's own past (mTE / bivariate TE; default ``max_lag``).
    cmi
        CMI estimator: ``"gaussian"`` (closed form, batched: linear Granger causality),
        any registered CMI method (``"ksg1"``, ``"frenzel_pompe"``, ``"plugin"``…) or
        ``"auto"`` (``gaussian`` for continuous data, ``plugin`` for symbols; a panel
        mixing integer and float series, or with float series taking few distinct values
        such as 0.0/1.0, is refused naming ``discrete=``).
    alpha
        Significance level of the network (of the ``correction``): the FDR level, the
        network-wide family-wise level, or each target's / link's level.  PCMCI+ has
        this one level for all its tests (Tigramite's ``pc_alpha`` of ``run_pcmciplus``).
    correction
        Network-level error control (the one policy of
        :mod:`infometer.measures.stats.correction`; default ``"fdr_bh"``, PCMCI+ ``"none"`` as
        Tigramite's ``run_pcmciplus``):

        * ``"fdr_bh"`` / ``"fdr_by"``: Benjamini–Hochberg / –Yekutieli over **every**
          tested unit.  mTE and bivariate TE: every analysed target's *gate* p-value, the
          max-statistic p-value of the first source-selection step (a valid p-value of "no
          source informs this target": the target's past is chosen without the sources;
          bivariate TE: Bonferroni over the source processes); a target keeps its
          sources when its adjusted gate p-value is ≤ ``alpha`` (IDTxl corrects the
          omnibus p-values instead, which are computed after the selection on the same
          data and are not valid p-values: on null networks that rule's network-wide
          false-positive rate stays near the per-target one; docs/networks.md).  PCMCI:
          every MCI link test; PCMCI+: every link of the p-value matrix (each
          contemporaneous pair once), links above ``alpha`` removed after the run, as
          Tigramite's ``fdr_method``.
        * ``"fwer"``: network-wide family-wise error, P(any false edge) ≤ ``alpha``.
          mTE / bivariate TE: every target's whole procedure (max / min statistics,
          omnibus, sequential max statistic) at ``alpha / m`` for ``m`` analysed targets
          (Bonferroni over targets: a target on null data gets a source only if its
          first max-statistic test rejects, which has probability ≤ ``alpha / m``);
          PCMCI / PCMCI+: Holm over every link test.  It needs ``n_permutations ≥
          m / alpha`` (checked) and costs power: each target is tested at ``alpha / m``.
          On networks without edges, ``"fdr_bh"`` controls the same rate (FDR = FWER
          when every null is true).
        * ``"none"``: each target (each link) at ``alpha``: per-target error control only
          (on a network of m null targets about ``m·alpha`` false edges).
    n_permutations, n_permutations_omnibus
        Permutations of the max / min / sequential statistics and of the omnibus test
        (PCMCI with a non-Gaussian CMI: of each conditional independence test).
    null
        Surrogates of the non-Gaussian CMI tests: ``"permutation"`` (the source's rows
        permuted, as IDTxl) or ``"local"`` (local conditional permutations within
        5-neighbourhoods of the conditioning set, Runge 2018: the candidate keeps its
        dependence on the conditions; recommended for kNN CMI, whose bias depends on it).
        The Gaussian CMI always uses plain permutations (exact in the Gaussian limit).
    pc_alpha, max_conds_dim, max_conds_px
        PCMCI's PC1 level (default 0.2; PCMCI+ refuses it: its level is ``alpha``) and
        limits on the condition sets (Tigramite's names; PCMCI+: ``max_conds_dim`` limits
        the contemporaneous conditions of the skeleton, ``max_conds_px`` the source's
        lagged parents).
    trials
        The rows are this many concatenated trials of equal length.
    targets
        Analyse only these targets (names or indices); default all.
    discrete
        Treat all columns as symbols (True) or numbers (False); default from the dtypes.
    n_jobs
        Per-target jobs on ``n_jobs`` local processes (through
        :func:`infometer.core.parallel.run_jobs`); shorthand for ``execution=``.
    seed
        Seed of the permutations (same seed, same network). An int >= 0 (the same int gives the same
        numbers), a numpy.random.Generator (drawn from as it is) or None (fresh entropy from the
        operating system).
    progress
        Progress bar over targets (None: the shared default).
    max_candidates
        Refuse more source-lag candidates per target than this (checked first).
    unit
        Unit of the ``estimate`` and ``omnibus_te`` columns (``"nats"``, ``"bits"``...).
    store
        A folder for per-target results: an interrupted run re-run with the same data and
        settings computes only the missing targets (a different analysis is refused).
    execution
        Where the per-target jobs run, as for :func:`infometer.pairwise`: an
        :class:`infometer.Execution` (``n_jobs``, ``backend``, ``scheduler``, ``store``,
        ``progress``, ``retries``; a Dask cluster is ``Execution(scheduler=...)``).
        Default: in this process.  Giving it beside ``n_jobs=``, ``store=`` or
        ``progress=`` is a ``TypeError``.
    **cmi_params
        The CMI estimator's own parameters (e.g. ``k=4`` for ``ksg1``).

    Returns
    -------
    NetworkResult

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> rng = np.random.default_rng(1); x = rng.normal(size=(600, 3))
    >>> for t in range(1, 600): x[t, 1] += 0.8 * x[t - 1, 0]
    >>> net = im.infer_network(x, method="mte", max_lag=2, cmi="gaussian", n_permutations=100)
    >>> sorted(net.edge_set())
    [(0, 1, 1)]

    PCMCI+ finds the contemporaneous link x0(t) → x2(t) and orients it by the collider
    with x2's own past:

    >>> for t in range(1, 600): x[t, 2] += 0.6 * x[t - 1, 2] + 0.7 * x[t, 0]
    >>> plus = im.infer_network(x, method="pcmciplus", max_lag=1, alpha=0.01)
    >>> plus.edges[["source", "target", "lag", "link"]].values.tolist()
    [['x0', 'x1', 1, '-->'], ['x0', 'x2', 0, '-->']]
    """
    import time

    import pandas as pd

    method = check_choice(method, "method", ("mte", "bivariate_te", "pcmci", "pcmciplus"))
    max_lag = check_int(max_lag, "max_lag", min_value=1)
    min_lag = _min_lag(method, min_lag, tau_min, max_lag)
    if pc_alpha is not None and method == "pcmciplus":
        raise ValueError(
            "method='pcmciplus' has one significance level for all its tests: pass alpha= "
            "(Tigramite's pc_alpha of run_pcmciplus); pc_alpha= is PCMCI's PC1 level"
        )
    pc_alpha = alpha if method == "pcmciplus" else (0.2 if pc_alpha is None else pc_alpha)
    max_lag_target = check_int(
        max_lag if max_lag_target is None else max_lag_target, "max_lag_target", min_value=1
    )
    alpha = check_float(alpha, "alpha", low=0.0, high=1.0, inclusive=(False, False))
    pc_alpha = check_float(pc_alpha, "pc_alpha", low=0.0, high=1.0, inclusive=(False, True))
    n_permutations = check_int(n_permutations, "n_permutations", min_value=1)
    n_permutations_omnibus = check_int(
        n_permutations_omnibus, "n_permutations_omnibus", min_value=1
    )

    if correction is None:
        correction = "none" if method == "pcmciplus" else "fdr_bh"
    correction = check_correction(correction)
    ex = Execution.from_keywords(
        execution,
        "infer_network",
        {"n_jobs": 1},
        n_jobs=("n_jobs", n_jobs, 1),
        store=("store", store, None),
        progress=("progress", progress, None),
    )
    n_jobs, store = ex.workers, ex.store
    null = check_choice(null, "null", ("permutation", "local"))
    trials = check_int(trials, "trials", min_value=1)
    max_candidates = check_int(max_candidates, "max_candidates", min_value=1)
    for nm, v in (("max_conds_dim", max_conds_dim), ("max_conds_px", max_conds_px)):
        if v is not None:
            check_int(v, nm, min_value=0)
    seed = resolve_seed(seed)  # one root: every target's searches and nulls derive from it

    unit_name = resolve_unit(unit)
    factor = unit_factor("nats", unit_name)
    panel, warns = as_panel(data, discrete=discrete)
    for nm, count in (
        ("n_permutations", n_permutations),
        ("n_permutations_omnibus", n_permutations_omnibus),
    ):
        check_memory(
            8.0 * count * panel.t,
            what=f"table of {count} permutations of {panel.t} rows",
            name=nm,
            override=f"pass a smaller {nm}",
        )
    pcm = method in ("pcmci", "pcmciplus")
    span = 2 * max_lag if pcm else max(max_lag, max_lag_target)
    per_trial = panel.t // trials
    if span >= per_trial / 2:
        why = " (PCMCI conditions on parents shifted by the link lag: 2 max_lag)"
        raise ValueError(
            f"max_lag={max_lag} needs a largest lag of {span}"
            f"{why if pcm else ''}, which must be below half the length of "
            f"each series ({per_trial} rows per trial)"
        )

    if (per_trial - span) * trials < MIN_ROWS:
        raise ValueError(
            f"data has {panel.t} rows ({trials} trial(s)): with max_lag={max_lag} (a largest "
            f"lag of {span}) only {(per_trial - span) * trials} embedded rows remain, fewer "
            f"than {MIN_ROWS}; pass longer series or a smaller max_lag"
        )
    n_src = (panel.n if pcm else panel.n - 1) * (max_lag - min_lag + 1)
    check_budget(
        n_src,
        name=f"{panel.n} series x {max_lag - min_lag + 1} lags",
        limit=max_candidates,
        what="source-lag candidates per target",
        override="raise max_candidates= if you mean it",
    )
    n_cols = panel.n * (2 * max_lag + 1) if pcm else n_src + max_lag_target
    check_budget(
        panel.t * n_cols,
        name=f"{panel.t} rows x {n_cols} lagged columns",
        limit=MAX_LAG_MATRIX,
        what="lag-matrix entries per target",
        override="use fewer series or lags",
    )
    cmi_name = _resolve_cmi(cmi, panel, cmi_params)
    if targets is None:
        tix = list(range(panel.n))
    else:
        if isinstance(targets, str | bytes) or not hasattr(targets, "__iter__"):
            raise TypeError(f"targets must be a list of series names or indices, got {targets!r}")
        tix = [_target_index(t, panel.names, panel.constant) for t in targets]
        if not tix:
            raise ValueError("targets is empty; pass None for every series")
        if len(set(tix)) != len(tix):
            raise ValueError(f"targets names a series twice: {list(targets)!r}")
    per_target = alpha
    if correction == "fwer" and method in ("mte", "bivariate_te"):
        per_target = alpha / len(tix)
        least = min(n_permutations, n_permutations_omnibus)
        if 1.0 / (least + 1) > per_target:
            need = int(np.ceil(len(tix) / alpha))
            raise ValueError(
                f"correction='fwer' tests each of the {len(tix)} targets at alpha/"
                f"{len(tix)} = {per_target:.3g}, below the smallest p-value of {least} "
                f"permutations (1/{least + 1}); pass n_permutations= and "
                f"n_permutations_omnibus= of at least {need}"
            )
    settings = {
        "method": method,
        "max_lag": max_lag,
        "min_lag": min_lag,
        "max_lag_target": max_lag_target,
        "alpha": per_target,
        "n_permutations_max_stat": n_permutations,
        "n_permutations_min_stat": n_permutations,
        "n_permutations_max_seq": n_permutations_omnibus,
        "n_permutations_omnibus": n_permutations_omnibus,
        "n_permutations": n_permutations,
        "pc_alpha": pc_alpha,
        "max_conds_dim": max_conds_dim,
        "max_conds_px": max_conds_px,
        "trials": trials,
        "cmi": cmi_name,
        "cmi_params": cmi_params,
        "discrete": panel.discrete,
        "seed": seed,
        "null": null,
    }
    if correction in ("fdr_bh", "fdr_by") and method in ("mte", "bivariate_te"):
        c = float(np.sum(1.0 / np.arange(1, len(tix) + 1))) if correction == "fdr_by" else 1.0
        first = alpha / (len(tix) * c)  # the threshold for a single significant target
        if 1.0 / (n_permutations + 1) > first:
            warns.append(
                f"correction={correction!r} over {len(tix)} targets at alpha={alpha:g}: a "
                f"lone significant target needs a p-value <= {first:.3g}, below the "
                f"smallest of n_permutations={n_permutations} (1/{n_permutations + 1}); "
                f"pass n_permutations >= {int(np.ceil(len(tix) * c / alpha))}"
            )

    for w in warns:
        warn_user(w, InfometerWarning)  # the user's line (past the declarations' wrapper)
    t0, c0 = time.perf_counter(), time.process_time()
    extra: dict[str, Any] = {}
    with _open_store(store, panel, settings) as st:
        if method == "pcmci":
            edges, tframe = _pcmci(panel, tix, settings, correction, alpha, ex, st)
        elif method == "pcmciplus":
            edges, tframe, extra = _pcmciplus(panel, tix, settings, correction, ex, st)
        else:
            edges, tframe = _te(panel, tix, settings, correction, alpha, ex, st)
    diag = {
        "warnings": warns,
        "constant_series": panel.constant,
        "wall_s": time.perf_counter() - t0,
        "cpu_s": time.process_time() - c0,
        "n_jobs": n_jobs,
        "cmi_params": dict(cmi_params),
        "seed": seed,  # the root drawn for seed=None / a Generator: pass it to repeat the run
    }
    graph_array = extra.pop("graph", None)
    if graph_array is not None:
        extra["val_matrix"] = extra["val_matrix"] * factor
    diag.update(extra)
    order = {nm: i for i, nm in enumerate(panel.names)}  # rows by target, source, lag
    edges = sorted(edges, key=lambda e: (order[e[1]], order[e[0]], e[2]))
    frame = pd.DataFrame(
        edges, columns=_EDGE_COLUMNS + (["link"] if graph_array is not None else [])
    )
    frame["estimate"] = frame["estimate"].astype(float) * factor
    tdf = pd.DataFrame(tframe)
    if "omnibus_te" in tdf:
        tdf["omnibus_te"] = tdf["omnibus_te"] * factor
    diag["unit"] = unit_name
    return NetworkResult(
        edges=frame,
        nodes=tuple(panel.names),
        method=method,
        cmi=cmi_name,
        max_lag=max_lag,
        alpha=alpha,
        targets=tdf,
        diagnostics=diag,
        graph_array=graph_array,
        correction=correction,
    )


def _min_lag(method: str, min_lag: Any, tau_min: Any, max_lag: int) -> int:
    """The smallest lag: ``min_lag`` or its alias ``tau_min``; 0 only for PCMCI+."""
    if min_lag is not None and tau_min is not None:
        a = check_int(min_lag, "min_lag", min_value=0, max_value=max_lag)
        b = check_int(tau_min, "tau_min", min_value=0, max_value=max_lag)
        if a != b:
            raise ValueError(f"min_lag={a} and tau_min={b} name the same lag: give one of them")
    name = "tau_min" if tau_min is not None else "min_lag"
    given = tau_min if tau_min is not None else min_lag
    if given is None:
        return 0 if method == "pcmciplus" else 1
    lag = check_int(given, name, min_value=0, max_value=max_lag)
    if lag == 0 and method != "pcmciplus":
        why = (
            "transfer entropy conditions on the past only"
            if method != "pcmci"
            else "PCMCI's MCI tests are defined for lagged links only"
        )
        raise ValueError(
            f"{name}=0 asks for contemporaneous links, which method={method!r} cannot have "
            f"({why}); use method='pcmciplus', or {name} >= 1"
        )
    return lag


def _resolve_cmi(cmi: Any, panel: Any, params: dict[str, Any]) -> str:
    """The CMI method: ``auto`` is plug-in for symbols and Gaussian for numbers, and
    refuses a panel mixing integer and float series or holding float series with few
    distinct values (a Gaussian CMI of bits reads their linear dependence only)."""
    discrete = panel.discrete
    if not isinstance(cmi, str):
        raise TypeError(f"cmi must be a CMI method name, got {type(cmi).__name__}")
    if cmi == "auto":
        choices = (
            "pass discrete=True to read every series as symbols (plug-in CMI), or "
            "discrete=False (or cmi='gaussian' / 'ksg1') to read them as numbers"
        )
        if panel.symbol_series:
            raise ValueError(
                f"data has integer or boolean series {panel.symbol_series[:6]} beside float "
                f"series; cmi='auto' does not mix symbols and numbers: {choices}"
            )
        if panel.few_level:
            nm, k = next(iter(panel.few_level.items()))
            raise ValueError(
                f"series {nm!r} is float but takes {k} distinct values"
                + (f" ({len(panel.few_level) - 1} more such)" if len(panel.few_level) > 1 else "")
                + f"; a Gaussian CMI of such series sees only linear dependence: {choices}"
            )
        cmi = "plugin" if discrete else "gaussian"
    spec = registry.get("cond_mutual_info", cmi)
    kind = "discrete" if discrete else "continuous"
    if kind not in spec.kinds:
        raise ValueError(
            f"cmi={cmi!r} takes {'/'.join(sorted(spec.kinds))} data but the series are {kind}; "
            "pass discrete= or choose another CMI method"
        )
    spec.check_params(params)
    return spec.name


def _target_index(t: Any, names: list[str], constant: list[str]) -> int:
    if isinstance(t, str):
        if t in constant:
            raise ValueError(f"target {t!r} is a constant series (left out)")
        if t not in names:
            raise ValueError(f"unknown target {t!r}; the series are {names}")
        return names.index(t)
    return check_int(t, "targets entry", min_value=0, max_value=len(names) - 1)


def _te(panel, tix, settings, correction, alpha, ex, st):
    """mTE / bivariate TE: per-target jobs, then the network-level ``correction``.

    ``"fdr_bh"`` / ``"fdr_by"``: over every analysed target's gate p-value (the first
    source step's max-statistic test, a valid p-value of "no source informs the target";
    1 where no candidate was tested); ``"fwer"``: every test ran at alpha / m, the omnibus
    p-values Bonferroni-adjusted; ``"none"``: the omnibus p-values."""
    payloads = {int(j): {"data": panel.values, "target": int(j), "settings": settings} for j in tix}
    desc = f"{settings['method']} targets"
    res = _run(te_target, payloads, ex, desc, _sink(st, "te"))
    order = [res[j] for j in tix]
    p_omni = np.array([r["omnibus_p"] if r["edges"] else 1.0 for r in order])
    gate = np.array([r["gate_p"] for r in order])
    m = len(order)
    if correction in ("fdr_bh", "fdr_by"):
        adj = adjust(gate, correction)
    else:  # "fwer": every test of a target ran at alpha / m
        adj = adjust(p_omni, "bonferroni" if correction == "fwer" else "none")
    scale = m if correction == "fwer" else 1
    level = settings["alpha"]  # the level each target's own tests ran at
    names = panel.names
    edges, tframe = [], []
    for r, q in zip(order, adj, strict=True):
        j = r["target"]
        ok = bool(r["edges"]) and r["omnibus_p"] <= level and q <= alpha
        tframe.append(
            {
                "target": names[j],
                "target_lags": r["target_lags"],
                "omnibus_te": r["omnibus_te"],
                "omnibus_p": r["omnibus_p"],
                "gate_p": r["gate_p"],
                "p_corrected": float(q),
                "significant": bool(ok),
                "rows": r["rows"],
            }
        )
        if ok:
            for i, lag, v, p in r["edges"]:
                pc = min(1.0, p * scale)
                if pc <= alpha:
                    edges.append((names[i], names[j], lag, v, p, float(max(q, pc))))
    return edges, tframe


#: The keys of each phase's per-target result (a stored file without one is refused).
_RESULT_KEYS = {
    "te": ("target", "target_lags", "omnibus_te", "omnibus_p", "gate_p", "edges", "rows"),
    "pc": ("target", "parents", "tests"),
    "mci": ("target", "tests", "rows"),
}


def _open_store(store: Any, panel: Any, settings: dict[str, Any]):
    """The resumable folder of ``store=`` (one JSON file per finished target and phase,
    ``targets/<phase>-<target>.json``, in the one store service), or a null context."""
    if store is None:
        return contextlib.nullcontext()

    return ResultStore(
        store,
        kind="network",
        data=fingerprint(panel.values, panel.names),
        params=settings,
        files={"targets": r"(te|pc|mci)-\d+\.json"},
    )


def _sink(st: Any, phase: str):
    """The sink of one phase's per-target results in the store ``st`` (None: no store)."""
    if st is None:
        return None

    return KeyedSink(
        st,
        "targets",
        name=lambda key: f"{phase}-{int(key)}.json",
        key=lambda name: int(name[len(phase) + 1 : -5]) if name.startswith(f"{phase}-") else None,
        format="json",
        required=_RESULT_KEYS[phase],
    )


def _link_adjust(p: np.ndarray, correction: str) -> np.ndarray:
    """Link p-values adjusted by the network ``correction`` (PCMCI / PCMCI+): BH / BY,
    Holm for ``"fwer"``, or as they are."""
    return adjust(p, "holm" if correction == "fwer" else correction)


def _pcmci(panel, tix, settings, correction, alpha, ex, st):

    all_t = list(range(panel.n))  # MCI needs the parents of every source
    base = {j: {"data": panel.values, "target": j, "settings": settings} for j in all_t}
    pc = _run(
        pc_target,
        base,
        ex,
        "PCMCI condition selection",
        _sink(st, "pc"),
    )
    parents = {j: [tuple(p) for p in pc[j]["parents"]] for j in all_t}
    mci_pay = {j: {**base[j], "parents": parents} for j in tix}
    mci = _run(
        mci_target,
        mci_pay,
        ex,
        "PCMCI MCI tests",
        _sink(st, "mci"),
    )
    rows = []
    for j in tix:
        for i, lag, v, p in mci[j]["tests"]:
            rows.append((i, j, lag, v, p))
    q = _link_adjust(np.array([r[4] for r in rows], dtype=np.float64), correction)
    names = panel.names
    edges = [
        (names[i], names[j], lag, v, pv, float(qv))
        for (i, j, lag, v, pv), qv in zip(rows, q, strict=True)
        if qv <= alpha and i != j
    ]
    tframe = [
        {
            "target": names[j],
            "parents": [(names[i], lag) for i, lag in parents[j]],
            "self_lags": sorted(
                lag
                for (i, jj, lag, _, _), qv in zip(rows, q, strict=True)
                if jj == j and i == j and qv <= alpha
            ),
            "rows": mci[j]["rows"],
        }
        for j in tix
    ]
    return edges, tframe


def _default_jobs() -> int:  # pragma: no cover - convenience for callers
    return os.cpu_count() or 1


def _pcmciplus(panel, tix, settings, correction, ex, st):
    """PCMCI+: PC1 per target (jobs), then phases 2-4 on all targets in this process."""
    n, tau = panel.n, settings["max_lag"]
    base = {j: {"data": panel.values, "target": j, "settings": settings} for j in range(n)}
    pc = _run(
        pc_target,
        base,
        ex,
        "PCMCI+ lagged parents (PC1)",
        _sink(st, "pc"),
    )
    parents = {j: [(int(i), int(g)) for i, g in pc[j]["parents"]] for j in range(n)}
    p_lag = np.ones((n, n, tau + 1))
    v_lag = np.zeros((n, n, tau + 1))
    for j in range(n):
        for i, g, v, p in pc[j]["tests"]:
            p_lag[int(i), j, int(g)], v_lag[int(i), j, int(g)] = p, v
    tests = LinkTests(panel.values, settings)
    out = pcmciplus_graph(
        n,
        tests,
        parents,
        tau_min=settings["min_lag"],
        tau_max=tau,
        alpha=settings["alpha"],
        max_conds_dim=settings["max_conds_dim"],
        max_conds_px=settings["max_conds_px"],
        max_subsets=MAX_COLLIDER_SUBSETS,
        p_lagged=p_lag,
        val_lagged=v_lag,
        progress=ex.progress,
    )
    graph, pm, vm = out["graph"], out["p_matrix"], out["val_matrix"]
    qm = pm.copy()
    if correction != "none":
        graph = np.array(graph, copy=True)
        qm = _pcmciplus_adjust(pm, settings["min_lag"], correction)
        cut = (qm > settings["alpha"]) & (graph != "")
        graph[cut] = ""
        cut0 = cut[:, :, 0] | cut[:, :, 0].T  # a contemporaneous link goes with its mirror
        graph[:, :, 0][cut0] = ""
    names = panel.names
    keep = set(tix)
    edges = []
    for i, j, g in zip(*np.nonzero(graph != ""), strict=True):
        i, j, g = int(i), int(j), int(g)
        mark = str(graph[i, j, g])
        if i == j or mark == "<--" or (mark != "-->" and i > j):
            continue  # autodependence (in targets) or the mirror of a contemporaneous link
        if j not in keep and not (mark != "-->" and i in keep):
            continue
        edges.append(
            (
                names[i],
                names[j],
                g,
                float(vm[i, j, g]),
                float(pm[i, j, g]),
                float(qm[i, j, g]),
                mark,
            )
        )
    tframe = [
        {
            "target": names[j],
            "parents": [(names[i], g) for i, g in parents[j]],
            "self_lags": [g for g in range(1, tau + 1) if graph[j, j, g] == "-->"],
            "rows": tests.engine(j)[0].n,
        }
        for j in tix
    ]
    extra = {
        "graph": graph,
        "p_matrix": pm,
        "q_matrix": qm,
        "val_matrix": vm,
        "ambiguous_triples": [
            ((names[i], g), names[k], names[j]) for (i, g), k, j in out["ambiguous_triples"]
        ],
        "n_tests": tests.n_tests,
    }
    return edges, tframe, extra


def _pcmciplus_adjust(pm: np.ndarray, tau_min: int, correction: str) -> np.ndarray:
    """PCMCI+'s p-value matrix adjusted over every tested link: lagged links
    ``[i, j, tau]`` for tau ≥ max(tau_min, 1), each contemporaneous pair once (the matrix is
    symmetric at lag 0), self-links at lag 0 left out (as Tigramite's
    ``get_corrected_pvalues``)."""
    n, _, t1 = pm.shape
    mask = np.zeros(pm.shape, bool)
    mask[:, :, max(tau_min, 1) :] = True
    if tau_min == 0:
        mask[:, :, 0] = np.triu(np.ones((n, n), bool), 1)
    q = pm.copy()
    q[mask] = _link_adjust(pm[mask].astype(np.float64), correction)
    if tau_min == 0:
        low = np.tril_indices(n, -1)
        q[low[0], low[1], 0] = q[low[1], low[0], 0]
    return q
