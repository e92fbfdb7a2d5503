"""Error bars and tests that work with any registered estimator."""

from .independence import (
    IndependenceTest,
    MultipleTests,
    block_permutation,
    independence_test,
    local_permutation,
    multipletests,
)
from .resample import error_bars, resample_values

__all__ = [
    "error_bars",
    "resample_values",
    "independence_test",
    "multipletests",
    "IndependenceTest",
    "MultipleTests",
    "local_permutation",
    "block_permutation",
]
