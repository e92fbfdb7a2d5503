"""Re-run of issue 40's bad-input audit: the issue's examples and other cases of the same
classes, on the multivariate, dynamics, complexity, channels, FleS/activations, extract,
decision and parallel families and their commands.

Each case runs in a forked child (a fresh copy of one imported interpreter) under a
memory limit and an alarm; a case is *good* when it ends as the contract says:

* ``R(name)``: a ``ValueError``/``TypeError`` whose message names ``name``, within
  ``FAST`` CPU seconds of the child (a refusal up front, never after the work; CPU time, as
  the shared machine's load multiplies wall time);
* ``FIN``: a finite result, or a named refusal (values that overflowed: rescaled or refused);
* ``OK``: any result, or a named refusal, but never an internal error;
* ``CLI(code, *texts)``: the command's exit status and texts, no traceback, no
  "internal error", no rich markup error.

Usage: ``python benchmarks/dev/audit_issue40.py [-k SUBSTRING] [--json FILE]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import resource
import signal
import sys
import time
import traceback
import warnings

FAST = 2.0  # CPU seconds a refusal may take (most take milliseconds)
TIMEOUT = 60  # wall seconds: a case still running after this is a hang (the machine is shared)
MEMORY = 6 * 2**30  # address space of a child


class R:
    def __init__(self, *names: str) -> None:
        self.names = names

    def judge(self, outcome):
        kind, val, wall = outcome[:3]
        if kind != "raise":
            return False, f"returned {val!r:.80}"
        typ, msg = val
        if typ not in ("ValueError", "TypeError") and not typ.endswith(
            ("ValueError", "TypeError", "Error")
        ):
            return False, f"{typ}: {msg[:160]}"
        if typ not in ("ValueError", "TypeError", "MissingExtraError", "SSOParseError"):
            return False, f"{typ}: {msg[:160]}"
        if wall > FAST:
            return False, f"refused after {wall:.1f} CPU s: {msg[:120]}"
        if not any(n in msg for n in self.names):
            return False, f"{typ} not naming {self.names}: {msg[:160]}"
        return True, f"{typ}: {msg[:160]}"


class FIN:
    """A finite value (or a named refusal)."""

    def judge(self, outcome):
        kind, val, wall = outcome[:3]
        if kind == "raise":
            typ, msg = val
            ok = typ in ("ValueError", "TypeError")
            return ok, f"{typ}: {msg[:160]}"
        ok = isinstance(val, float) and math.isfinite(val)
        return ok, f"value {val!r}"


class OK:
    def judge(self, outcome):
        kind, val, wall = outcome[:3]
        if kind == "raise":
            typ, msg = val
            return typ in ("ValueError", "TypeError"), f"{typ}: {msg[:160]}"
        return True, f"returned {val!r:.80}"


class W:
    """A result with one warning whose message names ``name`` (dubious but valid input)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def judge(self, outcome):
        kind, val, wall, *rest = outcome
        if kind == "raise":
            return False, f"{val[0]}: {val[1][:160]}"
        said = [w for w in (rest[0] if rest else []) if self.name in w]
        if not said:
            return False, f"no warning naming {self.name!r}: {rest[0] if rest else []}"
        return True, f"warned: {said[0][:120]}"


class CLI:
    def __init__(self, code: int, *texts: str, fast: bool = False) -> None:
        self.code, self.texts, self.fast = code, texts, fast

    def judge(self, outcome):
        kind, val, wall = outcome[:3]
        if kind == "raise":
            return False, f"{val}"
        code, text = val
        bad = [
            w
            for w in ("Traceback", "internal error", "MarkupError", "Expecting value")
            if w in text
        ]
        if code != self.code or bad:
            return False, f"exit {code}: {text.strip()[-200:]}"
        miss = [t for t in self.texts if t not in text]
        if miss:
            return False, f"exit {code} without {miss}: {text.strip()[-200:]}"
        if self.fast and wall > FAST:
            return False, f"exit {code} after {wall:.1f} CPU s"
        return True, f"exit {code}: {text.strip().splitlines()[-1][:120] if text.strip() else ''}"


SETUP = r"""
import numpy as np, pandas as pd, infometer as im, warnings, tempfile, os, pathlib
from infometer.measures import exact, multivariate as mv, dynamics as dyn, channels as ch
from infometer.measures import complexity as cx
from infometer.systems.extract import sites, metrics, bridge
from infometer.systems.probes import decoding
rng = np.random.default_rng(0)
X5 = rng.normal(size=(200, 5)); X5[:, 1] += X5[:, 0]
SIG = rng.normal(size=2000)
TS = rng.normal(size=(300, 3))
for t in range(1, 300): TS[t, 1] += 0.8 * TS[t - 1, 0]
P2 = np.array([[0.4, 0.1], [0.1, 0.4]])
def square(n): return np.broadcast_to(np.full(n, 1.0 / n), (n, n))
TMP = pathlib.Path(tempfile.mkdtemp())
def csv(df, name="t.csv"):
    p = TMP / name; df.to_csv(p, index=False); return str(p)
def cli(*args):
    from typer.testing import CliRunner
    from infometer.cli.app import app
    r = CliRunner().invoke(app, [str(a) for a in args])
    text = r.output
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        import traceback
        text += "\nTraceback " + "".join(traceback.format_exception(r.exception))[-600:]
    return (r.exit_code, text)
def torch_net(width=4, act=None):
    import torch
    from torch import nn
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(width, 8), act or nn.ReLU(), nn.Linear(8, 2))
"""

C = []  # (id, class, code, judge)


def case(cid: str, cls: str, code: str, judge) -> None:
    C.append((cid, cls, code, judge))


# ------------------------------------------------------------------ hangs and huge sizes
H = "huge"
case(
    "multiplets n_permutations 1e8",
    H,
    "im.multiplets(X5, n_permutations=10**8)",
    R("n_permutations"),
)
case(
    "multiplets n_permutations 1e6 d=40",
    H,
    "im.multiplets(rng.normal(size=(50, 40)), n_permutations=10**6)",
    R("n_permutations"),
)
case(
    "multiplets sizes (3,200) max_multiplets 1e80",
    H,
    "im.multiplets(rng.normal(size=(300, 200)), sizes=(3, 200), max_multiplets=10**80)",
    R("sizes", "max_multiplets"),
)
case(
    "multiplets sizes (3,60) max_multiplets 1e30",
    H,
    "im.multiplets(rng.normal(size=(300, 60)), sizes=(3, 60), max_multiplets=10**30)",
    R("sizes", "max_multiplets"),
)
case(
    "multiplets greedy 200 sizes",
    H,
    "im.multiplets(rng.normal(size=(300, 200)), sizes=(3, 200), search='greedy')",
    R("sizes", "max_multiplets", "beam_width"),
)
case(
    "multiplets beam 200 sizes",
    H,
    "im.multiplets(rng.normal(size=(300, 200)), sizes=(3, 200), search='beam', beam_width=50)",
    R("sizes", "max_multiplets", "beam_width"),
)
case(
    "multiplets beam_width 1e9",
    H,
    "im.multiplets(X5, sizes=(3, 5), search='beam', beam_width=10**9)",
    OK(),
)
case(
    "pcmciplus 16 collinear",
    H,
    "z = rng.normal(size=(400, 1)); D = z + 1e-3 * rng.normal(size=(400, 16));"
    " im.infer_network(D, method='pcmciplus', max_lag=1)",
    R("data", "pcmciplus", "max_conds_dim"),
)
case(
    "infer_network n_permutations 1e9",
    H,
    "im.infer_network(TS, max_lag=1, n_permutations=10**9, cmi='gaussian')",
    R("n_permutations"),
)
case(
    "infer_network n_permutations_omnibus 1e9",
    H,
    "im.infer_network(TS, max_lag=1, n_permutations_omnibus=10**9, cmi='gaussian')",
    R("n_permutations_omnibus"),
)
case(
    "gradient_o_information 300x500 ksg",
    H,
    "im.gradient_o_information(rng.normal(size=(300, 500)), method='ksg')",
    R("X", "method"),
)
case(
    "o_information 300x2000 ksg",
    H,
    "im.o_information(rng.normal(size=(300, 2000)), method='ksg')",
    R("X", "method"),
)
case("channel_capacity 3e4", H, "exact.channel_capacity(square(30000))", R("channel"))
case("channel_capacity 1e5", H, "ch.channel_capacity(square(100000))", R("channel"))
case(
    "rate_distortion 3e4",
    H,
    "n = 30000; exact.rate_distortion(np.full(n, 1 / n), np.broadcast_to(1.0 - np.eye(1, n),"
    " (n, n)), beta=1.0)",
    R("distortion", "p_x"),
)
case(
    "information_bottleneck 5e4",
    H,
    "n = 50000; exact.information_bottleneck(np.broadcast_to(np.full(n, 1/n**2), (n, n)),"
    " beta=2.0)",
    R("pxy"),
)
case(
    "channel_capacity_from_samples 5e4 symbols",
    H,
    "x = np.arange(50000) % 50000; ch.channel_capacity_from_samples(x, x[::-1].copy())",
    R("x", "y"),
)
case(
    "ib_curve betas 1e8",
    H,
    "ch.ib_curve(P2, betas=np.broadcast_to(2.0, (10**8,)))",
    R("betas"),
)
case(
    "rate_distortion_curve n_points 1e9",
    H,
    "ch.rate_distortion_curve([0.5, 0.5], 1 - np.eye(2), n_points=10**9)",
    R("n_points"),
)
case(
    "information_bottleneck n_init 1e9",
    H,
    "ch.information_bottleneck(P2, beta=2.0, n_init=10**9)",
    R("n_init"),
)
case(
    "information_bottleneck n_clusters 1e9",
    H,
    "ch.information_bottleneck(P2, beta=2.0, n_clusters=10**9)",
    R("n_clusters"),
)
case("ib_curve n_init 1e9", H, "ch.ib_curve(P2, n_init=10**9)", R("n_init"))
case(
    "channel_capacity max_iter 1e15",
    H,
    "ch.channel_capacity([[0.9, 0.1], [0.2, 0.8]], max_iter=10**15, tol=0.0)",
    R("max_iter", "tol"),
)
case("multiscale scales 1e9", H, "cx.multiscale(SIG, scales=10**9)", R("scales"))
case("multiscale scales list huge", H, "cx.multiscale(SIG, scales=[1, 10**9])", R("scales"))
case(
    "batch_dependence repeats 1e9",
    H,
    "from infometer.systems.models.activations import batch_dependence;"
    " x = rng.normal(size=(40, 4)).astype('float32'); y = np.arange(40) % 2;"
    " batch_dependence(torch_net(), x, y, repeats=10**9)",
    R("repeats"),
)
case(
    "batch_dependence batch_size 1e9",
    H,
    "from infometer.systems.models.activations import batch_dependence;"
    " x = rng.normal(size=(40, 4)).astype('float32'); y = np.arange(40) % 2;"
    " batch_dependence(torch_net(), x, y, batch_size=10**9)",
    R("batch_size"),
)
case(
    "batch_dependence n_probe 1e9",
    H,
    "from infometer.systems.models.activations import batch_dependence;"
    " x = rng.normal(size=(40, 4)).astype('float32'); y = np.arange(40) % 2;"
    " batch_dependence(torch_net(), x, y, n_probe=10**9)",
    R("n_probe"),
)
case(
    "make_activation fles 1e11",
    H,
    "from infometer.systems.models.activations import make_activation;"
    " make_activation('fles', 10**11)",
    R("channels"),
)
case(
    "make_activation reduction 1e11",
    H,
    "from infometer.systems.models.activations import make_activation;"
    " make_activation('fles', 64, reduction=10**11)",
    OK(),
)
case(
    "FleS channels 1e10",
    H,
    "from infometer.systems.models.activations import FleS; FleS(10**10)",
    R("channels"),
)
case("make_group n_pages 1e9", H, "sites.make_group('book', 'div_grid', 10**9)", R("n_pages"))
case(
    "make_group records_per_page 1e7",
    H,
    "sites.make_group('book', 'div_grid', 2, records_per_page=(10**7, 10**7))",
    R("records_per_page"),
)
case("make_sites 1e9 groups", H, "sites.make_sites(10**9, 2)", R("n_groups"))
case("make_sites pages 1e9", H, "sites.make_sites(2, 10**9)", R("pages_per_group"))
case("make_records 1e9", H, "sites.make_records('book', 10**9)", R("n"))
case(
    "permutation_test n_permutations 1e12",
    H,
    "lab = np.arange(100) % 2; decoding.permutation_test(lab, predictions=lab,"
    " n_permutations=10**12)",
    R("n_permutations"),
)
case(
    "multivariate_test n_permutations 1e9",
    H,
    "im.multivariate_test(X5[:, :3], n_permutations=10**9)",
    R("n_permutations"),
)
case(
    "pid_pairs 3000 columns",
    H,
    "im.pid_pairs(rng.normal(size=(50, 3000)), rng.normal(size=50))",
    R("X", "max_pairs"),
)
case(
    "active_info_storage n_permutations 1e9",
    H,
    "im.active_info_storage(SIG, k='auto', n_permutations=10**9)",
    R("n_permutations"),
)
case(
    "complexity order 1e6",
    H,
    "cx.complexity(SIG, 'sample', order=10**6)",
    R("order"),
)
case(
    "complexity delay 1e12",
    H,
    "cx.complexity(SIG, 'permutation', delay=10**12)",
    R("delay"),
)
case(
    "plane_limits points 1e10",
    H,
    "cx.plane_limits(24, points=10**10)",
    R("points", "n"),
)
case(
    "plane_limits n 1e9",
    H,
    "cx.plane_limits(10**9)",
    R("n"),
)
case(
    "run_jobs n_jobs 1e6",
    H,
    "from infometer.core.parallel import run_jobs, MemorySink;"
    " run_jobs(abs, {1: 1}, MemorySink(), n_jobs=10**6)",
    R("workers", "n_jobs"),
)
case(
    "negative_gate_ratio_mc n 1e12",
    H,
    "from infometer.systems.models.activations import negative_gate_ratio_mc;"
    " negative_gate_ratio_mc(0.0, 1.0, n=10**12)",
    R("n"),
)
case(
    "context_task n 1e12",
    H,
    "from infometer.systems.models.activations import context_task; context_task(10**12)",
    R("n"),
)

# ----------------------------------------------------------- silent, NaN, misleading
S = "silent"
for q in (
    "o_information",
    "total_correlation",
    "dual_total_correlation",
    "s_information",
    "co_information",
    "gradient_o_information",
):
    case(f"{q} one row", S, f"im.{q}(X5[:1])", R("X"))
    case(f"{q} two rows", S, f"im.{q}(X5[:2])", R("X"))
case("multivariate_test one row", S, "im.multivariate_test(X5[:1, :3])", R("X"))
case("multiplets one row", S, "im.multiplets(X5[:1])", R("X"))
case("pid one row", S, "im.pid(X5[:1, :2], X5[:1, 2])", R("sources", "target", "X"))
case("pid_pairs one row", S, "im.pid_pairs(X5[:1, :3], X5[:1, 3])", R("X", "target"))
case(
    "cli multi one row",
    S,
    "cli('multi', 'o-information', csv(pd.DataFrame(X5[:1, :3], columns=list('abc'))))",
    CLI(2, "error:"),
)
for m in ("mte", "bivariate_te", "pcmci", "pcmciplus"):
    case(
        f"infer_network {m} bogus=1",
        S,
        f"im.infer_network(TS, method='{m}', max_lag=1, bogus=1)",
        R("bogus"),
    )
case(
    "infer_network ksg1 bogus=1",
    S,
    "im.infer_network(TS, method='mte', max_lag=1, cmi='ksg1', bogus=1)",
    R("bogus"),
)
case("AIS lags [1,1]", S, "im.active_info_storage(SIG, lags=[1, 1])", R("lags"))
case("entropy_rate lags [1,1]", S, "im.entropy_rate(SIG, lags=[1, 1])", R("lags"))
case("AIS lags [2,1,2]", S, "im.active_info_storage(SIG, lags=[2, 1, 2])", R("lags"))
case(
    "local AIS lags [1,1]",
    S,
    "dyn.local_active_info_storage(SIG, lags=[1, 1])",
    R("lags"),
)
case("AIS lags []", S, "im.active_info_storage(SIG, lags=[])", R("lags"))
case("AIS lags [0]", S, "im.active_info_storage(SIG, lags=[0])", R("lags"))
for m in (
    "approximate",
    "fuzzy",
    "spectral",
    "svd",
    "sample",
    "permutation",
    "dispersion",
    "weighted_permutation",
):
    case(f"complexity {m} 4 samples", S, f"cx.complexity(SIG[:4], '{m}')", R("x"))
case("complexity_entropy_plane {}", S, "cx.complexity_entropy_plane({})", R("signals"))
case("complexity_entropy_plane []", S, "cx.complexity_entropy_plane([])", R("signals"))
case("pid_pairs {}", S, "im.pid_pairs({}, SIG[:200])", R("X"))
case("pid_pairs empty frame", S, "im.pid_pairs(pd.DataFrame(), SIG[:200])", R("X"))
case("multiplets {}", S, "im.multiplets({})", R("X"))
case("o_information {}", S, "im.o_information({})", R("X"))
case("infer_network {}", S, "im.infer_network({})", R("data"))
case(
    "swap_activations channel_dim 5",
    S,
    "from infometer.systems.models.activations import swap_activations;"
    " swap_activations(torch_net(), 'fles', channel_dim=5)",
    R("channel_dim"),
)
case(  # a lone module cannot know the rank of its input: the first forward pass names it
    "make_activation channel_dim 5",
    S,
    "import torch; from infometer.systems.models.activations import make_activation;"
    " make_activation('fles', 8, channel_dim=5)(torch.zeros(3, 8))",
    R("channel_dim"),
)
case(
    "make_activation channel_dim 'x'",
    S,
    "from infometer.systems.models.activations import make_activation;"
    " make_activation('fles', 8, channel_dim='x')",
    R("channel_dim"),
)
case("layout_entropy string", S, "bridge.layout_entropy('<p>x</p>')", R("pages"))
case("layout_entropy bytes", S, "bridge.layout_entropy(b'<p>x</p>')", R("pages"))
case("fuzzy_f1 string pred", S, "metrics.fuzzy_f1('abc', [('a', 'b', 'c')])", R("pred"))
case("make_records -1", S, "sites.make_records('book', -1)", R("n"))
case("make_records 2.5", S, "sites.make_records('book', 2.5)", R("n"))
case("make_sites -1", S, "sites.make_sites(-1, 2)", R("n_groups"))
case("make_sites 0", S, "sites.make_sites(0, 2)", R("n_groups"))
case("make_sites pages -1", S, "sites.make_sites(2, -1)", R("pages_per_group"))
case(
    "version_clock kinds string",
    S,
    "sites.version_clock(sites.make_layout('book', 'div_grid'), 'wrapper')",
    R("kinds"),
)
case(
    "cli multiplets --top -1",
    S,
    "cli('multiplets', csv(pd.DataFrame(X5, columns=list('abcde'))), '--top', -1)",
    CLI(2, "--top"),
)
case(
    "cli extract bench --parts ,",
    S,
    "cli('extract', 'bench', '--parts', ',', '--out', TMP / 'eb')",
    CLI(2, "--parts"),
)
case(
    "cli extract bench --parts nope",
    S,
    "cli('extract', 'bench', '--parts', 'nope', '--out', TMP / 'eb')",
    CLI(2, "--parts"),
)
case(
    "cli extract bench --similarity x",
    S,
    "cli('extract', 'bench', '--similarity', 'x', '--parts', 'bridge', '--size', 'tiny',"
    " '--out', TMP / 'eb2')",
    CLI(2, "--similarity"),
)
case(
    "cli extract bench --size x",
    S,
    "cli('extract', 'bench', '--size', 'x', '--out', TMP / 'eb3')",
    CLI(2, "--size"),
)
case(
    "cli extract bench --render x",
    S,
    "cli('extract', 'bench', '--render', 'x', '--out', TMP / 'eb4')",
    CLI(2, "--render"),
)
for m in (
    "fuzzy",
    "spectral",
    "weighted_permutation",
    "svd",
    "sample",
    "approximate",
    "dispersion",
    "statistical_complexity",
):
    case(f"complexity {m} *1e300", S, f"float(cx.complexity(SIG * 1e300, '{m}'))", FIN())
    case(f"complexity {m} *1e-300", S, f"float(cx.complexity(SIG * 1e-300, '{m}'))", FIN())
case("rank_agreement constant", S, "bridge.rank_agreement([1, 1, 1], [1, 2, 3])", R("first"))
case(
    "rank_agreement constant second", S, "bridge.rank_agreement([1, 2, 3], [2, 2, 2])", R("second")
)
case("rank_agreement NaN", S, "bridge.rank_agreement([1, np.nan, 3], [1, 2, 3])", R("first"))
case("rank_agreement lengths", S, "bridge.rank_agreement([1, 2, 3], [1, 2])", R("second"))
case("rank_agreement one", S, "bridge.rank_agreement([1], [1])", R("first"))
case(
    "complexity stderr_blocks 1e6",
    S,
    "cx.complexity(SIG, 'permutation', ci=0.9, stderr_blocks=10**6)",
    R("stderr_blocks"),
)
case(
    "complexity stderr_blocks 1",
    S,
    "cx.complexity(SIG, 'permutation', ci=0.9, stderr_blocks=1)",
    R("stderr_blocks"),
)

# ----------------------------------------------------------------- internal errors
E = "internal"
case(
    "statistical_complexity order 1",
    E,
    "cx.complexity(SIG, 'statistical_complexity', order=1)",
    R("order"),
)
for m in ("permutation", "weighted_permutation", "statistical_complexity", "modified_permutation"):
    case(f"{m} order 2.5", E, f"cx.complexity(SIG, '{m}', order=2.5)", R("order"))
    case(f"{m} order -1", E, f"cx.complexity(SIG, '{m}', order=-1)", R("order"))
case("plane order 2.5", E, "cx.complexity_entropy_plane([SIG], order=2.5)", R("order"))
case("plane order -1", E, "cx.complexity_entropy_plane([SIG], order=-1)", R("order"))
case("plane_limits n 1", E, "cx.plane_limits(1)", R("n"))
case("drift 'x'", E, "sites.drift('x', 'wrapper')", R("layout"))
case("drift bad kind", E, "sites.drift(sites.make_layout('book', 'div_grid'), 'nope')", R("kind"))
case("template_extractor 'x'", E, "sites.template_extractor('x')", R("layout"))
case("version_clock 'x'", E, "sites.version_clock('x')", R("layout"))
case("layout_entropy [1,2]", E, "bridge.layout_entropy([1, 2])", R("pages"))
case("layout_entropy [None]", E, "bridge.layout_entropy([None])", R("pages"))
case(
    "make_group records_per_page (5,2)",
    E,
    "sites.make_group('book', 'div_grid', 2, records_per_page=(5, 2))",
    R("records_per_page"),
)
case(
    "make_group records_per_page 3",
    E,
    "sites.make_group('book', 'div_grid', 2, records_per_page=3)",
    R("records_per_page"),
)
case(
    "make_group records_per_page (0,2)",
    E,
    "sites.make_group('book', 'div_grid', 2, records_per_page=(0, 2))",
    R("records_per_page"),
)
case("make_group bad template", E, "sites.make_group('book', 'nope', 2)", R("template"))
case("make_group layout 'x'", E, "sites.make_group('book', 'div_grid', 2, layout='x')", R("layout"))
case("make_sites templates []", E, "sites.make_sites(2, 2, templates=[])", R("templates"))
case(
    "make_sites templates ['nope']",
    E,
    "sites.make_sites(2, 2, templates=['nope'])",
    R("templates", "template"),
)
case(
    "make_sites templates 'infobox'",
    E,
    "sites.make_sites(2, 2, templates='infobox')",
    R("templates"),
)
case(
    "layer_curves layers []",
    E,
    "from infometer.systems.models.activations import layer_curves;"
    " x = rng.normal(size=(40, 4)).astype('float32'); y = np.arange(40) % 2;"
    " layer_curves(torch_net(), x, y, layers=[])",
    R("layers"),
)
case(
    "layer_curves layers ['nope']",
    E,
    "from infometer.systems.models.activations import layer_curves;"
    " x = rng.normal(size=(40, 4)).astype('float32'); y = np.arange(40) % 2;"
    " layer_curves(torch_net(), x, y, layers=['nope'])",
    R("layers"),
)
case(
    "layer_curves layers '0'",
    E,
    "from infometer.systems.models.activations import layer_curves;"
    " x = rng.normal(size=(40, 4)).astype('float32'); y = np.arange(40) % 2;"
    " layer_curves(torch_net(), x, y, layers='0')",
    R("layers"),
)
case("fuzzy_f1(5, gold)", E, "metrics.fuzzy_f1(5, [('a', 'b', 'c')])", R("pred"))
case("fuzzy_f1(gold, 5)", E, "metrics.fuzzy_f1([('a', 'b', 'c')], 5)", R("gold"))
case("fuzzy_f1(None, gold)", E, "metrics.fuzzy_f1(None, [('a', 'b', 'c')])", R("pred"))
case("fuzzy_f1 short triple", E, "metrics.fuzzy_f1([('a', 'b')], [('a', 'b', 'c')])", R("pred"))
case("fuzzy_f1 [5]", E, "metrics.fuzzy_f1([5], [('a', 'b', 'c')])", R("pred"))
case("set_prf(5, gold)", E, "metrics.set_prf(5, [('a', 'b', 'c')])", R("pred"))
case("set_prf(gold, None)", E, "metrics.set_prf([('a', 'b', 'c')], None)", R("gold"))
case(
    "fuzzy_f1 matching x",
    E,
    "metrics.fuzzy_f1([('a', 'b', 'c')], [('a', 'b', 'c')], matching='x')",
    R("matching"),
)
case(
    "extractor returning None",
    E,
    "bridge.extraction_mutual_info(['a b c', 'd e f', 'g h i'], lambda d: None)",
    R("extractor"),
)
case(
    "extractor returning 5",
    E,
    "bridge.extraction_mutual_info(['a b c', 'd e f', 'g h i'], lambda d: 5)",
    R("extractor"),
)
SEL = "from infometer.workflows.sklearn import MutualInfoSelector; sel = MutualInfoSelector(k=2);"
for lab, xy, nm in [
    ("X 1-D", "sel.fit(np.arange(30.0), np.arange(30) % 2)", "X"),
    ("X NaN", "Xb = X5[:30].copy(); Xb[3, 1] = np.nan; sel.fit(Xb, np.arange(30) % 2)", "X"),
    ("X strings", "sel.fit(np.full((30, 3), 'a'), np.arange(30) % 2)", "X"),
    ("y length", "sel.fit(X5[:30], np.arange(29) % 2)", "y"),
    ("y NaN", "yb = (np.arange(30) % 2).astype(float); yb[2] = np.nan; sel.fit(X5[:30], yb)", "y"),
    ("X empty", "sel.fit(np.zeros((0, 3)), np.zeros(0))", "X"),
    ("X 3-D", "sel.fit(np.zeros((30, 3, 2)), np.arange(30) % 2)", "X"),
    ("y 2-D", "sel.fit(X5[:30], np.zeros((30, 2)))", "y"),
    ("X None", "sel.fit(None, np.arange(30) % 2)", "X"),
    ("y None", "sel.fit(X5[:30], None)", "y"),
    ("transform width", "sel.fit(X5[:30], np.arange(30) % 2).transform(X5[:30, :3])", "X"),
    ("k 0", "MutualInfoSelector(k=0).fit(X5[:30], np.arange(30) % 2)", "k"),
    (
        "criterion x",
        "MutualInfoSelector(criterion='x').fit(X5[:30], np.arange(30) % 2)",
        "criterion",
    ),
]:
    case(f"MutualInfoSelector {lab}", E, SEL + xy, R(nm))
case(  # scikit-learn's SelectKBest rule: k above the feature count keeps them all, with a warning
    "MutualInfoSelector k > features",
    E,
    "from infometer.workflows.sklearn import MutualInfoSelector;"
    " MutualInfoSelector(k=9).fit(X5[:30], np.arange(30) % 2)",
    W("k=9"),
)
RJ = "from infometer.core.parallel import run_jobs, MemorySink;"
case("run_jobs lock=dir", E, RJ + "run_jobs(abs, {1: 1}, MemorySink(), lock=TMP)", R("lock"))
case(
    "run_jobs progress='yes'",
    E,
    RJ + "run_jobs(abs, {1: 1}, MemorySink(), progress='yes')",
    R("progress"),
)
case("run_jobs pool x", E, RJ + "run_jobs(abs, {1: 1}, MemorySink(), pool='x')", R("pool"))
case("run_jobs retries -1", E, RJ + "run_jobs(abs, {1: 1}, MemorySink(), retries=-1)", R("retries"))
case("run_jobs jobs list", E, RJ + "run_jobs(abs, [1, 2], MemorySink())", R("jobs"))
case("run_jobs sink None", E, RJ + "run_jobs(abs, {1: 1}, None)", R("sink"))
case("run_jobs func 3", E, RJ + "run_jobs(3, {1: 1}, MemorySink())", R("func"))
case("svd *1e300", E, "float(cx.complexity(SIG * 1e300, 'svd'))", FIN())
case("ib beta nan", E, "ch.information_bottleneck(P2, beta=float('nan'))", R("beta"))
case("ib_curve betas []", E, "ch.ib_curve(P2, betas=[])", R("betas"))
case("ib_curve betas 'x'", E, "ch.ib_curve(P2, betas='x')", R("betas"))
case(
    "rd_curve betas [-1]",
    E,
    "ch.rate_distortion_curve([0.5, 0.5], 1 - np.eye(2), betas=[-1.0])",
    R("betas"),
)
case(
    "rd_curve n_points 0",
    E,
    "ch.rate_distortion_curve([0.5, 0.5], 1 - np.eye(2), n_points=0)",
    R("n_points"),
)
case(
    "rd_curve n_points 2.5",
    E,
    "ch.rate_distortion_curve([0.5, 0.5], 1 - np.eye(2), n_points=2.5)",
    R("n_points"),
)
case("capacity tol -1", E, "ch.channel_capacity([[0.9, 0.1], [0.2, 0.8]], tol=-1)", R("tol"))
case(
    "capacity max_iter 0",
    E,
    "ch.channel_capacity([[0.9, 0.1], [0.2, 0.8]], max_iter=0)",
    R("max_iter"),
)
case("ib method x", E, "ch.information_bottleneck(P2, beta=2.0, method='x')", R("method"))
case("multiscale scales []", E, "cx.multiscale(SIG, scales=[])", R("scales"))
case("multiscale scales [0]", E, "cx.multiscale(SIG, scales=[0, 1])", R("scales"))
case("multiscale scales 2.5", E, "cx.multiscale(SIG, scales=2.5)", R("scales"))
case("multiscale method x", E, "cx.multiscale(SIG, method='x')", R("method"))
case("complexity measure x", E, "cx.complexity(SIG, 'nope')", R("measure"))
case("complexity bogus", E, "cx.complexity(SIG, 'sample', bogus=1)", R("bogus"))
case("multiscale bogus", E, "cx.multiscale(SIG, 'sample', bogus=1)", R("bogus"))
case(
    "permutation_test n_permutations 0",
    E,
    "lab = np.arange(100) % 2; decoding.permutation_test(lab, predictions=lab, n_permutations=0)",
    R("n_permutations"),
)
case(
    "make_activation kind x",
    E,
    "from infometer.systems.models.activations import make_activation; make_activation('nope')",
    R("kind"),
)
case(
    "make_activation channels -1",
    E,
    "from infometer.systems.models.activations import make_activation; make_activation('fles', -1)",
    R("channels"),
)
case(
    "swap_activations model x",
    E,
    "from infometer.systems.models.activations import swap_activations;"
    " swap_activations('x', 'fles')",
    R("model"),
)
case(
    "gate_entropy top 2",
    E,
    "from infometer.systems.models.activations import gate_entropy;"
    " gate_entropy(torch_net(), rng.normal(size=(20, 4)).astype('float32'), top=2.0)",
    R("top"),
)
case(
    "gate_entropy batch_size 0",
    E,
    "from infometer.systems.models.activations import gate_entropy;"
    " gate_entropy(torch_net(), rng.normal(size=(20, 4)).astype('float32'), batch_size=0)",
    R("batch_size"),
)
case(
    "negative_gate_ratio sigma -1",
    E,
    "from infometer.systems.models.activations import negative_gate_ratio;"
    " negative_gate_ratio(0.0, -1.0)",
    R("sigma"),
)
case(
    "convergence_threshold eps nan",
    E,
    "from infometer.systems.models.activations import convergence_threshold;"
    " convergence_threshold(float('nan'))",
    R("eps"),
)
case(
    "evpi prior 'x'",
    E,
    "from infometer.systems import decision; decision.evpi('x', [[1.0]])",
    R("prior"),
)
case("pid_pairs measure x", E, "im.pid_pairs(X5[:, :3], X5[:, 3], measure='x')", R("measure"))
case("multiplets sizes 'x'", E, "im.multiplets(X5, sizes='x')", R("sizes"))
case("multiplets sizes (4,3)", E, "im.multiplets(X5, sizes=(4, 3))", R("sizes"))
case("multiplets sizes 2", E, "im.multiplets(X5, sizes=2)", R("sizes"))

# ---------------------------------------------------------------------------- CLI
K = "cli"
MARK = "pd.DataFrame(X5[:, :3], columns=['a[/x]', 'c[/red]', '[bold]b'])"
case(
    "network markup columns",
    K,
    "cli('network', csv(pd.DataFrame(TS, columns=['a[/x]', 'c[/red]', '[bold]b'])),"
    " '--max-lag', 1, '--cmi', 'gaussian', '-o', TMP / 'nw')",
    CLI(0, "a[/x]"),
)
case("multi markup columns", K, f"cli('multi', 'o-information', csv({MARK}))", CLI(0))
case(
    "multiplets markup columns",
    K,
    "cli('multiplets', csv(pd.DataFrame(X5[:, :4], columns=['a[/x]', 'c[/red]', 'b', 'd'])),"
    " '-o', TMP / 'mp')",
    CLI(0, "a[/x]"),
)
case(
    "pid markup columns",
    K,
    f"cli('pid', csv({MARK}), '--sources', 'a[/x],[bold]b', '--target', 'c[/red]')",
    CLI(0, "a[/x]"),
)
case(
    "pid all-pairs markup columns",
    K,
    f"cli('pid', csv({MARK}), '--target', 'c[/red]', '--all-pairs')",
    CLI(0, "a[/x]"),
)
case(
    "rank markup columns",
    K,
    f"cli('rank', csv({MARK}), '--target', 'c[/red]', '-o', TMP / 'rk')",
    CLI(0),
)
case("matrix markup columns", K, f"cli('matrix', csv({MARK}), '-j', 1, '-o', TMP / 'mx')", CLI(0))
case("entropy markup columns", K, f"cli('entropy', csv({MARK}), '--columns', 'a[/x]')", CLI(0))
case("mi markup columns", K, f"cli('mi', csv({MARK}), '--x', 'a[/x]', '--y', 'c[/red]')", CLI(0))
case(
    "complexity markup column",
    K,
    "cli('complexity', csv(pd.DataFrame({'s[/x]': SIG})), '--column', 's[/x]')",
    CLI(0),
)
case(
    "missing markup column",
    K,
    f"cli('mi', csv({MARK}), '--x', 'q[/x]', '--y', 'c[/red]')",
    CLI(2, "q[/x]"),
)
case(
    "complexity --multiscale 1e9",
    K,
    "cli('complexity', csv(pd.DataFrame({'s': SIG})), '--multiscale', 1000000000)",
    CLI(2, "--multiscale", fast=True),
)
case(
    "complexity --multiscale 0",
    K,
    "cli('complexity', csv(pd.DataFrame({'s': SIG})), '--multiscale', 0)",
    CLI(2, "--multiscale", fast=True),
)
case(
    "extract score --pages 1e9",
    K,
    "p = TMP / 's.py'; p.write_text('def main(html):\\n    return []\\n');"
    " cli('extract', 'score', '--script', p, '--pages', 1000000000)",
    CLI(2, "--pages", fast=True),
)
case(
    "extract score --pages 0",
    K,
    "p = TMP / 's.py'; p.write_text('def main(html):\\n    return []\\n');"
    " cli('extract', 'score', '--script', p, '--pages', 0)",
    CLI(2, "--pages", fast=True),
)
case(
    "extract serve --pages 1e9",
    K,
    "cli('extract', 'serve', '--pages', 1000000000, '--seconds', 1)",
    CLI(2, "--pages", fast=True),
)
case(
    "extract serve --seconds nan",
    K,
    "cli('extract', 'serve', '--seconds', 'nan')",
    CLI(2, "--seconds", fast=True),
)
case(
    "extract serve --seconds inf",
    K,
    "cli('extract', 'serve', '--seconds', 'inf')",
    CLI(2, "--seconds", fast=True),
)
case(
    "extract serve --seconds -1",
    K,
    "cli('extract', 'serve', '--seconds', -1)",
    CLI(2, "--seconds", fast=True),
)
case(
    "extract serve --max-requests -1",
    K,
    "cli('extract', 'serve', '--max-requests', -1, '--seconds', 1)",
    CLI(2, "--max-requests", fast=True),
)
case(
    "extract score printing script",
    K,
    'p = TMP / \'pr.py\'; p.write_text(\'print("hello")\\ndef main(html):\\n    print("x")\\n'
    '    return [("a", "b", "c")]\\n\');'
    " cli('extract', 'score', '--script', p, '--pages', 1, '--allow-unisolated')",
    CLI(0),
)
case(
    "extract score --template x",
    K,
    "p = TMP / 's.py'; p.write_text('def main(html):\\n    return []\\n');"
    " cli('extract', 'score', '--script', p, '--template', 'nope')",
    CLI(2, "--template", fast=True),
)
case(
    "extract score --cpu-seconds 0",
    K,
    "p = TMP / 's.py'; p.write_text('def main(html):\\n    return []\\n');"
    " cli('extract', 'score', '--script', p, '--cpu-seconds', 0)",
    CLI(2, "--cpu-seconds", fast=True),
)
case(
    "network -o under a file",
    K,
    "f = TMP / 'file'; f.write_text('x');"
    " cli('network', csv(pd.DataFrame(TS, columns=list('abc'))), '--max-lag', 1,"
    " '-o', f / 'n')",
    CLI(2, "--out", fast=True),
)
case(
    "multiplets --plot under a file",
    K,
    "f = TMP / 'file'; f.write_text('x');"
    " cli('multiplets', csv(pd.DataFrame(X5, columns=list('abcde'))), '-o', f / 'n')",
    CLI(2, "--out", fast=True),
)
case(
    "multi --plot under a file",
    K,
    "f = TMP / 'file'; f.write_text('x');"
    " cli('pid', csv(pd.DataFrame(X5, columns=list('abcde'))), '--target', 'e', '--all-pairs',"
    " '--plot', f / 'n.png')",
    CLI(2, "--plot", fast=True),
)
case(
    "complexity --plot under a file",
    K,
    "f = TMP / 'file'; f.write_text('x');"
    " cli('complexity', csv(pd.DataFrame({'s': SIG})), '--multiscale', 5, '--plot', f / 'n.png')",
    CLI(2, "--plot", fast=True),
)
case(
    "extract bench --out file",
    K,
    "f = TMP / 'file'; f.write_text('x'); cli('extract', 'bench', '--out', f)",
    CLI(2, "--out", fast=True),
)
case(
    "multiplets --top 0",
    K,
    "cli('multiplets', csv(pd.DataFrame(X5, columns=list('abcde'))), '--top', 0)",
    CLI(2, "--top"),
)
case(
    "multiplets --permutations -1",
    K,
    "cli('multiplets', csv(pd.DataFrame(X5, columns=list('abcde'))), '--permutations', -1)",
    CLI(2, "--permutations"),
)
case(
    "network --lags 0",
    K,
    "cli('network', csv(pd.DataFrame(TS, columns=list('abc'))), '--max-lag', 0)",
    CLI(2, "--max-lag"),
)
case(
    "network --bogus param",
    K,
    "cli('network', csv(pd.DataFrame(TS, columns=list('abc'))), '--max-lag', 1,"
    " '--permutations', 0)",
    CLI(2, "--permutations"),
)


# ------------------------------------------------------------------------ the runner
def _child(code: str, setup_ns: dict, wfd: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    t0 = time.process_time()  # the case's own CPU time (wall time follows the load)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ns = dict(setup_ns)
            lines = code.split(";")
            *pre, last = [s.strip() for s in lines]
            # the last statement's value is the result
            exec("\n".join(pre), ns)  # noqa: S102
            val = eval(last, ns)  # noqa: S307
        if hasattr(val, "value"):
            val = float(val.value)
        elif hasattr(val, "capacity"):
            val = float(val.capacity.value)
        elif not isinstance(val, float | int | tuple):
            val = repr(val)[:80]
        said = [str(w.message) for w in caught]
        out = ("ok", val, time.process_time() - t0, said)
    except BaseException as exc:  # noqa: BLE001
        out = ("raise", (type(exc).__name__, str(exc)), time.process_time() - t0)
        if os.environ.get("AUDIT_TB"):
            traceback.print_exc()
    os.write(wfd, pickle.dumps(out))
    os._exit(0)


def run_case(code: str, setup_ns: dict):
    r, w = os.pipe()
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.setpgid(0, 0)
        _child(code, setup_ns, w)
    os.close(w)
    chunks = []
    deadline = t0 + TIMEOUT
    import select

    while True:
        left = deadline - time.perf_counter()
        if left <= 0:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(r)
            return ("raise", ("Hang", f"still running after {TIMEOUT}s"), TIMEOUT)
        ready, _, _ = select.select([r], [], [], min(left, 1.0))
        if ready:
            b = os.read(r, 1 << 20)
            if not b:
                break
            chunks.append(b)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    try:
        os.killpg(pid, signal.SIGKILL)  # anything the case left behind
    except ProcessLookupError:
        pass
    if not chunks:
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        return (
            "raise",
            ("Crash", f"child died (signal {sig}, status {status})"),
            time.perf_counter() - t0,
        )
    return pickle.loads(b"".join(chunks))


def _markdown(path: str, rows: list[dict], by_cls: dict[str, list[int]]) -> None:
    """The class table, then every case with its verdict and what it ended as."""
    load = os.getloadavg()
    lines = [
        "# Issue 40 audit, re-run",
        "",
        "Command: `OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 .venv/bin/python "
        "benchmarks/dev/audit_issue40.py --md benchmarks/results/audit_issue40.md`",
        "",
        f"Load average at the end: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f} (2 cores, shared); "
        f"a refusal counts as good only within {FAST:g} CPU s of the case (column s: CPU "
        f"seconds), a case running past {TIMEOUT} wall s is a hang.",
        "",
        "| class | good | bad |",
        "|---|---|---|",
    ]
    for cls, (g, b) in by_cls.items():
        lines.append(f"| {cls} | {g} | {b} |")
    tg = sum(v[0] for v in by_cls.values())
    tb = sum(v[1] for v in by_cls.values())
    lines += [f"| **total** | **{tg}** | **{tb}** |", ""]
    lines += ["| case | class | verdict | s | ended as |", "|---|---|---|---|---|"]
    for r in rows:
        why = r["why"].replace("|", "\\|").replace("\n", " ")[:140]
        verdict = "good" if r["good"] else "**bad**"
        lines.append(f"| {r['case']} | {r['class']} | {verdict} | {r['s']:.2f} | {why} |")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="")
    ap.add_argument("--json", default=None)
    ap.add_argument("--md", default=None, help="write the class table and every case here")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    ns: dict = {}
    exec(SETUP, ns)  # noqa: S102
    # imported once, before the forks (a child's time is its case's, not the imports')
    for mod in (
        "torch",
        "sklearn.feature_selection",
        "infometer.workflows.sklearn",
        "infometer.systems.models.activations",
        "infometer.systems.extract.bench",
        "infometer.systems.extract._sandbox",
        "infometer.measures.dynamics._network",
        "infometer.cli.app",
        "typer.testing",
    ):
        try:
            __import__(mod)
        except ImportError:
            pass
    rows = []
    by_cls: dict[str, list[int]] = {}
    for cid, cls, code, judge in C:
        if a.k and a.k not in cid:
            continue
        outcome = run_case(code, ns)
        good, why = judge.judge(outcome)
        rows.append({"case": cid, "class": cls, "good": good, "why": why, "s": outcome[2]})
        g = by_cls.setdefault(cls, [0, 0])
        g[0 if good else 1] += 1
        if a.v or not good:
            print(f"{'good' if good else 'BAD '} [{cls}] {cid}: {why}", flush=True)
    tot_g = sum(v[0] for v in by_cls.values())
    tot_b = sum(v[1] for v in by_cls.values())
    for cls, (g, b) in by_cls.items():
        print(f"{cls:10s} good {g:4d}  bad {b:4d}")
    print(f"{'total':10s} good {tot_g:4d}  bad {tot_b:4d}  ({len(rows)} cases)")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    if a.md:
        _markdown(a.md, rows, by_cls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
