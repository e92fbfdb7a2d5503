"""BROJA against ground truth the solver has not seen: closed forms (Bertschinger, Rauh,
Olbrich, Jost & Ay 2014), pmfs with zero rows and columns and optima on the boundary,
degenerate supports, peers' values (IDTxl's TartuPID at ECOS tolerances of 1e-12 and
dit 2.3's conic PID_BROJA, computed once by ``benchmarks/peers/broja_fixture.py`` in the
peers' venvs and kept in data/broja_peers.json), and the properties every BROJA PID has."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infometer.measures import exact

FIXTURE = Path(__file__).parent / "data" / "broja_peers.json"
PROPS = settings(
    derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


def _atoms(p: np.ndarray) -> np.ndarray:
    """(R, U1, U2, S) in bits."""
    r = exact.pid(p, measure="broja", unit="bits")
    return np.array([r.redundancy.value, r.unique[0].value, r.unique[1].value, r.synergy.value])


def _h2(x: np.ndarray) -> float:
    x = x[x > 0]
    return float(-(x * np.log2(x)).sum())


def _mi2(joint: np.ndarray) -> float:
    """I(A; B) in bits of a 2-D pmf."""
    return _h2(joint.sum(1)) + _h2(joint.sum(0)) - _h2(joint.ravel())


def _cmi2(p: np.ndarray) -> float:
    """I(T; S1 | S2) in bits of p[s1, s2, t]."""
    return _h2(p.sum(2)) + _h2(p.sum(0)) - _h2(p.ravel()) - _h2(p.sum((0, 2)))


# ---------------------------------------------------------------- closed forms
@pytest.mark.parametrize("k1,k2,seed", [(2, 2, 0), (2, 3, 1), (3, 3, 2), (5, 4, 3)])
def test_copy_of_dependent_sources(k1, k2, seed):
    """T = (S1, S2): R = I(S1; S2), U1 = H(S1 | S2), U2 = H(S2 | S1), S = 0 (the identity
    property; Bertschinger et al. 2014, Sec. 5)."""
    j = np.random.default_rng(seed).dirichlet(np.ones(k1 * k2)).reshape(k1, k2)
    p = np.zeros((k1, k2, k1 * k2))
    for a in range(k1):
        for b in range(k2):
            p[a, b, a * k2 + b] = j[a, b]
    i12 = _mi2(j)
    want = [i12, _h2(j.sum(1)) - i12, _h2(j.sum(0)) - i12, 0.0]
    assert _atoms(p) == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_sum_mod_k_is_all_synergy(k):
    """T = S1 + S2 mod k, independent uniform sources: I(T; S_i) = 0, so R = U = 0 and
    S = log2 k (XOR at k = 2)."""
    p = np.zeros((k, k, k))
    for a in range(k):
        for b in range(k):
            p[a, b, (a + b) % k] = 1 / k**2
    assert _atoms(p) == pytest.approx([0, 0, 0, np.log2(k)], abs=1e-9)


def test_and_gate():
    """AND, uniform inputs: R = I(S1; T) = h(1/4) - 1/2, U = 0, S = 1/2 bits
    (Bertschinger et al. 2014, Table 1: 0.311 and 0.5); the optimum is on the boundary
    (q(0,1,·) and q(1,0,·) vanish)."""
    p = np.zeros((2, 2, 2))
    for a in (0, 1):
        for b in (0, 1):
            p[a, b, a & b] = 0.25
    r = _h2(np.array([0.25, 0.75])) - 0.5
    assert _atoms(p) == pytest.approx([r, 0, 0, 0.5], abs=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_unique_source(seed):
    """T = S1, S2 independent of both: U1 = H(S1), the rest 0."""
    rng = np.random.default_rng(seed)
    p1, p2 = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(3))
    p = np.zeros((4, 3, 4))
    for a in range(4):
        p[a, :, a] = p1[a] * p2
    assert _atoms(p) == pytest.approx([0, _h2(p1), 0, 0], abs=1e-9)


def test_redundant_copies():
    """T = S1 = S2 with a non-uniform law: R = H(T)."""
    w = np.array([0.5, 0.3, 0.2])
    p = np.zeros((3, 3, 3))
    p[np.arange(3), np.arange(3), np.arange(3)] = w
    assert _atoms(p) == pytest.approx([_h2(w), 0, 0, 0], abs=1e-9)


# ---------------------------------------------- zero rows, relabelling, degenerate
def test_zero_rows_and_columns_change_nothing():
    """AND embedded in larger alphabets with symbols that never occur (zero rows of p(s1,t)
    and p(s2,t), an empty t) and shuffled labels keeps its atoms."""
    p = np.zeros((2, 2, 2))
    for a in (0, 1):
        for b in (0, 1):
            p[a, b, a & b] = 0.25
    big = np.zeros((4, 3, 5))
    big[np.ix_([3, 1], [0, 2], [4, 1])] = p
    assert _atoms(big) == pytest.approx(_atoms(p), abs=1e-9)


def test_one_symbol_source_and_constant_target():
    rng = np.random.default_rng(4)
    j = rng.dirichlet(np.ones(12)).reshape(1, 3, 4)  # S1 constant: U2 = I(T; S2), rest 0
    assert _atoms(j) == pytest.approx([0, 0, _mi2(j[0]), 0], abs=1e-9)
    c = rng.dirichlet(np.ones(9)).reshape(3, 3, 1)  # T constant: nothing to decompose
    assert _atoms(c) == pytest.approx([0, 0, 0, 0], abs=1e-9)
    both = np.zeros((1, 1, 3))
    both[0, 0] = [0.2, 0.3, 0.5]
    assert _atoms(both) == pytest.approx([0, 0, 0, 0], abs=1e-9)


# ------------------------------------------------------------------ peers' values
def _fixture() -> list[dict]:
    return json.loads(FIXTURE.read_text())["cases"]


def _pmf_of(case: dict) -> np.ndarray:
    if "counts" in case:
        c = np.asarray(case["counts"], dtype=float)
        return c / c.sum()
    p = np.zeros(case["shape"])
    for a, b, t, v in case["cells"]:
        p[a, b, t] = v
    return p


@pytest.mark.parametrize("case", _fixture(), ids=lambda c: c["name"])
def test_equals_the_peers(case):
    """Tartu's cone program at ECOS tolerances of 1e-12 agrees with ours to ~1e-12 bits
    (2e-12 on these; 1.1e-10 on the sparse n = 20 table, where our solve stops at a gap of
    ~1e-10); dit's, at its default tolerances, to ~1e-8."""
    ours = _atoms(_pmf_of(case))
    assert ours == pytest.approx(case["tartu_bits"], abs=1e-9)
    if "dit_cone_bits" in case:
        assert ours == pytest.approx(case["dit_cone_bits"], abs=5e-8)


def test_the_fixture_covers_the_sizes():
    names = " ".join(c["name"] for c in _fixture())
    for size in ("2x2x2", "3x3x3", "4x4x4", "6x6x6", "8x8x8"):
        assert f"dirichlet1 {size}" in names
    for k in (2, 3, 4, 6, 8):
        assert f"samples k={k} n=10000" in names


# --------------------------------------------------------------------- properties
@st.composite
def _pmfs(draw):
    shape = tuple(draw(st.integers(1, 4)) for _ in range(3))
    n = int(np.prod(shape))
    w = np.array(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)), dtype=float)
    if w.sum() == 0:
        w[0] = 1.0
    return (w / w.sum()).reshape(shape)


@PROPS
@given(_pmfs(), st.randoms(use_true_random=False))
def test_relabelling_and_bounds(p, rnd):
    """Relabelling the symbols of each variable or swapping the sources changes nothing
    (up to the swap of U1 and U2); max(0, I1 - I2) <= U1 <= min(I1, I(T; S1 | S2)) and
    every atom >= 0 (Bertschinger et al. 2014, Lemma 5 and Sec. 3)."""
    atoms = _atoms(p)
    perm = [rnd.sample(range(k), k) for k in p.shape]
    assert _atoms(p[np.ix_(*perm)]) == pytest.approx(atoms, abs=1e-9)
    r, u1, u2, s = atoms
    assert _atoms(p.transpose(1, 0, 2)) == pytest.approx([r, u2, u1, s], abs=1e-9)
    i1, i2 = _mi2(p.sum(1)), _mi2(p.sum(0))
    assert min(atoms) >= -1e-9
    assert max(0.0, i1 - i2) - 1e-9 <= u1 <= min(i1, _cmi2(p)) + 1e-9
