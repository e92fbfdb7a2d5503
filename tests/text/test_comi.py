"""COMI kernels: the brief's known answers (group sizes [6, 7, 1, 2]; weights
(0.274, 0.274, 0.452); uniform reallocation of a repeated token; sum of sizes = n) and the
selector, on vectors whose cosines are fixed by construction (no model)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infometer.systems.text.comi import (
    compress,
    group_sizes,
    largest_remainder,
    merge_weights,
    mig_scores,
    select_units,
    spans,
)


def vectors_with_gram(gram: np.ndarray) -> np.ndarray:
    """Rows whose pairwise inner products (unit norms: cosines) are ``gram``."""
    return np.linalg.cholesky(np.asarray(gram, dtype=np.float64))


def test_group_sizes_6_7_1_2():
    # Four groups of g = 4 tokens, n = 16.  Representatives (the most query-relevant token of
    # each group) with cosines fixed by a Gram matrix over (q, A, B, C, D):
    #   A, B: two mutually redundant filler groups, cos(A, B) = 0.95, cos(q, A) = 0.04,
    #         cos(q, B) = -0.04, both orthogonal to C and D;
    #   C: the query-relevant unique group, cos(q, C) = 0.9;
    #   D: a random group, cos(q, D) = 0.6, cos(C, D) = 0.35.
    # The other 3 tokens of each group are -q (relevance -1, never the representative).
    # By hand: redundancy A 0.95, B 0.95, C 0.35, D 0.35; MIG = rel - red =
    # (-0.91, -0.99, 0.55, 0.25); exp(-MIG) = (2.48432, 2.69123, 0.57695, 0.77880), sum
    # 6.53131; quotas 16 * share = (6.0859, 6.5928, 1.4134, 1.9079); floors (6, 6, 1, 1)
    # leave 2 units for the largest remainders, .9079 (D) and .5928 (B): sizes [6, 7, 1, 2].
    gram = np.array(
        [
            [1.0, 0.04, -0.04, 0.9, 0.6],
            [0.04, 1.0, 0.95, 0.0, 0.0],
            [-0.04, 0.95, 1.0, 0.0, 0.0],
            [0.9, 0.0, 0.0, 1.0, 0.35],
            [0.6, 0.0, 0.0, 0.35, 1.0],
        ]
    )
    v = vectors_with_gram(gram)
    q, reps = v[0], v[1:]
    h = np.stack([tok for r in reps for tok in (-q, r, -q, -q)])  # rep in 2nd place
    sizes, mig = group_sizes(h, q, 4)
    np.testing.assert_allclose(mig, [-0.91, -0.99, 0.55, 0.25], atol=1e-12)
    assert list(sizes) == [6, 7, 1, 2]  # the relevant unique group is compressed least
    comp = compress(h, q, 4)
    assert comp.spans == [(0, 6), (6, 13), (13, 14), (14, 16)]  # contiguous re-cut
    assert comp.memory.shape == (4, h.shape[1])  # ceil(16 / 4) memory vectors


def test_fine_weights_0274_0274_0452_and_the_baselines():
    # tokens [t1, t1, t3]: cos(t1, q) = 0.8, cos(t3, q) = 0.6, cos(t1, t3) = 0.3.
    # MIG = (0.8 - 1, 0.8 - 1, 0.6 - 0.3) = (-0.2, -0.2, 0.3) (t1's twin is its redundancy);
    # softmax: e^-0.2 / (2 e^-0.2 + e^0.3) = 0.818731 / 2.987321 = 0.274069 and
    # e^0.3 / 2.987321 = 1.349859 / 2.987321 = 0.451863 (the brief's 0.274, 0.452).
    # beta = 0: softmax(0.8, 0.8, 0.6) = (2.225541, 2.225541, 1.822119) / 6.273201
    # = (0.354770, 0.354770, 0.290461) (the brief's 0.355, 0.290).
    gram = np.array([[1.0, 0.8, 0.6], [0.8, 1.0, 0.3], [0.6, 0.3, 1.0]])
    q, t1, t3 = vectors_with_gram(gram)
    h = np.stack([t1, t1, t3])
    np.testing.assert_allclose(merge_weights(h, q), [0.274069, 0.274069, 0.451863], atol=2e-6)
    np.testing.assert_allclose(
        merge_weights(h, q, beta=0.0), [0.354770, 0.354770, 0.290461], atol=2e-6
    )
    np.testing.assert_allclose(merge_weights(h, q, alpha=0.0, beta=0.0), [1 / 3] * 3, atol=1e-15)
    rel, red, mig = mig_scores(h, q)
    np.testing.assert_allclose(rel, [0.8, 0.8, 0.6], atol=1e-12)
    np.testing.assert_allclose(red, [1.0, 1.0, 0.3], atol=1e-12)
    np.testing.assert_allclose(mig, [-0.2, -0.2, 0.3], atol=1e-12)


@pytest.mark.parametrize(("n", "g", "expected"), [(16, 4, [4, 4, 4, 4]), (18, 4, [4, 4, 4, 3, 3])])
def test_a_repeated_token_gets_a_uniform_reallocation(n, g, expected):
    # every representative is the same vector: redundancy 1 and MIG = rel - 1 for all
    # groups, so softmax(-MIG) is uniform: n/G each, largest remainder (ties to the first)
    rng = np.random.default_rng(0)
    tok = rng.normal(size=8)
    h = np.tile(tok, (n, 1))
    q = rng.normal(size=8)
    sizes, mig = group_sizes(h, q, g)
    assert np.ptp(mig) == 0.0
    assert list(sizes) == expected


def test_mean_pooling_and_coarse_off_baselines():
    rng = np.random.default_rng(1)
    h, q = rng.normal(size=(10, 5)), rng.normal(size=5)
    c = compress(h, q, 4, alpha=0.0, beta=0.0)  # alpha = beta = 0: mean pooling
    assert [b - a for a, b in c.spans] == [4, 3, 3]  # 10 * (1/3 each): 3.33 -> 4, 3, 3
    for (a, b), m in zip(c.spans, c.memory, strict=True):
        np.testing.assert_allclose(m, h[a:b].mean(axis=0), atol=1e-12)
    off = compress(h, q, 4, coarse=False, fine=False)  # round(10 / 4) = 2 equal groups
    assert off.spans == [(0, 5), (5, 10)]
    one = compress(h[:3], q, 4)  # n <= g: one group of everything
    assert one.spans == [(0, 3)] and one.memory.shape == (1, 5)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 60),
    g=st.integers(1, 40),
    seed=st.integers(0, 10_000),
    alpha=st.floats(0, 3),
    beta=st.floats(0, 3),
)
def test_sizes_sum_to_n_and_memory_count_is_at_most_ceil_n_over_g(n, g, seed, alpha, beta):
    rng = np.random.default_rng(seed)
    h, q = rng.normal(size=(n, 6)), rng.normal(size=6)
    sizes, _ = group_sizes(h, q, g, alpha=alpha, beta=beta)
    assert sizes.sum() == n and (sizes >= 0).all()
    assert len(sizes) == max(1, math.ceil(n / g))
    c = compress(h, q, g, alpha=alpha, beta=beta)
    assert c.memory.shape[0] == int((sizes > 0).sum()) <= math.ceil(n / g)
    assert sum(b - a for a, b in c.spans) == n
    for w in c.weights:
        assert w.sum() == pytest.approx(1.0, abs=1e-12) and (w >= 0).all()


def test_largest_remainder_and_spans():
    assert list(largest_remainder(np.array([2.5, 2.5, 1.0]), 6)) == [3, 2, 1]  # tie: first
    assert list(largest_remainder(np.array([0.2, 0.2, 0.6]), 1)) == [0, 0, 1]
    with pytest.raises(ValueError, match="sum to"):
        largest_remainder(np.array([1.0, 1.0]), 5)
    assert spans(np.array([2, 0, 3])) == [(0, 2), (2, 5)]


def test_selector_keeps_one_copy_of_a_duplicated_fact_under_the_budget():
    # units [fact, fact (duplicate), other, irrelevant], cost 5 each, budget 10, with
    # cos(q, fact) = 0.9, cos(q, other) = 0.7, cos(fact, other) = 0.5, irrelevant _|_ all
    q = np.array([1.0, 0.0, 0.0, 0.0])
    fact = np.array([0.9, math.sqrt(0.19), 0.0, 0.0])
    y = (0.5 - 0.9 * 0.7) / math.sqrt(0.19)
    other = np.array([0.7, y, math.sqrt(1 - 0.49 - y**2), 0.0])
    irr = np.array([0.0, 0.0, 0.0, 1.0])
    units = np.stack([fact, fact, other, irr])
    assert units @ q == pytest.approx([0.9, 0.9, 0.7, 0.0]) and fact @ other == pytest.approx(0.5)
    cost = np.array([5, 5, 5, 5])
    # first pick: the fact (relevance 0.9, ties to the earlier copy); then the gains are
    # duplicate 0.9 - 1 = -0.1, other 0.7 - 0.5 = 0.2, irrelevant 0 - 0 = 0: "other"
    assert list(select_units(units, q, cost, 10)) == [0, 2]
    # relevance only (beta = 0) keeps both copies
    assert list(select_units(units, q, cost, 10, beta=0.0)) == [0, 1]
    # nothing fits: nothing kept; everything fits: everything kept
    assert list(select_units(units, q, cost, 4)) == []
    assert list(select_units(units, q, cost, 100)) == [0, 1, 2, 3]


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="dimensions"):
        mig_scores(np.ones((3, 4)), np.ones(5))
    with pytest.raises(ValueError, match="finite"):
        compress(np.full((3, 2), np.nan), np.ones(2), 2)
    with pytest.raises(ValueError, match="rate must be >= 1"):
        compress(np.ones((3, 2)), np.ones(2), 0)
    with pytest.raises(ValueError, match="non-empty"):
        compress(np.ones((0, 2)), np.ones(2), 2)
    with pytest.raises(ValueError, match="cost"):
        select_units(np.ones((3, 2)), np.ones(2), np.ones(2), 5)
