"""The bridge to information: channel MI of extractors and the layout entropy of a site.

* :func:`layout_entropy` -- the plug-in entropy of the pages' DOM-shape signatures
  (:func:`~.sites.layout_signature`); N sites with equally many pages give exactly
  log2 N.  A site's signature carries its own class names, so K templates give log2 K only
  with one site per template.
* :func:`extraction_mutual_info` -- I(source; extraction | question) of an extractor read
  as a compressor channel, with :func:`infometer.systems.text.channel_mutual_info` (He et al.
  2025's Monte Carlo estimator: InfoNCE with a scorer's log-likelihoods, at most log N for
  N sources), in nats (``unit="bits"`` for bits) and bits per extracted token.  A copying
  extractor approaches log N; a constant one gives exactly 0 (every source scores its
  output alike).
* :func:`rank_agreement` -- whether channel MI ranks extractors as F1 does (Spearman).

The built-in scorer is the text family's copy-bigram LM, so the number is the information
a copy-aware reader recovers about *which* source an extraction came from -- not whether
the extraction is right: a wrong but source-specific extraction carries bits too.  That
is why the ranking against F1 is measured rather than assumed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from infometer.core.estimate import Estimate
from infometer.core.seeding import Seed
from infometer.core.validation import Instance, Many, check_params, check_real_array
from infometer.systems.text import channel_mutual_info

from ._metrics import _as_triples
from ._sites import Page, layout_signature

__all__ = [
    "layout_entropy",
    "triples_text",
    "extraction_mutual_info",
    "read_channel_mutual_info",
    "rank_agreement",
]


def layout_entropy(pages: Sequence[Any], *, unit: str = "nats") -> Any:
    """Plug-in entropy of the pages' layout signatures.

    Parameters
    ----------
    pages
        HTML strings or :class:`~.sites.Page` objects.
    unit
        ``"nats"`` (default), ``"bits"``, ``"hartleys"`` or ``"base-B"``.

    Examples
    --------
    >>> from infometer.systems.extract._sites import make_sites
    >>> pages = [p for g in make_sites(4, 2) for p in g.pages]
    >>> round(float(layout_entropy(pages, unit="bits")), 6)
    2.0
    """
    import infometer as im

    pages = check_params(
        {"pages": [Many(Instance(str, Page, what="an HTML string or a Page"), what="pages")]},
        {"pages": pages},
    )["pages"]
    sig = [layout_signature(p if isinstance(p, str) else p.html) for p in pages]
    return im.entropy(np.array(sig), method="plugin", unit=unit)


def triples_text(triples: Sequence[Sequence[str]]) -> str:
    """Triples as text, one ``subject | predicate | object`` per line (the channel's output).

    Examples
    --------
    >>> triples_text([("Dune", "Year", "1965")])
    'Dune | Year | 1965'
    """
    return "\n".join(" | ".join(str(x) for x in t) for t in triples)


def extraction_mutual_info(
    sources: Sequence[str],
    extractor: Callable[..., Any],
    *,
    queries: Sequence[str] | None = None,
    scorer: Any = "builtin",
    unit: str = "nats",
    ci: float | None = None,
    seed: Seed = 0,
) -> Any:
    """I(source; extraction | question) of ``extractor`` as a compressor channel.

    Parameters
    ----------
    sources
        N source texts (pages' HTML or text, documents).
    extractor
        ``f(source) -> triples | str`` or ``f(source, question) -> ...``; triples are
        written with :func:`triples_text`.
    queries
        One question per source (the Q), or ``None``.
    scorer, unit, ci
        As in :func:`infometer.systems.text.channel_mutual_info`.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Returns
    -------
    Estimate
        ``diagnostics["bits_per_token"]`` is the information per extracted token and
        ``diagnostics["ceiling_bits"]`` the log2 N ceiling.

    Examples
    --------
    >>> docs = [f"item {i} costs {i * 7} dollars" for i in range(6)]
    >>> est = extraction_mutual_info(docs, lambda d: d, unit="bits")
    >>> est.diagnostics["ceiling_bits"] - float(est) < 0.2
    True
    """
    import inspect

    if not callable(extractor):
        raise TypeError(f"extractor must be callable, got {type(extractor).__name__}")
    try:
        params = inspect.signature(extractor).parameters.values()
        k = sum(
            p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            for p in params
        )
    except (TypeError, ValueError):
        k = 1

    def compressor(ctx: str, q: str | None = None) -> str:
        out = extractor(ctx, q) if k >= 2 else extractor(ctx)
        if isinstance(out, str):
            return out

        try:
            return triples_text(_as_triples(out, "the output"))
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"extractor must return a string or a list of (subject, predicate, object) "
                f"triples; on source {ctx[:40]!r} it returned {type(out).__name__} "
                f"{out!r:.60} ({exc})"
            ) from None

    return channel_mutual_info(
        list(sources), compressor, scorer, queries=queries, unit=unit, ci=ci, seed=seed
    )


def read_channel_mutual_info(estimate: Any, *, top: float = 0.95) -> dict[str, Any]:
    """A channel-MI estimate read for a user: clipped to its bounds, with what it says.

    The estimate (:func:`extraction_mutual_info`) is InfoNCE with a *copy-bigram* critic,
    which is not the channel's own likelihood: it is a lower bound of I(source; output)
    only up to that mismatch, at most log2 N, and it can be far below 0 (a script that
    returns page 0's values on every page scored -541 bits: the critic finds page 0's
    output far likelier under page 0 than under the page that produced it).  The true
    MI is never negative, so such a value says "no page-specific information" and is
    reported as 0.

    Returns a dict: ``bits`` (clipped to [0, log2 N]), ``fraction`` (bits / log2 N, in
    [0, 1]), ``raw_bits`` (the estimate), ``ceiling_bits``, ``clipped`` (bool) and
    ``reading``: ``"degenerate"`` (the output tells the pages apart no better than
    chance: constant, empty or the same for every page -- caught without gold),
    ``"source-specific"`` (at least ``top`` of the ceiling: the output identifies its
    page, which a correct extraction and a copy of the page both do -- it says nothing
    about correctness) or ``"partial"``.

    Examples
    --------
    >>> from infometer.core.estimate import Estimate
    >>> e = Estimate(-541.0, "bits", "mc_loglik", "channel_mi", diagnostics={"ceiling_bits": 3.585})
    >>> r = read_channel_mutual_info(e)
    >>> r["bits"], r["reading"], r["clipped"]
    (0.0, 'degenerate', True)
    """
    if not isinstance(estimate, Estimate) or "ceiling_bits" not in estimate.diagnostics:
        raise TypeError("estimate must be the Estimate of extraction_mutual_info")
    raw = float(estimate.to("bits"))
    ceiling = float(estimate.diagnostics["ceiling_bits"])
    bits = min(max(raw, 0.0), ceiling)
    frac = bits / ceiling if ceiling > 0 else 0.0
    # one bit of the ceiling's worth of noise: below 0.05 of it reads as nothing
    reading = "degenerate" if frac < 0.05 else "source-specific" if frac >= top else "partial"
    return {
        "bits": bits,
        "fraction": frac,
        "raw_bits": raw,
        "ceiling_bits": ceiling,
        "clipped": bool(bits != raw),
        "reading": reading,
    }


def rank_agreement(first: Sequence[float], second: Sequence[float]) -> float:
    """Spearman rank correlation of two scores of the same extractors (ties averaged).

    Examples
    --------
    >>> rank_agreement([0.1, 0.5, 0.9], [1.0, 2.0, 3.0])
    1.0
    """
    from scipy.stats import spearmanr

    a = check_real_array(first, "first", ndim=1, what="scores")
    b = check_real_array(second, "second", ndim=1, what="scores")
    if a.size < 3:
        raise ValueError(f"first has {a.size} scores; a rank agreement needs at least 3")
    if b.size != a.size:
        raise ValueError(f"second has {b.size} scores but first has {a.size}")
    for name, v in (("first", a), ("second", b)):
        if np.all(v == v[0]):
            raise ValueError(
                f"{name} gives every extractor the same score ({v[0]:g}): its ranks are all "
                "tied, so a rank correlation is undefined"
            )
    return float(spearmanr(a, b).statistic)
