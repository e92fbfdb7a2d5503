"""kNN estimators for continuous and mixed data on one exact, compiled neighbour engine.

Importing the package registers: ``kozachenko_leonenko`` (entropy), ``ksg1`` / ``ksg2``
(MI), ``frenzel_pompe`` (= ``ksg1`` for CMI), ``wkv`` (KL divergence) and ``gkov``
(MI / CMI of discrete-continuous mixtures), plus their ``method="auto"`` rules.
"""

from . import _estimators  # noqa: F401  (registers the estimators)

__all__: list[str] = []  # the estimators are reached through the registry (method="ksg1", ...)
