"""The BROJA floor of benchmarks/speed/floors.py (``_floors.broja_slsqp``: the textbook
primal program by scipy's SLSQP) is a correct program: it gives the closed-form atoms of
the classic gates and agrees with the library's certified dual solver on random pmfs.

Tolerances: SLSQP stops at ``ftol`` 1e-14 on the objective, but its iterate sits where the
objective is flat to first order (the minimiser), so the atoms are accurate only to about
the square root of that, ~1e-7 nats; at the boundary optima of the gates (zeros of q) the
clipped logarithm adds ~1e-9.  1e-5 nats leaves two orders of magnitude and still catches
any wrong formula (the atoms here differ by >= 0.1 nats between the gates)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from infometer.measures.multivariate import _exact as exact

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "_floors.py"
_spec = importlib.util.spec_from_file_location("bench_floors_broja", _PATH)
F = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = F
_spec.loader.exec_module(F)

LN2 = math.log(2.0)


def _gate(fn) -> np.ndarray:
    p = np.zeros((2, 2, 2))
    for a in (0, 1):
        for b in (0, 1):
            p[a, b, fn(a, b)] += 0.25
    return p


@pytest.mark.parametrize(
    ("gate", "want"),  # (shared, unique S1, unique S2, synergy) in nats
    [
        (lambda a, b: a ^ b, (0.0, 0.0, 0.0, LN2)),  # XOR: all synergy
        (lambda a, b: a, (0.0, LN2, 0.0, 0.0)),  # T = S1: unique to S1
        # AND: shared = I(T; S1) = 0.311 bits = (3/4) ln(4/3) nats, synergy 1/2 bit
        (lambda a, b: a & b, (0.75 * math.log(4 / 3), 0.0, 0.0, 0.5 * LN2)),
    ],
)
def test_the_floor_gives_the_gates_closed_forms(gate, want):
    np.testing.assert_allclose(F.broja_slsqp(_gate(gate)), want, atol=1e-5)


def test_the_floor_agrees_with_the_certified_solver():
    rng = np.random.default_rng(3)
    for shape in [(2, 2, 2), (3, 2, 3), (3, 3, 3)]:
        p = rng.dirichlet(np.ones(int(np.prod(shape)))).reshape(shape)
        r = exact.pid(p, measure="broja")
        d = {lab: e.value for lab, e in zip(r.labels, r.atoms, strict=True)}
        ours = [d["{0}{1}"], d["{0}"], d["{1}"], d["{01}"]]
        np.testing.assert_allclose(F.broja_slsqp(p), ours, atol=1e-5)
