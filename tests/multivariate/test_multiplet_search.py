"""Multiplets above the budget: greedy and beam searches find planted multiplets, an
unbounded beam is the exhaustive search, and exhaustive sweeps through
``parallel.run_jobs`` (processes, Dask, resumable store) give the in-process values
bit for bit."""

from __future__ import annotations

import os
import sys

import numpy as np
import pandas as pd
import pytest

import infometer as im
import infometer.measures.multivariate  # noqa: F401

MOD = sys.modules["infometer.measures.multivariate.multiplets"]


def _planted5(n=2000, d=30, seed=0):
    # x0..x3 independent, x4 = their sum + noise: the 5-multiplet is strongly synergistic
    # (Ω ≈ -1.8 nats); the other 25 columns are independent noise
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    x[:, 4] = x[:, :4].sum(1) + 0.5 * rng.normal(size=n)
    return x


PLANTED = ("x0", "x1", "x2", "x3", "x4")


@pytest.mark.parametrize(("search", "width"), [("greedy", 1), ("beam", 4)])
def test_search_finds_planted_synergistic_five(search, width):
    x = _planted5()
    r = im.multiplets(x, sizes=(3, 5), search=search, beam_width=width)
    top = r.frame.iloc[0]
    assert top["multiplet"] == PLANTED and top["size"] == 5
    # the value is the registered estimator's on those columns (same kernel: to rounding)
    want = im.o_information(x[:, :5], method="gaussian_copula").value
    assert top["value"] == pytest.approx(want, rel=1e-9)
    assert want < -1.0
    assert r.diagnostics["search"] == search and r.diagnostics["beam_width"] == width
    assert (r.frame["size"].value_counts().sort_index() == width).all()
    if search == "greedy":  # all C(30, 3) triplets, then 27 and 26 one-variable growths
        assert r.diagnostics["evaluated"] == 4060 + 27 + 26
    assert r.diagnostics["evaluated"] <= r.diagnostics["multiplets"]  # the budgeted bound


def test_greedy_redundancy_objective():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(1000, 12))
    x[:, [3, 5, 7, 9]] += 2 * x[:, [0]]  # one driver of x0, x3, x5, x7, x9
    r = im.multiplets(x, sizes=(3, 5), search="greedy", objective="redundancy")
    top = r.frame.iloc[0]
    assert set(top["multiplet"]) <= {"x0", "x3", "x5", "x7", "x9"} and top["value"] > 0.5


@pytest.mark.parametrize("objective", ["synergy", "redundancy"])
@pytest.mark.parametrize("measure", ["o_information", "total_correlation"])
def test_unbounded_beam_is_exhaustive(objective, measure):
    x = _planted5(n=400, d=7, seed=2)
    ex = im.multiplets(x, measure=measure, sizes=(3, 5))
    bm = im.multiplets(
        x, measure=measure, sizes=(3, 5), search="beam", beam_width=10**6, objective=objective
    )
    a = ex.frame.sort_values("multiplet").reset_index(drop=True)
    b = bm.frame.sort_values("multiplet").reset_index(drop=True)
    assert list(a["multiplet"]) == list(b["multiplet"])  # all 35 + 35 + 21
    np.testing.assert_allclose(b["value"], a["value"], rtol=1e-12, atol=1e-15)


def test_search_surrogates_are_adjusted_for_the_search():
    x = _planted5(n=600, d=12)
    r = im.multiplets(x, sizes=(3, 5), search="greedy", n_permutations=19)
    top = r.frame.iloc[0]
    assert top["multiplet"] == PLANTED
    assert top["p_value"] == pytest.approx(0.05) and top["p_fwer"] == pytest.approx(0.05)
    # independent columns: p-values are valid numbers in [1/(B+1), 1]
    y = np.random.default_rng(5).normal(size=(600, 12))
    f = im.multiplets(y, sizes=(3, 4), search="beam", beam_width=3, n_permutations=19).frame
    assert f["p_fwer"].between(0.05, 1.0).all() and f["p_value"].between(0.05, 1.0).all()


def test_budget_error_names_the_alternatives():
    x = np.random.default_rng(0).normal(size=(50, 30))
    with pytest.raises(ValueError, match="search='greedy'") as e:
        im.multiplets(x, sizes=(3, 8), max_multiplets=10_000)
    assert "beam" in str(e.value) and "n_jobs" in str(e.value)
    r = im.multiplets(x, sizes=(3, 8), search="beam", beam_width=3, max_multiplets=10_000)
    assert set(r.frame["size"]) == set(range(3, 9))


@pytest.mark.parametrize(
    ("kw", "exc", "word"),
    [
        ({"search": "random"}, ValueError, "search"),
        ({"search": "beam", "beam_width": 0}, ValueError, "beam_width"),
        ({"objective": "both"}, ValueError, "objective"),
        ({"search": "greedy", "store": "sweep"}, ValueError, "store"),
        ({"n_jobs": 0}, ValueError, "n_jobs"),
    ],
)
def test_search_errors(kw, exc, word):
    x = np.random.default_rng(0).normal(size=(50, 5))
    with pytest.raises(exc, match=word):
        im.multiplets(x, **kw)


@pytest.fixture
def small_chunks(monkeypatch):
    # several chunks per size, so that the order of assembly is exercised
    monkeypatch.setattr(MOD, "CHUNK_BYTES", 18_000)


def _sweep(**kw):
    x = np.random.default_rng(0).normal(size=(300, 9))
    x[:, 1] += x[:, 0]
    return im.multiplets(x, sizes=(3, 4), n_permutations=4, **kw)


def test_processes_and_store_are_bit_for_bit(small_chunks, tmp_path):
    ref = _sweep()
    pd.testing.assert_frame_equal(_sweep(n_jobs=2).frame, ref.frame, check_exact=True)
    # the execution object pairwise, infer_network and bench take, for the same run
    ex = im.Execution(n_jobs=2, store=tmp_path / "ex")
    pd.testing.assert_frame_equal(_sweep(execution=ex).frame, ref.frame, check_exact=True)
    with pytest.raises(TypeError, match=r"execution= and n_jobs="):
        _sweep(n_jobs=2, execution=ex)
    store = tmp_path / "sweep"
    pd.testing.assert_frame_equal(_sweep(store=store).frame, ref.frame, check_exact=True)
    chunks = sorted(p.name for p in (store / "chunks").glob("*.npz"))
    assert len(chunks) == 7  # C(9,3)=84 in chunks of 50, C(9,4)=126 in chunks of 28
    os.remove(store / "chunks" / chunks[3])  # an interrupted sweep: resume fills the gap
    pd.testing.assert_frame_equal(_sweep(store=store).frame, ref.frame, check_exact=True)
    assert sorted(p.name for p in (store / "chunks").glob("*.npz")) == chunks
    x = np.random.default_rng(1).normal(size=(300, 9))
    with pytest.raises(ValueError, match="another multiplets sweep .* differs in data"):
        im.multiplets(x, sizes=(3, 4), n_permutations=4, store=store)


@pytest.mark.parametrize(("search", "width"), [("greedy", 1), ("beam", 3)])
def test_search_surrogates_on_processes_are_bit_for_bit(search, width):
    # the surrogate searches run as run_jobs jobs: the same values and p-values
    x = np.random.default_rng(4).normal(size=(300, 9))  # null data: p-values spread out
    kw = dict(sizes=(3, 5), search=search, beam_width=width, n_permutations=6, seed=3)
    ref = im.multiplets(x, **kw)
    got = im.multiplets(x, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(got.frame, ref.frame, check_exact=True)
    assert ref.frame["p_fwer"].nunique() > 1  # the null bests differ between sizes/rows


@pytest.mark.slow
def test_dask_local_cluster_is_bit_for_bit(small_chunks):
    distributed = pytest.importorskip("distributed")
    ref = _sweep()
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        got = _sweep(client=client)
        kw = dict(sizes=(3, 4), search="beam", beam_width=2, n_permutations=4)
        x = np.random.default_rng(0).normal(size=(300, 9))
        searched = im.multiplets(x, client=client, **kw)
    pd.testing.assert_frame_equal(got.frame, ref.frame, check_exact=True)
    pd.testing.assert_frame_equal(searched.frame, im.multiplets(x, **kw).frame, check_exact=True)
