"""Registered discrete estimators of H, MI, CMI (entropy combinations) and KL."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from infometer.core._local import LocalRaw
from infometer.core.data import Variable, check_float, encode_columns
from infometer.core.registry import AutoContext, AutoRule, Raw, register, register_auto

from . import kernels
from .counting import counts, joint_codes, joint_table, table_counts

__all__ = ["entropy_terms", "aligned_codes", "ENTROPY_KERNELS"]

_Q3 = ("entropy", "mutual_info", "cond_mutual_info")

#: name -> (kernel(c, k, lam) -> (h, sd | None), needs_alphabet)
ENTROPY_KERNELS: dict[str, tuple[Callable[..., tuple[float, float | None]], bool]] = {
    "plugin": (lambda c, k, lam: (kernels.plugin(c), None), False),
    "miller_madow": (lambda c, k, lam: (kernels.miller_madow(c), None), False),
    "chao_shen": (lambda c, k, lam: (kernels.chao_shen(c), None), False),
    "grassberger": (lambda c, k, lam: (kernels.grassberger(c), None), False),
    "shrinkage": (lambda c, k, lam: (kernels.shrinkage(c, k, lam), None), True),
    "nsb": (lambda c, k, lam: kernels.nsb(c, k)[:2], True),
}


def entropy_terms(n_vars: int) -> list[tuple[float, tuple[int, ...]]]:
    """Signed entropy terms whose sum is H (1 var), I(X;Y) (2) or I(X;Y|Z) (3)."""
    if n_vars == 1:
        return [(1.0, (0,))]
    if n_vars == 2:
        return [(1.0, (0,)), (1.0, (1,)), (-1.0, (0, 1))]
    if n_vars == 3:
        return [(1.0, (0, 2)), (1.0, (1, 2)), (-1.0, (0, 1, 2)), (-1.0, (2,))]
    raise ValueError(f"expected 1 to 3 variables, got {n_vars}")


def _alphabets(
    vs: Sequence[Variable], marg_counts: list[np.ndarray], given: int | Sequence[int] | None
) -> tuple[list[float], bool]:
    """Alphabet size of each variable: given, or estimated by Chao1 from its counts."""
    if given is None:
        return [max(kernels.chao1(c), float(c.size)) for c in marg_counts], True
    sizes = [given] if np.isscalar(given) else list(given)
    if len(sizes) != len(vs):
        roles = ", ".join(v.name for v in vs)
        raise ValueError(f"alphabet_size needs one size per variable ({roles}), got {len(sizes)}")
    out = []
    for v, k, c in zip(vs, sizes, marg_counts, strict=True):
        if isinstance(k, bool) or not isinstance(k, int | np.integer):
            raise TypeError(f"alphabet_size for {v.name} must be an integer, got {k!r}")
        if k < c.size:
            raise ValueError(
                f"alphabet_size for {v.name} is {k} but {c.size} distinct symbols were observed"
            )
        out.append(float(k))
    return out, False


def _combo(method: str, vs: Sequence[Variable], alphabet_size=None) -> Raw:
    kernel, needs_k = ENTROPY_KERNELS[method]
    terms = entropy_terms(len(vs))
    cache: dict[tuple[int, ...], np.ndarray] = {}
    table = joint_table(vs)  # every term's counts from one pass, when the table is small

    def cnt(idx: tuple[int, ...]) -> np.ndarray:
        if idx not in cache:
            if table is not None:
                cache[idx] = table_counts(table, len(vs), idx)
            else:
                cache[idx] = counts(joint_codes(*(vs[i] for i in idx)))
        return cache[idx]

    all_idx = tuple(range(len(vs)))
    c_all = cnt(all_idx)
    n = int(c_all.sum())
    diag: dict = {"n_symbols_observed": int(c_all.size), "samples_per_symbol": n / c_all.size}
    warns: list[str] = []
    ks: list[float] = [1.0] * len(vs)
    lam = None
    if needs_k:
        ks, estimated = _alphabets(vs, [cnt((i,)) for i in all_idx], alphabet_size)
        if estimated:
            # the Chao1 sizes are facts about this sample, not parameters: kept out of
            # ``params`` so that re-running with ``params`` (resampling, permutation
            # tests, a user repeating a call) re-estimates them instead of passing a float
            # where an integer alphabet size is required
            diag["alphabet_size_estimated"] = "Chao1"
            diag["alphabet_size"] = ks[0] if len(ks) == 1 else ks
        if method == "shrinkage":
            lam = kernels.shrinkage_lambda(c_all, float(np.prod(ks)))
            diag["shrinkage_lambda"] = lam
    elif alphabet_size is not None:
        raise TypeError(f"method {method!r} has no parameter 'alphabet_size'")
    if n / c_all.size < 2:
        diag["undersampled"] = True
        if len(vs) > 1:
            warns.append(
                f"undersampled: {n} samples for {c_all.size} distinct joint symbols; MI from "
                "counts is unreliable here whatever the estimator (for long sequences use "
                "method='infosedd')"
            )
        elif method not in ("nsb", "chao_shen"):
            warns.append(
                f"undersampled: {n} samples for {c_all.size} distinct symbols; {method} is "
                "biased here (nsb or chao_shen are built for this regime)"
            )
    total, sd = 0.0, None
    for sign, idx in terms:
        k = float(np.prod([ks[i] for i in idx]))
        h, s = kernel(cnt(idx), k, lam)
        total += sign * h
        sd = s if len(terms) == 1 else None
    return Raw(value=total, stderr=sd, diagnostics=diag, warnings=warns)


def _make(method: str, with_alphabet: bool) -> Callable[..., Raw]:
    if with_alphabet:

        def f(*vs: Variable, alphabet_size: int | Sequence[int] | None = None) -> Raw:
            return _combo(method, vs, alphabet_size)

    else:

        def f(*vs: Variable) -> Raw:
            return _combo(method, vs)

    f.__name__ = f"discrete_{method}"
    if method == "plugin":
        f.local_values = plugin_local  # type: ignore[attr-defined]  # read by api.run_local
    else:
        # bootstrap intervals centre on T(F^), the plug-in value (see stats.resample)
        f.plugin_method = "plugin"  # type: ignore[attr-defined]
    return f


def _row_counts(codes: np.ndarray) -> np.ndarray:
    """For each row, how many rows share its (joint) symbol."""
    _, inv, cnt = np.unique(codes, return_inverse=True, return_counts=True)
    return cnt[inv.reshape(-1)].astype(np.float64)


def plugin_local(*vs: Variable) -> LocalRaw:
    """Local plug-in values (nats), whose mean is the plug-in H, MI or CMI exactly.

    ``h(x) = -log(c(x)/n)``, ``i(x;y) = log[n c(x,y) / (c(x) c(y))]``,
    ``i(x;y|z) = log[c(x,y,z) c(z) / (c(x,z) c(y,z))]`` from the sample's own counts
    (Lizier 2014): the plug-in estimate is the average of these terms over the rows.
    """
    n = vs[0].n
    if len(vs) == 1:
        return LocalRaw(-np.log(_row_counts(vs[0].codes) / n))
    x, y = vs[0], vs[1]
    if len(vs) == 2:
        cxy = _row_counts(joint_codes(x, y))
        return LocalRaw(np.log(n * cxy / (_row_counts(x.codes) * _row_counts(y.codes))))
    z = vs[2]
    cxyz = _row_counts(joint_codes(x, y, z))
    cz = _row_counts(joint_codes(z))
    cxz = _row_counts(joint_codes(x, z))
    cyz = _row_counts(joint_codes(y, z))
    return LocalRaw(np.log(cxyz * cz / (cxz * cyz)))


_SUMMARIES = {
    "plugin": "Maximum likelihood (plug-in); biased low for H, high for MI when undersampled",
    "miller_madow": "Plug-in + (m-1)/2N bias correction (Miller 1955)",
    "chao_shen": "Coverage-adjusted Horvitz-Thompson (Chao & Shen 2003)",
    "grassberger": "Grassberger (2003) digamma correction",
    "shrinkage": "James-Stein shrinkage towards uniform (Hausser & Strimmer 2009)",
    "nsb": "Nemenman-Shafee-Bialek Bayesian estimator with posterior sd",
}

for _name, (_k, _needs) in ENTROPY_KERNELS.items():
    _f = _make(_name, _needs)
    if _name == "nsb":
        register(
            _name,
            "entropy",
            kinds=("discrete",),
            family="discrete",
            resampling="posterior",
            summary=_SUMMARIES[_name],
        )(_f)
        register(
            _name,
            ("mutual_info", "cond_mutual_info"),
            kinds=("discrete",),
            family="discrete",
            summary=_SUMMARIES[_name],
        )(_f)
    else:
        register(_name, _Q3, kinds=("discrete",), family="discrete", summary=_SUMMARIES[_name])(_f)


# ------------------------------------------------------------------------ KL
def aligned_codes(p: Variable, q: Variable) -> tuple[np.ndarray, np.ndarray]:
    """Codes of p's and q's joint symbols in one shared alphabet."""
    import pandas as pd

    cols_p, cols_q = [], []
    for j in range(p.d):
        both = np.concatenate([p.decoded(j), q.decoded(j)])
        codes, _ = pd.factorize(both)
        cols_p.append(codes[: p.n].astype(np.int64))
        cols_q.append(codes[p.n :].astype(np.int64))
    allc = [np.concatenate([a, b]) for a, b in zip(cols_p, cols_q, strict=True)]
    joint = encode_columns(allc)
    _, inv = np.unique(joint, return_inverse=True)
    return inv[: p.n].astype(np.int64), inv[p.n :].astype(np.int64)


def _kl_tables(p: Variable, q: Variable) -> tuple[np.ndarray, np.ndarray]:
    cp, cq = aligned_codes(p, q)
    k = int(max(cp.max(), cq.max())) + 1
    return np.bincount(cp, minlength=k).astype(float), np.bincount(cq, minlength=k).astype(float)


@register(
    "plugin",
    "kl_divergence",
    kinds=("discrete",),
    family="discrete",
    summary="Plug-in KL of the empirical pmfs; inf when q misses a symbol of p",
)
def kl_plugin(p: Variable, q: Variable) -> Raw:
    """Plug-in KL divergence sum p̂ log(p̂/q̂)."""
    a, b = _kl_tables(p, q)
    pa, qb = a / a.sum(), b / b.sum()
    s = pa > 0
    missing = int(np.count_nonzero(s & (qb == 0)))
    if missing:
        return Raw(
            value=float("inf"),
            diagnostics={"support_mismatch": missing},
            warnings=[
                f"{missing} symbols of p never occur in q: plug-in KL is infinite; "
                "use method='pseudocount' for a finite estimate"
            ],
        )
    return Raw(value=float((pa[s] * np.log(pa[s] / qb[s])).sum()))


@register(
    "pseudocount",
    "kl_divergence",
    kinds=("discrete",),
    family="discrete",
    summary="KL of Dirichlet-smoothed pmfs (add alpha to each symbol's count)",
)
def kl_pseudocount(p: Variable, q: Variable, *, alpha: float = 0.5) -> Raw:
    """KL divergence of the posterior-mean pmfs under a symmetric Dirichlet(alpha) prior."""
    alpha = check_float(alpha, "alpha", low=0.0, inclusive=(False, True))
    a, b = _kl_tables(p, q)
    pa = (a + alpha) / (a.sum() + alpha * a.size)
    qb = (b + alpha) / (b.sum() + alpha * b.size)
    return Raw(value=float((pa * np.log(pa / qb)).sum()), diagnostics={"alphabet": int(a.size)})


# ------------------------------------------------------------------ auto rules
def _all_discrete(ctx: AutoContext) -> bool:
    return ctx.kinds == {"discrete"}


def _ratio(ctx: AutoContext) -> float:
    c = counts(joint_codes(*ctx.variables.values()))
    return ctx.n / c.size


register_auto(
    AutoRule(
        "entropy",
        100,
        _all_discrete,
        "nsb",
        "discrete data: NSB is accurate from well- to under-sampled regimes "
        "and gives a posterior sd",
    )
)
for _q in ("mutual_info", "cond_mutual_info"):
    register_auto(
        AutoRule(
            _q,
            100,
            _all_discrete,
            lambda ctx: "miller_madow" if _ratio(ctx) >= 5 else "nsb",
            lambda ctx: (
                f"discrete data with {_ratio(ctx):.1f} samples per joint symbol: "
                + (
                    "well sampled, Miller-Madow removes the first-order bias"
                    if _ratio(ctx) >= 5
                    else "undersampled (< 5 per joint symbol), NSB entropies"
                )
            ),
        )
    )


def _kl_ok(ctx: AutoContext) -> bool:
    a, b = _kl_tables(ctx.variables["p"], ctx.variables["q"])
    return not bool(np.any((a > 0) & (b == 0)))


register_auto(
    AutoRule(
        "kl_divergence",
        100,
        lambda c: _all_discrete(c) and _kl_ok(c),
        "plugin",
        "discrete data, every symbol of p occurs in q: plug-in KL",
    )
)
register_auto(
    AutoRule(
        "kl_divergence",
        101,
        _all_discrete,
        "pseudocount",
        "discrete data, some symbols of p never occur in q: Jeffreys pseudocounts keep KL finite",
    )
)
