"""The Dask backend on a real LocalCluster (two worker processes on loopback): the same
matrix as the local run, and a worker killed mid-run does not change it."""

import os
import signal
import threading
import time

import numpy as np
import pandas as pd
import pytest

from infometer.core.parallel import Execution
from infometer.workflows.allpairs import pairwise

distributed = pytest.importorskip("distributed")


pytestmark = pytest.mark.slow  # the slow lane: deselected by make test-fast


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def table(n, p, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, p))
    x[:, 1] += x[:, 0]
    x[:, 2] = np.round(x[:, 2] + x[:, 1], 1)  # ties: jittered per column
    df = pd.DataFrame(x, columns=[f"v{j}" for j in range(p)])
    df["cls"] = (x[:, 0] > 0).astype(int)
    df["sym"] = rng.choice(["a", "b", "c"], n)
    return df


def same(a, b):
    assert np.array_equal(a.matrix.to_numpy(), b.matrix.to_numpy(), equal_nan=True)
    assert np.array_equal(a.p_values.to_numpy(), b.p_values.to_numpy(), equal_nan=True)
    assert a.edges.method.tolist() == b.edges.method.tolist()


@pytest.mark.slow
def test_dask_gives_the_local_matrix(client, tmp_path):
    df = table(200, 8, seed=1)
    local = pairwise(df, block_size=3, n_permutations=9, seed=5)
    remote = pairwise(
        df, block_size=3, n_permutations=9, seed=5, backend="dask", client=client, store=tmp_path
    )
    same(local, remote)
    ex = Execution(scheduler=client, store=str(tmp_path / "ex"))  # the one execution object
    via = pairwise(df, block_size=3, n_permutations=9, seed=5, execution=ex)
    same(local, via)
    assert via.diagnostics["backend"] == "dask"
    assert set(remote.diagnostics["methods"]) == {"ksg1", "gkov", "miller_madow"}
    assert remote.diagnostics["blocks"]["computed"] == 10
    # the blocks really ran as tasks of the cluster's scheduler
    prefix = client.cluster.scheduler.task_prefixes["remote_block"]
    assert prefix.state_counts["memory"] + prefix.state_counts["released"] >= 10
    again = pairwise(
        df, block_size=3, n_permutations=9, seed=5, backend="dask", client=client, store=tmp_path
    )
    assert again.diagnostics["blocks"]["computed"] == 0  # resumed from the store
    same(local, again)


@pytest.mark.slow
def test_a_worker_killed_mid_run_does_not_change_the_matrix(client, tmp_path):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((300, 24))
    x[:, 5] += x[:, 4]
    kw = {"method": "ksg", "block_size": 4, "n_permutations": 19, "seed": 3}
    local = pairwise(x, **kw)  # 21 blocks of ~0.1-0.5 s each with their nulls
    out: dict = {}

    def job():
        out["res"] = pairwise(x, backend="dask", client=client, store=tmp_path, **kw)

    th = threading.Thread(target=job)
    th.start()
    blocks = tmp_path / "blocks"
    t0 = time.time()
    while not (blocks.exists() and len(list(blocks.glob("*.parquet"))) >= 3):
        assert th.is_alive() and time.time() - t0 < 120, "the job made no progress"
        time.sleep(0.05)
    pids = client.run(os.getpid)  # worker address -> process id
    busy = [a for a, keys in client.processing().items() if keys]
    assert busy, "no block in flight"
    victim = pids[busy[0]]
    os.kill(victim, signal.SIGKILL)  # a worker process dies while it holds a block
    th.join(timeout=300)
    assert not th.is_alive()
    res = out["res"]
    assert res.diagnostics["blocks"]["planned"] == 21
    same(local, res)
    after = set(client.run(os.getpid).values())
    assert victim not in after  # the nanny started a new worker process in its place
