"""Properties that must hold for every sample (hypothesis)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infometer as im

METHODS = ["plugin", "miller_madow", "chao_shen", "grassberger", "shrinkage", "nsb"]

symbols = st.lists(st.integers(0, 7), min_size=2, max_size=200)


def pairs():
    return st.integers(2, 150).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, 5), min_size=n, max_size=n),
            st.lists(st.integers(0, 5), min_size=n, max_size=n),
            st.lists(st.integers(0, 3), min_size=n, max_size=n),
        )
    )


def quiet(f, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k).value


@given(symbols)
def test_plugin_bounded_by_log_k(x):
    k = len(set(x))
    h = quiet(im.entropy, x, method="plugin")
    assert -1e-12 <= h <= math.log(k) + 1e-12


@given(symbols)
def test_miller_madow_at_least_plugin(x):
    assert quiet(im.entropy, x, method="miller_madow") >= quiet(im.entropy, x, method="plugin")


@settings(max_examples=30, deadline=None)
@given(pairs(), st.sampled_from(METHODS))
def test_mi_is_symmetric(d, method):
    x, y, _ = d
    assert quiet(im.mutual_info, x, y, method=method) == pytest.approx(
        quiet(im.mutual_info, y, x, method=method), abs=1e-9
    )


@settings(max_examples=30, deadline=None)
@given(pairs(), st.sampled_from(METHODS), st.permutations(list(range(6))))
def test_relabelling_symbols_changes_nothing(d, method, perm):
    x, y, _ = d
    px = [perm[v] for v in x]
    py = ["s" + str(perm[v]) for v in y]  # strings too
    assert quiet(im.mutual_info, px, py, method=method) == pytest.approx(
        quiet(im.mutual_info, x, y, method=method), abs=1e-9
    )


@settings(max_examples=50, deadline=None)
@given(pairs())
def test_chain_rule_exact_for_plugin(d):
    x, y, z = d
    yz = np.column_stack([y, z])
    lhs = quiet(im.mutual_info, x, yz, method="plugin")
    rhs = quiet(im.mutual_info, x, z, method="plugin") + quiet(
        im.cond_mutual_info, x, y, z, method="plugin"
    )
    assert lhs == pytest.approx(rhs, abs=1e-10)


@settings(max_examples=30, deadline=None)
@given(pairs(), st.sampled_from(["nats", "bits", "hartleys"]))
def test_units_convert_exactly(d, unit):
    x, y, _ = d
    nats = quiet(im.mutual_info, x, y, method="plugin")
    other = quiet(im.mutual_info, x, y, method="plugin", unit=unit)
    base = {"nats": math.e, "bits": 2, "hartleys": 10}[unit]
    assert other == pytest.approx(nats / math.log(base), rel=1e-12, abs=1e-15)
