"""Multiplet search: batched values equal the one-multiplet estimators, budget refused
before allocating, surrogates find planted synergy and redundancy."""

from __future__ import annotations

import numpy as np
import pytest

import infometer as im


def _planted(n=600, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 7))
    x[:, 1] += x[:, 0]  # (x0, x1, x2): redundancy (one common driver)
    x[:, 2] += x[:, 0]
    x[:, 5] = x[:, 3] + x[:, 4] + 0.3 * rng.normal(size=n)  # (x3, x4, x5): synergy
    return x


@pytest.mark.parametrize("method", ["gaussian", "gaussian_copula"])
@pytest.mark.parametrize(
    "measure",
    [
        "o_information",
        "total_correlation",
        "dual_total_correlation",
        "s_information",
        "co_information",
    ],
)
def test_values_equal_the_registered_estimators(method, measure):
    x = _planted()
    r = im.multiplets(x, measure=measure, sizes=(3, 4), method=method)
    assert len(r.frame) == 35 + 35
    f = getattr(im, measure)
    for _, row in r.frame.sample(6, random_state=0).iterrows():
        cols = [int(c[1:]) for c in row["multiplet"]]
        want = f(x[:, cols], method=method).value
        assert row["value"] == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_planted_structure_is_on_top_and_significant():
    r = im.multiplets(_planted(), sizes=3, n_permutations=99, seed=1)
    top = r.frame.head(2)
    assert set(top["multiplet"]) == {("x3", "x4", "x5"), ("x0", "x1", "x2")}
    syn = top.set_index("multiplet").loc[[("x3", "x4", "x5")]]
    assert float(syn["value"].iloc[0]) < 0  # synergy
    # no surrogate reaches the planted values: the smallest p-value 1/(B + 1)
    assert np.allclose(top["p_fwer"], 1 / 100)
    assert r.frame["p_value"].between(1 / 100, 1).all()
    again = im.multiplets(_planted(), sizes=3, n_permutations=99, seed=1)
    assert again.frame["p_value"].tolist() == r.frame["p_value"].tolist()
    low = r.top(1)["lowest"]
    assert low["multiplet"].iloc[0] == ("x3", "x4", "x5")


def test_units_and_plots(tmp_path):
    r = im.multiplets(_planted(), sizes=3, unit="bits")
    nats = im.multiplets(_planted(), sizes=3)
    assert r.frame["value"].to_numpy() == pytest.approx(nats.frame["value"].to_numpy() / np.log(2))
    r.plot(path=tmp_path / "bars.png")
    r.plot(kind="pairs", path=tmp_path / "pairs.png")
    assert (tmp_path / "bars.png").exists() and (tmp_path / "pairs.png").exists()
    m = r.pair_matrix()
    assert m.shape == (7, 7) and np.allclose(m, m.T, equal_nan=True)


BAD = [
    (dict(sizes=5, max_multiplets=10), "sizes"),
    (dict(sizes=2), "sizes"),
    (dict(sizes=(4, 3)), "sizes"),
    (dict(sizes=9), "sizes"),
    (dict(method="ksg"), "method"),
    (dict(measure="entropy"), "measure"),
    (dict(n_permutations=-1), "n_permutations"),
]


@pytest.mark.parametrize("kwargs,word", BAD)
def test_bad_input_names_the_argument(kwargs, word):
    with pytest.raises(ValueError, match=word):
        im.multiplets(_planted(50), **kwargs)


def test_budget_is_checked_before_allocating():
    # 200 variables, all 6-multiplets: 8.2e10, refused at once (no scatter is computed)
    x = np.zeros((3, 200))
    with pytest.raises(ValueError, match=r"sizes asks for 8\.\d+e\+10 multiplets"):
        im.multiplets(x, sizes=6)
