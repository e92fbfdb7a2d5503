"""Parameter constraints as data (issue 37 §2, issue 40): the bad-input sweep is driven by
the declarations themselves.

Every public function of the newer families with a long signature declares what each
parameter accepts with :func:`infometer.core.validation.validate_params`; this module
reads those declarations (:func:`~infometer.core.validation.parameter_constraints`),
throws each constraint's own bad values (:meth:`Constraint.bad_values`: strings, bools,
floats for integers, NaN/inf, values out of range, sizes above their limit, strings where
a list goes, empty lists...) at the declared parameter of a small good call, and checks
that each is refused with a ``TypeError``/``ValueError`` naming the parameter.  A size
above its limit (10¹² surrogates, 10⁹ pages...) would hang or exhaust memory if it were
not refused before the work, so these tests also show that the refusals come first.

A new declaration is swept without a new test; a function that loses its declaration
fails :func:`test_long_signatures_declare_their_parameters`.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import infometer as im
from infometer.core import validation as V
from infometer.core.validation import parameter_constraints

RNG = np.random.default_rng(0)
X5 = RNG.normal(size=(60, 5))
X5[:, 1] += X5[:, 0]
SIG = RNG.normal(size=300)
P2 = np.array([[0.4, 0.1], [0.1, 0.4]])
TS = RNG.normal(size=(120, 3))
TS[1:, 1] += 0.8 * TS[:-1, 0]


def _activations():
    from infometer.systems.models import activations

    return activations


def _net():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))


def _xy():
    return RNG.normal(size=(40, 4)).astype("float32"), np.arange(40) % 2


#: name -> (the function, a function of one keyword dict that calls it with good arguments)
CALLS = {
    "multiplets": (lambda: im.multiplets, lambda kw: im.multiplets(X5, **kw)),
    "infer_network": (
        lambda: im.infer_network,
        lambda kw: im.infer_network(TS, max_lag=1, cmi="gaussian", n_permutations=20, **kw),
    ),
    "pairwise": (
        lambda: im.pairwise,
        lambda kw: im.pairwise(X5, **({"method": "gaussian_copula"} | kw)),
    ),
    "pid_pairs": (lambda: im.pid_pairs, lambda kw: im.pid_pairs(X5[:, :3], X5[:, 3], **kw)),
    "multivariate_test": (
        lambda: im.multivariate_test,
        lambda kw: im.multivariate_test(X5[:, :3], n_permutations=19, **kw),
    ),
    "channel_capacity": (
        lambda: im.exact.channel_capacity,
        lambda kw: im.exact.channel_capacity([[0.9, 0.1], [0.2, 0.8]], **kw),
    ),
    "rate_distortion": (
        lambda: im.exact.rate_distortion,
        lambda kw: im.exact.rate_distortion(
            [0.5, 0.5], 1 - np.eye(2), **({"beta": 1.0} | kw if "max_distortion" not in kw else kw)
        ),
    ),
    "rate_distortion_curve": (
        lambda: im.exact.rate_distortion_curve,
        lambda kw: im.exact.rate_distortion_curve([0.5, 0.5], 1 - np.eye(2), n_points=3, **kw),
    ),
    "information_bottleneck": (
        lambda: im.exact.information_bottleneck,
        lambda kw: im.exact.information_bottleneck(P2, **({"beta": 2.0, "n_init": 2} | kw)),
    ),
    "ib_curve": (
        lambda: im.exact.ib_curve,
        lambda kw: im.exact.ib_curve(P2, **({"betas": [1.0, 3.0], "n_init": 2} | kw)),
    ),
    "multiscale": (lambda: im.multiscale, lambda kw: im.multiscale(SIG, **({"scales": 2} | kw))),
    "plane_limits": (
        lambda: im.complexity_entropy_plane.__globals__["plane_limits"],
        lambda kw: im.complexity_entropy_plane.__globals__["plane_limits"](
            **({"n": 6, "points": 5} | kw)
        ),
    ),
    "run_jobs": (
        lambda: __import__("infometer.core.parallel", fromlist=["x"]).run_jobs,
        lambda kw: __import__("infometer.core.parallel", fromlist=["x"]).run_jobs(
            abs,
            {1: -1},
            __import__("infometer.core.parallel", fromlist=["x"]).MemorySink(),
            **({"n_jobs": 1} | kw),
        ),
    ),
    "make_records": (
        lambda: _sites().make_records,
        lambda kw: _sites().make_records(**({"domain": "book", "n": 3} | kw)),
    ),
    "make_layout": (
        lambda: _sites().make_layout,
        lambda kw: _sites().make_layout(**({"domain": "book", "template": "div_grid"} | kw)),
    ),
    "make_group": (
        lambda: _sites().make_group,
        lambda kw: _sites().make_group(
            **({"domain": "book", "template": "div_grid", "n_pages": 2} | kw)
        ),
    ),
    "make_sites": (
        lambda: _sites().make_sites,
        lambda kw: _sites().make_sites(**({"n_groups": 2, "pages_per_group": 1} | kw)),
    ),
    "drift": (
        lambda: _sites().drift,
        lambda kw: _sites().drift(**({"layout": _layout(), "kind": "wrapper"} | kw)),
    ),
    "version_clock": (
        lambda: _sites().version_clock,
        lambda kw: _sites().version_clock(**({"layout": _layout(), "kinds": ["grid"]} | kw)),
    ),
    "template_extractor": (
        lambda: _sites().template_extractor,
        lambda kw: _sites().template_extractor(**({"layout": _layout()} | kw)),
    ),
    "make_benchmark": (
        lambda: _liveweb().make_benchmark,
        lambda kw: _liveweb().make_benchmark(**({"pages_per_group": 1} | kw)),
    ),
    "extract bench run": (
        lambda: _bench().run,
        lambda kw: _bench().run(**({"out": "unused-folder"} | kw)),
    ),
    "extract bench run_part": (
        lambda: _bench().run_part,
        lambda kw: _bench().run_part(**({"part": "bridge", "size": "tiny"} | kw)),
    ),
}

#: Calls whose good base call is a long run (the refusals are instant; the run is not).
NO_GOOD_RUN = {"extract bench run", "extract bench run_part"}


def _sites():
    from infometer.systems.extract import _sites as sites

    return sites


def _liveweb():
    from infometer.systems.extract import liveweb

    return liveweb


def _bench():
    from infometer.systems.extract import bench

    return bench


def _layout():
    return _sites().make_layout("book", "div_grid")


def _cases():
    out = []
    for fid, (get, _) in CALLS.items():
        for name, allowed in parameter_constraints(get()).items():
            for i, bad in enumerate(_refused_values(allowed)):
                out.append(pytest.param(fid, name, bad, id=f"{fid}-{name}-{i}"))
    return out


def _refused_values(allowed) -> list:
    """The constraints' own bad values that none of the alternatives accepts."""
    out = []
    for c in allowed:
        if c is None:
            continue
        for v in c.bad_values():
            try:
                V.check_params({"p": allowed}, {"p": v})
            except (TypeError, ValueError):
                out.append(v)
    return out


def _named(exc: BaseException, name: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", str(exc)) is not None


@pytest.mark.parametrize("fid,name,bad", _cases())
def test_declared_parameters_refuse_their_bad_values(fid, name, bad):
    _, call = CALLS[fid]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((TypeError, ValueError)) as info:
            call({name: bad})
    assert _named(info.value, name), f"{name!r} not named in: {info.value}"


@pytest.mark.parametrize("fid", sorted(set(CALLS) - NO_GOOD_RUN))
def test_the_good_calls_run(fid):
    """The base calls of the sweep are valid: the refusals above come from the bad value."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        CALLS[fid][1]({})


@pytest.mark.parametrize("fid", sorted(CALLS))
def test_every_declared_parameter_has_bad_values(fid):
    for name, allowed in parameter_constraints(CALLS[fid][0]()).items():
        assert _refused_values(allowed), f"{fid}({name}=...) has no value to refuse"


#: The long signatures of issue 37 §2 and issue 40 that must keep their declarations.
LONG = ["pairwise", "multiplets", "infer_network", "pid_pairs", "multivariate_test", "run_jobs"]


@pytest.mark.parametrize("fid", LONG)
def test_long_signatures_declare_their_parameters(fid):
    decl = parameter_constraints(CALLS[fid][0]())
    assert len(decl) >= 4, decl


# ------------------------------------------------------------------ the mechanism
def test_validate_params_canonicalises_and_checks_in_order():
    @V.validate_params(
        {
            "k": [V.Interval(__import__("numbers").Integral, 1)],
            "n": [V.Size(1, limit="most", what="draws")],
            "most": [V.Interval(__import__("numbers").Integral, 1)],
            "lags": [V.Many(V.Interval(__import__("numbers").Integral, 1), distinct=True), None],
        }
    )
    def f(k=1, n=1, most=10, lags=None):
        return k, n, most, lags

    assert f(np.int64(3), lags=(2, 1)) == (3, 1, 10, [2, 1])
    assert type(f(np.int64(3))[0]) is int
    assert f(n=50, most=100)[1] == 50  # the limit is read from the other parameter
    with pytest.raises(ValueError, match="n asks for 50 draws .* limit of 10; pass most="):
        f(n=50)
    with pytest.raises(ValueError, match="lags holds 1 more than once"):
        f(lags=[1, 1])
    with pytest.raises(TypeError, match="lags must be a list of values, got the string"):
        f(lags="12")
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        f(bogus=1)
    assert parameter_constraints(f).keys() == {"k", "n", "most", "lags"}


def test_many_reads_the_length_of_a_lazy_array_first():
    huge = np.broadcast_to(1.0, (10**12,))  # 8 TB if it were read
    c = V.Many(V.Interval(__import__("numbers").Real, 0), limit=100, what="slopes")
    with pytest.raises(ValueError, match="asks for 1e\\+12 slopes"):
        V.check_params({"b": [c]}, {"b": huge})


@pytest.mark.parametrize(
    "shape,copies", [((30_000, 30_000), 5), ((100_000, 100_000), 1), ((2**31,), 5)]
)
def test_tables_refused_from_their_shape(shape, copies):
    view = np.broadcast_to(0.5, shape)
    with pytest.raises(ValueError, match=r"GiB, above the limit of 8 GiB"):
        V.check_real_array(view, "channel", copies=copies)


def test_tables_inside_the_limit_are_read():
    a = V.check_real_array(np.broadcast_to(0.5, (100, 100)), "p", copies=5)
    assert a.shape == (100, 100) and a.dtype == np.float64 and math.isclose(a.sum(), 5000.0)
