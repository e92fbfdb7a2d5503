"""The functional API: validate, route to a registered estimator, wrap the result.

Nothing here knows any estimator family: methods and ``auto`` rules come from
:mod:`infometer.core.registry`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, ParamSpec, TypeVar, overload

import numpy as np

from infometer.core import registry
from infometer.core._local import LocalValues
from infometer.core._warnings import warn_user
from infometer.core.data import (
    InfometerWarning,
    Variable,
    as_variables,
    check_choice,
    check_float,
    check_int,
)
from infometer.core.estimate import Estimate, resolve_unit, unit_factor
from infometer.core.resample import error_bars
from infometer.core.seeding import Seed, check_seed, resolve_seed
from infometer.core.uncertainty import respect_bounds
from infometer.core.validation import check_bool

__all__ = [
    "estimate",
    "entropy",
    "mutual_info",
    "cond_mutual_info",
    "kl_divergence",
    "local_methods",
    "run_local",
]


def _emit(messages: list[str]) -> None:
    """Warn each message once, at the user's line (not at this file)."""
    for m in dict.fromkeys(messages):
        warn_user(m, InfometerWarning)


def _in_user_words(messages: list[str], variables: dict[str, Variable], unit: str) -> list[str]:
    """The family's messages in the user's words: column numbers as the user's column
    names (``x columns [0]`` -> ``x columns ['mean radius']``), amounts in nats in the
    result's unit, and each message once."""
    import re

    factor = unit_factor("nats", unit) if unit != "nats" else 1.0

    def converted(g: re.Match[str]) -> str:
        return f"{float(g.group(1)) * factor:.3g} {unit}"

    out = []
    for m in messages:
        for var in variables.values():
            labels = var.labels
            if not labels:
                continue

            def named(match: re.Match[str], labels: tuple[str, ...] = labels) -> str:
                idx = [int(i) for i in re.findall(r"\d+", match.group(2))]
                if any(i >= len(labels) for i in idx):
                    return match.group(0)
                return f"{match.group(1)}{[labels[i] for i in idx]}"

            m = re.sub(rf"(\b{re.escape(var.name)}\b[^;]*?columns )\[([\d, ]+)\]", named, m)
        if unit != "nats":
            m = re.sub(r"(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?) nats\b", converted, m)
        out.append(m)
    return list(dict.fromkeys(out))


def _check_kinds(
    spec: registry.EstimatorSpec,
    quantity: str,
    variables: dict[str, Variable],
    candidates: list[str] | None = None,
) -> None:
    """Refuse variables whose kind the method does not take, naming those that would."""
    for role, var in variables.items():
        if var.kind not in spec.kinds:
            others = [
                s.name
                for s in registry.specs(quantity)
                if all(v.kind in s.kinds for v in variables.values())
                and (candidates is None or s.name in candidates)
            ]
            hint = f" methods that accept this data: {', '.join(others)}" if others else ""
            raise ValueError(
                f"method {spec.name!r} takes {'/'.join(sorted(spec.kinds))} data but {role} is "
                f"{var.kind}; pass discrete=True to treat numbers as symbols, or choose another "
                f"method.{hint}"
            )


def local_methods(quantity: str) -> list[str]:
    """The methods of ``quantity`` whose estimator has local (pointwise) values."""
    return [s.name for s in registry.specs(quantity) if hasattr(s.func, "local_values")]


def run_local(
    quantity: str,
    variables: dict[str, Variable],
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    seed: Seed = 0,
    params: dict[str, Any] | None = None,
) -> LocalValues:
    """Local values of ``quantity`` from validated variables: the ``local=True`` route.

    The estimator's ``func.local_values`` hook (see :mod:`infometer.core._local`) receives the
    same variables and checked parameters as ``func`` would in :func:`run`, so the mean
    of the values is the estimate of the same method and parameters.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    unit_name = resolve_unit(unit, base)
    drawn = not isinstance(check_seed(seed), int)
    seed = resolve_seed(seed)
    params = dict(params or {})
    diagnostics: dict[str, Any] = {}
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, got {type(method).__name__}")
    have = local_methods(quantity)
    if method.lower() == "auto":
        ctx = registry.AutoContext(quantity, variables)
        choice = registry.choose(ctx)
        name, reason = choice.method, choice.reason
        params = {**choice.params, **params}  # the user's own parameters win
        if (
            ctx.kinds == {"discrete"}
            and "plugin" in have
            and getattr(registry.get(quantity, name).func, "local_values", None) is None
        ):  # a bias correction has no local values; the plug-in's are the counts' own
            reason = f"symbols, local values: the plug-in's ({name}, auto's estimate, has none)"
            name = "plugin"
        diagnostics["auto_reason"] = reason
    else:
        name = method
    spec = registry.get(quantity, name)
    if drawn and "seed" in spec.params:  # the seed drawn for seed=None / a Generator
        diagnostics["seed"] = seed
    hook = getattr(spec.func, "local_values", None)
    if hook is None:
        raise ValueError(
            f"method {spec.name!r} has no local values for {quantity}"
            + (" (method='auto' chose it for these data)" if method.lower() == "auto" else "")
            + (
                f"; local values are available for methods {have}: pass one as method="
                if have
                else f"; no method of {quantity} has local values"
            )
        )
    _check_kinds(spec, quantity, variables, have)
    if "seed" in spec.params:
        params.setdefault("seed", seed)
    full = spec.check_params(params)
    raw = hook(*variables.values(), **full)
    diagnostics.update(raw.diagnostics)
    full.update(raw.params)
    if raw.warnings:
        msgs = _in_user_words(list(raw.warnings), variables, unit_name)
        diagnostics["warnings"] = msgs
        _emit(msgs)
    return LocalValues(
        values=np.asarray(raw.values, dtype=np.float64) * unit_factor("nats", unit_name),
        quantity=quantity,
        method=spec.name,
        unit=unit_name,
        times=raw.times,
        diagnostics=diagnostics,
        params=full,
    )


def run(
    quantity: str,
    variables: dict[str, Variable],
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: int | None = 0,
    n_resamples: int = 200,
    params: dict[str, Any] | None = None,
) -> Estimate:
    """Estimate ``quantity`` from already validated variables (shared by API and CLI)."""
    unit_name = resolve_unit(unit, base)
    if ci is not None:
        ci = check_float(ci, "ci", low=0.0, high=1.0, inclusive=(False, False))
    if type(seed) is int and seed >= 0:  # an int seed: nothing to check or draw
        drawn = False
    else:
        drawn = not isinstance(check_seed(seed), int)
        seed = resolve_seed(seed)
    n_resamples = check_int(n_resamples, "n_resamples", min_value=10)
    params = dict(params or {})
    diagnostics: dict[str, Any] = {}
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, got {type(method).__name__}")
    if method.lower() == "auto":
        choice = registry.choose(registry.AutoContext(quantity, variables))
        name, diagnostics["auto_reason"] = choice.method, choice.reason
        params = {**choice.params, **params}  # the user's own parameters win
    else:
        name = method
    spec = registry.get(quantity, name)
    _check_kinds(spec, quantity, variables)
    if drawn and ("seed" in spec.params or ci is not None):  # so the call can be repeated
        diagnostics["seed"] = seed
    if "seed" in spec.params:
        params.setdefault("seed", seed)
    full = spec.check_params(params)
    msgs: list[str] = []
    few_msgs: dict[str, str] = {}  # message -> role (the key the estimator's facts use)
    for role, var in variables.items():
        few = var.diagnostics.get("few_distinct_float_columns")
        if few and "continuous" in spec.kinds and spec.family != "discrete":
            msgs.append(
                f"{var.name} is float but columns {few} take few distinct values; they are treated "
                "as continuous (pass discrete=True to treat them as symbols)"
            )
            few_msgs[msgs[-1]] = role
        times = var.diagnostics.get("time_columns")
        if times and "continuous" in spec.kinds:
            msgs.append(
                f"{var.name} columns {times} hold dates or times, read as continuous numbers "
                "(nanoseconds since 1970-01-01, or in a duration): an entropy depends on that "
                "unit (in seconds it is ln 1e9 = 20.7 nats less), MI and CMI do not"
            )
    raw = spec.func(*variables.values(), **full)
    diagnostics.update(raw.diagnostics)
    msgs.extend(raw.warnings)
    if quantity in registry.NONNEGATIVE and raw.value < 0 and not diagnostics.get("negative"):
        diagnostics["negative"] = True
        msgs.append(  # once: a derived quantity (TE) may pass on its CMI's flag
            f"{spec.name} estimate is negative ({raw.value:.3g} nats): the true value is >= 0, "
            "so this is estimation error (bias, bias correction or variance at this N); "
            "it is not clipped"
        )
    unknown = set(raw.params) - set(spec.params) if raw.params else ()
    if unknown:  # a family bug, not a user error: resolved values must be re-passable
        raise RuntimeError(f"method {spec.name!r} resolved unknown parameters {sorted(unknown)}")
    full.update(raw.params)

    stderr, interval, level = raw.stderr, None, None
    if ci is not None:
        level = ci
        if raw.ci is not None and raw.ci_level == ci:
            interval = raw.ci
        else:
            se, interval, rdiag = error_bars(
                spec, variables, full, raw, level=ci, seed=seed, n_resamples=n_resamples
            )
            stderr = se if se is not None else stderr
            diagnostics.update(rdiag)
    if interval is not None:
        interval, clipped = respect_bounds(quantity, interval)
        diagnostics.update(clipped)
    n = next(iter(variables.values())).n if variables else None
    if msgs:
        # tied values are one cause: the jitter warning (or the stated dequantisation) says
        # it, not both
        treated = {**(diagnostics.get("jittered_columns") or {})}
        treated.update(diagnostics.get("dequantized_columns") or {})
        treated.update(diagnostics.get("atom_values") or {})  # GKOV's point masses
        treated.update(diagnostics.get("ties") or {})  # the tie facts were stated
        msgs = [m for m in msgs if not (m in few_msgs and few_msgs[m] in treated)]
        msgs = _in_user_words(msgs, variables, unit_name)
        if msgs:
            diagnostics["warnings"] = msgs
            _emit(msgs)
    est = Estimate(
        value=raw.value,
        unit="nats",
        method=spec.name,
        quantity=quantity,
        params=full,
        n=n,
        stderr=stderr,
        ci=interval,
        ci_level=level,
        diagnostics=diagnostics,
    )
    return est if unit_name == "nats" else est.to(unit_name)


def _check_roles(quantity: Any, data: Any) -> dict[str, Any]:
    """``data`` as a dict in the quantity's role order; errors name what is wrong."""
    if not isinstance(quantity, str):
        raise TypeError(f"quantity must be a string, got {type(quantity).__name__}")
    if not registry._is_quantity(quantity):
        known = ", ".join(registry.quantities())
        raise ValueError(f"unknown quantity {quantity!r}; known: {known}")
    roles = registry.QUANTITY_ROLES.get(quantity)
    if not isinstance(data, dict | Mapping):
        want = ", ".join(repr(r) for r in roles) if roles else "role names"
        raise TypeError(
            f"data must be a dict mapping each role of {quantity} ({want}) to its samples, "
            f"got {type(data).__name__}"
        )
    if roles is None:
        return dict(data)
    optional = registry.OPTIONAL_ROLES.get(quantity, ())
    if not optional and len(data) == len(roles) and all(r in data for r in roles):
        return {r: data[r] for r in roles}  # every role, nothing else
    unknown = [k for k in data if k not in roles]
    missing = [r for r in roles if r not in data and r not in optional]
    if unknown or missing:
        what = "; ".join(
            part
            for part in (
                f"unknown role(s) {unknown}" if unknown else "",
                f"missing role(s) {missing}" if missing else "",
            )
            if part
        )
        raise ValueError(f"data for {quantity} must have the roles {list(roles)}: {what}")
    # estimators take the variables positionally, in role order
    return {r: data[r] for r in roles if r in data and not (r in optional and data[r] is None)}


def _columns_of(func: str) -> Callable[[dict, dict], tuple[dict, dict]]:
    """The ``prepare`` of a function that takes ``data=`` (a frame whose columns the role
    arguments name): :func:`_from_frame` with ``func`` named in its errors."""

    def prepare(data: dict[str, Any], options: dict[str, Any]) -> tuple[dict, dict]:
        return _from_frame(options.pop("data"), data, func), options

    return prepare


def _route_entropy(order: Any, kind: Any, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``(quantity, params)`` for ``entropy(x, order=..., kind=...)``: the Rényi and Tsallis
    entropies are quantities of their own (registered by the ``generalized`` family, which
    this module never imports: the registry finds them by name)."""
    if kind is None:
        kind = "renyi"
    kind = check_choice(kind, "kind", ("shannon", "renyi", "tsallis"))
    if kind == "shannon":
        if order not in (None, 1, 1.0):
            raise ValueError(f"kind='shannon' takes no order (or order=1), got order={order!r}")
        return "entropy", dict(params)
    if order is None:
        raise ValueError(f"kind={kind!r} needs order= (the {kind.capitalize()} order)")
    return f"{kind}_entropy", {**params, "order": order}


@overload
def estimate(
    quantity: str, data: dict[str, Any], *, local: Literal[False] = False, **options: Any
) -> Estimate: ...
@overload
def estimate(
    quantity: str, data: dict[str, Any], *, local: Literal[True], **options: Any
) -> LocalValues: ...
@overload
def estimate(
    quantity: str, data: dict[str, Any], *, local: bool, **options: Any
) -> Estimate | LocalValues: ...


def estimate(
    quantity: str,
    data: dict[str, Any],
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    paired: bool = True,
    local: bool = False,
    **params: Any,
) -> Estimate | LocalValues:
    """Generic entry point: ``data`` maps role names (``x``, ``y``...) to arrays.

    ``local=True`` returns the local (pointwise) values instead (:func:`run_local`).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    local = check_bool(local, "local")
    if local and ci is not None:
        raise ValueError(
            f"ci={ci!r} with local=True: local values carry no interval; leave ci=None, or "
            "call without local=True for the estimate with its interval"
        )
    data = _check_roles(quantity, data)
    variables = as_variables(data, discrete=discrete, paired=paired)
    if local:
        return run_local(
            quantity, variables, method=method, unit=unit, base=base, seed=seed, params=params
        )
    return run(
        quantity, variables, method=method, unit=unit, base=base, ci=ci, seed=seed, params=params
    )


_P = ParamSpec("_P")
_R = TypeVar("_R")


def quantity_function(
    quantity: str,
    roles: Sequence[str],
    *,
    paired: bool = True,
    fixed: Mapping[str, Any] | None = None,
    prepare: Callable[[dict[str, Any], dict[str, Any]], tuple[dict, dict]] | None = None,
) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """The body of a public function of a registered quantity, written once.

    The decorated function declares the public signature and the docstring (the data roles
    first, then the shared options ``method``, ``unit``, ``base``, ``ci``, ``seed``,
    ``discrete``, the quantity's own keywords and ``**params``) and has no body: a call
    binds its arguments, takes the arguments named in ``roles`` as the data and passes
    every other one, with ``fixed``, to :func:`estimate`.  ``prepare(data, options)``, when
    given, returns the ``(data, options)`` to pass instead (a frame's columns looked up, a
    family's own defaults).

    Examples
    --------
    >>> @quantity_function("entropy", ("x",))
    ... def my_entropy(x, *, method="auto", unit="nats", seed=0, **params):
    ...     '''Entropy of x.'''
    >>> round(my_entropy([0, 1] * 50, method="plugin", unit="bits").value, 6)
    1.0
    """

    def decorate(declared: Callable[_P, _R]) -> Callable[_P, _R]:
        sig = inspect.signature(declared)
        extra = [p.name for p in sig.parameters.values() if p.kind is p.VAR_KEYWORD]
        if [r for r in roles if r not in sig.parameters]:
            raise TypeError(f"{declared.__name__} does not declare the roles {list(roles)}")

        @functools.wraps(declared)
        def public(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            options = dict(bound.arguments)
            params = options.pop(extra[0], {}) if extra else {}
            data = {r: options.pop(r) for r in roles}
            options.update(params)
            options.update(fixed or {})
            if prepare is not None:
                data, options = prepare(data, options)
            return estimate(quantity, data, paired=paired, **options)  # type: ignore[return-value]

        return public

    return decorate


def _from_frame(data: Any, args: dict[str, Any], func: str = "mutual_info") -> dict[str, Any]:
    """Column names (a string or a list of strings) looked up in ``data`` (a pandas or
    polars frame), as seaborn and statsmodels take them; other arguments pass through."""

    def is_names(v: Any) -> bool:
        return isinstance(v, str) or (
            isinstance(v, list | tuple) and len(v) > 0 and all(isinstance(c, str) for c in v)
        )

    if data is None:
        for role, v in args.items():
            if isinstance(v, str):
                call = ", ".join(repr(a) if isinstance(a, str) else "..." for a in args.values())
                raise TypeError(
                    f"{role} is the string {v!r}, not samples; to name columns of a table, "
                    f"pass the table as data=, e.g. {func}({call}, data=df)"
                )
        return args
    columns = getattr(data, "columns", None)
    if columns is None or not hasattr(data, "__getitem__"):
        raise TypeError(
            f"data must be a pandas or polars DataFrame whose columns the other arguments "
            f"name, got {type(data).__name__}"
        )
    known = [str(c) for c in columns]
    out = {}
    for role, v in args.items():
        if not is_names(v):
            out[role] = v
            continue
        names = [v] if isinstance(v, str) else list(v)
        missing = [c for c in names if c not in known]
        if missing:
            shown = ", ".join(known[:30]) + (" ..." if len(known) > 30 else "")
            raise ValueError(f"{role}: data has no column {missing[0]!r}; its columns: {shown}")
        out[role] = data[names[0]] if isinstance(v, str) else data[names]
    return out


_COMMON_DOC = """
    method
        Estimator name (see ``infometer.methods(quantity)``) or ``"auto"``, which picks
        one from the data kinds and records why in ``diagnostics["auto_reason"]``.
    unit, base
        Unit of the result: ``"nats"`` (default), ``"bits"``, ``"hartleys"``; or a log base.
    ci
        Confidence level (e.g. ``0.95``) for an interval; ``None`` (default) computes none.
    seed
        Seed for everything random (jitter, resampling, training).
    discrete
        ``True`` treats every column as discrete symbols, ``False`` as continuous numbers,
        ``None`` infers from the dtype (floats are continuous).
    data
        A pandas or polars DataFrame; the sample arguments may then be its column names
        (a name, or a list of names for a joint variable), as in seaborn and statsmodels.
    **params
        The estimator's own parameters; an unknown name is an error listing the valid ones.

    Returns
    -------
    Estimate
"""


def entropy(
    x: Any,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    order: float | None = None,
    kind: str | None = None,
    data: Any = None,
    **params: Any,
) -> Estimate:
    """Entropy H(X) (differential entropy for continuous X).

    Parameters
    ----------
    x
        Samples: 1-D, or 2-D with rows as samples (columns form one joint variable).
    order, kind
        Generalised entropies: ``order=a`` gives the Rényi entropy of order ``a``
        (quantity ``renyi_entropy``), ``kind="tsallis"`` with ``order=q`` the Tsallis
        entropy (``tsallis_entropy``); ``kind="renyi"`` needs ``order``.  Left unset
        (the default) this is the Shannon entropy.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    samples = _from_frame(data, {"x": x}, "entropy")
    if order is not None or kind is not None:  # issue 26: generalised entropies
        quantity, params = _route_entropy(order, kind, params)
        return estimate(
            quantity,
            samples,
            method=method,
            unit=unit,
            base=base,
            ci=ci,
            seed=seed,
            discrete=discrete,
            **params,
        )
    return estimate(
        "entropy",
        samples,
        method=method,
        unit=unit,
        base=base,
        ci=ci,
        seed=seed,
        discrete=discrete,
        **params,
    )


@overload
def mutual_info(x: Any, y: Any, *, local: Literal[False] = False, **options: Any) -> Estimate: ...
@overload
def mutual_info(x: Any, y: Any, *, local: Literal[True], **options: Any) -> LocalValues: ...
@overload
def mutual_info(x: Any, y: Any, *, local: bool, **options: Any) -> Estimate | LocalValues: ...


@quantity_function("mutual_info", ("x", "y"), prepare=_columns_of("mutual_info"))
def mutual_info(
    x: Any,
    y: Any,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    data: Any = None,
    local: bool = False,
    **params: Any,
) -> Estimate | LocalValues:
    """Mutual information I(X;Y) from paired samples.

    Parameters
    ----------
    x, y
        Paired samples with the same number of rows.
    local
        Return the local (pointwise) values i(x_t; y_t) instead, a :class:`LocalValues`
        whose mean is the estimate of the same method and parameters (methods
        ``plugin``, ``gaussian``, ``ksg1``, ``ksg2``; see docs/timeseries.md).
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """


@overload
def cond_mutual_info(
    x: Any, y: Any, z: Any, *, local: Literal[False] = False, **options: Any
) -> Estimate: ...
@overload
def cond_mutual_info(
    x: Any, y: Any, z: Any, *, local: Literal[True], **options: Any
) -> LocalValues: ...
@overload
def cond_mutual_info(
    x: Any, y: Any, z: Any, *, local: bool, **options: Any
) -> Estimate | LocalValues: ...


@quantity_function("cond_mutual_info", ("x", "y", "z"), prepare=_columns_of("cond_mutual_info"))
def cond_mutual_info(
    x: Any,
    y: Any,
    z: Any,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    data: Any = None,
    local: bool = False,
    **params: Any,
) -> Estimate | LocalValues:
    """Conditional mutual information I(X;Y|Z) from paired samples.

    Parameters
    ----------
    x, y, z
        Paired samples with the same number of rows.
    local
        Return the local values i(x_t; y_t | z_t) instead (methods ``plugin``,
        ``gaussian``, ``ksg1`` / ``frenzel_pompe``), whose mean is the estimate.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """


def kl_divergence(
    p: Any,
    q: Any,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    **params: Any,
) -> Estimate:
    """Kullback–Leibler divergence D(P‖Q) from two independent samples.

    Parameters
    ----------
    p, q
        Samples of P and of Q (their sizes may differ; their dimensions must match).
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    variables = as_variables({"p": p, "q": q}, discrete=discrete, paired=False)
    if variables["p"].d != variables["q"].d:
        raise ValueError(
            f"p has {variables['p'].d} columns but q has {variables['q'].d}; "
            "both samples must live in the same space"
        )
    return run(
        "kl_divergence",
        variables,
        method=method,
        unit=unit,
        base=base,
        ci=ci,
        seed=seed,
        params=params,
    )


_EXAMPLES = {
    "entropy": """
    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> x = np.random.default_rng(0).integers(0, 4, 2000)
    >>> round(im.entropy(x, method="plugin", unit="bits").value, 2)  # log2(4) = 2
    2.0
""",
    "mutual_info": """
    Examples
    --------
    >>> import numpy as np, pandas as pd, infometer as im
    >>> a = np.random.default_rng(0).integers(0, 4, 2000)
    >>> df = pd.DataFrame({"a": a, "b": a % 2})
    >>> round(im.mutual_info("a", "b", data=df, method="plugin", unit="bits").value, 2)
    1.0

    See Also
    --------
    cond_mutual_info, infometer.independence_test
""",
    "cond_mutual_info": """
    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> z = np.random.default_rng(0).integers(0, 2, 2000)
    >>> round(im.cond_mutual_info(z, z, z, method="plugin").value, 6)  # nothing left given Z
    0.0
""",
    "kl_divergence": """
    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> rng = np.random.default_rng(0)
    >>> p, q = rng.normal(0, 1, 4000), rng.normal(1, 1, 4000)
    >>> abs(im.kl_divergence(p, q, method="gaussian").value - 0.5) < 0.1  # exact: 1/2 nat
    True
""",
}

for _f in (entropy, mutual_info, cond_mutual_info, kl_divergence):
    _f.__doc__ = (_f.__doc__ or "").rstrip() + "\n" + _COMMON_DOC + _EXAMPLES[_f.__name__]
