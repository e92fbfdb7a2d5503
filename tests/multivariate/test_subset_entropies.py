"""Each distinct subset's entropy once: subset numbering, the Cholesky-prefix tree of
Gaussian log-determinants against closed forms and LAPACK, the singular rule, and the
sweep against a plain one-log-det-per-block program."""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pytest

import infometer as im
from infometer.measures.multivariate import _search, kernels
from infometer.measures.multivariate._subsets import (
    SubsetEntropies,
    _unrank,
    colex_levels,
    colex_ranks,
    lex_combinations,
    prefix_levels,
)

LOG2PIE = np.log(2 * np.pi) + 1.0


@pytest.mark.parametrize("d,k", [(1, 1), (5, 1), (6, 3), (7, 7), (3, 4), (12, 5)])
def test_lex_combinations_are_itertools_order(d, k):
    want = np.array(list(combinations(range(d), k)), dtype=np.intp).reshape(-1, k)
    assert np.array_equal(lex_combinations(d, k), want)


@pytest.mark.parametrize("d,kmax", [(1, 1), (6, 4), (9, 5)])
def test_colex_levels_rank_and_unrank(d, kmax):
    for k, (subs, parent) in enumerate(colex_levels(d, kmax), start=1):
        assert subs.shape == (comb(d, k), k)
        want = sorted(combinations(range(d), k), key=lambda c: c[::-1])
        assert np.array_equal(subs, np.array(want).reshape(-1, k))
        assert np.array_equal(colex_ranks(subs, d), np.arange(comb(d, k)))
        assert np.array_equal(_unrank(np.arange(comb(d, k)), d, k), subs)
        if k > 1:  # the parent is the subset without its largest element
            below = colex_levels(d, kmax)[k - 2][0]
            assert np.array_equal(below[parent], subs[:, :-1])


def _equicorrelated(d: int, rho: float) -> np.ndarray:
    return (1 - rho) * np.eye(d) + rho * np.ones((d, d))


def test_tree_entropies_equal_the_closed_form():
    # W = n Σ with Σ equicorrelated: det Σ_S = (1 - ρ)^(k-1) (1 + (k - 1) ρ) for |S| = k
    d, n, rho = 8, 1000, 0.4
    w = n * _equicorrelated(d, rho)
    h = kernels.gaussian_tree_entropies(w, n, colex_levels(d, 6), bias_correct=False)
    for k in range(1, 7):
        det = (1 - rho) ** (k - 1) * (1 + (k - 1) * rho)
        want = 0.5 * (np.log(det) + k * LOG2PIE)
        assert h[k - 1] == pytest.approx(np.full(comb(d, k), want), rel=1e-13, abs=1e-13)


def test_tree_entropies_equal_lapack_blocks_and_are_bit_for_bit_in_any_grouping():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(400, 9)) @ rng.normal(size=(9, 9))
    w = (x - x.mean(0)).T @ (x - x.mean(0))
    stack = np.stack([w, w[::-1, ::-1].copy()])
    for data in (w, stack):
        tables = kernels.gaussian_tree_entropies(data, 400, colex_levels(9, 5), True)
        for k in range(1, 6):
            subs = colex_levels(9, 5)[k - 1][0]
            ref = kernels.gaussian_block_entropies(data, 400, subs, True)
            assert tables[k - 1] == pytest.approx(ref, rel=1e-12, abs=1e-12)
            # a few blocks with their prefixes only: the same bits as the full tables
            some = subs[::5]
            part = kernels.gaussian_tree_entropies(data, 400, prefix_levels(some, 9), True)
            assert np.array_equal(part[-1], tables[k - 1][..., ::5])


def test_singular_blocks_are_nan_exactly_where_the_eigenvalue_rule_says():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 7))
    x[:, 4] = x[:, 1] - 2 * x[:, 2]  # exactly collinear: every block with 1, 2, 4
    x[:, 6] = x[:, 0] + 1e-5 * rng.normal(size=300)  # eigenvalue ratio ~5e-11: kept
    w = (x - x.mean(0)).T @ (x - x.mean(0))
    tables = kernels.gaussian_tree_entropies(w, 300, colex_levels(7, 4), False)
    for k in range(1, 5):
        subs = colex_levels(7, 4)[k - 1][0]
        ev = np.linalg.eigvalsh(w[subs[:, :, None], subs[:, None, :]])
        want_bad = ev[:, 0] <= 1e-13 * ev[:, -1]
        assert np.array_equal(np.isnan(tables[k - 1]), want_bad)
        has_all = np.isin(subs, [1, 2, 4]).sum(1) == 3
        assert np.array_equal(want_bad, has_all)


def test_memo_computes_each_subset_once():
    calls = []

    def compute(blocks):
        calls.append(len(blocks))
        return blocks.sum(1).astype(float)

    cache = SubsetEntropies(6, (), compute)
    a = lex_combinations(6, 3)
    first = cache.of([a[:, :2], a[:, 1:]])
    again = cache.of([a[:, [0, 2]]])
    assert np.array_equal(first[0], a[:, :2].sum(1))
    assert np.array_equal(again[0], a[:, [0, 2]].sum(1))
    # the first call names every pair but (0, 5), each once; the second only (0, 5) is new
    assert calls == [comb(6, 2) - 1, 1]
    tight = SubsetEntropies(6, (), compute, table_bytes=8)  # no memo: distinct subsets
    calls.clear()
    tight.of([a[:, :2], a[:, 1:]])
    tight.of([a[:, [0, 2]]])
    assert calls == [comb(6, 2) - 1, comb(6, 2) - 5]  # pairs (i, k) with k - i >= 2


def _plain_o_information(x: np.ndarray, size: int) -> dict:
    """The simplest correct program: one covariance, a log-det per needed block,
    Ω = (s - 2) H(X) + Σ_i [H(X_i) - H(X_-i)] (maximum-likelihood Gaussian entropies)."""
    c = np.cov(x, rowvar=False, bias=True)

    def h(cols: list[int]) -> float:
        return 0.5 * (np.linalg.slogdet(c[np.ix_(cols, cols)])[1] + len(cols) * LOG2PIE)

    out = {}
    for m in combinations(range(x.shape[1]), size):
        loo = sum(h([j for j in m if j != i]) for i in m)
        out[m] = (size - 2) * h(list(m)) + sum(h([i]) for i in m) - loo
    return out


def test_sweep_equals_the_plain_program_and_the_process_path():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(500, 9))
    x[:, 1] += x[:, 0]
    x[:, 5] = x[:, 3] + x[:, 4] + 0.5 * x[:, 5]
    r = im.multiplets(x, sizes=(3, 5), method="gaussian", bias_correct=False)
    pairs = zip(r.frame["multiplet"], r.frame["value"], strict=True)
    got = {tuple(int(c[1:]) for c in m): v for m, v in pairs}
    for size in (3, 4, 5):
        for m, want in _plain_o_information(x, size).items():
            assert got[m] == pytest.approx(want, rel=1e-10, abs=1e-12)
    # the memo of whole tables and the per-chunk path (parallel jobs) give the same bits
    w = _search.subset_entropies(np.cov(x, rowvar=False), 500, True)
    assert w.complete(5)
    idx = lex_combinations(9, 4)
    whole = _search.multiplet_values(np.cov(x, rowvar=False), 500, idx, "s_information", True, w)
    alone = _search.multiplet_values(np.cov(x, rowvar=False), 500, idx[3:40], "s_information")
    assert np.array_equal(whole[3:40], alone)
