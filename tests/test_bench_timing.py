"""The benchmark timing harness (benchmarks/_timing.py): order, accounting, the table.

These check the harness's bookkeeping, not anybody's speed: no assertion depends on how
fast this machine is (only lower bounds of CPU time a child provably spent).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "_timing.py"
_spec = importlib.util.spec_from_file_location("bench_timing", _PATH)
T = importlib.util.module_from_spec(_spec)
sys.modules["bench_timing"] = T
_spec.loader.exec_module(T)


def test_round_robin_order_after_warmups():
    calls: list[str] = []

    def cand(name: str):
        return T.Candidate(name, lambda: calls.append(name) or 1.0)

    res = T.interleave([cand("A"), cand("B"), cand("C")], 3, log=lambda _: None)
    assert calls == ["A", "B", "C"] + ["A", "B", "C"] * 3  # warm-ups, then 3 rounds
    assert all(t.n == 3 and len(t.loads) == 3 for t in res.values())


def test_no_warmup_and_slow_contender_runs_once():
    calls: list[str] = []
    slow = T.Candidate("slow", lambda: calls.append("slow"), warmup=False)
    res = T.interleave([slow], 3, slow_s=-1.0, log=lambda _: None)  # every run is "slow"
    assert calls == ["slow"] and res["slow"].n == 1


def test_failing_contender_is_recorded_and_others_go_on():
    def boom():
        raise RuntimeError("peer broke")

    res = T.interleave(
        [T.Candidate("ok", lambda: 2.0), T.Candidate("bad", boom)], 3, log=lambda _: None
    )
    assert res["ok"].n == 3 and res["ok"].value == 2.0
    assert res["bad"].n == 0 and "peer broke" in res["bad"].error
    assert "peer broke" in T.table(res, ref="ok")


def test_child_process_cpu_is_counted():
    # the child spins until it has used 0.3 s of CPU: the harness must charge at least that
    code = "import time\nwhile time.process_time() < 0.3: pass"
    m = T.measure(lambda: subprocess.run([sys.executable, "-c", code], check=True))
    assert m.cpu >= 0.3
    assert m.wall > 0


def test_self_timed_contender_keeps_its_own_numbers():
    res = T.interleave(
        [T.Candidate("s", lambda: T.Measured(5.0, 4.0, "v", {"k": 1}))], 3, log=lambda _: None
    )
    t = res["s"]
    assert t.walls == [5.0] * 3 and t.cpus == [4.0] * 3 and t.extras == [{"k": 1}] * 3


def test_table_ratios_are_ratios_of_minima_with_spread():
    base = T.Timing("ours", walls=[1.0, 5.0, 5.0], cpus=[0.5, 0.6, 0.7], loads=[1, 1, 1])
    peer = T.Timing("peer", walls=[3.0, 2.0, 4.0], cpus=[2.0, 2.5, 3.0], loads=[1, 1, 1])
    zero = T.Timing("zero", walls=[0.0, 0.0, 0.0], cpus=[0.0, 0.0, 0.0], loads=[1, 1, 1])
    text = T.table({"ours": base, "peer": peer}, ref="ours")
    row = next(line for line in text.splitlines() if line.startswith("| peer"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "3"  # runs
    assert cells[2] == "2.000" and cells[3] == "3.000"  # min and median wall
    assert cells[4] == "2.000–4.000"  # spread
    assert cells[8] == "2.0x" and cells[9] == "4.0x"  # 2/1 wall, 2/0.5 CPU
    # microseconds keep three significant digits rather than reading 0.000
    fast = T.Timing("fast", walls=[3.25e-5, 4e-5], cpus=[3.1e-5, 3.9e-5], loads=[1, 1])
    cells = [c.strip() for c in T.table({"fast": fast}).splitlines()[2].strip("|").split("|")]
    assert cells[2] == "3.25e-05" and cells[5] == "3.1e-05"
    # a reference with zero time gives no ratio rather than a ZeroDivisionError
    assert "–" in T.table({"zero": zero, "peer": peer}, ref="zero")


def test_record_has_machine_load_and_command():
    run = T.Run(["numpy"])
    run.finish()
    head = run.header()
    for word in ("Command:", "Date:", "cores", "numpy", "load average before", "after"):
        assert word in head
    assert run.meta["cores"] >= 1 and len(run.meta["load_after"]) == 3


def test_repeats_must_be_positive():
    with pytest.raises(ValueError, match="repeats"):
        T.interleave([T.Candidate("a", lambda: 0)], 0)
