"""Signal entropies, Rényi/Tsallis and channels vs antropy, EntropyHub, nolds, ordpy,
infomeasure and dit (issue 26).

    PYTHONPATH=src /work/peers-26/bin/python benchmarks/peers/complexity.py \
        [--n 1000000] [--n-pairs 100000] [--n-fuzzy 10000] [--n-quadratic 10000]
        [--n-knn 100000] [--repeats 3] [--slow 30] [--only PE,...] [--no-dit]

Every task gives the peers the same signal and the parameters that make the definitions
agree (listed in ``CONVENTIONS`` and in docs/entropies.md); the value of every contender is
printed beside its time, in one convention (nats, or a normalised fraction), so a fast
wrong answer is visible.  Timing goes through ``benchmarks/_timing.py`` (interleaved
runs, min / median wall and CPU, the load average).  The peers live in their own venv
(never a dependency): run this script with that venv's Python and ``PYTHONPATH=src``.
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _timing.py
import _timing as T  # noqa: E402
import numpy as np

LN2 = math.log(2)

#: What each peer is told so that its definition is ours (and what differs otherwise).
CONVENTIONS = {
    "PE": "antropy/ordpy/EntropyHub: log2 -> x ln 2; ties by argsort order (none here)",
    "WPE": "ordpy weighted_permutation_entropy and EntropyHub PermEn(Typex='weighted')",
    "Disp": "EntropyHub DispEn(m=2, c=6, Typex='ncdf'): sd with ddof=0, same NCDF map",
    "SampEn": "nolds: tolerance=0.2*std(ddof=0) and closed=True (its defaults: ddof=1, "
    "a fitted 0.1164*(0.5627 ln m + 1.3334) factor and a strict <); EntropyHub r=0.2*std",
    "ApEn": "antropy app_entropy (0.2*std ddof=0); EntropyHub ApEn(r=0.2*std)",
    "FuzzEn": "EntropyHub FuzzEn(r=(0.2*std, 2)): its r is absolute, so 0.2*std is passed",
    "Spectral": "antropy spectral_entropy(sf=1, method='fft'): scipy periodogram, log2",
    "SVD": "antropy svd_entropy(order=5): singular values of the delay matrix, log2",
    "SC": "ordpy complexity_entropy(dx=5): (H, C); C compared",
    "PE2D": "ordpy permutation_entropy(image, dx=2, dy=2)",
    "Renyi1D": "infomeasure entropy(approach='renyi', alpha=2, k=5, base='e'): the same "
    "Leonenko-Pronzato-Savani estimator, Euclidean",
    "Renyi3D": "as Renyi1D on 3-D Gaussian data",
    "Tsallis": "infomeasure entropy(approach='tsallis', q=2, k=5, base='e')",
    "JSD": "infomeasure jsd(approach='discrete', base='e'), 10 symbols, equal weights",
}


def signal(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 0.1 * rng.normal(size=n).cumsum() + rng.normal(size=n)


def tasks(a) -> list[tuple[str, int, list]]:
    import infometer as im

    np.math = math  # EntropyHub 2.0 still calls np.math, removed in numpy 2
    x = signal(a.n)
    xs = signal(a.n_pairs, 1)
    xf = signal(a.n_fuzzy, 2)
    side = int(math.isqrt(a.n))
    img = np.random.default_rng(3).normal(size=(side, side)).cumsum(0)
    sd_s, sd_f = float(np.std(xs)), float(np.std(xf))

    def C(name, fn):  # pure-Python/numpy peers need no warm-up (no JIT): saves a slow run
        return T.Candidate(name, fn, warmup=name in ("infometer", "antropy", "infomeasure"))

    out: list[tuple[str, int, list]] = []

    def opt(mod):
        try:
            return __import__(mod)
        except Exception:  # noqa: BLE001 - a missing or broken peer is left out
            return None

    ant, EH, nolds, ordpy = opt("antropy"), opt("EntropyHub"), opt("nolds"), opt("ordpy")
    cx = lambda *args, **kw: lambda: im.complexity(*args, **kw).value  # noqa: E731

    pe = [C("infometer", cx(x, "permutation", order=5, normalize=True))]
    if ant:
        pe.append(C("antropy", lambda: float(ant.perm_entropy(x, order=5, normalize=True))))
    if ordpy:
        pe.append(C("ordpy", lambda: float(ordpy.permutation_entropy(x, dx=5))))
    if EH:
        pe.append(C("EntropyHub", lambda: float(EH.PermEn(x, m=5, Norm=True)[1][-1])))
    out.append(("PE", a.n, pe))

    wpe = [C("infometer", cx(x, "weighted_permutation", order=5, normalize=True))]
    if ordpy:
        wpe.append(C("ordpy", lambda: float(ordpy.weighted_permutation_entropy(x, dx=5))))
    if EH:
        wpe.append(
            C("EntropyHub", lambda: float(EH.PermEn(x, m=5, Typex="weighted", Norm=True)[1][-1]))
        )
    out.append(("WPE", a.n, wpe))

    disp = [C("infometer", cx(x, "dispersion", order=2, classes=6))]
    if EH:
        disp.append(C("EntropyHub", lambda: float(EH.DispEn(x, m=2, c=6)[0])))
    out.append(("Disp", a.n, disp))

    spec = [C("infometer", cx(x, "spectral", normalize=True))]
    svd = [C("infometer", cx(x, "svd", order=5, normalize=True))]
    if ant:
        spec.append(C("antropy", lambda: float(ant.spectral_entropy(x, sf=1, normalize=True))))
        svd.append(C("antropy", lambda: float(ant.svd_entropy(x, order=5, normalize=True))))
    out += [("Spectral", a.n, spec), ("SVD", a.n, svd)]

    sc = [C("infometer", cx(x, "statistical_complexity", order=5))]
    if ordpy:
        sc.append(C("ordpy", lambda: float(ordpy.complexity_entropy(x, dx=5)[1])))
    out.append(("SC", a.n, sc))

    # the O(N^2) pure-Python peers (nolds, EntropyHub) run on the shorter signal only
    xq = signal(a.n_quadratic, 4)
    sd_q = float(np.std(xq))
    for label, sig, sd, slow_peers in (
        ("SampEn", xs, sd_s, False),
        ("SampEn-small", xq, sd_q, True),
    ):
        samp = [C("infometer", cx(sig, "sample"))]
        if ant:
            samp.append(C("antropy", lambda s=sig: float(ant.sample_entropy(s))))
        if nolds and slow_peers:
            samp.append(
                C(
                    "nolds",
                    lambda s=sig, r=0.2 * sd: float(nolds.sampen(s, tolerance=r, closed=True)),
                )
            )
        if EH and slow_peers:
            samp.append(
                C("EntropyHub", lambda s=sig, r=0.2 * sd: float(EH.SampEn(s, m=2, r=r)[0][-1]))
            )
        out.append((label, sig.size, samp))
        ap = [C("infometer", cx(sig, "approximate"))]
        if ant:
            ap.append(C("antropy", lambda s=sig: float(ant.app_entropy(s))))
        if EH and slow_peers:
            ap.append(C("EntropyHub", lambda s=sig, r=0.2 * sd: float(EH.ApEn(s, m=2, r=r)[0][-1])))
        out.append((label.replace("SampEn", "ApEn"), sig.size, ap))

    fz = [C("infometer", cx(xf, "fuzzy"))]
    if EH:
        fz.append(C("EntropyHub", lambda: float(EH.FuzzEn(xf, m=2, r=(0.2 * sd_f, 2))[0][-1])))
    out.append(("FuzzEn", a.n_fuzzy, fz))

    imf = opt("infomeasure")
    g = np.random.default_rng(5)
    g1, g3 = g.normal(size=a.n_knn), g.normal(size=(a.n_knn, 3))
    d1, d2 = g.integers(0, 10, a.n), g.integers(0, 10, a.n)
    for label, data in (("Renyi1D", g1), ("Renyi3D", g3)):
        rn = [C("infometer", lambda d=data: im.renyi_entropy(d, order=2, k=5).value)]
        if imf:
            rn.append(
                C(
                    "infomeasure",
                    lambda d=data: float(
                        imf.entropy(d, approach="renyi", alpha=2.0, k=5, base="e")
                    ),
                )
            )
        out.append((label, a.n_knn, rn))
    ts = [C("infometer", lambda: im.tsallis_entropy(g1, order=2, k=5).value)]
    js = [C("infometer", lambda: im.jensen_shannon_divergence(d1, d2).value)]
    if imf:
        ts.append(
            C(
                "infomeasure",
                lambda: float(imf.entropy(g1, approach="tsallis", q=2.0, k=5, base="e")),
            )
        )
        js.append(C("infomeasure", lambda: float(imf.jsd(d1, d2, approach="discrete", base="e"))))
    out += [("Tsallis", a.n_knn, ts), ("JSD", a.n, js)]

    p2 = [C("infometer", cx(img, "permutation_2d", order=(2, 2), normalize=True))]
    if ordpy:
        p2.append(C("ordpy", lambda: float(ordpy.permutation_entropy(img, dx=2, dy=2))))
    out.append(("PE2D", img.size, p2))
    return out


def channels_vs_dit(n_channels: int = 30) -> str:
    """Capacity of random channels: infometer's certified value vs dit's (in bits)."""
    import dit

    import infometer as im

    rng = np.random.default_rng(0)
    worst, worst_gap = 0.0, 0.0
    for _ in range(n_channels):
        nx, ny = rng.integers(2, 9, 2)
        W = rng.dirichlet(np.full(ny, 0.5), size=nx)
        ours = im.exact.channel_capacity(W, unit="bits")
        theirs = float(dit.algorithms.channel_capacity(W)[0])
        worst = max(worst, abs(ours.value - theirs))
        worst_gap = max(worst_gap, ours.gap)
        # dit's value can be checked against our certified bounds
        if not ours.lower - 1e-6 <= theirs <= ours.upper + 1e-6:
            print(f"dit outside the certified bounds: {theirs} vs [{ours.lower}, {ours.upper}]")
    return (
        f"{n_channels} random channels (2-8 inputs and outputs, Dirichlet(0.5) rows): "
        f"max |infometer - dit| = {worst:.2e} bits; max certified gap {worst_gap:.1e} bits"
    )


def rate_distortion_vs_dit(n_sources: int = 20) -> str:
    """R(D) points of random sources with Hamming distortion: infometer vs dit's
    Blahut-Arimoto at the same slope (dit minimises R_bits + beta D, i.e. infometer's
    beta_nats = beta ln 2), and which of the two reaches the lower Lagrangian."""
    import math

    from dit.rate_distortion.blahut_arimoto import blahut_arimoto

    import infometer as im

    rng = np.random.default_rng(0)
    worst_r = worst_d = 0.0
    ours_lower = 0
    for i in range(n_sources):
        n = int(rng.integers(2, 5))
        p = rng.dirichlet(np.ones(n))
        beta = float(rng.uniform(0.5, 6.0))
        np.random.seed(i)  # noqa: NPY002 (dit draws its restarts from the global generator)
        theirs, _ = blahut_arimoto(p, beta, max_iters=2000, restarts=5)
        ours = im.exact.rate_distortion(p, 1.0 - np.eye(n), beta=beta * math.log(2), unit="bits")
        worst_r = max(worst_r, abs(float(ours.rate) - theirs.rate))
        worst_d = max(worst_d, abs(float(ours.distortion) - theirs.distortion))
        lag_ours = float(ours.rate) + beta * float(ours.distortion)
        ours_lower += lag_ours <= theirs.rate + beta * theirs.distortion + 1e-12
    return (
        f"{n_sources} random sources (2-4 symbols, Hamming distortion, slopes 0.5-6 per bit): "
        f"max |R - R_dit| = {worst_r:.1e} bits, max |D - D_dit| = {worst_d:.1e}; infometer's "
        f"Lagrangian R + beta D is the lower (or equal) one on {ours_lower} of {n_sources}"
    )


def _looped(c: T.Candidate, inner: int) -> T.Candidate:
    """``c`` calling its function ``inner`` times per timed run (its last answer kept)."""
    if inner <= 1:
        return c

    def fn():
        for _ in range(inner):
            v = c.fn()
        return v

    return T.Candidate(c.name, fn, c.warmup)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--n-pairs", type=int, default=100_000)
    ap.add_argument("--n-fuzzy", type=int, default=10_000)
    ap.add_argument("--n-quadratic", type=int, default=10_000)
    ap.add_argument("--n-knn", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--slow", type=float, default=30.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--no-dit", action="store_true")
    ap.add_argument(
        "--inner",
        type=int,
        default=1,
        help="calls per timed run (every contender alike): a call of tens of microseconds "
        "is timed as the mean of a loop, as timeit does; the tables show seconds per call",
    )
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    run = T.Run(["antropy", "EntropyHub", "nolds", "ordpy", "dit", "infomeasure"])
    only = set(filter(None, a.only.split(",")))
    blocks = []
    for name, n, cands in tasks(a):
        if only and name not in only:
            continue
        print(f"{name} (N = {n:,})", file=sys.stderr)
        res = T.interleave([_looped(c, a.inner) for c in cands], a.repeats, slow_s=a.slow)
        if a.inner > 1:  # seconds per call
            for t in res.values():
                t.walls[:] = [w / a.inner for w in t.walls]
                t.cpus[:] = [c / a.inner for c in t.cpus]
        per = f"; each run {a.inner} calls, seconds per call" if a.inner > 1 else ""
        blocks.append(
            f"**{name}**, N = {n:,} ({CONVENTIONS[name.replace('-small', '')]}{per})\n\n"
            + run.add(name, res, ref="infometer")
        )
    if not a.no_dit:
        blocks.append("**Channel capacity vs dit**: " + channels_vs_dit())
        blocks.append("**Rate-distortion vs dit**: " + rate_distortion_vs_dit())
    run.finish()
    print(run.header() + "\n\n" + "\n\n".join(blocks))


if __name__ == "__main__":
    main()
