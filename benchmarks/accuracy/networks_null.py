"""False-positive rate of infer_network on null networks, with enough targets to see it.

40 null networks of 10 independent AR(1) nodes (coefficient 0.5, N = 500, the first five
are the ones of benchmarks/peers/networks.py), max_lag 2, Gaussian CMI, no FDR: the
share of targets given any parent (mTE) and of cross links declared (PCMCI) against
alpha = 0.05 and its binomial 95% interval.

Run from the repository root:
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python benchmarks/accuracy/networks_null.py
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats

import infometer as im
from infometer.measures.dynamics import simulate


def main(n_nets: int = 40) -> None:
    warnings.simplefilter("ignore")
    mte = [0, 0]
    pc = [0, 0]
    for seed in range(n_nets):
        a0 = np.zeros((1, 10, 10))
        a0[0][np.diag_indices(10)] = 0.5
        x0 = simulate.var(a0, 500, seed=200 + seed)
        net = im.infer_network(
            x0, max_lag=2, cmi="gaussian", correction="none", seed=seed, progress=False
        )
        mte[0] += int(net.targets.significant.sum())
        mte[1] += 10
        p = im.infer_network(
            x0, method="pcmci", max_lag=2, cmi="gaussian", correction="none", progress=False
        )
        pc[0] += len(p.edges)
        pc[1] += 10 * 9 * 2
    for name, (k, n) in (("mte targets with a parent", mte), ("pcmci cross links", pc)):
        lo, hi = stats.binom.ppf([0.025, 0.975], n, 0.05)
        print(f"| infometer {name} | {k} / {n} | {k / n:.3f} | {int(lo)}–{int(hi)} |")


if __name__ == "__main__":
    main()
