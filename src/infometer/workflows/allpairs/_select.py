"""Feature selection by information about a target: relevance, mRMR and JMI.

* ``relevance``: rank features by I(X_j; Y).
* ``mrmr`` (Peng, Long & Ding 2005, the MID form): greedily add the feature with the
  largest ``I(X_j; Y) - mean_{s in S} I(X_j; X_s)``: relevant, and not redundant with
  what is already chosen.
* ``jmi`` (Yang & Moody 1999; Brown et al. 2012): greedily add the feature with the
  largest ``sum_{s in S} I((X_j, X_s); Y)``: what it tells about Y jointly with each
  chosen feature (so a feature useful only together with another is found).  The first
  pick is the most relevant feature.

Relevance and redundancy terms run on the all-pairs engine (one column against all, in
blocks, with the estimators :func:`infometer.pairwise` uses); the JMI terms are joint
MIs of two features with Y, through the registry.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core.api import run
from infometer.core.data import Variable, as_variable, check_choice, check_int
from infometer.core.estimate import resolve_unit, unit_factor
from infometer.core.parallel import Execution, MemorySink, run_jobs
from infometer.core.results import Result
from infometer.core.seeding import Seed, resolve_seed

from . import _compute as compute
from ._matrix import make_config
from ._table import as_table

__all__ = ["CRITERIA", "Selection", "select_features", "information_with"]

CRITERIA = ("relevance", "mrmr", "jmi")


@dataclass(eq=False, repr=False)
class Selection(Result):
    """Chosen features and the information behind the choice.

    Attributes
    ----------
    selected
        Labels of the chosen features, in the order they were picked.
    table
        One row per feature: ``feature``, ``relevance`` (I(X;Y) in :attr:`unit`),
        ``rank`` (pick order, 1-based; NaN if not picked), ``score`` (criterion value when
        picked), ``method``.  Picked features first, in order, then the rest by relevance.
    """

    selected: list[str]
    table: Any
    criterion: str
    unit: str
    diagnostics: dict = field(default_factory=dict)

    def to_frame(self) -> Any:
        """One row per feature (:attr:`table`, a copy)."""
        return self.table.copy()


def information_with(
    cfg: compute.Config, variables: list[Variable], target: Variable, n_jobs: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """I(X_j; target) in nats for every variable, and the method used for each."""
    p = len(variables)
    size = 64
    groups = [np.arange(s, min(s + size, p)) for s in range(0, p, size)]
    tg = compute.prepare_group(cfg, np.array([p]), [target])

    def job(g: int) -> compute.BlockResult:
        cols = groups[g]
        grp = compute.prepare_group(cfg, cols, [variables[c] for c in cols])
        return compute.evaluate_block(cfg, grp, tg, (g, len(groups)))

    sink = MemorySink()
    out = run_jobs(
        job,
        {g: g for g in range(len(groups))},
        sink,
        execution=Execution(n_jobs=n_jobs, backend="threads"),
        interruptible=False,
    )
    if out.interrupted:
        raise KeyboardInterrupt(out.describe())
    if out.errors:
        raise ValueError(f"estimating the information failed: {next(iter(out.errors.values()))}")
    value = np.empty(p)
    method = np.empty(p, dtype=object)
    for r in sink.results.values():
        value[r.a] = r.value
        method[r.a] = np.asarray(r.methods, dtype=object)[r.code]
    return value, method.astype(str)


def select_features(
    X: Any,
    y: Any,
    *,
    k: int = 10,
    criterion: str = "mrmr",
    method: str = "auto",
    unit: str = "nats",
    discrete_target: bool | None = None,
    discrete: bool | None = None,
    seed: Seed = 0,
    n_jobs: int | None = None,
    **params: Any,
) -> Selection:
    """Choose ``k`` features of ``X`` by their information about ``y``.

    Parameters
    ----------
    X
        Table of candidate features (DataFrame or 2-D array).
    y
        Target, one value per row.
    k
        Number of features to choose (at most the number of columns).
    criterion
        ``"relevance"``, ``"mrmr"`` or ``"jmi"`` (see the module docstring).
    method
        Estimator as in :func:`infometer.pairwise` (``"auto"`` picks per pair of kinds).
    unit
        Unit of the reported values.
    discrete_target
        Treat ``y`` as classes (True) or numbers (False); default from its dtype.
    discrete
        As for :func:`infometer.pairwise`, for the columns of ``X``.
    seed
        Seed of the dequantisation (or jitter) of tied columns. An int >= 0 (the same int gives
        the same numbers), a numpy.random.Generator (drawn from as it is) or None (fresh entropy
        from the operating system).
    n_jobs
        Threads (default: all cores).
    **params
        The estimators' own parameters (e.g. ``k`` is taken by this function, so KSG's
        neighbour count is ``n_neighbors``).

    Returns
    -------
    Selection
    """
    import os

    import pandas as pd

    check_choice(criterion, "criterion", CRITERIA)
    unit_name = resolve_unit(unit)
    n_jobs = check_int(n_jobs or os.cpu_count() or 1, "n_jobs", min_value=1)
    if "n_neighbors" in params:
        params["k"] = params.pop("n_neighbors")
    table = as_table(X, name="X", discrete=discrete, min_columns=1)
    variables = [v for v in table.variables if v is not None]
    target = as_variable(y, "y", discrete=discrete_target)
    if target.d != 1:
        raise ValueError(f"y must be one column, got {target.d}")
    if target.n != table.n:
        raise ValueError(f"y has {target.n} rows but X has {table.n}")
    target = Variable(
        target.columns, target.kinds, target.cardinalities, name="y", diagnostics=target.diagnostics
    )
    k = check_int(k, "k", min_value=1)
    p = len(variables)
    if k > p:
        raise ValueError(f"k={k} but X has only {p} usable column(s)")
    cfg, reasons = make_config([*variables, target], method, params, seed=resolve_seed(seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        relevance, used = information_with(cfg, variables, target, n_jobs)
    chosen: list[int] = []
    score = np.full(p, np.nan)
    if criterion == "relevance":
        chosen = [int(i) for i in np.argsort(-relevance, kind="stable")[:k]]
        score[chosen] = relevance[chosen]
    else:
        redundancy = np.zeros(p)
        joint = np.zeros(p)
        first = int(np.argmax(relevance))
        chosen, score[first] = [first], relevance[first]
        while len(chosen) < k:
            last = variables[chosen[-1]]
            rest = [i for i in range(p) if i not in chosen]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if criterion == "mrmr":
                    red, _ = information_with(cfg, [variables[i] for i in rest], last, n_jobs)
                    redundancy[rest] += red
                    crit = relevance[rest] - redundancy[rest] / len(chosen)
                else:
                    joint[rest] += [_joint_mi(cfg, variables[i], last, target) for i in rest]
                    crit = joint[rest]
            best = int(np.argmax(crit))
            chosen.append(rest[best])
            score[rest[best]] = crit[best]
    f = unit_factor("nats", unit_name)
    rank = np.full(p, np.nan)
    rank[chosen] = np.arange(1, len(chosen) + 1)
    df = pd.DataFrame(
        {
            "feature": [v.name for v in variables],
            "relevance": relevance * f,
            "rank": rank,
            "score": score * f,
            "method": used,
        }
    )
    df["_order"] = np.where(np.isnan(rank), p + np.argsort(np.argsort(-relevance)), rank)
    df = df.sort_values("_order", kind="stable").drop(columns="_order").reset_index(drop=True)
    return Selection(
        selected=[variables[i].name for i in chosen],
        table=df,
        criterion=criterion,
        unit=unit_name,
        diagnostics={"reasons": reasons, "dropped_columns": dict(table.dropped)},
    )


def _joint_mi(cfg: compute.Config, a: Variable, b: Variable, target: Variable) -> float:
    """I((a, b); target) in nats with the method ``auto`` (or the given one) picks."""
    vs = {"x": a.join(b, name="x"), "y": target}
    name, tuned = cfg.method, {}
    if name == "auto":  # the rule's own parameters too (dequantize=True for rounded data)
        choice = registry.choose(registry.AutoContext("mutual_info", vs))
        name, tuned = choice.method, choice.params
    spec = registry.get("mutual_info", name)
    given = {k: v for k, v in cfg.params.items() if k in spec.params and k != "seed"}
    params = {**tuned, **given}
    return float(run("mutual_info", vs, method=name, seed=cfg.seed, params=params).value)
