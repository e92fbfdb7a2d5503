"""Peers as contenders, each in its own process, with no peer installed.

The driver runs under this test's own interpreter with fake peer modules on its path (a
fake ``antropy`` and ``dit``), and a fake interpreter script stands in for a peer that
crashes, hangs or answers; ``sklearn`` (a dependency of infometer) runs for real.  Every
failure is a stored status, never a stopped sweep.
"""

from __future__ import annotations

import math
import stat
import sys
import textwrap

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from infometer.cli import bench as bench_cli
from infometer.measures import truth
from infometer.workflows.bench import Job, Store, peers, plan, run_job


def _script(path, body):
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


@pytest.fixture
def fake_modules(tmp_path):
    """A folder with fake ``antropy`` (answers in bits) and ``dit`` (raises) modules, and an
    interpreter script that runs this Python with that folder on its path."""
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / "antropy.py").write_text(
        "def perm_entropy(x, order, delay, normalize):\n"
        "    assert (order, delay, normalize) == (3, 1, False)\n"
        "    return 2.0  # bits\n"
    )
    (mods / "dit.py").write_text(
        "class Distribution:\n"
        "    @staticmethod\n"
        "    def from_ndarray(a):\n"
        "        raise RuntimeError('fake dit refuses')\n"
    )
    return _script(tmp_path / "fakepy", f'PYTHONPATH={mods} exec {sys.executable} "$@"\n')


def test_the_driver_speaks_the_peers_units(fake_modules):
    task = truth.get_task("white-permutation-m3")
    r = peers.run_peer("antropy", task, task.sample(300, seed=0), 0, python=fake_modules)
    assert r.status == "ok", r.message
    assert r.value == pytest.approx(2.0 * math.log(2.0))  # bits -> nats
    assert r.cpu_s is not None and r.cpu_s >= 0 and r.startup_s >= 0


def test_a_peer_that_raises_is_an_error_row(fake_modules):
    task = truth.get_task("xor3-oinfo")
    r = peers.run_peer("dit", task, task.sample(100, seed=0), 0, python=fake_modules)
    assert r.status == "error" and "fake dit refuses" in r.message and r.value is None


def test_a_peer_module_that_is_absent_is_peer_missing():
    task = truth.get_task("white-permutation-m3")
    r = peers.run_peer("ordpy", task, task.sample(100, seed=0), 0, python=sys.executable)
    if r.status == "ok":  # ordpy happens to be installed here
        pytest.skip("ordpy is installed in this environment")
    assert r.status == "peer-missing" and "ordpy" in r.message


def test_sklearn_in_its_own_process_equals_sklearn_here():
    from sklearn.feature_selection import mutual_info_regression

    task = truth.get_task("1v1-normal-0.75")
    data = task.sample(400, seed=3)
    r = peers.run_peer("sklearn", task, data, 3, python=sys.executable)
    assert r.status == "ok", r.message
    here = mutual_info_regression(data["x"], data["y"].ravel(), n_neighbors=3, random_state=3)
    assert r.value == pytest.approx(float(here[0]), abs=1e-12)


def test_crash_hang_and_missing_interpreters_are_statuses(tmp_path, monkeypatch):
    task = truth.get_task("1v1-normal-0.75")
    data = task.sample(50, seed=0)
    crash = _script(tmp_path / "crash", "echo 'segfault in the peer' >&2\nexit 139\n")
    r = peers.run_peer("sklearn", task, data, 0, python=crash)
    assert r.status == "peer-crashed" and "139" in r.message and "segfault" in r.message
    hang = _script(tmp_path / "hang", "sleep 30\n")
    r = peers.run_peer("sklearn", task, data, 0, python=hang, timeout=1.0)
    assert r.status == "peer-timeout" and r.total_s < 20
    r = peers.run_peer("sklearn", task, data, 0, python=str(tmp_path / "absent"))
    assert r.status == "peer-missing"
    monkeypatch.delenv("INFOMETER_PEER_PYTHON_SKLEARN", raising=False)
    monkeypatch.delenv("INFOMETER_PEER_DIR", raising=False)
    r = peers.run_peer("sklearn", task, data, 0)
    assert r.status == "peer-missing" and "INFOMETER_PEER_PYTHON_SKLEARN" in r.message


def test_supports_names_why_a_peer_does_not_apply():
    assert peers.supports("dit", truth.get_task("xor3-oinfo")) is None
    assert "symbols" in peers.supports("dit", truth.get_task("gauss3-redundant-oinfo"))
    assert "no network" in peers.supports("dit", truth.get_task("var4-3links"))
    assert peers.supports("tigramite", truth.get_task("var4-3links")) is None
    assert "r = 0.2" in peers.supports("antropy", truth.get_task("white-sample-r0.1-m2"))
    assert "mmi" in peers.supports("idtxl", truth.get_task("pid-xor-mmi-syn"))
    with pytest.raises(ValueError, match="unknown peer"):
        peers.peer_name("peer:nonesuch")


def test_peer_dir_layout(tmp_path, monkeypatch):
    monkeypatch.delenv("INFOMETER_PEER_PYTHON_JIDT", raising=False)
    (tmp_path / "idtxl" / "bin").mkdir(parents=True)
    _script(tmp_path / "idtxl" / "bin" / "python", "exit 0\n")
    monkeypatch.setenv("INFOMETER_PEER_DIR", str(tmp_path))
    assert peers.peer_python("jidt") == str(tmp_path / "idtxl" / "bin" / "python")
    assert peers.peer_python("dit") is None


def test_runs_and_failures_in_the_store(tmp_path, monkeypatch, fake_modules):
    monkeypatch.setenv("INFOMETER_PEER_PYTHON_SKLEARN", sys.executable)
    monkeypatch.setenv("INFOMETER_PEER_PYTHON_DIT", fake_modules)
    monkeypatch.setenv("INFOMETER_PEER_PYTHON_ANTROPY", str(tmp_path / "absent"))
    ok = run_job(Job("1v1-normal-0.75", "peer:sklearn", 300, 0))
    assert ok["status"] == "ok" and ok["resolved_method"].startswith("sklearn ")
    assert ok["error"] == pytest.approx(ok["estimate"] - ok["truth"])
    assert ok["diagnostics"]["cpu_s"] >= 0
    bad = run_job(Job("xor3-oinfo", "peer:dit", 300, 0))
    assert bad["status"] == "error" and "fake dit refuses" in bad["message"]
    missing = run_job(Job("white-permutation-m3", "peer:antropy", 300, 0))
    assert missing["status"] == "peer-missing"
    jobs, skipped = plan(
        [truth.get_task("gauss3-redundant-oinfo")], ["peer:dit", "gaussian"], [100], [0]
    )
    assert [j.method for j in jobs] == ["gaussian"]
    assert skipped[0][1] == "peer:dit" and "symbols" in skipped[0][2]


def test_network_peer_scored_by_its_edges(tmp_path, monkeypatch):
    task = truth.get_task("var4-3links")
    answer = tmp_path / "answer.py"  # a fake interpreter that answers the true graph
    edges = [list(e) for e in task.extra["edges"]] + [[0, 0, 1]]  # a self-link is ignored
    answer.write_text(
        "import json, sys\n"
        f"json.dump({{'edges': {edges}, 'cpu_s': 0.0, 'version': 'fake'}}, "
        "open(sys.argv[-1], 'w'))\n"
    )
    fake = _script(tmp_path / "net", f'exec {sys.executable} {answer} "$@"\n')
    monkeypatch.setenv("INFOMETER_PEER_PYTHON_TIGRAMITE", fake)
    row = run_job(Job("var4-3links", "peer:tigramite", 200, 0))
    assert row["status"] == "ok" and row["estimate"] == 1.0 and row["error"] == 0.0
    assert row["diagnostics"]["recall"] == 1.0 and row["diagnostics"]["fpr"] == 0.0


def test_cli_peers_option(tmp_path, fake_modules):
    app = typer.Typer()
    bench_cli.register(app)
    out = tmp_path / "b"
    peer_spec = f"antropy={fake_modules},ordpy={tmp_path / 'no'}"
    args = ["bench", "--suite", "complexity", "--tasks", "white-permutation-m3", "-e",
            "permutation", "--n", "300", "--seeds", "1", "--out", str(out), "--jobs", "1",
            "-q", "--peers", peer_spec]  # fmt: skip
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "ordpy" in r.output and "peer-missing" in r.output
    with Store(out) as st:
        rows = {row["method"]: row for row in st.rows()}
    assert rows["peer:antropy"]["status"] == "ok"
    assert rows["peer:antropy"]["estimate"] == pytest.approx(2 * math.log(2))
    assert rows["peer:ordpy"]["status"] == "peer-missing"
    assert np.isfinite(rows["permutation"]["estimate"])
    r = CliRunner().invoke(app, args[:-1] + ["nonesuch"])
    assert r.exit_code == 2 and "unknown peer" in r.output
