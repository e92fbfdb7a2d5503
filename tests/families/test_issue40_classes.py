"""Bad input to the newest families, one class at a time (issue 40).

Each class of bad input has one handling place; each test sweeps many cases of the class
over every public function of the multivariate, dynamics, complexity, channels,
FleS/activations, extract and decision families that takes such an argument (the audit
is re-run with other cases of the same classes):

* too few rows or samples (one row, four samples, empty containers) -> the families'
  readers (``multivariate.measures.split_variables``, ``complexity.estimators._signal``);
* huge requests (sizes, counts, tables) -> ``validation.Size`` / ``check_budget`` /
  ``check_memory`` / ``check_real_array(copies=)``, before anything is allocated;
* repeated lags, strings where a list goes, wrong object types -> ``check_lags``,
  ``validation.Many`` / ``Instance``;
* unknown keywords -> the registry's ``check_params`` (also for ``infer_network``);
* values that overflow float64 -> ``complexity.measures.rescaled`` (scale-free measures)
  or a refusal that says why (fuzzy entropy);
* constant or missing scores -> ``bridge.rank_agreement``;
* scikit-learn's input errors -> named ``X:``/``y:`` (``workflows.sklearn._named``).

Every refusal is a ``TypeError``/``ValueError`` naming the argument.
"""

from __future__ import annotations

import math
import re
import time
import warnings

import numpy as np
import pytest

import infometer as im
from infometer.measures import complexity as cx
from infometer.measures import dynamics as dyn
from infometer.measures import exact
from infometer.measures.complexity import _measures as _cx_measures

RNG = np.random.default_rng(40)
X5 = RNG.normal(size=(200, 5))
X5[:, 1] += X5[:, 0]
SIG = RNG.normal(size=2000)
TS = RNG.normal(size=(300, 3))
TS[1:, 1] += 0.8 * TS[:-1, 0]
P2 = np.array([[0.4, 0.1], [0.1, 0.4]])


def _named(exc: BaseException, name: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", str(exc)) is not None


def _refused(f, name: str, kind=(TypeError, ValueError)):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(kind) as info:
            f()
    assert _named(info.value, name), f"{name!r} not named in: {info.value}"
    return info.value


# ------------------------------------------------------------------ too few rows
MULTI = [
    "o_information",
    "total_correlation",
    "dual_total_correlation",
    "s_information",
    "co_information",
    "gradient_o_information",
]
FEW = {
    "one row": lambda: X5[:1],
    "one row of symbols": lambda: (X5[:1] > 0).astype(int),
    "one row, dict": lambda: {"a": X5[:1, 0], "b": X5[:1, 1], "c": X5[:1, 2]},
    "empty dict": lambda: {},
}


@pytest.mark.parametrize("few", sorted(FEW))
@pytest.mark.parametrize(
    "call",
    [
        *[pytest.param(lambda X, q=q: getattr(im, q)(X), id=q) for q in MULTI],
        pytest.param(lambda X: im.multivariate_test(X, n_permutations=9), id="multivariate_test"),
        pytest.param(lambda X: im.multiplets(X), id="multiplets"),
        pytest.param(lambda X: im.pid_pairs(X, np.zeros(len(X) or 1)), id="pid_pairs"),
    ],
)
def test_too_few_rows_class_multivariate(call, few):
    """One row used to give 0 for every quantity (every column 'constant, dropped') and
    p = 1; an empty dict an empty result."""
    err = _refused(lambda: call(FEW[few]()), "X")
    assert "at least 2 rows" in str(err) or "empty dict" in str(err)


def test_too_few_rows_pid_names_sources():
    _refused(lambda: im.pid(X5[:1, :2], X5[:1, 2]), "sources")


def test_two_rows_meet_the_methods_own_minimum():
    _refused(lambda: im.o_information(X5[:2]), "gaussian_copula")  # d + 2 = 7 rows


MEASURES_1D = sorted(_cx_measures.MEASURES)


@pytest.mark.parametrize("measure", MEASURES_1D)
@pytest.mark.parametrize("n", [1, 2, 4, 9])
def test_too_few_samples_class_complexity(measure, n):
    err = _refused(lambda: cx.complexity(SIG[:n], measure), "x")
    assert "at least 10" in str(err)


@pytest.mark.parametrize("measure", ["permutation", "sample", "spectral"])
@pytest.mark.parametrize("blocks", [1, 201, 10**6, -1])
def test_stderr_blocks_out_of_range_named(measure, blocks):
    """10⁶ blocks of a 2000-sample signal used to say 'no posterior spread'."""
    err = _refused(
        lambda: cx.complexity(SIG, measure, ci=0.9, stderr_blocks=blocks), "stderr_blocks"
    )
    assert "2..200" in str(err) or ">= 0" in str(err)


def test_stderr_blocks_at_the_limit_are_used():
    e = cx.complexity(SIG, "permutation", ci=0.9, stderr_blocks=200)
    assert e.ci is not None and e.stderr > 0


@pytest.mark.parametrize("signals", [{}, [], (), "abc", 3])
def test_empty_or_wrong_containers_of_signals(signals):
    _refused(lambda: cx.complexity_entropy_plane(signals), "signals")


# ------------------------------------------------------------------ orders
ORDINAL = ["permutation", "weighted_permutation", "modified_permutation", "statistical_complexity"]


@pytest.mark.parametrize("measure", ORDINAL)
@pytest.mark.parametrize("order", [2.5, -1, 0, "3", 11, True])
def test_order_class_never_leaks_factorial(measure, order):
    """Non-integer or negative orders used to leak math.factorial's messages."""
    err = _refused(lambda: cx.complexity(SIG, measure, order=order), "order")
    assert "factorial" not in str(err)


@pytest.mark.parametrize("order", [1, 2.5, -1, 11])
def test_statistical_complexity_and_the_plane_need_order_two(order):
    _refused(lambda: cx.complexity(SIG, "statistical_complexity", order=order), "order")
    _refused(lambda: cx.complexity_entropy_plane([SIG], order=order), "order")


# ------------------------------------------------------------------ overflow
SCALE_FREE = sorted(_cx_measures.SCALE_FREE - {"permutation_2d"})


@pytest.mark.parametrize("measure", SCALE_FREE)
@pytest.mark.parametrize("scale", [2.0**1000, 2.0**-1000, 2.0**500, 2.0**-600])
def test_scale_free_measures_do_not_overflow(measure, scale):
    """Ground truth: these measures are invariant to the signal's scale, and a power of
    two multiplies a float exactly, so the value at any scale is the value at scale 1
    (``complexity(signal * 1e300)`` used to be NaN or a LinAlgError)."""
    ref = cx.complexity(SIG, measure).value
    got = cx.complexity(SIG * scale, measure).value
    assert math.isfinite(got)
    assert got == pytest.approx(ref, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("scale", [1e300, -1e300, 1e200])
def test_fuzzy_entropy_at_an_overflowing_scale_is_refused_with_the_reason(scale):
    """Fuzzy entropy's membership exp(-d^n / (r sd)) is not scale-free: never rescaled,
    refused where it overflows or underflows (it was NaN)."""
    err = _refused(lambda: cx.complexity(SIG * scale, "fuzzy"), "x")
    assert "scale" in str(err)


def test_multiscale_rescales_like_complexity():
    a = cx.multiscale(SIG, "sample", scales=3).values
    b = cx.multiscale(SIG * 2.0**1000, "sample", scales=3).values
    np.testing.assert_allclose(b, a, rtol=1e-12)


# ------------------------------------------------------------------ lags
@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda lags: im.active_info_storage(SIG[:500], lags=lags), id="ais"),
        pytest.param(lambda lags: im.entropy_rate(SIG[:500], lags=lags), id="entropy_rate"),
        pytest.param(lambda lags: dyn.local_active_info_storage(SIG[:500], lags=lags), id="local"),
    ],
)
@pytest.mark.parametrize("lags", [[1, 1], [2, 1, 2], [3, 3, 3], [], [0], [1.5], "12"])
def test_lags_class(call, lags):
    """[1, 1] used to be read as [1] without a word."""
    _refused(lambda: call(lags), "lags")


# ------------------------------------------------------------------ unknown keywords
@pytest.mark.parametrize("method", ["mte", "bivariate_te", "pcmci", "pcmciplus"])
@pytest.mark.parametrize("cmi", ["auto", "gaussian", "ksg1"])
@pytest.mark.parametrize("bogus", ["bogus", "kk", "n_neighbours"])
def test_unknown_keywords_class_infer_network(method, cmi, bogus):
    """Accepted silently by all four methods before."""
    _refused(lambda: im.infer_network(TS, method=method, max_lag=1, cmi=cmi, **{bogus: 1}), bogus)


def test_known_cmi_keywords_still_pass():
    net = im.infer_network(TS, method="mte", max_lag=1, cmi="ksg1", k=4, n_permutations=19)
    assert net.diagnostics["cmi_params"] == {"k": 4}


@pytest.mark.parametrize("call", [cx.complexity, cx.multiscale])
def test_unknown_keywords_class_complexity(call):
    _refused(lambda: call(SIG, "sample", bogus=1), "bogus")


# ------------------------------------------------------------------ strings and types
def _sites():
    from infometer.systems.extract import _sites as sites

    return sites


def _layout():
    return _sites().make_layout("book", "div_grid")


WRONG = {
    "layout_entropy string": (
        lambda: __import__("infometer.systems.extract.bridge", fromlist=["x"]).layout_entropy(
            "<p>x</p>"
        ),
        "pages",
    ),
    "layout_entropy [1, 2]": (
        lambda: __import__("infometer.systems.extract.bridge", fromlist=["x"]).layout_entropy(
            [1, 2]
        ),
        "pages",
    ),
    "version_clock kinds string": (lambda: _sites().version_clock(_layout(), "wrapper"), "kinds"),
    "make_sites templates string": (
        lambda: _sites().make_sites(2, 2, templates="infobox"),
        "templates",
    ),
    "make_sites templates []": (lambda: _sites().make_sites(2, 2, templates=[]), "templates"),
    "drift 'x'": (lambda: _sites().drift("x", "wrapper"), "layout"),
    "template_extractor 'x'": (lambda: _sites().template_extractor("x"), "layout"),
    "version_clock 'x'": (lambda: _sites().version_clock("x"), "layout"),
    "make_group layout 'x'": (
        lambda: _sites().make_group("book", "div_grid", 2, layout="x"),
        "layout",
    ),
    "make_group records_per_page (5, 2)": (
        lambda: _sites().make_group("book", "div_grid", 2, records_per_page=(5, 2)),
        "records_per_page",
    ),
    "make_group records_per_page 3": (
        lambda: _sites().make_group("book", "div_grid", 2, records_per_page=3),
        "records_per_page",
    ),
    "make_records -1": (lambda: _sites().make_records("book", -1), "n"),
    "make_sites -1": (lambda: _sites().make_sites(-1, 2), "n_groups"),
    "infer_network targets string": (
        lambda: im.infer_network(TS, max_lag=1, cmi="gaussian", targets="x1"),
        "targets",
    ),
}


@pytest.mark.parametrize("case", sorted(WRONG))
def test_wrong_types_and_strings_for_lists(case):
    call, name = WRONG[case]
    err = _refused(call, name)
    assert "object is not iterable" not in str(err) and "has no attribute" not in str(err)


@pytest.mark.parametrize("bad", [5, None, 2.5, "abc", [5], [("a", "b")]])
@pytest.mark.parametrize("which", ["pred", "gold"])
def test_triples_class(bad, which):
    from infometer.systems.extract._metrics import fuzzy_f1, set_prf

    good = [("a", "b", "c")]
    args = {"pred": good, "gold": good, which: bad}
    _refused(lambda: fuzzy_f1(args["pred"], args["gold"]), which)
    if not isinstance(bad, list):
        _refused(lambda: set_prf(args["pred"], args["gold"]), which)


@pytest.mark.parametrize("returned", [None, 5, [5], [("a", "b")], 2.5])
def test_an_extractor_that_returns_no_triples_is_named(returned):
    from infometer.systems.extract.bridge import extraction_mutual_info

    _refused(
        lambda: extraction_mutual_info(["a b c", "d e f", "g h i"], lambda d: returned),
        "extractor",
    )


@pytest.mark.parametrize(
    "first,second,name",
    [
        ([1, 1, 1], [1, 2, 3], "first"),
        ([1, 2, 3], [2, 2, 2], "second"),
        ([1, np.nan, 3], [1, 2, 3], "first"),
        ([1, 2, 3], [1, 2, np.inf], "second"),
        ([1, 2, 3], [1, 2], "second"),
        ([1, 2], [1, 2], "first"),
        ("abc", [1, 2, 3], "first"),
    ],
)
def test_rank_agreement_constant_missing_or_short(first, second, name):
    from infometer.systems.extract.bridge import rank_agreement

    _refused(lambda: rank_agreement(first, second), name)


def test_rank_agreement_value():
    from infometer.systems.extract.bridge import rank_agreement

    assert rank_agreement([0.1, 0.5, 0.9, 0.2], [1.0, 2.0, 3.0, 0.0]) == pytest.approx(0.8)


# ------------------------------------------------------------------ FleS
def _net():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))


@pytest.mark.parametrize("channel_dim", [5, 0, 1, -2, 100])
def test_channel_dim_checked_when_the_model_is_built(channel_dim):
    """It used to fail only at the first forward pass."""
    from infometer.systems.models.activations import swap_activations

    _refused(lambda: swap_activations(_net(), "fles", channel_dim=channel_dim), "channel_dim")
    torch = pytest.importorskip("torch")
    example = torch.zeros(3, 4)
    if channel_dim not in (1, -1):  # with an input, other axes are checked against it
        _refused(
            lambda: swap_activations(
                _net(), "fles", channel_dim=channel_dim, example_input=example
            ),
            "channel_dim",
        )


def test_channel_dim_that_fits_is_accepted():
    from infometer.systems.models.activations import swap_activations

    torch = pytest.importorskip("torch")
    net = _net()
    assert swap_activations(net, "fles", channel_dim=-1) == ["1"]
    assert net(torch.zeros(3, 4)).shape == (3, 2)


@pytest.mark.parametrize("layers", [[], ["nope"], "0", [0], ["0", "0"]])
def test_layer_curves_layers_class(layers):
    from infometer.systems.models.activations import layer_curves

    x, y = RNG.normal(size=(40, 4)).astype("float32"), np.arange(40) % 2
    _refused(lambda: layer_curves(_net(), x, y, layers=layers), "layers")


# ------------------------------------------------------------------ huge requests
def _act():
    from infometer.systems.models import activations

    return activations


def _bd(**kw):
    x, y = RNG.normal(size=(40, 4)).astype("float32"), np.arange(40) % 2
    return _act().batch_dependence(_net(), x, y, **kw)


HUGE = {
    "multiplets n_permutations": (
        lambda: im.multiplets(X5, n_permutations=10**8),
        "n_permutations",
    ),
    "multiplets surrogates x columns": (
        lambda: im.multiplets(RNG.normal(size=(50, 40)), n_permutations=10**6),
        "n_permutations",
    ),
    "multiplets sizes, max_multiplets raised": (
        lambda: im.multiplets(RNG.normal(size=(300, 200)), sizes=(3, 200), max_multiplets=10**80),
        "sizes",
    ),
    "multiplets greedy over 200 sizes": (
        lambda: im.multiplets(RNG.normal(size=(300, 200)), sizes=(3, 200), search="greedy"),
        "sizes",
    ),
    "multiplets beam over 200 sizes": (
        lambda: im.multiplets(
            RNG.normal(size=(300, 200)), sizes=(3, 200), search="beam", beam_width=50
        ),
        "sizes",
    ),
    "gradient_o_information ksg": (
        lambda: im.gradient_o_information(RNG.normal(size=(300, 500)), method="ksg"),
        "X",
    ),
    "o_information ksg": (
        lambda: im.o_information(RNG.normal(size=(300, 2000)), method="ksg"),
        "X",
    ),
    "infer_network n_permutations_omnibus": (
        lambda: im.infer_network(TS, max_lag=1, n_permutations_omnibus=10**9, cmi="gaussian"),
        "n_permutations_omnibus",
    ),
    "channel_capacity 3e4 square": (
        lambda: exact.channel_capacity(np.broadcast_to(1 / 30_000, (30_000, 30_000))),
        "channel",
    ),
    "channel_capacity 1e5 square": (
        lambda: exact.channel_capacity(np.broadcast_to(1e-5, (100_000, 100_000))),
        "channel",
    ),
    "rate_distortion 3e4": (
        lambda: exact.rate_distortion(
            np.full(30_000, 1 / 30_000), np.broadcast_to(1.0, (30_000, 30_000)), beta=1.0
        ),
        "distortion",
    ),
    "information_bottleneck 5e4": (
        lambda: exact.information_bottleneck(
            np.broadcast_to(1 / 50_000**2, (50_000, 50_000)), beta=2.0
        ),
        "pxy",
    ),
    "information_bottleneck n_clusters": (
        lambda: exact.information_bottleneck(P2, beta=2.0, n_clusters=10**9),
        "n_clusters",
    ),
    "information_bottleneck n_init": (
        lambda: exact.information_bottleneck(P2, beta=2.0, n_init=10**9),
        "n_init",
    ),
    "ib_curve betas": (lambda: exact.ib_curve(P2, betas=np.broadcast_to(2.0, (10**8,))), "betas"),
    "rate_distortion_curve n_points": (
        lambda: exact.rate_distortion_curve([0.5, 0.5], 1 - np.eye(2), n_points=10**9),
        "n_points",
    ),
    "capacity from samples": (
        lambda: im.channel_capacity_from_samples(np.arange(50_000), np.arange(50_000)[::-1]),
        "x, y",
    ),
    "multiscale scales int": (lambda: cx.multiscale(SIG, scales=10**9), "scales"),
    "multiscale scales list": (lambda: cx.multiscale(SIG, scales=[1, 10**9]), "scales"),
    "plane_limits n": (lambda: cx.plane_limits(10**9), "n"),
    "make_activation fles": (lambda: _act().make_activation("fles", 10**11), "channels"),
    "FleS channels": (lambda: _act().FleS(10**10), "channels"),
    "batch_dependence repeats": (lambda: _bd(repeats=10**9), "repeats"),
    "batch_dependence batch_size": (lambda: _bd(batch_size=10**9), "batch_size"),
    "negative_gate_ratio_mc n": (lambda: _act().negative_gate_ratio_mc(0.0, 1.0, n=10**12), "n"),
    "context_task n": (lambda: _act().context_task(10**12), "n"),
    "make_group n_pages": (lambda: _sites().make_group("book", "div_grid", 10**9), "n_pages"),
    "make_group records_per_page": (
        lambda: _sites().make_group("book", "div_grid", 2, records_per_page=(10**7, 10**7)),
        "records_per_page",
    ),
    "make_group pages x records": (
        lambda: _sites().make_group("book", "div_grid", 999_999, records_per_page=(9, 9)),
        "n_pages",
    ),
    "make_sites groups": (lambda: _sites().make_sites(10**9, 2), "n_groups"),
    "make_records": (lambda: _sites().make_records("book", 10**9), "n"),
    "permutation_test": (
        lambda: __import__("infometer.systems.probes.decoding", fromlist=["x"]).permutation_test(
            np.arange(100) % 2, predictions=np.arange(100) % 2, n_permutations=10**12
        ),
        "n_permutations",
    ),
    "run_jobs n_jobs": (
        lambda: __import__("infometer.core.parallel", fromlist=["x"]).run_jobs(
            abs,
            {1: 1},
            __import__("infometer.core.parallel", fromlist=["x"]).MemorySink(),
            n_jobs=10**6,
        ),
        "n_jobs",
    ),
    "Execution n_jobs": (lambda: im.Execution(n_jobs=10**6), "n_jobs"),
}


@pytest.mark.parametrize("case", sorted(HUGE))
def test_huge_requests_refused_up_front(case):
    """Each would hang or allocate gigabytes to terabytes; refused before the work with the
    size, the estimate and the limit (the inputs are tiny or lazy broadcast views)."""
    call, name = HUGE[case]
    t0 = time.perf_counter()
    err = _refused(call, name, kind=ValueError)
    msg = str(err)
    assert "limit" in msg, msg
    assert re.search(r"\d", msg), msg  # states the size / estimate
    assert time.perf_counter() - t0 < 120  # a guard against a hang, never a timing claim


def test_pcmciplus_on_near_collinear_series_is_refused_while_the_skeleton_starts():
    """16 near-collinear series: every contemporaneous link survives every condition, the
    skeleton's tests grow as 2^15 per pair; refused once a level removes no link (docs)."""
    z = RNG.normal(size=(400, 1))
    data = z + 1e-3 * RNG.normal(size=(400, 16))
    err = _refused(lambda: im.infer_network(data, method="pcmciplus", max_lag=1), "data")
    assert "max_conds_dim" in str(err) and "min at the" in str(err)


# ------------------------------------------------------------------ library users
@pytest.mark.parametrize(
    "fit,name",
    [
        (lambda s: s.fit(np.arange(30.0), np.arange(30) % 2), "X"),
        (lambda s: s.fit(np.where(np.eye(30, 3) > 0, np.nan, 1.0), np.arange(30) % 2), "X"),
        (lambda s: s.fit(np.full((30, 3), "a"), np.arange(30) % 2), "X"),
        (lambda s: s.fit(X5[:30], np.arange(29) % 2), "y"),
        (lambda s: s.fit(X5[:30], np.r_[np.nan, np.arange(29) % 2]), "y"),
        (lambda s: s.fit(np.zeros((0, 3)), np.zeros(0)), "X"),
        (lambda s: s.fit(np.zeros((30, 3, 2)), np.arange(30) % 2), "X"),
        (lambda s: s.fit(X5[:30], np.zeros((30, 2))), "y"),
        (lambda s: s.fit(None, np.arange(30) % 2), "X"),
        (lambda s: s.fit(X5[:30], None), "y"),
    ],
)
def test_selector_names_x_or_y(fit, name):
    """scikit-learn's own messages surfaced unnamed (8 cases in the audit)."""
    from infometer.workflows.sklearn import MutualInfoSelector

    err = _refused(lambda: fit(MutualInfoSelector(k=2, n_jobs=1)), name)
    assert str(err).startswith(f"{name}") or f" {name} " in str(err)


@pytest.mark.parametrize(
    "kw,name",
    [
        ({"lock": "DIR"}, "lock"),
        ({"progress": "yes"}, "progress"),
        ({"progress": 1}, "progress"),
        ({"lock_timeout": -1.0}, "lock_timeout"),
        ({"interruptible": "no"}, "interruptible"),
    ],
)
def test_run_jobs_arguments_named(tmp_path, kw, name):
    from infometer.core.parallel import MemorySink, run_jobs

    kw = {k: (tmp_path if v == "DIR" else v) for k, v in kw.items()}
    _refused(lambda: run_jobs(abs, {1: -1}, MemorySink(), n_jobs=1, **kw), name)


# ------------------------------------------------------------------ warnings
@pytest.mark.parametrize(
    "call",
    [
        pytest.param(
            lambda: im.infer_network(TS[:, :2], max_lag=1, n_permutations=19, cmi="gaussian"),
            id="infer_network few permutations",
        ),
        pytest.param(
            lambda: im.pid_pairs(X5[:50, :3], X5[:50, 0] + X5[:50, 1] - X5[:50, 1]),
            id="pid_pairs singular",
        ),
    ],
)
def test_warnings_of_declared_functions_point_at_the_users_line(call):
    """The declarations' wrapper is one more frame: a fixed stacklevel pointed into
    validation.py; ``warn_user`` finds the first frame outside the package (whose root
    is ``infometer/``, not its ``core`` layer)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    assert seen, "the case warns"
    assert {w.filename for w in seen} == {__file__}, [(w.filename, str(w.message)) for w in seen]
