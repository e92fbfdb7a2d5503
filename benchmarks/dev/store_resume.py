"""Resumable stores under fire (issue 36 §2): repeated kill -9 and Ctrl-C, and the cost.

    .venv/bin/python benchmarks/dev/store_resume.py kill 20   # SIGKILL at random moments
    .venv/bin/python benchmarks/dev/store_resume.py int 8     # SIGINT to the CLI
    .venv/bin/python benchmarks/dev/store_resume.py cost      # CPU of a store vs none

``kill``: for ``multiplets``, ``infer_network`` and ``pairwise`` (the runs of
tests/store/test_resume.py), N runs each SIGKILLed (with their process group) at a random
moment (after 0-6 stored results, plus 0-50 ms), each then resumed in this process and
compared bit for bit with a run without a store.  ``int``: N real SIGINTs to ``infometer
multiplets --store`` and ``infometer network --store`` at a random moment after the first
stored result: exit 130, the one line, no process left, and a re-run whose output files are
byte-identical to an uninterrupted run's.  ``cost``: a pairwise matrix of 210 small blocks
and a multiplet sweep, first run and resumed run, CPU and wall seconds.
"""

from __future__ import annotations

import glob
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def kill(n: int) -> None:
    from tests.store.test_resume import FILES, SETUP, _env, _same

    ns: dict = {}
    exec(compile(SETUP, "setup", "exec"), ns)  # noqa: S102 - the tests' runs
    rng = random.Random(12345)
    tmp = Path(tempfile.mkdtemp())
    for kind in sorted(FILES):
        ref, ok, kept = ns["run"](kind, None), 0, []
        for i in range(n):
            store = tmp / f"{kind}{i}"
            code = SETUP + f"\nrun({kind!r}, {str(store)!r})\n"
            p = subprocess.Popen(
                [sys.executable, "-c", code],
                env=_env(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            target, delay = rng.randint(0, 6), rng.random() * 0.05
            while p.poll() is None:
                have = len(glob.glob(str(store / FILES[kind])))
                if (target == 0 and store.exists()) or (target and have >= target):
                    break
                time.sleep(0.002)
            time.sleep(delay)
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
            kept.append(len(glob.glob(str(store / FILES[kind]))))
            try:
                _same(ref, ns["run"](kind, store))
                ok += 1
            except Exception as exc:  # noqa: BLE001 - reported
                print("FAIL", kind, i, type(exc).__name__, str(exc)[:200])
            shutil.rmtree(store)
        print(f"{kind}: {ok}/{n} resumed bit for bit; results kept at the kill: {sorted(kept)}")


def interrupt(n: int) -> None:
    import numpy as np
    import pandas as pd
    from tests.store.test_resume import COMMANDS, _env, _procs_in_group

    tables = Path(tempfile.mkdtemp())
    rng = np.random.default_rng(0)  # the tables of tests/store/test_resume.py
    x = rng.normal(size=(400, 20))
    x[:, 1] += x[:, 0]
    pd.DataFrame(x, columns=[f"v{i}" for i in range(20)]).to_csv(tables / "m.csv", index=False)
    y = rng.normal(size=(1500, 8))
    for t in range(2, 1500):
        y[t] += 0.4 * y[t - 1]
        y[t, 1:] += 0.5 * y[t - 1, :-1]
    pd.DataFrame(y, columns=[f"s{i}" for i in range(8)]).to_csv(tables / "n.csv", index=False)
    pick, base = random.Random(7), Path(tempfile.mkdtemp())
    cli = [sys.executable, "-m", "infometer"]
    for command, (argv, pattern, outputs) in COMMANDS.items():
        ref = base / f"{command}-ref"
        subprocess.run([*cli, *argv(tables, None, ref)], env=_env(), check=True)
        ok = 0
        for i in range(n):
            store, o = base / f"{command}{i}", base / f"{command}{i}-o"
            p = subprocess.Popen(
                [*cli, *argv(tables, store, o)],
                env=_env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
            while not glob.glob(str(store / pattern)) and p.poll() is None:
                time.sleep(0.01)
            time.sleep(pick.random() * 1.5)
            if p.poll() is not None:
                print(command, i, "finished before Ctrl-C")
                continue
            os.kill(p.pid, signal.SIGINT)
            _, err = p.communicate(timeout=600)
            t0 = time.time()
            while _procs_in_group(p.pid) and time.time() - t0 < 20:
                time.sleep(0.2)
            left = _procs_in_group(p.pid)
            r = subprocess.run([*cli, *argv(tables, store, o)], env=_env(), capture_output=True)
            same = r.returncode == 0 and all(
                (o / f).read_bytes() == (ref / f).read_bytes() for f in outputs
            )
            one = err.decode() == "interrupted; run again to resume\n"
            good = p.returncode == 130 and one and not left and same
            ok += good
            if not good:
                print("FAIL", command, i, p.returncode, repr(err.decode()[-300:]), left, same)
        print(f"{command}: {ok}/{n} exit 130, one line, nothing left, resumed byte-identical")


def cost() -> None:
    import numpy as np

    import infometer as im

    x = np.random.default_rng(0).normal(size=(300, 80))
    runs = {
        "pairwise (210 blocks)": lambda s: im.pairwise(
            x, method="gaussian_copula", block_size=4, n_jobs=1, store=s
        ),
        "multiplets (2 chunks)": lambda s: im.multiplets(
            x[:, :12], sizes=(3, 4), n_permutations=10, seed=0, store=s
        ),
    }
    for name, run in runs.items():
        run(None)
        for _ in range(3):
            d = tempfile.mkdtemp()
            t0, c0 = time.perf_counter(), time.process_time()
            run(d)
            t1, c1 = time.perf_counter(), time.process_time()
            run(d)
            t2, c2 = time.perf_counter(), time.process_time()
            print(
                f"{name}: first run {c1 - c0:.2f} s CPU ({t1 - t0:.2f} s wall); resumed "
                f"{c2 - c1:.2f} s CPU ({t2 - t1:.2f} s wall)"
            )
            shutil.rmtree(d)


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "kill":
        kill(int(sys.argv[2]))
    elif mode == "int":
        interrupt(int(sys.argv[2]))
    else:
        cost()
