"""Registered kNN estimators of H, MI, CMI and KL (thin specs over :mod:`.kernels`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import digamma

from infometer.core._local import LocalRaw
from infometer.core.data import Variable, check_choice, check_int
from infometer.core.registry import AutoContext, AutoRule, Raw, register, register_auto

from . import _ties, kernels
from .prep import Prepared, check_prep, prepare, takes_prep

#: The estimator functions (``Variable`` in, ``Raw`` out) are registered, not exported:
#: users reach them as ``im.mutual_info(x, y, method="ksg1")`` (public-surface policy).
__all__: list[str] = []

_FAMILY = "knn"
_CONT = ("continuous",)
#: Estimates above this fraction of the ceiling psi(N) - psi(k) are flagged as saturated.
SATURATION = 0.7


def _check(n: int, k: int) -> int:
    k = check_int(k, "k", min_value=1)
    if k >= n:
        raise ValueError(f"k must be smaller than the number of samples ({n}), got k={k}")
    return k


def _prep(vs: dict[str, Variable], prep: dict[str, Any], **kw: Any) -> Prepared:
    """The blocks of ``vs`` prepared with the estimator's preparation parameters
    (:data:`~.prep.PREP_PARAMS`, checked by :func:`~.prep.check_prep`)."""
    return prepare({nm: v.values for nm, v in vs.items()}, **check_prep(prep), **kw)


def knn_ceiling(n: int, k: int) -> float:
    """The largest value a kNN MI/CMI estimate can take on ``n`` rows: ``psi(n) - psi(k)``
    (reached when one side is a copy of the other).  Values above ``SATURATION`` times it
    are flagged ``near_ceiling`` (here and by :func:`infometer.pairwise`)."""
    return float(digamma(n) - digamma(k))


def _info_flags(value: float, n: int, k: int, diag: dict, warns: list[str], what: str) -> None:
    """Record values near the kNN ceiling (negative values are flagged by the dispatcher)."""
    ceiling = knn_ceiling(n, k)
    diag["ceiling"] = ceiling
    if value > SATURATION * ceiling:
        diag["near_ceiling"] = True
        warns.append(
            f"{what} estimate {value:.3g} nats is near the kNN ceiling psi(N)-psi(k) = "
            f"{ceiling:.3g}: kNN estimates saturate there, the true value may be much larger"
        )


def _zero(p: Prepared, why: str) -> Raw:
    """An exact 0 because a variable is constant: one warning says it (the preparation's
    "columns [...] are constant; ... dropped" folded into it, not said beside it)."""
    dropped = "; they carry no information and are dropped"
    said = [w.replace(dropped, "") for w in p.warnings if w.endswith(dropped)]
    rest = [w for w in p.warnings if not w.endswith(dropped)]
    return Raw(
        value=0.0,
        diagnostics={**p.diagnostics, "exact_zero": why},
        warnings=[*rest, f"{'; '.join(said) or why}: no information, the value is exactly 0"],
    )


# ---------------------------------------------------------------------- entropy
@register(
    "kozachenko_leonenko",
    "entropy",
    kinds=_CONT,
    family=_FAMILY,
    resampling="subsample",
    summary="Kozachenko-Leonenko kNN differential entropy (max-norm or Euclidean)",
)
@takes_prep
def kozachenko_leonenko(x: Variable, *, k: int = 3, metric: str = "max", **prep: Any) -> Raw:
    """Kozachenko-Leonenko (1987) differential entropy from k-th neighbour distances.

    ``dequantize=True`` spreads each value of a tied (rounded) column uniformly over its
    rounding step first: the estimate is then of ``h = H(values) + log(step)``, the
    differential entropy of the rounded variable (docs/knn.md, "Ties and rounding").
    """
    k = _check(x.n, k)
    check_choice(metric, "metric", ("max", "euclidean"))
    p = _prep({"x": x}, prep)
    if p.constant:
        return Raw(
            value=float("-inf"),
            diagnostics=p.diagnostics,
            warnings=[
                *p.warnings,
                "a constant column has no density: the differential entropy is -inf",
            ],
        )
    h, diag = kernels.kozachenko_leonenko(p.blocks[0], k, metric)
    return Raw(value=h + p.log_scale[0], diagnostics={**p.diagnostics, **diag}, warnings=p.warnings)


# ----------------------------------------------------------------------------- MI
def _check_theiler(theiler: int, n: int, k: int) -> int:
    theiler = check_int(theiler, "theiler", min_value=0)
    # an interior row sees the n - 1 - 2 theiler rows outside its window: k must fit there
    if n - 1 - 2 * theiler < k:
        raise ValueError(
            f"theiler={theiler} leaves fewer than k={k} neighbours outside the window for "
            f"n={n} rows; use a smaller window or more rows"
        )
    return theiler


def _joint_prep(variables, k, theiler, prep):
    """``(n, k, theiler, prepared, why constant or "")``: the checks and preparation every
    joint-space kNN estimator (global or local) starts with."""
    n = next(iter(variables.values())).n
    k = _check(n, k)
    theiler = _check_theiler(theiler, n, k)
    p = _prep(variables, prep)
    bx, by = p.blocks[:2]
    constant = bx.shape[1] == 0 or by.shape[1] == 0
    return n, k, theiler, p, f"{'x' if bx.shape[1] == 0 else 'y'} is constant" if constant else ""


def _joint_knn(
    variables: dict[str, Variable],
    kernel: Callable[..., tuple[float, dict]],
    what: str,
    k: int,
    theiler: int,
    prep: dict[str, Any],
) -> Raw:
    """Validate, prepare and run a joint-space kNN kernel (KSG, Frenzel-Pompe).

    ``kernel(*blocks, k, theiler)``; a constant x or y gives exactly 0.
    """
    n, k, theiler, p, constant = _joint_prep(variables, k, theiler, prep)
    if constant:
        return _zero(p, constant)
    value, diag = kernel(*p.blocks, k, theiler)
    warns = list(p.warnings)
    diag = {**p.diagnostics, **diag}
    _info_flags(value, n, k, diag, warns, what)
    return Raw(value=value, diagnostics=diag, warnings=warns)


def _joint_knn_local(
    variables: dict[str, Variable],
    kernel: Callable[..., tuple[np.ndarray, dict]],
    k: int,
    theiler: int,
    prep: dict[str, Any],
) -> LocalRaw:
    """:func:`_joint_knn` with a local kernel: the same checks, preparation (jitter from the
    same seed) and constant-variable rule, per point."""
    n, k, theiler, p, why = _joint_prep(variables, k, theiler, prep)
    if why:
        diag = {**p.diagnostics, "exact_zero": why}
        warns = [*p.warnings, f"{why}: every local value is exactly 0"]
        return LocalRaw(np.zeros(n), diagnostics=diag, warnings=warns)
    vals, diag = kernel(*p.blocks, k, theiler)
    vals = np.asarray(vals, dtype=np.float64)
    return LocalRaw(vals, diagnostics={**p.diagnostics, **diag}, warnings=list(p.warnings))


def _ksg(x: Variable, y: Variable, variant: int, k: int, theiler: int, prep: dict) -> Raw:
    def kernel(bx, by, k, theiler):
        return kernels.ksg(bx, by, k, variant, theiler)

    return _joint_knn({"x": x, "y": y}, kernel, f"KSG-{variant}", k, theiler, prep)


def _ksg_estimator(variant: int, doc: str) -> Callable[..., Raw]:
    """KSG-1 and KSG-2 share every parameter; the registry reads them from this signature."""

    @takes_prep
    def f(x: Variable, y: Variable, *, k: int = 3, theiler: int = 0, **prep: Any) -> Raw:
        return _ksg(x, y, variant, k, theiler, prep)

    @takes_prep
    def local_values(
        x: Variable, y: Variable, *, k: int = 3, theiler: int = 0, **prep: Any
    ) -> LocalRaw:
        def kernel(bx, by, k, theiler):
            return kernels.ksg_local(bx, by, k, variant, theiler)

        return _joint_knn_local({"x": x, "y": y}, kernel, k, theiler, prep)

    f.__name__ = f.__qualname__ = f"ksg{variant}"
    f.local_values = local_values  # type: ignore[attr-defined]  # read by api.run_local
    f.__doc__ = (
        doc
        + """

    ``theiler`` (rows, default 0): Theiler window for time-ordered rows; rows with
    ``|i - j| <= theiler`` are never each other's neighbours nor counted.
    ``dequantize=True``: each value of a tied (rounded) column is spread uniformly over its
    rounding step first, which keeps the MI of the recorded values exactly.
    """
    )
    return f


ksg1 = register(
    "ksg1",
    "mutual_info",
    kinds=_CONT,
    family=_FAMILY,
    resampling="subsample",
    summary="Kraskov-Stoegbauer-Grassberger MI, algorithm 1 (max-norm, strict counts)",
)(_ksg_estimator(1, "KSG-1 mutual information for multivariate continuous X and Y."))
ksg2 = register(
    "ksg2",
    "mutual_info",
    kinds=_CONT,
    family=_FAMILY,
    resampling="subsample",
    summary="Kraskov-Stoegbauer-Grassberger MI, algorithm 2 (per-block radii)",
)(_ksg_estimator(2, "KSG-2 mutual information for multivariate continuous X and Y."))


# ---------------------------------------------------------------------------- CMI
@register(
    "frenzel_pompe",
    "cond_mutual_info",
    kinds=_CONT,
    family=_FAMILY,
    resampling="subsample",
    summary="Frenzel-Pompe kNN conditional MI (KSG-1 in the (x,y,z) space)",
)
@register(
    "ksg1",
    "cond_mutual_info",
    kinds=_CONT,
    family=_FAMILY,
    resampling="subsample",
    summary="KSG-1 conditional MI, i.e. Frenzel-Pompe",
)
@takes_prep
def frenzel_pompe(
    x: Variable, y: Variable, z: Variable, *, k: int = 3, theiler: int = 0, **prep: Any
) -> Raw:
    """Frenzel-Pompe (2007) conditional mutual information I(X;Y|Z).

    ``theiler`` (rows, default 0): Theiler window for time-ordered rows, as in KSG;
    ``dequantize``: as in KSG.
    """
    data = {"x": x, "y": y, "z": z}
    return _joint_knn(data, kernels.frenzel_pompe, "Frenzel-Pompe CMI", k, theiler, prep)


@takes_prep
def _frenzel_pompe_local(
    x: Variable, y: Variable, z: Variable, *, k: int = 3, theiler: int = 0, **prep: Any
) -> LocalRaw:
    data = {"x": x, "y": y, "z": z}
    return _joint_knn_local(data, kernels.frenzel_pompe_local, k, theiler, prep)


frenzel_pompe.local_values = _frenzel_pompe_local  # type: ignore[attr-defined]


# ----------------------------------------------------------------------------- KL
@register(
    "wkv",
    "kl_divergence",
    kinds=_CONT,
    family=_FAMILY,
    resampling="subsample",
    summary="Wang-Kulkarni-Verdu kNN KL divergence between two samples",
)
@takes_prep
def wkv(p: Variable, q: Variable, *, k: int = 3, metric: str = "euclidean", **prep: Any) -> Raw:
    """Wang-Kulkarni-Verdu (2009) kNN estimate of D(P||Q) from samples of P and Q.

    ``standardize`` applies one affine map (pooled mean and sd per column) to both samples,
    to which the divergence is invariant.  ``dequantize=True`` spreads tied values over the
    rounding step of the pooled column, which keeps the divergence of the recorded values.
    """
    k = _check(p.n, k)
    if k > q.n:
        raise ValueError(f"k must be at most the number of samples of q ({q.n}), got k={k}")
    check_choice(metric, "metric", ("max", "euclidean"))
    pr = _prep({"p": p, "q": q}, prep, pooled=True)
    bp, bq = pr.blocks
    if bp.shape[1] == 0:
        return _zero(pr, "p and q are the same constant")
    value, diag = kernels.wkv(bp, bq, k, metric)
    warns = list(pr.warnings)
    _kl_flags(p, q, value, diag, warns)
    return Raw(value=value, diagnostics={**pr.diagnostics, **diag}, warnings=warns)


#: Below this overlap (k-NN mixing of p and q relative to p = q) the supports are called
#: nearly disjoint.  N(0, 1) vs N(s, 1), n = m = 1000: s = 3 gives overlap 0.14 and an
#: estimate of 79% of the truth, s = 4 0.05 and 62%, s = 100 0 and 0.2% (9.9 nats of 5000).
MIN_OVERLAP = 0.2


def _kl_flags(p: Variable, q: Variable, value: float, diag: dict, warns: list[str]) -> None:
    """Flag samples that share their rows (p is q) and nearly disjoint supports."""
    shared = _shared_rows(p.values, q.values)
    if shared:
        diag["shared_rows"] = shared
    if shared >= 0.5 and (p.ties or q.ties):
        # rounded samples share values by chance: only the same rows in the same order
        # (one sample passed twice) count
        m = min(p.n, q.n)
        shared = float(np.all(p.values[:m] == q.values[:m], axis=1).mean())
        diag["shared_rows_in_order"] = shared
    if shared >= 0.5:
        warns.append(
            f"{shared:.0%} of p's rows also occur in q (the same sample passed twice?): a kNN "
            "divergence needs two independent samples; the estimate of D(P||P) from one "
            f"sample used twice ({value:.3g} nats) is not an estimate of 0"
        )
    overlap = diag.get("overlap", 1.0)
    if overlap < MIN_OVERLAP:
        diag["disjoint_supports"] = True
        warns.append(
            f"p and q barely overlap (nearest-neighbour mixing {overlap:.1%} of what p = q "
            "gives): kNN divergences grow only like d*log(distance ratio) as supports "
            f"separate, so {value:.3g} nats is a lower bound at best (N(0,1) vs N(100,1) gives "
            "~10 nats for a true 5000)"
        )


def _shared_rows(a: np.ndarray, b: np.ndarray) -> float:
    """Fraction of the rows of ``a`` that occur exactly in ``b`` (0 for independent
    continuous samples)."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    row = np.dtype((np.void, a.dtype.itemsize * a.shape[1]))
    return float(np.isin(a.view(row).ravel(), b.view(row).ravel()).mean())


# ------------------------------------------------------------------------ mixed
def atom_lattice_limit(n: int, k: int) -> int:
    """Most atom values a float column may have before they count as a rounding lattice.

    With K equally heavy atoms, the k-th neighbour radius inside one atom's slice of the
    joint space is about k·K/(2n) of the other variable's spread, and the spacing
    between atoms about 1/K of this one's: once K ≳ sqrt(n/k) the radius reaches the
    next atoms and GKOV's ``<=`` counts take in whole neighbouring slices (``np.round(x,
    1)`` of a normal at n = 2000: 0.39 nats for a true 0.347).  Below it the atoms are
    point masses at the estimator's resolution (counts, binary floats, exact zeros).
    """
    return max(2, int(np.sqrt(n / k)))


@register(
    "gkov",
    ("mutual_info", "cond_mutual_info"),
    kinds=("continuous", "discrete", "mixed"),
    family=_FAMILY,
    resampling="subsample",
    summary="Gao-Kannan-Oh-Viswanath kNN MI/CMI for discrete-continuous mixtures",
)
@takes_prep
def gkov(x: Variable, y: Variable, z: Variable | None = None, *, k: int = 3, **prep: Any) -> Raw:
    """Gao-Kannan-Oh-Viswanath (2017) MI (and CMI) for any mix of discrete and continuous columns.

    Discrete columns enter the max-norm as their integer codes (two different symbols are
    at distance >= 1; only exact ties are at distance 0); continuous columns are
    standardised when ``standardize``.  Discrete columns, and float values repeated at least
    ``max(k + 1, ceil(0.01 N))`` times (the exact zeros of zero-inflated data), are discrete
    atoms, handled natively.  Rarer repeats in a float column are rounding ties (3-decimal
    measurements, say): with ``jitter="auto"`` they get the same seeded jitter as KSG,
    because counting rounding ties as atoms inflates MI (0.81 instead of 0.66 bits for
    'worst radius' of the breast-cancer data, where Ross's estimator and an 8-bin
    Miller-Madow give 0.65 and 0.64).  ``jitter="never"`` keeps every tie as an atom;
    ``"always"`` jitters every non-atom float value.  ``dequantize=True`` spreads the
    values of a column with more than ``atom_lattice_limit`` atom values (a rounding
    lattice) uniformly over its rounding step instead of jittering them; columns of few
    heavy values stay atoms.
    """
    k = _check(x.n, k)
    vs = {"x": x, "y": y} if z is None else {"x": x, "y": y, "z": z}
    cont = {nm: np.array([kd == "continuous" for kd in v.kinds]) for nm, v in vs.items()}
    p = _prep(
        vs,
        prep,
        continuous=cont,
        atom_min_count=max(k + 1, int(np.ceil(0.01 * x.n))),
        atom_max_values=atom_lattice_limit(x.n, k),
    )
    p.warnings = [w for w in p.warnings if not w.startswith("tied values")]
    bx, by = p.blocks[:2]
    if bx.shape[1] == 0 or by.shape[1] == 0:
        return _zero(p, f"{'x' if bx.shape[1] == 0 else 'y'} is constant")
    bz = p.blocks[2] if z is not None and p.blocks[2].shape[1] else None  # constant z: MI
    value, diag = kernels.gkov(bx, by, bz, k)
    warns = list(p.warnings)
    diag = {**p.diagnostics, **diag}
    _info_flags(value, x.n, k, diag, warns, "GKOV")
    return Raw(value=value, diagnostics=diag, warnings=warns)


# ---------------------------------------------------------------------- auto rules
def _continuous(ctx: AutoContext) -> bool:
    return ctx.kinds == {"continuous"}


def _smooth(ctx: AutoContext) -> bool:
    """All continuous and no tied column (tie-free data: the plain kNN default)."""
    return _continuous(ctx) and not _ties.any_tied(ctx.variables)


def _rounded(ctx: AutoContext) -> bool:
    """All continuous, tied, and no tied column of few values (those are GKOV's atoms)."""
    return _continuous(ctx) and not _ties.any_few(ctx.variables)


def _has_continuous(ctx: AutoContext) -> bool:
    return bool(ctx.kinds & {"continuous", "mixed"})


def _mixed_reason(ctx: AutoContext) -> str:
    kinds = ", ".join(f"{nm}={v.kind}" for nm, v in ctx.variables.items())
    fine = _ties.any_fine(ctx.variables)
    spread = (
        "; columns of more values are spread uniformly over their rounding step (seeded), "
        "which keeps the information of the recorded values"
        if fine
        else ""
    )
    if _continuous(ctx):
        return (
            f"continuous data with float columns taking few distinct values "
            f"({_ties.facts(ctx.variables)}): GKOV treats their values as point masses "
            f"(the information of the recorded values){spread}"
        )
    tied = f" ({_ties.facts(ctx.variables)})" if fine else ""
    return (
        f"discrete and continuous columns ({kinds}){tied}: GKOV handles discrete-continuous "
        f"mixtures{spread}"
    )


def _entropy_method(ctx: AutoContext) -> str:
    _ties.check_entropy_defined(ctx.variables)
    return "kozachenko_leonenko"


def _entropy_reason(ctx: AutoContext) -> str:
    if not _ties.any_tied(ctx.variables):
        return "continuous data: Kozachenko-Leonenko kNN entropy (k=3, max-norm)"
    return _ties.entropy_reason(ctx.variables, "Kozachenko-Leonenko (k=3, max-norm)")


def _tied_params(ctx: AutoContext) -> dict:
    return _ties.dequantize_params(ctx.variables)


register_auto(
    AutoRule(
        "entropy",
        200,
        _continuous,
        _entropy_method,
        _entropy_reason,
        params=lambda ctx: {"dequantize": True} if _ties.any_tied(ctx.variables) else {},
    )
)
register_auto(
    AutoRule(
        "mutual_info",
        200,
        _smooth,
        "ksg1",
        "continuous data: KSG-1 kNN mutual information (k=3, standardised)",
    )
)
register_auto(
    AutoRule(
        "mutual_info",
        201,
        _rounded,
        "ksg1",
        lambda ctx: _ties.info_reason(ctx.variables, "KSG-1 (k=3, standardised)"),
        params=_tied_params,
    )
)
register_auto(
    AutoRule(
        "cond_mutual_info",
        200,
        _smooth,
        "frenzel_pompe",
        "continuous data: Frenzel-Pompe kNN conditional mutual information (k=3, standardised)",
    )
)
register_auto(
    AutoRule(
        "cond_mutual_info",
        201,
        _rounded,
        "frenzel_pompe",
        lambda ctx: _ties.info_reason(ctx.variables, "Frenzel-Pompe CMI (k=3, standardised)"),
        params=_tied_params,
    )
)
for _q in ("mutual_info", "cond_mutual_info"):
    register_auto(AutoRule(_q, 210, _has_continuous, "gkov", _mixed_reason, params=_tied_params))
register_auto(
    AutoRule(
        "kl_divergence",
        200,
        _continuous,
        "wkv",
        lambda ctx: (
            _ties.info_reason(ctx.variables, "Wang-Kulkarni-Verdu kNN divergence (k=3)")
            if _ties.any_tied(ctx.variables)
            else "continuous samples: Wang-Kulkarni-Verdu kNN divergence (k=3, Euclidean)"
        ),
        params=lambda ctx: {"dequantize": True} if _ties.any_tied(ctx.variables) else {},
    )
)
