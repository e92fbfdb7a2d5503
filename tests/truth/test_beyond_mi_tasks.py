"""The truths of the suites beyond MI, each against an independent calculation.

CMI tables, TE and storage of Gaussian VAR/AR processes and Markov chains, TC/DTC/O/S of
Gaussians and gates, PID atoms of gates and Gaussians, ordinal-pattern probabilities of an
AR(1), the links of the network tasks.  The independent calculations use other formulas
and other code than the task modules: an MA(∞) sum instead of the Lyapunov solver,
regression residual variances instead of log-determinants, stationary laws by power
iteration, :mod:`infometer.exact` on explicit joint tables, Yule-Walker closed forms,
Gaussian orthant probabilities from scipy.  A last test draws each task's samples and meets
its truth with a consistent estimator at large n (the sampler is the process of the truth).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import infometer as im
from infometer.measures import truth
from infometer.measures.truth import dynamics as dyn
from infometer.measures.truth import multivariate as mv
from infometer.measures.truth import network as net
from infometer.measures.truth.signals import permutation_entropy_ar1
from infometer.workflows.bench import runner, suites

LOG2 = math.log(2.0)


def _h(p):
    p = np.asarray(p, dtype=float).ravel()
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


# ------------------------------------------------------------------ CMI tables
def test_cmi_tables_by_entropy_sums():
    assert truth.get_task("xor-cmi").truth == pytest.approx(LOG2, abs=1e-12)
    assert truth.get_task("noisy-copies-cmi-zero").truth == pytest.approx(0.0, abs=1e-12)
    t = truth.get_task("table-3x3x3-dirichlet-cmi")
    rng = np.random.default_rng(20261)
    pxyz = rng.dirichlet(np.ones(27)).reshape(3, 3, 3)
    by_hand = _h(pxyz.sum(1)) + _h(pxyz.sum(0)) - _h(pxyz) - _h(pxyz.sum((0, 1)))
    assert t.truth == pytest.approx(by_hand, abs=1e-12)


def test_gaussian_cmi_with_a_5d_condition_by_partial_correlation():
    t = truth.get_task("gauss-cmi-1-1-5")
    b = np.random.default_rng(12).standard_normal((7, 7))  # the task's covariance
    cov = b @ b.T + 0.5 * np.eye(7)
    # Σ_{xy|z} by the Schur complement; I = -½ log(1 - ρ²) of the partial correlation
    s = cov[:2, :2] - cov[:2, 2:] @ np.linalg.solve(cov[2:, 2:], cov[2:, :2])
    rho = s[0, 1] / math.sqrt(s[0, 0] * s[1, 1])
    assert t.truth == pytest.approx(-0.5 * math.log(1 - rho**2), rel=1e-10)


# ------------------------------------------------------------------ VAR transfer entropy
def _ma_cov(coefs, lags_max, terms=3000):
    """Autocovariances Γ(h) = Σ_j Ψ_{j+h} Ψ_jᵀ of a VAR from its MA(∞) weights Ψ_j."""
    a = np.asarray(coefs, dtype=float)
    p, d = a.shape[0], a.shape[1]
    psi = [np.eye(d)]
    for j in range(1, terms + lags_max + 1):
        psi.append(sum(a[i] @ psi[j - 1 - i] for i in range(min(p, j))))
    return [sum(psi[j + h] @ psi[j].T for j in range(terms)) for h in range(lags_max + 1)]


def _lagged(gamma, items):
    """Covariance of (series, lag) items: Cov(X_i(t-a), X_j(t-b)) = Γ(b - a)[i, j]."""
    m = np.empty((len(items), len(items)))
    for r, (i, a) in enumerate(items):
        for c, (j, b) in enumerate(items):
            h = b - a
            m[r, c] = gamma[h][i, j] if h >= 0 else gamma[-h][j, i]
    return m


def _resid_var(cov, y, xs):
    if not xs:
        return cov[y, y]
    beta = np.linalg.solve(cov[np.ix_(xs, xs)], cov[xs, y])
    return cov[y, y] - cov[y, xs] @ beta


@pytest.mark.parametrize(
    "name", ["var2-te-0to1", "var2-te-1to0-zero", "var2-te-strong", "var3-cte-chain-zero",
             "var3-cte-direct", "var2-te-lag2-l2"],
)  # fmt: skip
def test_var_te_by_regression_on_the_ma_covariances(name):
    t = truth.get_task(name)
    e = t.extra
    k, l = t.params["k"], t.params["l"]  # noqa: E741
    gamma = _ma_cov(e["coefs"], max(k, l) + 1)
    items = [(e["target"], 0)] + [(e["target"], g) for g in range(1, k + 1)]
    if e["cond"] is not None:
        items += [(e["cond"], 1)]
    past = list(range(1, len(items)))
    items += [(e["source"], g) for g in range(1, l + 1)]
    full = list(range(1, len(items)))
    cov = _lagged(gamma, items)
    te = 0.5 * math.log(_resid_var(cov, 0, past) / _resid_var(cov, 0, full))
    assert t.truth == pytest.approx(te, abs=1e-9)
    if name.endswith("zero"):
        assert t.truth == pytest.approx(0.0, abs=1e-9)
    else:
        assert t.truth > 0.05


def test_ar_storage_by_yule_walker():
    for phi in (0.6, 0.9):  # AR(1): AIS = -½ log(1 - φ²), rate = innovation entropy
        assert truth.get_task(f"ar1-ais-{phi}").truth == pytest.approx(
            -0.5 * math.log(1 - phi**2), abs=1e-10
        )
        assert truth.get_task(f"ar1-rate-{phi}").truth == pytest.approx(
            0.5 * math.log(2 * math.pi * math.e), abs=1e-10
        )
    f1, f2 = 0.5, 0.3  # AR(2): γ0 and ρ1 from the Yule-Walker equations
    g0 = (1 - f2) / ((1 + f2) * ((1 - f2) ** 2 - f1**2))
    r1 = f1 / (1 - f2)
    assert truth.get_task("ar2-ais-k2").truth == pytest.approx(0.5 * math.log(g0), abs=1e-10)
    assert truth.get_task("ar2-ais-k1").truth == pytest.approx(
        -0.5 * math.log(1 - r1**2), abs=1e-10
    )
    assert truth.get_task("ar2-rate-k2").truth == pytest.approx(
        0.5 * math.log(2 * math.pi * math.e), abs=1e-10
    )
    assert truth.get_task("ar2-rate-k1").truth == pytest.approx(
        0.5 * math.log(2 * math.pi * math.e * g0 * (1 - r1**2)), abs=1e-10
    )


# ------------------------------------------------------------------ Markov chains
def _power_stationary(t):
    p = np.full(t.shape[0], 1.0 / t.shape[0])
    for _ in range(5000):
        p = p @ t
    return p / p.sum()


@pytest.mark.parametrize("name", ["markov-te-x2y", "markov-te-y2x-zero", "markov3-te-x2y"])
def test_markov_te_from_the_joint_table(name):
    t = truth.get_task(name)
    px, py = np.asarray(t.extra["px"]), np.asarray(t.extra["py"])
    kx, ky = px.shape[0], py.shape[2]
    # joint P(x, y, x', y') = π(x, y) P(x'|x) P(y'|x, y), π by power iteration
    joint_t = np.einsum("ac,abd->abcd", px, py).reshape(kx * ky, kx * ky)
    pi = _power_stationary(joint_t).reshape(kx, ky)
    joint = np.einsum("ab,ac,abd->abcd", pi, px, py)  # axes x, y, x', y'
    if t.extra["direction"] == "x2y":  # I(Y'; X | Y): axes (Y', X, Y)
        table = joint.sum(2).transpose(2, 0, 1)
    else:  # I(X'; Y | X)
        table = joint.sum(3).transpose(2, 1, 0)
    assert t.truth == pytest.approx(im.exact.cond_mutual_info(table).value, abs=1e-10)


@pytest.mark.parametrize("name", ["markov-3state-ais", "ising1d-K0.5-ais"])
def test_markov_ais_from_the_joint_table(name):
    t = truth.get_task(name)
    p = np.asarray(t.extra["transition"])
    pi = _power_stationary(p)
    assert t.truth == pytest.approx(im.exact.mutual_info(pi[:, None] * p).value, abs=1e-10)


# ------------------------------------------------------------------ multivariate
def _gauss_h(cov, idx):
    c = np.asarray(cov)[np.ix_(idx, idx)]
    return 0.5 * (len(idx) * math.log(2 * math.pi * math.e) + np.linalg.slogdet(c)[1])


@pytest.mark.parametrize("base", ["gauss3-redundant", "gauss3-synergistic"])
def test_gaussian_multivariate_by_differential_entropies(base):
    cov = truth.get_task(f"{base}-tc").extra["cov"]
    h = [_gauss_h(cov, [i]) for i in range(3)]
    hall = _gauss_h(cov, [0, 1, 2])
    h_rest = [_gauss_h(cov, [j for j in range(3) if j != i]) for i in range(3)]
    tc = sum(h) - hall
    dtc = hall - sum(hall - hr for hr in h_rest)
    want = {"tc": tc, "dtc": dtc, "oinfo": tc - dtc, "sinfo": tc + dtc}
    for short, v in want.items():
        assert truth.get_task(f"{base}-{short}").truth == pytest.approx(v, abs=1e-10)
    sign = 1 if base.endswith("redundant") else -1
    assert sign * want["oinfo"] > 0.1


def _gate_pmf(gate, eps=0.0):
    p = np.zeros((2, 2, 2))
    for a in (0, 1):
        for b in (0, 1):
            if gate == "copy":
                p[a, a, a] += 0.5 * (b == 0)
            else:
                p[a, b, a ^ b] += 0.25 * (1 - eps)
                p[a, b, 1 - (a ^ b)] += 0.25 * eps
    return p


@pytest.mark.parametrize("tag,gate,eps", [("xor3", "xor", 0.0), ("copy3", "copy", 0.0),
                                          ("xor3-noisy0.1", "xor", 0.1)])  # fmt: skip
def test_gate_multivariate_by_the_exact_functions(tag, gate, eps):
    p = _gate_pmf(gate, eps)
    e = im.exact
    for short, f in (("tc", e.total_correlation), ("dtc", e.dual_total_correlation),
                     ("oinfo", e.o_information), ("sinfo", e.s_information)):  # fmt: skip
        assert truth.get_task(f"{tag}-{short}").truth == pytest.approx(f(p).value, abs=1e-10)


_ATOM = {"red": "redundancy", "unq0": "unique", "syn": "synergy"}


def _pid_value(res, short):
    if short == "unq0":
        return res.unique[0].value
    return getattr(res, _ATOM[short]).value


@pytest.mark.parametrize("task", truth.tasks("pid"), ids=lambda t: t.name)
def test_pid_truths_by_the_exact_pid(task):
    short = task.name.rsplit("-", 1)[1]
    if task.family.startswith("pid-gates"):
        gate = task.name.split("-")[1]
        p = np.zeros((2, 2, 4 if gate == "copy" else 2))
        for a in (0, 1):
            for b in (0, 1):
                if gate == "rdn":
                    p[a, a, a] = 0.5
                else:
                    t = {"xor": a ^ b, "and": a & b, "copy": 2 * a + b}[gate]
                    p[a, b, t] = 0.25
        res = im.exact.pid(p, measure=task.params["measure"])
        assert task.truth == pytest.approx(_pid_value(res, short), abs=1e-6)
    else:  # Gaussian: MMI from correlations; BROJA = MMI through the union information
        from infometer.measures.multivariate._gaussian_broja import union_information

        cov = np.asarray(task.extra["cov"])
        corr = cov / np.sqrt(np.outer(np.diag(cov), np.diag(cov)))
        i1, i2 = (-0.5 * math.log(1 - corr[i, 2] ** 2) for i in (0, 1))
        r2 = corr[2, :2] @ np.linalg.solve(corr[:2, :2], corr[:2, 2])
        i12 = -0.5 * math.log(1 - r2)
        if task.params["measure"] == "mmi":
            red = min(i1, i2)
        else:
            union, _ = union_information(cov, [0], [1], [2])
            red = i1 + i2 - union
        want = {"red": red, "unq0": i1 - red, "syn": i12 - (i1 + i2 - red)}[short]
        assert task.truth == pytest.approx(want, abs=1e-7)


# ------------------------------------------------------------------ complexity
@pytest.mark.parametrize("phi", [0.0, -0.8, 0.9])
def test_ar1_permutation_entropy_by_orthant_probabilities(phi):
    # (X1, X2, X3) of the AR(1) is Gaussian with Cov = φ^|i-j| / (1 - φ²); each of the six
    # ordinal patterns is an orthant of two differences, whose probability scipy integrates
    g = np.array([[phi ** abs(i - j) for j in range(3)] for i in range(3)]) / (1 - phi**2)
    probs = []
    for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        d = np.zeros((2, 3))  # X_perm[0] < X_perm[1] < X_perm[2]
        d[0, perm[1]], d[0, perm[0]] = 1, -1
        d[1, perm[2]], d[1, perm[1]] = 1, -1
        mvn = stats.multivariate_normal(np.zeros(2), d @ g @ d.T)
        probs.append(mvn.cdf(np.zeros(2)))  # P(-D < 0) = P(D > 0) by symmetry
    probs = np.asarray(probs)
    assert probs.sum() == pytest.approx(1.0, abs=1e-5)
    assert permutation_entropy_ar1(phi) == pytest.approx(_h(probs), abs=1e-5)
    if phi:
        name = f"ar1-{'neg0.8' if phi < 0 else phi}-permutation-m3"
        assert truth.get_task(name).truth == pytest.approx(_h(probs), abs=1e-5)


# ------------------------------------------------------------------ networks
@pytest.mark.parametrize("task", truth.tasks("network"), ids=lambda t: t.name)
def test_network_edges_are_the_nonzero_couplings(task):
    x = task.sample(3000, seed=0)["x"]
    n = task.extra["n_nodes"]
    assert x.shape == (3000, n)
    edges = {(s, t) for s, t, _ in task.extra["edges"] if s != t}
    # least squares of each node on every lagged node: the coupling of a non-link is
    # ~1/sqrt(n) = 0.02; of a link, the simulator's |coefficient| >= 0.2
    lag = task.params["max_lag"]
    past = np.hstack([x[lag - g : len(x) - g] for g in range(1, lag + 1)])
    beta, *_ = np.linalg.lstsq(past, x[lag:], rcond=None)
    strength = np.abs(beta).reshape(lag, n, n).max(0)  # [source, target]
    for s in range(n):
        for t in range(n):
            if s != t:
                assert (strength[s, t] > 0.1) == ((s, t) in edges), (s, t, strength[s, t])


def test_score_edges_counts():
    s = net.score_edges([(0, 1, 1), (1, 2, 1)], [(0, 1, 3), (0, 2, 1), (2, 2, 1)], 3)
    assert (s["tp"], s["fp"], s["fn"]) == (1, 1, 1)
    assert s["fpr"] == pytest.approx(1 / 4) and s["f1"] == pytest.approx(0.5)
    null = net.score_edges([], [], 4)
    assert null["f1"] == 1.0 and null["fpr"] == 0.0
    assert net.score_edges([], [(0, 1, 1)], 4)["f1"] == 0.0


# ------------------------------------------------------------------ samplers
def _reference(task):
    if task.quantity == "pid_atom":
        return "plugin" if task.discrete else "gaussian"
    if task.quantity == "complexity" or task.quantity == "network":
        return None
    return "plugin" if task.discrete else "gaussian"


_SAMPLED = [
    t
    for tag in ("cmi", "te", "dynamics", "multivariate", "pid")
    for t in truth.tasks(tag)
    if _reference(t) is not None
]


@pytest.mark.parametrize("task", _SAMPLED, ids=lambda t: t.name)
def test_samplers_draw_the_process_of_the_truth(task):
    # n = 20,000: the Gaussian (log-det) and plug-in estimators here have sd <= ~0.01 nats
    # and bias <= (cells)/(2n) ~ 0.002; 0.04 nats is > 3 sd + bias on every task, far below
    # the gap between a wrong process and the truth (>= 0.1 nats on the tasks with a signal)
    method = _reference(task)
    vals = [float(runner._estimate(task, task.sample(20_000, seed=s), method, s)) for s in (0, 1)]
    assert np.mean(vals) == pytest.approx(task.truth, abs=0.04), vals


def test_quick_suite_holds_a_slice_of_every_suite_beyond_mi():
    quick = {t.name for t in suites.suite_tasks("quick")}
    for suite in ("cmi", "te", "dynamics", "multivariate", "pid", "network", "complexity"):
        assert quick & {t.name for t in suites.suite_tasks(suite)}, suite


def test_var_te_doctest_value_is_the_regression_value():
    a = np.array([[[0.5, 0.0], [0.5, 0.4]]])
    gamma = _ma_cov(a, 2)
    cov = _lagged(gamma, [(1, 0), (1, 1), (0, 1)])
    te = 0.5 * math.log(_resid_var(cov, 0, [1]) / _resid_var(cov, 0, [1, 2]))
    assert dyn.var_transfer_entropy(a, 0, 1) == pytest.approx(te, abs=1e-10)
    assert mv.GATE_PID["and"]["mmi"]["{01}"] == pytest.approx(0.5 * LOG2)
