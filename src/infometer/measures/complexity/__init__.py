"""Complexity of signals and images; the module is also the function
:func:`infometer.measures.complexity.api.complexity`: ``im.complexity(x, measure=..., **params)``.

Measures: ordinal (permutation) entropy and its weighted and modified variants, dispersion,
sample, approximate, fuzzy, spectral and SVD entropies, statistical complexity, 2-D
permutation entropy of images; :func:`multiscale` (standard, composite, refined
composite) and :func:`complexity_entropy_plane`.

(The package and the function share the name ``complexity``: importing any submodule binds
the package as ``infometer.measures.complexity``, so the package itself is callable and forwards to
the function.)
"""

from __future__ import annotations

import sys
import types

from . import estimators as _estimators  # noqa: F401  (registers the measures)
from .api import (
    ComplexityEntropyPlane,
    MultiscaleResult,
    complexity,
    complexity_entropy_plane,
    multiscale,
    plane_limits,
)

__all__ = [
    "complexity",
    "multiscale",
    "MultiscaleResult",
    "complexity_entropy_plane",
    "ComplexityEntropyPlane",
    "plane_limits",
]


class _CallableModule(types.ModuleType):
    def __call__(self, *args, **kwargs):
        return complexity(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
