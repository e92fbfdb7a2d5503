"""Symbolic (ordinal-pattern) transfer entropy: ``im.transfer_entropy(..., method="ordinal")``.

Each series is replaced by its ordinal patterns of order ``order`` (Bandt & Pompe 2002):
the symbol at time t is the ranking of (x_t, x_{t-d}, …, x_{t-(order-1)d}) with
d = ``pattern_delay`` (ties ranked by position, earlier first).  TE is then the plug-in
TE of the symbol series (Staniek & Lehnertz 2008):

    T = I(ŝ_y(t+1); ŝ_x^(l)(t) | ŝ_y^(k)(t))

with the target's future *pattern* ŝ_y(t+1) (which overlaps ŝ_y(t) in order−1 values, as
in Staniek & Lehnertz's definition).  Ordinal TE is invariant under any strictly
increasing transform of each series and robust to noise and outliers; it needs no
density estimate, but its alphabet grows as order!: keep order! ≪ the number of rows.

References
----------
* Bandt & Pompe (2002), Phys. Rev. Lett. 88:174102.
* Staniek & Lehnertz (2008), Phys. Rev. Lett. 100:158101.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core.data import Variable
from infometer.core.registry import Raw
from infometer.core.validation import check_int

__all__ = ["ordinal_patterns"]


def ordinal_patterns(x: np.ndarray, order: int, delay: int = 1) -> np.ndarray:
    """Codes 0..order!-1 of the ordinal patterns of a 1-D series (length n − (order−1)·delay).

    The code of a window is the Lehmer code of its stable argsort: equal windows (up to
    a strictly increasing map) get equal codes.
    """
    x = np.asarray(x)
    span = (order - 1) * delay
    n = x.shape[0] - span
    win = np.column_stack([x[span - j * delay : span - j * delay + n] for j in range(order)])
    perm = np.argsort(win, axis=1, kind="stable")
    code = np.zeros(n, dtype=np.int64)
    for i in range(order):  # Lehmer code: count later entries smaller than entry i
        smaller = (perm[:, i + 1 :] < perm[:, i : i + 1]).sum(axis=1)
        code = code * (order - i) + smaller
    return code


def _symbolise(v: Variable, order: int, delay: int, trials: int) -> Variable:
    n = v.n
    length = n // trials
    span = (order - 1) * delay
    if length - span < 12:
        raise ValueError(
            f"order={order} with pattern_delay={delay} leaves {length - span} patterns per "
            "trial; use a lower order or longer series"
        )
    cols = []
    for c in v.columns:
        parts = [
            ordinal_patterns(c[i * length : (i + 1) * length], order, delay) for i in range(trials)
        ]
        cols.append(np.concatenate(parts))
    cards = tuple(int(np.prod(range(1, order + 1))) for _ in cols)
    return Variable(
        columns=tuple(cols), kinds=("discrete",) * len(cols), cardinalities=cards, name=v.name
    )


def _embedded(vs: tuple[Variable, ...], params: dict[str, Any]) -> dict[str, Variable]:
    from infometer.measures.timeseries.transfer import embed

    order = check_int(params.get("order", 3), "order", min_value=2, max_value=8)
    pdelay = check_int(params.get("pattern_delay", 1), "pattern_delay", min_value=1)
    trials = check_int(params.get("trials", 1), "trials", min_value=1)
    if vs[0].n % trials:
        raise ValueError(f"trials={trials} does not divide the {vs[0].n} rows into equal trials")
    sym = [_symbolise(v, order, pdelay, trials) for v in vs]
    lags = {p: params[p] for p in ("k", "l", "m", "tau", "delay") if p in params}
    return embed(sym[0], sym[1], sym[2] if len(sym) > 2 else None, trials=trials, **lags)


def _view(variables: dict[str, Variable], params: dict[str, Any]):
    spec = registry.get("cond_mutual_info", "plugin")
    return spec, _embedded(tuple(variables.values()), params), {}


@registry.register(
    "ordinal",
    "transfer_entropy",
    kinds=("continuous", "discrete"),
    family="dynamics",
    resampling="block",
    summary="symbolic TE: plug-in TE of ordinal patterns (Staniek & Lehnertz 2008)",
)
def ordinal_te(
    *vs: Variable,
    order: int = 3,
    pattern_delay: int = 1,
    k: int = 1,
    l: int = 1,  # noqa: E741 - the literature's name of the source history length
    m: int = 1,
    tau: int = 1,
    delay: int = 1,
    trials: int = 1,
) -> Raw:
    """Ordinal-pattern (symbolic) transfer entropy in nats."""
    params = {
        "order": order,
        "pattern_delay": pattern_delay,
        "k": k,
        "l": l,
        "m": m,
        "tau": tau,
        "delay": delay,
        "trials": trials,
    }
    e = _embedded(vs, params)
    spec = registry.get("cond_mutual_info", "plugin")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = spec.func(e["x"], e["y"], e["z"])
    diag = {
        **raw.diagnostics,
        "embedded_rows": e["y"].n,
        "alphabet": int(np.prod(range(1, order + 1))),
    }
    warns = list(raw.warnings)
    cells = diag["alphabet"] ** (e["x"].d + e["y"].d + e["z"].d)
    if cells > e["y"].n:
        warns.append(
            f"ordinal TE with order={order} has {cells:,} joint pattern cells for "
            f"{e['y'].n:,} rows: the plug-in estimate is biased upwards; lower the order"
        )
        diag["undersampled"] = True
    return Raw(value=raw.value, diagnostics=diag, warnings=warns)


ordinal_te.resample_view = _view  # type: ignore[attr-defined]
