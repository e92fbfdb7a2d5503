"""The peer values behind tests/multivariate/test_broja_peers.py: BROJA atoms of fixed pmfs
computed by IDTxl's TartuPID (Makkeh, Theis & Vicente 2018: the exponential-cone program,
ECOS) and, where it is fast enough, dit's PID_BROJA with its conic solver, written to
``tests/multivariate/data/broja_peers.json``.  infometer is not imported: the file holds
peer values only.

Each peer lives in its own venv, so the script is run once per peer; the second run adds
its values to the file the first wrote (same cases: they are rebuilt from ``SEED``)::

    OPENBLAS_NUM_THREADS=1 /work/peers/idtxl/bin/python benchmarks/peers/broja_fixture.py tartu
    OPENBLAS_NUM_THREADS=1 /work/peers/dit/bin/python benchmarks/peers/broja_fixture.py dit

Cases: Dirichlet(1) pmfs from 2×2×2 to 8×8×8 (interior and boundary optima),
Dirichlet(0.1) pmfs with the cells below 1e-3/size set to 0 (zero rows and columns of the
(S1,T), (S2,T) marginals; optima with vanishing (s1, s2) columns), and the count tables
of samples (a noisy sum T = S1 + S2 + [u < 0.2] mod k, k = 2...8 symbols a source,
n = 10⁴; and sparse ones, n = 20 and 50).  A pmf is stored as its nonzero cells with the
exact float (``repr``); a count table as integers.  Atoms in bits: shared, unique S1,
unique S2, synergy.
"""

from __future__ import annotations

import json
import platform
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np

SEED = 20261206
OUT = Path(__file__).resolve().parents[2] / "tests" / "multivariate" / "data" / "broja_peers.json"
#: ECOS tolerances for Tartu (its defaults are 1e-8; tighter gives a better reference)
ECOS = {"abstol": 1e-12, "reltol": 1e-12, "feastol": 1e-12, "max_iters": 500}
#: dit's cone solve is slow past this many cells (all cases fit)
DIT_MAX_CELLS = 600


def cases() -> list[dict]:
    rng = np.random.default_rng(SEED)
    out = []
    for shape, count in [
        ((2, 2, 2), 3),
        ((3, 3, 2), 2),
        ((3, 3, 3), 3),
        ((4, 4, 4), 3),
        ((5, 3, 4), 2),
        ((6, 6, 6), 2),
        ((8, 8, 8), 2),
    ]:
        for i in range(count):
            p = rng.dirichlet(np.ones(int(np.prod(shape)))).reshape(shape)
            out.append({"name": f"dirichlet1 {'x'.join(map(str, shape))} #{i}", "pmf": p})
    for shape, count in [((3, 3, 3), 3), ((4, 4, 4), 3), ((6, 6, 6), 2), ((8, 8, 8), 1)]:
        for i in range(count):
            p = rng.dirichlet(np.full(int(np.prod(shape)), 0.1)).reshape(shape)
            p[p < 1e-3 / p.size] = 0.0
            out.append({"name": f"sparse {'x'.join(map(str, shape))} #{i}", "pmf": p / p.sum()})
    for k, n in [(2, 10_000), (3, 10_000), (4, 10_000), (6, 10_000), (8, 10_000), (5, 20), (8, 50)]:
        s = rng.integers(0, k, size=(n, 2))
        t = (s.sum(1) + (rng.random(n) < 0.2)) % k
        counts = np.zeros((k, k, k), dtype=np.int64)
        np.add.at(counts, (s[:, 0], s[:, 1], t), 1)
        out.append({"name": f"samples k={k} n={n}", "counts": counts})
    return out


def pmf_of(case: dict) -> np.ndarray:
    if "counts" in case:
        c = np.asarray(case["counts"], dtype=float)
        return c / c.sum()
    return case["pmf"]


def tartu(p: np.ndarray) -> list[float]:
    from idtxl import synergy_tartu

    pdf = {(t, a, b): float(p[a, b, t]) for a, b, t in np.ndindex(p.shape) if p[a, b, t] > 0}
    r = synergy_tartu.pid(pdf_dirty=pdf, cone_solver="ECOS", output=0, **ECOS)
    return [float(r["SI"]), float(r["UIY"]), float(r["UIZ"]), float(r["CI"])]


def dit_cone(p: np.ndarray) -> list[float]:
    import dit
    from dit.pid.measures.ibroja import PID_BROJA

    d = dit.Distribution.from_ndarray(p)
    u = PID_BROJA._measure(d, ((0,), (1,)), (2,), method="cone")
    i1 = dit.shannon.mutual_information(d, [0], [2])
    i12 = dit.shannon.mutual_information(d, [0, 1], [2])
    u1, u2 = float(u[(0,)]), float(u[(1,)])
    r = i1 - u1
    return [r, u1, u2, i12 - r - u1 - u2]


def _stored(case: dict) -> dict:
    if "counts" in case:
        return {"name": case["name"], "counts": np.asarray(case["counts"]).tolist()}
    p = case["pmf"]
    cells = [[int(a), int(b), int(t), float(p[a, b, t])] for a, b, t in np.argwhere(p > 0)]
    return {"name": case["name"], "shape": list(p.shape), "cells": cells}


def main() -> None:
    peer = sys.argv[1]
    old = json.loads(OUT.read_text()) if OUT.exists() else None
    rows = []
    for i, case in enumerate(cases()):
        row = old["cases"][i] if old else _stored(case)
        assert row["name"] == case["name"], "the cases changed: rebuild the file from scratch"
        p = pmf_of(case)
        if peer == "tartu":
            row["tartu_bits"] = tartu(p)
        elif int((p > 0).sum()) <= DIT_MAX_CELLS:
            row["dit_cone_bits"] = dit_cone(p)
        rows.append(row)
        print(case["name"], row.get("tartu_bits"), row.get("dit_cone_bits"), flush=True)
    meta = old["meta"] if old else {"seed": SEED, "command": {}, "versions": {}}
    cmd = "OPENBLAS_NUM_THREADS=1 /work/peers/{}/bin/python benchmarks/peers/broja_fixture.py {}"
    meta["command"][peer] = cmd.format("idtxl" if peer == "tartu" else "dit", peer)
    if peer == "tartu":
        meta["versions"]["tartu"] = f"idtxl-uv {version('idtxl-uv')}, ecos {version('ecos')}"
        meta["ecos_settings"] = ECOS
    else:
        meta["versions"]["dit"] = f"dit {version('dit')}, ecos {version('ecos')}"
    meta["python"] = platform.python_version()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"meta": meta, "cases": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
