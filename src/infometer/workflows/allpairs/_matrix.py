"""``infometer.pairwise``: the matrix of MI (or CMI given Z) between all columns of a table."""

from __future__ import annotations

import numbers
import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core._warnings import warn_user
from infometer.core.data import (
    InfometerWarning,
    Variable,
    as_variable,
    check_choice,
    check_float,
    check_int,
)
from infometer.core.estimate import resolve_unit, unit_factor
from infometer.core.parallel import Execution
from infometer.core.seeding import Seed, resolve_seed
from infometer.core.validation import (
    Flag,
    Instance,
    Interval,
    Many,
    Options,
    Size,
    check_bool,
    check_budget,
    check_memory,
    validate_params,
)
from infometer.estimators.knn._estimators import SATURATION, knn_ceiling
from infometer.measures.stats.correction import CORRECTIONS
from infometer.measures.stats.nulls import MAX_PERMUTATIONS

from . import _compute as compute
from . import _significance
from ._blocks import BACKENDS, run_blocks
from ._compute import Config, canonical_method, signature
from ._result import PairwiseResult
from ._significance import NULLS, Test
from ._table import NAN_POLICIES, as_table

__all__ = ["pairwise", "PairwiseResult", "make_config", "CORRECTIONS", "NULLS", "BACKENDS"]
#: Default ``max_pairs``: 10,000 columns (minutes per pair estimator, 0.8 GB of matrices).
MAX_PAIRS = 50_000_000
#: Columns per group: KSG and per-pair estimators (work per block ~ 64² pairs), copula
#: (one matrix product per block; 1024 columns make P = 1000 a single product).
BLOCK_SIZE = {"copula": 1024, "other": 64}


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
    n_permutations: int = 0,
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
        n_permutations=n_permutations,
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
        check_bool(p["dequantize"], "dequantize")
    if "gaussian_copula" in names:
        _, p = cfg.spec_params("gaussian_copula")
        if not isinstance(p["bias_correct"], bool):
            raise TypeError(f"bias_correct must be True or False, got {p['bias_correct']!r}")
        if cfg.n < 4 + (0 if cfg.z is None else cfg.z.d):
            raise ValueError(f"method 'gaussian_copula' needs more samples, got n={cfg.n}")


# ------------------------------------------------------------------------------ API
#: What :func:`pairwise` accepts, declared once (issue 37 §2): checked before the table is
#: read, and swept with each constraint's bad values by tests/families/test_param_constraints.py.
PAIRWISE_PARAMS = {
    "method": [Instance(str, what="an MI method name ('auto', 'ksg1', 'copula', ...)")],
    "columns": [
        Many(Instance(str, numbers.Integral, what="a column name"), distinct=True, what="columns"),
        None,
    ],
    "n_permutations": [Size(0, limit=MAX_PERMUTATIONS, what="permutations per pair")],
    "correction": [Options(*CORRECTIONS)],
    "alpha": [Interval(numbers.Real, 0, 1, closed="right")],
    "null": [Options(*NULLS)],
    "ranks": [Flag()],
    "nan": [Options(*NAN_POLICIES)],
    "discrete": [Flag(), None],
    "block_size": [Interval(numbers.Integral, 1), None],
    "store": [Instance(str, os.PathLike, what="a folder path (str or os.PathLike)"), None],
    "progress": [Flag(), None],
    "max_pairs": [Interval(numbers.Integral, 1)],
}


@validate_params(PAIRWISE_PARAMS)
def pairwise(
    data: Any,
    *,
    method: str = "auto",
    given: Any = None,
    columns: Sequence[str] | None = None,
    unit: str | None = "nats",
    base: float | None = None,
    n_permutations: int = 0,
    correction: str = "fdr_bh",
    alpha: float = 0.05,
    null: str = "auto",
    ranks: bool = False,
    nan: str = "error",
    discrete: bool | None = None,
    seed: Seed = 0,
    block_size: int | None = None,
    execution: Execution | None = None,
    n_jobs: int | None = None,
    store: str | os.PathLike | None = None,
    progress: bool | None = None,
    max_pairs: int = MAX_PAIRS,
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
    n_permutations
        B > 0 runs a permutation test of independence for every pair.  One null serves
        every pair where that is exact (rank-based statistics, i.e. the Gaussian copula or
        ``ranks=True``, on tie-free continuous columns); other pairs get their own B
        permutations (given Z: within its strata, or local permutations for continuous Z).
    correction
        Multiple-testing correction over every tested pair, behind ``q_value`` and
        ``significant`` (the one policy of :mod:`infometer.measures.stats.correction`):
        ``"fdr_bh"`` (Benjamini–Hochberg, default), ``"fdr_by"`` (Benjamini–Yekutieli,
        any dependence), ``"fwer"`` (Holm over all pairs: P(any false pair) ≤ ``alpha``
        under any dependence) or ``"none"`` (each pair at ``alpha``).
    alpha
        Level of the ``significant`` column (FDR level, family-wise level or per-pair
        level, as ``correction`` says).
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
        Seed for jitter of tied columns and for the permutations. An int >= 0 (the same int gives
        the same numbers), a numpy.random.Generator (drawn from as it is) or None (fresh entropy
        from the operating system).
    block_size
        Columns per group (a block is a pair of groups); default 64 (1024 for the copula).
    execution
        Where the blocks run: an :class:`infometer.Execution` (``n_jobs``, ``backend``
        ``"threads"`` (default) or ``"dask"``, ``scheduler`` a ``distributed.Client`` or a
        scheduler address, ``store``, ``progress``).  With Dask, blocks run as tasks, lost
        workers' blocks are re-run, and finished blocks go to ``store``.  ``n_jobs``,
        ``store`` and ``progress`` below are its shorthands; giving one of them beside
        ``execution`` is a ``TypeError``.
    n_jobs
        Threads (default: all cores): ``Execution(n_jobs=)``.
    store
        Folder of a resumable block store (Parquet): finished blocks are kept, a restarted
        job computes only the missing ones.  Dask needs one every worker can read (a
        temporary folder is used when not given, which suits a local cluster).
    progress
        Progress bar (default: for large jobs on a terminal).
    max_pairs
        Refuse tables with more pairs than this (default 5·10⁷, i.e. 10,000 columns)
        before anything is computed; the P x P result matrices must also fit in 8 GiB and
        the permutation indices (``n_permutations`` x rows) in 8 GiB.
    **params
        The estimators' own parameters (e.g. ``k=5`` for KSG); an unknown one is an error.

    Returns
    -------
    PairwiseResult

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(300, 3))
    >>> x[:, 1] += x[:, 0]
    >>> res = im.pairwise(x, method="copula", execution=im.Execution(n_jobs=1))
    >>> bool(abs(res.matrix.loc["0", "1"] - 0.5 * np.log(2)) < 0.1)  # exact: 0.5 log 2 nats
    True
    """
    t_start = time.perf_counter()
    unit_name = resolve_unit(unit, base)
    test = _significance.check_test(n_permutations, correction, alpha, null)
    ex = _execution(execution, n_jobs, store, progress)
    plan = _plan(
        data,
        method=method,
        given=given,
        columns=columns,
        ranks=ranks,
        nan=nan,
        discrete=discrete,
        seed=seed,
        block_size=block_size,
        max_pairs=max_pairs,
        test=test,
        params=params,
    )
    results, outcome, t_compute = run_blocks(
        plan.cfg, plan.variables, plan.groups, plan.n_pairs, plan.block_size, ex
    )
    res = _assemble(results, plan, unit_name, test)
    return _finish(res, plan, outcome, ex, t_compute, t_start)


def _execution(execution, n_jobs, store, progress) -> Execution:
    """The :class:`Execution` of a call: ``execution``, or one from the shorthands."""
    ex = Execution.from_keywords(
        execution,
        "pairwise",
        n_jobs=("n_jobs", n_jobs, None),
        store=("store", store, None),
        progress=("progress", progress, None),
    )
    backend = ex.resolve_backend("threads")
    if backend not in BACKENDS:
        raise ValueError(
            f"backend must be one of {list(BACKENDS)} for pairwise, got {backend!r} (blocks "
            "share prepared columns in memory: threads, or Dask tasks)"
        )
    return ex


@dataclass
class _Plan:
    """What ``pairwise`` estimates: the table, its usable columns, the resolved methods
    (``cfg``), the groups of columns and the blocks (pairs of groups) with their pairs."""

    table: Any
    labels: list[str]
    kept: list[int]
    variables: list[Variable]
    const: np.ndarray
    cfg: Config
    reasons: dict[str, str]
    method: str
    ranks: bool
    given_cols: list[str]
    z: Variable | None
    block_size: int
    groups: list[np.ndarray]
    n_pairs: dict[tuple[int, int], int]
    null_values: np.ndarray | None


def _plan(
    data,
    *,
    method,
    given,
    columns,
    ranks,
    nan,
    discrete,
    seed,
    block_size,
    max_pairs,
    test: Test,
    params,
) -> _Plan:
    """Estimation: read and check the table, resolve an estimator per kind of pair, cut
    the columns into groups; with a test, the shared null where it is exact."""
    if not isinstance(ranks, bool):
        raise TypeError(f"ranks must be True or False, got {ranks!r}")
    seed = resolve_seed(seed)  # one root: jitter of every column and the shared null
    if block_size is not None:
        block_size = check_int(block_size, "block_size", min_value=1)
    method = canonical_method(method)
    if method != "auto":
        registry.get("mutual_info" if given is None else "cond_mutual_info", method)
    permutations = test.n_permutations

    given_cols, given_array = ([], None) if given is None else _given_variable(given)
    shape = getattr(data, "shape", None)
    if columns is None and isinstance(shape, tuple) and len(shape) == 2:
        _check_size(int(shape[1]), int(shape[0]), permutations, max_pairs)  # before reading
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
    _check_size(len(labels), table.n, permutations, max_pairs)
    const = np.array([v.name in table.constant for v in variables])
    cfg, reasons = make_config(
        variables,
        method,
        params,
        seed=seed,
        ranks=ranks,
        z=z,
        n_permutations=permutations,
        null=test.null,
    )
    cfg.shared = _significance.shared_columns(cfg, variables, const)
    names = {nm for nm, _ in cfg.resolved.values()}
    if block_size is None:
        block_size = BLOCK_SIZE["copula" if names == {"gaussian_copula"} else "other"]
    p = len(variables)
    groups = [np.arange(s, min(s + block_size, p)) for s in range(0, p, block_size)]
    keys = compute.blocks(len(groups))
    n_pairs = {(g, h): _n_pairs(len(groups[g]), len(groups[h]), g == h) for g, h in keys}

    null_values = _significance.shared_null(cfg) if cfg.shared.any() else None
    return _Plan(
        table=table,
        labels=labels,
        kept=kept,
        variables=variables,
        const=const,
        cfg=cfg,
        reasons=reasons,
        method=method,
        ranks=ranks,
        given_cols=given_cols,
        z=z,
        block_size=block_size,
        groups=groups,
        n_pairs=n_pairs,
        null_values=null_values,
    )


def _finish(res, plan: _Plan, outcome, ex: Execution, t_compute: float, t_start: float):
    """The diagnostics of the run, the warnings (once each), ``given``."""
    diag = res.diagnostics
    diag.update(
        {
            "auto_reasons" if plan.method == "auto" else "method_reason": plan.reasons,
            "dropped_columns": dict(plan.table.dropped),
            "constant_columns": [
                v.name for v, c in zip(plan.variables, plan.const, strict=True) if c
            ],
            "blocks": {
                "block_size": plan.block_size,
                "planned": outcome.planned,
                "computed": outcome.ran,
                "already_stored": outcome.already_done,
                "retried": outcome.retried,
            },
            "backend": ex.resolve_backend("threads"),
            "store": None if ex.store is None else str(ex.store),
            "seconds": {"compute": t_compute, "total": time.perf_counter() - t_start},
            "ranks": plan.ranks,
        }
    )
    msgs = [*plan.table.warnings, *diag.pop("_messages", [])]
    if msgs:
        diag["warnings"] = msgs
        for m in msgs:
            warn_user(m, InfometerWarning)
    res.given = plan.given_cols or (None if plan.z is None else ["given"])
    return res


def _check_size(p: int, n: int, permutations: int, max_pairs: Any) -> None:
    """Refuse, before any work, a table whose pairs, result matrices or permutation
    indices would not fit (a 10^5-column table asked 6.9 GiB and 5 minutes before a
    MemoryError; permutations=10**12 asked 364 TiB)."""
    max_pairs = check_int(max_pairs, "max_pairs", min_value=1)
    pairs = p * (p - 1) // 2
    check_budget(
        pairs,
        name=f"data ({p} columns)",
        limit=max_pairs,
        what="pairs",
        override="pass max_pairs= to raise the limit, or columns= to choose fewer",
    )
    n_mats = 3 if permutations else 1  # values, p-values, q-values
    check_memory(8.0 * p * p * n_mats, what=f"{n_mats} {p} x {p} result matrices", name="data")
    if permutations:
        check_memory(
            8.0 * permutations * n,
            what=f"indices of {permutations} permutations of {n} rows",
            name="permutations",
        )


def _n_pairs(a: int, b: int, same: bool) -> int:
    return a * (a - 1) // 2 if same else a * b


def _ceiling_pairs(
    val: np.ndarray,
    meth: np.ndarray,
    names_all: list[str],
    cfg: Config,
    diag: dict[str, Any],
    messages: Counter,
) -> None:
    """Flag pairs at their estimator's ceiling, as :func:`infometer.mutual_info` does for
    one pair (kNN: psi(n) - psi(k); a copied column saturates there whatever its true,
    infinite, MI)."""
    near = np.zeros(val.size, bool)
    ceilings = {}
    for i, name in enumerate(names_all):
        if name == compute.CONSTANT:
            continue
        spec, params = cfg.spec_params(name)
        if spec.family != "knn" or "k" not in params:
            continue
        ceilings[name] = c = knn_ceiling(cfg.n, int(params["k"]))
        near |= (meth == i) & (val > SATURATION * c)
    if ceilings:
        diag["ceiling"] = ceilings
    if near.any():
        diag["near_ceiling_pairs"] = int(near.sum())
        messages[
            f"{int(near.sum())} pair(s) are near the kNN ceiling psi(N)-psi(k) "
            f"({', '.join(f'{c:.3g} nats for {m}' for m, c in ceilings.items())}): one column "
            "is (nearly) a copy of the other and the true value may be much larger"
        ] += 1


def _assemble(results, plan: _Plan, unit: str, test: Test) -> PairwiseResult:
    """The matrix, the edge list and the diagnostics from the blocks' results; the test's
    p- and q-values through :func:`._significance.add_tests`."""
    import pandas as pd

    labels, variables, cfg = plan.labels, plan.variables, plan.cfg
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
    _ceiling_pairs(val, meth, names_all, cfg, diag, messages)
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
        parts = {
            "a": a,
            "b": b,
            "val": val,
            "ge": ge,
            "meth": meth,
            "order": order,
            "idx": idx,
            "labels": labels,
            "p": p,
            "names_all": names_all,
            "f": f,
            "finite": finite,
        }
        _significance.add_tests(res, edges, parts, cfg, plan.null_values, test, diag)
    res.edges = edges
    diag["_messages"] = [
        *(f"{m} ({c} pair(s) or column(s))" for m, c in messages.items()),
        *diag.get("_messages", []),
    ]
    res.diagnostics = diag
    return res
