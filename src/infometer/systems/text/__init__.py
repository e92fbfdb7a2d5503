"""Text and language models: channel MI of compressors, and MIG context compression (COMI).

Importing this package registers the ``channel_mi`` quantity and its estimator
``mc_loglik``; torch / transformers / sentence-transformers (extra ``text``) are imported
only when a model runs.

* :func:`channel_mutual_info` / :func:`channel_mutual_info_of_summaries` /
  :func:`channel_mutual_info_from_scores` --
  I(X;Z|Q) of a compressor channel in nats (or bits) and bits per summary token;
* :func:`compare_compressors`, :func:`plot_compressors`, :func:`fit_rate_distortion`;
* scorers: :class:`CopyBigramScorer` (built-in), :class:`HFScorer` (local causal LM);
* compressors: :class:`LeadK`, :class:`RandomK`, :class:`TopK`, :class:`MIGSelect`,
  :class:`TokenMerge` (COMI token merging read out as text);
* COMI kernels in :mod:`infometer.systems.text.comi`; the needle-in-a-haystack evaluation in
  :mod:`infometer.systems.text.needle`.
"""

from __future__ import annotations

from .channel import channel_mi_from_scores, channel_mutual_info_from_scores  # noqa: F401
from .comi import Compressed, compress, group_sizes, merge_weights, mig_scores, select_units
from .compressors import LeadK, MIGSelect, RandomK, TokenMerge, TopK, split_sentences
from .measure import (  # channel_mi, channel_mi_of_summaries: deprecated aliases
    RDFit,
    channel_mi,  # noqa: F401
    channel_mi_of_summaries,  # noqa: F401
    channel_mutual_info,
    channel_mutual_info_of_summaries,
    compare_compressors,
    fit_rate_distortion,
    plot_compressors,
    score_matrix,
)
from .needle import needle_eval, needle_haystack, plot_needle
from .records import patient_records
from .scorers import CopyBigramScorer, FunctionScorer, HFScorer, as_scorer, make_prompt

__all__ = [
    "channel_mutual_info",
    "channel_mutual_info_of_summaries",
    "channel_mutual_info_from_scores",
    "compare_compressors",
    "plot_compressors",
    "fit_rate_distortion",
    "RDFit",
    "score_matrix",
    "CopyBigramScorer",
    "HFScorer",
    "FunctionScorer",
    "as_scorer",
    "make_prompt",
    "LeadK",
    "RandomK",
    "TopK",
    "MIGSelect",
    "TokenMerge",
    "split_sentences",
    "needle_eval",
    "needle_haystack",
    "plot_needle",
    "patient_records",
    "Compressed",
    "compress",
    "group_sizes",
    "merge_weights",
    "mig_scores",
    "select_units",
]
