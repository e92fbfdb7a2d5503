"""Fuzzy F1 (SCRIBES) and set P/R/F1 (LiveWeb-IE): the known answers of the issue."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from infometer.systems.extract.metrics import (
    DUMP_FACTOR,
    fuzzy_f1,
    match,
    normalize_triple,
    ratio,
    set_prf,
    similarity_matrix,
)

GOLD = [
    ("Dune", "Author", "Frank Herbert"),
    ("Dune", "Year", "1965"),
    ("Dune", "Pages", "412"),
    ("Emma", "Author", "Jane Austen"),
    ("Emma", "Year", "1815"),
]


@pytest.mark.parametrize("matching", ["greedy", "hungarian"])
def test_exact_copy_scores_one(matching):
    r = fuzzy_f1(GOLD, GOLD, matching=matching)
    assert (r.precision, r.recall, r.f1) == (1.0, 1.0, 1.0)


@pytest.mark.parametrize("matching", ["greedy", "hungarian"])
def test_dropping_one_of_n(matching):
    n = len(GOLD)
    r = fuzzy_f1(GOLD[1:], GOLD, matching=matching)
    assert r.precision == 1.0
    assert r.recall == pytest.approx((n - 1) / n, abs=1e-15)


def test_ten_times_gold_scores_zero_and_nine_times_does_not():
    gold = GOLD[:2]
    many = [("x", "y", str(i)) for i in range(DUMP_FACTOR * len(gold) - 1)] + [gold[0]]
    assert fuzzy_f1(many, gold).f1 == 0.0  # 10 x |gold| predictions
    assert fuzzy_f1(many[1:], gold).f1 > 0.0  # 9.5 x |gold|


def test_normalisation_case_punctuation_whitespace_duplicates():
    pred = [("DUNE", "author:", "  Frank   Herbert. "), ("dune", "Author", "Frank Herbert")]
    r = fuzzy_f1(pred, GOLD[:1])
    assert r.n_pred == 1 and r.f1 == 1.0
    assert normalize_triple(("A b", "C!", "d")) == "a b\tc\td"


def _indel_ratio(a, b):
    """The reference: 100 x 2 LCS / (|a| + |b|) by the textbook LCS table (100 for two
    empty strings) -- what rapidfuzz's ``fuzz.ratio`` must compute."""
    n, m = len(a), len(b)
    if n + m == 0:
        return 100.0
    prev = [0] * (m + 1)
    for i in range(1, n + 1):
        cur = [0] * (m + 1)
        for j in range(1, m + 1):
            cur[j] = prev[j - 1] + 1 if a[i - 1] == b[j - 1] else max(prev[j], cur[j - 1])
        prev = cur
    return 100.0 * 2 * prev[m] / (n + m)


def test_ratio_matches_rapidfuzz_and_closed_forms():
    from rapidfuzz import fuzz

    rng = np.random.default_rng(0)
    for _ in range(200):
        a = "".join(rng.choice(list("abc "), rng.integers(0, 9)))
        b = "".join(rng.choice(list("abc "), rng.integers(0, 9)))
        assert ratio(a, b) == pytest.approx(_indel_ratio(a, b), abs=1e-9)
        assert ratio(a, b) == fuzz.ratio(a, b)
    assert ratio("", "") == 100.0
    assert ratio("abc", "xyz") == 0.0
    assert ratio("abcd", "abcd") == 100.0
    assert ratio("ab", "abcd") == pytest.approx(100 * 2 * 2 / 6)  # LCS 2


def test_greedy_differs_from_hungarian_where_it_should():
    sim = np.array([[0.9, 0.8], [0.85, 0.0]])
    gr, gc = match(sim, "greedy")
    hr, hc = match(sim, "hungarian")
    assert sim[gr, gc].sum() == pytest.approx(0.9)
    assert sim[hr, hc].sum() == pytest.approx(1.65)


def test_hungarian_is_the_best_assignment_greedy_at_most():
    rng = np.random.default_rng(1)
    for _ in range(30):
        sim = rng.random((4, 3))
        best = max(
            sum(sim[i, j] for i, j in zip(rows, cols, strict=False))
            for rows in itertools.permutations(range(4), 3)
            for cols in [range(3)]
        )
        hr, hc = match(sim, "hungarian")
        gr, gc = match(sim, "greedy")
        assert sim[hr, hc].sum() == pytest.approx(best)
        assert sim[gr, gc].sum() <= best + 1e-12


def test_partial_similarity_is_fuzz_ratio():
    pred = [("dune", "year", "1966")]
    gold = [("dune", "year", "1965")]
    s = ratio("dune\tyear\t1966", "dune\tyear\t1965") / 100
    r = fuzzy_f1(pred, gold)
    assert r.precision == pytest.approx(s) and r.recall == pytest.approx(s)


def test_empty_cases():
    assert fuzzy_f1([], []).f1 == 1.0
    assert fuzzy_f1([], GOLD).f1 == 0.0
    assert fuzzy_f1(GOLD, []).f1 == 0.0


def test_bad_input():
    with pytest.raises(TypeError, match="pred"):
        fuzzy_f1("abc", GOLD)
    with pytest.raises(ValueError, match=r"pred\[0\]"):
        fuzzy_f1([("a", "b")], GOLD)
    with pytest.raises(ValueError, match="matching"):
        fuzzy_f1(GOLD, GOLD, matching="random")


def test_size_checked_before_allocating(monkeypatch):
    import infometer.systems.extract.metrics as m

    monkeypatch.setattr(m, "MAX_PAIRS", 10)
    with pytest.raises(ValueError, match="pairs exceeds the limit"):
        similarity_matrix(["a"] * 4, ["b"] * 3)


def test_set_prf():
    r = set_prf(["a", "b ", "c"], ["a", "b", "d", "e"])
    assert (r.precision, r.recall) == (2 / 3, 2 / 4)
    assert set_prf([], []).f1 == 1.0
    assert set_prf(["x"], []).f1 == 0.0
    with pytest.raises(TypeError):
        set_prf("abc", ["a"])
