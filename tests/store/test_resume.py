"""kill -9 at any moment, and Ctrl-C, resume to the byte-identical answer (issue 36 §2).

Real processes: a run of ``im.multiplets`` / ``im.infer_network`` / ``im.pairwise`` with a
store is SIGKILLed (with its whole process group) at several moments, from before its first
result to the middle of the run; each time the store must open again (nothing half-written
is ever refused or reused) and the final resumed answer must equal, bit for bit, the answer
of a run without a store.  ``infometer multiplets --store`` and ``infometer network
--store`` get a real SIGINT: exit status 130, the one line "interrupted; run again to
resume", no process left behind, and a re-run that writes byte-identical output files.
(The bench's own kill -9 / Ctrl-C tests are in tests/bench/test_kill.py.)
"""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytestmark = pytest.mark.slow

SRC = Path(__file__).resolve().parents[2] / "src"


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONWARNINGS"] = "ignore"
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


# The runs, as code for a child process and as a function here (the same call).
SETUP = """
import importlib
import numpy as np
import infometer as im
M = importlib.import_module("infometer.measures.multivariate.multiplets")  # not im.multiplets
M.CHUNK_BYTES = 30_000  # many small chunks: many moments to be killed at
from infometer.measures.dynamics import simulate

def data(kind):
    rng = np.random.default_rng(7)
    if kind == "multiplets":
        x = rng.normal(size=(300, 12)); x[:, 1] += x[:, 0]; return x
    if kind == "pairwise":
        x = rng.normal(size=(200, 12)); x[:, 5] += x[:, 4]; return x
    a = np.zeros((1, 5, 5)); a[0][np.diag_indices(5)] = 0.4
    for i in range(4):
        a[0, i + 1, i] = 0.5
    return simulate.var(a, 700, seed=3)

def run(kind, store):
    x = data(kind)
    if kind == "multiplets":
        return im.multiplets(x, sizes=(3, 4), n_permutations=40, seed=2, store=store).frame
    if kind == "network":
        net = im.infer_network(x, max_lag=2, n_permutations=200, store=store)
        return net.edges, net.targets
    res = im.pairwise(x, method="ksg", block_size=2, n_permutations=19, seed=1, store=store)
    return res.matrix, res.p_values
"""
FILES = {
    "multiplets": "chunks/*.npz",
    "network": "targets/*.json",
    "pairwise": "blocks/*.parquet",
}


def _here():
    ns: dict = {}
    exec(compile(SETUP, "setup", "exec"), ns)  # noqa: S102 - the same code as the child's
    return ns


def _same(a, b):
    a, b = (a if isinstance(a, tuple) else (a,)), (b if isinstance(b, tuple) else (b,))
    for u, v in zip(a, b, strict=True):
        pd.testing.assert_frame_equal(u, v, check_exact=True)


def _start(kind, store):
    code = SETUP + f"\nrun({kind!r}, {str(store)!r})\n"
    return subprocess.Popen(
        [sys.executable, "-c", code],
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def _files(store, kind):
    return glob.glob(str(store / FILES[kind]))


@pytest.mark.parametrize("kind", sorted(FILES))
def test_kill_minus_9_at_any_moment_resumes_bit_for_bit(kind, tmp_path, monkeypatch):
    if kind == "pairwise":
        pytest.importorskip("pyarrow")
    import importlib

    mod = importlib.import_module("infometer.measures.multivariate.multiplets")
    monkeypatch.setattr(mod, "CHUNK_BYTES", mod.CHUNK_BYTES)  # put back after the test
    ns = _here()  # the child's code, chunk size included
    store = tmp_path / "s"
    # when: as soon as the folder appears (the identity being written), after the first
    # result, after a few more plus a little time (a result being written)
    moments = [(0, 0.0), (1, 0.0), (3, 0.021)]
    seen = []
    for at_least, delay in moments:
        proc = _start(kind, store)
        t0 = time.time()
        while not (store.exists() if at_least == 0 else len(_files(store, kind)) >= at_least):
            if proc.poll() is not None:
                pytest.fail(f"the run ended before it was killed: {proc.stderr.read()[-500:]}")
            assert time.time() - t0 < 240, "the run made no progress"
            time.sleep(0.005)
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        seen.append(len(_files(store, kind)))
    assert seen[-1] >= 3  # killed mid-run, with results kept
    resumed = ns["run"](kind, store)  # opens whatever the kills left, and finishes
    _same(ns["run"](kind, None), resumed)
    _same(resumed, ns["run"](kind, store))  # and again, from the store only


# ------------------------------------------------------------------ Ctrl-C on the CLI
def _procs_in_group(pgid):
    alive = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(d))
    return alive


def _cli(args, **kw):
    return [sys.executable, "-m", "infometer", *args]


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    d = tmp_path_factory.mktemp("tables")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 20))  # four chunks: sizes 3 and 4 one each, size 5 two
    x[:, 1] += x[:, 0]
    pd.DataFrame(x, columns=[f"v{i}" for i in range(20)]).to_csv(d / "m.csv", index=False)
    y = rng.normal(size=(1500, 8))
    for t in range(2, 1500):
        y[t] += 0.4 * y[t - 1]
        y[t, 1:] += 0.5 * y[t - 1, :-1]
    pd.DataFrame(y, columns=[f"s{i}" for i in range(8)]).to_csv(d / "n.csv", index=False)
    return d


COMMANDS = {
    "multiplets": (
        lambda t, s, o: (
            ["multiplets", str(t / "m.csv"), "--size", "3", "--max-size", "5"]
            + ["-B", "20", "-q", "--jobs", "2", "-o", str(o)]
            + (["--store", str(s)] if s else [])
        ),
        "chunks/*.npz",
        ["multiplets.csv"],
    ),
    "network": (
        lambda t, s, o: (
            ["network", str(t / "n.csv"), "--max-lag", "5", "--permutations", "1000"]
            + ["--no-progress", "-o", str(o)]
            + (["--store", str(s)] if s else [])
        ),
        "targets/*.json",
        ["edges.csv", "adjacency.csv", "targets.csv"],
    ),
}


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux)")
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_ctrl_c_on_the_cli_exits_130_with_one_line_and_resumes(command, tables, tmp_path):
    from typer.testing import CliRunner

    from infometer.cli.app import app

    argv, pattern, outputs = COMMANDS[command]
    store = tmp_path / "store"
    proc = subprocess.Popen(
        _cli(argv(tables, store, tmp_path / "o1")),
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    t0 = time.time()
    while not glob.glob(str(store / pattern)):
        if proc.poll() is not None:
            pytest.fail(f"{command} ended before Ctrl-C: {proc.stderr.read().decode()[-800:]}")
        assert time.time() - t0 < 240, "no result was stored"
        time.sleep(0.02)
    assert proc.poll() is None, f"{command} finished before it could be interrupted"
    os.kill(proc.pid, signal.SIGINT)  # what the terminal sends on Ctrl-C
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err.decode()
    assert err.decode() == "interrupted; run again to resume\n"
    t0 = time.time()
    while alive := _procs_in_group(proc.pid):  # workers, resource tracker: all gone
        assert time.time() - t0 < 20, f"left behind after Ctrl-C: {alive}"
        time.sleep(0.2)
    kept = len(glob.glob(str(store / pattern)))
    assert kept >= 1
    # the re-run resumes (from the kept results) to the bytes of an uninterrupted run
    again = subprocess.run(
        _cli(argv(tables, store, tmp_path / "o2")), env=_env(), capture_output=True, timeout=600
    )
    assert again.returncode == 0, again.stderr.decode()[-800:]
    ref = CliRunner().invoke(app, argv(tables, None, tmp_path / "ref"))
    assert ref.exit_code == 0, ref.output
    for name in outputs:
        assert (tmp_path / "o2" / name).read_bytes() == (tmp_path / "ref" / name).read_bytes()
