import math
import sqlite3

import pytest

from infometer.core import api
from infometer.measures import truth
from infometer.workflows.bench import Job, Store, applicable, plan, run_job, run_sweep, suite_tasks
from infometer.workflows.bench.suites import SUITES

TASKS = ["symchannel-1pair-V2-0.5nat", "table-4x5-dirichlet", "zipf-100"]


def _tasks():
    return [truth.get_task(t) for t in TASKS]


def test_store_roundtrip_and_keys(tmp_path):
    with Store(tmp_path) as st:
        row = run_job(Job("zipf-100", "plugin", 300, 1))
        st.add(row)
        st.add(row)  # same key: replaced, not duplicated
        assert st.count() == 1
        assert st.done_keys() == {("zipf-100", "plugin", 300, 1)}
        st.set_meta({"suite": "x", "ns": [1, 2]})
        assert st.meta() == {"suite": "x", "ns": [1, 2]}
        with pytest.raises(ValueError, match="missing"):
            st.add({"task": "a"})
    with Store(tmp_path) as st:  # reopened
        (r,) = st.rows()
        assert r["status"] == "ok" and r["tags"] == ["discrete"]
        assert st.integrity_ok()


def test_run_job_records_truth_error_time_memory():
    row = run_job(Job("table-4x5-dirichlet", "plugin", 2000, 3))
    t = truth.get_task("table-4x5-dirichlet")
    assert row["status"] == "ok" and row["resolved_method"] == "plugin"
    assert row["truth"] == t.truth
    assert row["error"] == pytest.approx(row["estimate"] - t.truth, abs=1e-15)
    # plug-in bias ~ (4-1)(5-1)/(2N) = 0.003, sd ~ 0.015: |err| < 0.1 is > 6 sd
    assert abs(row["error"]) < 0.1
    assert row["wall_s"] > 0 and row["peak_mem_mb"] > 0
    assert row["version"] and row["finished_at"]
    # the same data/estimate through the public API
    data = t.sample(2000, seed=3)
    assert api.estimate("mutual_info", data, method="plugin", seed=3).value == row["estimate"]


def test_run_job_records_failures(monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("estimator exploded")

    monkeypatch.setattr(api, "estimate", boom)
    row = run_job(Job("zipf-100", "plugin", 100, 0))
    assert row["status"] == "error" and "exploded" in row["message"]
    assert row.get("estimate") is None


def test_plan_skips_inapplicable_pairs():
    tasks = [truth.get_task("1v1-normal-0.75"), truth.get_task("zipf-100")]
    jobs, skipped = plan(tasks, ["plugin", "auto"], [100, 200], [0, 1, 2])
    assert ("1v1-normal-0.75", "plugin") in {(t, m) for t, m, _ in skipped}
    assert all(j.task != "1v1-normal-0.75" or j.method != "plugin" for j in jobs)
    assert len({j.key for j in jobs}) == len(jobs)
    assert applicable(truth.get_task("zipf-100"), "no_such_method") is not None
    # every suite resolves to registered tasks
    for name in SUITES:
        assert suite_tasks(name)
    with pytest.raises(ValueError, match="suite"):
        suite_tasks("nope")


@pytest.mark.slow
def test_sweep_resumes_and_pool_equals_serial(tmp_path):
    jobs, _ = plan(_tasks(), ["plugin", "miller_madow"], [300], [0, 1])
    with Store(tmp_path / "serial") as st:
        r1 = run_sweep(jobs[:5], st, workers=1, progress=False)
        assert (r1.ran, r1.already_done) == (5, 0)
        r2 = run_sweep(jobs, st, workers=1, progress=False)
        assert (r2.ran, r2.already_done) == (len(jobs) - 5, 5)
        r3 = run_sweep(jobs, st, workers=1, progress=False)
        assert r3.ran == 0 and r3.already_done == len(jobs)
        serial = {(r["task"], r["method"], r["n"], r["seed"]): r["estimate"] for r in st.rows()}
    with Store(tmp_path / "pool") as st:
        res = run_sweep(jobs, st, workers=2, progress=False)
        assert res.ran == len(jobs) and res.failed == 0
        pool = {(r["task"], r["method"], r["n"], r["seed"]): r["estimate"] for r in st.rows()}
    assert pool == serial
    assert all(math.isfinite(v) for v in pool.values())


def test_store_is_a_real_sqlite_database(tmp_path):
    jobs, _ = plan(_tasks()[:1], ["plugin"], [100], [0])
    with Store(tmp_path) as st:
        run_sweep(jobs, st, workers=1, progress=False)
    con = sqlite3.connect(tmp_path / "results.sqlite")
    assert con.execute("SELECT COUNT(*) FROM runs WHERE status='ok'").fetchone()[0] == 1
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()
