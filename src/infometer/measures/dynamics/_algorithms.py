"""Per-target network-inference algorithms (module-level, picklable jobs).

* :func:`te_target`: IDTxl's multivariate (``"mte"``) and bivariate (``"bivariate_te"``)
  transfer-entropy inference of one target's parents.
* :func:`pc_target` / :func:`mci_target`: the two phases of PCMCI (Runge et al. 2019).
* :class:`LinkTests`: the conditional independence tests of PCMCI+ (Runge 2020), with
  contemporaneous nodes, for :func:`._pcmciplus.pcmciplus_graph`.

Each job builds its own lag matrix and CMI engine from the payload
``{"data", "target", "settings"}`` and returns plain Python data.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core.seeding import derive
from infometer.measures.stats import nulls
from infometer.measures.timeseries._embed import lag_matrix, present_rows
from infometer.measures.timeseries._engine import make_engine
from infometer.measures.timeseries._select import (
    include,
    omnibus,
    pool_perms,
    prune,
    sequential_maxstat,
)

__all__ = ["te_target", "pc1", "pc_target", "mci_target", "ci_test", "LinkTests"]


def _engine(payload: dict[str, Any], items: list[tuple[int, int]], max_lag: int):
    s = payload["settings"]
    data = payload["data"]
    t = present_rows(data.shape[0], max_lag, s["trials"])
    j = payload["target"]
    cols = lag_matrix(data, items, t)
    eng = make_engine(
        data[t, j], cols, s["cmi"], s["discrete"], s["cmi_params"], s["seed"], s["null"]
    )
    return eng


def _rng(payload: dict[str, Any], phase: int) -> np.random.Generator:
    return derive(payload["settings"]["seed"], payload["target"], phase)


def te_target(payload: dict[str, Any]) -> dict[str, Any]:
    """Parents of one target by multivariate or bivariate TE (Novelli et al. 2019)."""
    s = payload["settings"]
    j = payload["target"]
    n_proc = payload["data"].shape[1]
    lags = range(s["min_lag"], s["max_lag"] + 1)
    titems = [(j, g) for g in range(1, s["max_lag_target"] + 1)]
    sitems = [(i, g) for i in range(n_proc) if i != j for g in lags]
    items = titems + sitems
    eng = _engine(payload, items, max(s["max_lag"], s["max_lag_target"]))
    rng = _rng(payload, 0)
    alpha = s["alpha"]
    tsel = include(
        eng,
        list(range(len(titems))),
        [],
        n_permutations=s["n_permutations_max_stat"],
        alpha=alpha,
        rng=rng,
    ).selected
    src = list(range(len(titems), len(items)))
    others: dict[int, list[int]] | None = None
    if s["method"] == "mte":
        sel = include(
            eng, src, tsel, n_permutations=s["n_permutations_max_stat"], alpha=alpha, rng=rng
        )
        chosen = [c for c in sel.selected if c >= len(titems)]
        kept, _ = prune(
            eng, chosen, tsel, n_permutations=s["n_permutations_min_stat"], alpha=alpha, rng=rng
        )
        gate = sel.steps[0].p_value if sel.steps else 1.0
    else:  # bivariate: each source on its own, given the target's past
        kept, others = [], {}
        firsts = []
        for i in range(n_proc):
            if i == j:
                continue
            mine = [c for c in src if items[c][0] == i]
            sel = include(
                eng, mine, tsel, n_permutations=s["n_permutations_max_stat"], alpha=alpha, rng=rng
            )
            chosen = [c for c in sel.selected if c >= len(titems)]
            ki, _ = prune(
                eng, chosen, tsel, n_permutations=s["n_permutations_min_stat"], alpha=alpha, rng=rng
            )
            kept += ki
            others.update({c: ki for c in ki})
            if sel.steps:
                firsts.append(sel.steps[0].p_value)
        # Bonferroni over the target's source processes: one p-value of "no source"
        gate = min(1.0, len(firsts) * min(firsts)) if firsts else 1.0
    out: dict[str, Any] = {
        "target": j,
        "target_lags": sorted(items[c][1] for c in tsel),
        "omnibus_te": 0.0,
        "omnibus_p": 1.0,
        # the first source step's max-statistic p-value: a valid p-value of "no source
        # informs the target" (the target's past was chosen without the sources)
        "gate_p": float(gate),
        "edges": [],
        "rows": eng.n,
    }
    if not kept:
        return out
    val, p = omnibus(eng, kept, tsel, n_permutations=s["n_permutations_omnibus"], rng=rng)
    vals, ps = sequential_maxstat(
        eng, kept, tsel, n_permutations=s["n_permutations_max_seq"], rng=rng, others=others
    )
    out["omnibus_te"], out["omnibus_p"] = val, p
    out["edges"] = [
        (items[c][0], items[c][1], float(v), float(q))
        for c, v, q in zip(kept, vals, ps, strict=True)
    ]
    return out


def ci_test(eng: Any, cand: int, cond: list[int], n_permutations: int, rng: np.random.Generator):
    """``(cmi, p)`` of cand ⟂ y | cond: Student t on the partial correlation (Gaussian,
    as Tigramite's ParCorr) or a permutation test of the engine's CMI."""
    if eng.analytic:
        return parcorr_test(eng.partial_corr(cand, cond), eng.n, eng.basis(cond).shape[1])
    val = float(eng.single([cand], cond)[0])
    null = eng.single_surrogates([cand], cond, pool_perms(eng, rng, n_permutations))[:, 0]
    return val, nulls.p_value(val, null)


def parcorr_test(r: float, n: int, q: int) -> tuple[float, float]:
    """``(cmi, p)`` of a partial correlation ``r`` given ``q`` independent conditions on
    ``n`` rows: −½ log(1 − r²) and the two-sided Student t test on n − 2 − q degrees of
    freedom (Tigramite's ParCorr)."""
    from scipy.special import stdtr  # scipy.stats.t.sf(x, dof) is stdtr(dof, -x), 40x slower

    dof = n - 2 - q
    r2 = min(r * r, 1.0 - 1e-16)
    tstat = abs(r) * np.sqrt(dof / (1.0 - r2))
    return float(-0.5 * np.log1p(-r2)), float(2 * stdtr(dof, -tstat))


def _pcmci_items(n_proc: int, tau_max: int) -> list[tuple[int, int]]:
    # lags up to 2 tau_max: MCI conditions on the source's parents shifted by the link lag
    return [(i, g) for g in range(1, 2 * tau_max + 1) for i in range(n_proc)]


def pc1(
    candidates: list[Any], test, alpha: float, max_conds_dim: int | None = None
) -> tuple[list[Any], dict[Any, tuple[float, float]]]:
    """PC1 condition selection (Tigramite's ``run_pc_stable`` with one combination per
    condition dimension): each candidate is tested given the ``dim`` strongest other
    parents so far, dropped when p > alpha; ``test(c, cond) -> (value, p)``.  Returns the
    parents, strongest (largest smallest |value|) first, and per candidate its largest
    p-value with the value of that test (Tigramite's ``p_matrix`` / ``val_matrix``)."""
    parents = list(candidates)
    strength = {c: np.inf for c in parents}
    pmax = {c: (-1.0, 0.0) for c in parents}
    dim = 0
    while dim <= len(parents) - 1 and (max_conds_dim is None or dim <= max_conds_dim):
        drop = []
        for c in parents:
            cond = [q for q in parents if q != c][:dim]
            val, p = test(c, cond)
            strength[c] = min(strength[c], abs(val))
            if p > pmax[c][0]:
                pmax[c] = (p, val)
            if p > alpha:
                drop.append(c)
        parents = [c for c in parents if c not in drop]
        parents.sort(key=lambda c: -strength[c])
        dim += 1
    return parents, pmax


def pc_target(payload: dict[str, Any]) -> dict[str, Any]:
    """PC1 condition selection of one target's lagged parents (:func:`pc1` on the data)."""
    s = payload["settings"]
    n_proc = payload["data"].shape[1]
    tau = s["max_lag"]
    items = _pcmci_items(n_proc, tau)
    eng = _engine(payload, items, 2 * tau)
    rng = _rng(payload, 1)
    cands = [c for c, (_, g) in enumerate(items) if s["min_lag"] <= g <= tau]
    parents, pmax = pc1(
        cands,
        lambda c, cond: ci_test(eng, c, cond, s["n_permutations"], rng),
        s["pc_alpha"],
        s["max_conds_dim"],
    )
    return {
        "target": payload["target"],
        "parents": [items[c] for c in parents],
        "tests": [[*items[c], v, p] for c, (p, v) in pmax.items()],
    }


def mci_target(payload: dict[str, Any]) -> dict[str, Any]:
    """MCI tests of every lagged link into one target given both ends' parents."""
    s = payload["settings"]
    n_proc = payload["data"].shape[1]
    tau = s["max_lag"]
    items = _pcmci_items(n_proc, tau)
    index = {it: c for c, it in enumerate(items)}
    eng = _engine(payload, items, 2 * tau)
    rng = _rng(payload, 2)
    parents = payload["parents"]
    own = [index[p] for p in parents[payload["target"]]]
    tests = []
    for g in range(s["min_lag"], tau + 1):
        for i in range(n_proc):
            c = index[(i, g)]
            shifted = [(k, lag + g) for k, lag in parents[i]][: s["max_conds_px"]]
            cond = [q for q in own if q != c] + [
                index[it] for it in shifted if it in index and index[it] not in own
            ]
            val, p = ci_test(eng, c, cond, s["n_permutations"], rng)
            tests.append((i, g, val, p))
    return {"target": payload["target"], "tests": tests, "rows": eng.n}


class LinkTests:
    """``test(i, tau, j, Z) -> (cmi, p)`` of X_i(t − tau) ⟂ X_j(t) | Z on the data, with
    nodes ``(k, lag)``, lag = 0..2 tau_max (contemporaneous included), one engine per
    target (built on first use, the rows of PCMCI: the first 2 tau_max dropped) and each
    distinct test computed once (its permutations seeded by the test itself)."""

    def __init__(self, data: np.ndarray, settings: dict[str, Any]) -> None:
        self.data, self.s = data, settings
        self.n_proc = data.shape[1]
        self.tau = settings["max_lag"]
        self._eng: dict[int, tuple[Any, dict]] = {}
        self._cache: dict[tuple, tuple[float, float]] = {}
        self.n_tests = 0

    def engine(self, j: int):
        hit = self._eng.get(j)
        if hit is None:
            items = [
                (i, g)
                for g in range(0, 2 * self.tau + 1)
                for i in range(self.n_proc)
                if (i, g) != (j, 0)
            ]
            payload = {"data": self.data, "target": j, "settings": self.s}
            eng = _engine(payload, items, 2 * self.tau)
            gram = None
            if eng.analytic:  # unit-norm centred columns: [y, cols]ᵀ[y, cols] (correlations)
                yc = np.column_stack([eng.y, eng.cols])
                gram = yc.T @ yc
            hit = self._eng[j] = (eng, {it: c for c, it in enumerate(items)}, gram)
        return hit

    def _gram_test(self, eng, gram: np.ndarray, cand: int, cond: list[int]):
        """ParCorr from the correlation matrix (Cholesky of the conditions' block): equal
        to the engine's QR route to rounding; None when the conditions are (nearly)
        collinear, which the QR route handles (rank, dropped columns)."""
        y, c, z = 0, cand + 1, [k + 1 for k in cond]
        if z:
            try:
                low = np.linalg.cholesky(gram[np.ix_(z, z)])
            except np.linalg.LinAlgError:
                return None
            if np.diag(low).min() < 1e-4:
                return None
            w = np.linalg.solve(low, gram[np.ix_(z, [y, c])])  # L⁻¹ S_Z,(y,c)
            ryy = gram[y, y] - w[:, 0] @ w[:, 0]
            rcc = gram[c, c] - w[:, 1] @ w[:, 1]
            ryc = gram[y, c] - w[:, 0] @ w[:, 1]
        else:
            ryy, rcc, ryc = gram[y, y], gram[c, c], gram[y, c]
        den = np.sqrt(max(ryy, 0.0) * max(rcc, 0.0))
        if den < 1e-6:
            return None
        return parcorr_test(float(ryc / den), eng.n, len(z))

    def __call__(self, i: int, tau: int, j: int, z: tuple) -> tuple[float, float]:
        key = (i, tau, j, frozenset(z))
        hit = self._cache.get(key)
        if hit is None:
            eng, index, gram = self.engine(j)
            flat = sorted((int(k), int(g)) for k, g in z)
            cond = [index[nd] for nd in flat]
            hit = None if gram is None else self._gram_test(eng, gram, index[(i, tau)], cond)
            if hit is None:  # the permutations (non-Gaussian CMI) are seeded by the test
                rng = derive(self.s["seed"], 3, i, tau, j, *(v for nd in flat for v in nd))
                hit = ci_test(eng, index[(i, tau)], cond, self.s["n_permutations"], rng)
            self._cache[key] = hit
            self.n_tests += 1
        return hit
