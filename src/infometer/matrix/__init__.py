"""Matrix-based Rényi / von Neumann entropy of representations (numpy only).

Importing the package registers ``method="matrix_renyi"`` for ``entropy``, ``mutual_info``
and ``cond_mutual_info``; see :mod:`infometer.matrix.estimators` and docs/matrix.md.
"""

from . import kernels
from .estimators import (
    effective_rank,
    matrix_renyi_cmi,
    matrix_renyi_entropy,
    matrix_renyi_mi,
    von_neumann_entropy,
)

__all__ = [
    "kernels",
    "effective_rank",
    "von_neumann_entropy",
    "matrix_renyi_entropy",
    "matrix_renyi_mi",
    "matrix_renyi_cmi",
]
