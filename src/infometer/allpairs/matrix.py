"""``infometer.pairwise``: the matrix of MI (or CMI given Z) between all columns of a table."""

from __future__ import annotations

import os
import tempfile
import threading
import time
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from pathlib import Path
from typing import Any

import numpy as np

from .. import registry
from .._estimate import resolve_unit, unit_factor
from ..data import (
    InfometerWarning,
    Variable,
    as_variable,
    check_choice,
    check_float,
    check_int,
)
from ..progress import progress_bar
from . import compute
from .compute import Config, Group, canonical_method, prepare_group, signature
from .table import as_table

__all__ = ["pairwise", "PairwiseResult", "make_config", "CORRECTIONS", "NULLS", "BACKENDS"]

CORRECTIONS = ("bh", "holm", "bonferroni")
NULLS = ("auto", "pair")
BACKENDS = ("threads", "dask")
#: Columns per group: KSG and per-pair estimators (work per block ~ 64² pairs), copula
#: (one matrix product per block; 1024 columns make P = 1000 a single product).
BLOCK_SIZE = {"copula": 1024, "other": 64}


@dataclass
class PairwiseResult:
    """The all-pairs information of a table.

    Attributes
    ----------
    matrix
        Labelled P x P DataFrame of MI (or CMI) in :attr:`unit`; symmetric, NaN on the
        diagonal (a column's information with itself is its entropy, infinite for
        continuous data) and on the rows/columns of dropped columns.
    edges
        Tidy table of the upper triangle, one row per pair: ``x``, ``y``, ``value``,
        ``method`` and, with a permutation test, ``p_value``, ``q_value`` (adjusted by
        :attr:`correction`) and ``significant`` (``q_value <= fdr``).  Sorted by value.
    p_values, q_values
        P x P DataFrames (None without a test).
    diagnostics
        Methods used per kind of pair and why, dropped and constant columns, warnings,
        null schemes, blocks planned/computed/stored, timings, backend.
    """

    matrix: Any
    edges: Any
    unit: str
    quantity: str
    n: int
    given: list[str] | None = None
    n_permutations: int = 0
    fdr: float | None = None
    correction: str | None = None
    p_values: Any = None
    q_values: Any = None
    diagnostics: dict[str, Any] = field(default_factory=dict)

    @property
    def labels(self) -> list[str]:
        return list(self.matrix.columns)

    @property
    def significant_edges(self) -> Any:
        """The sparse edge list: pairs whose FDR-adjusted q-value is at most :attr:`fdr`."""
        if "significant" not in self.edges:
            raise ValueError(
                "no permutation test was run; pass permutations=B (e.g. 199) to pairwise()"
            )
        return self.edges[self.edges["significant"]].reset_index(drop=True)

    def to(self, unit: str) -> PairwiseResult:
        """The same result in another unit (``"bits"``, ``"nats"``, ...)."""
        target = resolve_unit(unit)
        f = unit_factor(self.unit, target)
        edges = self.edges.copy()
        edges["value"] = edges["value"] * f
        return PairwiseResult(
            matrix=self.matrix * f,
            edges=edges,
            unit=target,
            quantity=self.quantity,
            n=self.n,
            given=self.given,
            n_permutations=self.n_permutations,
            fdr=self.fdr,
            correction=self.correction,
            p_values=self.p_values,
            q_values=self.q_values,
            diagnostics=self.diagnostics,
        )

    def aracne(self, tolerance: float = 0.0, significant: bool | None = None) -> Any:
        """ARACNE's data-processing-inequality pruning; see :func:`infometer.allpairs.aracne`."""
        from .network import aracne

        return aracne(self, tolerance=tolerance, significant=significant)

    def clr(self) -> Any:
        """CLR's background-corrected scores; see :func:`infometer.allpairs.clr`."""
        from .network import clr

        return clr(self)

    def heatmap(self, path: str | os.PathLike, *, cluster: bool = True, title: str | None = None):
        """Save a heatmap PNG of :attr:`matrix` (rows and columns in clustered order)."""
        from .network import plot_heatmap

        return plot_heatmap(self, path, cluster=cluster, title=title)

    def __repr__(self) -> str:
        p = self.matrix.shape[0]
        q = "CMI" if self.quantity == "cond_mutual_info" else "MI"
        used = ", ".join(f"{m} ({c})" for m, c in self.diagnostics.get("methods", {}).items())
        test = ""
        if self.n_permutations:
            k = int(self.edges["significant"].sum())
            test = f"; {k} significant pairs at FDR {self.fdr:g} ({self.n_permutations} perms)"
        return f"PairwiseResult({q} of {p} columns, n={self.n}, {self.unit}; {used}{test})"


# ------------------------------------------------------------------------- planning
def _given_variable(given: Any) -> tuple[list[str], Any]:
    """Split ``given`` into column labels of ``data`` or an array."""
    if isinstance(given, str):
        return [given], None
    if isinstance(given, Sequence) and given and all(isinstance(g, str) for g in given):
        return list(given), None
    return [], given


def _resolve_table(cfg: Config, variables: list[Variable]) -> dict[str, str]:
    """Fill ``cfg.resolved`` for every pair of column signatures; check kinds and params.

    Returns method -> why it was chosen.
    """
    if cfg.method != "auto":
        spec = registry.get(cfg.quantity, cfg.method)
        kinds = "/".join(sorted(spec.kinds))
        if cfg.z is not None and cfg.z.kind not in spec.kinds:
            raise ValueError(f"method {spec.name!r} takes {kinds} data but given is {cfg.z.kind}")
        wrong = [v for v in variables if v.kind not in spec.kinds]
        if wrong:
            raise ValueError(
                f"method {spec.name!r} takes {kinds} data but column(s) "
                f"{[v.name for v in wrong][:10]} are {wrong[0].kind}; use method='auto' (an "
                "estimator per pair of column kinds), pass discrete=True/False, or select columns"
            )
        disc = [v.name for v in variables if v.is_discrete]
        if spec.name == "gaussian_copula" and len(disc) > 1:
            raise ValueError(
                f"method 'gaussian_copula' is not defined between two discrete columns "
                f"({disc[:10]}); use method='auto' or leave discrete columns out"
            )
    reps: dict[tuple, Variable] = {}
    for v in variables:
        reps.setdefault(signature(v), v)
    names: set[str] = set()
    reasons: dict[str, str] = {}
    for s1, s2 in combinations_with_replacement(sorted(reps), 2):
        va, vb = reps[s1], reps[s2]
        if cfg.method == "auto" and va.is_discrete and vb.is_discrete:
            names |= {"miller_madow", "nsb"}  # the discrete rule picks per pair, from counts
            continue
        if cfg.method == "auto":
            vs = {"x": va, "y": vb} if cfg.z is None else {"x": va, "y": vb, "z": cfg.z}
            name, reason = registry.choose_auto(registry.AutoContext(cfg.quantity, vs))
        else:
            name, reason = cfg.method, "given"
        cfg.resolved[(s1, s2)] = cfg.resolved[(s2, s1)] = (name, reason)
        names.add(name)
        reasons.setdefault(name, reason)
    valid: set[str] = set()
    for name in names:
        valid |= set(registry.get(cfg.quantity, name).params)
    unknown = sorted(set(cfg.params) - valid)
    if unknown:
        raise TypeError(
            f"pairwise() with method {cfg.method!r} has no parameter "
            f"{', '.join(map(repr, unknown))}; the estimators it uses "
            f"({', '.join(sorted(names))}) take: {', '.join(sorted(valid - {'seed'})) or 'none'}"
        )
    _check_fast_params(cfg, names)
    return reasons


def make_config(
    variables: list[Variable],
    method: str,
    params: dict[str, Any],
    *,
    seed: int,
    ranks: bool = False,
    z: Variable | None = None,
    permutations: int = 0,
    null: str = "auto",
) -> tuple[Config, dict[str, str]]:
    """A :class:`Config` for these columns: methods resolved per kind of pair, params checked."""
    n = variables[0].n
    cfg = Config(
        quantity="mutual_info" if z is None else "cond_mutual_info",
        method=canonical_method(method),
        params=dict(params),
        n=n,
        seed=seed,
        ranks=ranks,
        n_permutations=permutations,
        null=null,
        z=z,
        resolved={},
        slabs=compute.kernels.n_slabs(n),
    )
    live = [v for v in variables if not compute.is_constant(v)] or variables[:1]
    return cfg, _resolve_table(cfg, live)


def _check_fast_params(cfg: Config, names: set[str]) -> None:
    if "ksg1" in names:
        _, p = cfg.spec_params("ksg1")
        k = check_int(p["k"], "k", min_value=1)
        if k >= cfg.n:
            raise ValueError(f"k must be smaller than the number of samples ({cfg.n}), got k={k}")
        if not isinstance(p["standardize"], bool | np.bool_):
            raise TypeError(f"standardize must be True or False, got {p['standardize']!r}")
        check_choice(p["jitter"], "jitter", ("auto", "always", "never"))
        check_float(p["jitter_scale"], "jitter_scale", low=0.0, inclusive=(False, True))
        check_int(p["theiler"], "theiler", min_value=0)
    if "gaussian_copula" in names:
        _, p = cfg.spec_params("gaussian_copula")
        if not isinstance(p["bias_correct"], bool):
            raise TypeError(f"bias_correct must be True or False, got {p['bias_correct']!r}")
        if cfg.n < 4 + (0 if cfg.z is None else cfg.z.d):
            raise ValueError(f"method 'gaussian_copula' needs more samples, got n={cfg.n}")


def _ties(v: Variable) -> bool:
    s = np.sort(v.columns[0])
    return bool(np.any(s[1:] == s[:-1]))


def _shared_columns(cfg: Config, variables: list[Variable], const: np.ndarray) -> np.ndarray:
    """Columns whose pairs may share one null: rank-invariant statistic, tie-free column."""
    out = np.zeros(len(variables), bool)
    if cfg.n_permutations == 0 or cfg.null != "auto" or cfg.z is not None:
        return out
    smooth = ("continuous", False)
    if (smooth, smooth) not in cfg.resolved:
        return out
    name = cfg.resolved[(smooth, smooth)][0]
    dummy = variables[0]
    if not (cfg.ranks or cfg.route(name, dummy, dummy) == "copula"):
        return out
    for j, v in enumerate(variables):
        out[j] = signature(v) == smooth and not const[j] and not _ties(v)
    return out


def _shared_null(cfg: Config) -> np.ndarray:
    """The statistic on (u, u[π_t]) for the B permutations: the null of every shared pair."""
    u = np.arange(cfg.n, dtype=np.float64)
    perms = compute.permutations(cfg)
    cols = [u] + [u[p] for p in perms]
    vs = [as_variable(c, f"u{t}") for t, c in enumerate(cols)]
    vs = [
        Variable(v.columns, v.kinds, v.cardinalities, name=f"u{t}", diagnostics={})
        for t, v in enumerate(vs)
    ]
    null_cfg = Config(**{**cfg.__dict__, "n_permutations": 0})
    g = prepare_group(null_cfg, np.arange(len(vs)), vs)
    ia = np.zeros(len(perms), np.int64)
    ib = np.arange(1, len(vs), dtype=np.int64)
    name, _ = cfg.resolved[(("continuous", False), ("continuous", False))]
    value = np.full(ia.size, np.nan)
    ge = np.full(ia.size, -1, np.int64)
    sel = np.arange(ia.size)
    wants = np.zeros(ia.size, bool)
    route = cfg.route(name, vs[0], vs[1])
    if route == "ksg":
        compute._ksg(null_cfg, g, g, ia, ib, sel, wants, None, value, ge)
    elif route == "copula":
        compute._copula(null_cfg, g, g, ia, ib, sel, wants, None, value, ge)
    else:
        compute._call(null_cfg, name, g, g, ia, ib, sel, wants, None, value, ge, Counter())
    return np.sort(value)


# ------------------------------------------------------------------------- backends
class _LocalBlocks:
    """Thread backend: each group prepared once (on first use), blocks from memory."""

    def __init__(self, cfg: Config, groups: list[np.ndarray], variables: list[Variable]):
        self.cfg, self.groups, self.variables = cfg, groups, variables
        self._prepared: dict[int, Group] = {}
        self._locks = [threading.Lock() for _ in groups]

    def group(self, g: int) -> Group:
        with self._locks[g]:
            if g not in self._prepared:
                cols = self.groups[g]
                self._prepared[g] = prepare_group(self.cfg, cols, [self.variables[c] for c in cols])
            return self._prepared[g]

    def __call__(self, key: tuple[int, int]) -> compute.BlockResult:
        g, h = key
        return compute.evaluate_block(self.cfg, self.group(g), self.group(h), key)


_REMOTE_GROUPS: dict[tuple[str, int], Group] = {}
_REMOTE_LOCK = threading.Lock()


def _remote_group(cfg: Config, path: str, g: int, cols: np.ndarray) -> Group:
    key = (cfg.token, g)
    with _REMOTE_LOCK:
        if key in _REMOTE_GROUPS:
            return _REMOTE_GROUPS[key]
    from .store import read_input_columns

    grp = prepare_group(cfg, cols, read_input_columns(path, cols))
    with _REMOTE_LOCK:
        if len(_REMOTE_GROUPS) >= 32:
            _REMOTE_GROUPS.pop(next(iter(_REMOTE_GROUPS)))
        _REMOTE_GROUPS[key] = grp
    return grp


def remote_block(payload: tuple) -> compute.BlockResult:
    """A Dask task: read the block's two groups from the store's input file and evaluate."""
    cfg, path, key, cols_g, cols_h = payload
    with _REMOTE_LOCK:  # load the registry's families once, not from two threads at a time
        registry.methods(cfg.quantity)
    ga = _remote_group(cfg, path, key[0], cols_g)
    gb = ga if key[0] == key[1] else _remote_group(cfg, path, key[1], cols_h)
    return compute.evaluate_block(cfg, ga, gb, key)


class _Payloads(dict):
    """key -> payload, built when asked for (so the client never holds them all)."""

    def __init__(self, keys, make):
        super().__init__((k, None) for k in keys)
        self._make = make

    def __getitem__(self, key):
        return self._make(key)


def _bar(total: int, enabled: bool | None):
    if enabled is None and total < 20_000:
        enabled = False  # a small matrix takes no time worth a bar
    return progress_bar(total=total, unit="pair", desc="pairwise", progress=enabled)


# ------------------------------------------------------------------------------ API
def pairwise(
    data: Any,
    *,
    method: str = "auto",
    given: Any = None,
    columns: Sequence[str] | None = None,
    unit: str | None = "nats",
    base: float | None = None,
    permutations: int = 0,
    fdr: float = 0.05,
    correction: str = "bh",
    null: str = "auto",
    ranks: bool = False,
    nan: str = "error",
    discrete: bool | None = None,
    seed: int | None = 0,
    block_size: int | None = None,
    n_jobs: int | None = None,
    backend: str = "threads",
    client: Any = None,
    store: str | os.PathLike | None = None,
    progress: bool | None = None,
    **params: Any,
) -> PairwiseResult:
    """Mutual information (or CMI given Z) between every pair of columns of a table.

    Parameters
    ----------
    data
        pandas / polars DataFrame, dict of columns or 2-D array (columns ``"0"``, ``"1"``...);
        discrete (integers, strings, categoricals, booleans), continuous (floats) and
        mixed tables.
    method
        ``"auto"`` (default): each pair gets the estimator :func:`infometer.mutual_info`
        would choose for it (KSG-1 for two continuous columns, Miller-Madow / NSB for two
        discrete ones, GKOV for a discrete and a continuous one); or one registered name
        for every pair, e.g. ``"ksg1"`` (alias ``"ksg"``) or ``"gaussian_copula"``
        (``"copula"``).  KSG-1 and the Gaussian copula have all-pairs kernels.
    given
        Condition every pair on Z: a column name (or list of names) of ``data``, which
        then leaves the matrix, or an array with the same rows.  Gives I(X;Y|Z).
    columns
        Use only these columns.
    unit, base
        Unit of the values (``"nats"``, ``"bits"``, ...).
    permutations
        B > 0 runs a permutation test of independence for every pair.  One null serves
        every pair where that is exact (rank-based statistics, i.e. the Gaussian copula or
        ``ranks=True``, on tie-free continuous columns); other pairs get their own B
        permutations (given Z: within its strata, or local permutations for continuous Z).
    fdr, correction
        FDR level and correction (``"bh"``, ``"holm"``, ``"bonferroni"``; through
        :func:`infometer.multipletests`) for the ``significant`` column.
    null
        ``"auto"`` (shared null where exact) or ``"pair"`` (every pair its own).
    ranks
        Replace continuous columns by their ranks first (MI is invariant to monotone
        maps; KSG on ranks is robust to heavy tails and gets the shared null).
    nan
        Missing values: ``"error"``, ``"drop_rows"``, ``"drop_columns"``; all-missing
        columns are always dropped (NaN in the matrix) with a warning.
    discrete
        Force every column to symbols (True) or numbers (False).
    seed
        Seed for jitter of tied columns and for the permutations.
    block_size
        Columns per group (a block is a pair of groups); default 64 (1024 for the copula).
    n_jobs
        Threads for the local backend (default: all cores).
    backend, client
        ``"threads"`` (default) or ``"dask"`` with ``client`` a ``distributed.Client`` or a
        scheduler address.  With Dask, blocks run as tasks, lost workers' blocks are
        re-run, and finished blocks go to ``store``.
    store
        Folder of a resumable block store (Parquet): finished blocks are kept, a restarted
        job computes only the missing ones.  Dask needs one every worker can read (a
        temporary folder is used when not given, which suits a local cluster).
    progress
        Progress bar (default: for large jobs on a terminal).
    **params
        The estimators' own parameters (e.g. ``k=5`` for KSG); an unknown one is an error.

    Returns
    -------
    PairwiseResult
    """
    t_start = time.perf_counter()
    unit_name = resolve_unit(unit, base)
    permutations = check_int(permutations, "permutations", min_value=0)
    fdr = check_float(fdr, "fdr", low=0.0, high=1.0, inclusive=(False, True))
    check_choice(correction, "correction", CORRECTIONS)
    check_choice(null, "null", NULLS)
    check_choice(backend, "backend", BACKENDS)
    if not isinstance(ranks, bool):
        raise TypeError(f"ranks must be True or False, got {ranks!r}")
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    seed = check_int(seed, "seed", min_value=0)
    if block_size is not None:
        block_size = check_int(block_size, "block_size", min_value=1)
    n_jobs = check_int(n_jobs if n_jobs is not None else os.cpu_count() or 1, "n_jobs", min_value=1)
    method = canonical_method(method)
    if method != "auto":
        registry.get("mutual_info" if given is None else "cond_mutual_info", method)

    given_cols, given_array = ([], None) if given is None else _given_variable(given)
    table = as_table(data, discrete=discrete, nan=nan, columns=columns, min_columns=2)
    z = None
    if given_cols:
        missing = [g for g in given_cols if g not in table.labels]
        if missing:
            raise ValueError(f"given: data has no column {missing}")
        zs = [table.variables[table.labels.index(g)] for g in given_cols]
        if any(v is None for v in zs):
            raise ValueError(f"given: column(s) {given_cols} were dropped ({table.dropped})")
        z = zs[0]
        for v in zs[1:]:
            z = z.join(v)
        z = Variable(z.columns, z.kinds, z.cardinalities, name="given", symbols=z.symbols)
    elif given_array is not None:
        if table.n != (len(given_array) if hasattr(given_array, "__len__") else -1):
            raise ValueError(
                f"given has {len(given_array) if hasattr(given_array, '__len__') else '?'} "
                f"rows but data has {table.n} (after missing-value handling); put the "
                "conditioning columns in data and name them in given="
            )
        z = as_variable(given_array, "given", discrete=discrete)
    labels = [lab for lab in table.labels if lab not in given_cols]
    if len(labels) < 2:
        raise ValueError("pairwise information needs at least 2 columns besides given")
    kept = [j for j in table.kept if table.labels[j] not in given_cols]
    variables = [table.variables[j] for j in kept]
    if len(variables) < 2:
        raise ValueError(f"fewer than 2 usable columns (dropped: {table.dropped})")
    const = np.array([v.name in table.constant for v in variables])
    cfg, reasons = make_config(
        variables, method, params, seed=seed, ranks=ranks, z=z, permutations=permutations, null=null
    )
    cfg.shared = _shared_columns(cfg, variables, const)
    names = {nm for nm, _ in cfg.resolved.values()}
    if block_size is None:
        block_size = BLOCK_SIZE["copula" if names == {"gaussian_copula"} else "other"]
    p = len(variables)
    groups = [np.arange(s, min(s + block_size, p)) for s in range(0, p, block_size)]
    keys = compute.blocks(len(groups))
    n_pairs = {(g, h): _n_pairs(len(groups[g]), len(groups[h]), g == h) for g, h in keys}

    null_values = _shared_null(cfg) if cfg.shared.any() else None

    sink, owned_tmp = _open_store(store, backend, cfg, variables, labels, table, block_size)
    bar = _bar(sum(n_pairs.values()), progress)

    def on_progress(pr) -> None:
        if bar is not None:
            bar.update(n_pairs[pr.key])

    t0 = time.perf_counter()
    try:
        if backend == "threads":
            func = _LocalBlocks(cfg, groups, variables)
            outcome = _run(func, {k: k for k in keys}, sink, n_jobs, None, on_progress)
        else:
            client = _client(client)
            if hasattr(sink, "write_input"):
                sink.write_input(variables)
            path = str(sink.input_path)
            jobs = _Payloads(keys, lambda k: (cfg, path, k, groups[k[0]], groups[k[1]]))
            outcome = _run(remote_block, jobs, sink, None, client, on_progress)
    finally:
        if bar is not None:
            bar.close()
    t_compute = time.perf_counter() - t0
    if outcome.errors:
        first = next(iter(outcome.errors.values()))
        raise ValueError(f"{len(outcome.errors)} block(s) failed; the first with {first}")
    outcome.raise_if_incomplete()
    results = [sink.results[k] if hasattr(sink, "results") else sink.read(k) for k in keys]
    if owned_tmp is not None:
        owned_tmp.cleanup()

    # ---------------------------------------------------------------- assemble
    res = _assemble(
        results, table, labels, kept, variables, cfg, null_values, unit_name, fdr, correction
    )
    diag = res.diagnostics
    diag.update(
        {
            "auto_reasons" if method == "auto" else "method_reason": reasons,
            "dropped_columns": dict(table.dropped),
            "constant_columns": [v.name for v, c in zip(variables, const, strict=True) if c],
            "blocks": {
                "block_size": block_size,
                "planned": outcome.planned,
                "computed": outcome.ran,
                "already_stored": outcome.already_done,
                "retried": outcome.retried,
            },
            "backend": backend,
            "store": None if store is None else str(store),
            "seconds": {"compute": t_compute, "total": time.perf_counter() - t_start},
            "ranks": ranks,
        }
    )
    msgs = [*table.warnings, *diag.pop("_messages", [])]
    if msgs:
        diag["warnings"] = msgs
        for m in msgs:
            warnings.warn(m, InfometerWarning, stacklevel=2)
    res.given = given_cols or (None if z is None else ["given"])
    return res


def _n_pairs(a: int, b: int, same: bool) -> int:
    return a * (a - 1) // 2 if same else a * b


def _client(client: Any) -> Any:
    if client is not None:
        return client
    try:
        from distributed import get_client

        return get_client()
    except (ImportError, ValueError) as exc:
        raise ValueError(
            "backend='dask' needs client= (a distributed.Client or a scheduler address "
            "such as 'tcp://host:8786')"
        ) from exc


def _run(func, jobs, sink, workers, client, on_progress):
    from ..parallel import run_jobs

    if client is None:
        return run_jobs(
            func,
            jobs,
            sink,
            workers=workers,
            pool="threads",
            progress=on_progress,
            interruptible=False,
        )
    return run_jobs(func, jobs, sink, scheduler=client, progress=on_progress, interruptible=False)


def _open_store(store, backend, cfg, variables, labels, table, block_size):
    """The sink: in memory, or a :class:`BlockStore` folder (temporary for Dask if none)."""
    if store is None and backend == "threads":
        from ..parallel import MemorySink

        return MemorySink(), None
    from .store import BlockStore, fingerprint_data

    tmp = None
    if store is None:
        tmp = tempfile.TemporaryDirectory(prefix="infometer-pairwise-")
        store = tmp.name
    fp = {
        "format": 1,
        "data": fingerprint_data(variables, cfg.z),
        "labels": [v.name for v in variables],
        "n": cfg.n,
        "quantity": cfg.quantity,
        "method": cfg.method,
        "params": {k: repr(v) for k, v in sorted(cfg.params.items())},
        "seed": cfg.seed,
        "ranks": cfg.ranks,
        "permutations": cfg.n_permutations,
        "null": cfg.null,
        "block_size": block_size,
    }
    return BlockStore(Path(store), fp), tmp


def _assemble(results, table, labels, kept, variables, cfg, null_values, unit, fdr, correction):
    import pandas as pd

    from ..stats import multipletests

    p = len(variables)
    f = unit_factor("nats", unit)
    a = np.concatenate([r.a for r in results])
    b = np.concatenate([r.b for r in results])
    val = np.concatenate([r.value for r in results])
    ge = np.concatenate([r.null_ge for r in results])
    names_all: list[str] = []
    for r in results:
        names_all += [m for m in r.methods if m not in names_all]
    meth = np.concatenate(
        [np.array([names_all.index(m) for m in r.methods], np.int16)[r.code] for r in results]
    )
    messages: Counter = Counter()
    for r in results:
        messages.update(r.messages)
    mat = np.full((p, p), np.nan)
    mat[a, b] = val
    mat[b, a] = val
    # place into the full label order (dropped columns stay NaN)
    full = np.full((len(labels), len(labels)), np.nan)
    idx = np.array([labels.index(v.name) for v in variables])
    full[np.ix_(idx, idx)] = mat
    frame = pd.DataFrame(full * f, index=labels, columns=labels)
    order = np.argsort(-np.nan_to_num(val, nan=-np.inf), kind="stable")  # strongest first
    names = [v.name for v in variables]
    edges = pd.DataFrame(
        {
            "x": pd.Categorical.from_codes(a[order], categories=names),
            "y": pd.Categorical.from_codes(b[order], categories=names),
            "value": val[order] * f,
            "method": pd.Categorical.from_codes(meth[order], categories=names_all),
        }
    )
    counts = np.bincount(meth, minlength=len(names_all))
    diag: dict[str, Any] = {
        "methods": {m: int(c) for m, c in zip(names_all, counts, strict=True) if c}
    }
    finite = np.isfinite(val)
    diag["negative_pairs"] = int(np.sum(val[finite] < 0))
    if (~finite).any():
        diag["nonfinite_pairs"] = int(np.sum(~finite))
        messages[
            f"{int(np.sum(~finite))} pair(s) have non-finite estimates (e.g. identical columns "
            "under the Gaussian copula: infinite MI)"
        ] += 1
    res = PairwiseResult(
        matrix=frame,
        edges=edges,
        unit=unit,
        quantity=cfg.quantity,
        n=cfg.n,
        n_permutations=cfg.n_permutations,
    )
    if cfg.n_permutations:
        B = cfg.n_permutations
        pv = np.full(val.size, np.nan)
        has = ge >= 0
        pv[has] = (1.0 + ge[has]) / (1.0 + B)
        shared = ~has & finite
        if shared.any():
            n_ge = null_values.size - np.searchsorted(null_values, val[shared], side="left")
            pv[shared] = (1.0 + n_ge) / (1.0 + B)
        ok = np.isfinite(pv)
        qv = np.full(val.size, np.nan)
        rej = np.zeros(val.size, bool)
        if ok.any():
            mt = multipletests(pv[ok], method=correction, alpha=fdr)
            qv[ok], rej[ok] = mt.p_adjusted, mt.reject
        edges["p_value"] = pv[order]
        edges["q_value"] = qv[order]
        edges["significant"] = rej[order]
        for name, vec in (("p_values", pv), ("q_values", qv)):
            m = np.full((p, p), np.nan)
            m[a, b] = vec
            m[b, a] = vec
            fm = np.full((len(labels), len(labels)), np.nan)
            fm[np.ix_(idx, idx)] = m
            setattr(res, name, pd.DataFrame(fm, index=labels, columns=labels))
        res.fdr, res.correction = fdr, correction
        diag["null"] = {
            "shared_pairs": int(shared.sum()),
            "own_null_pairs": int(np.sum(has & (meth != names_all.index(compute.CONSTANT)))),
            "scheme": (
                "permutation"
                if cfg.z is None
                else "permutation within strata of given"
                if cfg.z.is_discrete
                else f"local conditional permutation, k={cfg.n_neighbors}"
            ),
        }
        if null_values is not None:
            diag["null"]["shared_null_q95"] = float(np.quantile(null_values, 0.95) * f)
    res.edges = edges
    diag["_messages"] = [f"{m} ({c} pair(s) or column(s))" for m, c in messages.items()]
    res.diagnostics = diag
    return res
