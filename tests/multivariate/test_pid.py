"""PID: known answers from the literature, identities against the core's exact MI, BROJA
against a brute-force grid of its polytope, samples and Gaussian MMI."""

from __future__ import annotations

import numpy as np
import pytest

import infometer as im
from infometer.measures import exact
from infometer.measures.multivariate import _pid

LOG2_3 = np.log2(3.0)


def _gate(f, kt=2):
    p = np.zeros((2, 2, kt))
    for a in (0, 1):
        for b in (0, 1):
            p[a, b, f(a, b)] = 0.25
    return p


XOR = _gate(lambda a, b: a ^ b)
AND = _gate(lambda a, b: a & b)
COPY = _gate(lambda a, b: 2 * a + b, kt=4)
RDN = np.zeros((2, 2, 2))
RDN[0, 0, 0] = RDN[1, 1, 1] = 0.5

# (R, U1, U2, S) in bits.  XOR, RDN: every measure (Williams & Beer 2010; Bertschinger
# et al. 2014).  AND: I_min = BROJA = MMI (0.3113 = 1.5 - 0.75 log2 3 + ... , Williams &
# Beer 2010; Bertschinger et al. 2014); CCS (Ince 2017, Table 4); dep (James, Emenheiser &
# Crutchfield 2018, Table 1).  COPY: I_min/MMI R = S = 1 (Harder et al. 2013 criticism);
# BROJA, CCS, dep U = 1 + 1.  isx: from the definition by hand (XOR: the union event has
# P = 3/4 and P(t | union) = 1/3, so i∩ = log2(2/3) at every outcome).
R_AND = 1.5 - 0.75 * LOG2_3  # I(S1;T) of AND: H(T) - H(T|S1), exact
KNOWN = {("xor", m): (XOR, (0, 0, 0, 1)) for m in ("imin", "mmi", "broja", "ccs", "dep")}
KNOWN |= {("rdn", m): (RDN, (1, 0, 0, 0)) for m in _pid.MEASURES}
KNOWN |= {("and", m): (AND, (R_AND, 0, 0, 0.5)) for m in ("imin", "mmi", "broja")}
KNOWN |= {
    ("and", "ccs"): (AND, (0.1038, 0.2075, 0.2075, 0.2925)),
    ("and", "dep"): (AND, (0.0817, 0.2296, 0.2296, 0.2704)),
    ("copy", "imin"): (COPY, (1, 0, 0, 1)),
    ("copy", "mmi"): (COPY, (1, 0, 0, 1)),
    ("copy", "broja"): (COPY, (0, 1, 1, 0)),
    ("copy", "ccs"): (COPY, (0, 1, 1, 0)),
    ("copy", "dep"): (COPY, (0, 1, 1, 0)),
    ("xor", "isx"): (XOR, (np.log2(2 / 3), -np.log2(2 / 3), -np.log2(2 / 3), 2 - LOG2_3)),
}


@pytest.mark.parametrize("key", sorted(KNOWN), ids=lambda k: f"{k[0]}-{k[1]}")
def test_known_answers(key):
    p, want = KNOWN[key]
    r = exact.pid(p, measure=key[1], unit="bits")
    got = (r.redundancy.value, *(u.value for u in r.unique), r.synergy.value)
    # published values are given to 4 decimals; the others are exact
    tol = 6e-5 if key in {("and", "ccs"), ("and", "dep")} else 1e-7
    assert got == pytest.approx(want, abs=tol)


def _random(shape, seed):
    return np.random.default_rng(seed).dirichlet(np.full(int(np.prod(shape)), 0.8)).reshape(shape)


@pytest.mark.parametrize("measure", _pid.MEASURES)
@pytest.mark.parametrize("seed", range(3))
def test_identities_on_random_pmfs(measure, seed):
    p = _random((2, 3, 3), seed)
    r = exact.pid(p, measure=measure)
    kt = p.shape[-1]
    i_all = exact.mutual_info(p.reshape(-1, kt)).value
    assert sum(a.value for a in r.atoms) == pytest.approx(i_all, abs=1e-9)
    for i, u in enumerate(r.unique):
        i_s = exact.mutual_info(p.sum(axis=1 - i)).value
        assert r.redundancy.value + u.value == pytest.approx(i_s, abs=1e-9)


@pytest.mark.parametrize("measure", ["imin", "mmi", "isx"])
def test_three_source_lattice(measure):
    # three-bit parity: all of I(S;T) = 1 bit is in the top atom for imin and mmi
    p = np.zeros((2, 2, 2, 2))
    for a in range(8):
        b = [(a >> k) & 1 for k in range(3)]
        p[b[0], b[1], b[2], b[0] ^ b[1] ^ b[2]] = 1 / 8
    r = exact.pid(p, measure=measure, unit="bits")
    assert len(r.atoms) == 18
    assert sum(a.value for a in r.atoms) == pytest.approx(1.0, abs=1e-12)
    if measure != "isx":
        assert r.synergy.value == pytest.approx(1.0, abs=1e-12)
        assert max(abs(a.value) for a in r.atoms[:-1]) < 1e-12


@pytest.mark.parametrize("seed", range(3))
def test_broja_is_the_minimum_over_its_polytope(seed):
    """For binary S1, S2, T the feasible set Δ_p is 2-D: a fine grid of it bounds the
    minimum of I_q(T; S1 | S2) the solver must find."""
    from scipy.linalg import null_space

    p = _random((2, 2, 2), seed + 10)
    ui = exact.pid(p, measure="broja").unique[0].value
    p1t, p2t, pt = p.sum(1), p.sum(0), p.sum((0, 1))
    q0 = (p1t[:, None, :] * p2t[None, :, :] / pt).ravel()
    rows = []
    for ax in (1, 0):
        for a in range(2):
            for t in range(2):
                m = np.zeros((2, 2, 2))
                idx = [slice(None)] * 3
                idx[2 - ax - 1 if ax == 1 else 1] = slice(None)
                m[(a, slice(None), t) if ax == 1 else (slice(None), a, t)] = 1
                rows.append(m.ravel())
    basis = null_space(np.array(rows))
    g = np.linspace(-1, 1, 801)
    th = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    q = q0[None, :] + th @ basis.T
    q = q[(q >= 0).all(1)].reshape(-1, 2, 2, 2)

    def h(a, axes):
        m = a.sum(axis=axes) if axes else a
        m = m.reshape(len(a), -1)
        return -(np.where(m > 0, m * np.log(np.where(m > 0, m, 1)), 0)).sum(1)

    cmi = h(q, (3,)) + h(q, (1,)) - h(q, ()) - h(q, (1, 3))  # I(S1;T|S2)
    best = cmi.min()
    assert ui <= best + 1e-9
    assert ui >= best - 2e-3  # grid spacing 2.5e-3 in θ: the grid minimum is that close


def test_plugin_pid_is_the_pid_of_the_empirical_pmf():
    rng = np.random.default_rng(0)
    s = rng.integers(0, 3, size=(400, 2))
    t = (s[:, 0] + s[:, 1] * (rng.random(400) < 0.7)) % 3
    emp = np.zeros((3, 3, 3))
    np.add.at(emp, (s[:, 0], s[:, 1], t), 1 / 400)
    for measure in ("imin", "broja", "ccs"):
        got = im.pid(s, t, measure=measure)
        want = exact.pid(emp, measure=measure)
        assert [a.value for a in got.atoms] == pytest.approx(
            [a.value for a in want.atoms], abs=1e-9
        )
    assert got.mutual_info.value == pytest.approx(
        im.mutual_info(s, t, method="plugin", discrete=True).value, abs=1e-12
    )


def test_gaussian_mmi_closed_form():
    # y = x1 + 0.5 x2 + e: I(X_i; Y) = -½ log(1 - ρ_i²) with ρ from the covariance; the
    # Gaussian MI's sd at n = 20000 is < 0.006 nats, so 0.025 is > 4 sd
    rng = np.random.default_rng(1)
    x = rng.normal(size=(20000, 2))
    y = x[:, 0] + 0.5 * x[:, 1] + rng.normal(size=20000)
    var_y = 1 + 0.25 + 1
    i1 = -0.5 * np.log(1 - 1 / var_y)
    i2 = -0.5 * np.log(1 - 0.25 / var_y)
    i12 = -0.5 * np.log(1 - 1.25 / var_y)
    r = im.pid(x, y)
    assert r.measure == "mmi" and r.method == "gaussian"
    got = (r.redundancy.value, r.unique[0].value, r.unique[1].value, r.synergy.value)
    want = (i2, i1 - i2, 0.0, i12 - i1)
    assert got == pytest.approx(want, abs=0.025)


def test_ci_frame_and_plot(tmp_path):
    rng = np.random.default_rng(2)
    s = rng.integers(0, 2, size=(300, 2))
    r = im.pid(s, s[:, 0] ^ s[:, 1], measure="mmi", ci=0.9, unit="bits")
    df = r.to_frame()
    assert list(df["kind"]) == ["redundancy", "unique", "unique", "synergy"]
    assert all(lo <= hi for lo, hi in zip(df["ci_low"], df["ci_high"], strict=True))
    r.plot(path=tmp_path / "pid.png")
    assert (tmp_path / "pid.png").exists()


BAD = [
    (lambda: im.pid(np.zeros((10, 1), int), np.zeros(10, int)), ValueError, "X|sources"),
    (
        lambda: im.pid(np.c_[np.arange(10) % 2, np.arange(10) % 3], np.arange(10) % 2),
        ValueError,
        "target",
    ),
    (
        lambda: im.pid(
            np.random.default_rng(0).normal(size=(50, 2)),
            np.random.default_rng(1).normal(size=50),
            measure="ccs",
        ),
        ValueError,
        "measure",
    ),
    (
        lambda: im.pid(
            np.c_[np.arange(10) % 2, np.arange(10) % 3], np.arange(10) % 5, measure="nope"
        ),
        ValueError,
        "measure",
    ),
    (lambda: exact.pid(np.full((2, 2, 2), 0.2)), ValueError, "p"),
    (lambda: exact.pid(np.full((2, 2), 0.25)), ValueError, "p"),
    (lambda: exact.pid(np.full((2, 2, 2, 2), 1 / 16), measure="broja"), ValueError, "2 sources"),
    (lambda: im.pid(np.zeros((10, 2), int), np.zeros(9, int)), ValueError, "rows"),
]


@pytest.mark.parametrize("call,exc,word", BAD)
def test_bad_input_names_the_argument(call, exc, word):
    with pytest.raises(exc, match=word):
        call()


@pytest.mark.parametrize("seed", range(4))
def test_broja_swapped_solve_agrees(seed):
    """The unique information of S2 solved on its own (sources swapped) must equal
    I(S2;T) - I(S1;T) + U(S1): both programs have the same optimal q, so this checks
    that the solver reaches the optimum on 3x3x2 pmfs (where SLSQP stopped ~1e-5 short)."""
    p = _random((3, 3, 2), seed + 20)
    u0, _ = _pid._broja_unique(p)
    u1, _ = _pid._broja_unique(p.transpose(1, 0, 2))
    i0 = _pid.mutual_info_st(p, frozenset({0}))
    i1 = _pid.mutual_info_st(p, frozenset({1}))
    assert u1 == pytest.approx(i1 - i0 + u0, abs=1e-9)
    assert min(u0, u1) >= -1e-12
