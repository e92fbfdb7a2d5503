"""Transfer entropy (TE) and conditional TE, built on any registered CMI estimator.

    TE(X → Y) = I(Y_{t+1} ; X_t^(l) | Y_t^(k))                       (Schreiber 2000)
    TE(X → Y | Z) = I(Y_{t+1} ; X_t^(l) | Y_t^(k), Z_t^(m))

with the histories (rows of the embedding)

    Y_t^(k) = (Y_t, Y_{t-τ}, ..., Y_{t-(k-1)τ})
    X_t^(l) = (X_{t+1-u}, X_{t+1-u-τ}, ..., X_{t+1-u-(l-1)τ})       u = ``delay`` ≥ 1
    Z_t^(m) = (Z_{t+1-u}, ..., Z_{t+1-u-(m-1)τ})

Every CMI method registered with :mod:`infometer.core.registry` becomes a TE method of the
same name (registered after all families load), so ``method="ksg1"``, ``"gaussian"``
(Granger causality / 2, Barnett et al. 2009), ``"gaussian_copula"``, ``"histogram"``,
``"plugin"`` or ``"nsb"`` for discrete series all work.  The CMI estimator's own
parameters pass through; a Theiler window is passed to those that take one.

References
----------
* Schreiber (2000), Phys. Rev. Lett. 85:461.
* Lizier (2014), Front. Robot. AI 1:11 (JIDT: TE via CMI, embedding, Theiler window).
* Barnett, Barrett & Seth (2009), Phys. Rev. Lett. 103:238701.
* Theiler (1986), Phys. Rev. A 34:2427.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core._local import LocalRaw, LocalValues
from infometer.core.api import quantity_function
from infometer.core.data import Variable, check_float, check_int
from infometer.core.estimate import Estimate
from infometer.core.registry import AutoContext, AutoRule, EstimatorSpec, Raw
from infometer.core.resample import serial_scheme
from infometer.core.seeding import Seed, resolve_seed

__all__ = ["embed", "embed_arrays", "transfer_entropy", "transfer_entropy_spec"]

ROLES = ("source", "target", "cond")
registry.QUANTITY_ROLES.setdefault("transfer_entropy", ROLES)
registry.OPTIONAL_ROLES.setdefault("transfer_entropy", ("cond",))
registry.NONNEGATIVE.add("transfer_entropy")

#: Names under which CMI estimators may accept a Theiler window.
THEILER_NAMES = ("theiler", "theiler_window")
_TE_PARAMS = {"k": 1, "l": 1, "m": 1, "tau": 1, "delay": 1, "trials": 1}
#: The ``k="auto"`` selection's parameters (``k_alpha``, not ``alpha``: that name is a CMI
#: estimator's own, the order of ``matrix_renyi``); ``seed`` seeds its permutations and is
#: passed on to a CMI estimator that takes one.
_AUTO_PARAMS: dict[str, Any] = {
    "max_lag": 5,
    "k_method": "greedy",
    "k_alpha": 0.05,
    "n_permutations": 200,
    "seed": 0,
}


def _lag_rows(n: int, k: int, l: int, m: int | None, tau: int, delay: int) -> np.ndarray:
    """Times t of the rows: every t with all lags inside 0..n-1 and t + 1 <= n - 1."""
    t0 = max((k - 1) * tau, delay - 1 + (l - 1) * tau)
    if m is not None:
        t0 = max(t0, delay - 1 + (m - 1) * tau)
    return np.arange(t0, n - 1)


def _embed_times(
    n: int, k: int, l: int, m: int | None, tau: int, delay: int, trials: int
) -> np.ndarray:
    """Times t of the embedded rows of ``trials`` concatenated trials (:func:`_lag_rows`
    within each trial)."""
    if n % trials:
        raise ValueError(f"trials={trials} does not divide the {n} rows into equal trials")
    length = n // trials
    local = _lag_rows(length, k, l, m, tau, delay)
    return (np.arange(trials)[:, None] * length + local[None, :]).ravel()


def _history(v: Variable, t: np.ndarray, first: int, length: int, tau: int, name: str) -> Variable:
    """Columns v[t + first], v[t + first - τ], ... (``length`` lags) as one variable."""
    out = None
    for j in range(length):
        part = v.select(t + first - j * tau)
        out = part if out is None else out.join(part)
    assert out is not None
    return Variable(
        columns=out.columns,
        kinds=out.kinds,
        cardinalities=out.cardinalities,
        name=name,
        diagnostics=v.diagnostics,
        symbols=out.symbols,
    )


def embed(
    source: Variable,
    target: Variable,
    cond: Variable | None = None,
    *,
    k: int = 1,
    l: int = 1,
    m: int = 1,
    tau: int = 1,
    delay: int = 1,
    trials: int = 1,
) -> dict[str, Variable]:
    """The CMI roles of TE: ``x`` = source history, ``y`` = target future, ``z`` = target
    history (and the conditioning history), each a :class:`Variable` with one row per t.

    Parameters
    ----------
    source, target, cond
        Validated series of equal length (``cond`` optional).
    k, l, m
        History lengths of target, source and conditioning series.
    tau
        Delay between successive lags.
    delay
        Source-target delay u ≥ 1.
    trials
        The rows are this many consecutive trials (repetitions) of equal length; no
        embedded row spans two trials.

    Returns
    -------
    dict
        ``{"x": source_past, "y": target_future, "z": target_past[, cond_past]}``.

    Raises
    ------
    ValueError
        For lags below 1 or fewer than 10 embedded rows.
    """
    k = check_int(k, "k", min_value=1)
    l = check_int(l, "l", min_value=1)
    m = check_int(m, "m", min_value=1)
    tau = check_int(tau, "tau", min_value=1)
    delay = check_int(delay, "delay", min_value=1)
    trials = check_int(trials, "trials", min_value=1)
    n = target.n
    t = _embed_times(n, k, l, None if cond is None else m, tau, delay, trials)
    if t.size < 10:
        raise ValueError(
            f"the series have {n} samples, too few for k={k}, l={l}, tau={tau}, delay={delay}"
            f"{f', {trials} trials' if trials > 1 else ''}: only {max(t.size, 0)} embedded "
            "rows (need at least 10)"
        )
    x = _history(source, t, 1 - delay, l, tau, "source_past")
    y = _history(target, t, 1, 1, tau, "target_future")
    z = _history(target, t, 0, k, tau, "target_past")
    if cond is not None:
        z = z.join(_history(cond, t, 1 - delay, m, tau, "cond_past"), name="target_cond_past")
    return {"x": x, "y": y, "z": z}


def embed_arrays(
    source: Any, target: Any, cond: Any = None, *, discrete: bool | None = None, **lags: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Plain-array version of :func:`embed` (e.g. for ``im.independence_test(x, y, z)``
    as a TE significance test).

    Parameters
    ----------
    source, target, cond
        Series (array-likes) of equal length; ``cond`` optional.
    discrete
        As for :func:`infometer.mutual_info`.
    **lags
        ``k``, ``l``, ``m``, ``tau``, ``delay`` as for :func:`embed`.

    Returns
    -------
    tuple of numpy.ndarray
        ``(source_past, target_future, conditioning)`` as float arrays (discrete columns
        as their integer codes).
    """
    from infometer.core.data import as_variables

    data = {"source": source, "target": target}
    if cond is not None:
        data["cond"] = cond
    vs = as_variables(data, discrete=discrete)
    e = embed(vs["source"], vs["target"], vs.get("cond"), **lags)
    return e["x"].values, e["y"].values, e["z"].values


def _outer_name(p: str) -> str:
    """TE-level name of a CMI parameter: ``cmi_<name>`` when it collides with TE's own
    (e.g. a kNN estimator's neighbour count ``k`` becomes ``cmi_k``)."""
    taken = p in _TE_PARAMS or (p in _AUTO_PARAMS and p != "seed") or p == "theiler"
    return f"cmi_{p}" if taken else p


def _is_auto(v: Any) -> bool:
    return isinstance(v, str) and v == "auto"


def _auto_l(vs: list[Variable], params: dict[str, Any], method: str) -> tuple[int, dict]:
    """The source history length for ``l="auto"`` (after ``k``) and its diagnostics."""
    from ._history import choose_source_lags

    tau = check_int(params.get("tau", 1), "tau", min_value=1)
    if tau != 1:
        raise ValueError(
            f"l='auto' selects source samples one step apart, but tau={tau}; use tau=1"
        )
    k = check_int(params.get("k", 1), "k", min_value=1)
    m = check_int(params.get("m", 1), "m", min_value=1)
    delay = check_int(params.get("delay", 1), "delay", min_value=1)
    max_lag = check_int(params.get("max_lag", 5), "max_lag", min_value=1)
    n_permutations = check_int(params.get("n_permutations", 200), "n_permutations", min_value=1)
    alpha = check_float(params.get("k_alpha", 0.05), "k_alpha", low=0.0, high=1.0)
    trials = check_int(params.get("trials", 1), "trials", min_value=1)
    if delay + max_lag >= vs[1].n // (2 * trials):
        raise ValueError(
            f"max_lag={max_lag} with delay={delay} must stay below half the series length "
            f"({vs[1].n // trials} per trial)"
        )
    l, diag = choose_source_lags(
        vs[0],
        vs[1],
        vs[2] if len(vs) > 2 else None,
        k=k,
        m=m,
        delay=delay,
        method=method,
        max_lag=max_lag,
        alpha=alpha,
        n_permutations=n_permutations,
        trials=trials,
        seed=params["seed"],
    )
    diag["chosen_l"] = l
    return l, diag


def _auto_k(target: Variable, params: dict[str, Any], method: str) -> tuple[int, dict]:
    """The target history length for ``k="auto"`` and the selection's diagnostics.

    The target's own past is chosen as for active information storage (IDTxl's greedy
    non-uniform embedding, or Ragwitz's prediction error) by
    :func:`~._history.choose_lags`; TE's target history is uniform, so the greedy choice
    becomes the uniform history that holds every chosen lag (k = the largest one).
    """
    from ._history import _history

    k_method = params.get("k_method", "greedy")
    tau = check_int(params.get("tau", 1), "tau", min_value=1)
    if k_method == "greedy" and tau != 1:
        raise ValueError(
            f"k='auto' with k_method='greedy' selects target lags 1..max_lag one step "
            f"apart, but tau={tau}; use tau=1, or k_method='ragwitz' (uniform k at delay tau)"
        )
    own = {
        "k": "auto",
        "tau": tau,
        "max_lag": params.get("max_lag", 5),
        "k_method": k_method,
        "alpha": check_float(params.get("k_alpha", 0.05), "k_alpha", low=0.0, high=1.0),
        "n_permutations": params.get("n_permutations", 200),
        "trials": params.get("trials", 1),
        "seed": params["seed"],
    }
    lags, diag, _ = _history(target, own, method)
    k = max(lags) if diag["k_method"] == "greedy" else len(lags)
    diag = {f"k_{p}" if p in ("selection_steps", "pruned_lags") else p: v for p, v in diag.items()}
    diag["chosen_k"] = k
    return k, diag


def _split_params(spec: EstimatorSpec, params: dict[str, Any]) -> tuple[dict, dict]:
    lags = {p: params[p] for p in _TE_PARAMS if p in params}
    outer = {_outer_name(p): p for p in spec.params}
    inner = {outer[p]: v for p, v in params.items() if p in outer}
    theiler = params.get("theiler", 0)
    theiler = check_int(theiler, "theiler", min_value=0)
    inner_names = [p for p in THEILER_NAMES if p in spec.params]
    if inner_names:
        inner[inner_names[0]] = theiler
    elif theiler:
        raise ValueError(
            f"theiler={theiler} but CMI method {spec.name!r} has no Theiler window (only "
            "nearest-neighbour estimators use one); leave theiler=0 for this method"
        )
    return lags, inner


def transfer_entropy_spec(cmi: EstimatorSpec) -> Callable[..., Raw]:
    """The TE estimator function that embeds the series and calls the CMI estimator ``cmi``.

    Parameters
    ----------
    cmi
        A registered ``cond_mutual_info`` estimator.

    Returns
    -------
    callable
        ``te(source, target[, cond], **params) -> Raw``, with a signature listing TE's
        parameters and the CMI's (colliding names prefixed ``cmi_``), and a
        ``resample_view`` attribute for :mod:`infometer.measures.stats.resample`.
    """

    def parts(variables: dict[str, Variable], params: dict[str, Any]):
        """The embedding, the CMI's parameters, the lags, the k="auto" diagnostics and
        the resolved parameters (the chosen ``k``)."""
        vs = list(variables.values())
        diag: dict[str, Any] = {}
        resolved: dict[str, Any] = {}
        # one root for the whole call: the history search, the source search and the CMI
        # (seed=None once meant fresh nulls in one and seed 0 in the other)
        params = {**params, "seed": resolve_seed(params.get("seed", 0))}
        for name in ("k", "l"):
            v = params.get(name)
            if isinstance(v, str) and not _is_auto(v):
                raise TypeError(f"{name} must be a positive integer or 'auto', got {v!r}")
        if _is_auto(params.get("k")):
            k, diag = _auto_k(vs[1], params, cmi.name)
            params = {**params, "k": k}
            resolved = {"k": k}
        if _is_auto(params.get("l")):
            l, ldiag = _auto_l(vs, params, cmi.name)
            params = {**params, "l": l}
            resolved["l"] = l
            diag = {**diag, **ldiag}
        lags, inner = _split_params(cmi, params)
        e = embed(vs[0], vs[1], vs[2] if len(vs) > 2 else None, **lags)
        return e, inner, {**_TE_PARAMS, **lags}, diag, resolved

    def view(variables: dict[str, Variable], params: dict[str, Any]):
        e, inner, *_ = parts(variables, params)
        return cmi, e, inner

    def te(*vs: Variable, **params: Any) -> Raw:
        from infometer.core.api import run

        names = dict(zip(ROLES, vs, strict=False))
        e, inner, _, auto, resolved = parts(names, params)
        seed = inner.pop("seed", 0) if "seed" in cmi.params else 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = run("cond_mutual_info", e, method=cmi.name, seed=seed, params=inner)
        diag = {k: v for k, v in est.diagnostics.items() if k != "warnings"}
        diag.update(auto)
        diag["embedded_rows"] = e["y"].n
        if diag.get("dequantized_columns"):  # the embedded columns of these series were spread
            diag["dequantized_columns"] = {
                role: sorted(v.ties) for role, v in names.items() if v.ties
            }
        return Raw(value=est.value, diagnostics=diag, warnings=est.warnings, params=resolved)

    te.__name__ = f"transfer_entropy_{cmi.name}"
    te.resample_view = view  # type: ignore[attr-defined]  # read by stats.resample
    cmi_local = getattr(cmi.func, "local_values", None)
    if cmi_local is not None:

        def local_values(*vs: Variable, **params: Any) -> LocalRaw:
            """Local TE: the CMI estimator's local values on the embedding (Lizier et al.
            2008), ``times`` the index of the target sample y_{t+1} each one predicts."""
            names = dict(zip(ROLES, vs, strict=False))
            e, inner, lags, auto, resolved = parts(names, params)
            raw = cmi_local(*e.values(), **cmi.check_params(inner))
            times = _embed_times(
                vs[1].n,
                lags["k"],
                lags["l"],
                lags["m"] if len(vs) > 2 else None,
                lags["tau"],
                lags["delay"],
                lags["trials"],
            )
            diag = {**raw.diagnostics, **auto, "embedded_rows": e["y"].n}
            return LocalRaw(
                raw.values,
                times=times + 1,
                diagnostics=diag,
                params=resolved,
                warnings=list(raw.warnings),
            )

        te.local_values = local_values  # type: ignore[attr-defined]  # read by api.run_local
    own = {**_TE_PARAMS, **_AUTO_PARAMS, "theiler": 0}
    params = {
        **own,
        **{_outer_name(p): d for p, d in cmi.params.items() if p not in THEILER_NAMES},
    }
    te.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("vs", inspect.Parameter.VAR_POSITIONAL)]
        + [
            inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, default=d)
            for p, d in params.items()
        ]
    )
    return te


def _sync() -> None:
    """Derive a TE estimator from every registered CMI estimator (idempotent)."""
    have = set(registry.methods("transfer_entropy"))
    for cmi in registry.specs("cond_mutual_info"):
        if cmi.name not in have:
            registry.register(
                cmi.name,
                "transfer_entropy",
                kinds=tuple(cmi.kinds),
                family=cmi.family,
                # serial rows: block subsampling of the embedded rows (resample.py); a
                # posterior sd of one estimate is no error bar for a time series
                resampling=serial_scheme(cmi.resampling),
                summary=f"TE via CMI: {cmi.summary}",
            )(transfer_entropy_spec(cmi))


registry.register_post_load(_sync)


def _auto(ctx: AutoContext) -> registry.AutoChoice:
    v = ctx.variables
    z = v["target"] if "cond" not in v else v["target"].join(v["cond"])
    inner = AutoContext("cond_mutual_info", {"x": v["source"], "y": v["target"], "z": z})
    return registry.choose(inner)


registry.register_auto(
    AutoRule(
        "transfer_entropy",
        100,
        lambda ctx: True,
        lambda ctx: _auto(ctx).method,
        lambda ctx: f"the CMI estimator auto picks for these kinds: {_auto(ctx).reason}",
        params=lambda ctx: _auto(ctx).params,  # dequantize=True for rounded series
    )
)


def _selection(data: dict[str, Any], options: dict[str, Any]) -> tuple[dict, dict]:
    """The selection's parameters to pass on: all of them with ``k`` or ``l`` "auto", else those
    set to something other than their default (a method without a selection, such as
    ``ordinal``, then names them in its error instead of ignoring them)."""
    if _is_auto(options.get("k")) or _is_auto(options.get("l")):
        return data, options
    keep = {
        p: v
        for p, v in options.items()
        if p not in _AUTO_PARAMS or p == "seed" or v != _AUTO_PARAMS[p]
    }
    return data, keep


@quantity_function("transfer_entropy", ("source", "target", "cond"), prepare=_selection)
def transfer_entropy(
    source: Any,
    target: Any,
    cond: Any = None,
    *,
    method: str = "auto",
    k: int | str = 1,
    l: int | str = 1,
    m: int = 1,
    tau: int = 1,
    delay: int = 1,
    trials: int = 1,
    max_lag: int = 5,
    k_method: str = "greedy",
    k_alpha: float = 0.05,
    n_permutations: int = 200,
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    local: bool = False,
    **params: Any,
) -> Estimate | LocalValues:
    """Transfer entropy from ``source`` to ``target`` (conditional on ``cond`` if given).

    ``TE = I(Y_{t+1}; X_{t+1-delay}^(l) | Y_t^(k), Z_{t+1-delay}^(m))`` estimated by the
    CMI estimator named by ``method`` on the embedded series.

    Parameters
    ----------
    source, target, cond
        Time series with one row per time step (2-D for multivariate processes); all
        the same length.  ``cond`` (optional) is conditioned on (conditional TE).
    method
        Any CMI method (``infometer.methods("transfer_entropy")``), or ``"auto"`` (the
        CMI estimator auto picks for these kinds).  ``"gaussian"`` is linear Granger
        causality / 2.
    k, l, m
        History lengths of the target, the source and the conditioning series.
        ``k="auto"`` chooses the target's history from its own past (see ``k_method``);
        the chosen ``k`` is in ``params["k"]`` (a re-run uses it) and
        ``diagnostics["chosen_k"]``.  ``l="auto"`` chooses the source's history given
        the target's: the source samples x_{t+1-u}, …, x_{t+1-u-(max_lag-1)} are added
        greedily while significant at ``k_alpha`` given the target's k past samples,
        then pruned; l reaches the oldest kept (``diagnostics["source_lags"]``,
        ``params["l"]``; l = 1 when none is significant).
    max_lag, k_method, k_alpha, n_permutations
        For ``k="auto"``, as for :func:`infometer.active_info_storage`:
        ``"greedy"`` (IDTxl's non-uniform embedding: target lags 1..``max_lag`` added
        while the max-statistic test with ``n_permutations`` permutations is significant at
        ``k_alpha``, then min-statistic pruning; k is the largest lag kept, since TE's
        target history is uniform; ``diagnostics["chosen_lags"]`` lists the lags) or
        ``"ragwitz"`` (the uniform k at delay ``tau`` with the smallest
        nearest-neighbour prediction error).
    tau
        Embedding delay between successive lags of a history.
    delay
        Source-target delay u ≥ 1: the newest source sample used is X_{t+1-u}.
    trials
        The series are this many trials (repetitions) of equal length, concatenated; the
        embedding never crosses a trial boundary and pools the rows of all trials (as
        JIDT's ``addObservations`` and IDTxl's replications).
    unit, base, ci, discrete
        As for :func:`infometer.mutual_info`.  ``ci`` resamples the embedded rows with
        the CMI estimator's scheme (rows treated as exchangeable: see docs/timeseries.md).
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    local
        Return the local transfer entropy te(t) (Lizier et al. 2008) instead: a
        :class:`~infometer.LocalValues` with one value per embedded row, ``times`` the
        index of the target sample y_{t+1} it predicts, and mean the estimate of the same
        method and parameters.  Methods whose CMI estimator has local values: ``plugin``,
        ``gaussian``, ``ksg1`` / ``frenzel_pompe``.
    **params
        The CMI estimator's own parameters; ``theiler=`` (Theiler window, in rows) for
        nearest-neighbour estimators that support one.

    Returns
    -------
    Estimate or LocalValues
        With ``quantity="transfer_entropy"`` and ``diagnostics["embedded_rows"]``.

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> x = np.random.default_rng(0).integers(0, 2, 2000); y = np.roll(x, 1)  # y copies x
    >>> round(float(im.transfer_entropy(x, y, method="plugin")), 2)  # log 2 = 0.69
    0.69
    >>> lv = im.transfer_entropy(x, y, method="plugin", local=True)
    >>> round(lv.mean, 2), int(lv.times[0])
    (0.69, 1)
    """
