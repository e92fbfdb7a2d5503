"""Error bars and tests that work with any registered estimator."""

from infometer.core.resample import error_bars, resample_values

from .independence import (
    IndependenceTest,
    MultipleTests,
    block_permutation,
    independence_test,
    local_permutation,
    multipletests,
)

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
