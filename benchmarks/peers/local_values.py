"""Local (pointwise) values against infomeasure's ``local_vals()`` on the same data.

Two steps, since the peer lives in its own venv (never a dependency):

    /work/peers-25b/bin/python benchmarks/peers/local_values.py peer /tmp/lv_peer.npz
    PYTHONPATH=src .venv/bin/python benchmarks/peers/local_values.py ours /tmp/lv_peer.npz

Cases: plug-in MI of 3-symbol data, plug-in TE (k = l = 1) of a noisy binary copy, KSG-1
MI (k = 4, max norm, raw scale: ``standardize=False`` / no ``normalize``, no noise) of a
non-linear pair, KSG-1 TE (k = l = 1, neighbour count 4, raw scale).  Printed: the
largest |ours − peer| over the local values and both means (an agreement check, not a
timing benchmark).
"""

from __future__ import annotations

import os
import sys

import numpy as np


def data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    n = 2000
    d = rng.integers(0, 3, n)
    e = (d + (rng.random(n) < 0.3)) % 3
    b = rng.integers(0, 2, n)
    c = np.where(rng.random(n) < 0.9, np.roll(b, 1), 1 - np.roll(b, 1))
    u = rng.normal(size=n)
    v = u**2 + 0.5 * rng.normal(size=n)
    s = rng.normal(size=n)
    t = np.r_[0.0, 0.7 * s[:-1]] + rng.normal(size=n)
    return {"d": d, "e": e, "b": b, "c": c, "u": u, "v": v, "s": s, "t": t}


def peer(path: str) -> None:
    import infomeasure as imf

    x = data()
    out = {}
    cases = {
        "plugin_mi": (dict(measure="mi", approach="discrete"), (x["d"], x["e"])),
        "plugin_te": (dict(measure="te", approach="discrete"), (x["b"], x["c"])),
        "ksg1_mi": (
            dict(measure="mi", approach="ksg", k=4, noise_level=0),
            (x["u"], x["v"]),
        ),
        "ksg1_te": (
            dict(measure="te", approach="ksg", k=4, noise_level=0),
            (x["s"], x["t"]),
        ),
    }
    for name, (kw, args) in cases.items():
        out[name] = np.asarray(imf.estimator(*args, **kw).local_vals(), dtype=np.float64)
    np.savez(path, **out)
    print(f"wrote {path} (infomeasure {imf.__version__})")


def ours(path: str) -> None:
    import infometer as im

    x = data()
    p = np.load(path)
    calls = {
        "plugin_mi": lambda: im.mutual_info(x["d"], x["e"], method="plugin", local=True),
        "plugin_te": lambda: im.transfer_entropy(x["b"], x["c"], method="plugin", local=True),
        "ksg1_mi": lambda: im.mutual_info(
            x["u"], x["v"], method="ksg1", k=4, standardize=False, local=True
        ),
        "ksg1_te": lambda: im.transfer_entropy(
            x["s"], x["t"], method="ksg1", cmi_k=4, standardize=False, local=True
        ),
    }
    print(f"load {os.getloadavg()[0]:.2f}")
    print("| case | n | max abs diff | mean (infometer) | mean (infomeasure) |")
    print("|---|---|---|---|---|")
    for name, call in calls.items():
        lv = call()
        theirs = p[name]
        diff = (
            float(np.max(np.abs(lv.values - theirs))) if theirs.shape == lv.values.shape else None
        )
        shown = "shapes differ" if diff is None else f"{diff:.2e}"
        print(f"| {name} | {lv.values.size} | {shown} | {lv.mean:.6f} | {theirs.mean():.6f} |")


if __name__ == "__main__":
    {"peer": peer, "ours": ours}[sys.argv[1]](sys.argv[2])
