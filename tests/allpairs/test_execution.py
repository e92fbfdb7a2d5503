"""One execution object (issue 29 §4): ``infometer.Execution`` checked in one place and
taken by ``pairwise``, ``bench.run_sweep`` and ``parallel.run_jobs``; the shorthands give
the same numbers bit for bit; the plot_x(result, ax=None, path=None) -> Axes convention
of the all-pairs figures, with the previous path-first form deprecated."""

from __future__ import annotations

import dataclasses
import os
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import infometer as im  # noqa: E402
from infometer.core.parallel import Execution, MemorySink, run_jobs  # noqa: E402
from infometer.workflows.allpairs import network, plot_heatmap, plot_network  # noqa: E402


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(5)
    df = pd.DataFrame({f"c{j}": rng.normal(size=200) for j in range(7)})
    df["c1"] += df["c0"]
    df["d"] = rng.integers(0, 3, 200)
    return df


def test_execution_checks_each_field_by_name():
    assert im.Execution is Execution and Execution().workers == (os.cpu_count() or 1)
    for kw, err, word in [
        ({"n_jobs": 0}, ValueError, "n_jobs"),
        ({"n_jobs": 1.5}, TypeError, "n_jobs"),
        ({"backend": "gpu"}, ValueError, "backend"),
        ({"store": 3}, TypeError, "store"),
        ({"progress": "yes"}, TypeError, "progress"),
        ({"retries": -1}, ValueError, "retries"),
        ({"connect_timeout": 0}, ValueError, "connect_timeout"),
        ({"backend": "threads", "scheduler": "tcp://h:1"}, ValueError, "scheduler"),
    ]:
        with pytest.raises(err, match=word):
            Execution(**kw)
    ex = Execution(n_jobs=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ex.n_jobs = 3
    assert ex.replace(backend="dask").resolve_backend("threads") == "dask"
    assert ex.run_jobs_kwargs("processes") == {
        "workers": 2,
        "scheduler": None,
        "pool": "processes",
        "retries": 2,
        "connect_timeout": 5.0,
    }


def test_pairwise_execution_and_its_shorthands_give_the_same_bits(table, tmp_path):
    base = im.pairwise(table, block_size=3, n_jobs=1)
    for kw in (
        {"execution": Execution(n_jobs=2)},
        {"execution": Execution(n_jobs=2, backend="threads", progress=False)},
        {"n_jobs": 2},
    ):
        res = im.pairwise(table, block_size=3, **kw)
        assert res.matrix.to_numpy().tobytes() == base.matrix.to_numpy().tobytes()
        assert res.diagnostics["backend"] == "threads"
    ex = Execution(n_jobs=1, store=str(tmp_path / "s"))
    first = im.pairwise(table, block_size=3, execution=ex)
    again = im.pairwise(table, block_size=3, execution=ex)  # resumed: nothing recomputed
    assert again.diagnostics["blocks"]["computed"] == 0
    assert again.diagnostics["blocks"]["already_stored"] == first.diagnostics["blocks"]["planned"]
    assert again.matrix.to_numpy().tobytes() == base.matrix.to_numpy().tobytes()
    assert first.diagnostics["store"] == str(tmp_path / "s")


def test_pairwise_refuses_two_sources_of_execution(table):
    with pytest.raises(TypeError, match="execution= and n_jobs="):
        im.pairwise(table, execution=Execution(), n_jobs=2)
    with pytest.raises(TypeError, match="execution= and client=, store="):
        im.pairwise(table, execution=Execution(), client="tcp://h:1", store="x")
    with pytest.raises(TypeError, match="execution must be an infometer.Execution"):
        im.pairwise(table, execution={"n_jobs": 2})
    with pytest.raises(ValueError, match="threads, or Dask"):
        im.pairwise(table, execution=Execution(backend="processes"))
    with pytest.raises(ValueError, match="backend"):
        im.pairwise(table, backend="gpu")


def test_run_jobs_takes_an_execution():
    sink = MemorySink()
    out = run_jobs(abs, {"a": -1, "b": -2}, sink, execution=Execution(n_jobs=2, backend="threads"))
    assert out.complete and sink.results == {"a": 1, "b": 2}
    with pytest.raises(TypeError, match="execution= and workers="):
        run_jobs(abs, {"a": -1}, MemorySink(), execution=Execution(), workers=2)


def test_run_sweep_takes_an_execution(tmp_path):
    from infometer.workflows.bench import Store, plan, run_sweep, suite_tasks

    jobs, _ = plan(suite_tasks("quick")[:2], ["auto"], [100], [0, 1])
    with Store(tmp_path / "a") as a, Store(tmp_path / "b") as b:
        run_sweep(jobs, a, workers=1, progress=False)
        res = run_sweep(jobs, b, execution=Execution(n_jobs=1, progress=False))
        assert res.ran == len(jobs) and not res.missing

        def values(store):
            return sorted((r["task"], r["seed"], r["estimate"]) for r in store.rows())

        assert values(a) == values(b)  # same seeds, same numbers
        with pytest.raises(ValueError, match="Store as an argument"):
            run_sweep(jobs, b, execution=Execution(store="x"))
        with pytest.raises(TypeError, match="execution= and workers="):
            run_sweep(jobs, b, execution=Execution(), workers=2)
        with pytest.raises(ValueError, match="workers"):
            run_sweep(jobs, b, workers=0)


def test_figures_take_ax_or_path_and_return_axes(table, tmp_path):
    res = im.pairwise(table.iloc[:, :7], method="copula")
    fig, own = plt.subplots()
    assert res.heatmap(own) is own and own.images
    assert plot_heatmap(res, own) is own
    ax = res.heatmap(path=tmp_path / "h.png", title="t")
    assert (tmp_path / "h.png").stat().st_size > 5000 and ax.get_title() == "t"
    cbar = ax.figure.axes[-1]  # the colour bar names the result's unit
    assert "MI [nats]" in cbar.get_ylabel()
    assert "MI [bits]" in res.to("bits").heatmap().figure.axes[-1].get_ylabel()
    net = res.aracne()
    fig2, own2 = plt.subplots()
    assert net.plot(own2) is own2 and plot_network(net, own2) is own2
    assert net.plot(path=tmp_path / "n.png").get_title() == f"aracne: {len(net.edges)} edges"
    with pytest.raises(TypeError, match="Network"):
        plot_network(res)
    with pytest.raises(TypeError, match="path= only"):
        res.heatmap(tmp_path / "a.png", path=tmp_path / "b.png")
    plt.close("all")


def test_the_previous_path_first_forms_still_save_with_a_warning(table, tmp_path):
    res = im.pairwise(table.iloc[:, :5], method="copula")
    net = res.clr()
    calls = [
        (lambda p: res.heatmap(p), r"PairwiseResult.heatmap\(path\)"),
        (lambda p: plot_heatmap(res, p), r"plot_heatmap\(result, path\)"),
        (lambda p: net.plot(p), r"Network.plot\(path\)"),
        (lambda p: plot_network(net, p), r"plot_network\(result, path\)"),
    ]
    for i, (call, name) in enumerate(calls):
        path = tmp_path / f"{i}.png"
        with pytest.warns(DeprecationWarning, match=rf"{name} is deprecated"):
            out = call(path)
        assert out == path and path.stat().st_size > 3000  # the old return value: the path
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new forms do not warn
        res.heatmap(path=tmp_path / "new.png")
    plt.close("all")


def test_network_functions_read_a_pairwise_result_by_its_class(table):
    res = im.pairwise(table.iloc[:, :7], method="copula", n_permutations=19)
    assert not hasattr(network, "_is_result")
    a, b = network.aracne(res), res.aracne()
    assert a.matrix.equals(b.matrix) and a.params == b.params == {"tolerance": 0.0, **a.params}
    assert a.params["significant_only"] and a.params["alpha"] == 0.05
    assert network.clr(res).matrix.equals(res.clr().matrix)


def test_shorthands_keep_their_old_meaning(table):
    # pairwise read client= only with backend="dask": with the default threads it is unused
    res = im.pairwise(table.iloc[:, :4], method="copula", client="tcp://127.0.0.1:1")
    assert res.diagnostics["backend"] == "threads"
    # a function whose own default differs from Execution's (one in-process worker)
    ex = Execution.from_keywords(None, "f", {"n_jobs": 1}, n_jobs=("n_jobs", 1, 1))
    assert ex.n_jobs == 1 and Execution.from_keywords(None, "f").n_jobs is None
    with pytest.raises(TypeError, match="execution= and n_jobs="):
        Execution.from_keywords(Execution(), "f", {"n_jobs": 1}, n_jobs=("n_jobs", 4, 1))
