"""im.pairwise: the matrix equals the single-pair API, known Gaussian answers, bad input."""

import warnings

import numpy as np
import pandas as pd
import pytest

import infometer as im
from infometer import InfometerWarning
from infometer.workflows.allpairs import pairwise


def gaussian_mi(rho):
    return -0.5 * np.log1p(-(rho**2))


@pytest.fixture(scope="module")
def mixed():
    """Continuous (tie-free), discrete (ints and strings) columns in one table."""
    rng = np.random.default_rng(7)
    n = 600
    a = rng.standard_normal(n)
    b = a + rng.standard_normal(n)
    c = rng.standard_t(3, n)
    d = (a > 0).astype(int) + rng.integers(0, 2, n)
    e = rng.choice(["u", "v", "w"], n)
    f = np.where(rng.random(n) < 0.8, d, 2 - d)
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "e": e, "f": f})


def test_every_pair_equals_mutual_info_with_auto(mixed):
    """The contract: matrix[a, b] is what im.mutual_info(a, b) returns (tie-free columns)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InfometerWarning)
        res = pairwise(mixed, block_size=2)  # 3 groups: diagonal and off-diagonal blocks
        for x, y in [("a", "b"), ("a", "c"), ("a", "d"), ("b", "e"), ("d", "e"), ("d", "f")]:
            est = im.mutual_info(mixed[x], mixed[y])
            # same estimator on the same numbers; only summation order differs (KSG kernel)
            assert res.matrix.loc[x, y] == pytest.approx(est.value, abs=1e-10), (x, y)
            row = res.edges[(res.edges.x == x) & (res.edges.y == y)]
            assert row.method.iloc[0] == est.method
    m = res.matrix.to_numpy()
    assert np.all(np.isnan(np.diag(m))) and np.allclose(m, m.T, equal_nan=True)
    assert len(res.edges) == 15 and res.edges.value.is_monotonic_decreasing
    assert set(res.diagnostics["methods"]) == {"ksg1", "gkov", "miller_madow"}


def test_copula_matrix_and_partial_correlation_cmi_equal_the_registered_estimator(mixed):
    cont = mixed[["a", "b", "c"]].assign(g=np.sin(mixed.a) + mixed.c)
    res = pairwise(cont, method="copula")
    for x, y in [("a", "b"), ("b", "c"), ("a", "g")]:
        ref = im.mutual_info(cont[x], cont[y], method="gaussian_copula").value
        assert res.matrix.loc[x, y] == pytest.approx(ref, abs=1e-12)
    cmi = pairwise(cont, method="copula", given="a")
    assert list(cmi.matrix.columns) == ["b", "c", "g"] and cmi.quantity == "cond_mutual_info"
    for x, y in [("b", "c"), ("b", "g")]:
        ref = im.cond_mutual_info(cont[x], cont[y], cont["a"], method="gaussian_copula").value
        assert cmi.matrix.loc[x, y] == pytest.approx(ref, abs=1e-12)
    # given as an array gives the same numbers
    arr = pairwise(cont[["b", "c", "g"]], method="copula", given=cont["a"].to_numpy())
    assert np.allclose(arr.matrix.to_numpy(), cmi.matrix.to_numpy(), atol=1e-14, equal_nan=True)


def test_other_methods_and_cmi_go_through_the_registry(mixed):
    cont = mixed[["a", "b", "c"]]
    res = pairwise(cont, method="ksg2", k=5)
    ref = im.mutual_info(cont.a, cont.b, method="ksg2", k=5).value
    assert res.matrix.loc["a", "b"] == pytest.approx(ref, abs=1e-12)
    cmi = pairwise(mixed[["a", "b", "c"]], given="c")
    ref = im.cond_mutual_info(cont.a, cont.b, cont.c).value
    assert cmi.matrix.loc["a", "b"] == pytest.approx(ref, abs=1e-12)
    assert cmi.edges.method.iloc[0] == "frenzel_pompe"


@pytest.mark.parametrize("method", ["copula", "ksg"])
def test_gaussian_graphical_model_known_pairwise_mi(method):
    """Pairwise MI from the covariance of a sparse-precision Gaussian (8 variables)."""
    rng = np.random.default_rng(11)
    p, n = 8, 4000
    theta = np.eye(p)
    for i, j in [(0, 1), (1, 2), (2, 3), (0, 3), (4, 5), (5, 6), (3, 7)]:
        theta[i, j] = theta[j, i] = 0.4
    cov = np.linalg.inv(theta)
    sd = np.sqrt(np.diag(cov))
    rho = cov / np.outer(sd, sd)
    x = rng.multivariate_normal(np.zeros(p), cov, size=n)
    res = pairwise(x, method=method)
    est = res.matrix.to_numpy()
    iu = np.triu_indices(p, 1)
    truth = gaussian_mi(rho[iu])
    if method == "copula":
        # Gaussian data: the copula estimator is exactly unbiased; sd(MI) ~ |rho|/sqrt(n)
        # and ~1/(2n) at rho = 0; 5 sd plus 10/(2n) never trips by chance over 28 pairs
        tol = 5 * np.abs(rho[iu]) / np.sqrt(n) + 10 / (2 * n)
    else:
        # KSG-1 at n = 4000, 1-D Gaussian pairs: sd ~ 0.01 and |bias| < 0.01 (docs/knn.md)
        tol = 0.05
    assert np.all(np.abs(est[iu] - truth) < tol)
    # the variables 4-6 are independent of 0-3 and 7: zero MI there
    assert np.all(
        np.abs(est[np.ix_([4, 5, 6], [0, 1, 2, 3, 7])]) < (0.004 if method == "copula" else 0.03)
    )


def test_block_size_and_threads_do_not_change_the_result():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((300, 11))
    x[:, 3] += x[:, 0]
    ref = pairwise(x, method="ksg", block_size=64, n_jobs=1).matrix.to_numpy()
    for bs, jobs in [(3, 2), (5, 1)]:
        got = pairwise(x, method="ksg", block_size=bs, n_jobs=jobs).matrix.to_numpy()
        assert np.array_equal(got, ref, equal_nan=True)  # same kernel per pair: bit-identical
    c1 = pairwise(x, method="copula", block_size=4).matrix.to_numpy()
    c2 = pairwise(x, method="copula").matrix.to_numpy()
    assert np.allclose(c1, c2, rtol=0, atol=1e-14, equal_nan=True)  # matmul blocking only


def test_column_order_does_not_matter():
    """Per-column jitter seeds come from the column names: reordering only permutes."""
    rng = np.random.default_rng(6)
    df = pd.DataFrame(np.round(rng.standard_normal((250, 5)), 1), columns=list("pqrst"))
    a = pairwise(df, method="ksg").matrix
    b = pairwise(df[list("tsrqp")], method="ksg").matrix
    pd.testing.assert_frame_equal(a, b.loc[a.index, a.columns])


def test_units_and_result_api():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((200, 3))
    res = pairwise(x, method="copula")
    bits = pairwise(x, method="copula", unit="bits")
    assert np.allclose(bits.matrix.to_numpy(), res.matrix.to_numpy() / np.log(2), equal_nan=True)
    assert res.to("bits").edges.value.tolist() == pytest.approx(bits.edges.value.tolist())
    assert "MI of 3 columns" in repr(res)
    with pytest.raises(ValueError, match="n_permutations=B"):
        _ = res.significant_edges
    assert im.pairwise is pairwise


# ---------------------------------------------------------------------- bad input
def test_constant_and_all_nan_columns_are_reported_and_the_rest_is_computed():
    rng = np.random.default_rng(4)
    n = 300
    a = rng.standard_normal(n)
    df = pd.DataFrame(
        {"a": a, "const": np.full(n, 2.5), "b": a + rng.standard_normal(n), "gone": np.nan}
    )
    with pytest.warns(InfometerWarning) as rec:
        res = pairwise(df, method="ksg", n_permutations=19)
    text = " ".join(str(w.message) for w in rec)
    assert "'gone'" in text and "all values are missing" in text and "const" in text
    m = res.matrix
    assert np.isnan(m.loc["gone"]).all() and np.isnan(m["gone"]).all()
    assert m.loc["a", "const"] == 0.0 and m.loc["b", "const"] == 0.0  # exactly 0 by definition
    ref = im.mutual_info(df.a, df.b, method="ksg1").value
    assert m.loc["a", "b"] == pytest.approx(ref, abs=1e-10)
    row = res.edges[(res.edges.x == "a") & (res.edges.y == "const")].iloc[0]
    assert row.method == "constant" and row.p_value == 1.0
    assert res.diagnostics["dropped_columns"] == {"gone": "all values are missing (NaN)"}
    assert res.diagnostics["constant_columns"] == ["const"]


def test_missing_values_policies():
    rng = np.random.default_rng(5)
    df = pd.DataFrame(rng.standard_normal((100, 3)), columns=["a", "b", "c"])
    df.loc[[3, 7], "b"] = np.nan
    with pytest.raises(ValueError, match=r"missing values in 1 column\(s\): 'b' \(2 rows\)"):
        pairwise(df)
    with pytest.warns(InfometerWarning, match="kept 98 of 100 rows"):
        r = pairwise(df, method="copula", nan="drop_rows")
    assert r.n == 98
    with pytest.warns(InfometerWarning, match="'b'"):
        r = pairwise(df, method="copula", nan="drop_columns")
    assert np.isnan(r.matrix.loc["a", "b"]) and np.isfinite(r.matrix.loc["a", "c"])


RAND = np.random.default_rng(0).random((20, 3))


@pytest.mark.parametrize(
    "data, kw, err, match",
    [
        (np.zeros((10, 1)), {}, ValueError, "1 column"),
        (np.arange(10.0), {}, ValueError, "at least 2 variables"),
        (pd.DataFrame(np.ones((5, 3)), columns=["a", "b", "a"]), {}, ValueError, "duplicated"),
        (pd.DataFrame({"a": [np.nan] * 5, "b": np.arange(5.0)}), {}, ValueError, "usable"),
        (np.ones((5, 3, 2)), {}, ValueError, "3 dimensions"),
        ("x.csv", {}, TypeError, "table"),
        (RAND, {"k": 0}, ValueError, "k must be >= 1"),
        (RAND, {"kk": 3}, TypeError, "no parameter 'kk'"),
        (RAND, {"method": "nope"}, ValueError, "unknown method"),
        (RAND, {"n_permutations": -1}, ValueError, "n_permutations"),
        (RAND, {"alpha": 0}, ValueError, "alpha"),
        (RAND, {"correction": "bh"}, ValueError, "correction"),
        (RAND, {"null": "x"}, ValueError, "null"),
        (RAND, {"given": "nope"}, ValueError, "no column"),
        (RAND, {"given": np.ones(7)}, ValueError, "rows"),
        (RAND, {"backend": "spark"}, ValueError, "backend"),
        (
            pd.DataFrame({"a": [1, 2, 3, 1, 2] * 4, "b": [0.1] * 20}),
            {"method": "ksg"},
            ValueError,
            "discrete",
        ),
        (
            pd.DataFrame({"a": list("abcab") * 4, "b": list("xyxyx") * 4}),
            {"method": "copula"},
            ValueError,
            "two discrete",
        ),
    ],
)
def test_bad_input_gets_a_clear_message(data, kw, err, match):
    with pytest.raises(err, match=match):
        pairwise(data, **kw)


def test_store_resumes_only_missing_blocks_and_refuses_another_job(tmp_path):
    rng = np.random.default_rng(9)
    x = pd.DataFrame(rng.standard_normal((250, 9)), columns=list("abcdefghi"))
    store = tmp_path / "s"
    first = pairwise(x, method="ksg", block_size=3, store=store, n_permutations=9)
    assert first.diagnostics["blocks"]["computed"] == 6
    blocks = sorted((store / "blocks").glob("*.parquet"))
    assert len(blocks) == 6
    for f in blocks[:2]:
        f.unlink()  # as if the job had been killed before these two
    again = pairwise(x, method="ksg", block_size=3, store=store, n_permutations=9)
    b = again.diagnostics["blocks"]
    assert (b["computed"], b["already_stored"]) == (2, 4)
    assert np.array_equal(again.matrix.to_numpy(), first.matrix.to_numpy(), equal_nan=True)
    assert np.array_equal(again.p_values.to_numpy(), first.p_values.to_numpy(), equal_nan=True)
    with pytest.raises(ValueError, match="another pairwise matrix.*differs in method"):
        pairwise(x, method="copula", block_size=3, store=store)
    with pytest.raises(ValueError, match="another pairwise matrix.*differs in data"):
        pairwise(x * 2, method="ksg", block_size=3, store=store, n_permutations=9)
    read = pd.read_parquet(store / "blocks")
    assert len(read) == 36 and set(read.columns) >= {"a", "b", "value", "null_ge", "method"}
