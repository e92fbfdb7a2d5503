"""The one-pass dense joint table gives exactly the counts of the code-by-code path."""

import numpy as np
import pytest

import infometer as im
from infometer.core.data import as_variable
from infometer.estimators.discrete import _counting as counting
from infometer.estimators.discrete._counting import counts, joint_codes, joint_table, table_counts

SUBSETS = {
    1: [(0,)],
    2: [(0,), (1,), (0, 1)],
    3: [(0, 2), (1, 2), (0, 1, 2), (2,)],
}


@pytest.mark.slow
@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("n_vars", [1, 2, 3])
def test_table_counts_equal_code_counts(n_vars, compiled, monkeypatch):
    monkeypatch.setattr(counting, "COMPILED_MIN_ROWS", 0 if compiled else 10**12)
    rng = np.random.default_rng(n_vars)
    n = 5001  # odd: the two interleaved tables of the one-column kernel get unequal rows
    vs = []
    for i in range(n_vars):
        k = int(rng.integers(2, 12))
        if i == 1:  # a two-column variable, and a symbol never seen
            vs.append(as_variable(np.column_stack([rng.integers(0, k, n), rng.integers(1, 4, n)])))
        else:
            vs.append(as_variable(rng.integers(0, k, n), name=f"v{i}"))
    table = joint_table(vs)
    assert table is not None and table.sum() == n
    for idx in SUBSETS[n_vars]:
        ref = counts(joint_codes(*(vs[i] for i in idx)))
        assert np.array_equal(table_counts(table, n_vars, idx), ref)  # same numbers, same order


@pytest.mark.parametrize("split", [(3,), (2, 1), (1, 2), (1, 1, 1)])
def test_columns_counted_in_place_give_the_mixed_radix_cells(split, monkeypatch):
    """Up to three columns in all, the compiled kernel reads them where they are (strided
    columns of one 2-D array): the same cells, in the order of each variable's code."""
    monkeypatch.setattr(counting, "COMPILED_MIN_ROWS", 0)
    rng = np.random.default_rng(len(split))
    ks = (3, 5, 4)
    arr = np.column_stack([rng.integers(0, k, 2001) for k in ks])
    vs, start = [], 0
    for i, w in enumerate(split):
        vs.append(as_variable(arr[:, start : start + w], name=f"v{i}"))
        start += w
    table = joint_table(vs)
    code = arr[:, 0] + 3 * (arr[:, 1] + 5 * arr[:, 2])  # first column fastest
    want = np.bincount(code, minlength=60)
    assert np.array_equal(table.ravel(), want)
    assert table.shape == tuple(int(np.prod(ks[a : a + w])) for a, w in _spans(split))[::-1]


def _spans(split):
    start = 0
    for w in split:
        yield start, w
        start += w


@pytest.mark.slow
def test_estimates_do_not_depend_on_the_table(monkeypatch):
    rng = np.random.default_rng(3)
    x, y, z = (rng.integers(0, 7, 20_000) for _ in range(3))
    methods = ["plugin", "miller_madow", "chao_shen", "grassberger", "shrinkage", "nsb"]

    def values():
        return [
            f(*args, method=m).value
            for m in methods
            for f, args in (
                (im.entropy, (x,)),
                (im.mutual_info, (x, y)),
                (im.cond_mutual_info, (x, y, z)),
            )
        ]

    monkeypatch.setattr(counting, "COMPILED_MIN_ROWS", 0)
    dense_compiled = values()
    monkeypatch.setattr(counting, "COMPILED_MIN_ROWS", 10**12)
    dense_numpy = values()
    monkeypatch.setattr(counting, "DENSE_MAX_CELLS", 0)  # the code-by-code path
    by_codes = values()
    assert dense_compiled == dense_numpy == by_codes


def test_large_or_unbounded_alphabets_skip_the_table():
    rng = np.random.default_rng(0)
    wide = as_variable(rng.integers(0, 2**21, 1000))  # 2M cells for 1000 rows: too sparse
    assert joint_table([wide]) is None
    text = as_variable(np.array(["a", "b"] * 50))  # factorised symbols: cardinality known
    assert joint_table([text]).sum() == 100
