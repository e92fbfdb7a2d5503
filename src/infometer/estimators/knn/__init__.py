"""kNN estimators for continuous and mixed data on one exact, compiled neighbour engine.

Importing the package registers: ``kozachenko_leonenko`` (entropy), ``ksg1`` / ``ksg2``
(MI), ``frenzel_pompe`` (= ``ksg1`` for CMI), ``wkv`` (KL divergence) and ``gkov``
(MI / CMI of discrete-continuous mixtures), plus their ``method="auto"`` rules.
"""

from . import engine, estimators, kernels, prep

__all__ = ["engine", "estimators", "kernels", "prep"]
