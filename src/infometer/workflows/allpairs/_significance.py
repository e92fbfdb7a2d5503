"""Significance in ``pairwise``: the permutation test's settings, the one null shared by the
pairs where that is exact, and the p-values, FDR-adjusted q-values and decisions."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from infometer.core.data import Variable, as_variable
from infometer.core.validation import check_choice

from . import compute
from .compute import Config, prepare_group, signature

NULLS = ("auto", "pair")


@dataclass(frozen=True)
class Test:
    """A checked permutation test: ``n_permutations`` (0: none), ``correction`` (one of
    :data:`infometer.measures.stats.correction.CORRECTIONS`), ``alpha``, ``null`` (``"auto"``:
    shared where exact, ``"pair"``: every pair its own)."""

    n_permutations: int
    correction: str
    alpha: float
    null: str


#: What ``correction=`` means for pairwise: the p-value adjustment over every pair.
ADJUSTMENT = {"fdr_bh": "fdr_bh", "fdr_by": "fdr_by", "fwer": "holm", "none": "none"}


def check_test(n_permutations: Any, correction: Any, alpha: Any, null: Any) -> Test:
    """The test's settings checked, each error naming its argument."""
    from infometer.measures.stats.correction import check_alpha, check_correction
    from infometer.measures.stats.nulls import check_n_permutations

    n_permutations = check_n_permutations(n_permutations, min_value=0)
    correction = check_correction(correction)
    alpha = check_alpha(alpha)
    check_choice(null, "null", NULLS)
    return Test(n_permutations, correction, alpha, null)


def shared_columns(cfg: Config, variables: list[Variable], const: np.ndarray) -> np.ndarray:
    """Columns whose pairs may share one null: rank-invariant statistic, tie-free column."""
    out = np.zeros(len(variables), bool)
    if cfg.n_permutations == 0 or cfg.null != "auto" or cfg.z is not None:
        return out
    smooth = ("continuous", False, "")
    if (smooth, smooth) not in cfg.resolved:
        return out
    name = cfg.resolved[(smooth, smooth)][0]
    dummy = variables[0]
    if not (cfg.ranks or cfg.route(name, dummy, dummy) == "copula"):
        return out
    for j, v in enumerate(variables):
        out[j] = signature(v) == smooth and not const[j] and not v.ties
    return out


def shared_null(cfg: Config) -> np.ndarray:
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
    name, _ = cfg.resolved[(("continuous", False, ""), ("continuous", False, ""))]
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


def add_tests(
    res: Any,
    edges: Any,
    parts: dict[str, Any],
    cfg: Config,
    null_values: Any,
    test: Test,
    diag: dict[str, Any],
) -> None:
    """The p-values (own null where counted, the shared null elsewhere), q-values by
    ``test.correction`` and ``significant`` into ``edges``, ``res`` and ``diag``."""
    import pandas as pd

    from infometer.measures.stats.correction import adjust, permutation_floor
    from infometer.measures.stats.nulls import p_from_counts, p_values

    a, b, val, ge, meth = parts["a"], parts["b"], parts["val"], parts["ge"], parts["meth"]
    order, idx, labels, p = parts["order"], parts["idx"], parts["labels"], parts["p"]
    names_all, f, finite = parts["names_all"], parts["f"], parts["finite"]
    B = cfg.n_permutations
    pv = np.full(val.size, np.nan)
    has = ge >= 0
    pv[has] = p_from_counts(ge[has], B)
    shared = ~has & finite
    if shared.any():
        pv[shared] = p_values(val[shared], null_values)
    ok = np.isfinite(pv)
    qv = np.full(val.size, np.nan)
    rej = np.zeros(val.size, bool)
    if ok.any():
        qv[ok] = adjust(pv[ok], ADJUSTMENT[test.correction])
        rej[ok] = qv[ok] <= test.alpha
        floor = permutation_floor(
            B, int(ok.sum()), test.alpha, ADJUSTMENT[test.correction], "pairs"
        )
        if floor is not None:  # said with the run's warnings (once, in the user's words)
            diag.setdefault("_messages", []).append(floor)
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
    res.alpha, res.correction = test.alpha, test.correction
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
