"""Ground truth for information dynamics: transfer entropy, active information storage and
entropy rate, from processes whose lagged laws are known exactly.

* **Gaussian VAR / AR processes.**  The lagged covariance of a stable VAR(p) is exact
  (companion form and the discrete Lyapunov equation,
  :func:`infometer.measures.dynamics.simulate.var_lagged_cov`), and every Gaussian
  information quantity of lagged samples is a log-determinant of it:

  - TE X→Y with target history ``k``, source history ``l`` (source lags 1..l):
    ``I(Y_t; X_{t-1..t-l} | Y_{t-1..t-k})`` (conditional TE adds ``Z_{t-1..t-m}`` to the
    condition);
  - AIS with history ``k``: ``I(X_t; X_{t-1..t-k})``;
  - entropy rate with history ``k``: ``h(X_t | X_{t-1..t-k}) = ½ log(2πe σ²_k)`` with
    σ²_k the conditional variance; for ``k ≥ p`` it is the innovation entropy.

* **Markov chains.**  A pair of processes that is jointly Markov on a product state space
  (Y_t drawn from ``P(y' | x, y)``, X_t from ``P(x' | x)``) has exact TE
  ``H(Y_t | Y_{t-1}) − H(Y_t | X_{t-1}, Y_{t-1})`` by enumeration over the stationary law;
  TE Y→X is exactly 0 because X evolves on its own.  AIS of a chain with ``k = 1`` is
  ``H(π) − rate``.

Each task's ``params`` are the history lengths the truth belongs to.
"""

from __future__ import annotations

import math

import numpy as np

from infometer.measures.dynamics import simulate as _sim

from .base import Task, register_task
from .discrete import markov_entropy_rate, markov_stationary, sample_markov_chain

__all__ = [
    "var_transfer_entropy",
    "var_transfer_entropy_task",
    "ar_storage",
    "ar_storage_task",
    "markov_pair_transfer_entropy",
    "markov_pair_task",
    "markov_storage_task",
]


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(2**62))


def var_transfer_entropy(
    coefs: np.ndarray,
    source: int,
    target: int,
    *,
    k: int = 1,
    l: int = 1,  # noqa: E741 (the literature's name of the source history)
    cond: int | None = None,
    m: int = 1,
    noise: float | np.ndarray = 1.0,
) -> float:
    """Exact TE (nats) of a Gaussian VAR from node ``source`` to ``target``.

    ``I(Y_t; X_{t-1..t-l} | Y_{t-1..t-k}[, Z_{t-1..t-m}])`` from the exact lagged
    covariance.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[[0.5, 0.0], [0.5, 0.4]]])  # x0 -> x1 at lag 1
    >>> round(var_transfer_entropy(a, 0, 1), 6), var_transfer_entropy(a, 1, 0) < 1e-12
    (0.134642, True)
    """
    items = [(target, 0)]
    ix = [1 + i for i in range(l)]
    items += [(source, lag) for lag in range(1, l + 1)]
    iz = list(range(len(items), len(items) + k))
    items += [(target, lag) for lag in range(1, k + 1)]
    if cond is not None:
        iz += list(range(len(items), len(items) + m))
        items += [(cond, lag) for lag in range(1, m + 1)]
    cov = _sim.var_lagged_cov(coefs, items, noise)
    return max(0.0, _sim.gaussian_cond_mutual_info(cov, [0], ix, iz))


def ar_storage(coefs: np.ndarray, k: int, noise: float = 1.0) -> tuple[float, float]:
    """Exact ``(AIS, entropy rate)`` in nats of a Gaussian AR process with history ``k``.

    ``coefs`` are the AR coefficients φ_1..φ_p.  AIS is ``I(X_t; X_{t-1..t-k})``; the rate
    is ``h(X_t | X_{t-1..t-k})``.

    Examples
    --------
    >>> ais, rate = ar_storage([0.6], 1)
    >>> bool(abs(ais + 0.5 * np.log(1 - 0.36)) < 1e-12), round(rate, 6)
    (True, 1.418939)
    """
    phi = np.asarray(coefs, dtype=np.float64).reshape(-1, 1, 1)
    items = [(0, lag) for lag in range(k + 1)]
    cov = _sim.var_lagged_cov(phi, items, noise)
    ais = _sim.gaussian_cond_mutual_info(cov, [0], list(range(1, k + 1)), [])
    var_cond = cov[0, 0] * math.exp(-2.0 * ais)  # Var(X_t | past) = Var(X_t) e^{-2 I}
    return ais, 0.5 * math.log(2.0 * math.pi * math.e * var_cond)


def var_transfer_entropy_task(
    name: str,
    coefs: np.ndarray,
    source: int,
    target: int,
    *,
    cond: int | None = None,
    k: int = 1,
    l: int = 1,  # noqa: E741
    description: str = "",
) -> Task:
    """TE task on a Gaussian VAR: ``source``/``target`` (and ``cond``) are single series."""
    a = np.asarray(coefs, dtype=np.float64)
    a = a[None] if a.ndim == 2 else a
    truth = var_transfer_entropy(a, source, target, k=k, l=l, cond=cond)

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        x = _sim.var(a, n, seed=_seed(rng))
        out = {"source": x[:, [source]], "target": x[:, [target]]}
        if cond is not None:
            out["cond"] = x[:, [cond]]
        return out

    params: dict = {"k": k, "l": l}
    if cond is not None:
        params["m"] = 1
    return Task(
        name=name,
        quantity="transfer_entropy",
        sampler=sampler,
        truth=truth,
        dims=(1, 1) if cond is None else (1, 1, 1),
        family="te-var",
        tags=frozenset({"te", "timeseries"}),
        description=description or f"Gaussian VAR({a.shape[0]}), TE {source}→{target}",
        extra={"coefs": a.tolist(), "source": source, "target": target, "cond": cond},
        params=params,
    )


def ar_storage_task(name: str, coefs: list[float], k: int, quantity: str) -> Task:
    """AIS (``quantity="active_info_storage"``) or entropy rate of a Gaussian AR(p)."""
    ais, rate = ar_storage(coefs, k)
    phi = np.asarray(coefs, dtype=np.float64).reshape(-1, 1, 1)

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        return {"x": _sim.var(phi, n, seed=_seed(rng))}

    what = "AIS" if quantity == "active_info_storage" else "entropy rate"
    return Task(
        name=name,
        quantity=quantity,
        sampler=sampler,
        truth=ais if quantity == "active_info_storage" else rate,
        dims=(1,),
        family="ais-ar" if quantity == "active_info_storage" else "rate-ar",
        tags=frozenset({"dynamics", "timeseries"}),
        description=f"Gaussian AR({len(coefs)}) φ = {list(coefs)}, {what} with history k = {k}",
        extra={"coefs": list(coefs)},
        params={"k": k},
    )


def _pair_chain(px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """Transition of the pair chain s = (x, y) -> (x', y'): P(x'|x) P(y'|x, y)."""
    kx, ky = px.shape[0], py.shape[2]
    t = np.zeros((kx * ky, kx * ky))
    for x in range(kx):
        for y in range(ky):
            for x2 in range(kx):
                for y2 in range(ky):
                    t[x * ky + y, x2 * ky + y2] = px[x, x2] * py[x, y, y2]
    return t


def _h(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def markov_pair_transfer_entropy(px: np.ndarray, py: np.ndarray) -> tuple[float, float]:
    """Exact ``(TE X→Y, TE Y→X)`` (k = l = 1, nats) of the jointly Markov pair.

    ``px[x, x']`` is X's own transition; ``py[x, y, y']`` is Y's, driven by X_{t-1}.

    Examples
    --------
    >>> import numpy as np
    >>> px = np.array([[0.5, 0.5], [0.5, 0.5]])            # X: fair coin flips
    >>> py = np.zeros((2, 2, 2)); py[0, :, 0] = py[1, :, 1] = 1.0  # Y_t = X_{t-1}
    >>> te_xy, te_yx = markov_pair_transfer_entropy(px, py)
    >>> bool(abs(te_xy - np.log(2)) < 1e-12), abs(te_yx) < 1e-12
    (True, True)
    """
    kx, ky = px.shape[0], py.shape[2]
    t = _pair_chain(px, py)
    pi = markov_stationary(t).reshape(kx, ky)
    # H(Y'|X,Y) and H(Y'|Y)
    h_y_xy = sum(pi[x, y] * _h(py[x, y]) for x in range(kx) for y in range(ky))
    joint_yy = np.einsum("xy,xyz->yz", pi, py)
    h_y_y = sum(_h(joint_yy[y] / joint_yy[y].sum()) * joint_yy[y].sum() for y in range(ky))
    # X evolves alone: H(X'|X) = H(X'|X,Y)
    return max(0.0, h_y_y - h_y_xy), 0.0


def markov_pair_task(
    name: str, px: np.ndarray, py: np.ndarray, direction: str = "x2y", description: str = ""
) -> Task:
    """TE task on a jointly Markov pair (symbols): ``direction`` ``"x2y"`` or ``"y2x"`` (0)."""
    px, py = np.asarray(px, dtype=np.float64), np.asarray(py, dtype=np.float64)
    te_xy, te_yx = markov_pair_transfer_entropy(px, py)
    t = _pair_chain(px, py)
    ky = py.shape[2]

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        s = sample_markov_chain(t, n, rng)
        x, y = (s // ky).reshape(-1, 1), (s % ky).reshape(-1, 1)
        return {"source": x, "target": y} if direction == "x2y" else {"source": y, "target": x}

    return Task(
        name=name,
        quantity="transfer_entropy",
        sampler=sampler,
        truth=te_xy if direction == "x2y" else te_yx,
        dims=(1, 1),
        family="te-markov",
        tags=frozenset({"te", "timeseries"}),
        discrete=True,
        description=description or "jointly Markov pair of symbol series",
        extra={"px": px.tolist(), "py": py.tolist(), "direction": direction},
        params={"k": 1, "l": 1},
    )


def markov_storage_task(name: str, transition: np.ndarray) -> Task:
    """AIS (k = 1) of a stationary Markov chain: ``H(π) − rate`` (one trajectory)."""
    p = np.asarray(transition, dtype=np.float64)
    truth = _h(markov_stationary(p)) - markov_entropy_rate(p)
    return Task(
        name=name,
        quantity="active_info_storage",
        sampler=lambda n, rng: {"x": sample_markov_chain(p, n, rng).reshape(-1, 1)},
        truth=truth,
        dims=(1,),
        family="ais-markov",
        tags=frozenset({"dynamics", "timeseries"}),
        discrete=True,
        description=f"{p.shape[0]}-state stationary Markov chain, AIS with k = 1",
        extra={"transition": p.tolist()},
        params={"k": 1},
    )


def _driven_pair(copy: float, keep: float, flip: float, states: int = 2):
    """X: a symmetric chain that changes state with probability ``flip``; Y copies X_{t-1}
    with probability ``copy``, keeps Y_{t-1} with probability ``keep``, else is uniform."""
    px = np.full((states, states), flip / (states - 1))
    np.fill_diagonal(px, 1.0 - flip)
    rest = (1.0 - copy - keep) / states
    py = np.full((states, states, states), rest)
    for x in range(states):
        for y in range(states):
            py[x, y, x] += copy
            py[x, y, y] += keep
    return px, py


def _register() -> None:
    # TE on Gaussian VARs: x0 -> x1 at lag 1 (and the null direction)
    a2 = np.array([[[0.5, 0.0], [0.5, 0.4]]])
    register_task(
        var_transfer_entropy_task(
            "var2-te-0to1", a2, 0, 1, description="VAR(1), x1 += 0.5 x0(t-1): TE x0→x1"
        )
    )
    register_task(
        var_transfer_entropy_task(
            "var2-te-1to0-zero", a2, 1, 0, description="the same VAR, TE x1→x0 = 0 (no link)"
        )
    )
    strong = np.array([[[0.3, 0.0], [0.9, 0.2]]])
    register_task(
        var_transfer_entropy_task(
            "var2-te-strong", strong, 0, 1, description="VAR(1), x1 += 0.9 x0(t-1): strong TE"
        )
    )
    # a chain x0 -> x2 -> x1: conditional TE x0 -> x1 given x2 is 0, the direct link is not
    chain = np.zeros((1, 3, 3))
    chain[0][np.diag_indices(3)] = 0.3
    chain[0, 2, 0], chain[0, 1, 2] = 0.7, 0.7
    register_task(
        var_transfer_entropy_task(
            "var3-cte-chain-zero",
            chain,
            0,
            1,
            cond=2,
            description="x0 → x2 → x1 (no direct link): conditional TE x0→x1 | x2 = 0",
        )
    )
    direct = chain.copy()
    direct[0, 1, 0] = 0.5
    register_task(
        var_transfer_entropy_task(
            "var3-cte-direct",
            direct,
            0,
            1,
            cond=2,
            description="x0 → x2 → x1 and x0 → x1: conditional TE x0→x1 | x2 > 0",
        )
    )
    a_hist = np.zeros((2, 2, 2))
    a_hist[0] = [[0.4, 0.0], [0.3, 0.3]]
    a_hist[1] = [[0.0, 0.0], [0.4, 0.2]]
    register_task(
        var_transfer_entropy_task(
            "var2-te-lag2-l2",
            a_hist,
            0,
            1,
            k=2,
            l=2,
            description="VAR(2) with links at lags 1 and 2: TE with k = l = 2",
        )
    )
    # TE on jointly Markov symbol chains
    px, py = _driven_pair(copy=0.6, keep=0.3, flip=0.2)
    register_task(
        markov_pair_task(
            "markov-te-x2y", px, py, "x2y", "binary Y copies X(t-1) w.p. 0.6, keeps w.p. 0.3"
        )
    )
    register_task(
        markov_pair_task("markov-te-y2x-zero", px, py, "y2x", "the same pair, TE Y→X = 0")
    )
    px3, py3 = _driven_pair(copy=0.5, keep=0.3, flip=0.3, states=3)
    register_task(
        markov_pair_task("markov3-te-x2y", px3, py3, "x2y", "3-symbol driven pair, TE X→Y")
    )
    # AIS and entropy rate of AR processes
    for quantity, tag in (("active_info_storage", "ais"), ("entropy_rate", "rate")):
        register_task(ar_storage_task(f"ar1-{tag}-0.6", [0.6], 1, quantity))
        register_task(ar_storage_task(f"ar1-{tag}-0.9", [0.9], 1, quantity))
        register_task(ar_storage_task(f"ar2-{tag}-k2", [0.5, 0.3], 2, quantity))
        register_task(ar_storage_task(f"ar2-{tag}-k1", [0.5, 0.3], 1, quantity))
    three = np.array([[0.8, 0.15, 0.05], [0.1, 0.7, 0.2], [0.25, 0.25, 0.5]])
    register_task(markov_storage_task("markov-3state-ais", three))
    flip = 1.0 / (1.0 + math.exp(2 * 0.5))  # the 1-D Ising chain at K = 0.5
    ising = np.array([[1 - flip, flip], [flip, 1 - flip]])
    register_task(markov_storage_task("ising1d-K0.5-ais", ising))


_register()
