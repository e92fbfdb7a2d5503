"""Channel mutual information of a compressor, I(X;Z|Q), from a scorer's log-likelihoods.

A compressor turns a context x (and a query q) into a summary z.  With N contexts
x_1..x_N (a sample of p(x)), M summaries z_ij ~ p(z | x_i, q_i) of each, and a scorer that
gives s_ijl = log p(z_ij | x_l, q_i) (the summed token log-probability of z_ij after a
prompt holding x_l and q_i), the Monte Carlo estimator of He et al. (2025) is

    Î = mean_i mean_j [ s_iji − log( (1/N) Σ_l s_ijl-exp ) ]
      = mean_i mean_j [ s_iji − logsumexp_l s_ijl + log N ].

It is InfoNCE (van den Oord et al. 2018) with the scorer's log-likelihood as critic: in
expectation it is a *lower* bound on I(X;Z|Q) when the scorer is the true channel, and it
can never exceed log N (reached when each summary is impossible under every other
context).  The leave-one-out form (Poole et al. 2019, "L1Out")

    Û = mean_i mean_j [ s_iji − logsumexp_{l≠i} s_ijl + log(N − 1) ]

is an *upper* bound in expectation under the same condition; both are reported.  With a
proxy scorer (an LM that is not the compressor) the numbers are the information the
proxy can read out of the summaries, not a bound on the compressor's true channel.

Everything here is in nats; ``unit="bits"`` converts at the edge.

References
----------
* He, Narayan, Khare, Linderman, Ré & Biderman (2025), "An Information Theoretic Perspective
  on Agentic System Design", arXiv:2512.21720 (ICLR 2026).
* van den Oord, Li & Vinyals (2018), arXiv:1807.03748 (InfoNCE, the log N ceiling).
* Poole, Ozair, van den Oord, Alemi & Tucker (2019), ICML, "On Variational Bounds of Mutual
  Information" (the leave-one-out upper bound).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core._deprecation import deprecated_alias
from infometer.core.data import Variable
from infometer.core.estimate import Estimate
from infometer.core.registry import AutoRule, Raw, register, register_auto
from infometer.core.seeding import Seed
from infometer.core.validation import check_real_array

__all__ = [
    "ROLES",
    "channel_terms",
    "loo_terms",
    "per_context_means",
    "channel_mutual_info_from_scores",
    "SATURATION_SHARE",
]

ROLES = ("scores", "source")
registry.QUANTITY_ROLES.setdefault("channel_mi", ROLES)
registry.NONNEGATIVE.add("channel_mi")


def _example(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A small Gaussian channel: 40 contexts, 2 summaries each, exact log-likelihood scores."""
    x = rng.normal(size=40)
    source = np.repeat(np.arange(40), 2)
    z = x[source] + 0.5 * rng.normal(size=source.size)
    scores = -0.5 * ((z[:, None] - x[None, :]) / 0.5) ** 2
    return {"scores": scores, "source": source}


registry.EXAMPLES.setdefault("channel_mi", _example)

#: A summary counts as "saturated" when its own context holds this share of the likelihood
#: mass over all N candidates (its term is then within -log(0.99) of log N).
SATURATION_SHARE = 0.99
#: Warn when the estimate reaches this fraction of its log N ceiling.
CEILING_WARN_FRACTION = 0.9


def _shifted_lse(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row max m (0 for all -inf rows) and log Σ exp(s − m), exact with -inf entries."""
    m = np.max(s, axis=1)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(under="ignore"):
        return m, np.log(np.sum(np.exp(s - m[:, None]), axis=1))


def channel_terms(scores: np.ndarray, source: np.ndarray) -> np.ndarray:
    """InfoNCE terms ``s[r, src_r] − logsumexp_l s[r, l] + log N`` (nats), one per summary.

    Computed as ``(s[r, src_r] − m_r) − log Σ_l exp(s[r, l] − m_r) + log N`` with m_r the
    row maximum, so a row of equal scores gives exactly 0 and an injective row exactly log N.

    Parameters
    ----------
    scores
        (R, N) log-likelihoods log p(z_r | x_l, q_r); ``-inf`` is a probability of 0.
    source
        (R,) index of the context each summary was made from.
    """
    r = np.arange(scores.shape[0])
    m, lse = _shifted_lse(scores)
    return (scores[r, source] - m) - lse + math.log(scores.shape[1])


def loo_terms(scores: np.ndarray, source: np.ndarray) -> np.ndarray:
    """Leave-one-out terms ``s[r, src_r] − logsumexp_{l≠src_r} s[r, l] + log(N − 1)``.

    ``+inf`` where every other context gives the summary probability 0.
    """
    r = np.arange(scores.shape[0])
    others = scores.copy()
    others[r, source] = -np.inf
    out = np.full(scores.shape[0], np.inf)
    ok = np.isfinite(np.max(others, axis=1))
    if ok.any():
        m, lse = _shifted_lse(others[ok])
        out[ok] = (scores[r[ok], source[ok]] - m) - lse + math.log(scores.shape[1] - 1)
    return out


def per_context_means(terms: np.ndarray, source: np.ndarray) -> np.ndarray:
    """Mean term of each context that has summaries (in order of context index)."""
    ids, inv = np.unique(source, return_inverse=True)
    sums = np.bincount(inv, weights=terms, minlength=len(ids))
    counts = np.bincount(inv, minlength=len(ids))
    return sums / counts


def _check_scores(scores: Any, source: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate a score matrix and the source index of each row (the one place for it)."""
    if scores is None:
        raise TypeError("scores must be an array of log-likelihoods, got None")
    # strings, booleans, complex, masked values and ragged rows refused; -inf is allowed
    # (probability 0) and NaN is named below
    s = check_real_array(scores, "scores", finite=False, what="log-likelihoods")
    if s.ndim == 3:  # (N, M, N): scores[i, j, l] = log p(z_ij | x_l, q_i)
        if source is not None:
            raise ValueError("scores of shape (N, M, N) imply the sources; pass source=None")
        n_ctx, m, n_cand = s.shape
        if n_ctx != n_cand:
            raise ValueError(
                f"scores of shape (N, M, N) must have as many candidates as contexts, got {s.shape}"
            )
        source = np.repeat(np.arange(n_ctx), m)
        s = s.reshape(n_ctx * m, n_cand)
    elif s.ndim == 2 and source is None:
        if s.shape[0] != s.shape[1]:
            raise ValueError(
                f"scores has shape {s.shape}: without source= it must be square (summary i "
                "made from context i); pass source= with the context index of each row"
            )
        source = np.arange(s.shape[0])
    elif s.ndim != 2:
        raise ValueError(
            f"scores must be 2-D (summaries x candidate contexts) or 3-D (N, M, N), got {s.ndim}-D"
        )
    if s.shape[1] < 2:
        raise ValueError(f"scores needs at least 2 candidate contexts (columns), got {s.shape[1]}")
    if s.shape[0] < 1:
        raise ValueError("scores has no rows (no summaries)")
    bad = np.isnan(s) | (s == np.inf)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(
            f"scores[{r}, {c}] is {s[r, c]}: log-likelihoods must be finite or -inf (probability 0)"
        )
    src = np.asarray(source)
    if src.ndim != 1 or src.shape[0] != s.shape[0]:
        raise ValueError(
            f"source must be 1-D with one entry per row of scores ({s.shape[0]}), got shape "
            f"{src.shape}"
        )
    if src.dtype.kind not in "iu" and not (src.dtype.kind == "f" and np.all(src == np.round(src))):
        raise TypeError(f"source must hold integer context indices, got dtype {src.dtype}")
    src = src.astype(np.int64)
    if src.min() < 0 or src.max() >= s.shape[1]:
        raise ValueError(
            f"source must index the {s.shape[1]} columns of scores (0..{s.shape[1] - 1}), "
            f"got values in {src.min()}..{src.max()}"
        )
    own = s[np.arange(s.shape[0]), src]
    if np.isneginf(own).any():
        r = int(np.argmax(np.isneginf(own)))
        raise ValueError(
            f"scores[{r}, source[{r}]={src[r]}] is -inf: the scorer gives summary {r} probability "
            "0 under the context it was made from, so it is not a model of this channel"
        )
    return s, src


@register(
    "mc_loglik",
    "channel_mi",
    kinds=("continuous", "discrete"),
    family="text",
    resampling="posterior",
    summary="He et al. (2025) Monte Carlo channel MI from a scorer's log-likelihoods "
    "(InfoNCE form, <= log N)",
)
def mc_loglik(scores: Variable, source: Variable) -> Raw:
    """Monte Carlo channel MI from the (summaries × candidate contexts) log-likelihood matrix.

    The native standard error is the spread of the per-context mean terms over contexts
    (``sd / sqrt(#contexts)``), so ``ci=`` gives an interval over contexts with the candidate
    set held fixed.  Diagnostics: the log N ceiling, the leave-one-out upper bound, the share
    of saturated summaries.
    """
    if scores.kind != "continuous":
        raise TypeError(
            "scores must be floating-point log-likelihoods (got integers, strings or mixed "
            "columns); pass a float array"
        )
    if (
        source.kind != "discrete"
        or source.d != 1
        or (source.symbols and source.symbols[0] is not None)
    ):
        raise TypeError(
            "source must be one column of context indices 0..N-1 (non-negative integers)"
        )
    s = scores.values
    src = source.columns[0]
    n_cand = s.shape[1]
    if src.size and int(src.max()) >= n_cand:
        raise ValueError(f"source holds index {int(src.max())} but scores has {n_cand} columns")
    own = s[np.arange(s.shape[0]), src]
    if np.isneginf(own).any():
        raise ValueError("a summary has probability 0 under its own context (scores = -inf)")
    terms = channel_terms(s, src)
    ctx_means = per_context_means(terms, src)
    value = float(np.mean(ctx_means))
    n_src = len(ctx_means)
    stderr = float(np.std(ctx_means, ddof=1) / math.sqrt(n_src)) if n_src >= 2 else None
    loo = loo_terms(s, src)
    upper = float(np.mean(per_context_means(loo, src))) if np.isfinite(loo).all() else math.inf
    ceiling = math.log(n_cand)
    saturated = float(np.mean(terms >= ceiling + math.log(SATURATION_SHARE)))
    diag: dict[str, Any] = {
        "n_contexts": int(n_cand),
        "n_sources": int(n_src),
        "n_summaries": int(s.shape[0]),
        "ceiling_nats": ceiling,
        "ceiling_bits": ceiling / math.log(2),
        "upper_bound_nats": upper,
        "saturated_fraction": saturated,
        "bound": "lower (InfoNCE, in expectation, when the scorer is the true channel)",
    }
    warns: list[str] = []
    if value >= CEILING_WARN_FRACTION * ceiling:
        warns.append(
            f"estimate {value:.3g} nats is at {value / ceiling:.0%} of its ceiling log N = "
            f"{ceiling:.3g} nats ({saturated:.0%} of summaries saturated): the channel may carry "
            "more; use more contexts to raise the ceiling"
        )
    if stderr is None:
        warns.append("summaries of only one context: no error bars over contexts")
    # the stderr is estimated from n_src context means: intervals use t on n_src - 1 dof
    dof = n_src - 1 if stderr is not None else None
    return Raw(value=value, stderr=stderr, stderr_dof=dof, diagnostics=diag, warnings=warns)


register_auto(
    AutoRule(
        "channel_mi",
        100,
        lambda ctx: True,
        "mc_loglik",
        "Monte Carlo log-likelihood estimator (the channel_mi method)",
    )
)


def _variables(s: np.ndarray, src: np.ndarray) -> dict[str, Variable]:
    scores = Variable(
        columns=tuple(np.ascontiguousarray(s[:, j]) for j in range(s.shape[1])),
        kinds=("continuous",) * s.shape[1],
        cardinalities=(None,) * s.shape[1],
        name="scores",
    )
    return {"scores": scores, "source": Variable.from_codes(src, "source", s.shape[1])}


def channel_mutual_info_from_scores(
    scores: Any,
    source: Any = None,
    *,
    lengths: Any = None,
    unit: str = "nats",
    ci: float | None = None,
    seed: Seed = 0,
    method: str = "auto",
) -> Estimate:
    """Channel MI I(X;Z|Q) from log-likelihoods log p(z_r | x_l, q_r) you already have.

    Parameters
    ----------
    scores
        (R, N) array: row r is a summary, column l a candidate context; or (N, M, N) with
        ``scores[i, j, l]`` for summary j of context i.  ``-inf`` means probability 0.
    source
        (R,) index of the context each row's summary was made from.  Omit it for a square
        (N, N) matrix (summary i from context i) or a 3-D array.
    lengths
        Tokens in each summary (R,), for the rate in bits per token.
    unit
        Unit of the estimate (``"nats"``, ``"bits"``, ...).
    ci
        Level of the interval over contexts (normal, from the spread of the per-context mean
        terms); ``None`` for none.
    seed
        Unused by this deterministic estimator (kept for the common signature). An int >= 0 (the
        same int gives the same numbers), a numpy.random.Generator (drawn from as it is) or None
        (fresh entropy from the operating system).
    method
        ``"auto"`` or ``"mc_loglik"``.

    Returns
    -------
    Estimate
        ``quantity="channel_mi"``; diagnostics hold ``ceiling_nats``/``ceiling_bits`` (log N),
        ``upper_bound_nats`` (leave-one-out), ``saturated_fraction`` and, with ``lengths``,
        ``bits_per_token`` (the MI in bits over the mean summary length),
        ``bits_per_token_ci``, ``mean_tokens`` and ``bits_per_token_mean_of_ratios``.
        A negative value is flagged by ``diagnostics["negative"]``, never clipped.
    """
    from infometer.core.api import run

    s, src = _check_scores(scores, source)
    if len(np.unique(src)) < 2:
        ci = None  # no spread over contexts to build it from (the estimator warns)
    est = run("channel_mi", _variables(s, src), method=method, unit=unit, ci=ci, seed=seed)
    if lengths is not None:
        est = with_rate(est, lengths, s, src)
    return est


def _check_lengths(lengths: Any, n_rows: int) -> np.ndarray:
    ln = np.asarray(lengths)
    if ln.ndim != 1 or ln.shape[0] != n_rows:
        raise ValueError(
            f"lengths must be 1-D with one entry per summary ({n_rows}), got {ln.shape}"
        )
    if ln.dtype.kind not in "iuf" or not np.all(np.isfinite(ln)) or (ln < 0).any():
        raise ValueError("lengths must be non-negative token counts")
    return ln.astype(np.float64)


def with_rate(est: Estimate, lengths: Any, s: np.ndarray, src: np.ndarray) -> Estimate:
    """Add the rate in bits per summary token to an estimate's diagnostics."""
    ln = _check_lengths(lengths, s.shape[0])
    diag = dict(est.diagnostics)
    mean_len = float(np.mean(ln))
    diag["mean_tokens"] = mean_len
    if mean_len == 0:
        msg = "every summary is empty (0 tokens): no rate in bits per token"
        diag["bits_per_token"] = None
        diag["warnings"] = [*diag.get("warnings", []), msg]
        import warnings

        from infometer.core.data import InfometerWarning

        warnings.warn(msg, InfometerWarning, stacklevel=3)
        return replace(est, diagnostics=diag)
    bits = est.to("bits")
    diag["bits_per_token"] = bits.value / mean_len
    diag["bits_per_token_ci"] = (
        None if bits.ci is None else [bits.ci[0] / mean_len, bits.ci[1] / mean_len]
    )
    terms = channel_terms(s, src) / math.log(2)
    pos = ln > 0
    diag["bits_per_token_mean_of_ratios"] = float(np.mean(terms[pos] / ln[pos]))
    return replace(est, diagnostics=diag)


# deprecated name (issue 29: public names spell quantities in full words), for one release
channel_mi_from_scores = deprecated_alias(channel_mutual_info_from_scores, "channel_mi_from_scores")
