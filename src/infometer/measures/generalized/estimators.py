"""Registered estimators of Rényi / Tsallis entropies, divergences and MI from samples.

Quantities (all in nats): ``renyi_entropy`` and ``tsallis_entropy`` (role ``x``; parameter
``order``), ``renyi_divergence`` and ``jensen_shannon_divergence`` and
``jensen_renyi_divergence`` (roles ``p``, ``q``: two independent samples) and
``renyi_mutual_info`` (roles ``x``, ``y``: paired samples; defined as the Rényi divergence
of order ``order`` between the joint and the product of the marginals,
``D_a(P_XY ‖ P_X ⊗ P_Y)``, the definition used e.g. by Lenzi et al. 2000 and Póczos &
Schneider 2011; Sibson's and Arimoto's variants differ for ``a != 1``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import digamma

from infometer.core.data import Variable
from infometer.core.registry import (
    NONNEGATIVE,
    QUANTITY_ROLES,
    UNPAIRED,
    AutoContext,
    AutoRule,
    Raw,
    register,
    register_auto,
)
from infometer.core.validation import check_bool, check_choice, check_int
from infometer.estimators.discrete.counting import counts
from infometer.estimators.knn.prep import check_prep, takes_prep

from . import kernels

__all__ = ["check_order", "QUANTITIES"]

_FAMILY = "generalized"
QUANTITIES = (
    "renyi_entropy",
    "tsallis_entropy",
    "renyi_divergence",
    "jensen_shannon_divergence",
    "jensen_renyi_divergence",
    "renyi_mutual_info",
)
QUANTITY_ROLES.update(
    {
        "renyi_entropy": ("x",),
        "tsallis_entropy": ("x",),
        "renyi_divergence": ("p", "q"),
        "jensen_shannon_divergence": ("p", "q"),
        "jensen_renyi_divergence": ("p", "q"),
        "renyi_mutual_info": ("x", "y"),
    }
)
UNPAIRED.update({"renyi_divergence", "jensen_shannon_divergence", "jensen_renyi_divergence"})
NONNEGATIVE.update({"renyi_divergence", "jensen_shannon_divergence", "renyi_mutual_info"})


def check_order(order: Any, kind: str = "renyi") -> float:
    """The order ``a`` (Rényi: ``a >= 0`` or ``inf``) or index ``q`` (Tsallis: ``q > 0``)."""
    if isinstance(order, bool) or not isinstance(order, int | float | np.integer | np.floating):
        raise TypeError(f"order must be a number, got {type(order).__name__} {order!r}")
    a = float(order)
    if math.isnan(a):
        raise ValueError("order must be a number >= 0, got nan")
    if kind == "tsallis":
        if not a > 0:
            raise ValueError(f"order (the Tsallis index q) must be > 0, got {a:g}")
        if math.isinf(a):
            raise ValueError("order (the Tsallis index q) must be finite")
        return a
    if a < 0:
        raise ValueError(f"order (the Rényi order alpha) must be >= 0 (or inf), got {a:g}")
    return a


def _pmf_of(v: Variable) -> tuple[np.ndarray, np.ndarray]:
    c = counts(v.codes)
    return c, c / c.sum()


def _entropy_of(kind: str):
    return kernels.renyi if kind == "renyi" else kernels.tsallis


# ---------------------------------------------------------------- discrete entropies
def _make_plugin(kind: str):
    def plugin(x: Variable, *, order: float = 2.0) -> Raw:
        a = check_order(order, kind)
        c, p = _pmf_of(x)
        value = _entropy_of(kind)(p, a)
        diag = {"n_symbols_observed": int(c.size)}
        warns = []
        if c.sum() / c.size < 2:
            diag["undersampled"] = True
            warns.append(
                f"undersampled: {int(c.sum())} samples for {c.size} distinct symbols; the "
                "plug-in estimate is biased low here"
            )
        return Raw(value=value, diagnostics=diag, warnings=warns)

    plugin.__name__ = f"{kind}_plugin"
    return plugin


def _make_unbiased(kind: str):
    def unbiased(x: Variable, *, order: float = 2.0) -> Raw:
        a = check_order(order, kind)
        if a != int(a) or a < 2:
            raise ValueError(
                f"order must be an integer >= 2 for method 'unbiased' (the falling-factorial "
                f"power sum), got {a:g}; use method='plugin' for other orders"
            )
        c, _ = _pmf_of(x)
        n = int(c.sum())
        if n < a:
            raise ValueError(f"method 'unbiased' needs at least order={int(a)} samples, got {n}")
        s = kernels.falling_power_sum(c, int(a))
        warns: list[str] = []
        if s <= 0:
            warns.append(
                f"no symbol was seen {int(a)} times: the unbiased power sum is 0 and the "
                "entropy estimate is +inf (use method='plugin')"
            )
            value = math.inf if kind == "renyi" else 1.0 / (a - 1.0)
        elif kind == "renyi":
            value = math.log(s) / (1.0 - a)
        else:
            value = (1.0 - s) / (a - 1.0)
        return Raw(value=value, diagnostics={"power_sum": s}, warnings=warns)

    unbiased.__name__ = f"{kind}_unbiased"
    unbiased.plugin_method = "plugin"  # type: ignore[attr-defined]
    return unbiased


# -------------------------------------------------------------- continuous: LPS kNN
def _make_lps(kind: str):
    @takes_prep
    def lps(
        x: Variable,
        *,
        order: float = 2.0,
        k: int = 5,
        metric: str = "euclidean",
        **prep: Any,
    ) -> Raw:
        from infometer.estimators.knn.engine import kth_neighbours
        from infometer.estimators.knn.kernels import log_unit_ball
        from infometer.estimators.knn.prep import prepare

        a = check_order(order, kind)
        k = check_int(k, "k", min_value=1)
        check_choice(metric, "metric", ("max", "euclidean"))
        prep = check_prep(prep)
        if k >= x.n:
            raise ValueError(f"k must be smaller than the number of samples ({x.n}), got k={k}")
        if a == 0.0 or math.isinf(a):
            raise ValueError(
                f"order={a:g} is not estimable by method 'lps' (the kNN power mean needs "
                "0 < order < k + 1)"
            )
        if a >= k + 1:
            raise ValueError(
                f"method 'lps' needs order < k + 1 (Gamma(k + 1 - order) must be finite), "
                f"got order={a:g} with k={k}; raise k"
            )
        p = prepare({"x": x.values}, **prep)
        if p.constant:
            return Raw(
                value=-math.inf,
                diagnostics=p.diagnostics,
                warnings=[*p.warnings, "a constant column has no density: the entropy is -inf"],
            )
        pts = p.blocks[0]
        n, d = pts.shape
        rho, _ = kth_neighbours(pts, k, metric)
        if np.any(rho <= 0):
            raise ValueError(
                f"{int(np.sum(rho <= 0))} points have {k} or more exact duplicates (zero "
                "k-th neighbour distance); use jitter='auto'"
            )
        log_vd = log_unit_ball(d, metric)
        log_rho = np.log(rho)
        if a == 1.0:
            h = math.log(n - 1) - float(digamma(k)) + log_vd + d * float(log_rho.mean())
        else:
            h = kernels.lps_log_power_mean(log_rho, n, k, d, a, log_vd) / (1.0 - a)
        h += p.log_scale[0]
        value = h if kind == "renyi" else kernels.tsallis_from_renyi(h, a)
        diag = {**p.diagnostics, "renyi_entropy": h}
        return Raw(value=value, diagnostics=diag, warnings=p.warnings)

    lps.__name__ = f"{kind}_lps"
    return lps


def _tied_params(ctx: AutoContext) -> dict[str, Any]:
    from infometer.estimators.knn import _ties

    return {"dequantize": True} if _ties.any_tied(ctx.variables) else {}


def _lps_method(ctx: AutoContext) -> str:
    from infometer.estimators.knn import _ties

    _ties.check_entropy_defined(ctx.variables, "Renyi or Tsallis entropy")
    return "lps"


def _lps_reason(ctx: AutoContext) -> str:
    from infometer.estimators.knn import _ties

    if not _ties.any_tied(ctx.variables):
        return "continuous data: LPS kNN"
    return _ties.entropy_reason(ctx.variables, "LPS kNN (a Renyi entropy shifts by log(step))")


def _knn_reason(plain: str, estimator: str) -> Callable[[AutoContext], str]:
    def reason(ctx: AutoContext) -> str:
        from infometer.estimators.knn import _ties

        if not _ties.any_tied(ctx.variables):
            return plain
        return _ties.info_reason(ctx.variables, estimator)

    return reason


for _kind in ("renyi", "tsallis"):
    _q = f"{_kind}_entropy"
    register(
        "plugin",
        _q,
        kinds=("discrete",),
        family=_FAMILY,
        summary=f"Plug-in {_kind.capitalize()} entropy of the empirical pmf",
    )(_make_plugin(_kind))
    register(
        "unbiased",
        _q,
        kinds=("discrete",),
        family=_FAMILY,
        summary="Unbiased falling-factorial power sum (integer order >= 2)",
    )(_make_unbiased(_kind))
    register(
        "lps",
        _q,
        kinds=("continuous",),
        family=_FAMILY,
        resampling="subsample",
        summary="Leonenko-Pronzato-Savani (2008) kNN estimator",
    )(_make_lps(_kind))
    register_auto(
        AutoRule(_q, 100, lambda c: c.kinds == {"discrete"}, "plugin", "discrete data: plug-in")
    )
    register_auto(
        AutoRule(
            _q,
            200,
            lambda c: c.kinds == {"continuous"},
            _lps_method,
            _lps_reason,
            params=_tied_params,
        )
    )


# ---------------------------------------------------------------- divergences
def _codes_are_symbols(v: Variable) -> bool:
    return v.d == 1 and (v.symbols is None or v.symbols[0] is None)


def _shared_pmfs(p: Variable, q: Variable) -> tuple[np.ndarray, np.ndarray]:
    """The empirical pmfs of p and q on one shared alphabet."""
    if _codes_are_symbols(p) and _codes_are_symbols(q):
        cp, cq = p.columns[0], q.columns[0]  # small non-negative integers: codes = symbols
    else:
        from infometer.estimators.discrete.estimators import aligned_codes

        cp, cq = aligned_codes(p, q)
    m = int(max(cp.max(), cq.max())) + 1
    a = np.bincount(cp, minlength=m).astype(float)
    b = np.bincount(cq, minlength=m).astype(float)
    return a / a.sum(), b / b.sum()


@register(
    "plugin",
    "renyi_divergence",
    kinds=("discrete",),
    family=_FAMILY,
    summary="Plug-in Rényi divergence of the empirical pmfs",
)
def renyi_divergence_plugin(p: Variable, q: Variable, *, order: float = 2.0) -> Raw:
    """Plug-in Rényi divergence D_a(P̂ ‖ Q̂)."""
    a = check_order(order)
    pp, qq = _shared_pmfs(p, q)
    v = kernels.renyi_divergence(pp, qq, a)
    warns = []
    if math.isinf(v):
        warns.append("q's sample misses symbols of p's sample: the plug-in divergence is inf")
    return Raw(value=v, warnings=warns)


@register(
    "poczos_schneider",
    "renyi_divergence",
    kinds=("continuous",),
    family=_FAMILY,
    resampling="subsample",
    summary="Poczos-Schneider (2011) kNN Rényi divergence",
)
def renyi_divergence_knn(
    p: Variable,
    q: Variable,
    *,
    order: float = 2.0,
    k: int = 5,
    jitter: str = "auto",
    seed: int | None = 0,
    dequantize: bool = False,
) -> Raw:
    """kNN Rényi divergence (Póczos & Schneider 2011): with ρ_i the distance from p_i to its
    k-th neighbour among the other p's and ν_i to its k-th neighbour among the q's,
    ``D = log(B mean(((n-1) ρ_i^d / (m ν_i^d))^(1-a))) / (a - 1)``,
    ``B = Γ(k)² / (Γ(k - a + 1) Γ(k + a - 1))``; consistent for ``|a - 1| < k``.
    ``dequantize=True`` spreads tied (rounded) values over the rounding step of the pooled
    column first, which keeps the divergence of the recorded values."""
    from scipy.special import gammaln, logsumexp

    from infometer.estimators.knn.engine import kth_distance_to, kth_neighbours
    from infometer.estimators.knn.prep import JITTER_CHOICES, prepare

    a = check_order(order)
    k = check_int(k, "k", min_value=1)
    check_choice(jitter, "jitter", JITTER_CHOICES)
    check_bool(dequantize, "dequantize")
    if p.d != q.d:
        raise ValueError(f"p has {p.d} columns but q has {q.d}; both must live in one space")
    if k >= p.n or k > q.n:
        raise ValueError(f"k must be smaller than p's size and at most q's, got k={k}")
    if a == 1.0 or math.isinf(a) or not abs(a - 1.0) < k:
        raise ValueError(
            f"method 'poczos_schneider' needs order != 1, finite, with |order - 1| < k "
            f"(got order={a:g}, k={k}); use kl_divergence for order 1"
        )
    prep = prepare(
        {"p": p.values, "q": q.values},
        standardize=True,
        jitter=jitter,
        jitter_scale=1e-10,
        seed=seed,
        pooled=True,
        dequantize=bool(dequantize),
    )
    if prep.constant:
        raise ValueError("a column is constant in both samples: the densities do not exist")
    bp, bq = prep.blocks
    n, m, d = bp.shape[0], bq.shape[0], bp.shape[1]
    rho, _ = kth_neighbours(bp, k, "euclidean")
    nu = kth_distance_to(bq, bp, k, "euclidean")
    if np.any(rho <= 0) or np.any(nu <= 0):
        raise ValueError("zero neighbour distances (duplicated rows); use jitter='auto'")
    log_ratio = math.log(n - 1) - math.log(m) + d * (np.log(rho) - np.log(nu))
    log_b = 2 * gammaln(k) - gammaln(k - a + 1) - gammaln(k + a - 1)
    val = (log_b + float(logsumexp((1 - a) * log_ratio)) - math.log(n)) / (a - 1)
    return Raw(value=val, diagnostics=prep.diagnostics, warnings=prep.warnings)


def _weights(p: Variable, q: Variable, weights: Any) -> np.ndarray:
    if weights is None:
        return np.array([0.5, 0.5])
    from infometer.core.validation import check_probability_vector

    return check_probability_vector(weights, "weights", size=2)


def _jensen_plugin(p: Variable, q: Variable, a: float, weights: Any) -> Raw:
    pp, qq = _shared_pmfs(p, q)
    w = _weights(p, q, weights)
    return Raw(value=kernels.jensen(np.vstack([pp, qq]), w, a))


@register(
    "plugin",
    "jensen_shannon_divergence",
    kinds=("discrete",),
    family=_FAMILY,
    summary="Plug-in Jensen-Shannon divergence H(wP+(1-w)Q) - wH(P) - (1-w)H(Q)",
)
def jsd_plugin(p: Variable, q: Variable, *, weights: Any = None) -> Raw:
    """Plug-in Jensen–Shannon divergence of the empirical pmfs."""
    return _jensen_plugin(p, q, 1.0, weights)


@register(
    "kozachenko_leonenko",
    "jensen_shannon_divergence",
    kinds=("continuous",),
    family=_FAMILY,
    resampling="subsample",
    summary="JSD from Kozachenko-Leonenko entropies of each sample and of the pooled one",
)
def jsd_knn(
    p: Variable,
    q: Variable,
    *,
    k: int = 5,
    jitter: str = "auto",
    seed: int | None = 0,
    dequantize: bool = False,
) -> Raw:
    """JSD with weights ``n_p/N, n_q/N`` from kNN entropies: the pooled sample is a sample
    of the mixture ``(n_p P + n_q Q) / N``, so ``JSD = H(pooled) - sum_i w_i H(sample_i)``.
    ``dequantize=True`` spreads tied (rounded) values over the rounding step of the pooled
    column first, which keeps the divergence of the recorded values."""
    from infometer.estimators.knn.kernels import kozachenko_leonenko
    from infometer.estimators.knn.prep import JITTER_CHOICES, prepare

    k = check_int(k, "k", min_value=1)
    check_choice(jitter, "jitter", JITTER_CHOICES)
    check_bool(dequantize, "dequantize")
    if p.d != q.d:
        raise ValueError(f"p has {p.d} columns but q has {q.d}; both must live in one space")
    if k >= min(p.n, q.n):
        raise ValueError(f"k must be smaller than each sample's size, got k={k}")
    prep = prepare(
        {"p": p.values, "q": q.values},
        standardize=True,
        jitter=jitter,
        jitter_scale=1e-10,
        seed=seed,
        pooled=True,
        dequantize=bool(dequantize),
    )
    if prep.constant:
        raise ValueError("a column is constant in both samples: the densities do not exist")
    bp, bq = prep.blocks
    hp, _ = kozachenko_leonenko(bp, k)
    hq, _ = kozachenko_leonenko(bq, k)
    hm, _ = kozachenko_leonenko(np.vstack([bp, bq]), k)
    wp = p.n / (p.n + q.n)
    value = hm - wp * hp - (1 - wp) * hq  # the common log-scale cancels
    diag = {**prep.diagnostics, "weights": [wp, 1 - wp], "ceiling": math.log(2)}
    return Raw(value=value, diagnostics=diag, warnings=prep.warnings)


@register(
    "plugin",
    "jensen_renyi_divergence",
    kinds=("discrete",),
    family=_FAMILY,
    summary="Plug-in Jensen-Rényi divergence H_a(wP+(1-w)Q) - wH_a(P) - (1-w)H_a(Q)",
)
def jrd_plugin(p: Variable, q: Variable, *, order: float = 2.0, weights: Any = None) -> Raw:
    """Plug-in Jensen–Rényi divergence (He, Hamza & Krim 2003) of the empirical pmfs."""
    return _jensen_plugin(p, q, check_order(order), weights)


@register(
    "plugin",
    "renyi_mutual_info",
    kinds=("discrete",),
    family=_FAMILY,
    summary="Plug-in D_a(P_XY || P_X P_Y) of the empirical joint pmf",
)
def renyi_mi_plugin(x: Variable, y: Variable, *, order: float = 2.0) -> Raw:
    """Plug-in Rényi MI ``D_a(P̂_XY ‖ P̂_X ⊗ P̂_Y)``."""
    a = check_order(order)
    _, xi = np.unique(x.codes, return_inverse=True)
    _, yi = np.unique(y.codes, return_inverse=True)
    t = np.zeros((int(xi.max()) + 1, int(yi.max()) + 1))
    np.add.at(t, (xi, yi), 1.0)
    t /= t.sum()
    prod = np.outer(t.sum(1), t.sum(0))
    return Raw(value=kernels.renyi_divergence(t.ravel(), prod.ravel(), a))


for _q in ("renyi_divergence", "jensen_shannon_divergence", "jensen_renyi_divergence"):
    register_auto(
        AutoRule(_q, 100, lambda c: c.kinds == {"discrete"}, "plugin", "discrete: plug-in")
    )
register_auto(
    AutoRule(
        "renyi_divergence",
        200,
        lambda c: c.kinds == {"continuous"},
        "poczos_schneider",
        _knn_reason("continuous: Poczos-Schneider kNN", "Poczos-Schneider kNN"),
        params=_tied_params,
    )
)
register_auto(
    AutoRule(
        "jensen_shannon_divergence",
        200,
        lambda c: c.kinds == {"continuous"},
        "kozachenko_leonenko",
        _knn_reason(
            "continuous: kNN entropies of each and the pooled sample",
            "kNN entropies of each and the pooled sample",
        ),
        params=_tied_params,
    )
)
register_auto(
    AutoRule("renyi_mutual_info", 100, lambda c: c.kinds == {"discrete"}, "plugin", "plug-in")
)
