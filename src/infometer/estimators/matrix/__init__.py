"""Matrix-based Rényi / von Neumann entropy of representations (numpy only).

Importing the package registers ``method="matrix_renyi"`` for ``entropy``, ``mutual_info``
and ``cond_mutual_info``; see :mod:`infometer.estimators.matrix.estimators` and docs/matrix.md.
"""

from . import kernels
from .estimators import effective_rank, von_neumann_entropy

__all__ = [
    "kernels",
    "effective_rank",
    "von_neumann_entropy",
]  # the matrix_renyi_* estimator functions (Variable -> Raw) are reached through the registry
