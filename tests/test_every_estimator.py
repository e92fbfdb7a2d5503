"""``ci=``, re-running with the recorded params, and ``independence_test`` for *every*
registered estimator (issue 9 §3).

The parametrisation is read from :func:`infometer.core.registry.specs`, so an estimator added
by a new family is exercised here the day it registers, without editing this file.
Torch-trained estimators run at tiny settings (a smoke test of the plumbing, not of
accuracy: that is in their own tests and in benchmarks/).
"""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest

import infometer as im
from infometer.core import registry
from infometer.core.api import run
from infometer.core.data import as_variables

#: Settings that make a trainable estimator take well under a second (only the names a spec
#: has are passed): ci= re-trains it 10 times (resampling="seeds").
TINY = {"steps": 10, "hidden": 8, "passes": 1, "batch_size": 32, "progress": False}
N = 80
HAS_TORCH = importlib.util.find_spec("torch") is not None
#: Families whose estimators train torch models (skipped without torch, one torch thread).
TORCH_FAMILIES = ("diffusion", "neural")


def _roles(quantity: str) -> tuple[str, ...]:
    roles = registry.QUANTITY_ROLES[quantity]
    # optional trailing roles (transfer entropy's ``cond``) are left out
    return roles[:2] if quantity == "transfer_entropy" else roles


def _data(quantity: str, continuous: bool, seed: int = 0) -> dict[str, np.ndarray]:
    """Small dependent data of the right kind for every role of ``quantity``."""
    rng = np.random.default_rng(seed)
    if quantity in registry.EXAMPLES:  # a family's own quantity brings its own example
        return registry.EXAMPLES[quantity](rng)
    roles = _roles(quantity)
    if continuous:
        base = rng.normal(size=N)
        cols = [base + rng.normal(size=N) for _ in roles]
    else:
        base = rng.integers(0, 3, size=N)
        cols = [(base + (rng.random(N) < 0.3)) % 3 for _ in roles]
    return dict(zip(roles, cols, strict=True))


@pytest.fixture(autouse=True)
def _one_torch_thread(request):
    # the suite runs on 2 shared cores: torch's default intra-op threads thrash there
    spec = getattr(request.node, "callspec", None)
    spec = spec.params.get("spec") if spec else None
    if spec is None or spec.family not in TORCH_FAMILIES or not HAS_TORCH:
        yield
        return
    import torch

    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


def _case(spec: registry.EstimatorSpec) -> tuple[dict, dict]:
    if spec.family in TORCH_FAMILIES and not HAS_TORCH:
        pytest.skip("torch is not installed (extra 'torch')")
    data = _data(spec.quantity, "continuous" in spec.kinds)
    return data, {k: v for k, v in TINY.items() if k in spec.params}


def _all_specs() -> list[registry.EstimatorSpec]:
    """Every registered estimator, aliases (one function under two names) once."""
    seen, out = set(), []
    for s in registry.specs():
        if (s.quantity, s.func) not in seen:
            seen.add((s.quantity, s.func))
            out.append(s)
    return out


@pytest.mark.parametrize("spec", _all_specs(), ids=lambda s: f"{s.quantity}-{s.name}")
def test_ci_and_rerun_with_recorded_params(spec, monkeypatch):
    data, params = _case(spec)
    # resampling="seeds" re-trains MAX_SEEDS times; 3 exercise the same code
    monkeypatch.setattr("infometer.core.resample.MAX_SEEDS", 3)
    variables = as_variables(data, paired=spec.quantity not in registry.UNPAIRED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = run(spec.quantity, variables, method=spec.name, ci=0.9, n_resamples=20, params=params)
        assert est.method == spec.name and np.isfinite(est.value)
        lo, hi = est.ci
        assert np.isfinite(lo) and np.isfinite(hi) and lo <= hi
        assert est.stderr is not None and np.isfinite(est.stderr) and est.stderr >= 0
        # what the Estimate records as its parameters must be valid parameters: a user (or
        # a resampler) that passes them back gets the same number (the `alphabet_size ...
        # got 4.0` bug was a resolved float fed back where an int is required)
        again = run(spec.quantity, variables, method=spec.name, params=dict(est.params))
    assert again.value == pytest.approx(est.value, rel=1e-9, abs=1e-9)


#: Estimators that draw random numbers themselves (jitter, splits, training, Monte Carlo,
#: k="auto" nulls): the ones with a ``seed`` parameter.  The resampling of ``ci=`` is the
#: dispatcher's, one piece of code for every estimator (tests/test_seeding.py), and it is
#: checked here too, with the estimator's own draws.
_RANDOM = [s for s in _all_specs() if "seed" in s.params]


@pytest.mark.parametrize("spec", _RANDOM, ids=lambda s: f"{s.quantity}-{s.name}")
def test_same_seed_same_number(spec, monkeypatch):
    """Same seed, same number (issue 37): a numpy ``Generator`` is accepted as the seed, the
    root drawn from it is recorded, and that int seed reproduces the value (and, outside the
    torch families, the interval and its stderr) bit for bit."""
    data, params = _case(spec)
    monkeypatch.setattr("infometer.core.resample.MAX_SEEDS", 3)
    variables = as_variables(data, paired=spec.quantity not in registry.UNPAIRED)
    ci = None if spec.family in TORCH_FAMILIES else 0.9  # training twice is the point there
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kw = dict(method=spec.name, ci=ci, n_resamples=10, params=params)
        a = run(spec.quantity, variables, seed=np.random.default_rng(11), **kw)
        root = a.diagnostics["seed"]
        assert isinstance(root, int) and root >= 0
        if "seed" in spec.params:
            assert a.params["seed"] == root
        b = run(spec.quantity, variables, seed=root, **kw)
    assert a.value == b.value
    assert (a.ci, a.stderr) == (b.ci, b.stderr)


_TESTABLE = [s for s in _all_specs() if s.quantity in ("mutual_info", "cond_mutual_info")]


@pytest.mark.parametrize("spec", _TESTABLE, ids=lambda s: f"{s.quantity}-{s.name}")
def test_independence_test_runs_with_every_mi_and_cmi_estimator(spec):
    data, params = _case(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = im.independence_test(
            *data.values(), method=spec.name, n_permutations=4, seed=1, **params
        )
    assert res.method == spec.name
    assert res.p_value in {k / 5 for k in range(1, 6)}  # (1 + #{null >= stat}) / (1 + 4)
    assert np.all(np.isfinite(res.null))


def test_the_audit_case_nsb_mi_with_ci():
    # issue 9 §3, verbatim: undersampled discrete MI with ci= raised
    # "TypeError: alphabet_size for x must be an integer, got 4.0" (the parametrised tests
    # above cover shrinkage and every other estimator)
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, 30)
    y = (x + rng.integers(0, 2, 30)) % 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # what im.mutual_info(x, y, method="nsb", ci=0.9) runs, with 20 bootstrap
        # resamples instead of 200 (the failure did not depend on their number)
        e = run("mutual_info", as_variables({"x": x, "y": y}), method="nsb", ci=0.9, n_resamples=20)
    assert e.ci is not None
    assert e.params["alphabet_size"] is None and e.diagnostics["alphabet_size_estimated"]


_AFFINE = [
    s
    for s in _all_specs()
    if s.quantity in ("mutual_info", "cond_mutual_info", "kl_divergence")
    and "continuous" in s.kinds
]


@pytest.mark.parametrize("spec", _AFFINE, ids=lambda s: f"{s.quantity}-{s.name}")
def test_affine_maps_of_continuous_data_change_nothing(spec):
    """MI and CMI do not change when one variable is rescaled or shifted, nor KL when both
    samples are: at scales 2^±600 (exact in floating point, so any difference is the
    estimator's own overflow, underflow or cancellation) to 1e-9, and under an offset of 1e6
    sd to 1e-6 (the data themselves round there).  Every warning numpy raises is an error:
    no overflow, underflow or invalid value on the way."""
    data, params = _case(spec)
    first = next(iter(data))
    both = spec.quantity == "kl_divergence"  # KL: one map for both samples

    def value(a: float, b: float) -> float:
        moved = {k: (v * a + b if (both or k == first) else v) for k, v in data.items()}
        variables = as_variables(moved, paired=spec.quantity not in registry.UNPAIRED)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", im.InfometerWarning)
            with np.errstate(all="raise"):
                return run(spec.quantity, variables, method=spec.name, params=params).value

    ref = value(1.0, 0.0)
    cases = [(2.0**600, 0.0), (2.0**-600, 0.0)]
    if spec.family not in TORCH_FAMILIES:
        cases.append((1.0, 1e6))
    for a, b in cases:
        tol = 1e-9 if b == 0 else 1e-6
        assert value(a, b) == pytest.approx(ref, abs=tol, rel=tol), (a, b)
