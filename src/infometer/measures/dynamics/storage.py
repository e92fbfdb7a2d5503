"""Active information storage and entropy rate, built on any registered estimator.

    AIS(X)   = I(X_t ; X_{t-1}^(k))                     (Lizier, Prokopenko & Zomaya 2012)
    h_μ(X)   = H(X_t | X_{t-1}^(k)) = H(X_t, X_{t-1}^(k)) − H(X_{t-1}^(k))

with the history X_{t-1}^(k) = (X_{t-l} for l in the lag set), by default the uniform
lags {1, 1+τ, …, 1+(k−1)τ}.  As transfer entropy does for CMI, every registered MI
method becomes an AIS method and every entropy method an entropy-rate method of the
same name (a post-load hook), so ``method="gaussian"``, ``"ksg1"``, ``"plugin"``… work.

``k="auto"`` chooses the history: ``k_method="greedy"`` is IDTxl's non-uniform
embedding (lags 1..``max_lag`` added greedily while the maximum-statistic permutation
test of I(X_t; X_{t-l} | chosen) is significant at ``alpha``, then pruned by the
minimum statistic); ``k_method="ragwitz"`` picks the uniform k (delay ``tau``) with
the smallest nearest-neighbour prediction error (Ragwitz & Kantz 2002).  The chosen
lags are recorded in ``params["lags"]`` (a re-run uses them) and in diagnostics.

References
----------
* Lizier, Prokopenko & Zomaya (2012), Inf. Sci. 208:39 (local information storage).
* Ragwitz & Kantz (2002), Phys. Rev. E 65:056201.
* Faes, Nollo & Porta (2011), Phys. Rev. E 83:051112; Novelli et al. (2019), Netw.
  Neurosci. 3:827 (non-uniform embedding as in IDTxl).
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

from infometer.core import registry
from infometer.core._local import LocalRaw, LocalValues
from infometer.core.api import quantity_function
from infometer.core.data import Variable
from infometer.core.estimate import Estimate
from infometer.core.registry import AutoContext, AutoRule, EstimatorSpec, Raw
from infometer.core.resample import serial_scheme
from infometer.core.seeding import Seed, resolve_seed
from infometer.core.validation import check_int
from infometer.measures.timeseries._embed import present_rows
from infometer.measures.timeseries._history import _history, _rows, choose_lags, ragwitz_k

__all__ = ["active_info_storage", "entropy_rate", "choose_lags", "ragwitz_k"]

registry.QUANTITY_ROLES.setdefault("active_info_storage", ("x",))
registry.QUANTITY_ROLES.setdefault("entropy_rate", ("x",))
registry.NONNEGATIVE.add("active_info_storage")

#: The history parameters of AIS and entropy rate (an inner estimator's parameter of the
#: same name is renamed with the family's prefix, e.g. a kNN neighbour count ``mi_k``).
_OWN: dict[str, Any] = {
    "k": 1,
    "tau": 1,
    "lags": None,
    "max_lag": 5,
    "k_method": "greedy",
    "alpha": 0.05,
    "n_permutations": 200,
    "trials": 1,
    "theiler": 0,
    "seed": 0,
}
_THEILER = ("theiler", "theiler_window")


def _split(spec: EstimatorSpec, prefix: str, params: dict[str, Any]) -> tuple[dict, dict]:
    own = {p: params[p] for p in _OWN if p in params}
    # one root for the call: the history search and the estimator derive from the same seed
    own["seed"] = resolve_seed(own.get("seed", 0))
    outer = {(f"{prefix}{p}" if p in _OWN else p): p for p in spec.params if p not in _THEILER}
    inner = {outer[p]: v for p, v in params.items() if p in outer}
    theiler = check_int(own.get("theiler", 0), "theiler", min_value=0)
    names = [p for p in _THEILER if p in spec.params]
    if names:
        inner[names[0]] = theiler
    elif theiler:
        raise ValueError(
            f"theiler={theiler} but method {spec.name!r} has no Theiler window (only "
            "nearest-neighbour estimators use one); leave theiler=0 for this method"
        )
    if "seed" in spec.params:
        inner["seed"] = own["seed"]
    return own, inner


def _signature(func: Callable, spec: EstimatorSpec, prefix: str) -> None:
    params = {**_OWN}
    for p, d in spec.params.items():
        if p not in _THEILER:
            params[f"{prefix}{p}" if p in _OWN else p] = d
    func.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("vs", inspect.Parameter.VAR_POSITIONAL)]
        + [
            inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, default=d)
            for p, d in params.items()
        ]
    )


def _quiet_run(spec: EstimatorSpec, vs: tuple[Variable, ...], inner: dict) -> Raw:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spec.func(*vs, **spec.check_params(inner))


def ais_spec(mi: EstimatorSpec) -> Callable[..., Raw]:
    """The AIS estimator that embeds the series and calls the MI estimator ``mi``."""

    def parts(variables: dict[str, Variable], params: dict[str, Any]):
        own, inner = _split(mi, "mi_", params)
        x = next(iter(variables.values()))
        lags, diag, resolved = _history(x, own, mi.name)
        past, present = _rows(x, lags, own.get("trials", 1))
        return {"x": past, "y": present}, inner, lags, diag, resolved

    def view(variables: dict[str, Variable], params: dict[str, Any]):
        e, inner, *_ = parts(variables, params)
        return mi, e, inner

    def ais(*vs: Variable, **params: Any) -> Raw:
        e, inner, lags, diag, resolved = parts({"x": vs[0]}, params)
        raw = _quiet_run(mi, (e["x"], e["y"]), inner)
        diag = {**raw.diagnostics, **diag, "lags": lags, "embedded_rows": e["y"].n}
        return Raw(value=raw.value, diagnostics=diag, warnings=raw.warnings, params=resolved)

    ais.__name__ = f"active_info_storage_{mi.name}"
    ais.resample_view = view  # type: ignore[attr-defined]
    mi_local = getattr(mi.func, "local_values", None)
    if mi_local is not None:

        def local_values(*vs: Variable, **params: Any) -> LocalRaw:
            """Local AIS a(t) = i(x_t; x_{t-1}^(k)) (Lizier et al. 2012): the MI estimator's
            local values on the embedding; ``times`` the index of each present sample."""
            e, inner, lags, diag, resolved = parts({"x": vs[0]}, params)
            raw = mi_local(e["x"], e["y"], **mi.check_params(inner))
            times = present_rows(vs[0].n, max(lags), params.get("trials", 1))
            diag = {**raw.diagnostics, **diag, "lags": lags, "embedded_rows": e["y"].n}
            return LocalRaw(
                raw.values,
                times=times,
                diagnostics=diag,
                params=resolved,
                warnings=list(raw.warnings),
            )

        ais.local_values = local_values  # type: ignore[attr-defined]  # read by api.run_local
    _signature(ais, mi, "mi_")
    return ais


def _rate_rows_spec(h: EstimatorSpec) -> EstimatorSpec:
    """A spec of H(present, past) − H(past) on embedded rows (for resampling those rows)."""

    def rate(past: Variable, present: Variable, **inner: Any) -> Raw:
        joint = _quiet_run(h, (present.join(past, name="present_past"),), inner)
        marg = _quiet_run(h, (past,), inner)
        diag = {"joint_entropy": joint.value, "past_entropy": marg.value}
        if joint.diagnostics.get("dequantized_columns"):  # the rounded series was spread
            diag["dequantized_columns"] = {"x": list(range(present.d))}
        return Raw(value=joint.value - marg.value, diagnostics=diag, warnings=joint.warnings)

    return EstimatorSpec(
        name=h.name,
        quantity="entropy_rate",
        func=rate,
        kinds=h.kinds,
        family=h.family,
        params=h.params,
        resampling=h.resampling,
    )


def entropy_rate_spec(h: EstimatorSpec) -> Callable[..., Raw]:
    """The entropy-rate estimator built on the entropy estimator ``h``."""
    rows_spec = _rate_rows_spec(h)

    def parts(variables: dict[str, Variable], params: dict[str, Any]):
        own, inner = _split(h, "h_", params)
        x = next(iter(variables.values()))
        lags, diag, resolved = _history(x, own, h.name)
        past, present = _rows(x, lags, own.get("trials", 1))
        return {"past": past, "present": present}, inner, lags, diag, resolved

    def view(variables: dict[str, Variable], params: dict[str, Any]):
        e, inner, *_ = parts(variables, params)
        return rows_spec, e, inner

    def rate(*vs: Variable, **params: Any) -> Raw:
        e, inner, lags, diag, resolved = parts({"x": vs[0]}, params)
        raw = rows_spec.func(e["past"], e["present"], **inner)
        diag = {**raw.diagnostics, **diag, "lags": lags, "embedded_rows": e["present"].n}
        return Raw(value=raw.value, diagnostics=diag, warnings=raw.warnings, params=resolved)

    rate.__name__ = f"entropy_rate_{h.name}"
    rate.resample_view = view  # type: ignore[attr-defined]
    _signature(rate, h, "h_")
    return rate


def _sync() -> None:
    """Derive AIS from every MI estimator and entropy rate from every entropy one."""
    for quantity, inner_q, build in (
        ("active_info_storage", "mutual_info", ais_spec),
        ("entropy_rate", "entropy", entropy_rate_spec),
    ):
        have = set(registry.methods(quantity))
        for spec in registry.specs(inner_q):
            if spec.name in have:
                continue
            registry.register(
                spec.name,
                quantity,
                kinds=tuple(spec.kinds),
                family=spec.family,
                # serial rows: block subsampling of the embedded rows (resample.py); a
                # posterior sd of one estimate is no error bar for a time series
                resampling=serial_scheme(spec.resampling),
                summary=f"{quantity} via {inner_q}: {spec.summary}",
            )(build(spec))


registry.register_post_load(_sync)


def _auto(inner_q: str) -> Callable[[AutoContext], registry.AutoChoice]:
    def pick(ctx: AutoContext) -> registry.AutoChoice:
        x = ctx.variables["x"]
        roles = {"x": x, "y": x} if inner_q == "mutual_info" else {"x": x}
        return registry.choose(AutoContext(inner_q, roles))

    return pick


for _q, _inner in (("active_info_storage", "mutual_info"), ("entropy_rate", "entropy")):
    _pick = _auto(_inner)
    registry.register_auto(
        AutoRule(
            _q,
            100,
            lambda ctx: True,
            lambda ctx, _p=_pick: _p(ctx).method,
            lambda ctx, _p=_pick, _i=_inner: f"the {_i} estimator auto picks: {_p(ctx).reason}",
            params=lambda ctx, _p=_pick: _p(ctx).params,  # dequantize=True for rounded series
        )
    )


@quantity_function("active_info_storage", ("x",))
def active_info_storage(
    x: Any,
    *,
    k: int | str = 1,
    tau: int = 1,
    lags: list[int] | None = None,
    method: str = "auto",
    max_lag: int = 5,
    k_method: str = "greedy",
    alpha: float = 0.05,
    n_permutations: int = 200,
    trials: int = 1,
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    local: bool = False,
    **params: Any,
) -> Estimate | LocalValues:
    """Active information storage AIS = I(X_t ; X_{t-1}^(k)) of one time series.

    Parameters
    ----------
    x
        The series, one row per time step (2-D for a multivariate process).
    k, tau
        Uniform history length and delay: lags {1, 1+τ, …, 1+(k−1)τ}.  ``k="auto"``
        chooses the history (see ``k_method``).
    lags
        Explicit lags (e.g. ``[1, 3]``), overriding ``k`` and ``tau``.
    method
        Any MI method (``infometer.methods("active_info_storage")``) or ``"auto"``.
    max_lag, k_method, alpha, n_permutations
        For ``k="auto"``: ``"greedy"`` (IDTxl's non-uniform embedding: lags 1..max_lag
        added while a max-statistic test with ``n_permutations`` permutations is significant at
        ``alpha``, then min-statistic pruning) or ``"ragwitz"`` (uniform k with the
        smallest nearest-neighbour prediction error).
    trials
        The series is this many concatenated trials of equal length.
    unit, base, ci, discrete
        As for :func:`infometer.mutual_info`.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    local
        Return the local (pointwise) values a(t) instead: a :class:`~infometer.LocalValues`
        whose mean is the estimate of the same method and parameters (``k="auto"`` too);
        methods ``plugin``, ``gaussian``, ``ksg1``, ``ksg2``.
    **params
        The MI estimator's own parameters (a colliding name takes the prefix ``mi_``,
        e.g. a kNN neighbour count ``mi_k``); ``theiler=`` for kNN methods.

    Returns
    -------
    Estimate
        ``quantity="active_info_storage"``; ``diagnostics["lags"]`` holds the history
        used (and ``"chosen_lags"`` with ``k="auto"``).

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> rng = np.random.default_rng(0); x = np.zeros(3000)
    >>> for t in range(1, 3000): x[t] = 0.8 * x[t - 1] + rng.normal()
    >>> round(float(im.active_info_storage(x, method="gaussian")), 1)  # -½ln(1-0.64) = 0.51
    0.5
    """


@quantity_function("entropy_rate", ("x",))
def entropy_rate(
    x: Any,
    *,
    k: int | str = 1,
    tau: int = 1,
    lags: list[int] | None = None,
    method: str = "auto",
    max_lag: int = 5,
    k_method: str = "greedy",
    alpha: float = 0.05,
    n_permutations: int = 200,
    trials: int = 1,
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    **params: Any,
) -> Estimate:
    """Entropy rate h = H(X_t | X_{t-1}^(k)) = H(X_t, X^(k)) − H(X^(k)) of one series.

    For a discrete stationary Markov chain of order ≤ k the plug-in value converges to
    the chain's entropy rate −Σ π_i P_ij log P_ij; for continuous series it is the
    differential entropy rate (may be negative).

    Parameters
    ----------
    x
        The series, one row per time step.
    k, tau, lags, max_lag, k_method, alpha, n_permutations, trials
        The history, as for :func:`active_info_storage` (``k="auto"`` supported).
    method
        Any entropy method (``infometer.methods("entropy_rate")``) or ``"auto"``.
    unit, base, ci, discrete
        As for :func:`infometer.entropy`.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    **params
        The entropy estimator's own parameters (colliding names take the prefix ``h_``).

    Returns
    -------
    Estimate
        ``quantity="entropy_rate"``, diagnostics ``lags``, ``joint_entropy``,
        ``past_entropy``.

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> x = (np.arange(4000) // 1) % 2   # a period-2 sequence: no new information
    >>> float(im.entropy_rate(x, method="plugin"))
    0.0
    """
