"""Needle in a haystack: does a compressed memory keep the one sentence that answers?

Generated contexts (:func:`needle_haystack`): one *answer* sentence, the needle ("The access
code for the north vault is 4471."), in a haystack shared by all contexts: near-duplicate
*distractors* (the same template for other places and things, other codes) and boilerplate
*filler*, shuffled.  The query asks for the needle.

:func:`needle_eval` compresses every context at each rate g with MIG merging (COMI,
α = β = 1), relevance-only merging (β = 0) and mean pooling (α = β = 0), all on the same
token vectors (MiniLM by default), and reports for each (method, rate):

* ``retention``: max over memory vectors of cos(m, a), a = mean token vector of the answer
  sentence (the brief's decoder-free stand-in), averaged over contexts;
* ``hit_rate``: share of contexts where the sentence nearest to the memory (largest
  max_m cos(m, mean vector of the sentence)) is the answer -- a task accuracy;
* ``recall``: share of contexts whose answer is in the readout (the nearest sentence of at
  least one memory vector);
* the channel MI of the compressor (``mi_bits`` with its CI; ``bits_per_vector``, the MI per
  memory vector; ``bits_per_token``, per word of the readout), from the readout texts
  (:class:`~infometer.systems.text.compressors.TokenMerge`: the sentences the memory points to)
  scored by the built-in word-level scorer (or the scorer you pass) under every context.
  The filler is shared by all contexts, so pointing at it carries no information.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from infometer.core.data import check_int
from infometer.core.progress import progress_bar
from infometer.core.seeding import Seed, as_generator

from .compressors import TokenMerge, sentence_similarity

__all__ = ["NeedleItem", "needle_haystack", "retention", "needle_eval", "plot_needle", "METHODS"]

#: Compressors of the evaluation: name -> (alpha, beta).
METHODS: dict[str, tuple[float, float]] = {
    "mig (COMI)": (1.0, 1.0),
    "relevance-only": (1.0, 0.0),
    "mean pooling": (0.0, 0.0),
}

_PLACES = [
    "north",
    "south",
    "east",
    "west",
    "upper",
    "lower",
    "central",
    "rear",
    "harbor",
    "garden",
]
_THINGS = ["vault", "gate", "locker", "hangar", "archive", "cabinet", "garage", "workshop"]
#: Shared boilerplate: the same lines in every context, so they carry no information about
#: which context a summary came from.
FILLER = (
    "Visitors must sign in at the front desk before noon.",
    "The lights in the main corridor switch off at ten in the evening.",
    "Cleaning crews visit every floor on Tuesday and Friday mornings.",
    "Staff meetings take place in the large hall on Mondays.",
    "Deliveries arrive through the loading entrance behind the kitchen.",
    "A fire drill is held on the first Wednesday of each month.",
    "The coffee machine in the lounge was replaced in the spring.",
    "Parking permits are renewed at the security office every January.",
    "Lost items are kept at the reception for thirty days.",
    "The building is closed on public holidays.",
    "Smoking is not allowed anywhere on the premises.",
    "The elevator on the west side is reserved for freight.",
    "Guests must be accompanied by a member of staff at all times.",
    "The cafeteria serves lunch between noon and two.",
    "Bicycles may be left in the covered rack near the entrance.",
    "Emergency exits are marked with green signs on every floor.",
)


@dataclass(frozen=True)
class NeedleItem:
    """One generated context: its sentences, the query and where the answer is."""

    context: str
    query: str
    answer: str
    sentences: tuple[str, ...]
    answer_index: int


def needle_haystack(
    n: int, *, n_sentences: int = 24, n_near: int = 8, seed: Seed = 0
) -> list[NeedleItem]:
    """``n`` contexts that share one haystack and differ in their needle.

    The haystack (drawn once) holds ``n_near`` access-code lines for other places and things
    (near duplicates of every needle: same template, one or two slots and the code differ)
    and ``n_sentences - n_near - 1`` lines of the shared :data:`FILLER`.  Each context adds
    its needle, "The access code for the {place} {thing} is {code}.", with a place-thing pair
    not in the haystack (distinct across contexts while pairs last) and its own code, and
    shuffles the sentences.  Everything that tells contexts apart is in the needle (and in
    the order of the sentences), so a summary carries information about the context only
    through what it keeps of the needle.

    Parameters
    ----------
    n
        Number of contexts.
    n_sentences
        Sentences per context (>= n_near + 2).
    n_near
        Near-duplicate lines in the haystack.
    seed
        Seed of the generator. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    """
    n = check_int(n, "n", min_value=1)
    n_near = check_int(n_near, "n_near", min_value=0)
    n_sentences = check_int(n_sentences, "n_sentences", min_value=n_near + 2)
    n_fill = n_sentences - 1 - n_near
    if n_fill > len(FILLER):
        raise ValueError(
            f"n_sentences - n_near - 1 = {n_fill} filler lines but the pool has {len(FILLER)}"
        )
    pairs = [(p, t) for p in _PLACES for t in _THINGS]
    if n_near >= len(pairs):
        raise ValueError(f"n_near must be < {len(pairs)}, got {n_near}")
    rng = as_generator(seed)
    order = rng.permutation(len(pairs))
    hay_pairs = [pairs[i] for i in order[:n_near]]
    free = [pairs[i] for i in order[n_near:]]
    codes = rng.choice(np.arange(1000, 10000), size=n_near + n, replace=False)
    near = [
        f"The access code for the {p} {t} is {c}."
        for (p, t), c in zip(hay_pairs, codes, strict=False)
    ]
    filler = [FILLER[i] for i in rng.choice(len(FILLER), size=n_fill, replace=False)]
    items = []
    for k in range(n):
        place, thing = free[k % len(free)]
        answer = f"The access code for the {place} {thing} is {codes[n_near + k]}."
        sents = [answer, *near, *filler]
        perm = rng.permutation(len(sents))
        shuffled = tuple(sents[i] for i in perm)
        items.append(
            NeedleItem(
                context=" ".join(shuffled),
                query=f"What is the access code for the {place} {thing}?",
                answer=answer,
                sentences=shuffled,
                answer_index=int(np.argmax(perm == 0)),
            )
        )
    return items


def retention(
    memory: np.ndarray, vectors: np.ndarray, sentence_of_token: np.ndarray, answer_index: int
) -> tuple[float, bool]:
    """``(max_m cos(m, a), hit)`` with a the mean token vector of the answer sentence; hit
    when the answer is the sentence whose mean vector is closest to some memory vector."""
    best = sentence_similarity(memory, vectors, sentence_of_token).max(axis=0)
    return float(best[answer_index]), bool(int(np.argmax(best)) == answer_index)


def needle_eval(
    n_contexts: int = 24,
    rates: Sequence[int] = (4, 8, 16, 32),
    *,
    methods: Mapping[str, tuple[float, float]] | None = None,
    embedder: Any = None,
    scorer: Any = "builtin",
    n_sentences: int = 24,
    n_near: int = 8,
    ci: float | None = None,
    seed: Seed = 0,
    progress: bool | None = None,
) -> Any:
    """Retention and channel MI of MIG merging against its baselines at several rates.

    Parameters
    ----------
    n_contexts
        Generated contexts (also the N of the channel MI: its ceiling is log2 N bits).
    rates
        Compression rates g.
    methods
        ``{name: (alpha, beta)}``; default :data:`METHODS`.
    embedder
        Token embedder ``text -> (tokens, (L, d))``; default MiniLM.
    scorer
        Scorer of the readouts (default the built-in word-level LM fitted on the contexts).
    n_sentences, n_near
        Of :func:`needle_haystack`.
    seed
        Of :func:`needle_haystack`. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    ci
        Level of the channel-MI intervals (``None``, the default: none; ``ci_low_bits`` and
        ``ci_high_bits`` are then empty).
    progress
        Progress bar over (method, rate).

    Returns
    -------
    pandas.DataFrame
        One row per (method, rate): ``method``, ``rate``, ``memory_vectors`` (mean),
        ``retention``, ``retention_se``, ``hit_rate``, ``mi_bits``, ``ci_low_bits``,
        ``ci_high_bits``, ``ceiling_bits``, ``bits_per_vector``, ``bits_per_token`` (per
        readout word), ``readout_tokens``, ``negative``.
    """
    import pandas as pd

    from .embed import minilm_token_embedder
    from .measure import channel_mutual_info_of_summaries
    from .scorers import as_scorer

    methods = dict(METHODS if methods is None else methods)
    rates = [check_int(r, "rates", min_value=1) for r in rates]
    items = needle_haystack(n_contexts, n_sentences=n_sentences, n_near=n_near, seed=seed)
    contexts = [it.context for it in items]
    queries = [it.query for it in items]
    emb = embedder if embedder is not None else minilm_token_embedder()
    sc = as_scorer(scorer, contexts)
    jobs = [(name, ab, r) for name, ab in methods.items() for r in rates]
    it: Any = progress_bar(jobs, desc="needle", unit="setting", progress=progress)
    rows = []
    for name, (a, b), r in it:
        comp = TokenMerge(r, alpha=a, beta=b, embedder=emb, name=name)
        ret, hits, recall, mem, readouts = [], [], [], [], []
        for item in items:
            out = comp.compress(item.context, item.query)
            c = out["compressed"]
            v, h = retention(c.memory, out["vectors"], out["sentence_of_token"], item.answer_index)
            ret.append(v)
            hits.append(h)
            recall.append(item.answer_index in out["readout_sentences"])
            mem.append(c.memory.shape[0])
            readouts.append(out["readout"])
        est = channel_mutual_info_of_summaries(
            contexts, readouts, np.arange(len(items)), sc, queries=queries, ci=ci
        )
        bits = est.to("bits")
        rows.append(
            {
                "method": name,
                "rate": r,
                "memory_vectors": float(np.mean(mem)),
                "retention": float(np.mean(ret)),
                "retention_se": float(np.std(ret, ddof=1) / np.sqrt(len(ret)))
                if len(ret) > 1
                else None,
                "hit_rate": float(np.mean(hits)),
                "recall": float(np.mean(recall)),
                "mi_bits": bits.value,
                "ci_low_bits": None if bits.ci is None else bits.ci[0],
                "ci_high_bits": None if bits.ci is None else bits.ci[1],
                "ceiling_bits": est.diagnostics["ceiling_bits"],
                "bits_per_vector": bits.value / float(np.mean(mem)),
                "bits_per_token": est.diagnostics["bits_per_token"],
                "readout_tokens": est.diagnostics["mean_tokens"],
                "negative": bool(est.diagnostics.get("negative", False)),
            }
        )
    return pd.DataFrame(rows)


def plot_needle(
    df: Any, ax: Any = None, path: str | Path | None = None, *, title: str | None = None
) -> Any:
    """Retention, recall and bits per memory vector against the rate, one line per method:
    3 panels.

    Parameters
    ----------
    df
        A :func:`needle_eval` table (``method``, ``rate``, ``retention``, ``recall``,
        ``bits_per_vector``).
    ax
        ``None`` (a new figure), a Figure or SubFigure to draw the panels in, or a sequence
        of 3 Axes: the rule of :mod:`infometer.core.plot`.
    path
        Also save the figure as a PNG there.  The older ``plot_needle(df, path)`` still
        works for one release (``DeprecationWarning``; it returns the path).
    title
        Title over the panels.

    Returns
    -------
    numpy.ndarray
        The 3 Axes, left to right.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"method": ["mig", "mig"], "rate": [4, 8], "retention": [0.9, 0.7],
    ...                    "recall": [1.0, 0.5], "bits_per_vector": [0.5, 0.8]})
    >>> [a.get_ylabel() for a in plot_needle(df)][0]
    'max cos(memory, answer)'
    """
    from infometer.core.plot import (
        _panel_title,
        close_and_path,
        deprecated_path_form,
        finish,
        new_panels,
    )

    ax, path, old = deprecated_path_form(ax, path, "plot_needle")
    given = ax
    _, axes = new_panels(ax, 3, figsize=(12.6, 3.6), name="ax")
    panels = [
        ("retention", "max cos(memory, answer)"),
        ("recall", "answer kept in the readout"),
        ("bits_per_vector", "channel MI [bits per memory vector]"),
    ]
    for ax, (col, label) in zip(axes, panels, strict=True):
        for name, g in df.groupby("method", sort=False):
            g = g.sort_values("rate")
            ax.plot(g["rate"], g[col], marker="o", label=str(name))
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(df["rate"].unique()))
        ax.set_xticklabels([str(r) for r in sorted(df["rate"].unique())])
        ax.set_xlabel("compression rate g")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    _panel_title(given, axes, title, "Needle in a haystack: MIG merging vs baselines")
    finish(axes, path)
    return close_and_path(axes, path) if old else axes
