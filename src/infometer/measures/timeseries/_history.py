"""History selection of one series (uniform, given, greedy non-uniform or Ragwitz) and
its embedding, shared by active information storage and entropy rate
(:mod:`infometer.measures.dynamics.storage`) and transfer entropy's ``k="auto"``
(:mod:`.transfer`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core.data import Variable
from infometer.core.seeding import Seed, derive, resolve_seed
from infometer.core.validation import check_choice, check_float, check_int

from ._embed import check_lags, lagged, present_rows, uniform_lags

__all__ = ["ragwitz_k", "choose_lags"]


def ragwitz_k(
    x: np.ndarray, max_lag: int, tau: int = 1, n_neighbors: int = 4, max_rows: int = 4000
) -> tuple[int, np.ndarray]:
    """Uniform history length with the smallest local-constant prediction error.

    For each k in 1..``max_lag`` the next value of every delay vector is predicted by the
    mean next value of its ``n_neighbors`` nearest delay vectors (max norm, the point
    itself excluded) and the mean squared error is recorded (Ragwitz & Kantz 2002).

    Parameters
    ----------
    x
        One series, shape (n,).
    max_lag, tau
        Largest k tried and the delay between lags.
    n_neighbors
        Neighbours averaged per prediction.
    max_rows
        Predictions made on at most this many (evenly spaced) rows.

    Returns
    -------
    (k, errors)
        The chosen k and the mean squared error of each k (errors[k - 1]).
    """
    from scipy.spatial import cKDTree

    x = np.asarray(x, dtype=np.float64)
    sd = x.std()
    x = (x - x.mean()) / (sd if sd > 0 else 1.0)
    errs = np.empty(max_lag)
    t = np.arange((max_lag - 1) * tau, x.size - 1)  # same rows for every k
    stride = max(1, t.size // max_rows)
    q = t[::stride]
    for k in range(1, max_lag + 1):
        emb = np.column_stack([x[t - j * tau] for j in range(k)])
        tree = cKDTree(emb)
        _, idx = tree.query(emb[::stride], k=n_neighbors + 1, p=np.inf)
        idx = idx[:, 1:]  # drop the point itself (distance 0)
        pred = x[t[idx] + 1].mean(axis=1)
        errs[k - 1] = float(np.mean((pred - x[q + 1]) ** 2))
    return int(np.argmin(errs)) + 1, errs


def _selection_cmi(method: str, discrete: bool) -> str:
    """The CMI method that tests candidate lags for an estimator named ``method``."""
    cmi = set(registry.methods("cond_mutual_info"))
    name = {"ksg2": "ksg1"}.get(method, method)
    if name in cmi and registry.get("cond_mutual_info", name).family not in ("neural", "diffusion"):
        return name
    return "plugin" if discrete else "gaussian"


def choose_lags(
    x: Variable,
    *,
    method: str,
    k_method: str,
    max_lag: int,
    tau: int,
    alpha: float,
    n_permutations: int,
    trials: int,
    seed: Seed,
) -> tuple[list[int], dict[str, Any]]:
    """The history of ``x`` chosen by ``k_method`` (see the module docstring).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    from ._engine import make_engine
    from ._select import include, prune

    if x.d != 1:
        raise ValueError(f"k='auto' needs a one-column series; {x.name} has {x.d} columns")
    t = present_rows(x.n, max_lag * (tau if k_method == "ragwitz" else 1), trials)
    col = x.columns[0]
    if k_method == "ragwitz":
        if x.is_discrete:
            raise ValueError("k_method='ragwitz' (prediction error) needs a continuous series")
        k, errs = ragwitz_k(col, max_lag, tau)
        lags = uniform_lags(k, tau)
        return lags, {"k_method": "ragwitz", "chosen_k": k, "prediction_errors": errs.tolist()}
    cands = list(range(1, max_lag + 1))
    cols = np.column_stack([col[t - lag] for lag in cands])
    cmi = _selection_cmi(method, x.is_discrete)
    seed = resolve_seed(seed)
    engine = make_engine(col[t], cols, cmi, x.is_discrete, seed=seed)
    rng = derive(seed)
    sel = include(
        engine, list(range(len(cands))), [], n_permutations=n_permutations, alpha=alpha, rng=rng
    )
    kept, removed = prune(
        engine, sel.selected, [], n_permutations=n_permutations, alpha=alpha, rng=rng
    )
    diag: dict[str, Any] = {
        "k_method": "greedy",
        "selection_cmi": cmi,
        "selection_steps": [
            {"lag": cands[s.candidate], "cmi": s.value, "p_value": s.p_value} for s in sel.steps
        ],
        "pruned_lags": [cands[i] for i in removed],
    }
    if not kept:
        diag["no_significant_lag"] = True
        return [1], diag
    return sorted(cands[i] for i in kept), diag


def _history(x: Variable, own: dict[str, Any], method: str) -> tuple[list[int], dict, dict]:
    """Lags (given, uniform or chosen), the diagnostics and the resolved parameters."""
    k_method = check_choice(own.get("k_method", "greedy"), "k_method", ("greedy", "ragwitz"))
    tau = check_int(own.get("tau", 1), "tau", min_value=1)
    if own.get("lags") is not None:
        return check_lags(own["lags"]), {}, {}
    k = own.get("k", 1)
    if k != "auto":
        return uniform_lags(check_int(k, "k", min_value=1), tau), {}, {}
    max_lag = check_int(own.get("max_lag", 5), "max_lag", min_value=1)
    if max_lag >= x.n // 2:
        raise ValueError(f"max_lag={max_lag} must be below half the series length ({x.n})")
    lags, diag = choose_lags(
        x,
        method=method,
        k_method=k_method,
        max_lag=max_lag,
        tau=tau,
        alpha=check_float(own.get("alpha", 0.05), "alpha", low=0.0, high=1.0),
        n_permutations=check_int(own.get("n_permutations", 200), "n_permutations", min_value=1),
        trials=own.get("trials", 1),
        seed=own.get("seed", 0),
    )
    diag["chosen_lags"] = lags
    return lags, diag, {"lags": lags}


def _rows(x: Variable, lags: list[int], trials: int) -> tuple[Variable, Variable]:
    t = present_rows(x.n, max(lags), trials)
    return lagged(x, t, lags, "past"), lagged(x, t, [0], "present")


def choose_source_lags(
    source: Variable,
    target: Variable,
    cond: Variable | None,
    *,
    k: int,
    m: int,
    delay: int,
    method: str,
    max_lag: int,
    alpha: float,
    n_permutations: int,
    trials: int,
    seed: int | None,
) -> tuple[int, dict[str, Any]]:
    """The source history length l for transfer entropy's ``l="auto"``.

    IDTxl's source selection for one source (Novelli et al. 2019): the source samples
    x_{t+1-u}, …, x_{t+1-u-(max_lag-1)} are candidates for predicting y_{t+1}; they are
    added greedily (maximum statistic) conditioned on the target's k past samples (and
    the conditioning series' m samples), then pruned by the minimum statistic.  TE's source
    history is uniform, so l is the number of steps back to the oldest sample kept.

    Returns
    -------
    (l, diagnostics)
        ``diagnostics["source_lags"]``: the kept source samples as lags of y_{t+1}
        (u = the newest); ``l = 1`` when none is significant (``no_significant_source_lag``).
    """
    from ._embed import lag_matrix
    from ._engine import make_engine
    from ._select import include, prune

    series = [source, target] + ([cond] if cond is not None else [])
    for v in series:
        if v.d != 1:
            raise ValueError(f"l='auto' needs one-column series; {v.name} has {v.d} columns")
    kinds = {v.is_discrete for v in series}
    if len(kinds) != 1:
        raise ValueError("l='auto' needs series of one kind (all discrete or all continuous)")
    discrete = kinds.pop()
    data = np.column_stack([v.columns[0] for v in series])
    titems = [(1, g) for g in range(1, k + 1)]
    citems = [(2, g) for g in range(delay, delay + m)] if cond is not None else []
    sitems = [(0, g) for g in range(delay, delay + max_lag)]
    items = titems + citems + sitems
    t = present_rows(target.n, max(g for _, g in items), trials)
    cmi = _selection_cmi(method, discrete)
    seed = resolve_seed(seed)
    engine = make_engine(data[t, 1], lag_matrix(data, items, t), cmi, discrete, seed=seed)
    rng = derive(seed, 1)
    fixed = list(range(len(titems) + len(citems)))
    cands = list(range(len(fixed), len(items)))
    sel = include(engine, cands, fixed, n_permutations=n_permutations, alpha=alpha, rng=rng)
    chosen = [c for c in sel.selected if c not in fixed]
    kept, removed = prune(
        engine, chosen, fixed, n_permutations=n_permutations, alpha=alpha, rng=rng
    )
    diag: dict[str, Any] = {
        "source_selection_steps": [
            {"lag": items[s.candidate][1], "cmi": s.value, "p_value": s.p_value} for s in sel.steps
        ],
        "source_pruned_lags": [items[i][1] for i in removed],
    }
    if not kept:
        diag["no_significant_source_lag"] = True
        diag["source_lags"] = []
        return 1, diag
    lags = sorted(items[i][1] for i in kept)
    diag["source_lags"] = lags
    return max(lags) - delay + 1, diag
