"""The same sweep on a real Dask LocalCluster (two worker processes on loopback) gives the
same stored results as the local run."""

import pytest

from infometer import truth
from infometer.bench import Store, plan, run_sweep

distributed = pytest.importorskip("distributed")


@pytest.mark.slow
def test_dask_cluster_matches_local_run(tmp_path):
    tasks = [
        truth.get_task(t)
        for t in ("symchannel-1pair-V2-0.5nat", "table-4x5-dirichlet", "ising2d-3x3-T2.5")
    ]
    jobs, _ = plan(tasks, ["plugin", "grassberger"], [300], [0, 1])
    with Store(tmp_path / "local") as st:
        run_sweep(jobs, st, workers=1, progress=False)
        local = {(r["task"], r["method"], r["n"], r["seed"]): r for r in st.rows()}
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        with Store(tmp_path / "dask") as st:
            res = run_sweep(jobs, st, scheduler=cluster.scheduler_address, progress=False)
            assert res.ran == len(jobs) and res.failed == 0
            remote = {(r["task"], r["method"], r["n"], r["seed"]): r for r in st.rows()}
            # the runs really went through the cluster's scheduler
            done = cluster.scheduler.task_prefixes["run_job"].state_counts["memory"]
            assert done == len(jobs)
            # resuming against the cluster finds nothing left to do
            assert run_sweep(jobs, st, scheduler=cluster.scheduler_address, progress=False).ran == 0
    assert set(remote) == set(local) == {j.key for j in jobs}
    for k, r in local.items():
        assert remote[k]["estimate"] == r["estimate"]
        assert remote[k]["truth"] == r["truth"] and remote[k]["status"] == "ok"
