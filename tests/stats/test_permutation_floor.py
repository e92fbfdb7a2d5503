"""The permutation floor: B permutations give p-values >= 1/(B+1), so a correction over m
tests whose one-discovery level is below that floor can make nothing significant -- said,
with the B that lifts it (issue 41: a matrix heat map with --permutations marked no pair)."""

from __future__ import annotations

import numpy as np
import pytest

import infometer as im
from infometer.measures.stats.correction import adjust, permutation_floor


@pytest.mark.parametrize(
    ("adjustment", "level"),
    [
        ("fdr_bh", 0.05 / 15),
        ("holm", 0.05 / 15),
        ("bonferroni", 0.05 / 15),
        ("fdr_by", 0.05 / 15 / sum(1 / i for i in range(1, 16))),
        ("none", 0.05),
    ],
)
def test_floor_matches_what_the_adjustment_can_reject(adjustment, level):
    # the B it names is the smallest whose floor 1/(B+1) reaches the one-discovery level:
    # checked against the adjustment itself on one p-value at the floor among 14 ones
    need = int(np.ceil(1 / level - 1e-9)) - 1
    assert permutation_floor(need, 15, 0.05, adjustment) is None
    msg = permutation_floor(need - 1, 15, 0.05, adjustment, "pairs")
    assert msg is not None and f"n_permutations={need} or more" in msg
    for b, rejects in ((need, True), (need - 1, False)):
        p = np.r_[1 / (b + 1), np.ones(14)]
        assert bool(adjust(p, adjustment)[0] <= 0.05 * (1 + 1e-9)) is rejects  # at the level


def test_bh_floor_names_the_group_size_that_can_pass():
    # B = 50 over 15 pairs: 1/51 <= k 0.05/15 first at k = 6 (6 x 0.00333 = 0.02 >= 0.0196)
    msg = permutation_floor(50, 15, 0.05, "fdr_bh", "pairs")
    assert "only 6 or more pairs" in msg
    for k, rejects in ((6, True), (5, False)):
        p = np.r_[np.full(k, 1 / 51), np.ones(15 - k)]
        assert bool((adjust(p, "fdr_bh")[:k] <= 0.05).all()) is rejects


def test_no_test_no_floor():
    assert permutation_floor(0, 15, 0.05, "fdr_bh") is None
    with pytest.raises(ValueError, match="adjustment"):
        permutation_floor(10, 3, 0.05, "fdr")


def test_pairwise_warns_when_its_permutations_cannot_reach_the_correction():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((300, 6))
    x[:, 1] += x[:, 0]
    with pytest.warns(im.InfometerWarning, match=r"n_permutations=299 or more"):
        res = im.pairwise(x, method="copula", n_permutations=20, seed=0)
    assert "n_permutations=20" in " ".join(res.diagnostics["warnings"])
