"""Error bars and tests that work with any registered estimator, and the one home of
permutation nulls (:mod:`infometer.measures.stats.nulls`) and multiple-testing corrections
(:mod:`infometer.measures.stats.correction`)."""

from infometer.core.resample import error_bars, resample_values
from infometer.measures.stats.correction import CORRECTIONS, MultipleTests, adjust, multipletests
from infometer.measures.stats.independence import IndependenceTest, independence_test
from infometer.measures.stats.nulls import (
    block_permutation,
    circular_shift,
    local_permutation,
    p_value,
    permutation_null,
)

__all__ = [
    "error_bars",
    "resample_values",
    "independence_test",
    "multipletests",
    "adjust",
    "CORRECTIONS",
    "IndependenceTest",
    "MultipleTests",
    "local_permutation",
    "block_permutation",
    "circular_shift",
    "p_value",
    "permutation_null",
]
