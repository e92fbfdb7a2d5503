"""Run IDTxl's or Tigramite's network inference on a stack of null networks at several
levels; print one JSON line per network: ``{"net": k, "alpha": a, "edges": count}``.

Runs under a peer's own interpreter (never imports infometer); driven by
``networks_calibration.py``.  Usage:
    python _calibration_peer.py LIB STACK.npy MAX_LAG N_PERM ALPHA[,ALPHA...]
LIB = idtxl_mte (IDTxl's defaults: FDR over every target with the BY constant) |
      tigramite_pcmci_bh (run_pcmci, then get_corrected_pvalues fdr_bh) |
      tigramite_pcmci_none (run_pcmci, links at p <= alpha)
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import warnings


def main() -> None:
    lib, path, max_lag, n_perm = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    alphas = [float(a) for a in sys.argv[5].split(",")]
    import numpy as np

    stack = np.load(path)
    warnings.simplefilter("ignore")
    for k, x in enumerate(stack):
        n = x.shape[1]
        if lib == "idtxl_mte":
            from idtxl.data import Data
            from idtxl.multivariate_te import MultivariateTE

            for a in alphas:
                # 1/(b+1) reaches the first BY threshold alpha / (n c(n)), IDTxl's rule
                b = max(n_perm, int(np.ceil(n * np.sum(1.0 / np.arange(1, n + 1)) / a)))
                settings = {
                    "cmi_estimator": "JidtGaussianCMI",
                    "max_lag_sources": max_lag,
                    "min_lag_sources": 1,
                    "max_lag_target": max_lag,
                    "n_perm_max_stat": b,
                    "n_perm_min_stat": b,
                    "n_perm_omnibus": b,
                    "n_perm_max_seq": b,
                    "alpha_max_stat": a,
                    "alpha_min_stat": a,
                    "alpha_omnibus": a,
                    "alpha_max_seq": a,
                    "alpha_fdr": a,
                    "verbose": False,
                }
                data = Data(x.T.astype(float), dim_order="ps", normalise=True)
                with contextlib.redirect_stdout(io.StringIO()):
                    res = MultivariateTE().analyse_network(settings=settings, data=data)
                count = 0
                for t in res.targets_analysed:
                    try:
                        single = res.get_single_target(t, fdr=True)
                    except RuntimeError:  # no FDR result: nothing survived
                        continue
                    count += len(single.selected_vars_sources or [])
                print(json.dumps({"net": k, "alpha": a, "edges": count}), flush=True)
        else:
            from tigramite import data_processing as pp
            from tigramite.independence_tests.parcorr import ParCorr
            from tigramite.pcmci import PCMCI

            pc = PCMCI(dataframe=pp.DataFrame(x), cond_ind_test=ParCorr(), verbosity=0)
            out = pc.run_pcmci(tau_min=1, tau_max=max_lag, pc_alpha=0.2)
            q = out["p_matrix"]
            if lib == "tigramite_pcmci_bh":
                q = pc.get_corrected_pvalues(
                    p_matrix=q, fdr_method="fdr_bh", tau_min=1, tau_max=max_lag
                )
            off = ~np.eye(n, dtype=bool)
            for a in alphas:
                count = int(sum(((q[:, :, g] <= a) & off).sum() for g in range(1, max_lag + 1)))
                print(json.dumps({"net": k, "alpha": a, "edges": count}), flush=True)


if __name__ == "__main__":
    main()
