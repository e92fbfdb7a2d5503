"""infometer's multivariate family against dit (PID measures, TC/DTC/O/S/co-information on
pmfs), hoi (Gaussian-copula O-information over every multiplet, JAX on CPU), IDTxl
(its SxPID estimator, Makkeh, Gutknecht & Wibral's shared-exclusion PID, against our isx;
its Tartu and Sydney BROJA estimators against our broja) and frites (its Gaussian-copula
MMI PID and interaction information of every pair of regions).

The peers live in their own virtual environments (never a runtime dependency); run this
script with their interpreter and infometer from the source tree:

    PYTHONPATH=src OPENBLAS_NUM_THREADS=1 /work/peers-24/bin/python \
        benchmarks/peers/multivariate.py [--quick]              # dit and hoi
    XLA_FLAGS=--xla_cpu_multi_thread_eigen=false NUMBA_NUM_THREADS=1 PYTHONPATH=src \
        OPENBLAS_NUM_THREADS=1 /work/peers/hoi/bin/python benchmarks/peers/multivariate.py \
        --part hoi                                             # the multiplet sweeps alone
    PYTHONPATH=src OPENBLAS_NUM_THREADS=1 /work/peers-25/bin/python \
        benchmarks/peers/multivariate.py --part idtxl [--quick]  # IDTxl's SxPID
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 PYTHONPATH=src \
        /work/peers/idtxl/bin/python benchmarks/peers/multivariate.py --part idtxl-broja \
        [--before REF]     # IDTxl's Tartu/Sydney BROJA (its venv holds ecos and numba);
                           # --before: also the BROJA solver committed at git REF
    PYTHONPATH=src OPENBLAS_NUM_THREADS=1 /work/peers-24/bin/python \
        benchmarks/peers/multivariate.py --part frites       # frites' conn_pid / conn_ii

Values: the largest absolute difference over random pmfs (Dirichlet(1)) of every atom /
quantity, in bits.  Times: interleaved runs (benchmarks/_timing.py), wall and CPU.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _timing import Candidate, Run, interleave  # noqa: E402

import infometer as im  # noqa: E402
from infometer.measures import exact  # noqa: E402
from infometer.measures.multivariate import _pid  # noqa: E402

LN2 = np.log(2.0)
DIT_PID = {
    "imin": "PID_WB",
    "mmi": "PID_MMI",
    "broja": "PID_BROJA",
    "ccs": "PID_CCS",
    "dep": "PID_dep",
    "isx": "PID_SX",
}


def _dit_dist(p):
    import dit

    return dit.Distribution.from_ndarray(p)


def _dit_pid(p, measure):
    import dit.pid

    m = p.ndim - 1
    d = _dit_dist(p)
    r = getattr(dit.pid, DIT_PID[measure])(d, [[i] for i in range(m)], [m])
    return {frozenset(frozenset(s) for s in node): float(r.get_pi(node)) for node in r._lattice}


def _dit_broja_cone(p):
    """dit's BROJA unique informations by its exact conic solver (ECOS), in bits."""
    from dit.pid.measures.ibroja import PID_BROJA

    u = PID_BROJA._measure(_dit_dist(p), ((0,), (1,)), (2,), method="cone")
    return [float(u[(0,)]), float(u[(1,)])]


def _ours_pid(p, measure):
    r = exact.pid(p, measure=measure, unit="bits")
    nodes = {_pid.label(a): frozenset(a) for a in _pid.lattice(p.ndim - 1)}
    return {nodes[lab]: e.value for lab, e in zip(r.labels, r.atoms, strict=True)}


def pid_vs_dit(n_pmfs: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    shapes = [(2, 2, 2), (3, 3, 2), (2, 2, 2, 2)]
    for shape in shapes:
        pmfs = [rng.dirichlet(np.ones(int(np.prod(shape)))).reshape(shape) for _ in range(n_pmfs)]
        for measure in DIT_PID:
            if len(shape) > 3 and measure in _pid.TWO_SOURCE_MEASURES:
                continue
            worst, err, lower = 0.0, None, 0
            cone_worst, cone_err = 0.0, None
            u0 = frozenset({frozenset({0})})
            for p in pmfs:
                try:
                    a, b = _ours_pid(p, measure), _dit_pid(p, measure)
                except Exception as e:  # noqa: BLE001 - a peer failure is reported
                    err = f"{type(e).__name__}: {e}"[:80]
                    continue
                worst = max(worst, max(abs(a[k] - b[k]) for k in a))
                # BROJA's unique information is a minimum: the lower one is the better solve
                lower += a[u0] <= b[u0] + 1e-9
                if measure == "broja":
                    try:
                        cone = _dit_broja_cone(p)
                    except Exception as e:  # noqa: BLE001 - ECOS missing
                        cone_err = f"{type(e).__name__}"
                    else:
                        ours_u = [a[u0], a[frozenset({frozenset({1})})]]
                        cone_worst = max(
                            cone_worst, *(abs(x - y) for x, y in zip(ours_u, cone, strict=True))
                        )
            t = interleave(
                [
                    Candidate("infometer", lambda p=pmfs[0], m=measure: _ours_pid(p, m)),
                    Candidate("dit", lambda p=pmfs[0], m=measure: _dit_pid(p, m)),
                ],
                repeats=3,
                log=lambda s: None,
            )
            rows.append(
                {
                    "shape": "x".join(map(str, shape)),
                    "measure": measure,
                    "max_abs_diff_bits": worst,
                    "ours_s": t["infometer"].stat("wall", "min"),
                    "dit_s": t["dit"].stat("wall", "min"),
                    "ours_cpu": t["infometer"].stat("cpu", "min"),
                    "dit_cpu": t["dit"].stat("cpu", "min"),
                    "error": err,
                    "ours_unique_le_dit": f"{lower}/{len(pmfs)}",
                    "max_abs_diff_vs_dit_cone_bits": cone_err or cone_worst,
                }
            )
            print(rows[-1], file=sys.stderr, flush=True)
    return rows


def multi_vs_dit(n_pmfs: int, seed: int) -> list[dict]:
    import dit.multivariate as dm

    rng = np.random.default_rng(seed)
    peer = {
        "total_correlation": dm.total_correlation,
        "dual_total_correlation": dm.dual_total_correlation,
        "o_information": dm.o_information,
        "s_information": dm.s_information,
        "co_information": dm.coinformation,
    }
    rows = []
    for shape in [(2, 3, 2), (2, 2, 3, 2)]:
        pmfs = [rng.dirichlet(np.ones(int(np.prod(shape)))).reshape(shape) for _ in range(n_pmfs)]
        for q, f in peer.items():
            worst = max(
                abs(getattr(exact, q)(p, unit="bits").value - f(_dit_dist(p))) for p in pmfs
            )
            rows.append(
                {"shape": "x".join(map(str, shape)), "quantity": q, "max_abs_diff_bits": worst}
            )
    return rows


def multiplets_vs_hoi(cases, repeats: int, seed: int) -> list[dict]:
    from hoi.metrics import Oinfo

    rows = []
    for n, d, size in cases:
        x = np.random.default_rng(seed).normal(size=(n, d))
        x[:, 1] += x[:, 0]  # some structure so that values are not all ~0
        x[:, 2] = x[:, 3] + x[:, 4] + 0.5 * x[:, 2]

        def ours(x=x, size=size):
            return im.multiplets(x, sizes=size, progress=False, unit="bits")

        def theirs(x=x, size=size):
            model = Oinfo(x, verbose=False)
            out = model.fit(minsize=size, maxsize=size, method="gc")
            return model, out

        r = ours()
        model, h = theirs()
        ref = {
            tuple(int(c[1:]) for c in m): v
            for m, v in zip(r.frame["multiplet"], r.frame["value"], strict=True)
        }
        mult = [tuple(int(i) for i in row if i >= 0) for row in model.multiplets]
        diffs = np.array([abs(ref[m] - float(v)) for m, v in zip(mult, h[:, 0], strict=True)])
        scale = max(abs(v) for v in ref.values())
        t = interleave(
            [
                Candidate("infometer", lambda: len(ours().frame)),
                Candidate("hoi", lambda: len(theirs()[1])),
            ],
            repeats=repeats,
            log=lambda s: print(s, file=sys.stderr, flush=True),
        )
        rows.append(
            {
                "n": n,
                "d": d,
                "size": size,
                "multiplets": len(ref),
                "max_abs_diff_bits": float(diffs.max()),
                "max_abs_value_bits": float(scale),
                "ours_wall": t["infometer"].stat("wall", "min"),
                "hoi_wall": t["hoi"].stat("wall", "min"),
                "ours_cpu": t["infometer"].stat("cpu", "min"),
                "hoi_cpu": t["hoi"].stat("cpu", "min"),
                "loads": t["infometer"].loads + t["hoi"].loads,
            }
        )
        print(rows[-1], file=sys.stderr, flush=True)
    return rows


def hoi_in_float64(case, seed: int) -> float:
    """Max |ours - hoi| (bits) on the first case with JAX in float64 (hoi's default is
    float32, whose rounding over 10^4 rows is the ~1e-5 of the timed runs)."""
    import jax
    from hoi.metrics import Oinfo

    jax.config.update("jax_enable_x64", True)
    n, d, size = case
    x = np.random.default_rng(seed).normal(size=(n, d))
    x[:, 1] += x[:, 0]
    x[:, 2] = x[:, 3] + x[:, 4] + 0.5 * x[:, 2]
    r = im.multiplets(x, sizes=size, progress=False, unit="bits")
    ref = {
        tuple(int(c[1:]) for c in m): v
        for m, v in zip(r.frame["multiplet"], r.frame["value"], strict=True)
    }
    model = Oinfo(x, verbose=False)
    h = np.asarray(model.fit(minsize=size, maxsize=size, method="gc"), dtype=np.float64)
    mult = [tuple(int(i) for i in row if i >= 0) for row in model.multiplets]
    return float(max(abs(ref[m] - v) for m, v in zip(mult, h[:, 0], strict=True)))


def _idtxl_avg_to_ours(avg: dict) -> dict:
    """IDTxl's averaged SxPID ``{((1,), (2,)): (informative, misinformative, net)}``
    (1-based sources, bits) -> ``{antichain of 0-based frozensets: net}``."""
    return {
        frozenset(frozenset(i - 1 for i in a) for a in alpha): float(v[2])
        for alpha, v in avg.items()
    }


def _idtxl_pmf(p: np.ndarray) -> dict:
    from idtxl import lattices as lt
    from idtxl import pid_goettingen

    m = p.ndim - 1
    pdf = {idx: float(p[idx]) for idx in np.ndindex(p.shape) if p[idx] > 0}
    _, avg = pid_goettingen.pid(
        m, pdf_orig=pdf, chld=lt.lattices[m][0], achain=lt.lattices[m][1], printing=False
    )
    return _idtxl_avg_to_ours(avg)


def _idtxl_samples(s: np.ndarray, t: np.ndarray) -> dict:
    from idtxl.estimators_multivariate_pid import SxPID

    res = SxPID({}).estimate([s[:, j].copy() for j in range(s.shape[1])], t.copy())
    return _idtxl_avg_to_ours(res["avg"])


def _ours_isx_samples(s: np.ndarray, t: np.ndarray) -> dict:
    r = im.pid(s, t, measure="isx", method="plugin", unit="bits", discrete=True)
    nodes = {_pid.label(a): frozenset(a) for a in _pid.lattice(s.shape[1])}
    return {nodes[lab]: e.value for lab, e in zip(r.labels, r.atoms, strict=True)}


def _max_diff(a: dict, b: dict) -> float:
    if set(a) != set(b):
        raise AssertionError("the two lattices differ")
    return max(abs(a[k] - b[k]) for k in a)


def sxpid_vs_idtxl(n_pmfs: int, seed: int, repeats: int) -> list[dict]:
    """isx (ours) vs IDTxl's SxPID on random pmfs and on discrete samples."""
    rng = np.random.default_rng(seed)
    rows = []
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    for shape in [(2, 2, 2), (3, 3, 3), (4, 4, 4), (2, 2, 2, 2), (3, 3, 3, 2)]:
        pmfs = [rng.dirichlet(np.ones(int(np.prod(shape)))).reshape(shape) for _ in range(n_pmfs)]
        diff = max(_max_diff(_ours_pid(p, "isx"), _idtxl_pmf(p)) for p in pmfs)
        t = interleave(
            [
                Candidate("infometer", lambda pmfs=pmfs: len([_ours_pid(p, "isx") for p in pmfs])),
                Candidate("idtxl", lambda pmfs=pmfs: len([_idtxl_pmf(p) for p in pmfs])),
            ],
            repeats=repeats,
            log=log,
        )
        rows.append(_sx_row("pmf " + "x".join(map(str, shape)), len(shape) - 1, diff, t, n_pmfs))
    for m, k, n in [(2, 3, 1000), (2, 4, 10_000), (3, 3, 1000), (3, 3, 10_000)]:
        data = []
        for _ in range(max(2, n_pmfs // 4)):
            s = rng.integers(0, k, size=(n, m))
            t_ = (s.sum(1) + (rng.random(n) < 0.2)) % k  # a noisy sum: synergy + redundancy
            data.append((s, t_))
        diff = max(_max_diff(_ours_isx_samples(s, t_), _idtxl_samples(s, t_)) for s, t_ in data)
        t = interleave(
            [
                Candidate(
                    "infometer", lambda data=data: len([_ours_isx_samples(*d) for d in data])
                ),
                Candidate("idtxl", lambda data=data: len([_idtxl_samples(*d) for d in data])),
            ],
            repeats=repeats,
            log=log,
        )
        rows.append(_sx_row(f"samples n={n}, k={k}", m, diff, t, len(data)))
    return rows


BROJA_KEYS = ("{0}{1}", "{0}", "{1}", "{01}")  # shared, unique S1, unique S2, synergy


def _ours_broja_pmf(p: np.ndarray) -> list[float]:
    """Our BROJA atoms of a pmf ``p[s1, s2, t]`` in bits, in BROJA_KEYS order."""
    r = exact.pid(p, measure="broja", unit="bits")
    d = {lab: e.value for lab, e in zip(r.labels, r.atoms, strict=True)}
    return [d[k] for k in BROJA_KEYS]


def _tartu_pmf(p: np.ndarray) -> list[float]:
    """IDTxl's Tartu BROJA (Makkeh et al. 2018, exponential cone via ECOS) of ``p``."""
    from idtxl import synergy_tartu

    pdf = {(t, a, b): float(p[a, b, t]) for a, b, t in np.ndindex(p.shape) if p[a, b, t] > 0}
    r = synergy_tartu.pid(pdf_dirty=pdf, cone_solver="ECOS", output=0, keep_solver_object=False)
    return [float(r["SI"]), float(r["UIY"]), float(r["UIZ"]), float(r["CI"])]


def _ours_broja_samples(s: np.ndarray, t: np.ndarray) -> list[float]:
    r = im.pid(s, t, measure="broja", method="plugin", unit="bits", discrete=True)
    d = {lab: e.value for lab, e in zip(r.labels, r.atoms, strict=True)}
    return [d[k] for k in BROJA_KEYS]


def _idtxl_broja_samples(s: np.ndarray, t: np.ndarray, which: str) -> list[float]:
    from idtxl.estimators_pid import SydneyPID, TartuPID

    if which == "tartu":
        est = TartuPID({})
    else:  # the settings of IDTxl's own documentation example
        k = int(max(s.max(), t.max())) + 1
        est = SydneyPID(
            {
                "alph_s1": k,
                "alph_s2": k,
                "alph_t": k,
                "max_unsuc_swaps_row_parm": 60,
                "num_reps": 63,
                "max_iters": 1000,
            }
        )
    r = est.estimate(s[:, 0].copy(), s[:, 1].copy(), t.copy())
    return [float(r[k]) for k in ("shd_s1_s2", "unq_s1", "unq_s2", "syn_s1_s2")]


def _solver_at(ref: str):
    """``broja_unique`` of ``measures/multivariate/_broja.py`` as committed at git ``ref``
    (the "before" of a comparison, loaded beside the current solver; that version's module
    must import only numpy and scipy, as main's barrier-Newton solver of 2026-12-06 does)."""
    import subprocess
    import types

    path = "src/infometer/measures/multivariate/_broja.py"
    root = Path(__file__).resolve().parents[2]
    text = subprocess.run(
        ["git", "show", f"{ref}:{path}"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    mod = types.ModuleType(f"broja_at_{ref}")
    exec(compile(text, f"{ref}:{path}", "exec"), mod.__dict__)  # noqa: S102 - our own file
    return mod.broja_unique


def _with_solver(solver, fn):
    """``fn`` run with ``solver`` as the BROJA unique-information solver of the PID."""

    def run():
        keep = _pid._broja_unique
        _pid._broja_unique = solver
        try:
            return fn()
        finally:
            _pid._broja_unique = keep

    return run


def _gap(a: list[float], b: list[float]) -> float:
    return float(np.max(np.abs(np.subtract(a, b))))


def broja_vs_idtxl(n_pmfs: int, seed: int, repeats: int, before: str | None = None) -> list[dict]:
    """measure='broja' (ours) vs IDTxl's TartuPID (pmfs and samples with 2-8 symbols a
    source) and SydneyPID (samples); ``before``: also the solver committed at that git ref."""
    rng = np.random.default_rng(seed)
    old = _solver_at(before) if before else None
    rows = []
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731

    def contenders(ours, peer):
        c = [Candidate("infometer", ours), Candidate("idtxl", peer)]
        if old is not None:
            c.insert(1, Candidate("before", _with_solver(old, ours)))
        return c

    def row(case, diff, t, calls, diff_before=None):
        r = _sx_row(case, 2, diff, t, calls)
        if "before" in t:
            r["before_cpu"] = t["before"].stat("cpu", "min") / calls
            r["before_diff_bits"] = diff_before
        return r

    for shape in [(2, 2, 2), (3, 3, 2), (3, 3, 3), (4, 4, 4), (6, 6, 6), (8, 8, 8)]:
        count = n_pmfs if shape[0] <= 4 else max(2, n_pmfs // 5)  # the large ones: fewer
        pmfs = [rng.dirichlet(np.ones(int(np.prod(shape)))).reshape(shape) for _ in range(count)]
        diff = max(_gap(_ours_broja_pmf(p), _tartu_pmf(p)) for p in pmfs)
        diff_before = None
        if old is not None:
            diff_before = max(
                _gap(_with_solver(old, lambda p=p: _ours_broja_pmf(p))(), _tartu_pmf(p))
                for p in pmfs
            )
        t = interleave(
            contenders(
                lambda pmfs=pmfs: len([_ours_broja_pmf(p) for p in pmfs]),
                lambda pmfs=pmfs: len([_tartu_pmf(p) for p in pmfs]),
            ),
            repeats=repeats,
            log=log,
        )
        rows.append(row("Tartu, pmf " + "x".join(map(str, shape)), diff, t, count, diff_before))
    cases = [("tartu", k, 10_000) for k in (2, 3, 4, 6, 8)]
    cases += [("sydney", 2, 1000), ("sydney", 3, 1000)]
    for which, k, n in cases:
        data = []
        for _ in range(2 if which == "sydney" or k > 4 else max(2, n_pmfs // 4)):
            s = rng.integers(0, k, size=(n, 2))
            t_ = (s.sum(1) + (rng.random(n) < 0.2)) % k  # a noisy sum: synergy + redundancy
            data.append((s, t_))
        diff = max(
            _gap(_ours_broja_samples(s, t_), _idtxl_broja_samples(s, t_, which)) for s, t_ in data
        )
        ours = lambda data=data: len([_ours_broja_samples(*d) for d in data])  # noqa: E731
        peer = lambda data=data, w=which: len([_idtxl_broja_samples(*d, w) for d in data])  # noqa: E731
        diff_before = None
        if old is not None and which == "tartu":
            diff_before = max(
                _gap(
                    _with_solver(old, lambda d=d: _ours_broja_samples(*d))(),
                    _idtxl_broja_samples(*d, which),
                )
                for d in data
            )
        if which == "tartu":
            cands = contenders(ours, peer)
        else:  # the before solver is no part of the Sydney comparison
            cands = [Candidate("infometer", ours), Candidate("idtxl", peer)]
        t = interleave(cands, repeats=repeats, log=log)
        rows.append(row(f"{which.title()}, samples n={n}, k={k}", diff, t, len(data), diff_before))
    return rows


def _frites_net(n: int, r: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``r`` non-Gaussian "regions" and a target: pairs share latents (redundancy) and
    the target mixes two latents non-linearly (synergy across pairs)."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, 3))
    x = rng.standard_normal((n, r))
    for j in range(r):
        x[:, j] += (j % 3 == 0) * z[:, 0] + (j % 3 == 1) * z[:, 1] ** 3 + (j % 4 == 2) * z[:, 2]
    y = np.exp(z[:, 0]) + z[:, 1] - z[:, 2] + 0.3 * rng.standard_normal(n)
    return x, y


def _ours_pairs(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gaussian-copula MMI redundancy, synergy and interaction information of every pair
    (bits) in ONE batched call (frites' pair order: ``itertools.combinations``)."""
    f = im.pid_pairs(x, y, measure="mmi", method="gaussian_copula", unit="bits").to_frame()
    return f.redundancy.to_numpy(), f.synergy.to_numpy(), -f.co_information.to_numpy()


def _ours_pairs_loop(x: np.ndarray, y: np.ndarray, pairs) -> tuple[np.ndarray, np.ndarray]:
    """The per-pair route (normal scores once, then ``im.pid`` per pair): the
    reference the batched values are checked against."""
    from infometer.estimators.parametric._gaussian import copula_normalize

    cx, cy = copula_normalize(x), copula_normalize(y[:, None])[:, 0]
    red, syn = [], []
    for a, b in pairs:
        r = im.pid(cx[:, [a, b]], cy, measure="mmi", method="gaussian", unit="bits")
        red.append(r.redundancy.value)
        syn.append(r.synergy.value)
    return np.array(red), np.array(syn)


def _frites_call(fn, x: np.ndarray, y: np.ndarray):
    roi = [f"r{i}" for i in range(x.shape[1])]
    return fn(x[:, :, None], y, roi=roi, times=[0.0], mi_type="cc", verbose=False)


def pid_vs_frites(cases, repeats: int, seed: int) -> list[dict]:
    """Gaussian-copula MMI PID (frites.conn.conn_pid) and interaction information
    (frites.conn.conn_ii) of every pair of regions vs ours (``im.pid_pairs``, one batched
    call; its values also checked against ``im.pid`` per pair)."""
    from itertools import combinations

    from frites.conn import conn_ii, conn_pid
    from frites.io import set_log_level

    set_log_level(False)
    rows = []
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    for n, r in cases:
        x, y = _frites_net(n, r, seed)
        pairs = list(combinations(range(r), 2))  # frites' order: r0-r1, r0-r2, ...
        red, syn, ii = _ours_pairs(x, y)
        lred, lsyn = _ours_pairs_loop(x, y, pairs)
        _, _, fred, fsyn = _frites_call(conn_pid, x, y)
        fii = _frites_call(conn_ii, x, y)
        loop_diff = float(max(np.abs(red - lred).max(), np.abs(syn - lsyn).max()))
        diffs = {
            "pid": max(np.abs(red - fred.data[:, 0]).max(), np.abs(syn - fsyn.data[:, 0]).max()),
            "ii": float(np.abs(ii - fii.data[:, 0]).max()),
        }
        scale = {"pid": float(np.abs(np.r_[red, syn]).max()), "ii": float(np.abs(ii).max())}
        # one batched call gives the PID and the II together: it is timed against each
        for what, ours, theirs in [
            (
                "pid",
                lambda x=x, y=y: _ours_pairs(x, y),
                lambda x=x, y=y: _frites_call(conn_pid, x, y),
            ),
            (
                "ii",
                lambda x=x, y=y: _ours_pairs(x, y),
                lambda x=x, y=y: _frites_call(conn_ii, x, y),
            ),
        ]:
            t = interleave(
                [Candidate("infometer", ours), Candidate("frites", theirs)],
                repeats=repeats,
                log=log,
            )
            rows.append(
                {
                    "what": what,
                    "n": n,
                    "r": r,
                    "pairs": len(pairs),
                    "max_abs_diff_bits": float(diffs[what]),
                    "max_abs_diff_vs_pid_loop_bits": loop_diff,
                    "max_abs_value_bits": scale[what],
                    "ours_wall": t["infometer"].stat("wall", "min"),
                    "frites_wall": t["frites"].stat("wall", "min"),
                    "ours_cpu": t["infometer"].stat("cpu", "min"),
                    "frites_cpu": t["frites"].stat("cpu", "min"),
                    "loads": t["infometer"].loads + t["frites"].loads,
                }
            )
            print(rows[-1], file=sys.stderr, flush=True)
    return rows


def _sx_row(case: str, m: int, diff: float, t: dict, calls: int) -> dict:
    row = {
        "case": case,
        "sources": m,
        "max_abs_diff_bits": float(diff),
        "ours_s": t["infometer"].stat("wall", "min") / calls,
        "idtxl_s": t["idtxl"].stat("wall", "min") / calls,
        "ours_cpu": t["infometer"].stat("cpu", "min") / calls,
        "idtxl_cpu": t["idtxl"].stat("cpu", "min") / calls,
        "loads": t["infometer"].loads + t["idtxl"].loads,
    }
    print(row, file=sys.stderr, flush=True)
    return row


def main_idtxl(args) -> None:
    run = Run(packages=("idtxl-uv",))
    rows = sxpid_vs_idtxl(5 if args.quick else 20, args.seed, repeats=3)
    run.finish()
    print(run.header())
    print("\n### isx vs IDTxl SxPID (atoms in bits; time per call, min of 3 interleaved)\n")
    print(
        "| case | sources | max abs diff (bits) | infometer s | IDTxl s "
        "| IDTxl / infometer (wall, CPU) |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['case']} | {r['sources']} | {r['max_abs_diff_bits']:.1e} | "
            f"{r['ours_s']:.2g} | {r['idtxl_s']:.2g} | {r['idtxl_s'] / r['ours_s']:.1f}x, "
            f"{r['idtxl_cpu'] / max(r['ours_cpu'], 1e-9):.1f}x |"
        )
    loads = [x for r in rows for x in r["loads"]]
    print(
        f"\n1-min load during the timed runs: {min(loads):.1f}-{max(loads):.1f}; "
        f"os.getloadavg() at the end {os.getloadavg()}"
    )


def main_idtxl_broja(args) -> None:
    run = Run(packages=("idtxl-uv", "ecos", "numba"))
    rows = broja_vs_idtxl(5 if args.quick else 20, args.seed, repeats=3, before=args.before)
    run.finish()
    print(run.header())
    print("\n### BROJA vs IDTxl TartuPID / SydneyPID (atoms in bits; CPU per call, min of 3)\n")
    before = args.before is not None
    extra = (
        f" | before ({args.before}): max abs diff (bits) | before CPU s | before / infometer CPU"
        if before
        else ""
    )
    print(
        "| case | max abs diff (bits) | infometer CPU s | IDTxl CPU s | IDTxl / infometer "
        f"(CPU; wall){extra} |"
    )
    print("|---|---|---|---|---|" + ("---|---|---|" if before else ""))
    for r in rows:
        line = (
            f"| {r['case']} | {r['max_abs_diff_bits']:.1e} | {r['ours_cpu']:.2g} | "
            f"{r['idtxl_cpu']:.2g} | {r['idtxl_cpu'] / max(r['ours_cpu'], 1e-9):.3g}x; "
            f"{r['idtxl_s'] / r['ours_s']:.3g}x |"
        )
        if before:
            b = r.get("before_cpu")
            if b is None:
                line += " | | |"
            else:
                line += (
                    f" {r['before_diff_bits']:.1e} | {b:.2g} | "
                    f"{b / max(r['ours_cpu'], 1e-9):.3g}x |"
                )
        print(line)
    loads = [x for r in rows for x in r["loads"]]
    print(
        f"\n1-min load during the timed runs: {min(loads):.1f}-{max(loads):.1f}; "
        f"os.getloadavg() at the end {os.getloadavg()}"
    )


def main_frites(args) -> None:
    run = Run(packages=("frites", "mne", "xarray"))
    cases = [(1000, 6)] if args.quick else [(1000, 10), (10_000, 10), (10_000, 30), (10_000, 100)]
    rows = pid_vs_frites(cases, repeats=3, seed=args.seed)
    run.finish()
    print(run.header())
    print("\n### Gaussian-copula MMI PID / interaction information of every pair vs frites\n")
    print(
        "| quantity | n | regions | pairs | max abs diff (bits) | vs im.pid loop | max abs value | "
        "infometer s | frites s | frites / infometer (wall, CPU) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        q = "MMI PID (red., syn.)" if r["what"] == "pid" else "interaction info"
        print(
            f"| {q} | {r['n']} | {r['r']} | {r['pairs']} | {r['max_abs_diff_bits']:.1e} | "
            f"{r['max_abs_diff_vs_pid_loop_bits']:.1e} | {r['max_abs_value_bits']:.3f} | "
            f"{r['ours_wall']:.3f} | {r['frites_wall']:.3f} | "
            f"{r['frites_wall'] / r['ours_wall']:.2f}x, "
            f"{r['frites_cpu'] / max(r['ours_cpu'], 1e-9):.2f}x |"
        )
    loads = [x for r in rows for x in r["loads"]]
    print(
        f"\n1-min load during the timed runs: {min(loads):.1f}-{max(loads):.1f}; "
        f"os.getloadavg() at the end {os.getloadavg()}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer pmfs and smaller searches")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--before",
        default=None,
        help="--part idtxl-broja: also time the BROJA solver committed at this git ref",
    )
    ap.add_argument(
        "--part",
        choices=("dit-hoi", "hoi", "idtxl", "idtxl-broja", "frites"),
        default="dit-hoi",
        help="which peers (each lives in its own venv)",
    )
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.part in ("idtxl", "idtxl-broja", "frites"):
        {"idtxl": main_idtxl, "idtxl-broja": main_idtxl_broja, "frites": main_frites}[args.part](
            args
        )
        return
    run = Run(packages=("dit", "hoi", "jax"))
    n_pmfs = 5 if args.quick else 20
    only_hoi = args.part == "hoi"  # the multiplet sweeps alone (hoi's venv has no dit)
    pid_rows = [] if only_hoi else pid_vs_dit(n_pmfs, args.seed)
    multi_rows = [] if only_hoi else multi_vs_dit(n_pmfs, args.seed)
    cases = [(1000, 12, 3)] if args.quick else [(10_000, 50, 3), (10_000, 20, 4), (10_000, 20, 5)]
    hoi_rows = multiplets_vs_hoi(cases, repeats=3, seed=args.seed)
    x64 = hoi_in_float64(cases[0], args.seed)
    run.finish()
    print(run.header())
    print("\n### PID vs dit (exact pmfs; atoms in bits; time per call, min of 3 interleaved)\n")
    print(
        "| pmf | measure | max abs diff (bits) | infometer s | dit s "
        "| dit / infometer (wall, CPU) |"
    )
    print("|---|---|---|---|---|---|")
    for r in pid_rows:
        ratio = f"{r['dit_s'] / r['ours_s']:.1f}x, {r['dit_cpu'] / max(r['ours_cpu'], 1e-9):.1f}x"
        diff = f"{r['max_abs_diff_bits']:.1e}" + (f" ({r['error']})" if r["error"] else "")
        if r["measure"] == "broja":
            diff += (
                f"; our U(S1) <= dit's in {r['ours_unique_le_dit']}; vs dit's ECOS "
                f"cone solver: {r['max_abs_diff_vs_dit_cone_bits']:.1e}"
            )
        print(
            f"| {r['shape']} | {r['measure']} | {diff} | {r['ours_s']:.4f} | "
            f"{r['dit_s']:.4f} | {ratio} |"
        )
    print("\n### TC / DTC / O / S / co-information vs dit (exact pmfs)\n")
    print("| pmf | quantity | max abs diff (bits) |")
    print("|---|---|---|")
    for r in multi_rows:
        print(f"| {r['shape']} | {r['quantity']} | {r['max_abs_diff_bits']:.1e} |")
    print("\n### Gaussian-copula O-information of every multiplet vs hoi (JAX CPU)\n")
    print(
        "| n | variables | size | multiplets | max abs diff (bits) | max abs value "
        "| infometer s | hoi s | hoi / infometer (wall, CPU) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in hoi_rows:
        print(
            f"| {r['n']} | {r['d']} | {r['size']} | {r['multiplets']} | "
            f"{r['max_abs_diff_bits']:.1e} | "
            f"{r['max_abs_value_bits']:.3f} | {r['ours_wall']:.3f} | {r['hoi_wall']:.3f} | "
            f"{r['hoi_wall'] / r['ours_wall']:.1f}x, {r['hoi_cpu'] / r['ours_cpu']:.1f}x |"
        )
    print(
        f"\nWith JAX in float64 (first case): max abs diff {x64:.1e} bits (hoi keeps its "
        "output in float32, ~1e-7 relative)."
    )
    loads = [x for r in hoi_rows for x in r["loads"]]
    print(
        f"\n1-min load during the timed runs: {min(loads):.1f}-{max(loads):.1f}; "
        f"os.getloadavg() at the end {os.getloadavg()}"
    )


if __name__ == "__main__":
    main()
