"""Run one peer (IDTxl or Tigramite) on saved data; print a JSON line with edges and times.

Runs under the peers' interpreter (``PEERS_PY``), never imports infometer.
Usage: python _networks_peer.py LIB DATA.npy MAX_LAG KIND [N_PERM [fdr|nofdr]]
   or: python _networks_peer.py serve   (one job per stdin line, the arguments above as a
       JSON list; one JSON line back per job: the process stays alive, so from the second
       job on its imports, JVM and caches are warm: the steady state of a user's session;
       ``cpu_since_start`` is all the process's CPU so far, for the cold-start figure)
  LIB  = idtxl_mte | idtxl_bte | tigramite_pcmci | tigramite_pcmciplus
  KIND = gaussian | discrete | ksg
tigramite_pcmciplus (ParCorr, tau_min 0, pc_alpha = N_PERM / 1000, e.g. 10 -> 0.01) also
prints its graph, p_matrix and val_matrix.
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings

#: Prefix of a result line in serve mode (the JVM may write to the same stdout).
RESULT = "@@result "


def main() -> None:
    if sys.argv[1] == "serve":
        import contextlib

        out = sys.stdout
        for line in sys.stdin:
            with contextlib.redirect_stdout(sys.stderr):  # the peers' own prints
                rec = job(json.loads(line))
            rec["cpu_since_start"] = time.process_time()
            print(RESULT + json.dumps(rec), file=out, flush=True)
        return
    print(json.dumps(job(sys.argv[1:])))


def job(argv: list[str]) -> dict:
    lib, path, max_lag, kind = argv[0], argv[1], int(argv[2]), argv[3]
    n_perm = int(argv[4]) if len(argv) > 4 else 200
    fdr = (argv[5] if len(argv) > 5 else "fdr") == "fdr"
    import numpy as np

    x = np.load(path)
    warnings.simplefilter("ignore")
    t0, c0, ch0 = time.perf_counter(), time.process_time(), os.times()
    edges = []
    extra: dict = {}
    notes: set[str] = set()
    if lib.startswith("idtxl"):
        import contextlib
        import io

        from idtxl.bivariate_te import BivariateTE
        from idtxl.data import Data
        from idtxl.multivariate_te import MultivariateTE

        est = {
            "gaussian": "JidtGaussianCMI",
            "discrete": "JidtDiscreteCMI",
            "ksg": "JidtKraskovCMI",
        }[kind]
        settings = {
            "cmi_estimator": est,
            "max_lag_sources": max_lag,
            "min_lag_sources": 1,
            "max_lag_target": max_lag,
            "n_perm_max_stat": n_perm,
            "n_perm_min_stat": n_perm,
            "n_perm_omnibus": max(n_perm, 500) if n_perm >= 200 else n_perm,
            "n_perm_max_seq": max(n_perm, 500) if n_perm >= 200 else n_perm,
            "verbose": False,
            "fdr_correction": fdr,
        }
        if kind == "discrete":
            settings.update(
                {
                    "alph1": int(x.max()) + 1,
                    "alph2": int(x.max()) + 1,
                    "alphc": int(x.max()) + 1,
                    "discretise_method": "none",
                }
            )
        if kind == "ksg":
            settings["num_threads"] = 1
            settings["kraskov_k"] = 4
        data = Data(
            x.T.astype(float) if kind != "discrete" else x.T,
            dim_order="ps",
            normalise=kind != "discrete",
        )
        algo = MultivariateTE() if lib == "idtxl_mte" else BivariateTE()
        with contextlib.redirect_stdout(io.StringIO()):
            res = algo.analyse_network(settings=settings, data=data)
        for t in res.targets_analysed:
            try:
                single = res.get_single_target(t, fdr=fdr)
            except RuntimeError:
                # IDTxl keeps no FDR result when nothing is significant, or when
                # 1/n_perm_omnibus is above its FDR threshold (10 targets: 500
                # permutations are too few); then report its uncorrected edges
                notes.add("IDTxl gave no FDR-corrected result; uncorrected edges reported")
                single = res.get_single_target(t, fdr=False)
            for s, lag in single.selected_vars_sources or []:
                edges.append([int(s), int(t), int(lag)])
    elif lib == "tigramite_pcmciplus":
        from tigramite import data_processing as pp
        from tigramite.independence_tests.parcorr import ParCorr
        from tigramite.pcmci import PCMCI

        pc = PCMCI(dataframe=pp.DataFrame(x), cond_ind_test=ParCorr(), verbosity=0)
        out = pc.run_pcmciplus(tau_min=0, tau_max=max_lag, pc_alpha=n_perm / 1000)
        g = out["graph"]
        edges = [[int(i), int(j), int(k)] for i, j, k in zip(*np.nonzero(g == "-->"), strict=True)]
        extra = {
            "graph": g.tolist(),
            "p_matrix": out["p_matrix"].tolist(),
            "val_matrix": out["val_matrix"].tolist(),
        }
    else:
        from tigramite import data_processing as pp
        from tigramite.independence_tests.parcorr import ParCorr
        from tigramite.pcmci import PCMCI

        df = pp.DataFrame(x)
        pc = PCMCI(dataframe=df, cond_ind_test=ParCorr(), verbosity=0)
        out = pc.run_pcmci(tau_min=1, tau_max=max_lag, pc_alpha=0.2)
        q = out["p_matrix"]
        if fdr:
            q = pc.get_corrected_pvalues(p_matrix=q, fdr_method="fdr_bh")
        n = x.shape[1]
        for i in range(n):
            for j in range(n):
                for lag in range(1, max_lag + 1):
                    if i != j and q[i, j, lag] <= 0.05:
                        edges.append([i, j, lag])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    try:
        ch = os.times()
        cpu += ch.children_user + ch.children_system - ch0.children_user - ch0.children_system
    except OSError:
        pass
    return {"edges": edges, "wall": wall, "cpu": cpu, "notes": sorted(notes), **extra}


if __name__ == "__main__":
    main()
