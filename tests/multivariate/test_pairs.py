"""``im.pid_pairs``: every pair's batched PID equals ``im.pid`` on that pair, the atoms obey
the PID identities, Gaussian closed forms, budget and bad input refused up front."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import infometer as im
from infometer.core.data import InfometerWarning
from infometer.estimators.parametric.gaussian import copula_normalize
from infometer.measures.multivariate.pairs import pair_mutual_info

# float rounding: the batched and the one-pair paths evaluate the same log-det kernel, but
# the scatter matrix of all columns and that of three columns are different BLAS products
# (entries differ by a few ulp), and the atoms are differences of entropies of size ~3
ROUNDING = 1e-12


def _net(n=1500, d=6, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    x[:, 2] += x[:, 0]  # (x0, x2): redundant about y
    y = x[:, 0] + np.tanh(x[:, 1]) * 2 + x[:, -1] ** 3 / 3 + 0.5 * rng.normal(size=n)
    return x, y


def _pid_row(r):
    return [
        r.redundancy.value,
        r.unique[0].value,
        r.unique[1].value,
        r.synergy.value,
        r.mutual_info.value,
    ]


@pytest.mark.parametrize("method", ["gaussian", "gaussian_copula"])
def test_every_row_equals_pid_of_the_pair(method):
    x, y = _net()
    res = im.pid_pairs(x, y, method=method, unit="bits")
    f = res.to_frame()
    assert len(f) == 15
    assert list(f.columns[:8]) == [
        "source_i",
        "source_j",
        "redundancy",
        "unique_i",
        "unique_j",
        "synergy",
        "mutual_info",
        "co_information",
    ]
    # the copula: im.pid on the normal scores of the ranks (frites' gcrn)
    xs, ys = (x, y) if method == "gaussian" else (copula_normalize(x), copula_normalize(y))
    for k in (0, 3, 7, 14):
        i, j = res.pairs[k]
        assert (f.source_i[k], f.source_j[k]) == (f"x{i}", f"x{j}")
        ref = im.pid(xs[:, [i, j]], ys, measure="mmi", method="gaussian", unit="bits")
        got = f.loc[k, ["redundancy", "unique_i", "unique_j", "synergy", "mutual_info"]]
        np.testing.assert_allclose(got.to_numpy(float), _pid_row(ref), rtol=0, atol=ROUNDING)
        co = im.co_information(
            np.column_stack([xs[:, i], xs[:, j], ys]), method="gaussian", unit="bits"
        )
        assert abs(f.co_information[k] - co.value) < ROUNDING


def test_identities_and_co_information_sign():
    x, y = _net(seed=1)
    f = im.pid_pairs(x, y).to_frame()
    atoms = f[["redundancy", "unique_i", "unique_j", "synergy"]].sum(axis=1)
    np.testing.assert_allclose(atoms, f.mutual_info, rtol=0, atol=1e-13)
    res = im.pid_pairs(x, y)
    single = res.single
    i, j = res.pairs.T
    np.testing.assert_allclose(f.redundancy + f.unique_i, single[i], rtol=0, atol=1e-13)
    np.testing.assert_allclose(f.redundancy + f.unique_j, single[j], rtol=0, atol=1e-13)
    # co-information R - S: frites' interaction information is its negative
    np.testing.assert_allclose(f.co_information, f.redundancy - f.synergy, rtol=0, atol=1e-13)
    assert (np.minimum(f.unique_i, f.unique_j) == 0).all()  # MMI: one unique is 0
    assert res.diagnostics["identities"]["max_sum_atoms_minus_mi"] < 1e-13


def _exact_mi(cov, src, t):
    """I(S;T) = -½ log(1 - R²), R² = c' Σ_SS⁻¹ c / σ_T² (the coefficient of
    determination of the best linear predictor: a derivation independent of log-dets)."""
    c = cov[np.ix_(src, [t])][:, 0]
    r2 = c @ np.linalg.solve(cov[np.ix_(src, src)], c) / cov[t, t]
    return -0.5 * np.log1p(-r2)


def test_kernel_closed_form_of_a_gaussian_covariance():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(5, 5))
    cov = a @ a.T + 0.5 * np.eye(5)  # 4 sources, target column 4
    n = 1000
    pairs = np.column_stack(np.triu_indices(4, 1))
    single, joint = pair_mutual_info(cov * n, n, np.array([4]), pairs, False)
    for k in range(4):  # exact covariance, no bias correction: exact to rounding
        assert abs(single[k] - _exact_mi(cov, [k], 4)) < 1e-12
    for p, (i, j) in enumerate(pairs):
        assert abs(joint[p] - _exact_mi(cov, [i, j], 4)) < 1e-12
    assert np.isnan(single[4])


def test_barrett_sum_of_two_independent_gaussians():
    # T = S1 + S2 + σ·E, S1, S2, E independent N(0, 1): I(S_i;T) = ½ log((2+σ²)/(1+σ²)),
    # I(S1,S2;T) = ½ log((2+σ²)/σ²); MMI (= Gaussian BROJA): R = I_1, U = 0, S = I_12 - I_1
    sigma = 0.5
    n = 20_000
    rng = np.random.default_rng(4)
    s = rng.normal(size=(n, 2))
    t = s.sum(axis=1) + sigma * rng.normal(size=n)
    i1 = 0.5 * np.log((2 + sigma**2) / (1 + sigma**2))
    i12 = 0.5 * np.log((2 + sigma**2) / sigma**2)
    for measure in ("mmi", "broja"):
        f = im.pid_pairs(s, t, measure=measure, method="gaussian").to_frame()
        # sd of a Gaussian MI estimate at n = 2e4 is ≈ ρ/√n < 0.007 nats; 0.03 is > 4 sd
        assert abs(f.redundancy[0] - i1) < 0.03
        assert abs(f.synergy[0] - (i12 - i1)) < 0.03
        assert abs(f.unique_i[0]) < 0.03 and abs(f.unique_j[0]) < 0.03
        assert abs(f.mutual_info[0] - i12) < 0.03


def test_broja_equals_pid_broja_for_a_scalar_target():
    x, y = _net(d=3, seed=5)
    f = im.pid_pairs(x, y, measure="broja", method="gaussian").to_frame()
    ref = im.pid(x[:, [0, 1]], y, measure="broja", method="gaussian")
    np.testing.assert_allclose(
        f.loc[0, ["redundancy", "unique_i", "unique_j", "synergy"]].to_numpy(float),
        _pid_row(ref)[:4],
        rtol=0,
        atol=ROUNDING,
    )


def test_vector_target_mmi_equals_pid():
    x, y = _net(d=4, seed=6)
    t2 = np.column_stack([y, x[:, 1] * x[:, 3] + np.random.default_rng(0).normal(size=len(y))])
    f = im.pid_pairs(x, t2, method="gaussian").to_frame()
    for k, (i, j) in enumerate(np.column_stack(np.triu_indices(4, 1))):
        ref = im.pid(x[:, [i, j]], t2, measure="mmi", method="gaussian")
        got = f.loc[k, ["redundancy", "unique_i", "unique_j", "synergy", "mutual_info"]]
        np.testing.assert_allclose(got.to_numpy(float), _pid_row(ref), rtol=0, atol=ROUNDING)
    with pytest.raises(ValueError, match="measure 'broja' of a 2-column target"):
        im.pid_pairs(x, t2, measure="broja")


def test_units_names_matrices_and_plot(tmp_path):
    x, y = _net(d=5, seed=7)
    df = pd.DataFrame(x, columns=list("abcde"))
    nats = im.pid_pairs(df, pd.Series(y, name="y"))
    bits = im.pid_pairs(df, pd.Series(y, name="y"), unit="bits")
    assert bits.target == "y" and bits.names == tuple("abcde")
    np.testing.assert_allclose(
        bits.to_frame().synergy, nats.to_frame().synergy / np.log(2), rtol=1e-13
    )
    f = nats.to_frame()
    syn = nats.matrix("synergy")
    assert np.isnan(np.diag(syn)).all()
    np.testing.assert_array_equal(syn, syn.T)
    uniq = nats.matrix("unique")
    row = f[(f.source_i == "a") & (f.source_j == "c")].iloc[0]
    assert uniq[0, 2] == row.unique_i and uniq[2, 0] == row.unique_j
    np.testing.assert_allclose(
        nats.matrix("synergy_minus_redundancy"), -nats.matrix("co_information"), atol=1e-13
    )
    ax = nats.plot(path=tmp_path / "pairs.png")
    assert ax.get_title().startswith("MMI PID of every pair about y")
    assert (tmp_path / "pairs.png").stat().st_size > 0
    with pytest.raises(ValueError, match="quantity"):
        nats.matrix("nonsense")


def test_singular_pair_is_nan_and_warns():
    x, y = _net(d=4, seed=8)
    x[:, 3] = 2 * x[:, 1]  # pair (x1, x3) is collinear
    with pytest.warns(InfometerWarning, match="1 of 6 pairs of X have a singular"):
        res = im.pid_pairs(x, y, method="gaussian")
    f = res.to_frame()
    bad = (f.source_i == "x1") & (f.source_j == "x3")
    assert f[bad].synergy.isna().all() and f[~bad].synergy.notna().all()
    assert res.diagnostics["singular_pairs"] == 1


def test_ci_is_the_bootstrap_of_pid():
    x, y = _net(n=300, d=3, seed=9)
    res = im.pid_pairs(x, y, method="gaussian", ci=0.9)
    f = res.to_frame()
    ref = im.pid(x[:, [1, 2]], y, measure="mmi", method="gaussian", ci=0.9)
    assert (f.synergy_ci_low[2], f.synergy_ci_high[2]) == pytest.approx(ref.synergy.ci)
    assert (f.redundancy_ci_low[2], f.redundancy_ci_high[2]) == pytest.approx(ref.redundancy.ci)
    assert ((f.synergy_ci_low <= f.synergy) & (f.synergy <= f.synergy_ci_high)).all()
    with pytest.raises(ValueError, match="ci"):
        im.pid_pairs(x, y, ci=1.5)


def test_budget_refused_before_allocating():
    x = np.zeros((10, 3000))  # 4.5 million pairs; constant columns never reached
    with pytest.raises(ValueError, match=r"4\.5e\+06 pairs of 3000 sources.*limit of 2e\+06"):
        im.pid_pairs(x, np.arange(10.0))
    x, y = _net(d=40, seed=10)
    with pytest.raises(ValueError, match="ci"):
        im.pid_pairs(x, y, ci=0.9)  # 780 pairs x 4 x 200 re-runs > the ci budget
    with pytest.raises(ValueError, match="max_pairs"):
        im.pid_pairs(x, y, max_pairs=100)


@pytest.mark.parametrize(
    "kwargs, err, word",
    [
        ({"measure": "imin"}, ValueError, "measure"),
        ({"method": "ksg"}, ValueError, "method"),
        ({"max_pairs": 0}, ValueError, "max_pairs"),
        ({"bias_correct": "yes"}, TypeError, "bias_correct"),
        ({"unit": "furlongs"}, ValueError, "unit"),
    ],
)
def test_bad_parameters(kwargs, err, word):
    x, y = _net(d=3)
    with pytest.raises(err, match=word):
        im.pid_pairs(x, y, **kwargs)


def test_bad_data():
    x, y = _net(d=3)
    with pytest.raises(ValueError, match="one column"):
        im.pid_pairs(x[:, :1], y)
    with pytest.raises(ValueError, match="length|rows"):
        im.pid_pairs(x, y[:-1])
    xc = x.copy()
    xc[:, 1] = 1.0
    with pytest.raises(ValueError, match=r"constant columns \['x1'\]"):
        im.pid_pairs(xc, y)
    with pytest.raises(ValueError, match="target has a constant column"):
        im.pid_pairs(x, np.ones(len(y)))
    # symbols with a continuous target: auto names the two readings
    with pytest.raises(ValueError, match="discrete=True.*discrete=False"):
        im.pid_pairs(np.array([["a", "b"], ["c", "d"]] * 5), np.arange(10.0))


def test_cli_all_pairs(tmp_path):
    import json

    from typer.testing import CliRunner

    from infometer.cli.app import app

    x, y = _net(n=600, d=4, seed=11)
    df = pd.DataFrame(x, columns=list("abcd")).assign(y=y)
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    runner = CliRunner()
    png = tmp_path / "pid-pairs.png"
    cmd = ["pid", str(path), "--all-pairs", "--target", "y", "--json", "-u", "bits"]
    cmd += ["-o", str(tmp_path)]
    r = runner.invoke(app, cmd)
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    assert got["unit"] == "bits" and len(got["pairs"]) == 6 and png.stat().st_size > 0
    ref = im.pid_pairs(pd.read_csv(path)[list("abcd")], pd.read_csv(path)["y"], unit="bits")
    np.testing.assert_allclose(
        [p["synergy"] for p in got["pairs"]], ref.to_frame().synergy, rtol=0, atol=1e-12
    )
    r = runner.invoke(app, ["pid", str(path), "--all-pairs", "-t", "y", "-s", "a,b,c"])
    assert r.exit_code == 0 and "3 pairs" in r.stdout
    for bad, word in [
        (["--all-pairs", "--method", "nope"], "--method"),
        (["--all-pairs", "--method", "plugin"], "--discrete"),  # symbols, of numbers
        ([], "--sources is required"),
        (["--all-pairs", "-s", "a,y"], "--target"),
    ]:
        r = runner.invoke(app, ["pid", str(path), "-t", "y", *bad])
        assert r.exit_code == 2 and word in r.output


def test_memory_refused_when_max_pairs_is_raised():
    x = np.zeros((10, 50_000))  # 1.25e9 pairs: ~93 GiB of values, above the 8 GiB limit
    with pytest.raises(ValueError, match="GiB"):
        im.pid_pairs(x, np.arange(10.0), max_pairs=10**10)
