"""Where our modified permutation entropy and composite multiscale entropy agree with
EntropyHub 2.0's, and where they do not (issue 35 §4; the numbers in docs/entropies.md).

Two steps, because EntropyHub lives in its own venv (numpy < 2: it still calls np.math):

    /work/peers/entropyhub/bin/python benchmarks/peers/entropyhub_conventions.py peer OUT.json
    .venv/bin/python benchmarks/peers/entropyhub_conventions.py ours OUT.json

The first writes the signals' EntropyHub values; the second prints ours beside them:
modified PE (``PermEn(Typex="modified")``) at orders 3-5 on tied and tie-free signals, the
same with Bian et al.'s symbols computed here (EntropyHub's construction, so the
difference is the symbol map, not the code), and composite sample entropy (``cMSEn``)
with our windows and with EntropyHub's.
"""

from __future__ import annotations

import json
import sys

import numpy as np


def signals() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {
        "ints": rng.integers(0, 4, 3000).astype(float),  # white-noise integers 0-3: ties
        "rounded": np.round(rng.normal(size=3000), 1),
        "noise": rng.normal(size=3000),
    }


def peer(path: str) -> None:
    import EntropyHub as EH

    out = {}
    for name, x in signals().items():
        for m in (3, 4, 5):
            out[f"{name}/modified/{m}"] = float(
                EH.PermEn(x, m=m, Logx=np.e, Typex="modified")[0][-1]
            )
            out[f"{name}/plain/{m}"] = float(EH.PermEn(x, m=m, Logx=np.e)[0][-1])
    x = signals()["noise"]
    for n in (1000, 3000):
        mobj = EH.MSobject("SampEn", m=2, r=0.2 * np.std(x[:n]))
        out[f"cmse/{n}"] = [float(v) for v in EH.cMSEn(x[:n], mobj, Scales=5)[0]]
    json.dump(out, open(path, "w"), indent=1)


def bian_entropy(x: np.ndarray, m: int) -> float:
    """Entropy of Bian et al.'s symbols: the sorted positions, a tied position repeating
    its predecessor's (EntropyHub's construction)."""
    syms = []
    for t in range(x.size - m + 1):
        w = x[t : t + m]
        o = np.argsort(w, kind="stable")
        s, sw = list(o), w[o]
        for i in range(1, m):
            if sw[i] == sw[i - 1]:
                s[i] = s[i - 1]
        syms.append(tuple(s))
    _, c = np.unique(np.array(syms), axis=0, return_counts=True)
    p = c / c.sum()
    return float(-(p * np.log(p)).sum())


def ours(path: str) -> None:
    import infometer as im
    from infometer.measures.complexity import _kernels as K
    from infometer.measures.complexity import measures as M

    eh = json.load(open(path))
    for name, x in signals().items():
        for m in (3, 4, 5):
            mod = im.complexity(x, "modified_permutation", order=m).value
            plain = im.complexity(x, "permutation", order=m).value - eh[f"{name}/plain/{m}"]
            ref = eh[f"{name}/modified/{m}"]
            print(
                f"{name:8s} order {m}: modified ours {mod:.4f}, EntropyHub {ref:.4f} "
                f"(diff {mod - ref:+.1e}; Bian symbols here - EntropyHub "
                f"{bian_entropy(x, m) - ref:+.1e}); plain PE diff {plain:+.1e}"
            )
    x = signals()["noise"]
    for n in (1000, 3000):
        xs = x[:n]
        mine = im.multiscale(xs, "sample", scales=5, method="composite", order=2, r=0.2)
        mine = mine.to_frame()["value"].to_numpy()
        theirs = []  # EntropyHub's windows: every offset keeps (N - tau + 1) // tau means
        for tau in range(1, 6):
            keep = (n - tau + 1) // tau
            vals = []
            for k in range(tau):
                a, b = M.sample_counts(K.coarse_grain(xs, tau, k)[:keep], 2, 1, 0.2 * np.std(xs))
                vals.append(-np.log(a / b))
            theirs.append(np.mean(vals))
        ref = np.array(eh[f"cmse/{n}"])
        print(
            f"composite SampEn N={n}: max |ours - cMSEn| {np.abs(mine - ref).max():.2g}; "
            f"on cMSEn's windows {np.abs(np.array(theirs) - ref).max():.2g}"
        )


if __name__ == "__main__":
    {"peer": peer, "ours": ours}[sys.argv[1]](sys.argv[2])
