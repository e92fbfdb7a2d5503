"""The functional API: validate, route to a registered estimator, wrap the result.

Nothing here knows any estimator family: methods and ``auto`` rules come from
:mod:`infometer.registry`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from . import registry
from ._estimate import Estimate, resolve_unit
from .data import InfometerWarning, Variable, as_variables, check_choice, check_float, check_int

__all__ = ["estimate", "entropy", "mutual_info", "cond_mutual_info", "kl_divergence"]


def _emit(messages: list[str], stacklevel: int = 4) -> None:
    for m in messages:
        warnings.warn(m, InfometerWarning, stacklevel=stacklevel)


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
    if seed is not None:
        seed = check_int(seed, "seed", min_value=0)
    n_resamples = check_int(n_resamples, "n_resamples", min_value=10)
    params = dict(params or {})
    diagnostics: dict[str, Any] = {}
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, got {type(method).__name__}")
    if method.lower() == "auto":
        name, reason = registry.choose_auto(registry.AutoContext(quantity, variables))
        diagnostics["auto_reason"] = reason
    else:
        name = method
    spec = registry.get(quantity, name)
    for role, var in variables.items():
        if var.kind not in spec.kinds:
            others = [
                s.name
                for s in registry.specs(quantity)
                if all(v.kind in s.kinds for v in variables.values())
            ]
            hint = f" methods that accept this data: {', '.join(others)}" if others else ""
            raise ValueError(
                f"method {spec.name!r} takes {'/'.join(sorted(spec.kinds))} data but {role} is "
                f"{var.kind}; pass discrete=True to treat numbers as symbols, or choose another "
                f"method.{hint}"
            )
    if "seed" in spec.params:
        params.setdefault("seed", seed)
    full = spec.check_params(params)
    msgs: list[str] = []
    for var in variables.values():
        few = var.diagnostics.get("few_distinct_float_columns")
        if few and "continuous" in spec.kinds and spec.family != "discrete":
            msgs.append(
                f"{var.name} is float but columns {few} take few distinct values; they are treated "
                "as continuous (pass discrete=True to treat them as symbols)"
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
    unknown = set(raw.params) - set(spec.params)
    if unknown:  # a family bug, not a user error: resolved values must be re-passable
        raise RuntimeError(f"method {spec.name!r} resolved unknown parameters {sorted(unknown)}")
    full.update(raw.params)

    stderr, interval, level = raw.stderr, None, None
    if ci is not None:
        from .resample import error_bars

        level = ci
        if raw.ci is not None and raw.ci_level == ci:
            interval = raw.ci
        else:
            se, interval, rdiag = error_bars(
                spec, variables, full, raw, level=ci, seed=seed, n_resamples=n_resamples
            )
            stderr = se if se is not None else stderr
            diagnostics.update(rdiag)
    n = next(iter(variables.values())).n if variables else None
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
    known = registry.quantities()
    if quantity not in known:
        raise ValueError(f"unknown quantity {quantity!r}; known: {', '.join(known)}")
    roles = registry.QUANTITY_ROLES.get(quantity)
    if not isinstance(data, Mapping):
        want = ", ".join(repr(r) for r in roles) if roles else "role names"
        raise TypeError(
            f"data must be a dict mapping each role of {quantity} ({want}) to its samples, "
            f"got {type(data).__name__}"
        )
    if roles is None:
        return dict(data)
    optional = registry.OPTIONAL_ROLES.get(quantity, ())
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


def estimate(
    quantity: str,
    data: dict[str, Any],
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: int | None = 0,
    discrete: bool | None = None,
    paired: bool = True,
    **params: Any,
) -> Estimate:
    """Generic entry point: ``data`` maps role names (``x``, ``y``...) to arrays."""
    data = _check_roles(quantity, data)
    variables = as_variables(data, discrete=discrete, paired=paired)
    return run(
        quantity, variables, method=method, unit=unit, base=base, ci=ci, seed=seed, params=params
    )


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
    seed: int | None = 0,
    discrete: bool | None = None,
    order: float | None = None,
    kind: str | None = None,
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
    """
    if order is not None or kind is not None:  # issue 26: generalised entropies
        quantity, params = _route_entropy(order, kind, params)
        return estimate(
            quantity,
            {"x": x},
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
        {"x": x},
        method=method,
        unit=unit,
        base=base,
        ci=ci,
        seed=seed,
        discrete=discrete,
        **params,
    )


def mutual_info(
    x: Any,
    y: Any,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: int | None = 0,
    discrete: bool | None = None,
    **params: Any,
) -> Estimate:
    """Mutual information I(X;Y) from paired samples.

    Parameters
    ----------
    x, y
        Paired samples with the same number of rows.
    """
    return estimate(
        "mutual_info",
        {"x": x, "y": y},
        method=method,
        unit=unit,
        base=base,
        ci=ci,
        seed=seed,
        discrete=discrete,
        **params,
    )


def cond_mutual_info(
    x: Any,
    y: Any,
    z: Any,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: int | None = 0,
    discrete: bool | None = None,
    **params: Any,
) -> Estimate:
    """Conditional mutual information I(X;Y|Z) from paired samples.

    Parameters
    ----------
    x, y, z
        Paired samples with the same number of rows.
    """
    return estimate(
        "cond_mutual_info",
        {"x": x, "y": y, "z": z},
        method=method,
        unit=unit,
        base=base,
        ci=ci,
        seed=seed,
        discrete=discrete,
        **params,
    )


def kl_divergence(
    p: Any,
    q: Any,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: int | None = 0,
    discrete: bool | None = None,
    **params: Any,
) -> Estimate:
    """Kullback–Leibler divergence D(P‖Q) from two independent samples.

    Parameters
    ----------
    p, q
        Samples of P and of Q (their sizes may differ; their dimensions must match).
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


for _f in (entropy, mutual_info, cond_mutual_info, kl_divergence):
    _f.__doc__ = (_f.__doc__ or "").rstrip() + "\n" + _COMMON_DOC
