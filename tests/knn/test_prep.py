"""The kNN input policy (``knn.prep.prepare``): scaling, constant columns, ties, atoms, and
the same result whether the columns are examined on one thread or several."""

from __future__ import annotations

import numpy as np
import pytest

from infometer.estimators.knn import prep


def _blocks(n: int = 2000, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)) * [1.0, 3.0, 1.0, 1.0] + [0.0, 5.0, 0.0, 0.0]
    x[:, 2] = 7.0  # constant
    x[:, 3] = np.round(x[:, 3], 1)  # rounding ties
    y = rng.standard_normal((n, 2))
    y[: n // 4, 1] = 0.0  # an atom at 0 (a quarter of the rows), the rest continuous
    return {"x": x, "y": y}


def _run(blocks, threads: bool, monkeypatch, **kw) -> prep.Prepared:
    monkeypatch.setattr(prep, "PARALLEL_MIN_CELLS", 0 if threads else 10**18)
    monkeypatch.setattr(prep, "n_threads", lambda: 2)
    args = {"standardize": True, "jitter": "auto", "jitter_scale": 1e-6, "seed": 3}
    return prep.prepare(blocks, **{**args, **kw})


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"jitter": "always"},
        {"jitter": "never", "standardize": False},
        {"atom_min_count": 50, "atom_max_values": 10},
        {"pooled": True},
    ],
)
def test_threads_give_the_same_result(kw, monkeypatch):
    blocks = _blocks()
    if kw.get("pooled"):
        blocks = {"p": blocks["x"][:1200], "q": blocks["x"][1200:]}
    one = _run(blocks, False, monkeypatch, **kw)
    two = _run(blocks, True, monkeypatch, **kw)
    for a, b in zip(one.blocks, two.blocks, strict=True):
        assert a.flags.c_contiguous and b.flags.c_contiguous
        np.testing.assert_array_equal(a, b)
    assert one.log_scale == two.log_scale
    assert one.constant == two.constant
    assert one.diagnostics == two.diagnostics
    assert one.warnings == two.warnings


def test_policy_against_known_answers(monkeypatch):
    blocks = _blocks(n=4000)
    x, y = blocks["x"], blocks["y"]
    p = _run(blocks, True, monkeypatch, jitter="never")
    bx, by = p.blocks
    assert p.constant == {"x": [2]} and bx.shape == (4000, 3)  # the constant column dropped
    kept = x[:, [0, 1, 3]]
    np.testing.assert_allclose(bx, (kept - kept.mean(0)) / kept.std(0), rtol=0, atol=1e-12)
    assert p.log_scale[0] == pytest.approx(np.log(kept.std(0)).sum(), rel=1e-12)
    s = np.sort(x[:, 3])
    ties_x = np.count_nonzero(s[1:] == s[:-1]) / 4000  # rounded column (input index 3)
    assert p.diagnostics["tie_fraction"]["x"] == {"3": pytest.approx(ties_x, rel=1e-12)}
    assert p.diagnostics["tie_fraction"]["y"]["1"] == pytest.approx((1000 - 1) / 4000)
    assert "jittered_columns" not in p.diagnostics
    # GKOV's atoms: the zeros of y[:, 1] are an atom, never jittered; x's rounded
    # column has more than 10 atom values: a lattice, jittered whole
    q = _run(blocks, True, monkeypatch, atom_min_count=50, atom_max_values=10)
    assert q.diagnostics["atom_values"] == {"y": {"1": 1}}
    assert q.diagnostics["lattice_columns"] == {"x": [3]}
    assert q.diagnostics["jittered_columns"] == {"x": [3]}
    atoms = q.blocks[1][:1000, 1]
    assert np.unique(atoms).size == 1  # not jittered: still one value
    zero = (0.0 - y[:, 1].mean()) / y[:, 1].std()
    np.testing.assert_allclose(atoms, zero, rtol=1e-12)


def test_seeded_jitter_is_reproducible(monkeypatch):
    blocks = _blocks()
    a = _run(blocks, True, monkeypatch, jitter="always", seed=11)
    b = _run(blocks, True, monkeypatch, jitter="always", seed=11)
    c = _run(blocks, True, monkeypatch, jitter="always", seed=12)
    np.testing.assert_array_equal(a.blocks[0], b.blocks[0])
    assert not np.array_equal(a.blocks[0], c.blocks[0])


@pytest.mark.parametrize("method", ["ksg1", "ksg2", "gkov"])
def test_estimates_do_not_depend_on_the_scale_even_near_the_float_limits(method):
    """Standardising divides by the sd of ``col / 2^e`` (2^e ~ max |col|): a power of two
    scales every value and rounding exactly, so a column times 2^±900 gives the very same
    estimate (before, np.std overflowed there and a range-based fallback changed the
    value), and 1e±300 the same up to the rounding of the scaled data; numpy never warns."""
    import warnings

    import infometer as im

    rng = np.random.default_rng(11)
    x = rng.standard_normal(400)
    y = 0.6 * x + 0.8 * rng.standard_normal(400)
    ref = im.mutual_info(x, y, method=method).value
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for s in (2.0**900, 2.0**-900):
            assert im.mutual_info(x * s, y, method=method).value == ref
        for s in (1e300, 1e-300, 1e-200):
            assert im.mutual_info(x * s, y, method=method).value == pytest.approx(ref, abs=1e-9)
        h = im.entropy(x * 2.0**-900, method="kozachenko_leonenko").value
        assert h == pytest.approx(im.entropy(x).value - 900 * np.log(2.0), rel=1e-12)


def test_unstandardised_data_whose_distances_overflow_is_refused():
    import infometer as im

    rng = np.random.default_rng(12)
    x = np.r_[rng.standard_normal(200), 1.7e308, -1.7e308]
    y = rng.standard_normal(202)
    with pytest.raises(ValueError, match=r"x column 0 spans more than float64"):
        im.mutual_info(x, y, method="ksg1", standardize=False)
    assert np.isfinite(im.mutual_info(x, y, method="ksg1").value)  # standardised: fine
