"""The estimator registry: ``(quantity, method name) -> EstimatorSpec``.

Families register their estimators here when their package is imported; the
dispatcher in :mod:`infometer.core.api` knows nothing about any family.  Adding a
family means adding a package that calls :func:`register` (and possibly
:func:`register_auto`) and listing it in :data:`FAMILIES`.

An estimator function receives validated :class:`~infometer.core.data.Variable`
objects positionally (``x`` for entropy; ``x, y`` for MI; ``x, y, z`` for CMI;
``p, q`` for KL; other quantities define their own roles) and its own parameters
as keyword-only arguments, and returns a :class:`Raw` result in nats.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Raw",
    "EstimatorSpec",
    "AutoRule",
    "AutoContext",
    "register",
    "register_auto",
    "register_post_load",
    "get",
    "methods",
    "specs",
    "choose_auto",
    "choose",
    "AutoChoice",
    "FAMILIES",
    "QUANTITY_ROLES",
    "OPTIONAL_ROLES",
    "NONNEGATIVE",
    "EXAMPLES",
    "quantities",
]

#: Family packages imported (once) before the registry is consulted.
FAMILIES: tuple[str, ...] = (
    "infometer.estimators.discrete",
    "infometer.estimators.knn",
    "infometer.estimators.parametric",
    "infometer.estimators.binned",
    "infometer.measures.timeseries",
    "infometer.measures.dynamics",
    "infometer.estimators.diffusion",
    "infometer.estimators.neural",
    "infometer.estimators.matrix",
    "infometer.systems.models",
    "infometer.systems.text",
    "infometer.systems.probes.decoding",
    "infometer.measures.multivariate",
    "infometer.measures.channels",
    "infometer.measures.generalized",
    "infometer.measures.complexity",
)

#: Data roles of the quantities the core API knows; families may add more.
QUANTITY_ROLES: dict[str, tuple[str, ...]] = {
    "entropy": ("x",),
    "mutual_info": ("x", "y"),
    "cond_mutual_info": ("x", "y", "z"),
    "kl_divergence": ("p", "q"),
}

#: Trailing roles a quantity may omit (e.g. transfer entropy's ``cond``); families add theirs.
OPTIONAL_ROLES: dict[str, tuple[str, ...]] = {}

#: Small example data of a quantity a family adds: ``EXAMPLES[quantity](rng)`` returns
#: ``{role: array}`` of dependent data that its estimators accept (a few dozen rows).  The
#: every-estimator tests (``ci=``, re-runs, independence tests) use it for quantities whose
#: roles are not plain paired samples; the core quantities need none.
EXAMPLES: dict[str, Callable[[Any], dict[str, Any]]] = {}

#: Quantities whose variables are independent samples (not paired rows).
UNPAIRED: set[str] = {"kl_divergence"}

#: Quantities that are >= 0 by definition; families may add more.  The dispatcher flags a
#: negative estimate of one (``diagnostics["negative"]`` and a warning) and never clips it,
#: so no estimator has to.
NONNEGATIVE: set[str] = {"mutual_info", "cond_mutual_info", "kl_divergence"}


@dataclass
class Raw:
    """What an estimator function returns (all values in nats).

    Attributes
    ----------
    value
        Point estimate in nats.
    stderr
        Native standard error (e.g. NSB posterior sd, Monte Carlo se), or None.
    ci
        Native ``(low, high)`` interval at ``ci_level``, or None.
    ci_level
        Coverage of ``ci``.
    stderr_dof
        Degrees of freedom of ``stderr`` when it was itself estimated from few replicates
        (``k - 1`` for the spread of k seeds): intervals from it then use the Student t
        quantile (:func:`infometer.core.uncertainty.interval_from_stderr`); ``None``: normal.
    diagnostics
        Facts to record in :attr:`Estimate.diagnostics`.
    warnings
        Messages to emit as :class:`~infometer.core.data.InfometerWarning` and record.
    params
        Parameters resolved during the run (e.g. a bin count chosen by a rule).  They are
        recorded in ``Estimate.params`` and passed back when the estimator is re-run
        (resampling, permutation tests), so each must be a valid value of that keyword
        (an ``int`` where an integer is required); facts that are not valid parameter
        values (a Chao1 alphabet estimate) belong in ``diagnostics``.
    """

    value: float
    stderr: float | None = None
    ci: tuple[float, float] | None = None
    ci_level: float | None = None
    stderr_dof: int | None = None
    diagnostics: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EstimatorSpec:
    """One estimator of one quantity.

    Attributes
    ----------
    name
        Method name users pass as ``method=`` (literature names: ``ksg1``, ``nsb``...).
    quantity
        Quantity it estimates (a key of :data:`QUANTITY_ROLES` or a family's own).
    func
        ``func(*variables, **params) -> Raw``.
    kinds
        Data kinds it accepts (``"discrete"``, ``"continuous"``, ``"mixed"``).
    family
        Family package (``"discrete"``, ``"knn"``...).
    params
        Parameter name -> default, read from ``func``'s keyword-only arguments.
    resampling
        How :mod:`infometer.measures.stats` builds error bars for it when no native ones exist:
        ``"bootstrap"`` (rows with replacement), ``"subsample"`` (m-out-of-n without
        replacement; kNN), ``"block"`` (half of the contiguous blocks of serial rows;
        transfer entropy, AIS, entropy rate), ``"seeds"`` (re-train with other seeds), or
        ``"none"``.
    summary
        One line for listings and error messages.
    """

    name: str
    quantity: str
    func: Callable[..., Raw]
    kinds: frozenset[str]
    family: str
    params: dict[str, Any]
    resampling: str = "bootstrap"
    summary: str = ""

    def check_params(self, given: dict[str, Any]) -> dict[str, Any]:
        """Fill defaults; raise ``TypeError`` naming unknown parameters and the valid ones."""
        if not given.keys() <= self.params.keys():
            unknown = sorted(set(given) - set(self.params))
            valid = ", ".join(sorted(self.params)) or "none"
            raise TypeError(
                f"method {self.name!r} has no parameter {', '.join(map(repr, unknown))}; "
                f"its parameters are: {valid}"
            )
        return {**self.params, **given}


@dataclass(frozen=True)
class AutoContext:
    """What ``method="auto"`` may look at: the quantity and the validated variables."""

    quantity: str
    variables: dict[str, Any]

    @property
    def kinds(self) -> set[str]:
        return {v.kind for v in self.variables.values()}

    @property
    def n(self) -> int:
        return next(iter(self.variables.values())).n


@dataclass(frozen=True)
class AutoRule:
    """A rule for ``method="auto"``: the lowest ``priority`` whose predicate holds wins.

    ``params`` (optional): parameters of the chosen method that the rule sets for these
    data (``{"dequantize": True}`` for rounded data, say); the user's own parameters win
    over them, and they are recorded in ``Estimate.params`` like any other.
    """

    quantity: str
    priority: int
    when: Callable[[AutoContext], bool]
    method: str | Callable[[AutoContext], str]
    reason: str | Callable[[AutoContext], str]
    params: dict[str, Any] | Callable[[AutoContext], dict[str, Any]] | None = None


@dataclass(frozen=True)
class AutoChoice:
    """What ``method="auto"`` chose: the method, why, and the parameters its rule sets."""

    method: str
    reason: str
    params: dict[str, Any] = field(default_factory=dict)


_SPECS: dict[tuple[str, str], EstimatorSpec] = {}
_AUTO: list[AutoRule] = []
_POST_LOAD: list[Callable[[], None]] = []
_loaded = False


def _ensure_loaded() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for mod in FAMILIES:
        importlib.import_module(mod)
    for hook in _POST_LOAD:
        hook()


def register_post_load(hook: Callable[[], None]) -> None:
    """Run ``hook()`` once every family is imported (e.g. to derive estimators of a new
    quantity from all registered estimators of another, as transfer entropy does from CMI).

    Hooks must be idempotent: a hook added after loading runs at once.
    """
    _POST_LOAD.append(hook)
    if _loaded:
        hook()


def register(
    name: str,
    quantity: str | Sequence[str],
    *,
    kinds: Sequence[str],
    family: str,
    resampling: str = "bootstrap",
    summary: str = "",
) -> Callable[[Callable[..., Raw]], Callable[..., Raw]]:
    """Decorator: register ``func`` as estimator ``name`` of ``quantity``.

    The estimator's parameters are its keyword-only arguments with their defaults.
    """
    quantities = (quantity,) if isinstance(quantity, str) else tuple(quantity)

    def deco(func: Callable[..., Raw]) -> Callable[..., Raw]:
        sig = inspect.signature(func)
        params = {
            p.name: p.default
            for p in sig.parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY
        }
        for q in quantities:
            key = (q, name)
            if key in _SPECS and _SPECS[key].func is not func:
                raise RuntimeError(f"estimator {name!r} for {q!r} is registered twice")
            _SPECS[key] = EstimatorSpec(
                name=name,
                quantity=q,
                func=func,
                kinds=frozenset(kinds),
                family=family,
                params=params,
                resampling=resampling,
                summary=summary or (func.__doc__ or "").strip().split("\n")[0],
            )
        return func

    return deco


def register_auto(rule: AutoRule) -> None:
    """Add a rule for ``method="auto"``."""
    _AUTO.append(rule)


def methods(quantity: str) -> list[str]:
    """Names of the estimators registered for ``quantity``."""
    _ensure_loaded()
    return list(_methods(quantity, len(_SPECS)))


@functools.lru_cache(maxsize=512)
def _methods(quantity: str, n_specs: int) -> tuple[str, ...]:
    """:func:`methods` for the registry of ``n_specs`` specs (specs are only ever added:
    the count says all)."""
    return tuple(sorted(name for (q, name) in _SPECS if q == quantity))


_QUANTITIES: tuple[int, tuple[str, ...], frozenset[str]] = (-1, (), frozenset())


def _quantity_names() -> tuple[tuple[str, ...], frozenset[str]]:
    """The sorted quantity names and their set, for the registry as it is now."""
    global _QUANTITIES
    _ensure_loaded()
    if _QUANTITIES[0] != len(_SPECS):  # specs are only ever added: the count says all
        names = tuple(sorted({q for q, _ in _SPECS}))
        _QUANTITIES = (len(_SPECS), names, frozenset(names))
    return _QUANTITIES[1], _QUANTITIES[2]


def quantities() -> list[str]:
    """Names of the quantities that have at least one registered estimator."""
    return list(_quantity_names()[0])


def _is_quantity(name: str) -> bool:
    """Whether ``name`` (a string) is a quantity with at least one registered estimator."""
    return name in _quantity_names()[1]


def specs(quantity: str | None = None) -> list[EstimatorSpec]:
    """All registered specs (optionally of one quantity)."""
    _ensure_loaded()
    return [s for (q, _), s in sorted(_SPECS.items()) if quantity is None or q == quantity]


def _has(quantity: str, name: str) -> bool:
    """Whether ``name`` (lower case) is a registered estimator of ``quantity``."""
    _ensure_loaded()
    return (quantity, name) in _SPECS


def get(quantity: str, name: str) -> EstimatorSpec:
    """Look up an estimator; raise ``ValueError`` listing the valid names."""
    _ensure_loaded()
    if not isinstance(name, str):
        raise TypeError(f"method must be a string, got {type(name).__name__}")
    key = (quantity, name.lower())
    if key not in _SPECS:
        valid = ", ".join(["auto", *methods(quantity)])
        raise ValueError(f"unknown method {name!r} for {quantity}; valid methods: {valid}")
    return _SPECS[key]


def choose(ctx: AutoContext) -> AutoChoice:
    """Apply the auto rules; return the method, the reason and the rule's parameters."""
    _ensure_loaded()
    for rule in sorted((r for r in _AUTO if r.quantity == ctx.quantity), key=lambda r: r.priority):
        if rule.when(ctx):
            method = rule.method(ctx) if callable(rule.method) else rule.method
            reason = rule.reason(ctx) if callable(rule.reason) else rule.reason
            params = rule.params(ctx) if callable(rule.params) else rule.params
            return AutoChoice(method, reason, dict(params or {}))
    kinds = ", ".join(f"{k}={v.kind}" for k, v in ctx.variables.items())
    few = [k for k, v in ctx.variables.items() if v.diagnostics.get("few_distinct_float_columns")]
    symbolic = any("discrete" in get(ctx.quantity, m).kinds for m in methods(ctx.quantity))
    hint = (
        f" ({', '.join(few)} {'is' if len(few) == 1 else 'are'} float but take few distinct "
        "values: discrete=True reads them as symbols)"
        if few and symbolic
        else ""
    )
    raise ValueError(
        f"method='auto' has no estimator of {ctx.quantity} for data of kinds ({kinds}); "
        f"pass method= explicitly, one of: {', '.join(methods(ctx.quantity)) or 'none registered'}"
        + hint
    )


def choose_auto(ctx: AutoContext) -> tuple[str, str]:
    """Apply the auto rules; return ``(method, reason)`` (:func:`choose` adds the
    parameters the rule sets)."""
    choice = choose(ctx)
    return choice.method, choice.reason
