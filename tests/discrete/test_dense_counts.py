"""The one-pass dense joint table gives exactly the counts of the code-by-code path."""

import numpy as np
import pytest

import infometer as im
from infometer.core.data import as_variable
from infometer.estimators.discrete import counting
from infometer.estimators.discrete.counting import counts, joint_codes, joint_table, table_counts

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
